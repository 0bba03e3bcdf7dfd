"""The target tracking scaler on a virtual clock: a provisioned table (or GSI, or replica) that
stays above its target utilization for two minutes gets more capacity through UpdateTable, so
its throttling eases; fifteen quiet minutes later it gets less (engine/autoscaling/scaler.py)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from dynemu.api.admin.app import NAMESPACES
from dynemu.testing import DynemuServer
from tests.aas_helpers import aas_client, autoscale
from tests.conftest import make_client
from tests.helpers import S

_names = itertools.count()
DEMAND = 25  # items of one write unit each, every clock second


class World:
    def __init__(self, url: str, namespaces: Any) -> None:
        self.url, self.namespaces, self.clock = url, namespaces, namespaces.clock
        self.clients: dict[str, Any] = {}
        self.n = 0

    def __getitem__(self, region: str) -> Any:
        if region not in self.clients:
            self.clients[region] = make_client(self.url, region)
        return self.clients[region]

    def to_next_minute(self) -> None:
        self.clock.advance(60 - self.clock.now() % 60)

    def busy_minute(self, table: str, region: str = "us-east-1", gsi: bool = False) -> int:
        """A minute of DEMAND writes a second; returns the items left unprocessed (throttled)."""
        left = 0
        for _ in range(60):
            self.n += 1
            items = [{"PutRequest": {"Item": {"pk": S(f"k{self.n}-{i}"), **({"g": S(f"g{i}")} if gsi else {})}}}
                     for i in range(DEMAND)]  # fmt: skip
            out = self[region].batch_write_item(RequestItems={table: items})
            left += len(out.get("UnprocessedItems", {}).get(table, []))
            self.clock.advance(1)
        return left

    def wcu(self, table: str, region: str = "us-east-1", index: bool = False) -> int:
        t = self[region].describe_table(TableName=table)["Table"]
        tp = t["GlobalSecondaryIndexes"][0]["ProvisionedThroughput"] if index else t["ProvisionedThroughput"]
        units: int = tp["WriteCapacityUnits"]
        return units


@pytest.fixture
def world() -> Iterator[World]:
    server = DynemuServer(clock="virtual")
    url = server.start()
    try:
        yield World(url, server.app[NAMESPACES])
    finally:
        server.stop()


def create(w: World, *, gsi: bool = False) -> str:
    name = f"hot-{next(_names)}"
    tp = {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
    kw: dict[str, Any] = dict(
        TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], ProvisionedThroughput=tp,
    )  # fmt: skip
    if gsi:
        kw["AttributeDefinitions"].append({"AttributeName": "g", "AttributeType": "S"})
        kw["GlobalSecondaryIndexes"] = [{
            "IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"}, "ProvisionedThroughput": tp,
        }]  # fmt: skip
    w["us-east-1"].create_table(**kw)
    return name


def scale_writes(w: World, t: str, target: float = 50.0, hi: int = 200, indexes: tuple[str, ...] = (), **conf: Any) -> None:
    """Write auto scaling through Application Auto Scaling (a regional table has no replica
    auto scaling)."""
    autoscale(aas_client(w.url), t, indexes=indexes, lo=5, hi=hi, target=target, **conf)


def test_scale_out_eases_throttling_then_scale_in_after_fifteen_quiet_minutes(world: World) -> None:
    t = create(world)
    scale_writes(world, t)
    world.to_next_minute()
    world.busy_minute(t)  # the burst capacity absorbs the first minute: one datapoint above target
    assert world.wcu(t) == 5
    throttled = world.busy_minute(t)  # the burst is spent: throttling; the second datapoint above target
    assert throttled > 0
    first = world.wcu(t)
    assert 5 < first < 50  # raised towards the consumption the throttled minute allowed
    left = [world.busy_minute(t) for _ in range(4)]
    # at most 100 / target times more per step, until the demand is at the target: 25 / 50 %
    assert world.wcu(t) == 50
    assert left[-1] == 0 and all(n < throttled for n in left)
    table = world["us-east-1"].describe_table(TableName=t)["Table"]["ProvisionedThroughput"]
    assert table["NumberOfDecreasesToday"] == 0 and "LastIncreaseDateTime" in table
    for _ in range(14):  # quiet: fourteen datapoints below target - 20 points are not enough
        world.clock.advance(60)
    assert world.wcu(t) == 50
    world.clock.advance(60)
    assert world.wcu(t) == 5  # the minimum: nothing is consumed
    table = world["us-east-1"].describe_table(TableName=t)["Table"]["ProvisionedThroughput"]
    assert table["NumberOfDecreasesToday"] == 1
    # each activity is marked on the capacity history the dashboard draws
    state = world.namespaces.get("us-east-1", "AKIDTEST").tables[t].capacity.state
    marks = [e["text"] for e in state.history.events if e["kind"] == "autoscaling"]
    assert marks[0] == f"auto scaling: write capacity 5 → {first}"
    assert marks[-2].endswith(" → 50") and marks[-1] == "auto scaling: write capacity 50 → 5"


def test_disable_scale_in_keeps_the_capacity_and_max_bounds_it(world: World) -> None:
    t = create(world)
    scale_writes(world, t, 20.0, hi=30, DisableScaleIn=True)
    world.to_next_minute()
    for _ in range(4):
        world.busy_minute(t)
    assert world.wcu(t) == 30  # 25 / 20 % would be 125: the maximum holds it
    for _ in range(20):
        world.clock.advance(60)
    assert world.wcu(t) == 30


def test_scale_out_cooldown_spaces_the_steps(world: World) -> None:
    t = create(world)
    scale_writes(world, t, 50.0, ScaleOutCooldown=600)
    world.to_next_minute()
    world.busy_minute(t)
    world.busy_minute(t)
    first = world.wcu(t)
    assert first > 5
    for _ in range(3):  # still above target, but within the 10 minutes of cooldown
        world.busy_minute(t)
    assert world.wcu(t) == first


def test_a_gsi_write_capacity_scales(world: World) -> None:
    t = create(world, gsi=True)
    scale_writes(world, t, indexes=("by-g",))
    world.to_next_minute()
    for _ in range(6):
        world.busy_minute(t, gsi=True)
    assert world.wcu(t, index=True) == 50
    assert world.wcu(t) == 50


def test_a_replica_scales_on_its_replicated_writes(world: World) -> None:
    t = create(world)
    scale_writes(world, t)
    world["us-east-1"].update_table(TableName=t, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
    world.to_next_minute()
    for _ in range(6):
        world.busy_minute(t)
    # every replica carries the write settings, and consumes its own units for replicated writes
    assert world.wcu(t, "eu-west-1") > 5
    assert world.wcu(t) == 50


def test_scaling_resumes_after_a_restart_without_another_auto_scaling_call(tmp_path: Any) -> None:
    """Targets and policies are stored with the namespace: a restarted server scales from its
    first clock advance, with no Application Auto Scaling call after the restart."""
    first = DynemuServer(clock="virtual", data_dir=str(tmp_path))
    w = World(first.start(), first.app[NAMESPACES])
    try:
        t = create(w)
        scale_writes(w, t)
    finally:
        first.stop()
    again = DynemuServer(clock="virtual", data_dir=str(tmp_path))
    w = World(again.start(), again.app[NAMESPACES])
    try:
        w.to_next_minute()
        for _ in range(6):
            w.busy_minute(t)
        assert w.wcu(t) == 50
    finally:
        again.stop()
