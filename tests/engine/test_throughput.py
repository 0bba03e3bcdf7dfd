"""engine/capacity/throughput.py: the capacity models, replaying the seeds' scenarios on a virtual clock."""

from __future__ import annotations

from itertools import zip_longest

from dynemu.engine.capacity.partitions import HASH_SPACE
from dynemu.engine.capacity.throughput import CapacityConfig, ThrottleDecision, ThroughputState
from dynemu.engine.clock import VirtualClock
from dynemu.errors import MSG_THROTTLED_INDEX as INDEX_MESSAGE
from dynemu.errors import MSG_THROTTLED_ON_DEMAND as ON_DEMAND_MESSAGE
from dynemu.errors import MSG_THROTTLED_TABLE as TABLE_MESSAGE

ARN = "arn:aws:dynamodb:us-east-1:000000000000:table/T"
T0 = 1_700_000_000.0


def h(x: float, tail: bytes = b"") -> bytes:
    return int(x * (HASH_SPACE - 1)).to_bytes(8, "big") + tail


def make(model: str = "gac", now: float = T0, **kw: object) -> ThroughputState:
    cfg_keys = {k: kw.pop(k) for k in list(kw) if k in CapacityConfig.__dataclass_fields__}
    return ThroughputState(CapacityConfig(model=model, **cfg_keys), arn=ARN, now=now, **kw)  # type: ignore[arg-type]


def spent(state: ThroughputState) -> ThroughputState:
    """The state of a table that has just used up its savings: every bucket holds one
    second of its rate (new tables start full, with their burst allowance)."""
    buckets = list(state.table_buckets)
    for part in state.pmap.parts:
        buckets += [part.buckets.ceil, *part.buckets.share]
    for b in buckets:
        b.tokens = min(b.cap, b.rate)
    return state


def run(
    state: ThroughputState,
    clock: VirtualClock,
    seconds: int,
    traffic: list[tuple[bytes, float, int]],
    *,
    read: bool = False,
) -> tuple[list[dict[bytes, float]], list[list[ThrottleDecision]]]:
    """Each virtual second, send ``n`` requests of ``units`` for each ``(key, units, n)``,
    interleaved; return units served per key and the throttles, per second."""
    served: list[dict[bytes, float]] = []
    throttled: list[list[ThrottleDecision]] = []
    for _ in range(seconds):
        now = clock.now()
        got: dict[bytes, float] = {k: 0.0 for k, _, _ in traffic}
        refused: list[ThrottleDecision] = []
        for batch in zip_longest(*[[(k, u)] * n for k, u, n in traffic]):
            for item in batch:
                if item is None:
                    continue
                key, units = item
                p = state.partition_for(key)
                d = state.admit(p, units if read else 0.0, 0.0 if read else units, now, key)
                if d is None:
                    got[key] += units
                else:
                    refused.append(d)
        served.append(got)
        throttled.append(refused)
        clock.advance(1)
    return served, throttled


HOT, COLD = h(0.1), h(0.6)


# --- uniform ----------------------------------------------------------------------------


def test_uniform_hot_partition_throttled_while_table_is_under_its_throughput() -> None:
    clock = VirtualClock(T0)
    state = make("uniform", rcu=1, wcu=400, warm_write=4000)  # 4 partitions x 100 WCU
    assert len(state.pmap) == 4
    served, throttled = run(state, clock, 20, [(HOT, 1, 150), (COLD, 1, 50)])
    assert all(s[HOT] == 100 and s[COLD] == 50 for s in served)  # 150 of 400 WCU used
    reasons = {d.reason for second in throttled for d in second}
    assert reasons == {"TableWriteKeyRangeThroughputExceeded"}
    d = throttled[5][0]
    assert (d.resource, d.resource_kind, d.partition) == (ARN, "Table", 0)
    assert d.error_type == "ProvisionedThroughputExceededException" and d.message == TABLE_MESSAGE
    assert d.throttling_reasons() == [{"reason": "TableWriteKeyRangeThroughputExceeded", "resource": ARN}]
    assert sum(len(t) for t in throttled) == 20 * 50
    assert state.throttle_counts == {"TableWriteKeyRangeThroughputExceeded": 1000}


def test_uniform_saturated_table_reports_provisioned_throughput() -> None:
    clock = VirtualClock(T0)
    state = make("uniform", rcu=1, wcu=400, warm_write=4000)
    keys = [h(0.1), h(0.35), h(0.6), h(0.85)]
    _, throttled = run(state, clock, 3, [(k, 1, 125) for k in keys])
    assert throttled[0][0].reason == "TableWriteProvisionedThroughputExceeded"


# --- burst ------------------------------------------------------------------------------


def test_burst_absorbs_a_spike_until_300s_of_saved_capacity_is_spent() -> None:
    clock = VirtualClock(T0)
    state = make("burst", rcu=1, wcu=400, warm_write=4000)
    clock.advance(300)  # idle: each partition saves 300 s x 100 WCU
    served, throttled = run(state, clock, 330, [(HOT, 10, 20)])  # 200 WCU/s on a 100 WCU share
    first = next(i for i, t in enumerate(throttled) if t)
    assert 295 <= first <= 302
    assert all(s[HOT] == 200 for s in served[:first])
    assert all(100 <= s[HOT] <= 110 for s in served[first + 1 :])
    assert throttled[-1][0].reason == "TableWriteKeyRangeThroughputExceeded"


def test_uniform_has_no_burst() -> None:
    clock = VirtualClock(T0)
    state = make("uniform", rcu=1, wcu=400, warm_write=4000)
    clock.advance(300)
    _, throttled = run(state, clock, 2, [(HOT, 10, 20)])
    assert throttled[0]


# --- adaptive ---------------------------------------------------------------------------


def test_adaptive_capacity_ends_sustained_throttling() -> None:
    clock = VirtualClock(T0)
    state = spent(make("adaptive", rcu=1, wcu=400, warm_write=4000, adaptive_after=60))
    served, throttled = run(state, clock, 120, [(HOT, 1, 150)])
    assert throttled[1] and throttled[50]  # hot partition throttled for a sustained period
    assert not any(throttled[70:])  # then boosted with the table's unused capacity
    assert all(s[HOT] == 150 for s in served[70:])
    buckets = state.pmap.parts[0].buckets
    assert buckets.boost[1] == 300.0  # 400 provisioned - 100 share, nobody else consuming
    # traffic falls back under the share: the boost is given back
    run(state, clock, 70, [(HOT, 1, 50)])
    assert buckets.boost[1] == 0.0


def test_adaptive_never_exceeds_the_table() -> None:
    clock = VirtualClock(T0)
    state = spent(make("adaptive", rcu=1, wcu=400, warm_write=4000, adaptive_after=10))
    traffic = [(HOT, 1, 150), (h(0.35), 1, 100), (h(0.6), 1, 100), (h(0.85), 1, 100)]
    served, _ = run(state, clock, 60, traffic)
    assert all(sum(s.values()) <= 401 for s in served[20:])


# --- throughput dilation ----------------------------------------------------------------


def test_dilation_after_a_size_split() -> None:
    clock = VirtualClock(T0)
    state = make("uniform", rcu=1000, wcu=1, partition_size=1000)
    assert len(state.pmap) == 1
    served, throttled = run(state, clock, 3, [(HOT, 1, 800)], read=True)
    assert not any(throttled) and served[-1][HOT] == 800
    assert state.note_write(0, 1500, 10)  # the partition outgrew the partition size
    state.split(0, state.pmap.hash_midpoint(0), clock.now())
    assert len(state.pmap) == 2 and state.version == 1
    served, throttled = run(state, clock, 3, [(HOT, 1, 800)], read=True)
    assert served[-1][HOT] == 500  # half the table's throughput per partition now
    assert throttled[-1][0].reason == "TableReadKeyRangeThroughputExceeded"


def test_dilation_after_a_decrease_and_doubling_on_increase() -> None:
    clock = VirtualClock(T0)
    state = make("uniform", rcu=4000, wcu=1)
    assert len(state.pmap) == 2
    served, throttled = run(state, clock, 3, [(HOT, 1, 1500)], read=True)
    assert not any(throttled)
    state.set_provisioned(1000, 1, clock.now())
    assert len(state.pmap) == 2  # partitions never merge
    served, _ = run(state, clock, 3, [(HOT, 1, 1500)], read=True)
    assert served[-1][HOT] == 500
    state.set_provisioned(7000, 1, clock.now())  # needs 3 partitions: doubles to 4
    assert len(state.pmap) == 4
    assert state.describe_partitions(clock.now())[0]["allocated_read"] == 1750


# --- gac --------------------------------------------------------------------------------


def test_gac_serves_a_hot_key_up_to_the_partition_ceiling_and_not_beyond() -> None:
    clock = VirtualClock(T0)
    gac = spent(make("gac", rcu=6000, wcu=1, warm_read=12000))  # 4 partitions
    uniform = spent(make("uniform", rcu=6000, wcu=1, warm_read=12000))
    served, throttled = run(gac, clock, 10, [(HOT, 50, 80)], read=True)  # 4000 RCU/s on one key
    assert all(3000 <= s[HOT] <= 3050 for s in served[1:])
    assert {d.reason for t in throttled for d in t} == {"TableReadKeyRangeThroughputExceeded"}
    served_u, _ = run(uniform, clock, 10, [(HOT, 50, 80)], read=True)
    assert all(s[HOT] == 1500 for s in served_u[1:])  # uniform: only the 6000 / 4 share


def test_gac_table_bucket_limits_the_whole_table() -> None:
    clock = VirtualClock(T0)
    state = spent(make("gac", rcu=6000, wcu=1, warm_read=12000))
    keys = [h(0.1), h(0.35), h(0.6), h(0.85)]
    served, throttled = run(state, clock, 5, [(k, 50, 40) for k in keys], read=True)  # 8000/s
    assert all(sum(s.values()) <= 6050 for s in served[1:])
    assert throttled[-1][0].reason == "TableReadProvisionedThroughputExceeded"


def test_gac_splits_a_hot_partition_for_heat() -> None:
    clock = VirtualClock(T0)
    state = spent(make("gac", rcu=11000, wcu=1, heat_after=5, heat_window=5))  # 4 partitions
    a, b = h(0.05, b"a"), h(0.15, b"b")  # two hot keys sharing partition 0
    assert state.partition_for(a) == state.partition_for(b) == 0
    served, throttled = run(state, clock, 20, [(a, 50, 40), (b, 50, 40)], read=True)
    assert throttled[2]  # 4000 RCU/s against the 3000 ceiling
    assert len(state.pmap) == 5 and state.pmap.starts[1] == b  # split at the balanced key
    assert state.partition_for(a) != state.partition_for(b)
    assert not any(throttled[-5:])
    assert all(s[a] == 2000 and s[b] == 2000 for s in served[-5:])


def test_gac_does_not_split_for_a_single_hot_key() -> None:
    clock = VirtualClock(T0)
    state = make("gac", rcu=11000, wcu=1, heat_after=2, heat_window=2)
    run(state, clock, 10, [(HOT, 50, 80)], read=True)
    assert len(state.pmap) == 4


# --- on-demand --------------------------------------------------------------------------


def test_on_demand_serves_double_the_previous_peak_and_throttles_beyond_until_scaled() -> None:
    clock = VirtualClock(T0)
    state = make("gac", on_demand=True)
    clock.on_advance(state.maintain)
    assert len(state.pmap) == 4 and state.warm_throughput() == (12000, 4000)
    keys = [h((i + 0.5) / 16) for i in range(16)]
    traffic = [(k, 50, 25) for k in keys]  # 20,000 RRU/s, evenly spread: beyond 2 x 6,000
    served, throttled = run(state, clock, 30, traffic, read=True)
    # the 4 partition ceilings (12,000 RRU/s) serve it until the table has scaled
    assert all(12000 <= sum(s.values()) <= 12200 for s in served[6:])  # savings spent
    d = throttled[-1][0]
    assert d.reason == "TableReadKeyRangeThroughputExceeded"
    assert d.error_type == "ThrottlingException" and d.message == ON_DEMAND_MESSAGE
    assert len(state.pmap) == 4
    assert sum(served[0].values()) == 20000  # the first second: the ceilings' 3 s of savings
    clock.advance(60)  # that peak (20,000 RRU/s) is now the previous peak: room for 2x
    assert len(state.pmap) == 16 and state.warm_throughput() == (48000, 16000)
    served, throttled = run(state, clock, 5, traffic, read=True)
    assert not any(throttled) and all(sum(s.values()) == 20000 for s in served)


def test_on_demand_doubles_a_peak_of_8000_wru_within_minutes() -> None:
    clock = VirtualClock(T0)
    state = make("gac", on_demand=True, warm_write=8000)  # 8 partitions
    clock.on_advance(state.maintain)
    keys = [h((i + 0.5) / 32) for i in range(32)]
    run(state, clock, 3, [(k, 10, 25) for k in keys])  # 8,000 WRU/s
    clock.advance(120)  # two minutes later
    assert len(state.pmap) == 16 and state.peak[1] == 8000
    served, throttled = run(state, clock, 3, [(k, 10, 50) for k in keys])  # 16,000 WRU/s
    assert not any(throttled) and all(sum(s.values()) == 16000 for s in served)
    # three times the previous peak is beyond what the table has scaled to
    _, throttled = run(state, clock, 8, [(k, 10, 75) for k in keys])  # once the savings are spent
    assert throttled[-1] and throttled[-1][0].reason == "TableWriteKeyRangeThroughputExceeded"


def test_on_demand_max_throughput_and_account_quota() -> None:
    clock = VirtualClock(T0)
    capped = make("gac", on_demand=True, max_write=10)
    _, throttled = run(capped, clock, 3, [(HOT, 1, 20)])
    assert throttled[-1][0].reason == "TableWriteMaxOnDemandThroughputExceeded"
    quota = make("gac", on_demand=True, table_quota_write=10)
    _, throttled = run(quota, clock, 3, [(HOT, 1, 20)])
    assert throttled[-1][0].reason == "TableWriteAccountLimitExceeded"
    quota.set_on_demand(clock.now(), max_write=None)
    quota.set_provisioned(5, 100, clock.now())  # switching to provisioned keeps partitions
    assert len(quota.pmap) == 4


# --- GSIs, transactions, the bucket rule, throttling off ---------------------------------


def test_gsi_back_pressure_throttles_base_table_writes() -> None:
    clock = VirtualClock(T0)
    table = make("gac", rcu=100, wcu=1000)
    gsi_arn = ARN + "/index/byStatus"
    gsi = spent(ThroughputState(CapacityConfig(), arn=gsi_arn, index_name="byStatus", now=T0, rcu=5, wcu=5))
    admitted = 0
    decisions: list[ThrottleDecision] = []
    for _ in range(10):
        for i in range(20):
            key, gkey = h(i / 20), h(0.5)
            # as the write path does: the table and the GSI both admit, then both are debited
            now, p = clock.now(), table.partition_for(key)
            d = table.check(p, 0, 1, now) or gsi.check(0, 0, 1, now)
            if d is None:
                table.debit(p, 0, 1, now, key)
                gsi.debit(0, 0, 1, now, gkey)
                admitted += 1
            else:
                (gsi if d.resource_kind == "Index" else table).record_throttle(d, now)
                decisions.append(d)
        clock.advance(1)
    assert 50 <= admitted <= 52  # the GSI's 5 WCU/s governs the table's writes
    d = decisions[0]
    assert d.reason == "IndexWriteProvisionedThroughputExceeded"
    assert (d.resource, d.resource_kind, d.index_name) == (gsi_arn, "Index", "byStatus")
    assert d.message == INDEX_MESSAGE
    assert table.consumed_total[1] == admitted  # throttled writes debit nothing
    assert table.throttle_counts == {}


def test_a_large_write_is_admitted_and_repaid_later() -> None:
    clock = VirtualClock(T0)
    state = make("uniform", rcu=1, wcu=1)
    assert state.admit(0, 0, 400, clock.now()) is None  # 400 KB item on a 1 WCU table
    assert state.table_buckets[1].tokens == -399
    clock.advance(398)
    assert state.admit(0, 0, 1, clock.now()) is not None  # still repaying
    clock.advance(2)
    assert state.admit(0, 0, 1, clock.now()) is None


def test_throttling_off_admits_everything_but_keeps_the_books() -> None:
    clock = VirtualClock(T0)
    state = make("uniform", rcu=1, wcu=10, throttling=False)
    served, throttled = run(state, clock, 3, [(HOT, 1, 100)])
    assert not any(throttled) and all(s[HOT] == 100 for s in served)
    assert state.consumed_total[1] == 300
    assert state.table_buckets[1].level(clock.now()) >= -state.table_buckets[1].cap


def test_admin_views() -> None:
    clock = VirtualClock(T0)
    state = spent(make("burst", rcu=1, wcu=400, warm_write=4000))
    run(state, clock, 3, [(HOT, 1, 150), (COLD, 1, 10)])
    rows = state.describe_partitions(clock.now())
    assert [r["index"] for r in rows] == [0, 1, 2, 3]
    assert rows[0]["allocated_write"] == 100 and rows[0]["ceiling_write"] == 1000 and rows[0]["max_write"] == 100
    assert rows[0]["throttles"] == {"TableWriteKeyRangeThroughputExceeded": 150}
    assert rows[0]["consumed_write_per_second"] > 0
    hot = state.hot_keys(2)
    assert hot["by_units"][0][0] == HOT and hot["by_throttles"][0][0] == HOT
    summary = state.summary(clock.now())
    assert summary["partitions"] == 4 and summary["mode"] == "PROVISIONED"


# --- calibration: buckets start with their burst allowance ------------------------------------


def test_new_tables_and_new_partitions_start_with_their_burst_allowance() -> None:
    clock = VirtualClock(T0)
    state = make("burst", rcu=1, wcu=5)
    assert state.pmap.parts[0].buckets.share[1].level(T0) == 1500  # 300 s x 5 WCU from the start
    assert state.admit(0, 0, 100, T0) is None  # 20 s of the share, drawn on burst
    assert state.pmap.parts[0].buckets.share[1].burst(T0) == 1395  # no debt: 1,400 left, 5 of them this second's
    spent(state)
    state.set_provisioned(1, 10, clock.now())  # a throughput increase starts full again
    assert state.pmap.parts[0].buckets.share[1].level(T0) == 3000
    spent(state)
    state.split(0, state.pmap.hash_midpoint(0), clock.now())  # so do both halves of a split
    assert [p.buckets.share[1].level(T0) for p in state.pmap.parts] == [1500, 1500]
    assert [p.buckets.ceil.level(T0) for p in state.pmap.parts] == [3000, 3000]
    state.set_provisioned(1, 4, clock.now())  # a decrease only lowers the cap
    assert [p.buckets.share[1].level(T0) for p in state.pmap.parts] == [600, 600]


def test_reads_and_writes_share_one_ceiling() -> None:
    clock = VirtualClock(T0)
    state = spent(make("gac", rcu=40000, wcu=40000))
    p = state.partition_for(HOT)
    served = [0.0, 0.0]
    for _ in range(20):  # 2,400 RCU + 800 WCU a second on one key: 1.6 ceilings
        now = clock.now()
        for _ in range(24):
            served[0] += 100 * (state.admit(p, 100, 0, now, HOT) is None)
            if _ % 3 == 0:
                served[1] += 100 * (state.admit(p, 0, 100, now, HOT) is None)
        clock.advance(1)
    assert served[0] / 3000 + served[1] / 1000 <= 20 + 1 + 0.1  # 20 s of the ceiling, 1 s held, one over
    assert state.throttle_counts.get("TableReadKeyRangeThroughputExceeded", 0) > 0
