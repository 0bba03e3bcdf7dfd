"""The dashboard under /_dynemu/: read-only HTML pages over the capacity model.

    GET /_dynemu/                          the namespace's tables (``?region=`` like the admin API)
                                           and its global tables (api/admin/global_tables_html.py)
    GET /_dynemu/tables/<TableName>        a table and its GSIs: charts, partitions, keys, splits
    GET /_dynemu/tables/<TableName>/history[?index=<IndexName>&since=<epoch s>]
                                           the per-second history behind the charts (JSON)
    GET /_dynemu/static/<file>             the page's stylesheet and script (package data)

Nothing here changes state: pages read the engine's capacity state (the partitions view of
the admin API and the bounded per-second history). The only buttons -- advancing a virtual
clock -- POST to the admin API's ``/_dynemu/clock`` and so pass its request protections.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote, urlencode

import orjson
from aiohttp import web

from dynemu import errors
from dynemu.api.admin import dashboard_html as html
from dynemu.api.admin import global_tables as global_tables_admin
from dynemu.api.admin import global_tables_html
from dynemu.api.admin.gauges import partition_gauges
from dynemu.api.protocol import credential_scope, scope_identity
from dynemu.engine import insights
from dynemu.engine.capacity import contributors, locate
from dynemu.engine.namespace import Namespace
from dynemu.engine.namespaces import DEFAULT_REGION, Namespaces
from dynemu.errors import DynamoError

WINDOW = 300  # seconds shown on the live charts
HOT_MINUTES = 5  # clock minutes the hottest keys cover
STATIC = {"dashboard.css": "text/css", "dashboard.js": "text/javascript"}
# The pages may load only their own stylesheet and script, and run no inline script.
CSP = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; connect-src 'self'"


def resource_views(table: Any, now: float) -> list[dict[str, Any]]:
    """The table's and each GSI's state as the page shows it (syncs their histories)."""
    cap = table.capacity
    states = [(None, cap.state)] + sorted(cap.index_states.items())
    views = []
    for index, state in states:
        state.history.sync(state, now)
        views.append(
            {
                "label": table.name if index is None else f"{table.name} / index {index}",
                "anchor": "table" if index is None else f"index-{index}",
                "summary": state.summary(now),
                "partitions": locate.describe_partitions(state, table.spec, index, now),
                "hot_keys": contributors.hot_keys(state.contributors, table.spec, index, now, HOT_MINUTES),
                "history": state.history.since(int(now) - WINDOW),
                "created": int(state.created),
                "insights": _insights(state, table.spec, index, now),
                "splits": list(state.history.splits),
                "events": list(state.history.events),
            }
        )
    index_throttles = {v["summary"]["index"]: v["summary"]["throttles"] for v in views[1:] if v["summary"]["throttles"]}
    views[0]["index_throttles"] = index_throttles
    views[0]["index_history"] = {v["summary"]["index"]: v["history"] for v in views[1:]}
    return views


def _insights(state: Any, spec: Any, index: str | None, now: float) -> dict[str, Any] | None:
    ins = state.contributors.insights
    if ins is None:
        return None
    return {
        "status": ins.status(now),
        "mode": ins.mode if ins.enabled else None,
        "reports": insights.reports(state.contributors, spec, index, now),
    }


def _recent_throttles(table: Any, now: float) -> dict[str, int]:
    out: dict[str, int] = {}
    cap = table.capacity
    for state in [cap.state, *cap.index_states.values()]:
        state.history.sync(state, now)
        for rec in state.history.since(int(now) - WINDOW):
            for reason, n in rec["throttles"].items():
                out[reason] = out.get(reason, 0) + n
    return out


def _clock_text(now: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(now)) + " UTC"


def _relative(now: float) -> html.XLabel:
    """Ticks as the time from now, and below it the UTC clock time (as CloudWatch shows)."""

    def label(x: float) -> str:
        d = int(round(now - x))
        return ("now" if d <= 0 else f"-{d // 60}:{d % 60:02d}") + "\n" + html.utc_clock(x)

    return label


class Dashboard:
    """The pages of the admin application (api/admin/api.py): ``namespaces`` gives the clock,
    ``database`` the namespace a request names (or the error page to answer)."""

    def __init__(self, namespaces: Namespaces, database: Callable[[web.Request], Namespace | web.Response]) -> None:
        self.namespaces = namespaces
        self.database = database

    def routes(self, app: web.Application) -> None:
        app.router.add_get("/_dynemu/", self.index)
        app.router.add_get("/_dynemu/tables/{table}", self.table_page)
        app.router.add_get("/_dynemu/tables/{table}/history", self.history)
        app.router.add_get("/_dynemu/static/{name}", self.static)

    def _html(self, title: str, body: str) -> web.Response:
        head = '<link rel="stylesheet" href="/_dynemu/static/dashboard.css"><script src="/_dynemu/static/dashboard.js" defer></script>'
        resp = web.Response(text=html.page(title, body, head), content_type="text/html")
        resp.headers["Content-Security-Policy"] = CSP
        resp.headers["X-Frame-Options"] = "DENY"
        resp.headers["Cache-Control"] = "no-store"
        return resp

    def _query(self, request: web.Request) -> str:
        q = {k: v for k, v in request.query.items() if k in ("region", "access_key")}
        return "?" + urlencode(q) if q else ""

    def _lookup(self, request: web.Request, table: Any) -> str:
        """The "which partition holds key K" form, and its answer for ``?key=``."""
        key = request.query.get("key")
        answer = ""
        if key is not None:
            try:
                n = locate.partition_of(table.capacity.state, table.spec, None, orjson.loads(key))
                answer = f"held by partition #{n}"
            except (orjson.JSONDecodeError, DynamoError) as e:
                answer = errors.MSG_ADMIN_BAD_KEY.format(detail=getattr(e, "message", "not JSON"))
        return html.key_lookup(request.query, key, answer)

    def _clock(self) -> dict[str, Any]:
        clock = self.namespaces.clock
        return {"mode": clock.mode, "now": clock.now()}

    async def index(self, request: web.Request) -> web.Response:
        db = self.database(request)
        if isinstance(db, web.Response):  # a region that names no namespace
            return db
        now = db.now()
        rows = []
        for name, table in sorted(db.tables.items()):
            state = table.capacity.state
            rows.append(
                {
                    "name": name,
                    "href": f"/_dynemu/tables/{quote(name)}{self._query(request)}",
                    "billing": table.spec.billing_mode,
                    "throughput": html.throughput_text(state.summary(now)),
                    "partitions": len(state.pmap),
                    "items": sum(p.item_count for p in state.pmap.parts),
                    "size": sum(p.size_bytes for p in state.pmap.parts),
                    "recent_throttles": _recent_throttles(table, now),
                }
            )
        auth = request.headers.get("Authorization", "")
        scope = credential_scope(auth)
        region = scope_identity(scope)[1] if scope is not None else request.query.get("region", DEFAULT_REGION)
        # this namespace's global tables: the admin API's view, those with a replica here
        gview = global_tables_admin.view(self.namespaces)
        mine = [
            g for g in gview["global_tables"]
            if g["table"] in db.tables and any(r["region"] == region for r in g["replicas"])
        ]  # fmt: skip
        gsection = global_tables_html.section(gview, mine)
        body = html.index_body(str(region), _clock_text(now), rows, self._clock(), gsection)
        return self._html(f"dynemu · {region}", body)

    async def table_page(self, request: web.Request) -> web.Response:
        db = self.database(request)
        if isinstance(db, web.Response):
            return db
        name = request.match_info["table"]
        table = db.lookup(name)
        if table is None:
            body = f'<h1>table not found: {html.escape(name)}</h1><p><a href="/_dynemu/{self._query(request)}">all tables</a></p>'
            resp = self._html("not found", body)
            resp.set_status(404)
            return resp
        now = db.now()
        sections = []
        end = int(now)  # the open second is not drawn: every chart ends on the same whole second
        for view in resource_views(table, now):
            # a young table's charts start when it began, not 5 minutes ago
            view["x_range"] = (max(end - WINDOW, min(view["created"], end - 30)), end)
            view["x_label"] = _relative(end)
            view["origin"] = end
            sections.append(html.resource_section(view))
        for ix in table.spec.indexes:  # a GSI's capacity state starts with its first read or write
            if ix.is_global and ix.name not in table.capacity.index_states:
                sections.append(
                    f'<section class="resource"><h2>{html.escape(table.name)} / index {html.escape(ix.name)}</h2>'
                    "<p>no traffic yet</p></section>"
                )
        nav = "".join(
            f'<a href="#{html.escape(v)}">{html.escape(v)}</a> '
            for v in ["table"] + [f"index-{i}" for i in sorted(table.capacity.index_states)]
        )
        body = (
            f'<p><a href="/_dynemu/{self._query(request)}">← all tables</a> · {nav}</p>'
            f"<h1>{html.escape(table.name)}</h1>{html.clock_bar(self._clock(), _clock_text(now))}"
            f"{self._lookup(request, table)}<div id=content>{''.join(sections)}</div>"
        )
        return self._html(f"dynemu · {table.name}", body)

    async def history(self, request: web.Request) -> web.Response:
        db = self.database(request)
        if isinstance(db, web.Response):
            return db
        table = db.lookup(request.match_info["table"])
        if table is None:
            return _json({"error": errors.MSG_ADMIN_NO_TABLE.format(table=request.match_info["table"])}, 404)
        index = request.query.get("index")
        state = table.capacity.state
        if index is not None:
            if index not in table.capacity.index_states:
                return _json({"error": errors.MSG_ADMIN_NO_INDEX_TRAFFIC.format(index=index)}, 404)
            state = table.capacity.index_states[index]
        try:
            since = float(request.query.get("since", "0"))
        except ValueError:
            return _json({"error": errors.MSG_ADMIN_BAD_SINCE}, 400)
        now = db.now()
        state.history.sync(state, now)
        return _json(
            {
                "now": now,
                "seconds": state.history.since(since),
                "splits": list(state.history.splits),
                "events": list(state.history.events),
            }
        )

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in STATIC:
            raise web.HTTPNotFound()
        return web.Response(text=html.static_text(name), content_type=STATIC[name])


def _json(data: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, body=orjson.dumps(data), content_type="application/json")


__all__ = ["Dashboard", "partition_gauges", "resource_views"]
