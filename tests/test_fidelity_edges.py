"""Issue 12, the last edges: empty attribute names, ProjectionExpression's nesting limit and
list indexes, empty legacy condition maps, UpdateTable's attribute definitions. Raw clients
(no boto3 parameter checks) reach the server; each message is asserted in full."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import N, S, assert_validation

EMPTY_NAME = "One or more parameter values were invalid: Empty attribute name"
PE = "Invalid ProjectionExpression: "


# --- empty attribute names ------------------------------------------------------------------------


def test_empty_attribute_name_in_an_item(raw: Any, table: str) -> None:
    item = {"pk": S("e"), "": S("x")}
    assert_validation("Empty attribute name", raw.put_item, TableName=table, Item=item)
    assert_validation("Empty attribute name", raw.batch_write_item, RequestItems={table: [{"PutRequest": {"Item": item}}]})
    assert_validation("Empty attribute name", raw.transact_write_items, TransactItems=[{"Put": {"TableName": table, "Item": item}}])
    assert "Item" not in raw.get_item(TableName=table, Key={"pk": S("e")}, ConsistentRead=True)


def test_empty_attribute_name_in_attribute_updates(raw: Any, table: str) -> None:
    assert_validation(EMPTY_NAME, raw.update_item, TableName=table, Key={"pk": S("e")},
                      AttributeUpdates={"": {"Action": "PUT", "Value": S("x")}})


@pytest.mark.parametrize("call", ["update", "get"])
def test_empty_attribute_name_in_expression_attribute_names(raw: Any, table: str, call: str) -> None:
    message = "ExpressionAttributeNames contains invalid value: Empty attribute name for key #a"
    if call == "update":
        assert_validation(message, raw.update_item, TableName=table, Key={"pk": S("e")}, UpdateExpression="SET #a = :v",
                          ExpressionAttributeNames={"#a": ""}, ExpressionAttributeValues={":v": N(1)})
    else:
        assert_validation(message, raw.get_item, TableName=table, Key={"pk": S("e")}, ProjectionExpression="#a",
                          ExpressionAttributeNames={"#a": ""})


# --- ProjectionExpression: nesting and list indexes -------------------------------------------------


def test_projection_paths_nest_at_most_32_levels(raw: Any, table: str) -> None:
    raw.put_item(TableName=table, Item={"pk": S("p")})
    ok = raw.get_item(TableName=table, Key={"pk": S("p")}, ProjectionExpression=".".join(["a"] * 32))
    assert ok["Item"] == {}
    assert_validation(PE + "The document path has too many nesting levels; nesting levels: 33", raw.get_item,
                      TableName=table, Key={"pk": S("p")}, ProjectionExpression=".".join(["a"] * 33))
    assert_validation(PE + "The document path has too many nesting levels; nesting levels: 34", raw.scan,
                      TableName=table, ProjectionExpression="b, a" + "[0]" * 33)


@pytest.mark.parametrize(("expression", "message"), [
    ("a[-1]", 'Syntax error; token: "-", near: "[-1"'),
    ("a[1.5]", 'Syntax error; token: ".", near: "1.5"'),
    ("a[]", 'Syntax error; token: "]", near: "[]"'),
    ("a[0], a[0].b", "Two document paths overlap with each other; must remove or rewrite one of these paths; "
                     "path one: [a, [0]], path two: [a, [0], b]"),
    ("a.b, a[0]", "Two document paths conflict with each other; must remove or rewrite one of these paths; "
                  "path one: [a, b], path two: [a, [0]]"),
])
def test_projection_list_index_rules(raw: Any, table: str, expression: str, message: str) -> None:
    assert_validation(PE + message, raw.get_item, TableName=table, Key={"pk": S("p")}, ProjectionExpression=expression)


# --- empty legacy condition maps ------------------------------------------------------------------


def test_an_empty_expected_still_counts_as_given(raw: Any, table: str) -> None:
    # An empty Expected is a non-expression parameter all the same (brendanhay/amazonka#142).
    assert_validation("Can not use both expression and non-expression parameters in the same request: "
                      "Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}",
                      raw.put_item, TableName=table, Item={"pk": S("x")}, Expected={},
                      ConditionExpression="attribute_exists(pk)")
    message = "ConditionalOperator can only be used when Filter or Expected has two or more elements"
    assert_validation(message, raw.put_item, TableName=table, Item={"pk": S("x")}, Expected={}, ConditionalOperator="AND")
    assert_validation(message, raw.scan, TableName=table, ScanFilter={}, ConditionalOperator="OR")


# --- UpdateTable: attribute definitions of a new GSI -----------------------------------------------

KS = [{"AttributeName": "pk", "KeyType": "HASH"}]
PROJECTION = {"ProjectionType": "ALL"}


def _create(name: str, key: str) -> dict[str, Any]:
    return {"Create": {"IndexName": name, "KeySchema": [{"AttributeName": key, "KeyType": "HASH"}],
                       "Projection": PROJECTION}}


def test_update_table_reports_a_name_defined_with_two_types(raw: Any, table: str) -> None:
    assert_validation("Attribute Name is duplicated: g", raw.update_table, TableName=table,
                      AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"},
                                            {"AttributeName": "g", "AttributeType": "N"}],
                      GlobalSecondaryIndexUpdates=[_create("by-g", "g")])


def test_create_table_reports_a_name_defined_with_two_types(raw: Any) -> None:
    assert_validation("Attribute Name is duplicated: g", raw.create_table, TableName="two-types", KeySchema=KS,
                      AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                            {"AttributeName": "g", "AttributeType": "S"},
                                            {"AttributeName": "g", "AttributeType": "N"}],
                      BillingMode="PAY_PER_REQUEST", GlobalSecondaryIndexes=[
                          {"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                           "Projection": PROJECTION}])


def test_a_new_index_needs_its_keys_in_the_requests_definitions(raw: Any, table: str) -> None:
    assert_validation("One or more parameter values were invalid: Some index key attributes are not defined in "
                      "AttributeDefinitions. Keys: [pk], AttributeDefinitions: [g]", raw.update_table,
                      TableName=table, AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
                      GlobalSecondaryIndexUpdates=[_create("by-pk", "pk")])


def test_a_redeclared_type_keeps_the_stored_one(raw: Any, table: str) -> None:
    raw.update_table(TableName=table, AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "N"},
                                                            {"AttributeName": "g", "AttributeType": "S"}],
                     GlobalSecondaryIndexUpdates=[_create("by-g", "g")])
    defs = raw.describe_table(TableName=table)["Table"]["AttributeDefinitions"]
    assert {"AttributeName": "pk", "AttributeType": "S"} in defs
    raw.put_item(TableName=table, Item={"pk": S("still-a-string")})


def test_query_filter_argument_rules(raw: Any, table: str) -> None:
    key = {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [S("a")]}}
    assert_validation("One or more parameter values were invalid: ComparisonOperator GE is not valid for SS "
                      "AttributeValue type", raw.query, TableName=table, KeyConditions=key,
                      QueryFilter={"a": {"ComparisonOperator": "GE", "AttributeValueList": [{"SS": ["x"]}]}})
    assert_validation("One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN "
                      "ComparisonOperator", raw.query, TableName=table, KeyConditions=key,
                      QueryFilter={"a": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [N(1)]}})
    assert_validation("ConditionalOperator cannot be used without Filter or Expected", raw.query, TableName=table,
                      KeyConditions=key, ConditionalOperator="AND")


# --- the order of an aggregated "N validation errors detected" ------------------------------------
# Members are reported in the request shape's member order (the service model's), nested members
# where their parent stands, except where a capture of the service shows otherwise
# (api/validation/overrides.py, MEMBER_ORDER): an AttributeDefinition's type before its name,
# ProvisionedThroughput's write units before its read units.

def _fail(value: str | None, path: str, constraint: str) -> str:
    shown = "null" if value is None else f"'{value}'"
    return f"Value {shown} at '{path}' failed to satisfy constraint: {constraint}"


def test_aggregated_errors_follow_the_request_shape(raw: Any) -> None:
    errors = [
        _fail(None, "attributeDefinitions.1.member.attributeType", "Member must not be null"),
        _fail(None, "attributeDefinitions.1.member.attributeName", "Member must not be null"),
        _fail("[]", "keySchema", "Member must have length greater than or equal to 1"),
        _fail("FREE", "billingMode", "Member must satisfy enum value set: [PROVISIONED, PAY_PER_REQUEST]"),
        _fail("0", "provisionedThroughput.writeCapacityUnits", "Member must have value greater than or equal to 1"),
        _fail("0", "provisionedThroughput.readCapacityUnits", "Member must have value greater than or equal to 1"),
    ]
    assert_validation(f"{len(errors)} validation errors detected: " + "; ".join(errors), raw.create_table,
                      TableName="ordered", KeySchema=[], AttributeDefinitions=[{}], BillingMode="FREE",
                      ProvisionedThroughput={"ReadCapacityUnits": 0, "WriteCapacityUnits": 0})


def test_aggregated_errors_of_a_scan(raw: Any, table: str) -> None:
    errors = [
        _fail("ALL", "select", "Member must satisfy enum value set: [SPECIFIC_ATTRIBUTES, COUNT, ALL_ATTRIBUTES, "
                               "ALL_PROJECTED_ATTRIBUTES]"),
        _fail("x", "returnConsumedCapacity", "Member must satisfy enum value set: [INDEXES, TOTAL, NONE]"),
        _fail("1000001", "totalSegments", "Member must have value less than or equal to 1000000"),
        _fail("-1", "segment", "Member must have value greater than or equal to 0"),
    ]
    assert_validation(f"{len(errors)} validation errors detected: " + "; ".join(errors), raw.scan, TableName=table,
                      Select="ALL", ReturnConsumedCapacity="x", TotalSegments=1000001, Segment=-1)
