"""The admin API under /_dynemu/: the clock, a table's partitions and hot keys, metrics.

Requests reach the namespace their credential scope names, like the data plane; without an
Authorization header, ``?region=`` (default us-east-1) and ``?access_key=`` choose it.

    GET  /_dynemu/clock                           {"now": <epoch seconds>, "mode": ...}
    POST /_dynemu/clock  {"advance": <seconds>}   moves a virtual clock, runs what is due
    GET  /_dynemu/tables/<TableName>/partitions   [?index=<IndexName>&window=<minutes>|all]
                                                  partitions, buckets, consumption, throttles,
                                                  hottest keys (the last 5 minutes by default);
                                                  &key=<key as DynamoDB JSON>: "key_partition"
    GET  /_dynemu/tables/<TableName>/contributor-insights   [?index=<IndexName>] Contributor
                                                  Insights' reports: top keys per minute
    GET  /_dynemu/metrics                         Prometheus text format
"""

from __future__ import annotations

import time
from typing import Any

import orjson
from aiohttp import web

from dynemu import errors
from dynemu.api.admin.dashboard import HOT_MINUTES, Dashboard
from dynemu.api.admin.gauges import partition_gauges
from dynemu.api.metrics import RequestMetrics
from dynemu.api.protocol import parse_credential
from dynemu.engine import indexes, insights
from dynemu.engine.capacity import contributors, locate
from dynemu.engine.capacity.contributors import KEEP_MINUTES
from dynemu.engine.clock import VirtualClock
from dynemu.engine.indexes import Index
from dynemu.engine.namespace import Namespace
from dynemu.engine.namespaces import DEFAULT_REGION, Namespaces
from dynemu.engine.table import Table
from dynemu.errors import DynamoError


def _json(data: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, body=orjson.dumps(data), content_type="application/json")


def _error(message: str, status: int = 400) -> web.Response:
    return _json({"error": message}, status)


def _global_index(table: Table, name: str) -> Index | None:
    """The GSI ``?index=`` names (one rule for every view of an index); None: no such GSI."""
    ix = indexes.find(table, name)
    return ix if ix is not None and ix.is_global else None


class Admin:
    def __init__(self, namespaces: Namespaces, metrics: RequestMetrics) -> None:
        self.namespaces = namespaces
        self.metrics = metrics

    def routes(self, app: web.Application) -> None:
        app.router.add_get("/_dynemu/clock", self.get_clock)
        app.router.add_post("/_dynemu/clock", self.post_clock)
        app.router.add_get("/_dynemu/tables/{table}/partitions", self.partitions)
        app.router.add_get("/_dynemu/tables/{table}/contributor-insights", self.contributor_insights)
        app.router.add_get("/_dynemu/metrics", self.prometheus)
        Dashboard(self.namespaces, self._database).routes(app)  # read-only HTML pages (dashboard.py)

    def _database(self, request: web.Request) -> Namespace | web.Response:
        auth = request.headers.get("Authorization")
        if auth and not auth[:7].lower() == "bearer ":  # a bearer token is --admin-token's
            access_key, region = parse_credential(auth)
        else:
            region = request.query.get("region", DEFAULT_REGION)
            access_key = request.query.get("access_key", "")
        try:
            return self.namespaces.for_request(region, access_key, wait=False)  # opened here
        except DynamoError as err:  # a region that names no namespace (never a path)
            return _error(err.message)

    def _table(self, request: web.Request) -> tuple[Namespace, Table] | web.Response:
        """The namespace and the table the path names, or the admin API's error answer."""
        db = self._database(request)
        if isinstance(db, web.Response):
            return db
        table = db.lookup(request.match_info["table"])
        if table is None:
            return _error(errors.MSG_ADMIN_NO_TABLE.format(table=request.match_info["table"]), 404)
        return db, table

    # --- clock -------------------------------------------------------------------------------------

    async def get_clock(self, request: web.Request) -> web.Response:
        clock = self.namespaces.clock
        return _json({"now": clock.now(), "mode": clock.mode})

    async def post_clock(self, request: web.Request) -> web.Response:
        clock = self.namespaces.clock
        try:
            body = orjson.loads(await request.read() or b"{}")
        except orjson.JSONDecodeError:
            return _error(errors.MSG_ADMIN_BAD_CLOCK_BODY)
        advance = body.get("advance") if isinstance(body, dict) else None
        if not isinstance(advance, int | float) or isinstance(advance, bool) or advance < 0:
            return _error(errors.MSG_ADMIN_BAD_ADVANCE)
        if not isinstance(clock, VirtualClock):
            return _error(errors.MSG_ADMIN_CLOCK_NOT_VIRTUAL.format(mode=clock.mode), 409)
        clock.advance(float(advance))
        return _json({"now": clock.now(), "mode": clock.mode})

    # --- partitions ------------------------------------------------------------------------------------

    async def partitions(self, request: web.Request) -> web.Response:
        found = self._table(request)
        if isinstance(found, web.Response):
            return found
        db, table = found
        index = request.query.get("index")
        state = table.capacity.state
        if index is not None:
            ix = _global_index(table, index)
            if ix is None:
                return _error(errors.MSG_ADMIN_NO_INDEX.format(index=index), 404)
            state = table.capacity.index_state(ix, db.now())  # made on first use, as a read makes it
        window = request.query.get("window", str(HOT_MINUTES))
        if window != "all" and not (window.isdigit() and 1 <= int(window) <= KEEP_MINUTES):
            return _error(errors.MSG_ADMIN_BAD_WINDOW.format(most=KEEP_MINUTES), 400)
        minutes = None if window == "all" else int(window)
        now = db.now()
        view = {
            "table": table.name,
            "index": index,
            "summary": state.summary(now),
            "partitions": locate.describe_partitions(state, table.spec, index, now),
            "hot_keys": contributors.hot_keys(state.contributors, table.spec, index, now, minutes),
        }
        if "key" in request.query:  # which partition holds key K: ?key=<the key as DynamoDB JSON>
            try:
                view["key_partition"] = locate.partition_of(state, table.spec, index, orjson.loads(request.query["key"]))
            except (orjson.JSONDecodeError, DynamoError) as e:
                return _error(errors.MSG_ADMIN_BAD_KEY.format(detail=getattr(e, "message", "not JSON")), 400)
        return _json(view)

    async def contributor_insights(self, request: web.Request) -> web.Response:
        """Contributor Insights' status and reports (engine/insights.py) as JSON."""
        found = self._table(request)
        if isinstance(found, web.Response):
            return found
        db, table = found
        index = request.query.get("index")
        cap = table.capacity
        state = cap.state
        if index is not None:
            if _global_index(table, index) is None:
                return _error(errors.MSG_ADMIN_NO_INDEX.format(index=index), 404)
            state = cap.index_states.get(index)  # None before the GSI's first use
        now = db.now()
        ins = state.contributors.insights if state is not None else None
        return _json(
            {
                "table": table.name,
                "index": index,
                "status": ins.status(now) if ins is not None else "DISABLED",
                "mode": ins.mode if ins is not None and ins.enabled else None,
                "reports": insights.reports(state.contributors, table.spec, index, now) if state is not None else [],
            }
        )

    # --- Prometheus ---------------------------------------------------------------------------------------

    async def prometheus(self, request: web.Request) -> web.Response:
        lines: list[str] = []
        add = lines.append
        add("# HELP dynemu_consumed_capacity_units_total Capacity units consumed.")
        add("# TYPE dynemu_consumed_capacity_units_total counter")
        throttle_lines: list[str] = []
        for ns_name, db in sorted(self.namespaces.databases.items()):
            for name, table in sorted(db.tables.items()):
                states = [(None, table.capacity.state)]
                states += sorted(getattr(table.capacity, "index_states", {}).items())
                for index, state in states:
                    labels = f'namespace="{ns_name}",table="{name}",index="{index or ""}"'
                    add(f'dynemu_consumed_capacity_units_total{{{labels},operation="read"}} {state.consumed_total[0]}')
                    add(f'dynemu_consumed_capacity_units_total{{{labels},operation="write"}} {state.consumed_total[1]}')
                    for reason, n in sorted(state.throttle_counts.items()):
                        throttle_lines.append(f'dynemu_throttled_requests_total{{{labels},reason="{reason}"}} {n}')
            for reason, n in sorted(db.deleted_throttles.items()):  # tables deleted since start
                labels = f'namespace="{ns_name}",table="",index=""'
                throttle_lines.append(f'dynemu_throttled_requests_total{{{labels},reason="{reason}"}} {n}')
        add("# HELP dynemu_throttled_requests_total Throttle events of the capacity model, by reason (table=\"\": tables since deleted).")
        add("# TYPE dynemu_throttled_requests_total counter")
        lines.extend(throttle_lines)
        lines.extend(partition_gauges(self.namespaces))  # allocated capacity, bucket balances
        m = self.metrics
        add("# HELP dynemu_requests_total Requests handled, by operation.")
        add("# TYPE dynemu_requests_total counter")
        for op, n in sorted(m.count.items()):
            add(f'dynemu_requests_total{{operation="{op}"}} {n}')
        add("# HELP dynemu_request_duration_seconds Time spent handling requests, by operation.")
        add("# TYPE dynemu_request_duration_seconds summary")
        for op, n in sorted(m.count.items()):
            add(f'dynemu_request_duration_seconds_count{{operation="{op}"}} {n}')
            add(f'dynemu_request_duration_seconds_sum{{operation="{op}"}} {m.seconds[op]:.6f}')
        add("# HELP dynemu_request_errors_total Requests answered with an error, by operation and type.")
        add("# TYPE dynemu_request_errors_total counter")
        for (op, err), n in sorted(m.errors.items()):
            add(f'dynemu_request_errors_total{{operation="{op}",error="{err}"}} {n}')
        add(f"dynemu_scrape_timestamp_seconds {time.time():.3f}")
        return web.Response(text="\n".join(lines) + "\n", content_type="text/plain")
