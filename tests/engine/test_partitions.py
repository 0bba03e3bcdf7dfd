"""engine/capacity/partitions.py: partition counts, lookup, splits."""

from __future__ import annotations

import pytest

from dynemu.engine.capacity.partitions import (
    HASH_SPACE,
    PartitionMap,
    initial_partition_count,
    partitions_for_size,
    partitions_for_throughput,
    partitions_for_warm,
)

GB = 1024**3


def h(x: float, tail: bytes = b"") -> bytes:
    """A key suffix whose 8-byte hash sits at fraction ``x`` of the hash space."""
    return int(x * (HASH_SPACE - 1)).to_bytes(8, "big") + tail


def test_initial_counts() -> None:
    assert partitions_for_throughput(1000, 1000) == 2  # 2017 guide's example
    assert partitions_for_throughput(3000, 0) == 1
    assert partitions_for_throughput(3001, 0) == 2
    assert partitions_for_throughput(0, 0) == 1
    assert partitions_for_throughput(400, 0) == 1
    assert partitions_for_size(25 * GB) == 3
    assert partitions_for_size(0) == 1
    assert partitions_for_warm(12000, 4000) == 4
    assert initial_partition_count(on_demand=True) == 4
    assert initial_partition_count(rcu=5, wcu=5, size_bytes=35 * GB) == 4
    assert initial_partition_count(rcu=5, wcu=5, warm_write=8000) == 8


def test_even_ranges_and_bisect_lookup() -> None:
    pm = PartitionMap(4)
    assert len(pm) == 4
    assert [pm.find(h(x)) for x in (0.0, 0.2, 0.26, 0.5, 0.74, 0.99)] == [0, 0, 1, 2, 2, 3]
    assert pm.bounds(0) == (b"", (HASH_SPACE // 4).to_bytes(8, "big"))
    assert pm.bounds(3)[1] is None
    assert pm.find(b"") == 0


def test_doubling_splits_every_partition_at_its_midpoint() -> None:
    pm = PartitionMap(3)
    assert pm.ensure_count(5)
    assert len(pm) == 6
    assert pm.find(h(0.1)) == 0 and pm.find(h(0.2)) == 1
    assert not pm.ensure_count(6)


def test_size_split_and_sizes() -> None:
    pm = PartitionMap(1, partition_size=1000)
    assert not pm.note_write(0, 600, 3)
    assert pm.note_write(0, 600, 3)
    mid = pm.hash_midpoint(0)
    assert mid == (HASH_SPACE // 2).to_bytes(8, "big")
    assert pm.split(0, mid, lower_size=700, lower_count=4) == 1
    assert [(p.size_bytes, p.item_count) for p in pm.parts] == [(700, 4), (500, 2)]
    with pytest.raises(ValueError):
        pm.split(0, mid)  # not inside partition 0 any more


def test_snapshot_round_trip() -> None:
    pm = PartitionMap(2)
    pm.note_write(1, 10, 1)
    pm.split(1, h(0.9, b"pk"))
    rows = pm.snapshot()
    again = PartitionMap.from_snapshot(rows)
    assert again.snapshot() == rows
    assert again.find(h(0.95)) == 2


def test_heat_split_key_balances_consumption() -> None:
    pm = PartitionMap(1)
    part = pm.parts[0]
    for _ in range(10):
        part.record(h(0.10, b"a"), 0, 5)
        part.record(h(0.20, b"b"), 0, 5)
        part.record(h(0.30, b"c"), 0, 10)
    assert pm.balanced_split_key(0) == h(0.30, b"c")  # 100 | 100
    new = pm.split(0, pm.balanced_split_key(0))
    # samples follow their keys into the two halves
    assert {k for k, _ in pm.parts[0].samples()} == {h(0.10, b"a"), h(0.20, b"b")}
    assert {k for k, _ in pm.parts[new].samples()} == {h(0.30, b"c")}
    assert pm.balanced_split_key(new) is None  # one hot key: splitting cannot help


def test_heat_split_inside_an_item_collection_only_without_lsi() -> None:
    keys = [h(0.5, b"pk" + bytes([i])) for i in range(4)]  # one partition key, 4 sort keys
    plain = PartitionMap(1)
    with_lsi = PartitionMap(1, lsi=True)
    for pm in (plain, with_lsi):
        for k in keys:
            pm.parts[0].record(k, 0, 1)
    assert plain.balanced_split_key(0) == keys[2]
    assert with_lsi.balanced_split_key(0) is None  # one item collection stays together
    with_lsi.parts[0].record(h(0.7), 0, 4)
    assert with_lsi.balanced_split_key(0) == h(0.7)
    with_lsi.split(0, keys[1] + b"zz")  # cut to the hash prefix
    assert with_lsi.starts[1] == keys[1][:8]


def test_hot_keys_by_units_and_throttles() -> None:
    pm = PartitionMap(1)
    part = pm.parts[0]
    part.record(h(0.1), 0, 1)
    part.record(h(0.2), 0, 3)
    part.record(h(0.2), 0, 3)
    part.record_throttle(h(0.1))
    by_units, by_throttles = part.hot_keys(1)
    assert by_units == [(h(0.2), 6)]
    assert by_throttles == [(h(0.1), 1)]


def test_single_hash_partition_has_no_midpoint() -> None:
    pm = PartitionMap(1)
    pm.split(0, h(0.5))
    pm.split(1, h(0.5, b"x"))
    assert pm.hash_midpoint(1) is None
    assert pm.describe(1)["end"] == h(0.5, b"x").hex()
