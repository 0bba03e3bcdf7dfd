"""The capacity model's second calibration (issue 23): the on-demand previous peak is the
busiest second of combined consumption, the virtual clock gives the same per-second counts
whatever the instant it started, and large requests do not leave an on-demand table
refusing ordinary traffic, while sustained overload still throttles.

Every scenario runs on a virtual clock, with boto3's retries off.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from types import SimpleNamespace
from typing import Any

import pytest
from botocore.exceptions import ClientError

from dynemu.api.admin.app import NAMESPACES
from dynemu.engine import clock as clock_module
from dynemu.testing import DynemuServer
from tests.test_throttling import ON_DEMAND_MESSAGE, Virtual, spread_keys

KB = 1024
WHOLE = 1_800_000_000.0  # a whole epoch second the tests pretend the wall clock is at


def scaled_server(write_max: float = 10, read_max: float = 30) -> tuple[DynemuServer, Virtual]:
    """A virtual-clock server whose partition ceilings are shrunk 100-fold (as CapacityConfig
    allows tests to): 30 RRU or 10 WRU a second, still three reads to a write."""
    server = DynemuServer(clock="virtual", throttling=True)
    url = server.start()
    cfg = server.app[NAMESPACES].capacity
    cfg.partition_write_max, cfg.partition_read_max = write_max, read_max
    return server, Virtual(url)


# --- 1. the previous peak is one second of combined consumption ------------------------------


def test_on_demand_peak_is_the_busiest_second_of_combined_consumption() -> None:
    server, v = scaled_server()
    try:
        t = v.create("combined-peak")
        # 96 RRU in one second (9,600 at full scale), 24 on each of the 4 partitions
        for k in spread_keys(4, 24):
            v.ddb.get_item(TableName=t, Key={"pk": {"S": k}}, ConsistentRead=True)
        v.advance(1)
        # 40 WRU in another (4,000 at full scale): 120 read-equivalent units, the busier second
        for k in spread_keys(4, 10):
            assert v.put(t, k) is None
        v.advance(120)
        view = v.partitions(t)
        # no second carried 96 RRU *and* 40 WRU: the peak is the write second alone, and the
        # table grows to twice it (8 partitions), not to 2 x (96/30 + 40/10) = 14.4 (16)
        assert view["summary"]["on_demand_peak"] == [0.0, 40.0]
        assert view["summary"]["on_demand_peak_read_equivalent"] == pytest.approx(120.0)
        assert len(view["partitions"]) == 8
        # double the real peak (80 WRU/s on 8 partitions of 10) is served, second after second
        keys = spread_keys(8, 10)
        for _ in range(5):
            for k in keys:
                assert v.put(t, k) is None
            v.advance(1)
        assert v.partitions(t)["summary"]["throttles"] == {}
    finally:
        server.stop()


def test_a_second_mixing_reads_and_writes_counts_both() -> None:
    server, v = scaled_server()
    try:
        t = v.create("mixed-peak")
        for k in spread_keys(4, 12):  # 48 RRU ...
            v.ddb.get_item(TableName=t, Key={"pk": {"S": k}}, ConsistentRead=True)
        for k in spread_keys(4, 8):  # ... and 32 WRU in the same second: 144 read-equivalent
            assert v.put(t, k) is None
        v.advance(1)
        for k in spread_keys(4, 10):  # 40 WRU alone later: 120, less
            assert v.put(t, k) is None
        v.advance(120)
        view = v.partitions(t)
        assert view["summary"]["on_demand_peak"] == [48.0, 32.0]
        assert view["summary"]["on_demand_peak_read_equivalent"] == pytest.approx(144.0)
        assert len(view["partitions"]) == 16  # 2 x (48/30 + 32/10) = 9.6 partitions: 4 doubled twice
    finally:
        server.stop()


# --- 2. the virtual clock is deterministic ----------------------------------------------------


def wall_clock_at(monkeypatch: pytest.MonkeyPatch, fraction: float) -> None:
    """Make the clock module read the wall clock as ``WHOLE + fraction``."""
    fake = SimpleNamespace(time=lambda: WHOLE + fraction, monotonic=time.monotonic)
    monkeypatch.setattr(clock_module, "time", fake)


def test_a_virtual_clock_starts_on_a_whole_second(monkeypatch: pytest.MonkeyPatch) -> None:
    for fraction in (0.0, 0.25, 0.999):
        wall_clock_at(monkeypatch, fraction)
        assert clock_module.make_clock("virtual").now() == WHOLE
    assert clock_module.VirtualClock(12.5).now() == 12.5  # an explicit start is kept


def hot_key_scenario(v: Virtual) -> dict[str, Any]:
    """Four steps 0.3 s apart writing 1,200 WRU each over the 4 partitions (a peak second of
    3,600 or 4,800 WRU, depending on which whole seconds the steps fall in), then a hot key
    written at 1,500 WRU/s, then the table's growth behind its peak: what is refused, and the
    per-second figures, partition by partition."""
    t = v.create("hot-key")
    keys = spread_keys(4, 4)
    refused = []
    for step in range(4):
        refused += [v.put(t, k, 300) is not None for k in keys[4 * step : 4 * step + 4]]
        v.advance(0.3)
    v.advance(10)
    for _ in range(40):
        refused.append(v.put(t, "hot", 450) is not None)
        v.advance(0.3)
    v.advance(61)
    view = v.partitions(t)
    return {"refused": refused, "summary": view["summary"], "partitions": view["partitions"]}


def test_same_requests_same_counts_whatever_the_start_fraction(monkeypatch: pytest.MonkeyPatch) -> None:
    runs = []
    for fraction in (0.0, 0.35, 0.8):
        wall_clock_at(monkeypatch, fraction)
        with DynemuServer(clock="virtual", throttling=True) as url:
            runs.append(hot_key_scenario(Virtual(url)))
    assert any(runs[0]["refused"]) and not all(runs[0]["refused"])  # the scenario throttles
    assert runs[0]["summary"]["on_demand_peak"][1] > 0
    for run in runs[1:]:
        assert run == runs[0]


# --- 3. large requests on an on-demand table -------------------------------------------------


def batch_write_all(v: Virtual, t: str, items: list[dict[str, Any]], gap: float) -> int:
    """BatchWriteItem in calls of 25, resending what comes back unprocessed, ``gap`` seconds
    apart; returns the number of calls (a ThrottlingException fails the test)."""
    pending: list[dict[str, Any]] = []
    todo = list(items)
    calls = 0
    while todo or pending:
        take = 25 - len(pending)
        batch, todo = pending + todo[:take], todo[take:]
        out = v.ddb.batch_write_item(RequestItems={t: batch})
        pending = out["UnprocessedItems"].get(t, [])
        calls += 1
        v.advance(gap)
    return calls


def large_request_sequence(v: Virtual, t: str, step: Callable[[], None]) -> None:
    """The sequence a suite passing on DynamoDB runs on a new on-demand table, ``step``
    (about 50 ms) apart; every call must succeed."""
    blob = "x" * (100 * KB - 30)
    for i in range(50):  # 50 PutItems of 100 KB
        v.ddb.put_item(TableName=t, Item={"pk": {"S": f"big-{i}"}, "v": {"S": blob}})
        step()
    v.ddb.transact_write_items(  # one transaction deleting them: 10,000 WRU
        TransactItems=[{"Delete": {"TableName": t, "Key": {"pk": {"S": f"big-{i}"}}}} for i in range(50)]
    )
    step()
    v.ddb.transact_write_items(  # one transaction of 30 Puts of 100 KB (~3 MB): 6,000 WRU
        TransactItems=[{"Put": {"TableName": t, "Item": {"pk": {"S": f"tx-{i}"}, "v": {"S": blob}}}} for i in range(30)]
    )
    step()
    v.ddb.put_item(TableName=t, Item={"pk": {"S": "small"}, "v": {"S": "x"}})
    step()
    got = v.ddb.transact_get_items(TransactItems=[{"Get": {"TableName": t, "Key": {"pk": {"S": "small"}}}}])
    assert got["Responses"][0]["Item"]["v"] == {"S": "x"}
    step()


def test_large_requests_do_not_leave_an_on_demand_table_refusing_traffic() -> None:
    with DynemuServer(clock="virtual", throttling=True) as url:
        v = Virtual(url)
        t = v.create("large-requests")
        large_request_sequence(v, t, lambda: v.advance(0.05))
        items = [{"PutRequest": {"Item": {"pk": {"S": f"small-{i}"}, "n": {"N": str(i)}}}} for i in range(700)]
        assert batch_write_all(v, t, items, 0.05) == 28  # nothing came back unprocessed
        pages = v.ddb.get_paginator("scan").paginate(TableName=t, Select="COUNT")
        assert sum(page["Count"] for page in pages) == 30 + 1 + 700  # 1 MB pages
        assert v.partitions(t)["summary"]["throttles"] == {}


def test_sustained_overload_still_throttles_after_the_spike_allowance() -> None:
    """A hot key offered 2,000 WRU/s (100 KB puts every 50 ms) for 20 s: the ceiling
    (1,000 WRU/s), its 3 s of savings and its 3 s spike allowance are all it gets."""
    with DynemuServer(clock="virtual", throttling=True) as url:
        v = Virtual(url)
        t = v.create("overload")
        served = 0
        errors: list[ClientError] = []
        for _ in range(400):
            err = v.put(t, "hot", 100)
            if err is None:
                served += 100
            else:
                errors.append(err)
            v.advance(0.05)
        assert errors and errors[-1].response["Error"]["Message"] == ON_DEMAND_MESSAGE
        assert served <= 20 * 1000 + 3000 + 3000 + 100
        parts = v.partitions(t)["partitions"]
        assert min(p["spike_allowance_seconds"] for p in parts) < 0.1  # spent by the overload
