"""The admin API's view of global tables: ``GET /_dynemu/global-tables`` (JSON).

Each global table with its replicas (region, status, item count), the replication backlog
and the changes applied per direction (from region, to region), the conflicts resolved
(last writer wins) or refused (ReplicatedWriteConflictException), the replication lag and
the clock's time. The dashboard's pages are ``api/dashboard.py``'s; this is the data a
section of them can show.
"""

from __future__ import annotations

import orjson
from aiohttp import web

from dynemu.engine import global_tables
from dynemu.engine.namespaces import Namespaces


def routes(app: web.Application, namespaces: Namespaces) -> None:
    async def view(request: web.Request) -> web.Response:
        rep = namespaces.replication
        body = {
            "now": namespaces.clock.now(),
            "replication_lag_ms": rep.lag * 1000.0,
            "mrsc_conflict_window_ms": rep.window * 1000.0,
            "global_tables": global_tables.summary(rep),
        }
        return web.Response(body=orjson.dumps(body), content_type="application/json")

    app.router.add_get("/_dynemu/global-tables", view)
