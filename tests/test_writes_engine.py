"""The write executor in process: every write operation charges the table the same way."""

from __future__ import annotations

from typing import Any

from dynemu.api.operations import batch, items, tables, transactions
from dynemu.api.protocol import Context
from dynemu.config import Settings
from dynemu.engine.clock import VirtualClock
from dynemu.engine.namespace import Namespace
from dynemu.storage.memory import MemoryStore
from tests.test_indexes import S, ad, ks

OPS = {**tables.OPERATIONS, **items.OPERATIONS, **batch.OPERATIONS, **transactions.OPERATIONS}


def _harness() -> tuple[Namespace, Any]:
    db = Namespace(MemoryStore(), VirtualClock(1_700_000_000.0))
    ctx = Context(db=db, region="us-east-1", access_key="AKIDTEST", settings=Settings(in_memory=True), endpoint="")

    def call(op: str, **body: Any) -> dict[str, Any]:
        return OPS[op](ctx, body)

    call("CreateTable", TableName="t", KeySchema=ks(("pk", "HASH"), ("sk", "RANGE")),
         AttributeDefinitions=ad(pk="S", sk="S", c="S"),
         ProvisionedThroughput={"ReadCapacityUnits": 1000, "WriteCapacityUnits": 1000},
         LocalSecondaryIndexes=[{"IndexName": "lsi", "KeySchema": ks(("pk", "HASH"), ("c", "RANGE")),
                                 "Projection": {"ProjectionType": "ALL"}}])  # fmt: skip
    return db, call


def _written(db: Namespace) -> float:
    return db.get("t").capacity.state.consumed_total[1]


def _item(sk: str) -> dict[str, Any]:
    return {"pk": S("a"), "sk": S(sk), "c": S("c"), "d": S("x" * 1500)}  # ~1.5 KB: 2 units, 2 LSI units


def test_every_write_path_charges_lsi_units_to_the_table() -> None:
    db, call = _harness()
    before = _written(db)
    call("PutItem", TableName="t", Item=_item("1"))
    single = _written(db) - before
    assert single == 4.0  # 2 for the item, 2 for its LSI entry (LSI.md)

    before = _written(db)
    call("BatchWriteItem", RequestItems={"t": [{"PutRequest": {"Item": _item("2")}}]})
    assert _written(db) - before == single

    before = _written(db)
    out = call("TransactWriteItems", TransactItems=[{"Put": {"TableName": "t", "Item": _item("3")}}],
               ReturnConsumedCapacity="INDEXES")
    # the table's arm doubles in a transaction, the LSI's does not (transaction-apis.md)
    assert _written(db) - before == 2 * 2.0 + 2.0
    (cc,) = out["ConsumedCapacity"]
    assert cc["Table"]["WriteCapacityUnits"] == 4.0
    assert cc["LocalSecondaryIndexes"]["lsi"]["WriteCapacityUnits"] == 2.0
