"""The write executor's one loop (``writes.execute``) driven by PutItem, UpdateItem and
DeleteItem in process, on plain tables and on tables with a GSI, an LSI, a stream and TTL:
conditions that hold and fail, the 400 KB rule on updates, throttles that write nothing,
and an index added later."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pytest

from dynemu import errors
from dynemu.api.operations import items, tables, ttl
from dynemu.api.protocol import Context
from dynemu.config import Settings
from dynemu.engine.capacity.throughput import CapacityConfig
from dynemu.engine.clock import VirtualClock
from dynemu.engine.namespace import Namespace
from dynemu.engine.table import stored_size
from dynemu.storage import encoding, keyspace
from dynemu.storage.memory import MemoryStore

OPS = {**tables.OPERATIONS, **items.OPERATIONS, **ttl.OPERATIONS}
Call = Callable[..., dict[str, Any]]


def S(v: str) -> dict[str, str]:
    return {"S": v}


def N(v: str) -> dict[str, str]:
    return {"N": v}


def _schema(kind: str) -> dict[str, Any]:
    body: dict[str, Any] = {
        "TableName": "t",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
        "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
    }
    defs = body["AttributeDefinitions"]
    if kind in ("range", "lsi"):
        body["KeySchema"].append({"AttributeName": "sk", "KeyType": "RANGE"})
        defs.append({"AttributeName": "sk", "AttributeType": "N"})
    if kind == "gsi":
        defs.append({"AttributeName": "g", "AttributeType": "S"})
        body["GlobalSecondaryIndexes"] = [{
            "IndexName": "gsi", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
            "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5},
        }]  # fmt: skip
    if kind == "lsi":
        defs.append({"AttributeName": "g", "AttributeType": "S"})
        body["LocalSecondaryIndexes"] = [{
            "IndexName": "lsi", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                              {"AttributeName": "g", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }]  # fmt: skip
    if kind == "stream":
        body["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    return body


def _harness(kind: str, throttling: bool) -> tuple[Namespace, Call]:
    cfg = CapacityConfig(throttling=throttling)
    db = Namespace(MemoryStore(), VirtualClock(1_700_000_000.0), cfg)
    ctx = Context(db=db, region="us-east-1", access_key="AKIDTEST", settings=Settings(in_memory=True), endpoint="")

    def call(op: str, **body: Any) -> dict[str, Any]:
        return OPS[op](ctx, body)

    call("CreateTable", **_schema(kind))
    if kind == "ttl":
        call("UpdateTimeToLive", TableName="t", TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"})
    return db, call


def _key(i: int, kind: str) -> dict[str, Any]:
    key = {"pk": S(f"k{i % 3}")}
    if kind in ("range", "lsi"):
        key["sk"] = N(str(i % 2))
    return key


def _workload(call: Call, kind: str) -> list[Any]:
    """Puts, updates and deletes, with conditions that hold and that fail, and what each
    answered (or the error's type, message and item)."""
    answers: list[Any] = []
    for i in range(24):
        key = _key(i, kind)
        item = {**key, "g": S(f"g{i % 4}"), "v": N(str(i)), "big": S("x" * (300 * (i % 5))),
                "exp": N(str(1_800_000_000 + i))}  # fmt: skip
        requests: list[tuple[str, dict[str, Any]]] = [
            ("PutItem", {"Item": item, "ReturnValues": "ALL_OLD", "ReturnConsumedCapacity": "INDEXES"}),
            ("PutItem", {"Item": item, "ConditionExpression": "attribute_not_exists(pk)",
                         "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}),
            ("UpdateItem", {"Key": key, "UpdateExpression": "ADD hits :one SET g = :g",
                            "ExpressionAttributeValues": {":one": N("1"), ":g": S(f"h{i % 3}")},
                            "ReturnValues": "ALL_NEW", "ReturnConsumedCapacity": "TOTAL"}),
            ("UpdateItem", {"Key": key, "UpdateExpression": "REMOVE big", "ConditionExpression": "v = :no",
                            "ExpressionAttributeValues": {":no": N("-1")}}),
            ("UpdateItem", {"Key": key, "UpdateExpression": "SET big = :b",
                            "ExpressionAttributeValues": {":b": S("y" * 400_000)}}),
            ("UpdateItem", {"Key": key, "UpdateExpression": "SET huge = :b",  # past 400 KB
                            "ExpressionAttributeValues": {":b": S("z" * 409_600)}}),
        ]  # fmt: skip
        if i % 3 == 2:
            requests.append(("DeleteItem", {"Key": key, "ReturnValues": "ALL_OLD"}))
        for op, body in requests:
            try:
                answers.append(call(op, TableName="t", **body))
            except errors.DynamoError as e:
                answers.append((e.type_name, e.message, getattr(e, "item", None)))
    return answers


def _stored(db: Namespace) -> list[tuple[bytes, bytes]]:
    return [(k, v) for k, v in db.store.iterate(b"", b"\xff") if not k.startswith(keyspace.META_TABLES_PREFIX)]


@pytest.mark.parametrize("throttling", [True, False])
@pytest.mark.parametrize("kind", ["plain", "range", "gsi", "lsi", "stream", "ttl"])
def test_single_writes_through_the_one_loop(kind: str, throttling: bool) -> None:
    db, call = _harness(kind, throttling)
    answers = _workload(call, kind)
    failed = ("ConditionalCheckFailedException", "The conditional request failed", None)
    too_big = ("ValidationException", "Item size to update has exceeded the maximum allowed size", None)
    assert failed in answers and too_big in answers
    assert db.get("t").item_count > 0
    table = db.get("t")
    assert (table.item_count, table.size_bytes) == (len(_items(db)), sum(_sizes(db)))


def _items(db: Namespace) -> list[bytes]:
    prefix = keyspace.items_prefix(db.get("t").spec.table_id)
    return [k for k, _ in db.store.iterate(prefix, keyspace.prefix_end(prefix))]


def _sizes(db: Namespace) -> list[int]:
    prefix = keyspace.items_prefix(db.get("t").spec.table_id)
    return [stored_size(v) for _, v in db.store.iterate(prefix, keyspace.prefix_end(prefix))]


def test_a_throttled_single_write_is_the_error_and_writes_nothing() -> None:
    db, call = _harness("gsi", True)
    answers = []
    for i in range(30):  # 100 WCU each: the 5 WCU table's 300 s of burst run out
        before = _stored(db)
        try:
            call("PutItem", TableName="t", Item={"pk": S(f"k{i % 7}"), "d": S("x" * 100_000)})
            answers.append("ok")
        except errors.DynamoError as e:
            answers.append(e.type_name)
            assert _stored(db) == before
    assert "ProvisionedThroughputExceededException" in answers
    assert answers[0] == "ok"


def test_an_index_added_later_is_maintained_by_later_writes() -> None:
    """A table created without an index leaves the index maintenance out of its writes
    until UpdateTable gives it one."""
    db, call = _harness("plain", False)
    call("PutItem", TableName="t", Item={"pk": S("a"), "g": S("x")})
    call("UpdateTable", TableName="t", AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
         GlobalSecondaryIndexUpdates=[{"Create": {
             "IndexName": "gsi", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
             "Projection": {"ProjectionType": "ALL"},
             "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}}])  # fmt: skip
    call("PutItem", TableName="t", Item={"pk": S("b"), "g": S("y")})
    call("UpdateItem", TableName="t", Key={"pk": S("a")}, UpdateExpression="SET g = :g",
         ExpressionAttributeValues={":g": S("z")})
    table = db.get("t")
    (ix,) = table.indexes.indexes
    prefix = keyspace.index_prefix(table.spec.table_id, ix.spec.index_id)
    entries = [k for k, _ in db.store.iterate(prefix, keyspace.prefix_end(prefix))]
    assert len(entries) == 2 == ix.item_count


@pytest.mark.parametrize("text", ["a", "user#000001", "", "\x00", "a\x00b\x00", "é漢字🙂", "x" * 600])
def test_item_key_s_is_item_key_of_an_s_value(text: str) -> None:
    prefix = keyspace.items_prefix(7)
    assert keyspace.item_key_s(prefix, text) == keyspace.item_key(7, S(text), None)
    enc = encoding.encode_key_value(S(text))
    assert encoding.hashed_string(text) == encoding.hash8(enc) + enc
    assert encoding.hash8(enc) == hashlib.blake2b(enc, digest_size=8).digest()  # the stored layout's hash
