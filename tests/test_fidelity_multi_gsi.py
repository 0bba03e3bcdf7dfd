"""Issue 12, multi-attribute GSI keys over HTTP: duplicates, hash attributes all with `=`,
range attributes left to right, base-table keys as GSI range attributes, KeySchema order."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import N, S, assert_validation

KS = [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]
AD = [{"AttributeName": n, "AttributeType": t} for n, t in (("pk", "S"), ("sk", "N"), ("h1", "S"), ("h2", "N"),
                                                             ("r1", "S"))]
GSI_KS = [{"AttributeName": "h1", "KeyType": "HASH"}, {"AttributeName": "h2", "KeyType": "HASH"},
          {"AttributeName": "r1", "KeyType": "RANGE"}, {"AttributeName": "pk", "KeyType": "RANGE"}]



@pytest.fixture
def multi(ddb: Any, make_table: Any) -> str:
    name = make_table()  # only to register cleanup of a name; the real table is created below
    ddb.delete_table(TableName=name)
    ddb.create_table(TableName=name, KeySchema=KS, AttributeDefinitions=AD, BillingMode="PAY_PER_REQUEST",
                     GlobalSecondaryIndexes=[{"IndexName": "multi", "KeySchema": GSI_KS,
                                              "Projection": {"ProjectionType": "ALL"}}])
    ddb.put_item(TableName=name, Item={"pk": S("p1"), "sk": N(1), "h1": S("a"), "h2": N(1), "r1": S("x")})
    ddb.put_item(TableName=name, Item={"pk": S("p2"), "sk": N(1), "h1": S("a"), "h2": N(1), "r1": S("x")})
    return name


def test_key_schema_order_and_base_keys_as_range_attributes(ddb: Any, multi: str) -> None:
    index = ddb.describe_table(TableName=multi)["Table"]["GlobalSecondaryIndexes"][0]
    assert index["KeySchema"] == GSI_KS
    out = ddb.query(TableName=multi, IndexName="multi", KeyConditionExpression="h1 = :a AND h2 = :n AND r1 = :x "
                    "AND pk = :p", ExpressionAttributeValues={":a": S("a"), ":n": N(1), ":x": S("x"), ":p": S("p2")})
    assert [i["pk"] for i in out["Items"]] == [S("p2")]


def _query(ddb: Any, table: str, expression: str, **values: dict[str, Any]) -> Any:
    return ddb.query(TableName=table, IndexName="multi", KeyConditionExpression=expression,
                     ExpressionAttributeValues={f":{k}": v for k, v in values.items()})


@pytest.mark.parametrize("expression", ["h1 = :a AND h2 > :n", "h1 = :a AND h2 BETWEEN :n AND :n",
                                        "begins_with(h1, :a) AND h2 = :n"])
def test_hash_attributes_need_equality(ddb: Any, multi: str, expression: str) -> None:
    assert_validation("Query key condition not supported", _query, ddb, multi, expression, a=S("a"), n=N(1))


def test_every_hash_attribute_is_required(ddb: Any, multi: str) -> None:
    assert_validation("Query condition missed key schema element: h2", _query, ddb, multi, "h1 = :a", a=S("a"))


def test_range_attributes_left_to_right(ddb: Any, multi: str) -> None:
    assert_validation("RANGE key attributes r1 must have equality conditions specified in the query because a "
                      "condition is present on key attribute pk", _query, ddb, multi,
                      "h1 = :a AND h2 = :n AND pk = :p", a=S("a"), n=N(1), p=S("p1"))


def test_legacy_key_conditions_work_as_on_any_gsi(ddb: Any, multi: str) -> None:
    # The service accepts KeyConditions on a multi-attribute GSI (measured: scylladb/scylladb#31393).
    out = ddb.query(TableName=multi, IndexName="multi", KeyConditions={
        "h1": {"ComparisonOperator": "EQ", "AttributeValueList": [S("a")]},
        "h2": {"ComparisonOperator": "EQ", "AttributeValueList": [N(1)]}})
    assert out["Count"] == 2


@pytest.mark.parametrize("schema", [
    [{"AttributeName": "h1", "KeyType": "HASH"}, {"AttributeName": "h1", "KeyType": "HASH"}],
    [{"AttributeName": "h1", "KeyType": "HASH"}, {"AttributeName": "r1", "KeyType": "RANGE"},
     {"AttributeName": "r1", "KeyType": "RANGE"}],
])
def test_duplicate_key_attributes(raw: Any, schema: list[dict[str, str]]) -> None:
    assert_validation("The KeySchema contains multiple key attributes with the same name", raw.create_table,
                      TableName="dup-gsi", KeySchema=KS,
                      AttributeDefinitions=[d for d in AD if d["AttributeName"] in {"pk", "sk"} | {e["AttributeName"] for e in schema}],
                      BillingMode="PAY_PER_REQUEST", GlobalSecondaryIndexes=[
                          {"IndexName": "gdup", "KeySchema": schema, "Projection": {"ProjectionType": "ALL"}}])
