"""ConsumedCapacity on the wire (api/operations/common.py): the shapes of each operation."""

from __future__ import annotations

from dynemu.api.operations.common import render_consumed, render_ledger
from dynemu.engine.capacity import CapacityLedger, ConsumedCapacity

# --- ConsumedCapacity shapes ------------------------------------------------------------


def test_get_item_shapes() -> None:
    cc = ConsumedCapacity("Music")
    cc.add_read(1)
    assert render_consumed(cc, "NONE") is None
    assert render_consumed(cc, "TOTAL") == {"TableName": "Music", "CapacityUnits": 0.5}
    assert render_consumed(cc, "INDEXES") == {
        "TableName": "Music",
        "CapacityUnits": 0.5,
        "Table": {"CapacityUnits": 0.5},
    }


def test_write_with_indexes_reports_each_charged_index() -> None:
    cc = ConsumedCapacity("T")
    cc.add_write(2)
    cc.add_index("gsi1", is_global=True, write_h=4)
    cc.add_index("lsi1", is_global=False, write_h=2)
    cc.add_index("gsi2", is_global=True, write_h=0)  # untouched: no arm at all
    assert cc.total == 4.0
    assert render_consumed(cc, "TOTAL") == {"TableName": "T", "CapacityUnits": 4.0}
    assert render_consumed(cc, "INDEXES") == {
        "TableName": "T",
        "CapacityUnits": 4.0,
        "Table": {"CapacityUnits": 1.0},
        "LocalSecondaryIndexes": {"lsi1": {"CapacityUnits": 1.0}},
        "GlobalSecondaryIndexes": {"gsi1": {"CapacityUnits": 2.0}},
    }


def test_gsi_query_reports_a_zero_table_arm() -> None:
    cc = ConsumedCapacity("T")
    cc.add_index("byDate", is_global=True, read_h=3)
    assert render_consumed(cc, "INDEXES") == {
        "TableName": "T",
        "CapacityUnits": 1.5,
        "Table": {"CapacityUnits": 0.0},
        "GlobalSecondaryIndexes": {"byDate": {"CapacityUnits": 1.5}},
    }


def test_transactions_split_read_and_write_units() -> None:
    ledger = CapacityLedger(split=True)
    ledger.for_table("A").add_read(8)
    ledger.for_table("B").add_write(4)
    ledger.for_table("A").add_read(4)
    assert render_ledger(ledger, "TOTAL") == [
        {"TableName": "A", "CapacityUnits": 6.0, "ReadCapacityUnits": 6.0},
        {"TableName": "B", "CapacityUnits": 2.0, "WriteCapacityUnits": 2.0},
    ]
    assert render_ledger(ledger, "INDEXES")[0] == {
        "TableName": "A",
        "CapacityUnits": 6.0,
        "ReadCapacityUnits": 6.0,
        "Table": {"CapacityUnits": 6.0, "ReadCapacityUnits": 6.0},
    }
    assert render_ledger(ledger, "NONE") is None


def test_batch_ledger_and_merge() -> None:
    ledger = CapacityLedger()
    first = ConsumedCapacity("Forum")
    first.add_write(2)
    first.add_index("g", is_global=True, write_h=2)
    ledger.for_table("Forum").merge(first)
    ledger.for_table("Forum").merge(first)
    assert render_ledger(ledger, "TOTAL") == [{"TableName": "Forum", "CapacityUnits": 4.0}]
    assert render_ledger(ledger, "INDEXES")[0]["GlobalSecondaryIndexes"] == {"g": {"CapacityUnits": 2.0}}
