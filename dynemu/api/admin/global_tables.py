"""The admin API's view of global tables: ``GET /_dynemu/global-tables`` (JSON).

Each global table with its replicas (region, status, item count), the replication backlog
and the changes applied per direction (from region, to region), the conflicts resolved
(``conflicts_resolved``: last writer wins) and, apart, the writes refused
(``writes_refused``: ReplicatedWriteConflictException, each retry again), the replication lag and
the clock's time. The dashboard's index page (``api/admin/dashboard.py``) renders the same
``view`` as its "global tables" section (``api/admin/global_tables_html.py``).
"""

from __future__ import annotations

from typing import Any

import orjson
from aiohttp import web

from dynemu.engine.global_tables import membership as global_tables
from dynemu.engine.namespaces import Namespaces


def view(namespaces: Namespaces) -> dict[str, Any]:
    """The global tables as the JSON endpoint serves them and the dashboard shows them."""
    rep = namespaces.replication
    return {
        "now": namespaces.clock.now(),
        "replication_lag_ms": rep.lag * 1000.0,
        "mrsc_conflict_window_ms": rep.window * 1000.0,
        "global_tables": global_tables.summary(rep),
    }


def routes(app: web.Application, namespaces: Namespaces) -> None:
    async def serve(request: web.Request) -> web.Response:
        return web.Response(body=orjson.dumps(view(namespaces)), content_type="application/json")

    app.router.add_get("/_dynemu/global-tables", serve)
