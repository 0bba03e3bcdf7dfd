"""Vector search as the service answers it (issue 36 §8): billing at 4 bytes per dimension,
VectorWriteRequestBytes' floor of 1,024 per index, SearchVectors' messages, and the shape
errors of the newer front end that serves SearchVectors (sent raw: boto3's own checks off,
or over plain HTTP for what botocore cannot send)."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from tests.helpers import assert_error, assert_validation
from tests.test_fidelity24b_wire import post
from tests.test_vectors import create, qv, vector_index

SER = "com.amazon.coral.service#SerializationException"
# long number texts: their item size would be far above 4 bytes per dimension
LONG = "0.12345678901234567"


def _long_vector(dims: int) -> dict[str, Any]:
    return {"L": [{"N": LONG} for _ in range(dims)]}


def _units(ddb: Any, table: str, item: dict[str, Any]) -> float:
    return ddb.put_item(TableName=table, Item=item, ReturnConsumedCapacity="TOTAL")["ConsumedCapacity"]["CapacityUnits"]


@pytest.mark.parametrize("dims", [6, 3])
def test_a_vector_is_billed_at_four_bytes_per_dimension(ddb: Any, dims: int) -> None:
    """pk "a" (2 + 1) + "emb" (3) + 4 x dims + "pad" (3) + the pad's bytes: 1,024 bytes is 1
    write unit, one byte more is 2, whatever numbers the vector holds."""
    t = create(ddb, vector_index(dims=dims, projection="KEYS_ONLY"))
    fixed = 3 + 3 + 4 * dims + 3
    at = {"pk": {"S": "a"}, "emb": _long_vector(dims), "pad": {"S": "x" * (1024 - fixed)}}
    assert _units(ddb, t, at) == 1.0
    over = {**at, "pad": {"S": "x" * (1025 - fixed)}}
    assert _units(ddb, t, over) == 2.0
    # an item whose list is not a vector of the index (wrong length is refused; no index on
    # "other"): billed by its own size
    plain = {"pk": {"S": "b"}, "other": _long_vector(dims), "pad": {"S": "x" * (1024 - fixed)}}
    assert _units(ddb, t, plain) == 2.0


def test_vector_write_request_bytes_floor_is_per_index(ddb: Any) -> None:
    t = create(ddb, vector_index(name="one", projection="KEYS_ONLY"), vector_index(name="two", projection="KEYS_ONLY"))
    out = ddb.put_item(TableName=t, Item={"pk": {"S": "a"}, "emb": {"L": qv(1, 0, 0)}},
                       ReturnConsumedCapacity="INDEXES")
    assert out["ConsumedCapacity"]["VectorIndexes"] == {"one": {"VectorWriteRequestBytes": 1024.0},
                                                        "two": {"VectorWriteRequestBytes": 1024.0}}
    # five small entries on each index in one request: the floor once per index
    out = ddb.batch_write_item(RequestItems={t: [{"PutRequest": {"Item": {"pk": {"S": f"b{i}"}, "emb": {"L": qv(1, i, 0)}}}}
                                                 for i in range(5)]}, ReturnConsumedCapacity="INDEXES")
    assert out["ConsumedCapacity"][0]["VectorIndexes"] == {"one": {"VectorWriteRequestBytes": 1024.0},
                                                           "two": {"VectorWriteRequestBytes": 1024.0}}
    # an entry above the floor reports its own size: pk (2 + 3) + "emb" 3 + 12 + "pad" 3 + 1,100
    t = create(ddb, vector_index(non_key=["pad"], projection="INCLUDE"))
    out = ddb.put_item(TableName=t, Item={"pk": {"S": "big"}, "emb": {"L": qv(1, 0, 0)}, "pad": {"S": "x" * 1100}},
                       ReturnConsumedCapacity="INDEXES")
    assert out["ConsumedCapacity"]["VectorIndexes"] == {"emb-idx": {"VectorWriteRequestBytes": float(5 + 15 + 1103)}}


def _search(raw: Any, table: str, **kw: Any) -> Any:
    return raw.search_vectors(**{"TableName": table, "IndexName": "emb-idx", "SearchVector": qv(1, 0, 0), "TopK": 3,
                                 **kw})


def test_search_vectors_messages(raw: Any) -> None:
    t = create(raw, vector_index(schema=[("color", "INLINE_FILTER")]), defs=[("color", "S")])
    assert_validation("Provided TopK value '101' is out of valid range. The value must be between 1 and 100 inclusive",
                      _search, raw, t, TopK=101)
    assert_validation("Input search vector dimension 2 does not match vector index dimension 3",
                      _search, raw, t, SearchVector=qv(1, 0))
    assert_validation("Search vector contains invalid values. All values in the search vector must be a 32-bit "
                      "floating-point number attribute", _search, raw, t, SearchVector=[{"L": qv(1, 0, 0)}])
    assert_validation("SearchConditionExpression must not contain any attributes that is not in SearchSchema. "
                      "Invalid attribute: tenant", _search, raw, t, SearchConditionExpression="tenant = :t",
                      ExpressionAttributeValues={":t": {"S": "x"}})
    for op in ("<", ">=", "<>"):
        assert_validation("Invalid SearchConditionExpression: Invalid comparator used in SearchConditionExpression",
                          _search, raw, t, SearchConditionExpression=f"color {op} :c",
                          ExpressionAttributeValues={":c": {"S": "red"}})


def _shape_error(url: str, body: dict[str, Any]) -> str:
    status, _, data = post(url, "SearchVectors", body)
    answer = json.loads(data)
    assert (status, answer["__type"]) == (400, SER), answer
    return answer["Message"]


def test_a_missing_table_name_is_a_missing_field_before_a_short_index_name(server_url: str) -> None:
    body = {"IndexName": "ab", "SearchVector": qv(1, 0, 0), "TopK": 3}
    message = _shape_error(server_url, body)
    assert re.fullmatch(r"missing field `TableName` at line 1 column \d+", message)
    assert message == f"missing field `TableName` at line 1 column {len(json.dumps(body))}"
    assert _shape_error(server_url, {"TableName": "t", "IndexName": "abc", "TopK": 3}) == \
        "missing field `SearchVector` at line 1 column 49"


@pytest.mark.parametrize(("member", "expected"), [
    ("TableName", "a string"), ("IndexName", "a string"), ("SearchVector", "a sequence"), ("TopK", "i32"),
])  # fmt: skip
def test_an_explicit_null_member_is_a_serialization_exception(server_url: str, member: str, expected: str) -> None:
    body: dict[str, Any] = {"TableName": "t", "IndexName": "abc", "SearchVector": qv(1, 0, 0), "TopK": 3}
    body[member] = None
    before = json.dumps(body).split("null")[0] + "null"
    assert _shape_error(server_url, body) == f"invalid type: null, expected {expected} at line 1 column {len(before)}"


def test_other_operations_take_a_null_member_as_absent(raw: Any, ddb: Any) -> None:
    """The older front end: a null ReturnConsumedCapacity is no ReturnConsumedCapacity."""
    t = create(ddb)
    assert_error("ResourceNotFoundException", "Requested resource not found", raw.scan, TableName="no-such-table",
                 ReturnConsumedCapacity=None)
    assert raw.scan(TableName=t, ReturnConsumedCapacity=None)["Count"] == 0
