"""Issue 36 §2 and §7: member-constraint messages and their order, BatchGetItem's own checks,
Query's key-condition messages, as the service answers them (the issue's quotes, captured in
October 2026, are the spec). Raw requests: boto3's own parameter checks would hide them.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import N, S, assert_validation

ENV = "1 validation error detected: "
TABLE_KEYS = ("Map keys must satisfy constraint: [Member must have length less than or equal to 255, Member must "
              "have length greater than or equal to 3, Member must satisfy regular expression pattern: "
              "[a-zA-Z0-9_.-]+]")
ENUM_RCC = "Member must satisfy enum value set: [INDEXES, TOTAL, NONE]"
ENUM_OPERATOR = "Member must satisfy enum value set: [OR, AND]"
ENUM_RV = "Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]"
ENUM_RICM = "Member must satisfy enum value set: [SIZE, NONE]"
NOT_NULL = "Member must not be null"


def fail(value: str | None, path: str, rule: str) -> str:
    shown = "null" if value is None else f"'{value}'"
    return f"Value {shown} at '{path}' failed to satisfy constraint: {rule}"


def errors(*details: str) -> str:
    n = len(details)
    return f"{n} validation error{'s' if n > 1 else ''} detected: " + "; ".join(details)


# --- BatchGetItem ------------------------------------------------------------------------------------


def test_batch_get_empty_keys(raw: Any, table: str) -> None:
    assert_validation(ENV + f"Value at 'RequestItems.{table}.member.Keys' failed to satisfy constraint: Member must "
                      "have length greater than or equal to 1", raw.batch_get_item, RequestItems={table: {"Keys": []}})


def test_batch_get_empty_request_items(raw: Any) -> None:
    assert_validation(ENV + "Value at 'RequestItems' failed to satisfy constraint: Member must have length greater "
                      "than or equal to 1", raw.batch_get_item, RequestItems={})


def test_batch_get_malformed_table_name_prints_the_map_as_json(raw: Any) -> None:
    request = {"bad!name": {"Keys": [{"pk": S("a")}]}}
    shown = '{"bad!name":{"Keys":[{"pk":{"S":"a"}}]}}'
    assert_validation(errors(fail(shown, "requestItems", TABLE_KEYS)), raw.batch_get_item, RequestItems=request)
    # reported together with an unknown ReturnConsumedCapacity, the map first
    assert_validation(errors(fail(shown, "requestItems", TABLE_KEYS), fail("BOGUS", "returnConsumedCapacity", ENUM_RCC)),
                      raw.batch_get_item, RequestItems=request, ReturnConsumedCapacity="BOGUS")


def test_batch_get_refuses_two_kinds_of_projection(raw: Any, make_table: Any) -> None:
    a, b = make_table(), make_table()
    raw.put_item(TableName=a, Item={"pk": S("k"), "x": S("1")})
    assert_validation("Can not use both expression and non-expression parameters in the same request: "
                      "Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}",
                      raw.batch_get_item, RequestItems={a: {"Keys": [{"pk": S("k")}], "ProjectionExpression": "x"},
                                                        b: {"Keys": [{"pk": S("k")}], "AttributesToGet": ["x"]}})
    # one kind in every table is served
    out = raw.batch_get_item(RequestItems={a: {"Keys": [{"pk": S("k")}], "AttributesToGet": ["x"]},
                                           b: {"Keys": [{"pk": S("k")}], "AttributesToGet": ["x"]}})
    assert out["Responses"] == {a: [{"x": S("1")}], b: []}


def test_batch_write_reports_an_unknown_return_consumed_capacity_alone(raw: Any) -> None:
    request = {"bad!name": [{"PutRequest": {"Item": {"pk": S("a")}}}]}
    assert_validation(errors(fail("BOGUS", "returnConsumedCapacity", ENUM_RCC)), raw.batch_write_item,
                      RequestItems=request, ReturnConsumedCapacity="BOGUS")
    # alone, the table name is reported, its map as JSON
    assert_validation(errors(fail('{"bad!name":[{"PutRequest":{"Item":{"pk":{"S":"a"}}}}]}', "requestItems",
                                  TABLE_KEYS)), raw.batch_write_item, RequestItems=request)


# --- the order of several member errors ------------------------------------------------------------


def test_update_item_member_order(raw: Any) -> None:
    two = {"a": {"Value": S("1")}, "b": {"Value": S("1")}}
    assert_validation(errors(fail("XOR", "conditionalOperator", ENUM_OPERATOR), fail(None, "key", NOT_NULL)),
                      raw.update_item, TableName="tbl", ConditionalOperator="XOR", Expected=two)
    assert_validation(errors(fail("XOR", "conditionalOperator", ENUM_OPERATOR),
                             fail("INVALID", "returnConsumedCapacity", ENUM_RCC),
                             fail("", "tableName", "Member must have length greater than or equal to 1"),
                             fail(None, "key", NOT_NULL)),
                      raw.update_item, TableName="", ConditionalOperator="XOR", Expected=two,
                      ReturnConsumedCapacity="INVALID")
    # the enums, an empty table name and the missing key, in member order
    assert_validation(errors(fail("INVALID", "returnConsumedCapacity", ENUM_RCC),
                             fail("", "tableName", "Member must have length greater than or equal to 1"),
                             fail(None, "key", NOT_NULL),
                             fail("INVALID", "returnItemCollectionMetrics", ENUM_RICM)),
                      raw.update_item, TableName="", ReturnConsumedCapacity="INVALID",
                      ReturnItemCollectionMetrics="INVALID")


def test_update_item_reports_the_first_enum_error_alone(raw: Any, table: str) -> None:
    key = {"pk": S("k")}
    assert_validation(errors(fail("BOGUS", "returnValues", ENUM_RV)), raw.update_item, TableName=table, Key=key,
                      ReturnValues="BOGUS")
    assert_validation(errors(fail("BOGUS", "returnConsumedCapacity", ENUM_RCC)), raw.update_item, TableName=table,
                      Key=key, ReturnValues="BOGUS", ReturnConsumedCapacity="BOGUS")
    assert_validation(errors(fail("XOR", "conditionalOperator", ENUM_OPERATOR)), raw.update_item, TableName=table,
                      Key=key, ReturnValues="BOGUS", ConditionalOperator="XOR")


def test_put_item_member_order(raw: Any) -> None:
    assert_validation(errors(fail("ab", "tableName", "Member must have length greater than or equal to 3")),
                      raw.put_item, TableName="ab", Item={"pk": S("a")}, ReturnValues="BOGUS")
    assert_validation(errors(fail(None, "item", NOT_NULL), fail("X", "returnConsumedCapacity", ENUM_RCC),
                             fail("X", "returnValues", ENUM_RV)),
                      raw.put_item, TableName="tbl", ReturnConsumedCapacity="X", ReturnValues="X")


def test_transact_write_reports_the_token_before_return_consumed_capacity(raw: Any, table: str) -> None:
    token = "x" * 37
    assert_validation(errors(fail(token, "clientRequestToken", "Member must have length less than or equal to 36"),
                             fail("BOGUS", "returnConsumedCapacity", ENUM_RCC)),
                      raw.transact_write_items, TransactItems=[{"Put": {"TableName": table, "Item": {"pk": S("k")}}}],
                      ClientRequestToken=token, ReturnConsumedCapacity="BOGUS")


@pytest.mark.parametrize(("lsi", "gsi"), [("l1", "g1"), ("aa", "zz")])
def test_create_table_lists_gsi_errors_before_lsi_errors(raw: Any, lsi: str, gsi: str) -> None:
    keys = [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}]
    index = {"Projection": {"ProjectionType": "ALL"}}
    assert_validation(
        errors(fail(gsi, "globalSecondaryIndexes.1.member.indexName", "Member must have length greater than or equal to 3"),
               fail(lsi, "localSecondaryIndexes.1.member.indexName", "Member must have length greater than or equal to 3")),
        raw.create_table, TableName="gsi-lsi-order", KeySchema=keys, BillingMode="PAY_PER_REQUEST",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "S"}],
        LocalSecondaryIndexes=[{"IndexName": lsi, "KeySchema": keys, **index}],
        GlobalSecondaryIndexes=[{"IndexName": gsi, "KeySchema": keys, **index}],
    )


def test_query_reports_the_conditional_operator_first(raw: Any, table: str) -> None:
    filters = {"a": {"ComparisonOperator": "NULL"}, "b": {"ComparisonOperator": "NULL"}}
    assert_validation("Failed to satisfy constraint: Member must satisfy enum value set: [ALL, OR]", raw.query,
                      TableName=table, KeyConditions={"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [S("k")]}},
                      QueryFilter=filters, ConditionalOperator="XOR", Select="BOGUS")


# --- Query key conditions (§7) ----------------------------------------------------------------------


def test_query_key_condition_messages(raw: Any, table: str, table_hr: str) -> None:
    assert_validation("One or more parameter values were invalid: Condition parameter type does not match schema type",
                      raw.query, TableName=table, KeyConditionExpression="pk = :v",
                      ExpressionAttributeValues={":v": {"BOOL": True}})
    assert_validation("The number of query conditions (3) exceeds the number of key attributes defined in the schema (2)",
                      raw.query, TableName=table_hr, KeyConditionExpression="pk = :p AND sk = :s AND c = :c",
                      ExpressionAttributeValues={":p": S("k"), ":s": N(1), ":c": N(1)})
    assert_validation("Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition per key",
                      raw.query, TableName=table_hr, KeyConditionExpression="pk = :p AND sk > :a AND sk < :b",
                      ExpressionAttributeValues={":p": S("k"), ":a": N(1), ":b": N(5)})


def test_query_conditional_operator_with_fewer_filter_conditions_keeps_corals_message(raw: Any, table: str) -> None:
    assert_validation(errors(fail("BOGUS", "select", "Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, "
                                  "ALL_ATTRIBUTES, ALL_PROJECTED_ATTRIBUTES]"),
                             fail("XOR", "conditionalOperator", ENUM_OPERATOR)),
                      raw.query, TableName=table, KeyConditions={"pk": {"ComparisonOperator": "EQ",
                                                                        "AttributeValueList": [S("k")]}},
                      QueryFilter={"a": {"ComparisonOperator": "NULL"}}, ConditionalOperator="XOR", Select="BOGUS")
