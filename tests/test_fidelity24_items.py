"""Issue 24, items and updates: DynamoDB's answers at the remaining edges, over HTTP.

Raw clients (no boto3 parameter checks) reach the server; every error asserts its type and
full message. The rules and their sources are cited where the engine implements them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import B, L, M, N, S, assert_error, assert_validation

UE = "Invalid UpdateExpression: "
CE = "Invalid ConditionExpression: "
PE = "Invalid ProjectionExpression: "
EMPTY_NAME = "One or more parameter values were invalid: Empty attribute name"
OVERFLOW = "Number overflow. Attempting to store a number with magnitude larger than supported range"
PRECISION = "Attempting to store more than 38 significant digits in a Number"


def _get(raw: Any, table: str, pk: str) -> dict[str, Any] | None:
    return raw.get_item(TableName=table, Key={"pk": S(pk)}, ConsistentRead=True).get("Item")


# --- 1. an update of nothing creates the item with its key ---------------------------------------


@pytest.fixture
def gsi_table(ddb: Any) -> Iterator[str]:
    name = "fid24-gsi"
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
    )
    yield name
    ddb.delete_table(TableName=name)


@pytest.mark.parametrize("with_gsi", [False, True])
def test_empty_attribute_updates_create_the_item(raw: Any, table: str, gsi_table: str, with_gsi: bool) -> None:
    name = gsi_table if with_gsi else table
    out = raw.update_item(TableName=name, Key={"pk": S("a")}, AttributeUpdates={}, ReturnValues="ALL_NEW")
    assert out["Attributes"] == {"pk": S("a")}
    assert _get(raw, name, "a") == {"pk": S("a")}
    out = raw.update_item(TableName=name, Key={"pk": S("b")}, ReturnValues="ALL_NEW")  # no update at all
    assert out["Attributes"] == {"pk": S("b")}
    assert _get(raw, name, "b") == {"pk": S("b")}
    assert raw.scan(TableName=name, ConsistentRead=True)["Count"] == 2


@pytest.mark.parametrize("with_gsi", [False, True])
def test_an_update_that_only_removes_creates_nothing(raw: Any, table: str, gsi_table: str, with_gsi: bool) -> None:
    name = gsi_table if with_gsi else table
    out = raw.update_item(TableName=name, Key={"pk": S("r")}, UpdateExpression="REMOVE x, g", ReturnValues="ALL_NEW")
    assert "Attributes" not in out
    out = raw.update_item(TableName=name, Key={"pk": S("d")}, AttributeUpdates={"x": {"Action": "DELETE"}},
                          ReturnValues="ALL_NEW")
    assert "Attributes" not in out
    out = raw.update_item(TableName=name, Key={"pk": S("s")}, UpdateExpression="DELETE ss :v",
                          ExpressionAttributeValues={":v": {"SS": ["x"]}}, ReturnValues="ALL_NEW")
    assert "Attributes" not in out
    assert raw.scan(TableName=name, ConsistentRead=True)["Count"] == 0


# --- 2. REMOVE of a list element with UPDATED_NEW --------------------------------------------------


def test_remove_list_element_returns_the_element_shifted_into_place(raw: Any, table: str) -> None:
    raw.put_item(TableName=table, Item={"pk": S("l"), "a": M(c=L(N(50), N(60), N(70)), k=S("keep"))})
    out = raw.update_item(TableName=table, Key={"pk": S("l")}, UpdateExpression="REMOVE a.c[1]",
                          ReturnValues="UPDATED_NEW")
    assert out["Attributes"] == {"a": M(c=L(N(70)))}
    out = raw.update_item(TableName=table, Key={"pk": S("l")}, UpdateExpression="REMOVE a.c[1]",
                          ReturnValues="UPDATED_NEW")
    assert "Attributes" not in out  # [50]: nothing shifted into index 1
    out = raw.update_item(TableName=table, Key={"pk": S("l")}, UpdateExpression="REMOVE a.k",
                          ReturnValues="UPDATED_NEW")
    assert "Attributes" not in out  # a removed map member is absent from the new item
    assert _get(raw, table, "l") == {"pk": S("l"), "a": M(c=L(N(50)))}


# --- 3. empty attribute names ---------------------------------------------------------------------


def test_empty_name_in_attributes_to_get(raw: Any, table: str) -> None:
    raw.put_item(TableName=table, Item={"pk": S("e"), "a": S("x")})
    assert_validation(EMPTY_NAME, raw.get_item, TableName=table, Key={"pk": S("e")}, AttributesToGet=[""])
    assert_validation(EMPTY_NAME, raw.get_item, TableName=table, Key={"pk": S("e")}, AttributesToGet=["a", ""])
    assert_validation(EMPTY_NAME, raw.scan, TableName=table, AttributesToGet=[""])
    assert_validation(EMPTY_NAME, raw.batch_get_item,
                      RequestItems={table: {"Keys": [{"pk": S("e")}], "AttributesToGet": [""]}})


def test_empty_name_in_items_and_attribute_updates(raw: Any, table: str) -> None:
    # an item's empty name is said bare (issue 36)
    assert_validation("Empty attribute name", raw.put_item, TableName=table, Item={"pk": S("e"), "": S("x")})
    assert_validation(EMPTY_NAME, raw.update_item, TableName=table, Key={"pk": S("e")},
                      AttributeUpdates={"": {"Action": "PUT", "Value": S("x")}})
    assert _get(raw, table, "e") is None


def test_empty_name_in_legacy_conditions(raw: Any, table: str) -> None:
    # the Expected family, in PutItem's envelope (issue 36)
    assert_validation("1 validation error detected: " + EMPTY_NAME, raw.put_item, TableName=table, Item={"pk": S("e")},
                      Expected={"": {"Exists": False}})
    assert_validation(EMPTY_NAME, raw.scan, TableName=table, ScanFilter={"": {"ComparisonOperator": "NULL"}})
    assert_validation(EMPTY_NAME, raw.query, TableName=table,
                      KeyConditions={"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [S("e")]}},
                      QueryFilter={"": {"ComparisonOperator": "NULL"}})
    assert _get(raw, table, "e") is None


@pytest.mark.parametrize("where", ["projection", "update", "condition"])
def test_empty_name_behind_a_placeholder(raw: Any, table: str, where: str) -> None:
    message = "ExpressionAttributeNames contains invalid value: Empty attribute name for key #n"
    names = {"#n": ""}
    key = {"pk": S("e")}
    if where == "projection":
        assert_validation(message, raw.get_item, TableName=table, Key=key, ProjectionExpression="#n",
                          ExpressionAttributeNames=names)
    elif where == "update":
        assert_validation(message, raw.update_item, TableName=table, Key=key, UpdateExpression="SET #n = :v",
                          ExpressionAttributeNames=names, ExpressionAttributeValues={":v": N(1)})
    else:
        assert_validation(message, raw.put_item, TableName=table, Item=key,
                          ConditionExpression="attribute_not_exists(#n)", ExpressionAttributeNames=names)


# --- 4. list indexes in projections ---------------------------------------------------------------


def test_projection_index_past_the_list(raw: Any, table: str) -> None:
    raw.put_item(TableName=table, Item={"pk": S("p"), "a": L(N(1), N(2))})
    out = raw.get_item(TableName=table, Key={"pk": S("p")}, ProjectionExpression="a[999]")
    assert out["Item"] == {}
    out = raw.get_item(TableName=table, Key={"pk": S("p")}, ProjectionExpression="a[2147483647], a[1]")
    assert out["Item"] == {"a": L(N(2))}


@pytest.mark.parametrize("index", ["99999999999999", "2147483648"])
def test_projection_index_too_large_for_an_integer(raw: Any, table: str, index: str) -> None:
    raw.put_item(TableName=table, Item={"pk": S("p"), "a": L(N(1))})
    message = f"List index is not within the allowable range; index: [{index}]"
    assert_validation(PE + message, raw.get_item, TableName=table, Key={"pk": S("p")},
                      ProjectionExpression=f"a[{index}]")
    assert_validation(PE + message, raw.scan, TableName=table, ProjectionExpression=f"pk, m.a[{index}]")
    assert_validation(UE + message, raw.update_item, TableName=table, Key={"pk": S("p")},
                      UpdateExpression=f"SET a[{index}] = :v", ExpressionAttributeValues={":v": N(1)})


# --- 5. numbers: arithmetic is never rounded -------------------------------------------------------


@pytest.mark.parametrize(("expression", "values", "message"), [
    ("SET b = :v1 + :v2", {":v1": N("1e50"), ":v2": N(1)}, OVERFLOW),
    ("SET b = :v1 - :v2", {":v1": N("1e50"), ":v2": N(1)}, OVERFLOW),
    ("SET b = :v2 - :v1", {":v1": N("1e50"), ":v2": N(1)}, OVERFLOW),
    ("ADD n :v1", {":v1": N("1e50")}, OVERFLOW),  # n = 1
    # digits past the point keep the precision error (a 38-digit integer part plus a fraction)
    ("SET b = :v1 + :v2", {":v1": N("1E+37"), ":v2": N("1E-10")}, PRECISION),
])
def test_arithmetic_past_38_digits(raw: Any, table: str, expression: str, values: dict[str, Any],
                                   message: str) -> None:
    raw.put_item(TableName=table, Item={"pk": S("n"), "n": N(1)})
    assert_validation(message, raw.update_item, TableName=table, Key={"pk": S("n")}, UpdateExpression=expression,
                      ExpressionAttributeValues=values)
    assert _get(raw, table, "n") == {"pk": S("n"), "n": N(1)}


def test_exact_large_sums_are_stored(raw: Any, table: str) -> None:
    out = raw.update_item(TableName=table, Key={"pk": S("x")}, UpdateExpression="SET b = :v1 + :v2",
                          ExpressionAttributeValues={":v1": N("1e50"), ":v2": N("1e50")}, ReturnValues="UPDATED_NEW")
    assert out["Attributes"] == {"b": N("2" + "0" * 50)}


# --- 6. names and function names start with a letter ----------------------------------------------


@pytest.mark.parametrize(("expression", "token", "near"), [
    ("SET _123 = :v", "_", "SET _123"),
    ("SET 123a = :v", "123", "SET 123a"),
    ("SET a = _f(b)", "_", "= _f"),
    ("SET a.b_c = :v, _x = :v", "_", ", _x"),
])
def test_names_start_with_a_letter(raw: Any, table: str, expression: str, token: str, near: str) -> None:
    assert_validation(f'{UE}Syntax error; token: "{token}", near: "{near}"', raw.update_item, TableName=table,
                      Key={"pk": S("u")}, UpdateExpression=expression, ExpressionAttributeValues={":v": N(1)})


def test_underscores_inside_names_are_fine(raw: Any, table: str) -> None:
    out = raw.update_item(TableName=table, Key={"pk": S("u")}, UpdateExpression="SET a_1 = :v, b__ = :v",
                          ExpressionAttributeValues={":v": N(1)}, ReturnValues="ALL_NEW")
    assert out["Attributes"] == {"pk": S("u"), "a_1": N(1), "b__": N(1)}


def test_condition_name_starting_with_underscore(raw: Any, table: str) -> None:
    assert_validation(f'{CE}Syntax error; token: "_", near: "(_a"', raw.put_item, TableName=table,
                      Item={"pk": S("u")}, ConditionExpression="attribute_exists(_a)")


# --- 7. nested functions ---------------------------------------------------------------------------


def test_nested_functions_that_work(raw: Any, table: str) -> None:
    out = raw.update_item(
        TableName=table, Key={"pk": S("f")},
        UpdateExpression="SET a = list_append(if_not_exists(a, :v1), :v2), b = if_not_exists(b, if_not_exists(c, :v))",
        ExpressionAttributeValues={":v1": L(N(1)), ":v2": L(N(2)), ":v": N(3)}, ReturnValues="ALL_NEW",
    )
    assert out["Attributes"] == {"pk": S("f"), "a": L(N(1), N(2)), "b": N(3)}
    out = raw.update_item(
        TableName=table, Key={"pk": S("f")},
        UpdateExpression="SET a = list_append(if_not_exists(a, :v1), :v2), b = if_not_exists(b, if_not_exists(c, :v))",
        ExpressionAttributeValues={":v1": L(N(1)), ":v2": L(N(2)), ":v": N(4)}, ReturnValues="ALL_NEW",
    )
    assert out["Attributes"] == {"pk": S("f"), "a": L(N(1), N(2), N(2)), "b": N(3)}


@pytest.mark.parametrize("expression", [
    "SET a = list_append(list_append(:v1, :v2), :v3)",
    "SET a = list_append(:v1, list_append(:v2, :v3))",
    "SET a = list_append(:v1, (list_append(:v2, :v3)))",
])
def test_list_append_inside_list_append(raw: Any, table: str, expression: str) -> None:
    assert_validation(UE + "The function is not allowed to be used this way in an expression; function: list_append",
                      raw.update_item, TableName=table, Key={"pk": S("f")}, UpdateExpression=expression,
                      ExpressionAttributeValues={":v1": L(N(1)), ":v2": L(N(2)), ":v3": L(N(3))})
    assert _get(raw, table, "f") is None


# --- 8. expression depth: 300 operators, not a nesting limit ----------------------------------------


def _nested(depth: int) -> str:
    text = "a < b"
    for _ in range(depth):
        text = f"a < b OR ({text})"
    return text


def test_condition_of_299_operators_is_valid(raw: Any, table: str) -> None:
    raw.put_item(TableName=table, Item={"pk": S("d"), "a": N(2), "b": N(1)})
    text = _nested(149)  # 150 comparisons and 149 ORs, 149 groups deep
    with pytest.raises(ClientError) as info:
        raw.put_item(TableName=table, Item={"pk": S("d")}, ConditionExpression=text)
    assert info.value.response["Error"] == {"Code": "ConditionalCheckFailedException",
                                            "Message": "The conditional request failed"}
    raw.put_item(TableName=table, Item={"pk": S("d"), "a": N(1), "b": N(2)})
    raw.put_item(TableName=table, Item={"pk": S("d"), "a": N(1), "b": N(2), "w": N(1)}, ConditionExpression=text)
    assert _get(raw, table, "d") == {"pk": S("d"), "a": N(1), "b": N(2), "w": N(1)}
    out = raw.scan(TableName=table, FilterExpression=_nested(149), ConsistentRead=True)
    assert out["Count"] == 1


def test_condition_of_301_operators(raw: Any, table: str) -> None:
    assert_validation(CE + "The expression contains too many operators; operator count: 301", raw.put_item,
                      TableName=table, Item={"pk": S("d")}, ConditionExpression=_nested(150))
    assert_validation(CE + "The expression contains too many operators; operator count: 301", raw.put_item,
                      TableName=table, Item={"pk": S("d")}, ConditionExpression="NOT " * 300 + "a < b")


def test_299_nots_are_valid(raw: Any, table: str) -> None:
    raw.put_item(TableName=table, Item={"pk": S("d")}, ConditionExpression="NOT " * 298 + "attribute_not_exists(a)")
    assert _get(raw, table, "d") == {"pk": S("d")}


# --- 9. Expected NOT_CONTAINS -----------------------------------------------------------------------
#
# The API reference's ComparisonOperator (Condition, ExpectedAttributeValue): NOT_CONTAINS is true
# when a string holds no such substring, a binary no such subsequence, a set no such member, a
# list no such element; a type that cannot contain the value does not contain it; a missing
# attribute fails the condition.

STORED = {
    "pk": S("c"), "s": S("hello"), "b": B(b"\x01\x02\x03"), "n": N(12), "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2"]}, "bs": {"BS": [b"\x01"]}, "l": L(S("x"), N(1)), "m": M(x=S("x")),
    "t": {"BOOL": True}, "z": {"NULL": True},
}
NOT_CONTAINS = [
    ("s", S("ell"), False), ("s", S("xyz"), True), ("s", N(1), True), ("s", B(b"h"), True),
    ("b", B(b"\x02\x03"), False), ("b", B(b"\x03\x02"), True), ("b", S("a"), True),
    ("n", N(1), True), ("n", N(12), True), ("n", S("1"), True),
    ("ss", S("a"), False), ("ss", S("c"), True), ("ss", N(1), True),
    ("ns", N(1), False), ("ns", N("1.0"), False), ("ns", N(3), True), ("ns", S("1"), True),
    ("bs", B(b"\x01"), False), ("bs", B(b"\x02"), True),
    ("l", S("x"), False), ("l", N(1), False), ("l", S("y"), True), ("l", S("1"), True),
    ("m", S("x"), True), ("t", S("true"), True), ("z", S("x"), True),
    ("missing", S("x"), False),
]


@pytest.mark.parametrize(("name", "value", "holds"), NOT_CONTAINS,
                         ids=[f"{n}-{list(v)[0]}-{h}" for n, v, h in NOT_CONTAINS])
def test_expected_not_contains(raw: Any, table: str, name: str, value: dict[str, Any], holds: bool) -> None:
    raw.put_item(TableName=table, Item=STORED)
    expected = {name: {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [value]}}
    if holds:
        raw.put_item(TableName=table, Item={**STORED, "w": S("written")}, Expected=expected)
        assert _get(raw, table, "c")["w"] == S("written")  # type: ignore[index]
    else:
        assert_error("ConditionalCheckFailedException", "The conditional request failed", raw.put_item,
                     TableName=table, Item={**STORED, "w": S("written")}, Expected=expected)
        assert "w" not in _get(raw, table, "c")  # type: ignore[operator]
    out = raw.scan(TableName=table, ScanFilter=expected, ConsistentRead=True)
    assert out["Count"] == (1 if holds else 0)
