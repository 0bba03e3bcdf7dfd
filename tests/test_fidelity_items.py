"""Issue 12, items and expressions: DynamoDB's exact answers at the edges, over HTTP.

Requests go through a boto3 client without its own parameter checks (``raw``) so the
server's answer is the one asserted. Sources are cited by each rule in the engine.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import N, S, assert_validation

CE = "Invalid ConditionExpression: "
FE = "Invalid FilterExpression: "
INVALID = "One or more parameter values were invalid: "



def _operand(op: str, type_name: str) -> str:
    return f"Incorrect operand type for operator or function; operator or function: {op}, operand type: {type_name}"


# --- ordering against a value of an unorderable type ------------------------------------------

UNORDERABLE = [
    ("a < :v", {":v": {"L": [N(1)]}}, _operand("<", "L")),
    ("a <= :v", {":v": {"M": {}}}, _operand("<=", "M")),
    ("a > :v", {":v": {"SS": ["x"]}}, _operand(">", "SS")),
    ("a >= :v", {":v": {"BOOL": True}}, _operand(">=", "BOOL")),
    (":v < a", {":v": {"NULL": True}}, _operand("<", "NULL")),
    ("a BETWEEN :v AND :w", {":v": {"NS": ["1"]}, ":w": N(2)}, _operand("BETWEEN", "NS")),
]


@pytest.mark.parametrize(("expression", "values", "message"), UNORDERABLE)
def test_ordering_against_unorderable_value(ddb: Any, table: str, expression: str, values: dict[str, Any],
                                            message: str) -> None:
    assert_validation(CE + message, ddb.put_item, TableName=table, Item={"pk": S("o")},
                      ConditionExpression=expression, ExpressionAttributeValues=values)


def test_ordering_unorderable_value_in_filter_of_empty_table(ddb: Any, table: str) -> None:
    assert_validation(FE + _operand(">", "L"), ddb.scan, TableName=table, FilterExpression="a > :v",
                      ExpressionAttributeValues={":v": {"L": []}})


def test_ordering_against_unorderable_attribute_is_false(ddb: Any, table: str) -> None:
    ddb.put_item(TableName=table, Item={"pk": S("o"), "l": {"L": [N(1)]}, "n": N(1)})
    out = ddb.scan(TableName=table, FilterExpression="l > n OR l < :v", ExpressionAttributeValues={":v": N(5)})
    assert out["Count"] == 0 and out["ScannedCount"] == 1


# --- legacy Expected / filters ----------------------------------------------------------------

def _expected(op: str, *values: dict[str, Any]) -> dict[str, Any]:
    return {"a": {"ComparisonOperator": op, "AttributeValueList": list(values)}}


LEGACY_TYPES = [
    (_expected("LE", {"L": []}), INVALID + "ComparisonOperator LE is not valid for L AttributeValue type"),
    (_expected("GT", {"BOOL": True}), INVALID + "ComparisonOperator GT is not valid for BOOL AttributeValue type"),
    (_expected("CONTAINS", {"M": {}}), INVALID + "ComparisonOperator CONTAINS is not valid for M AttributeValue type"),
    (_expected("NOT_CONTAINS", {"SS": ["x"]}),
     INVALID + "ComparisonOperator NOT_CONTAINS is not valid for SS AttributeValue type"),
    (_expected("BEGINS_WITH", N(1)), INVALID + "ComparisonOperator BEGINS_WITH is not valid for N AttributeValue type"),
    (_expected("IN", {"L": []}), INVALID + "ComparisonOperator IN is not valid for L AttributeValue type"),
    (_expected("BETWEEN", {"M": {}}, {"M": {}}),
     INVALID + "ComparisonOperator BETWEEN is not valid for M AttributeValue type"),
    (_expected("LE", S("a"), S("b")), INVALID + "Invalid number of argument(s) for the LE ComparisonOperator"),
    (_expected("IN"), INVALID + "Invalid number of argument(s) for the IN ComparisonOperator"),
    (_expected("BETWEEN", N(1)), INVALID + "Invalid number of argument(s) for the BETWEEN ComparisonOperator"),
    (_expected("NULL", N(1)), INVALID + "Invalid number of argument(s) for the NULL ComparisonOperator"),
]


@pytest.mark.parametrize(("expected", "message"), LEGACY_TYPES)
def test_expected_argument_rules(raw: Any, table: str, expected: dict[str, Any], message: str) -> None:
    # the Expected family, in PutItem's envelope (issue 36)
    assert_validation("1 validation error detected: " + message, raw.put_item, TableName=table, Item={"pk": S("x")},
                      Expected=expected)


@pytest.mark.parametrize("parameter", ["ScanFilter"])
def test_filter_argument_rules(raw: Any, table: str, parameter: str) -> None:
    assert_validation(INVALID + "ComparisonOperator GE is not valid for SS AttributeValue type", raw.scan,
                      TableName=table, **{parameter: _expected("GE", {"SS": ["x"]})})


@pytest.mark.parametrize("value", [{"BOOL": True}, {"L": [N(1)]}, {"M": {"k": S("v")}}, {"NULL": True}])
def test_eq_and_ne_accept_every_type(ddb: Any, table: str, value: dict[str, Any]) -> None:
    ddb.put_item(TableName=table, Item={"pk": S("e"), "a": value})
    ddb.put_item(TableName=table, Item={"pk": S("e"), "a": value}, Expected=_expected("EQ", value))
    ddb.put_item(TableName=table, Item={"pk": S("e"), "a": value}, Expected={"b": {
        "ComparisonOperator": "NE", "AttributeValueList": [value]}})
    out = ddb.scan(TableName=table, ScanFilter=_expected("EQ", value))
    assert out["Count"] == 1


def test_conditional_operator_without_conditions(raw: Any, table: str) -> None:
    message = "ConditionalOperator cannot be used without Filter or Expected"
    assert_validation(message, raw.put_item, TableName=table, Item={"pk": S("x")}, ConditionalOperator="AND")
    assert_validation(message, raw.scan, TableName=table, ConditionalOperator="OR")


def test_conditional_operator_needs_two_conditions(raw: Any, table: str) -> None:
    message = "ConditionalOperator can only be used when Filter or Expected has two or more elements"
    assert_validation(message, raw.put_item, TableName=table, Item={"pk": S("x")}, ConditionalOperator="AND",
                      Expected={"a": {"Exists": False}})
    assert_validation(message, raw.scan, TableName=table, ConditionalOperator="OR",
                      ScanFilter={"a": {"ComparisonOperator": "NULL"}})


# --- UpdateItem on a missing item -------------------------------------------------------------

@pytest.mark.parametrize("update", [
    {"UpdateExpression": "REMOVE a, b"},
    {"UpdateExpression": "REMOVE a.b, c[1]"},  # nested paths of an item that does not exist
    {"AttributeUpdates": {"a": {"Action": "DELETE"}}},
    {"UpdateExpression": "DELETE s :v", "ExpressionAttributeValues": {":v": {"SS": ["x"]}}},
])
@pytest.mark.parametrize("rv", ["ALL_NEW", "UPDATED_NEW", "ALL_OLD"])
def test_update_leaving_only_the_key_creates_nothing(ddb: Any, table: str, update: dict[str, Any], rv: str) -> None:
    out = ddb.update_item(TableName=table, Key={"pk": S("ghost")}, ReturnValues=rv, **update)
    assert "Attributes" not in out
    assert "Item" not in ddb.get_item(TableName=table, Key={"pk": S("ghost")}, ConsistentRead=True)


def test_update_without_actions_still_creates_the_item(ddb: Any, table: str) -> None:
    ddb.update_item(TableName=table, Key={"pk": S("bare")})
    assert ddb.get_item(TableName=table, Key={"pk": S("bare")}, ConsistentRead=True)["Item"] == {"pk": S("bare")}


def test_update_of_existing_item_removing_everything_keeps_it(ddb: Any, table: str) -> None:
    ddb.put_item(TableName=table, Item={"pk": S("k"), "a": N(1)})
    ddb.update_item(TableName=table, Key={"pk": S("k")}, UpdateExpression="REMOVE a")
    assert ddb.get_item(TableName=table, Key={"pk": S("k")}, ConsistentRead=True)["Item"] == {"pk": S("k")}


# --- UpdateExpression -------------------------------------------------------------------------

UE = "Invalid UpdateExpression: "


@pytest.mark.parametrize(("expression", "values", "message"), [
    ("SET a = foo(b)", {}, UE + "Invalid function name; function: foo"),
    ("SET a-b = :v", {":v": N(1)}, UE + 'Syntax error; token: "-", near: "a-b"'),
    ("SET a = if_not_exists(if_not_exists(b, :v), :v)", {":v": N(1)},
     UE + "Operator or function requires a document path; operator or function: if_not_exists"),
])
def test_update_expression_errors(ddb: Any, table: str, expression: str, values: dict[str, Any], message: str) -> None:
    kwargs: dict[str, Any] = {"ExpressionAttributeValues": values} if values else {}
    assert_validation(message, ddb.update_item, TableName=table, Key={"pk": S("u")}, UpdateExpression=expression,
                      **kwargs)


def test_arithmetic_out_of_range(ddb: Any, table: str) -> None:
    ddb.put_item(TableName=table, Item={"pk": S("n"), "n": N("9.9999999999999999999999999999999999999E+125")})
    assert_validation("Number overflow. Attempting to store a number with magnitude larger than supported range",
                      ddb.update_item, TableName=table, Key={"pk": S("n")}, UpdateExpression="SET n = n + :v",
                      ExpressionAttributeValues={":v": N("1E+125")})


def test_updated_new_with_nested_paths(ddb: Any, table: str) -> None:
    ddb.put_item(TableName=table, Item={"pk": S("m"), "m": {"M": {"x": N(1), "z": N(1), "l": {"L": [N(1), N(2)]}}}})
    out = ddb.update_item(TableName=table, Key={"pk": S("m")}, UpdateExpression="SET m.x = :v, m.l[1] = :v",
                          ExpressionAttributeValues={":v": N(5)}, ReturnValues="UPDATED_NEW")
    assert out["Attributes"] == {"m": {"M": {"x": N(5), "l": {"L": [N(5)]}}}}
    out = ddb.update_item(TableName=table, Key={"pk": S("m")}, UpdateExpression="REMOVE m.z",
                          ReturnValues="UPDATED_NEW")
    assert "Attributes" not in out
    out = ddb.update_item(TableName=table, Key={"pk": S("m")}, UpdateExpression="SET m.q = :v",
                          ExpressionAttributeValues={":v": N(7)}, ReturnValues="ALL_NEW")
    assert out["Attributes"] == {"pk": S("m"), "m": {"M": {"x": N(5), "q": N(7), "l": {"L": [N(1), N(5)]}}}}


def test_deeply_nested_parentheses_with_or(ddb: Any, table: str) -> None:
    ddb.put_item(TableName=table, Item={"pk": S("p"), "a": N(1)})
    expression = "(" * 40 + "a = :v" + " OR a = :w)" * 40
    out = ddb.scan(TableName=table, FilterExpression=expression, ExpressionAttributeValues={":v": N(1), ":w": N(2)})
    assert out["Count"] == 1


# --- table names before the lookup ------------------------------------------------------------

@pytest.mark.parametrize(("name", "message"), [
    ("t!x", "1 validation error detected: Value 't!x' at 'tableName' failed to satisfy constraint: "
            "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"),
    ("x" * 256, f"1 validation error detected: Value '{'x' * 256}' at 'tableName' failed to satisfy constraint: "
                "Member must have length less than or equal to 255"),
])
def test_item_operations_check_the_table_name_first(raw: Any, name: str, message: str) -> None:
    assert_validation(message, raw.get_item, TableName=name, Key={"pk": S("a")})
    assert_validation(message, raw.update_item, TableName=name, Key={"pk": S("a")})


def test_removing_a_nested_path_of_an_existing_item_without_its_parent(ddb: Any, table: str) -> None:
    ddb.put_item(TableName=table, Item={"pk": S("np"), "x": N(1)})
    assert_validation("The document path provided in the update expression is invalid for update", ddb.update_item,
                      TableName=table, Key={"pk": S("np")}, UpdateExpression="REMOVE a.b")
