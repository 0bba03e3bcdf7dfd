"""Syntax errors, limits and parameter-level errors of the expression pipeline (full messages)."""

from __future__ import annotations

import pytest

from .expr_helpers import N, S, error_message, request

SYNTAX = [
    # (operation, parameter, expression, values, expected message)
    ("UpdateItem", "UpdateExpression", "INVALID SYNTAX HERE", {":v": S("v")},
     'Invalid UpdateExpression: Syntax error; token: "INVALID", near: "INVALID SYNTAX"'),
    ("UpdateItem", "UpdateExpression", "ADD hits : incr", {":incr": N(1)},
     'Invalid UpdateExpression: Syntax error; token: ":", near: "hits : incr"'),
    ("UpdateItem", "UpdateExpression", "SET a = :v, # ,b = :v", {":v": S("v")},
     'Invalid UpdateExpression: Syntax error; token: "#", near: ", # ,"'),
    ("UpdateItem", "UpdateExpression", "SET a =", None,
     'Invalid UpdateExpression: Syntax error; token: "<EOF>", near: "="'),
    ("UpdateItem", "UpdateExpression", "SET a = :v, REMOVE b", {":v": S("v")},
     'Invalid UpdateExpression: Syntax error; token: "REMOVE", near: ", REMOVE b"'),
    ("UpdateItem", "UpdateExpression", "SET a = b + c + d", None,
     'Invalid UpdateExpression: Syntax error; token: "+", near: "c + d"'),
    ("UpdateItem", "UpdateExpression", "ADD a b", None,
     'Invalid UpdateExpression: Syntax error; token: "b", near: "a b"'),
    ("PutItem", "ConditionExpression", "a = :v AND", {":v": S("v")},
     'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "AND"'),
    ("PutItem", "ConditionExpression", "a", None,
     'Invalid ConditionExpression: Syntax error; token: "<EOF>", near: "a"'),
    ("PutItem", "ConditionExpression", "a = :v $", {":v": S("v")},
     'Invalid ConditionExpression: Syntax error; token: "$", near: ":v $"'),
    ("PutItem", "ConditionExpression", "(a AND b = :v)", {":v": S("v")},
     'Invalid ConditionExpression: Syntax error; token: "AND", near: "a AND b"'),
    ("PutItem", "ConditionExpression", "a IN :v", {":v": S("v")},
     'Invalid ConditionExpression: Syntax error; token: ":v", near: "IN :v"'),
    ("PutItem", "ConditionExpression", "a + b = :v", {":v": S("v")},
     'Invalid ConditionExpression: Syntax error; token: "+", near: "a + b"'),
    ("PutItem", "ConditionExpression", "and = :v", {":v": S("v")},
     'Invalid ConditionExpression: Syntax error; token: "and", near: "and ="'),
    ("GetItem", "ProjectionExpression", "col-name", None,
     'Invalid ProjectionExpression: Syntax error; token: "-", near: "col-name"'),
    ("GetItem", "ProjectionExpression", "a,", None,
     'Invalid ProjectionExpression: Syntax error; token: "<EOF>", near: ","'),
    ("GetItem", "ProjectionExpression", "a[x]", None,
     'Invalid ProjectionExpression: Syntax error; token: "x", near: "[x]"'),
    ("Query", "KeyConditionExpression", "pk == :v", {":v": S("v")},
     'Invalid KeyConditionExpression: Syntax error; token: "=", near: "== :v"'),
    ("Scan", "FilterExpression", "a é :v", {":v": S("v")},
     'Invalid FilterExpression: Syntax error; token: "é", near: "a é :v"'),
]


@pytest.mark.parametrize(("operation", "param", "text", "values", "message"), SYNTAX)
def test_syntax_errors(operation: str, param: str, text: str, values: dict | None, message: str) -> None:
    assert error_message(operation, request(param, text, values=values)) == message


@pytest.mark.parametrize("param", ["UpdateExpression", "ConditionExpression"])
def test_empty_expression(param: str) -> None:
    assert error_message("UpdateItem", request(param, "")) == f"Invalid {param}: The expression can not be empty;"


def test_empty_key_condition() -> None:
    message = error_message("Query", request("KeyConditionExpression", "", values={":v": S("v")}))
    assert message == "Invalid KeyConditionExpression: The expression can not be empty;"


def test_expression_size_limit() -> None:
    text = ", ".join(f"a{i:04d}" for i in range(700))  # 4898 bytes
    assert error_message("GetItem", request("ProjectionExpression", text)) == (
        "Invalid ProjectionExpression: Expression size has exceeded the maximum allowed size;"
    )  # no byte count for projections (floci-io/floci#3447); conditions and filters give one
    from .expr_helpers import compiled

    base = ", ".join(f"a{i:04d}" for i in range(580))
    at_limit = base + ", " + "x" * (4096 - len(base) - 2)
    assert len(at_limit) == 4096
    assert compiled("GetItem", request("ProjectionExpression", at_limit)).projection is not None


def test_expression_size_counts_utf8_bytes() -> None:
    text = "#a = :v OR " * 1 + "#a = :v" + " " * 4080 + "\u00e9"  # 1 char, 2 bytes at the end
    message = error_message("PutItem", request("ConditionExpression", text, {"#a": "a"}, {":v": S("v")}))
    assert message.startswith("Invalid ConditionExpression: Expression size has exceeded the maximum allowed size;")


def test_too_many_operators() -> None:
    text = " AND ".join(f"a{i} = :v" for i in range(151))  # 151 comparisons + 150 ANDs
    message = error_message("Scan", request("FilterExpression", text, values={":v": S("v")}))
    assert message == "Invalid FilterExpression: The expression contains too many operators; operator count: 301"


def test_three_hundred_operators_are_fine() -> None:
    from .expr_helpers import compiled

    text = " AND ".join(f"a{i} = :v" for i in range(149)) + " AND NOT a = :v"  # 150 + 149 + NOT
    assert compiled("Scan", request("FilterExpression", text, values={":v": S("v")})).filter is not None


def test_in_with_more_than_100_operands() -> None:
    values = {f":v{i}": N(i) for i in range(101)}
    text = "a IN (" + ", ".join(values) + ")"
    message = error_message("Scan", request("FilterExpression", text, values=values))
    assert message == "Invalid FilterExpression: The IN operator is provided with too many operands; number of operands: 101"


def test_deep_nesting_is_a_validation_error() -> None:
    text = "(" * 1000 + "a = :v" + ")" * 1000
    message = error_message("PutItem", request("ConditionExpression", text, values={":v": S("v")}))
    assert message.startswith('Invalid ConditionExpression: Syntax error; token: "("')
    message = error_message("PutItem", request("ConditionExpression", "NOT " * 1000 + "a = :v", values={":v": S("v")}))
    assert message.startswith('Invalid ConditionExpression: Syntax error; token: "NOT"')
    nested = "size(" * 400 + "a" + ")" * 400 + " = :v"
    assert error_message("PutItem", request("ConditionExpression", nested, values={":v": S("v")})).startswith(
        'Invalid ConditionExpression: Syntax error; token: "size"'
    )


PARAMETERS = [
    ("UpdateItem", {"UpdateExpression": "SET a = :v", "ExpressionAttributeValues": {":v": S("v")},
                    "AttributeUpdates": {"a": {"Value": S("v"), "Action": "PUT"}}},
     "Can not use both expression and non-expression parameters in the same request: "
     "Non-expression parameters: {AttributeUpdates} Expression parameters: {UpdateExpression}"),
    ("PutItem", {"ConditionExpression": "a = :v", "ExpressionAttributeValues": {":v": S("v")},
                 "Expected": {"a": {"Exists": False}}},
     "Can not use both expression and non-expression parameters in the same request: "
     "Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}"),
    ("Query", {"KeyConditionExpression": "pk = :v", "FilterExpression": "a = :v", "ExpressionAttributeValues": {":v": S("v")},
               "QueryFilter": {"a": {"ComparisonOperator": "NULL"}}, "KeyConditions": {}},
     "Can not use both expression and non-expression parameters in the same request: "
     "Non-expression parameters: {QueryFilter, KeyConditions} "
     "Expression parameters: {FilterExpression, KeyConditionExpression}"),
    ("PutItem", {"ExpressionAttributeNames": {"#a": "a"}},
     "ExpressionAttributeNames can only be specified when using expressions"),
    ("UpdateItem", {"ExpressionAttributeValues": {":v": S("v")}},
     "ExpressionAttributeValues can only be specified when using expressions: "
     "UpdateExpression and ConditionExpression are null"),
    ("Scan", {"ProjectionExpression": "a", "ExpressionAttributeValues": {":v": S("v")}},
     "ExpressionAttributeValues can only be specified when using expressions: FilterExpression is null"),
    ("PutItem", {"ConditionExpression": "a = :v", "ExpressionAttributeValues": {}},
     "ExpressionAttributeValues must not be empty"),
    ("PutItem", {"ConditionExpression": "a = b", "ExpressionAttributeNames": {}},
     "ExpressionAttributeNames must not be empty"),
    ("PutItem", {"ConditionExpression": "a = b", "ExpressionAttributeNames": {"#a-b": "x"}},
     'ExpressionAttributeNames contains invalid key: Syntax error; key: "#a-b"'),
    ("PutItem", {"ConditionExpression": "a = :v", "ExpressionAttributeValues": {"v": S("x")}},
     'ExpressionAttributeValues contains invalid key: Syntax error; key: "v"'),
    ("PutItem", {"ConditionExpression": "a = :v", "ExpressionAttributeValues": {":v": {"N": "x"}}},
     "The parameter cannot be converted to a numeric value: x"),  # no wrapper (issue 36)
    ("PutItem", {"ConditionExpression": "a = :v", "ExpressionAttributeValues": {":v": S("x"), ":w": S("y")}},
     "Value provided in ExpressionAttributeValues unused in expressions: keys: {:w}"),
    ("PutItem", {"ConditionExpression": "a = :v", "ExpressionAttributeNames": {"#u": "x", "#w": "y"},
                 "ExpressionAttributeValues": {":v": S("x")}},
     "Value provided in ExpressionAttributeNames unused in expressions: keys: {#u, #w}"),
    ("Query", {"FilterExpression": "a = :v", "ExpressionAttributeValues": {":v": S("x")}},
     "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."),
    ("Query", {}, "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."),
]


@pytest.mark.parametrize(("operation", "req", "message"), PARAMETERS)
def test_parameter_errors(operation: str, req: dict, message: str) -> None:
    assert error_message(operation, req) == message


def test_get_item_ignores_expression_attribute_values() -> None:
    # GetItem has no such member; the service ignores unknown members (dynalite's getItem types).
    from .expr_helpers import compiled

    assert compiled("GetItem", {"ExpressionAttributeValues": {":v": S("x")}}).projection is None
    assert compiled("GetItem", {"ProjectionExpression": "a", "ExpressionAttributeValues": {":v": S("x")}}).projection


def test_unused_names_reported_before_unused_values() -> None:
    req = {"ConditionExpression": "a = :v", "ExpressionAttributeNames": {"#u": "x"},
           "ExpressionAttributeValues": {":v": S("x"), ":w": S("y")}}
    assert error_message("PutItem", req) == "Value provided in ExpressionAttributeNames unused in expressions: keys: {#u}"


def test_placeholders_shared_between_expressions_of_one_request() -> None:
    from .expr_helpers import compiled

    req = {"UpdateExpression": "SET #a = :v", "ConditionExpression": "#a <> :v", "ExpressionAttributeNames": {"#a": "a"},
           "ExpressionAttributeValues": {":v": S("x")}}
    result = compiled("UpdateItem", req)
    assert result.update is not None and result.condition is not None


def test_no_expression_parameters_is_cheap_and_empty() -> None:
    from .expr_helpers import compiled

    result = compiled("PutItem", {"TableName": "t", "Item": {"pk": S("a")}})
    assert result.condition is None and result.update is None and result.projection is None
