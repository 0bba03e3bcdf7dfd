"""Issue 24, Query and Scan start keys: key attributes of the wrong type, and a GSI start key
outside the queried partition. Raw clients reach the server; messages asserted in full."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import N, S, assert_validation

SCHEMA = "The provided starting key is invalid: The provided key element does not match the schema"
INVALID = "The provided starting key is invalid"
OUTSIDE = "The provided starting key is outside query boundaries based on provided condition"


@pytest.fixture(scope="module")
def indexed(ddb: Any) -> Iterator[str]:
    """pk (S) + sk (N), with GSIs on g (S) alone and on g + n (N); six items, g alternating."""
    name = "fid24-reads"
    defs = {"pk": "S", "sk": "N", "g": "S", "n": "N"}
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": k, "AttributeType": t} for k, t in defs.items()],
        GlobalSecondaryIndexes=[
            {"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
             "Projection": {"ProjectionType": "ALL"}},
            {"IndexName": "by-g-n", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"},
                                                  {"AttributeName": "n", "KeyType": "RANGE"}],
             "Projection": {"ProjectionType": "KEYS_ONLY"}},
        ],
    )  # fmt: skip
    for i in range(6):
        ddb.put_item(TableName=name, Item={"pk": S(f"p{i % 2}"), "sk": N(i), "g": S("G" if i % 2 else "H"), "n": N(i)})
    yield name
    ddb.delete_table(TableName=name)


def _query(raw: Any, table: str, start: dict[str, Any], index: str | None = None) -> Any:
    if index is None:
        kc: dict[str, Any] = {"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": S("p1")}}
    else:
        kc = {"IndexName": index, "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": S("G")}}
    return raw.query(TableName=table, ExclusiveStartKey=start, **kc)


# --- 12. ExclusiveStartKey attributes of the wrong type ----------------------------------------------

WRONG_TABLE_TYPES = [
    {"pk": N(1), "sk": N(1)},
    {"pk": S("p1"), "sk": S("1")},
    {"pk": {"SS": ["p1"]}, "sk": N(1)},
    {"pk": S("p1"), "sk": {"B": b"1"}},
]


@pytest.mark.parametrize("start", WRONG_TABLE_TYPES)
def test_table_start_key_of_the_wrong_type(raw: Any, indexed: str, start: dict[str, Any]) -> None:
    assert_validation(SCHEMA, _query, raw, indexed, start)
    assert_validation(SCHEMA, raw.scan, TableName=indexed, ExclusiveStartKey=start)


@pytest.mark.parametrize(("index", "start"), [
    ("by-g", {"pk": S("p1"), "sk": N(1), "g": N(1)}),
    ("by-g", {"pk": N(1), "sk": N(1), "g": S("G")}),
    ("by-g-n", {"pk": S("p1"), "sk": N(1), "g": S("G"), "n": S("1")}),
])
def test_index_start_key_of_the_wrong_type(raw: Any, indexed: str, index: str, start: dict[str, Any]) -> None:
    assert_validation(SCHEMA, _query, raw, indexed, start, index)
    assert_validation(SCHEMA, raw.scan, TableName=indexed, IndexName=index, ExclusiveStartKey=start)


def test_query_start_key_missing_an_attribute_keeps_its_message(raw: Any, indexed: str) -> None:
    assert_validation(INVALID, _query, raw, indexed, {"pk": S("p1")})
    assert_validation(INVALID, _query, raw, indexed, {"pk": S("p1"), "sk": N(1)}, "by-g")
    assert_validation(SCHEMA, raw.scan, TableName=indexed, ExclusiveStartKey={"pk": S("p1")})


def test_start_keys_of_the_right_type_page_on(raw: Any, indexed: str) -> None:
    out = _query(raw, indexed, {"pk": S("p1"), "sk": N(1)})
    assert [i["sk"] for i in out["Items"]] == [N(3), N(5)]
    out = _query(raw, indexed, {"pk": S("p1"), "sk": N(1), "g": S("G"), "n": N(1)}, "by-g-n")
    assert [i["n"] for i in out["Items"]] == [N(3), N(5)]


# --- 13. a GSI start key outside the queried partition ------------------------------------------------


@pytest.mark.parametrize(("index", "start"), [
    (None, {"pk": S("p0"), "sk": N(0)}),
    ("by-g", {"pk": S("p0"), "sk": N(0), "g": S("H")}),
    ("by-g", {"pk": S("zz"), "sk": N(9), "g": S("no such partition")}),
    ("by-g-n", {"pk": S("p0"), "sk": N(0), "g": S("H"), "n": N(0)}),
])
def test_start_key_outside_the_queried_partition(raw: Any, indexed: str, index: str | None,
                                                 start: dict[str, Any]) -> None:
    assert_validation(OUTSIDE, _query, raw, indexed, start, index)
