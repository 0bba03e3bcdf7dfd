"""Auto scaling, engine units: Application Auto Scaling's record, Java's rendering of a target
value, and the scaler's life with its namespace (engine/autoscaling/targets.py,
engine/autoscaling/scaler.py)."""

from __future__ import annotations

from typing import Any

from dynemu.api.operations import application_autoscaling as autoscaling_service
from dynemu.api.operations import tables
from dynemu.api.protocol import Context
from dynemu.config import Settings
from dynemu.engine.autoscaling import scaler as replica_autoscaler
from dynemu.engine.autoscaling import targets as aas
from dynemu.engine.clock import RealClock, VirtualClock
from dynemu.engine.namespace import Namespace
from dynemu.storage.memory import MemoryStore


def _context(clock: Any) -> Context:
    db = Namespace(MemoryStore(), clock)
    return Context(db=db, region="us-east-1", access_key="AKIDTEST", settings=Settings(in_memory=True), endpoint="")


def _table(ctx: Context, name: str = "tab") -> None:
    tables.create_table(ctx, {
        "TableName": name, "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
    })  # fmt: skip


def _scale_writes(ctx: Context, name: str = "tab") -> None:
    where = {"ServiceNamespace": "dynamodb", "ResourceId": f"table/{name}",
             "ScalableDimension": "dynamodb:table:WriteCapacityUnits"}  # fmt: skip
    autoscaling_service.register_scalable_target(ctx, {**where, "MinCapacity": 5, "MaxCapacity": 10})
    autoscaling_service.put_scaling_policy(ctx, {**where, "PolicyName": "w", "PolicyType": "TargetTrackingScaling",
        "TargetTrackingScalingPolicyConfiguration": {"TargetValue": 50.0,
            "PredefinedMetricSpecification": {"PredefinedMetricType": "DynamoDBWriteCapacityUtilization"}}})  # fmt: skip


def test_the_record_round_trips() -> None:
    s = aas.State()
    t = aas.Target("table/t", "dynamodb:table:WriteCapacityUnits", 1, 9, 1.5, "arn:t", {"DynamicScalingInSuspended": True})
    t.policies = [aas.Policy("p", 55.5, "DynamoDBWriteCapacityUtilization", True, -1, 10**9, "arn:p", ["a"], 2.0)]
    s.targets[(t.resource, t.dimension)] = t
    s.targets[("table/t/index/g", "dynamodb:index:ReadCapacityUnits")] = aas.Target(
        "table/t/index/g", "dynamodb:index:ReadCapacityUnits", 2, 3)
    s.activities = [aas.Activity("id", "table/t", t.dimension, "d", "c", 1.0, 2.0, "Successful", "m")]
    assert aas.State.from_record(s.to_record()) == s
    assert [x.resource for x in s.of_table("t")] == ["table/t", "table/t/index/g"]
    assert s.of_table("t/index") == [] and s.of_table("tt") == []


def test_target_values_in_javas_form() -> None:
    """The service quotes values as Java's Double.toString (observed: '90.1', '100.0', '0.0')."""
    assert [aas.java_double(v) for v in (90.1, 100.0, 0.0, 10.0, 1e9, 8.51592e-109, 0.001, 1234567.5)] == [
        "90.1", "100.0", "0.0", "10.0", "1.0E9", "8.51592E-109", "0.001", "1234567.5"]
    assert aas.parse("table/t/index/g", "dynamodb:index:WriteCapacityUnits") == ("t", "g", aas.WRITE)


def test_one_scaler_per_namespace_on_the_virtual_clock() -> None:
    clock = VirtualClock(1_700_000_000.0)
    ctx = _context(clock)
    _table(ctx)
    _scale_writes(ctx)
    scaler = replica_autoscaler.scaler_of(ctx.db)
    assert scaler is not None
    _scale_writes(ctx)  # a second update keeps the same scaler
    assert replica_autoscaler.scaler_of(ctx.db) is scaler
    first = scaler.next_minute
    clock.advance(120)
    assert scaler.next_minute == first + 2  # two minutes evaluated: nothing consumed, nothing changed
    assert scaler.activities == 0


def test_a_closed_namespace_stops_its_scaler() -> None:
    clock = VirtualClock(1_700_000_000.0)
    ctx = _context(clock)
    _table(ctx)
    _scale_writes(ctx)
    scaler = replica_autoscaler.scaler_of(ctx.db)
    assert scaler is not None
    ctx.db.close()
    before = scaler.next_minute
    clock.advance(600)  # no pass on the closed store, and no error
    clock.advance(600)
    assert scaler.next_minute == before


def test_a_closed_namespace_releases_what_it_registered() -> None:
    """The clock keeps no subscription of a closed namespace (its own, its scaler's), and the
    namespace drops its scaler: nothing outside keeps it alive."""
    clock = VirtualClock(1_700_000_000.0)
    ctx = _context(clock)
    _table(ctx)
    _scale_writes(ctx)
    assert clock.subscribers == 2 and ctx.db.scaler is not None
    ctx.db.close()
    assert clock.subscribers == 0 and ctx.db.scaler is None
    replica_autoscaler.attach(ctx.db)  # a late call on the closed namespace registers nothing
    assert clock.subscribers == 0 and ctx.db.scaler is None


def test_a_real_clock_scaler_timer_is_cancelled_with_its_namespace() -> None:
    import asyncio

    async def scenario() -> tuple[int, int]:
        ctx = _context(RealClock())
        _table(ctx)
        loop = asyncio.get_running_loop()
        before = len(loop._scheduled)  # type: ignore[attr-defined]
        _scale_writes(ctx)  # on the running loop: the scaler's minute timer starts
        started = len(loop._scheduled) - before  # type: ignore[attr-defined]
        ctx.db.close()
        live = sum(1 for h in loop._scheduled if not h.cancelled()) - before  # type: ignore[attr-defined]
        return started, live

    started, live = asyncio.run(scenario())
    assert (started, live) == (1, 0)


def test_without_a_running_loop_a_real_clock_scaler_is_not_kept() -> None:
    """Not started without a loop: the next attach on the server's running loop (its start, or
    the namespace's next opening) starts it, rather than finding an idle one."""
    ctx = _context(RealClock())
    _table(ctx)
    _scale_writes(ctx)
    assert replica_autoscaler.scaler_of(ctx.db) is None
    assert ctx.db.tables["tab"].spec.throughput.write == 5
