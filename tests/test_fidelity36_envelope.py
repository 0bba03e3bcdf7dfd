"""Issue 36 §1: which request errors DynamoDB answers inside the "1 validation error detected: "
envelope, and which bare (docs/rules.md, "The validation envelope"). The issue's quotes of the
service's answers (captured in October 2026) are the spec; every case asserts the error type
and the whole message, with a client that skips boto3's own parameter checks.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import N, S, assert_validation

ENV = "1 validation error detected: "
INVALID = "One or more parameter values were invalid: "
NAN = "The parameter cannot be converted to a numeric value"
OVER = "Number overflow. Attempting to store a number with magnitude larger than supported range"
UNDER = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
DUP_SS = INVALID + 'Input collection ["a", "b", "b"] contains duplicates.'
DUP_BS = INVALID + 'Input collection ["AA==","/w==","AA=="]of type BS contains duplicates.'
SS_DUP = {"SS": ["a", "b", "b"]}
BS_DUP = {"BS": [b"\x00", b"\xff", b"\x00"]}  # AA==, /w==, AA== on the wire
# a malformed number -> the current wording of its error
NUMBERS = [("abc", f"{NAN}: abc"), ("", f"{NAN}: "), ("1e126", OVER), ("1e-131", UNDER)]
KEY = {"pk": S("k")}


def _get(raw: Any, table: str) -> Any:
    return raw.get_item(TableName=table, Key=KEY, ConsistentRead=True).get("Item")


# --- the request checks of PutItem and DeleteItem -------------------------------------------------


@pytest.mark.parametrize("call", ["put_item", "delete_item"])
def test_values_or_names_without_an_expression(raw: Any, table: str, call: str) -> None:
    target = {"Item": KEY} if call == "put_item" else {"Key": KEY}
    # the whole message: no ": ConditionExpression is null" tail any more
    assert_validation(ENV + "ExpressionAttributeValues can only be specified when using expressions",
                      getattr(raw, call), TableName=table, ExpressionAttributeValues={":v": N(1)}, **target)
    assert_validation(ENV + "ExpressionAttributeNames can only be specified when using expressions",
                      getattr(raw, call), TableName=table, ExpressionAttributeNames={"#a": "a"}, **target)
    assert _get(raw, table) is None


@pytest.mark.parametrize("rv", ["ALL_NEW", "UPDATED_NEW", "UPDATED_OLD"])
def test_delete_return_values(raw: Any, table: str, rv: str) -> None:
    assert_validation(ENV + "ReturnValues can only be ALL_OLD or NONE", raw.delete_item, TableName=table, Key=KEY,
                      ReturnValues=rv)


@pytest.mark.parametrize("call", ["put_item", "delete_item"])
def test_empty_expression_and_empty_maps(raw: Any, table: str, call: str) -> None:
    target = {"Item": KEY} if call == "put_item" else {"Key": KEY}
    write = getattr(raw, call)
    assert_validation(ENV + "Invalid ConditionExpression: The expression can not be empty;", write,
                      TableName=table, ConditionExpression="", **target)
    assert_validation(ENV + "ExpressionAttributeValues must not be empty", write, TableName=table,
                      ConditionExpression="a = b", ExpressionAttributeValues={}, **target)
    assert_validation(ENV + "ExpressionAttributeNames must not be empty", write, TableName=table,
                      ConditionExpression="a = b", ExpressionAttributeNames={}, **target)


EXPECTED_ERRORS = [
    ({"a": {"Exists": True}}, "Value must be provided when Exists is true for Attribute: a"),
    ({"a": {"Exists": False, "Value": S("x")}}, "Value cannot be used when Exists is false for Attribute: a"),
    ({"a": {"Value": S("x"), "AttributeValueList": [S("x")], "ComparisonOperator": "EQ"}},
     "Value and AttributeValueList cannot be used together for Attribute: a"),
    ({"a": {"ComparisonOperator": "EQ"}},
     "Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: a"),
    ({"a": {"ComparisonOperator": "EQ", "AttributeValueList": [S("x"), S("y")]}},
     "Invalid number of argument(s) for the EQ ComparisonOperator"),
]


@pytest.mark.parametrize("call", ["put_item", "delete_item", "update_item"])
@pytest.mark.parametrize(("expected", "detail"), EXPECTED_ERRORS)
def test_every_malformed_expected_condition(raw: Any, table: str, call: str, expected: dict[str, Any],
                                            detail: str) -> None:
    target = {"Item": KEY} if call == "put_item" else {"Key": KEY}
    assert_validation(ENV + INVALID + detail, getattr(raw, call), TableName=table, Expected=expected, **target)
    assert _get(raw, table) is None


def test_undefined_value_beside_a_defined_one(raw: Any, table: str) -> None:
    assert_validation(ENV + "Invalid ConditionExpression: An expression attribute value used in expression is not "
                      "defined; attribute value: :v", raw.update_item, TableName=table, Key=KEY,
                      UpdateExpression="SET b = :w", ConditionExpression="a = :v",
                      ExpressionAttributeValues={":w": S("x")})


# --- number values, by operation and layer ------------------------------------------------------------


@pytest.mark.parametrize(("text", "message"), NUMBERS)
def test_put_item_numbers_in_the_envelope(raw: Any, table: str, text: str, message: str) -> None:
    for item in ({**KEY, "n": {"N": text}}, {**KEY, "ns": {"NS": ["1", text]}},
                 {**KEY, "m": {"M": {"x": {"L": [{"N": text}]}}}}):
        assert_validation(ENV + message, raw.put_item, TableName=table, Item=item)
    assert_validation(ENV + message, raw.put_item, TableName=table, Item=KEY, ConditionExpression="a = :v",
                      ExpressionAttributeValues={":v": {"N": text}})
    assert_validation(ENV + message, raw.put_item, TableName=table, Item=KEY,
                      Expected={"a": {"Value": {"N": text}}})
    assert _get(raw, table) is None  # nothing written


@pytest.mark.parametrize(("text", "message"), NUMBERS)
def test_delete_and_update_numbers_in_the_envelope(raw: Any, table_hr: str, text: str, message: str) -> None:
    key = {"pk": S("k"), "sk": {"N": text}}
    good = {"pk": S("k"), "sk": N(1)}
    assert_validation(ENV + message, raw.delete_item, TableName=table_hr, Key=key)
    assert_validation(ENV + message, raw.delete_item, TableName=table_hr, Key=good, ConditionExpression="a = :v",
                      ExpressionAttributeValues={":v": {"N": text}})
    assert_validation(ENV + message, raw.update_item, TableName=table_hr, Key=key)
    assert_validation(ENV + message, raw.update_item, TableName=table_hr, Key=good, UpdateExpression="SET a = :v",
                      ExpressionAttributeValues={":v": {"N": text}})
    assert_validation(ENV + message, raw.update_item, TableName=table_hr, Key=good,
                      AttributeUpdates={"a": {"Action": "PUT", "Value": {"N": text}}})
    assert_validation(ENV + message, raw.update_item, TableName=table_hr, Key=good,
                      Expected={"a": {"Value": {"N": text}}})
    assert "Item" not in raw.get_item(TableName=table_hr, Key=good, ConsistentRead=True)


@pytest.mark.parametrize(("text", "message"), NUMBERS)
def test_reads_answer_numbers_bare(raw: Any, table_hr: str, text: str, message: str) -> None:
    key = {"pk": S("k"), "sk": {"N": text}}
    assert_validation(message, raw.get_item, TableName=table_hr, Key=key)
    assert_validation(message, raw.batch_get_item, RequestItems={table_hr: {"Keys": [key]}})
    assert_validation(message, raw.query, TableName=table_hr, KeyConditionExpression="pk = :p AND sk = :s",
                      ExpressionAttributeValues={":p": S("k"), ":s": {"N": text}})
    assert_validation(message, raw.query, TableName=table_hr, KeyConditionExpression="pk = :p",
                      FilterExpression="a = :v", ExpressionAttributeValues={":p": S("k"), ":v": {"N": text}})
    assert_validation(message, raw.query, TableName=table_hr, KeyConditionExpression="pk = :p",
                      ExpressionAttributeValues={":p": S("k")}, ExclusiveStartKey=key)


def test_batch_write_answers_numbers_bare_in_the_older_wording(raw: Any, table: str) -> None:
    for text, message in [("abc", f"{NAN}: abc"), ("", NAN), ("1e126", OVER), ("1e-131", UNDER)]:
        assert_validation(message, raw.batch_write_item,
                          RequestItems={table: [{"PutRequest": {"Item": {**KEY, "n": {"N": text}}}}]})
        assert_validation(message, raw.batch_write_item,
                          RequestItems={table: [{"DeleteRequest": {"Key": {"pk": {"N": text}}}}]})
    assert _get(raw, table) is None


def test_transact_write_answers_a_value_bare_without_the_wrapper(raw: Any, table: str) -> None:
    assert_validation(OVER, raw.transact_write_items, TransactItems=[{"Update": {
        "TableName": table, "Key": KEY, "UpdateExpression": "SET a = :v",
        "ExpressionAttributeValues": {":v": {"N": "1e2147483647"}}}}])


# --- duplicate set members, by operation and layer ----------------------------------------------------


@pytest.mark.parametrize(("value", "message"), [(SS_DUP, DUP_SS), (BS_DUP, DUP_BS)])
def test_put_item_duplicates_in_the_envelope(raw: Any, table: str, value: dict[str, Any], message: str) -> None:
    assert_validation(ENV + message, raw.put_item, TableName=table, Item={**KEY, "s": value})
    assert_validation(ENV + message, raw.put_item, TableName=table, Item=KEY, ConditionExpression="a = :v",
                      ExpressionAttributeValues={":v": value})
    assert_validation(ENV + message, raw.put_item, TableName=table, Item=KEY, Expected={"a": {"Value": value}})
    assert _get(raw, table) is None


@pytest.mark.parametrize(("value", "message"), [(SS_DUP, DUP_SS), (BS_DUP, DUP_BS)])
def test_update_and_delete_duplicates_in_the_envelope(raw: Any, table: str, value: dict[str, Any],
                                                      message: str) -> None:
    assert_validation(ENV + message, raw.update_item, TableName=table, Key=KEY, ConditionExpression="a = :v",
                      ExpressionAttributeValues={":v": value})
    assert_validation(ENV + message, raw.update_item, TableName=table, Key=KEY,
                      AttributeUpdates={"a": {"Action": "PUT", "Value": value}})
    assert_validation(ENV + message, raw.update_item, TableName=table, Key={"pk": value})
    assert_validation(ENV + message, raw.delete_item, TableName=table, Key={"pk": value})
    assert _get(raw, table) is None


@pytest.mark.parametrize(("value", "message"), [(SS_DUP, DUP_SS), (BS_DUP, DUP_BS)])
def test_reads_answer_duplicates_bare(raw: Any, table: str, value: dict[str, Any], message: str) -> None:
    assert_validation(message, raw.get_item, TableName=table, Key={"pk": value})
    assert_validation(message, raw.batch_get_item, RequestItems={table: {"Keys": [{"pk": value}]}})
    assert_validation(message, raw.query, TableName=table, KeyConditionExpression="pk = :p",
                      ExpressionAttributeValues={":p": value})
    assert_validation(message, raw.query, TableName=table, KeyConditionExpression="pk = :p",
                      FilterExpression="a = :v", ExpressionAttributeValues={":p": S("k"), ":v": value})
    assert_validation(message, raw.query, TableName=table, KeyConditionExpression="pk = :p",
                      ExpressionAttributeValues={":p": S("k")}, ExclusiveStartKey={"pk": value})
    assert_validation(message, raw.query, TableName=table,
                      KeyConditions={"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [S("k")]}},
                      QueryFilter={"a": {"ComparisonOperator": "EQ", "AttributeValueList": [value]}})


def test_duplicates_are_printed_as_json_in_the_requests_order(raw: Any, table: str) -> None:
    assert_validation(ENV + INVALID + 'Input collection ["b", "a", "b", "x\\"y"] contains duplicates.',
                      raw.put_item, TableName=table, Item={**KEY, "s": {"SS": ["b", "a", "b", 'x"y']}})
