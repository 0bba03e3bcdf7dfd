"""Issue 36 §3: the nesting-depth check runs after every other check of a request (and a deep
request's other errors are said bare, docs/rules.md); TransactWriteItems checks its actions
in order. The issue's quotes of the service's answers are the spec.
"""

from __future__ import annotations

from typing import Any

from tests.helpers import S, assert_validation

NESTING = ("Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond "
           "supported limit")
SYNTAX = 'Invalid ConditionExpression: Syntax error; token: "=", near: "= = b"'
KEY = {"pk": S("k")}


def deep(levels: int = 100) -> dict[str, Any]:
    """A value nested ``levels`` maps deep."""
    v: dict[str, Any] = S("x")
    for _ in range(levels):
        v = {"M": {"a": v}}
    return v


def test_nesting_alone_is_reported(raw: Any, table: str) -> None:
    assert_validation(NESTING, raw.put_item, TableName=table, Item={**KEY, "d": deep()})
    assert_validation(NESTING, raw.put_item, TableName=table, Item={**KEY, "d": deep(32)})  # 33 levels
    raw.put_item(TableName=table, Item={**KEY, "d": deep(31)})  # 32 levels are allowed
    assert_validation(NESTING, raw.get_item, TableName=table, Key={"pk": deep()})


def test_put_item_other_checks_come_first(raw: Any, table: str) -> None:
    item = {**KEY, "d": deep()}
    for first in (True, False):  # the empty name before or after the deep value
        bad = {"": S("x"), **item} if first else {**item, "": S("x")}
        assert_validation("Empty attribute name", raw.put_item, TableName=table, Item=bad)
    assert_validation(SYNTAX, raw.put_item, TableName=table, Item=item, ConditionExpression="a = = b")
    assert_validation("Value provided in ExpressionAttributeValues unused in expressions: keys: {:u}", raw.put_item,
                      TableName=table, Item=item, ConditionExpression="attribute_exists(a)",
                      ExpressionAttributeValues={":u": S("x")})
    assert_validation("ReturnValues can only be ALL_OLD or NONE", raw.put_item, TableName=table, Item=item,
                      ReturnValues="ALL_NEW")


def test_delete_item_return_values_before_a_deep_value(raw: Any, table: str) -> None:
    # bare, unlike the same error in a shallow request
    assert_validation("ReturnValues can only be ALL_OLD or NONE", raw.delete_item, TableName=table, Key=KEY,
                      ReturnValues="UPDATED_NEW", ConditionExpression="a = :v", ExpressionAttributeValues={":v": deep()})
    assert_validation("1 validation error detected: Value 'BOGUS' at 'returnValues' failed to satisfy constraint: "
                      "Member must satisfy enum value set: [ALL_NEW, UPDATED_OLD, ALL_OLD, NONE, UPDATED_NEW]",
                      raw.delete_item, TableName=table, Key={"pk": deep()}, ReturnValues="BOGUS")


def test_legacy_conditions_report_xor_before_a_deep_expected_value(raw: Any, table: str) -> None:
    expected = {"a": {"Value": deep()}, "b": {"Value": S("1")}}
    message = ("1 validation error detected: Value 'XOR' at 'conditionalOperator' failed to satisfy constraint: "
               "Member must satisfy enum value set: [OR, AND]")
    assert_validation(message, raw.put_item, TableName=table, Item=KEY, ConditionalOperator="XOR", Expected=expected)
    assert_validation(message, raw.update_item, TableName=table, Key=KEY, ConditionalOperator="XOR", Expected=expected)


def test_update_item_oversized_expression_before_a_deep_value(raw: Any, table: str) -> None:
    text = "SET " + ", ".join(f"a{i} = :v" for i in range(800))
    assert_validation("Invalid UpdateExpression: Expression size has exceeded the maximum allowed size;",
                      raw.update_item, TableName=table, Key=KEY, UpdateExpression=text,
                      ExpressionAttributeValues={":v": deep()})
    assert "Item" not in raw.get_item(TableName=table, Key=KEY, ConsistentRead=True)


# --- TransactWriteItems: actions in order, nesting last ---------------------------------------------


def _put(table: str, item: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"Put": {"TableName": table, "Item": item, **extra}}


def test_transact_write_condition_syntax_before_a_deep_key(raw: Any, table: str) -> None:
    assert_validation(SYNTAX, raw.transact_write_items, TransactItems=[
        _put(table, KEY, ConditionExpression="a = = b"),
        {"Delete": {"TableName": table, "Key": {"pk": deep()}}}])
    assert_validation(SYNTAX, raw.transact_write_items, TransactItems=[
        {"Delete": {"TableName": table, "Key": {"pk": deep()}, "ConditionExpression": "a = = b"}}])


def test_transact_write_empty_name_before_deep_values(raw: Any, table: str) -> None:
    for item in ({**KEY, "": S("x"), "d": deep()}, {**KEY, "d": deep(), "": S("x")}):
        assert_validation("Empty attribute name", raw.transact_write_items, TransactItems=[_put(table, item)])
    assert_validation("Empty attribute name", raw.transact_write_items, TransactItems=[
        _put(table, {**KEY, "": S("x")}), _put(table, {"pk": S("other"), "d": deep()})])
    assert_validation("Empty attribute name", raw.transact_write_items, TransactItems=[
        _put(table, {**KEY, "": S("x")}),
        {"ConditionCheck": {"TableName": table, "Key": {"pk": S("other")}, "ConditionExpression": "a = :v",
                            "ExpressionAttributeValues": {":v": deep()}}}])


def test_transact_write_sizes_and_unused_values_before_a_deep_key(raw: Any, table: str) -> None:
    check = {"ConditionCheck": {"TableName": table, "Key": {"pk": deep()}, "ConditionExpression": "attribute_exists(a)"}}
    text = "SET " + ", ".join(f"a{i} = :v" for i in range(800))
    assert_validation("Invalid UpdateExpression: Expression size has exceeded the maximum allowed size;",
                      raw.transact_write_items, TransactItems=[
                          {"Update": {"TableName": table, "Key": KEY, "UpdateExpression": text,
                                      "ExpressionAttributeValues": {":v": S("x")}}}, check])
    condition = "a = :v" + " AND attribute_exists(b)" * 169 + " AND attribute_exists(" + "c" * 24 + ")"
    assert len(condition) == 4109
    assert_validation("Invalid ConditionExpression: Expression size has exceeded the maximum allowed size; "
                      "expression size: 4109", raw.transact_write_items, TransactItems=[
                          {"Delete": {"TableName": table, "Key": {"pk": deep()}, "ConditionExpression": condition,
                                      "ExpressionAttributeValues": {":v": S("x")}}}])
    assert_validation("Value provided in ExpressionAttributeValues unused in expressions: keys: {:u}",
                      raw.transact_write_items, TransactItems=[
                          _put(table, KEY, ConditionExpression="attribute_exists(a)",
                               ExpressionAttributeValues={":u": S("x")}), check])
    assert_validation(NESTING, raw.transact_write_items, TransactItems=[_put(table, KEY), check])
    assert "Item" not in raw.get_item(TableName=table, Key=KEY, ConsistentRead=True)


def test_reads_and_batches_report_nesting_last_too(raw: Any, table: str) -> None:
    assert_validation('Invalid ProjectionExpression: Syntax error; token: "<EOF>", near: ","', raw.get_item,
                      TableName=table, Key={"pk": deep()}, ProjectionExpression="a,")
    assert_validation("The parameter cannot be converted to a numeric value: abc", raw.batch_get_item,
                      RequestItems={table: {"Keys": [{"pk": deep()}, {"pk": {"N": "abc"}}]}})
    assert_validation("Empty attribute name", raw.batch_write_item, RequestItems={table: [
        {"PutRequest": {"Item": {**KEY, "d": deep()}}}, {"PutRequest": {"Item": {"pk": S("b"), "": S("x")}}}]})
    assert_validation(NESTING, raw.batch_write_item,
                      RequestItems={table: [{"PutRequest": {"Item": {**KEY, "d": deep()}}}]})
    assert "Item" not in raw.get_item(TableName=table, Key=KEY, ConsistentRead=True)


def test_requests_nested_as_deep_as_json_allows_get_dynamodbs_errors(server_url: str, table: str) -> None:
    """505 levels (about as deep as the JSON parser takes): every step that runs before the
    nesting error (the second pass of the checks, a constraint message showing an item) copes."""
    import json

    from tests.test_protocol import raw as http

    d = '{"M":{"a":' * 505 + '{"S":"x"}' + "}}" * 505
    puts = ",".join('{"PutRequest":{"Item":{"pk":{"S":"p' + str(i) + '"},"d":DEEP}}}' for i in range(26))
    cases = [
        ("PutItem", '{"TableName":"TABLE","Item":{"pk":{"S":"a"},"d":DEEP,"":{"S":"x"}}}', "Empty attribute name"),
        ("PutItem", '{"TableName":"TABLE","Item":{"pk":{"S":"a"},"d":DEEP}}', NESTING),
        ("GetItem", '{"TableName":"TABLE","Key":{"pk":DEEP}}', NESTING),
        ("BatchWriteItem", '{"RequestItems":{"TABLE":[' + puts + "]}}", None),
    ]
    for target, body, message in cases:
        body = body.replace("TABLE", table).replace("DEEP", d)
        status, _, data = http(server_url, body, target=f"DynamoDB_20120810.{target}")
        answer = json.loads(data)
        assert (status, answer["__type"].rpartition("#")[2]) == (400, "ValidationException"), answer
        if message is not None:
            assert answer["message"] == message


def test_query_and_scan_report_nesting_last_too(raw: Any, table: str) -> None:
    assert_validation('Invalid FilterExpression: Syntax error; token: "<EOF>", near: "="', raw.query,
                      TableName=table, KeyConditionExpression="pk = :p", FilterExpression="a =",
                      ExpressionAttributeValues={":p": deep()})
    assert_validation("Value provided in ExpressionAttributeValues unused in expressions: keys: {:u}", raw.scan,
                      TableName=table, FilterExpression="a = :v", ExpressionAttributeValues={":v": S("x"), ":u": deep()})
    assert_validation(NESTING, raw.scan, TableName=table, FilterExpression="a = :v",
                      ExpressionAttributeValues={":v": deep()})
