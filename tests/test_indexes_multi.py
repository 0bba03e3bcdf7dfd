"""Multi-attribute GSI keys (DynamoDB, November 2025): up to 4 HASH and 4 RANGE attributes.

The request-shape validator still caps every KeySchema at 2 elements (the model's old
constraint), so these tests call the operation handlers in process, after the shape check;
``test_wire_accepts_multi_attribute_keys`` runs through boto3 once the cap exempts GSIs.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

from dynemu.api.operations import items, query, tables
from dynemu.api.protocol import Context
from dynemu.config import Settings
from dynemu.engine.clock import RealClock
from dynemu.engine.namespace import Namespace
from dynemu.errors import DynamoError
from dynemu.storage.memory import MemoryStore
from tests.test_indexes import PARAM, N, S, ad, ks, qv

OPS: dict[str, Callable[[Context, dict[str, Any]], dict[str, Any]]] = {
    **tables.OPERATIONS, **items.OPERATIONS, **query.OPERATIONS,
}
_names = itertools.count()
MULTI = ks(("h1", "HASH"), ("h2", "HASH"), ("r1", "RANGE"), ("r2", "RANGE"))


@pytest.fixture
def call() -> Callable[..., dict[str, Any]]:
    db = Namespace(MemoryStore(), RealClock())
    ctx = Context(db=db, region="us-east-1", access_key="AKIDTEST", settings=Settings(in_memory=True), endpoint="")

    def run(op: str, **body: Any) -> dict[str, Any]:
        return OPS[op](ctx, body)

    return run


def error(call: Callable[..., Any], op: str, **body: Any) -> tuple[str, str]:
    with pytest.raises(DynamoError) as info:
        call(op, **body)
    return info.value.type_name, info.value.message


def make(call: Callable[..., Any], key_schema: list[dict[str, str]] = MULTI, **types: str) -> str:
    name = f"multi-{next(_names)}"
    call("CreateTable", TableName=name, KeySchema=ks(("pk", "HASH")), BillingMode="PAY_PER_REQUEST",
         AttributeDefinitions=ad(pk="S", **(types or {"h1": "S", "h2": "N", "r1": "S", "r2": "N"})),
         GlobalSecondaryIndexes=[{"IndexName": "multi", "KeySchema": key_schema, "Projection": {"ProjectionType": "ALL"}}])
    return name


def put_all(call: Callable[..., Any], table: str) -> None:
    n = 0
    for h1 in ("a", "b"):
        for h2 in (1, 2):
            for r1 in ("x", "y"):
                for r2 in (1, 2, 3):
                    call("PutItem", TableName=table, Item={"pk": S(f"i{n}"), "h1": S(h1), "h2": N(h2), "r1": S(r1), "r2": N(r2)})
                    n += 1
    call("PutItem", TableName=table, Item={"pk": S("no-h2"), "h1": S("a"), "r1": S("x"), "r2": N(1)})
    call("PutItem", TableName=table, Item={"pk": S("no-r2"), "h1": S("a"), "h2": N(1), "r1": S("x")})


def keys_of(page: dict[str, Any]) -> list[tuple[str, int]]:
    return [(i["r1"]["S"], int(i["r2"]["N"])) for i in page["Items"]]


def test_create_and_describe(call: Callable[..., Any]) -> None:
    name = make(call)
    g = call("DescribeTable", TableName=name)["Table"]["GlobalSecondaryIndexes"][0]
    assert g["KeySchema"] == MULTI


@pytest.mark.parametrize("schema,message", [
    (ks(*[(f"h{i}", "HASH") for i in range(5)]), "The KeySchema exceeds the maximum allowed number of HASH key attributes"),
    (ks(("h0", "HASH"), *[(f"h{i}", "RANGE") for i in range(1, 6)]),
     "The KeySchema exceeds the maximum allowed number of RANGE key attributes"),
    (ks(("h0", "HASH"), ("h1", "RANGE"), ("h2", "HASH")), "All HASH key attributes must precede RANGE key attributes in the KeySchema"),
    (ks(("h0", "HASH"), ("h1", "HASH"), ("h0", "RANGE")), "The KeySchema contains multiple key attributes with the same name"),
])
def test_key_schema_rules(call: Callable[..., Any], schema: list[dict[str, str]], message: str) -> None:
    names = {e["AttributeName"] for e in schema}
    with pytest.raises(DynamoError) as info:
        make(call, schema, **{n: "S" for n in names})
    assert (info.value.type_name, info.value.message) == ("ValidationException", message)


def test_items_missing_a_component_are_not_indexed(call: Callable[..., Any]) -> None:
    name = make(call)
    put_all(call, name)
    scanned = call("Scan", TableName=name, IndexName="multi")
    assert scanned["Count"] == 24
    assert error(call, "PutItem", TableName=name, Item={"pk": S("z"), "h1": S("a"), "h2": S("1")}) == (
        "ValidationException", PARAM + "Type mismatch for Index Key h2 Expected: N Actual: S IndexName: multi")


def test_query_rules_and_results(call: Callable[..., Any]) -> None:
    name = make(call)
    put_all(call, name)
    q = dict(TableName=name, IndexName="multi")
    page = call("Query", KeyConditionExpression="h1 = :a AND h2 = :n", ExpressionAttributeValues=qv(a=S("a"), n=N(1)), **q)
    assert keys_of(page) == [("x", 1), ("x", 2), ("x", 3), ("y", 1), ("y", 2), ("y", 3)]
    page = call("Query", KeyConditionExpression="h1 = :a AND h2 = :n AND r1 = :x AND r2 >= :two",
                ExpressionAttributeValues=qv(a=S("b"), n=N(2), x=S("y"), two=N(2)), ScanIndexForward=False, **q)
    assert keys_of(page) == [("y", 3), ("y", 2)]
    page = call("Query", KeyConditionExpression="h1 = :a AND h2 = :n AND begins_with(r1, :x)",
                ExpressionAttributeValues=qv(a=S("a"), n=N(2), x=S("y")), **q)
    assert keys_of(page) == [("y", 1), ("y", 2), ("y", 3)]
    assert error(call, "Query", KeyConditionExpression="h1 = :a", ExpressionAttributeValues=qv(a=S("a")), **q) == (
        "ValidationException", "Query condition missed key schema element: h2")
    assert error(call, "Query", KeyConditionExpression="h1 = :a AND h2 > :n",
                 ExpressionAttributeValues=qv(a=S("a"), n=N(1)), **q) == ("ValidationException", "Query key condition not supported")
    assert error(call, "Query", KeyConditionExpression="h1 = :a AND h2 = :n AND r2 = :n",
                 ExpressionAttributeValues=qv(a=S("a"), n=N(1)), **q) == (
        "ValidationException",
        "RANGE key attributes r1 must have equality conditions specified in the query because a condition is present "
        "on key attribute r2")
    assert error(call, "Query", KeyConditionExpression="h1 = :a AND h2 = :n AND r1 > :x AND r2 = :n",
                 ExpressionAttributeValues=qv(a=S("a"), n=N(1), x=S("x")), **q)[1].startswith("RANGE key attributes r1 ")
    assert error(call, "Query", KeyConditionExpression="h1 = :a AND h2 = :n", FilterExpression="r2 = :n",
                 ExpressionAttributeValues=qv(a=S("a"), n=N(1)), **q) == (
        "ValidationException", "Filter Expression can only contain non-primary key attributes: Primary key attribute: r2")
    assert error(call, "Query", KeyConditionExpression="h1 = :a AND h2 = :n AND pk = :a",
                 ExpressionAttributeValues=qv(a=S("a"), n=N(1)), **q) == ("ValidationException", "Query key condition not supported")


def test_paging_with_multi_attribute_keys(call: Callable[..., Any]) -> None:
    name = make(call)
    put_all(call, name)
    got: list[tuple[str, int]] = []
    start = None
    while True:
        kw: dict[str, Any] = {"ExclusiveStartKey": start} if start else {}
        page = call("Query", TableName=name, IndexName="multi", KeyConditionExpression="h1 = :a AND h2 = :n",
                    ExpressionAttributeValues=qv(a=S("b"), n=N(1)), Limit=4, **kw)
        got += keys_of(page)
        start = page.get("LastEvaluatedKey")
        if not start:
            break
        assert set(start) == {"pk", "h1", "h2", "r1", "r2"}
    assert got == [("x", 1), ("x", 2), ("x", 3), ("y", 1), ("y", 2), ("y", 3)]


def test_create_multi_attribute_gsi_by_update(call: Callable[..., Any]) -> None:
    name = f"multi-{next(_names)}"
    call("CreateTable", TableName=name, KeySchema=ks(("pk", "HASH")), BillingMode="PAY_PER_REQUEST",
         AttributeDefinitions=ad(pk="S"))
    for i in range(10):
        call("PutItem", TableName=name, Item={"pk": S(f"p{i}"), "a": S(f"a{i % 2}"), "b": N(i % 3)})
    call("UpdateTable", TableName=name, AttributeDefinitions=ad(a="S", b="N"),
         GlobalSecondaryIndexUpdates=[{"Create": {"IndexName": "ab", "KeySchema": ks(("a", "HASH"), ("b", "HASH")),
                                                  "Projection": {"ProjectionType": "KEYS_ONLY"}}}])
    g = call("DescribeTable", TableName=name)["Table"]["GlobalSecondaryIndexes"][0]
    assert g["IndexStatus"] == "ACTIVE" and g["ItemCount"] == 10
    page = call("Query", TableName=name, IndexName="ab", KeyConditionExpression="a = :a AND b = :b",
                ExpressionAttributeValues=qv(a=S("a0"), b=N(0)))
    assert sorted(i["pk"]["S"] for i in page["Items"]) == ["p0", "p6"]


def test_wire_accepts_multi_attribute_keys(ddb: Any) -> None:
    name = f"multi-wire-{next(_names)}"
    ddb.create_table(TableName=name, KeySchema=ks(("pk", "HASH")), BillingMode="PAY_PER_REQUEST",
                     AttributeDefinitions=ad(pk="S", h1="S", h2="N", r1="S", r2="N"),
                     GlobalSecondaryIndexes=[{"IndexName": "multi", "KeySchema": MULTI,
                                              "Projection": {"ProjectionType": "ALL"}}])
    ddb.put_item(TableName=name, Item={"pk": S("p"), "h1": S("a"), "h2": N(1), "r1": S("x"), "r2": N(2)})
    page = ddb.query(TableName=name, IndexName="multi", KeyConditionExpression="h1 = :a AND h2 = :n AND r1 = :x",
                     ExpressionAttributeValues=qv(a=S("a"), n=N(1), x=S("x")))
    assert page["Count"] == 1
    ddb.delete_table(TableName=name)


def test_table_key_schema_keeps_two_elements(ddb: Any) -> None:
    with pytest.raises(ClientError) as info:
        ddb.create_table(TableName=f"multi-wire-{next(_names)}", BillingMode="PAY_PER_REQUEST",
                         KeySchema=ks(("a", "HASH"), ("b", "RANGE"), ("c", "RANGE")),
                         AttributeDefinitions=ad(a="S", b="S", c="S"))
    assert "at 'keySchema' failed to satisfy constraint: Member must have length less than or equal to 2" in str(
        info.value)
