"""engine/capacity/units.py: DynamoDB's capacity-unit arithmetic and ConsumedCapacity shapes."""

from __future__ import annotations

from dynemu.engine.capacity import (
    index_write_units,
    index_write_units_h,
    query_read_units,
    read_units,
    write_units,
    write_units_h,
)

KB = 1024


# --- reads (read-write-operations.html) -------------------------------------------------


def test_get_item_rounds_to_4kb_and_halves_for_eventual() -> None:
    assert read_units(3584, consistent=True) == 1.0  # 3.5 KB -> 4 KB
    assert read_units(10 * KB, consistent=True) == 3.0  # 10 KB -> 12 KB
    assert read_units(10 * KB, consistent=False) == 1.5
    assert read_units(4 * KB, consistent=True) == 1.0
    assert read_units(4 * KB + 1, consistent=True) == 2.0
    assert read_units(8 * KB, consistent=False, transactional=True) == 4.0  # 8 KB transactional


def test_missing_item_costs_the_minimum_read() -> None:
    assert read_units(None, consistent=True) == 1.0
    assert read_units(None, consistent=False) == 0.5
    assert read_units(None, consistent=False, transactional=True) == 2.0


def test_batch_get_rounds_each_item_then_sums() -> None:
    # 1.5 KB + 6.5 KB -> 4 KB + 8 KB = 12 KB -> 3 units strong
    assert read_units(1536, True) + read_units(6656, True) == 3.0


def test_query_sums_then_rounds_once() -> None:
    assert query_read_units(int(40.8 * KB), consistent=True) == 11.0  # 40.8 KB -> 44 KB
    assert query_read_units(int(40.8 * KB), consistent=False) == 5.5
    assert query_read_units(1500 * 64, consistent=True) == 24.0  # 96 KB
    assert query_read_units(80 * KB, consistent=False) == 10.0
    assert query_read_units(16000, consistent=False) == 2.0  # GSI.md: 8 x 2000 B
    assert query_read_units(0, consistent=False) == 0.5


# --- writes -----------------------------------------------------------------------------


def test_writes_round_to_1kb_of_the_larger_image() -> None:
    assert write_units(None, 500) == 1.0
    assert write_units(None, int(1.6 * KB)) == 2.0
    assert write_units(3 * KB, 100) == 3.0  # shrinking a 3 KB item costs 3
    assert write_units(1 * KB, 2 * KB) == 2.0
    assert write_units(None, None) == 1.0  # delete of a missing item / failed condition
    assert write_units(2 * KB, None) == 2.0  # delete or failed condition on a 2 KB item
    assert write_units(None, 500) + write_units(None, int(3.5 * KB)) == 5.0  # batch: 1 + 4
    assert write_units(None, 500, transactional=True) == 2.0
    assert 3 * write_units_h(None, 500, transactional=True) == 12  # 3 x 500 B in a tx = 6 WCU


def test_index_write_units_follow_gsi_rules() -> None:
    assert index_write_units(None, None) == 0.0  # not in the index before or after
    assert index_write_units(None, 300) == 1.0  # new entry
    assert index_write_units(300, None) == 1.0  # indexed attribute removed
    assert index_write_units(300, 300, key_changed=True) == 2.0  # A -> B: delete + put
    assert index_write_units(1517, 1517, key_changed=True) == 4.0  # each rounded on its own
    assert index_write_units(300, 310) == 1.0  # projected attribute changed
    assert index_write_units(3 * KB, 18) == 3.0  # in place: the larger entry
    assert index_write_units(300, 300, changed=False) == 0.0  # identical overwrite
    assert index_write_units_h(None, 2 * KB) == 4
