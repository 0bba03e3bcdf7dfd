"""The index engine in process: a backfill interleaved with writes, a restart in the
middle of one, and what the API says about an index being backfilled."""

from __future__ import annotations

from typing import Any

import orjson
import pytest

from dynemu.api.operations import index_specs, items, query, tables
from dynemu.api.protocol import Context
from dynemu.config import Settings
from dynemu.engine import indexes
from dynemu.engine.clock import RealClock
from dynemu.engine.indexes import IndexSpec
from dynemu.engine.namespace import Namespace
from dynemu.engine.schema import KeyAttr
from dynemu.errors import DynamoError
from dynemu.storage.memory import MemoryStore
from tests.test_indexes import N, S, ad, ks

OPS = {**tables.OPERATIONS, **items.OPERATIONS, **query.OPERATIONS}


class Harness:
    def __init__(self, store: MemoryStore | None = None) -> None:
        self.store = store or MemoryStore()
        self.db = Namespace(self.store, RealClock())
        self.ctx = Context(db=self.db, region="us-east-1", access_key="AKIDTEST", settings=Settings(in_memory=True),
                           endpoint="")

    def __call__(self, op: str, **body: Any) -> dict[str, Any]:
        return OPS[op](self.ctx, body)


@pytest.fixture
def h() -> Harness:
    return Harness()


def expected_entries(h: Harness, table: str, attr: str) -> list[dict[str, Any]]:
    items_ = orjson.loads(orjson.dumps(h("Scan", TableName=table)["Items"]))  # as the server writes it out
    return sorted(({"pk": i["pk"], attr: i[attr]} for i in items_ if attr in i and "S" in i[attr]),
                  key=lambda e: e["pk"]["S"])


def index_entries(h: Harness, table: str, name: str) -> list[dict[str, Any]]:
    t = h.db.get(table)
    ix = indexes.find(t, name)
    assert ix is not None
    return sorted((e for _, e in indexes.entries(t, ix)), key=lambda e: e["pk"]["S"])


def start_creating(h: Harness, table: str, name: str, attr: str) -> indexes.Backfill:
    """A GSI on ``attr`` in state CREATING, persisted, with its backfill not yet run."""
    t = h.db.get(table)
    t.spec.attribute_definitions.append(KeyAttr(attr, "S"))
    t.spec.indexes.append(IndexSpec(name, indexes.next_index_id(t), True, (KeyAttr(attr, "S"),), (), "KEYS_ONLY",
                                    status="CREATING"))
    h.db.save_spec(t)
    ix = indexes.sync(t).by_name[name]
    return indexes.Backfill(t, ix)


def populated(h: Harness, n: int = 40) -> str:
    h("CreateTable", TableName="tbl", KeySchema=ks(("pk", "HASH")), AttributeDefinitions=ad(pk="S"),
      BillingMode="PAY_PER_REQUEST")
    for i in range(n):
        item = {"pk": S(f"p{i:03}")}
        if i % 2:
            item["c"] = S(f"c{i % 5}")
        h("PutItem", TableName="tbl", Item=item)
    return "tbl"


def test_writes_during_a_backfill(h: Harness) -> None:
    table = populated(h)
    job = start_creating(h, table, "by_c", "c")
    assert not job.step(10)
    cursor = job.index.cursor
    keys = [k for k, _ in h.store.iterate(*_item_range(h, table))]
    below = [k for k in keys if k <= cursor]  # type: ignore[operator]
    assert len(below) == 10
    # write every kind of change, to items on both sides of the cursor
    for i in range(40):
        pk = {"pk": S(f"p{i:03}")}
        if i % 4 == 0:
            h("UpdateItem", TableName=table, Key=pk, UpdateExpression="SET c = :c", ExpressionAttributeValues={":c": S("new")})
        elif i % 4 == 1:
            h("UpdateItem", TableName=table, Key=pk, UpdateExpression="REMOVE c")
        elif i % 4 == 2:
            h("DeleteItem", TableName=table, Key=pk)
    h("PutItem", TableName=table, Item={"pk": S("zzz"), "c": S("late")})
    assert not job.step(7)
    h("PutItem", TableName=table, Item={"pk": S("p003"), "c": S("again")})
    job.run()
    assert job.done and job.index.spec.status == "ACTIVE"
    assert index_entries(h, table, "by_c") == expected_entries(h, table, "c")
    ix = job.index
    assert ix.item_count == len(expected_entries(h, table, "c"))


def _item_range(h: Harness, table: str) -> tuple[bytes, bytes]:
    from dynemu.storage import keyspace

    prefix = keyspace.items_prefix(h.db.get(table).spec.table_id)
    return prefix, keyspace.prefix_end(prefix)


def test_an_index_being_backfilled(h: Harness) -> None:
    table = populated(h)
    job = start_creating(h, table, "by_c", "c")
    job.step(5)
    desc = h("DescribeTable", TableName=table)["Table"]
    g = desc["GlobalSecondaryIndexes"][0]
    assert (desc["TableStatus"], g["IndexStatus"], g["Backfilling"]) == ("ACTIVE", "CREATING", True)
    with pytest.raises(DynamoError) as info:
        h("Query", TableName=table, IndexName="by_c", KeyConditionExpression="c = :c", ExpressionAttributeValues={":c": S("c1")})
    assert info.value.message == "Cannot read from backfilling global secondary index"
    with pytest.raises(DynamoError) as info:
        h("DeleteTable", TableName=table)
    assert (info.value.type_name, info.value.message) == (
        "ResourceInUseException",
        "Attempt to change a resource which is still in use: Cannot delete table while indexes are being created, "
        "updated, or deleted.",
    )
    with pytest.raises(DynamoError) as info:  # another index cannot start meanwhile
        h("UpdateTable", TableName=table, AttributeDefinitions=ad(d="S"),
          GlobalSecondaryIndexUpdates=[{"Create": {"IndexName": "by_d", "KeySchema": ks(("d", "HASH")),
                                                   "Projection": {"ProjectionType": "ALL"}}}])
    assert info.value.type_name == "LimitExceededException"
    # but the index being created may be deleted: the backfill stops
    h("UpdateTable", TableName=table, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "by_c"}}])
    assert job.step() and "GlobalSecondaryIndexes" not in h("DescribeTable", TableName=table)["Table"]
    h("DeleteTable", TableName=table)


def test_restart_in_the_middle_of_a_backfill(h: Harness) -> None:
    table = populated(h)
    job = start_creating(h, table, "by_c", "c")
    job.step(10)
    h2 = Harness(h.store)  # the same storage, loaded again: the index is rebuilt
    g = h2("DescribeTable", TableName=table)["Table"]["GlobalSecondaryIndexes"][0]
    assert g["IndexStatus"] == "ACTIVE" and g["ItemCount"] == 20
    assert index_entries(h2, table, "by_c") == expected_entries(h2, table, "c")
    h3 = Harness(h.store)
    assert h3("DescribeTable", TableName=table)["Table"]["GlobalSecondaryIndexes"][0]["ItemCount"] == 20


def test_drop_table_removes_index_data(h: Harness) -> None:
    h("CreateTable", TableName="tbl", KeySchema=ks(("pk", "HASH"), ("sk", "RANGE")), BillingMode="PAY_PER_REQUEST",
      AttributeDefinitions=ad(pk="S", sk="N", c="S"),
      LocalSecondaryIndexes=[{"IndexName": "lsi", "KeySchema": ks(("pk", "HASH"), ("c", "RANGE")),
                              "Projection": {"ProjectionType": "ALL"}}],
      GlobalSecondaryIndexes=[{"IndexName": "gsi", "KeySchema": ks(("c", "HASH")), "Projection": {"ProjectionType": "ALL"}}])
    for i in range(5):
        h("PutItem", TableName="tbl", Item={"pk": S("a"), "sk": N(i), "c": S("c")})
    h("DeleteTable", TableName="tbl")
    leftovers = [k for k, _ in h.store.iterate(b"", b"\xff") if k.startswith((b"i/", b"t/")) or b"index" in k
                 or b"item-collections" in k]
    assert leftovers == []


def test_item_collection_limit_configuration() -> None:
    """The limit reaches the tables from the Namespace (Settings.item_collection_limit)."""
    db = Namespace(MemoryStore(), RealClock(), item_collection_limit=1234)
    ctx = Context(db=db, region="us-east-1", access_key="AKIDTEST", settings=Settings(in_memory=True), endpoint="")
    tables.create_table(ctx, {"TableName": "t", "KeySchema": ks(("pk", "HASH")), "AttributeDefinitions": ad(pk="S"),
                              "BillingMode": "PAY_PER_REQUEST"})
    assert db.get("t").indexes.collection_limit == 1234
    assert Harness().db.item_collection_limit == indexes.ITEM_COLLECTION_LIMIT


def test_size_estimate() -> None:
    assert indexes.size_estimate_gb(0) == [0.0, 1.0]
    assert indexes.size_estimate_gb(3 * 1024**3 + 5) == [3.0, 4.0]


def test_no_index_members_without_indexes(h: Harness) -> None:
    h("CreateTable", TableName="plain", KeySchema=ks(("pk", "HASH")), AttributeDefinitions=ad(pk="S"),
      BillingMode="PAY_PER_REQUEST")
    assert index_specs.describe_indexes(h.db.get("plain")) == {}


def test_indexes_follow_a_spec_replaced_during_a_backfill(h: Harness) -> None:
    table = populated(h)
    job = start_creating(h, table, "by_c", "c")
    job.step(5)
    h("UpdateTable", TableName=table, DeletionProtectionEnabled=True)  # replaces table.spec by a copy
    job.run()
    h.db.save_spec(h.db.get(table))  # what the API's backfill pump does when it finishes
    assert h.db.get(table).spec.indexes[0].status == "ACTIVE"
    assert Harness(h.store)("DescribeTable", TableName=table)["Table"]["GlobalSecondaryIndexes"][0]["IndexStatus"] == "ACTIVE"
