"""engine/capacity/snapshot.py: the capacity model's record survives a crash (no clean stop)
as of the table's last writes, at most a clock second old (docs/capacity.md, "Across a
restart")."""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.operations import items, tables
from dynemu.api.protocol import Context
from dynemu.config import Settings
from dynemu.engine.capacity.throughput import CapacityConfig
from dynemu.engine.clock import VirtualClock
from dynemu.engine.namespace import Namespace
from dynemu.storage.memory import MemoryStore

OPS = {**tables.OPERATIONS, **items.OPERATIONS}


def namespace(store: MemoryStore, clock: VirtualClock) -> tuple[Namespace, Any]:
    db = Namespace(store, clock, CapacityConfig())
    ctx = Context(db=db, region="us-east-1", access_key="AKIDTEST", settings=Settings(in_memory=True), endpoint="")
    return db, lambda op, **body: OPS[op](ctx, body)


def test_after_a_crash_the_model_resumes_from_its_last_record() -> None:
    store, clock = MemoryStore(), VirtualClock(1_700_000_000.0)
    db, call = namespace(store, clock)
    call("CreateTable", TableName="t", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")  # fmt: skip
    refused = 0
    for _ in range(50):  # 300 KB writes to one key every 0.1 s: ~2,900 units a second on one partition
        try:
            call("PutItem", TableName="t", Item={"pk": {"S": "hot"}, "v": {"S": "x" * 300_000}})
        except errors.DynamoError as e:
            assert e.type_name == "ThrottlingException"
            refused += 1
        clock.advance(0.1)
    assert refused
    state = db.tables["t"].capacity.state
    hot = max(range(len(state.pmap.parts)), key=lambda i: state.pmap.parts[i].buckets.consumed[1].recent(clock.now()))
    ceil = state.pmap.parts[hot].buckets.ceil
    # the crash: no close; a new namespace over what the store holds
    again, _ = namespace(store, clock)
    restored = again.tables["t"].capacity.state.pmap.parts[hot].buckets.ceil
    assert clock.now() - restored.stamp <= 1.1  # the record of the last second of writes
    assert restored.spare == ceil.spare < ceil.spare_cap  # no fresh spike allowance
    assert restored.level(clock.now()) < 1000.0  # nor a fresh balance (3,000)
