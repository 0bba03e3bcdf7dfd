"""The dashboard (/_dynemu/), the per-second history behind it and the capacity gauges, over
HTTP on a private server with a virtual clock and traffic that throttles."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from dynemu.api.admin.app import NAMESPACES
from dynemu.engine.capacity.history import CapacityHistory
from dynemu.replay import runner, scenario
from dynemu.testing import DynemuServer
from tests.conftest import make_client

TRAFFIC: dict[str, Any] = {
    "name": "dashboard",
    "model": "uniform",
    "seed": 11,
    "tables": [
        {
            "name": "dash_orders",
            "hash": ["pk", "S"],
            "create": {"read": 1, "write": 3999},
            "read": 10,
            "write": 400,
            "gsis": [
                {"name": "byStatus", "hash": ["status", "S"], "read": 50, "write": 50},
                {"name": "byOwner", "hash": ["owner", "S"], "read": 5, "write": 5},
            ],
        }
    ],
    "phases": [
        {
            "name": "hot key",
            "duration": 40,
            "operations": [
                {
                    "table": "dash_orders",
                    "op": "write",
                    "rate": 30,
                    "item_size": 10000,
                    "keys": {"distribution": "hot", "keys": 100, "hot_share": 0.6},
                    "attributes": {"status": {"distribution": "uniform", "keys": 3}},
                }
            ],
        }
    ],
}


def throttled_server() -> Iterator[tuple[str, Any]]:
    """A server on a virtual clock with one table that has been throttled: (url, clock)."""
    server = DynemuServer(clock="virtual", capacity_model="uniform", throttling=True)
    url = server.start()
    try:
        runner.run(scenario.parse(TRAFFIC), url)
        yield url, server.app[NAMESPACES].clock
    finally:
        server.stop()


busy = pytest.fixture(scope="module", name="busy")(throttled_server)


def get(url: str) -> tuple[int, dict[str, str], str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def test_index_lists_the_namespace_tables(busy: tuple[str, Any]) -> None:
    url, _ = busy
    status, headers, body = get(url + "/_dynemu/")
    assert status == 200 and headers["Content-Type"].startswith("text/html")
    assert "script-src 'self'" in headers["Content-Security-Policy"]
    assert '<a href="/_dynemu/tables/dash_orders">dash_orders</a>' in body
    assert "PROVISIONED" in body and "10 RCU / 400 WCU" in body
    assert "TableWriteKeyRangeThroughputExceeded" in body  # recent throttles
    assert "after a restart of dynemu they start again from zero" in body  # said, since they do
    # another region is another namespace: no tables there
    status, _, body = get(url + "/_dynemu/?region=eu-west-1")
    assert status == 200 and "no tables in this namespace" in body and "dash_orders" not in body
    status, _, body = get(url + "/_dynemu/?region=..%2Fetc")  # never a path, never a 500
    assert status == 400 and "error" in orjson.loads(body)


def test_table_page_shows_partitions_charts_keys(busy: tuple[str, Any]) -> None:
    url, _ = busy
    status, _, body = get(url + "/_dynemu/tables/dash_orders")
    assert status == 200
    assert body.count('<tr class="partition">') == 4 + 1  # the table's 4, the GSI's 1
    # per resource: RCU, WCU, burst, throttles, CloudWatch per minute, two heat strips; and
    # the hottest partitions against their limit: two of the table's, the GSI's only one
    assert body.count("<svg") == 2 * 7 + 2 + 1
    assert "partition #" in body and "against its limit" in body and "limit under uniform" in body
    assert "dash_orders / index byStatus" in body
    assert "dash_orders / index byOwner</h2><p>no traffic yet" in body  # no item has an owner
    assert "partition keys by throttles" in body and "khot0" in body
    assert "advance the virtual clock" in body
    status, _, body = get(url + "/_dynemu/tables/missing")
    assert status == 404 and "table not found: missing" in body


def test_history_json(busy: tuple[str, Any]) -> None:
    url, clock = busy
    status, _, body = get(url + "/_dynemu/tables/dash_orders/history")
    assert status == 200
    data = orjson.loads(body)
    seconds = data["seconds"]
    assert seconds and all(b["t"] == a["t"] + 1 for a, b in zip(seconds, seconds[1:], strict=False))
    assert sum(s["throttles"].get("TableWriteKeyRangeThroughputExceeded", 0) for s in seconds) > 0
    assert {s["alloc_write"] for s in seconds} == {400.0}
    assert max(s["write"] for s in seconds) <= 400 + 3  # one request's debt at most
    status, _, body = get(url + "/_dynemu/tables/dash_orders/history?index=byStatus&since=" + str(clock.now() - 10))
    assert status == 200 and all(s["t"] >= int(clock.now()) - 10 for s in orjson.loads(body)["seconds"])
    assert get(url + "/_dynemu/tables/dash_orders/history?index=nope")[0] == 404
    assert get(url + "/_dynemu/tables/dash_orders/history?since=soon")[0] == 400


def test_metrics_have_capacity_gauges(busy: tuple[str, Any]) -> None:
    url, _ = busy
    _, _, body = get(url + "/_dynemu/metrics")
    lines = body.splitlines()
    assert "# TYPE dynemu_partition_bucket_balance_units gauge" in lines
    base = 'namespace="us-east-1",table="dash_orders",index=""'
    assert f'dynemu_allocated_capacity_units{{{base},operation="write"}} 400.0' in lines
    assert f'dynemu_partition_allocated_capacity_units{{{base},partition="3",operation="write"}} 100.000' in lines
    assert f"dynemu_partition_count{{{base}}} 4" in lines
    assert any(line.startswith('dynemu_partition_burst_balance_units{namespace="us-east-1",table="dash_orders",index="byStatus"') for line in lines)


def test_dashboard_is_read_only(busy: tuple[str, Any]) -> None:
    url, _ = busy
    for path in ("/_dynemu/", "/_dynemu/tables/dash_orders", "/_dynemu/tables/dash_orders/history"):
        req = urllib.request.Request(url + path, data=b"{}", method="POST", headers={"Content-Type": "application/json"})
        with pytest.raises(urllib.error.HTTPError) as e:
            urllib.request.urlopen(req, timeout=30)
        assert e.value.code == 405
    assert get(url + "/_dynemu/static/dashboard.css")[0] == 200
    assert get(url + "/_dynemu/static/..%2fadmin.py")[0] == 404
    # the data plane still answers for the table the pages describe
    assert make_client(url).describe_table(TableName="dash_orders")["Table"]["TableStatus"] == "ACTIVE"


def test_history_records_splits_and_stays_bounded() -> None:
    from dynemu.engine.capacity.throughput import CapacityConfig, ThroughputState

    state = ThroughputState(CapacityConfig(model="uniform"), arn="arn", now=1000.0, rcu=10, wcu=10)
    state.history = CapacityHistory(1000.0, seconds=50)
    for t in range(1000, 1100):
        state.admit(0, 0.0, 1.0, float(t))
    state.set_provisioned(10, 2500, 1100.0)  # three partitions' worth: doubles to 4
    state.history.sync(state, 1102.0)
    assert len(state.history.records) == 50
    assert state.history.records[-1]["t"] == 1101
    assert [(s["from"], s["to"]) for s in state.history.splits] == [(1, 4)]
    assert all(r["write"] == 1.0 for r in list(state.history.records)[:-2])


def test_heat_strips_keep_the_busiest_partitions_of_many() -> None:
    from dynemu.api.admin import dashboard_html

    parts = [
        {"index": i, "start": f"{i:016x}" if i else "", "end": None, "item_count": 0, "size_bytes": 0,
         "allocated_read": 1.0, "allocated_write": 1.0, "consumed_read_per_second": 0.0,
         "consumed_write_per_second": 0.0, "bucket_read": 0.0, "bucket_write": 0.0, "burst_read": 0.0,
         "burst_write": 0.0, "throttles": {}}
        for i in range(100)
    ]
    hist = [
        {"t": t, "read": 0.0, "write": 5.0, "alloc_read": 1.0, "alloc_write": 1.0, "burst_read": 0.0,
         "burst_write": 0.0, "burst_low_read": 0.0, "burst_low_write": 0.0, "partitions": 100, "throttles": {"X": 1}, "parts": {f"{99:016x}": [0.0, 5.0, 1]}}
        for t in range(10)
    ]
    view = {"label": "many", "anchor": "many", "summary": {}, "partitions": parts,
            "hot_keys": {}, "history": hist, "splits": [], "x_range": (0, 10), "x_label": str}
    html = dashboard_html.resource_section(view)
    assert html.count("busiest 40 of 100 partitions") == 2 * 2  # two strips: title and aria-label
    assert html.count('<tr class="partition">') == 100
    assert "#99 00000000" in html
