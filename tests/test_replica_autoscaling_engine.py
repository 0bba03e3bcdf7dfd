"""Replica auto scaling, engine units: the settings record, and the scaler's life with its
namespace (engine/replica_autoscaling.py, engine/replica_autoscaler.py)."""

from __future__ import annotations

from typing import Any

from dynemu.api.operations import replica_autoscaling, tables
from dynemu.api.protocol import Context
from dynemu.config import Settings
from dynemu.engine import replica_autoscaler
from dynemu.engine import replica_autoscaling as scaling
from dynemu.engine.clock import RealClock, VirtualClock
from dynemu.engine.namespace import Namespace
from dynemu.engine.replica_autoscaling import Policy, Scaling, Target
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
    replica_autoscaling.update_table_replica_auto_scaling(ctx, {
        "TableName": name,
        "ProvisionedWriteCapacityAutoScalingUpdate": {"MinimumUnits": 5, "MaximumUnits": 10, "ScalingPolicyUpdate": {
            "TargetTrackingScalingPolicyConfiguration": {"TargetValue": 50.0}}},
    })  # fmt: skip


def test_the_record_round_trips() -> None:
    s = Scaling(
        {scaling.WRITE: Target(1, 9, policy=Policy("p", 55.5, True, 30, 60))},
        {"gsi": {scaling.READ: Target(2, 3, disabled=True, role_arn="arn:aws:iam::1:role/r")}},
    )
    assert Scaling.from_record(s.to_record()) == s
    assert [(i, k) for i, k, _ in s.targets()] == [(None, scaling.WRITE), ("gsi", scaling.READ)]


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


def test_without_a_running_loop_a_real_clock_scaler_is_idle() -> None:
    ctx = _context(RealClock())
    _table(ctx)
    _scale_writes(ctx)
    scaler = replica_autoscaler.scaler_of(ctx.db)
    assert scaler is not None and scaler.activities == 0
    assert ctx.db.tables["tab"].spec.throughput.write == 5
