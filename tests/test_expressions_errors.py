"""Expression errors through boto3 (and raw HTTP) against the server, with full messages.

Messages and their sources: DynamoDB's messages as probed by dynalite and quoted in public
issue threads, the developer guide's "Expression parameters"
limits (4 KB expressions, 100 IN operands, 300 operators) and "Reserved words". No input,
however malformed, may produce a 500 or hang: every rejection is a 400 ValidationException.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from tests.helpers import N, S, assert_validation
from tests.test_protocol import raw

ITEM = {"pk": S("e"), "a": N(1), "s": S("x"), "l": {"L": [N(1)]}}
CE = "Invalid ConditionExpression: "
UE = "Invalid UpdateExpression: "
MIXING = "Can not use both expression and non-expression parameters in the same request: "
INVALID = "One or more parameter values were invalid: "
# PutItem's, UpdateItem's and DeleteItem's request checks: in the envelope (issue 36)
ENV = "1 validation error detected: "


def put_condition(ddb: Any, table: str, expression: str, values: dict[str, Any] | None = None,
                  names: dict[str, str] | None = None) -> Any:
    kwargs: dict[str, Any] = {"ConditionExpression": expression}
    if values:
        kwargs["ExpressionAttributeValues"] = values
    if names:
        kwargs["ExpressionAttributeNames"] = names
    return ddb.put_item(TableName=table, Item=ITEM, **kwargs)


def update_item(ddb: Any, table: str, expression: str, values: dict[str, Any] | None = None,
                names: dict[str, str] | None = None, **extra: Any) -> Any:
    kwargs: dict[str, Any] = {"UpdateExpression": expression, **extra}
    if values:
        kwargs["ExpressionAttributeValues"] = values
    if names:
        kwargs["ExpressionAttributeNames"] = names
    return ddb.update_item(TableName=table, Key={"pk": S("e")}, **kwargs)


# --- ConditionExpression -------------------------------------------------------------------------

V1 = {":v": N(1)}
CONDITION_ERRORS: list[tuple[str, dict[str, Any], str]] = [
    ("", {}, ENV + CE + "The expression can not be empty;"),
    # reserved words, bare; fine through a placeholder
    ("status = :v", V1, CE + "Attribute name is a reserved keyword; reserved keyword: status"),
    ("a.Size = :v", V1, CE + "Attribute name is a reserved keyword; reserved keyword: Size"),
    ("attribute_exists(data)", {}, CE + "Attribute name is a reserved keyword; reserved keyword: data"),
    # functions
    ("foo(a)", {}, CE + "Invalid function name; function: foo"),
    ("Size(a) = :v", V1, CE + "Invalid function name; function: Size"),  # function names are case-sensitive
    ("if_not_exists(a, :v) = :v", V1, CE + "The function is not allowed in a condition expression; function: if_not_exists"),
    ("list_append(a, :v) = :v", V1, CE + "The function is not allowed in a condition expression; function: list_append"),
    ("attribute_exists(a) = :v", V1,
     CE + "The function is not allowed to be used this way in an expression; function: attribute_exists"),
    ("a = begins_with(a, :v)", V1,
     CE + "The function is not allowed to be used this way in an expression; function: begins_with"),
    ("size(a)", {}, CE + "The function is not allowed to be used this way in an expression; function: size"),
    ("NOT size(a)", {}, CE + "The function is not allowed to be used this way in an expression; function: size"),
    ("size(a, s) = :v", V1,
     CE + "Incorrect number of operands for operator or function; operator or function: size, number of operands: 2"),
    ("contains(a)", {},
     CE + "Incorrect number of operands for operator or function; operator or function: contains, number of operands: 1"),
    ("attribute_type(a)", {}, CE + "Incorrect number of operands for operator or function; "
     "operator or function: attribute_type, number of operands: 1"),
    ("attribute_exists(:v)", V1,
     CE + "Operator or function requires a document path; operator or function: attribute_exists"),
    ("attribute_not_exists(:v)", V1,
     CE + "Operator or function requires a document path; operator or function: attribute_not_exists"),
    ("begins_with(a, :v)", V1,
     CE + "Incorrect operand type for operator or function; operator or function: begins_with, operand type: N"),
    ("begins_with(:v, a)", {":v": {"BOOL": True}},
     CE + "Incorrect operand type for operator or function; operator or function: begins_with, operand type: BOOL"),
    ("size(:v) = :v", V1,
     CE + "Incorrect operand type for operator or function; operator or function: size, operand type: N"),
    ("attribute_type(a, :v)", V1,
     CE + "Incorrect operand type for operator or function; operator or function: attribute_type, operand type: N"),
    ("attribute_type(a, s)", {}, CE + "Incorrect operand type for operator or function; "
     "operator or function: attribute_type, operand type: {NS,SS,L,BS,N,M,B,BOOL,NULL,S}"),
    ("attribute_type(a, :v)", {":v": S("STRING")},
     CE + "Invalid attribute type name found; type: STRING, valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}"),
    # operands must be distinct
    ("a = a", {}, CE + "The first operand must be distinct from the remaining operands for this operator or "
     "function; operator: =, first operand: [a]"),
    ("#x.y <> a.#y", {}, CE + "The first operand must be distinct from the remaining operands for this operator or "
     "function; operator: <>, first operand: [a, y]"),
    ("contains(l[0], l[0])", {}, CE + "The first operand must be distinct from the remaining operands for this "
     "operator or function; operator: contains, first operand: [l, [0]]"),
    # BETWEEN bounds
    ("a BETWEEN :lo AND :hi", {":lo": N(1), ":hi": S("z")},
     CE + "The BETWEEN operator requires same data type for lower and upper bounds; "
     "lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:z}"),
    ("a BETWEEN :lo AND :hi", {":lo": N(5), ":hi": N(1)},
     CE + "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; "
     "lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {N:1}"),
    ("s BETWEEN :lo AND :hi", {":lo": S("b"), ":hi": S("a")},
     CE + "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; "
     "lower bound operand: AttributeValue: {S:b}, upper bound operand: AttributeValue: {S:a}"),
    # parentheses directly around parentheses
    ("((a = :v))", V1, CE + "The expression has redundant parentheses;"),
    ("((a)) = :v", V1, CE + "The expression has redundant parentheses;"),
    ("a = :v AND ((a = :v))", V1, CE + "The expression has redundant parentheses;"),
    # placeholders
    ("a = :x", {}, ENV + CE + "An expression attribute value used in expression is not defined; attribute value: :x"),
    ("#q = :v", V1, ENV + CE + "An expression attribute name used in the document path is not defined; attribute name: #q"),
    ("a.#z = :v", V1, ENV + CE + "An expression attribute name used in the document path is not defined; attribute name: #z"),
    # syntax: token: the unexpected token, near: from the token before it to the one after
    ("a = ", {}, CE + 'Syntax error; token: "<EOF>", near: "= "'),
    ("a", {}, CE + 'Syntax error; token: "<EOF>", near: "a"'),
    (":v", V1, CE + 'Syntax error; token: "<EOF>", near: ":v"'),
    ("NOT a", {}, CE + 'Syntax error; token: "<EOF>", near: "a"'),
    ("a == :v", V1, CE + 'Syntax error; token: "=", near: "== :v"'),
    ("a = :v AND", V1, CE + 'Syntax error; token: "<EOF>", near: "AND"'),
    ("a = :v OR OR a = :v", V1, CE + 'Syntax error; token: "OR", near: "OR OR a"'),
    ("a $ :v", V1, CE + 'Syntax error; token: "$", near: "a $ :v"'),
    ("a IN ()", {}, CE + 'Syntax error; token: ")", near: "()"'),
    ("a BETWEEN :v", V1, CE + 'Syntax error; token: "<EOF>", near: ":v"'),
    ("a < s < :v", V1, CE + 'Syntax error; token: "<", near: "s < :v"'),
    ("a[-1] = :v", V1, CE + 'Syntax error; token: "-", near: "[-1"'),
    ("a.1 = :v", V1, CE + 'Syntax error; token: "1", near: ".1 ="'),
    ("(a = :v", V1, CE + 'Syntax error; token: "<EOF>", near: ":v"'),
    ("a = :v)", V1, CE + 'Syntax error; token: ")", near: ":v)"'),
    ("a = :v a", V1, CE + 'Syntax error; token: "a", near: ":v a"'),
    ("attribute_exists(a,)", {}, CE + 'Syntax error; token: ")", near: ",)"'),
    ("a = # ", {}, CE + 'Syntax error; token: "#", near: "= #"'),
    ("a = : ", {}, CE + 'Syntax error; token: ":", near: "= :"'),
    ("a ≠ :v", V1, CE + 'Syntax error; token: "≠", near: "a ≠ :v"'),
    # ordering: the first error in DynamoDB's priority wins
    ("((status = foo(a)))", {}, CE + "The expression has redundant parentheses;"),
    ("status = foo(a)", {}, CE + "Invalid function name; function: foo"),
    ("status = attribute_exists(a)", {},
     CE + "The function is not allowed to be used this way in an expression; function: attribute_exists"),
    ("status = :x", {}, CE + "Attribute name is a reserved keyword; reserved keyword: status"),
    ("a = :x AND s = s", {}, ENV + CE + "An expression attribute value used in expression is not defined; attribute value: :x"),
]


@pytest.mark.parametrize(("expression", "values", "message"), CONDITION_ERRORS,
                         ids=[f"{i}-{c[0]}" for i, c in enumerate(CONDITION_ERRORS)])
def test_condition_errors(ddb: Any, table: str, expression: str, values: dict[str, Any], message: str) -> None:
    names = {"#x": "a", "#y": "y"} if "#x" in expression else None
    assert_validation(message, put_condition, ddb, table, expression, values, names)


@pytest.mark.parametrize("call", ["put_item", "update_item", "delete_item"])
def test_condition_errors_on_every_write(ddb: Any, table: str, call: str) -> None:
    args: dict[str, Any] = {"Item": ITEM} if call == "put_item" else {"Key": {"pk": S("e")}}
    assert_validation(CE + "Attribute name is a reserved keyword; reserved keyword: status",
                      getattr(ddb, call), TableName=table, ConditionExpression="status = :v",
                      ExpressionAttributeValues=V1, **args)
    # reported before the table is looked up
    assert_validation(CE + "Invalid function name; function: foo", getattr(ddb, call),
                      TableName="no-such-table", ConditionExpression="foo(a)", **args)


def test_reserved_words_through_placeholders(ddb: Any, table: str) -> None:
    ddb.put_item(TableName=table, Item={"pk": S("r"), "status": S("on"), "data": {"M": {"size": N(1)}}})
    out = ddb.update_item(
        TableName=table, Key={"pk": S("r")}, UpdateExpression="SET #st = :off, #d.#sz = #d.#sz + :one",
        ConditionExpression="#st = :on AND attribute_exists(#d.#sz)",
        ExpressionAttributeNames={"#st": "status", "#d": "data", "#sz": "size"},
        ExpressionAttributeValues={":on": S("on"), ":off": S("off"), ":one": N(1)}, ReturnValues="ALL_NEW",
    )
    assert out["Attributes"] == {"pk": S("r"), "status": S("off"), "data": {"M": {"size": N(2)}}}


# --- UpdateExpression ------------------------------------------------------------------------------

OVERLAP = UE + "Two document paths overlap with each other; must remove or rewrite one of these paths; "
CONFLICT = UE + "Two document paths conflict with each other; must remove or rewrite one of these paths; "

UPDATE_ERRORS: list[tuple[str, dict[str, Any], str]] = [
    ("", {}, ENV + UE + "The expression can not be empty;"),
    ("SET status = :v", V1, UE + "Attribute name is a reserved keyword; reserved keyword: status"),
    ("REMOVE a.comment", {}, UE + "Attribute name is a reserved keyword; reserved keyword: comment"),
    ("SET a = size(s)", {}, UE + "The function is not allowed in an update expression; function: size"),
    ("SET a = attribute_exists(s)", {},
     UE + "The function is not allowed in an update expression; function: attribute_exists"),
    ("SET a = foo(s)", {}, UE + "Invalid function name; function: foo"),
    ("SET a = if_not_exists(s)", {}, UE + "Incorrect number of operands for operator or function; "
     "operator or function: if_not_exists, number of operands: 1"),
    ("SET a = list_append(:v, :v, :v)", {":v": {"L": []}}, UE + "Incorrect number of operands for operator or "
     "function; operator or function: list_append, number of operands: 3"),
    ("SET a = if_not_exists(:v, s)", V1,
     UE + "Operator or function requires a document path; operator or function: if_not_exists"),
    ("SET a = :v SET b = :v", V1, UE + 'The "SET" section can only be used once in an update expression;'),
    ("REMOVE a REMOVE s", {}, UE + 'The "REMOVE" section can only be used once in an update expression;'),
    ("ADD a :v SET s = :v ADD l :v", V1, UE + 'The "ADD" section can only be used once in an update expression;'),
    ("DELETE a :v DELETE s :v", {":v": {"SS": ["x"]}},
     UE + 'The "DELETE" section can only be used once in an update expression;'),
    ("SET a = :v", {}, ENV + UE + "An expression attribute value used in expression is not defined; attribute value: :v"),
    ("SET #a = :v", V1, ENV + UE + "An expression attribute name used in the document path is not defined; attribute name: #a"),
    ("SET a = #b", {}, ENV + UE + "An expression attribute name used in the document path is not defined; attribute name: #b"),
    # overlapping and conflicting paths
    ("SET a = :v REMOVE a", V1, OVERLAP + "path one: [a], path two: [a]"),
    ("SET a = :v, a = :v", V1, OVERLAP + "path one: [a], path two: [a]"),
    ("SET a = :v REMOVE a.b", V1, OVERLAP + "path one: [a], path two: [a, b]"),
    ("REMOVE a.b.c ADD a.b :v", V1, OVERLAP + "path one: [a, b, c], path two: [a, b]"),
    ("SET l[0] = :v REMOVE l[0]", V1, OVERLAP + "path one: [l, [0]], path two: [l, [0]]"),
    ("SET a[1] = :v REMOVE a.b", V1, CONFLICT + "path one: [a, [1]], path two: [a, b]"),
    ("SET a.b = :v, a[0] = :v", V1, CONFLICT + "path one: [a, b], path two: [a, [0]]"),
    # operand types known from the values
    ("ADD a :v", {":v": S("x")}, UE + "Incorrect operand type for operator or function; operator: ADD, operand type: STRING"),
    ("ADD a :v", {":v": {"B": b"x"}},
     UE + "Incorrect operand type for operator or function; operator: ADD, operand type: BINARY"),
    ("ADD a :v", {":v": {"BOOL": True}},
     UE + "Incorrect operand type for operator or function; operator: ADD, operand type: BOOLEAN"),
    ("ADD a :v", {":v": {"NULL": True}},
     UE + "Incorrect operand type for operator or function; operator: ADD, operand type: NULL"),
    ("ADD a :v", {":v": {"L": []}}, UE + "Incorrect operand type for operator or function; operator: ADD, operand type: LIST"),
    ("ADD a :v", {":v": {"M": {}}}, UE + "Incorrect operand type for operator or function; operator: ADD, operand type: MAP"),
    ("DELETE a :v", V1, UE + "Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER"),
    ("DELETE a :v", {":v": S("x")},
     UE + "Incorrect operand type for operator or function; operator: DELETE, operand type: STRING"),
    ("SET a = :v + :w", {":v": S("x"), ":w": N(1)},
     UE + "Incorrect operand type for operator or function; operator or function: +, operand type: S"),
    ("SET a = a - :v", {":v": {"SS": ["x"]}},
     UE + "Incorrect operand type for operator or function; operator or function: -, operand type: SS"),
    ("SET a = list_append(a, :v)", {":v": S("x")},
     UE + "Incorrect operand type for operator or function; operator or function: list_append, operand type: S"),
    ("SET a = list_append(:v, a)", V1,
     UE + "Incorrect operand type for operator or function; operator or function: list_append, operand type: N"),
    # syntax
    ("INVALID SYNTAX HERE", {}, UE + 'Syntax error; token: "INVALID", near: "INVALID SYNTAX"'),
    ("ADD hits : incr", {}, UE + 'Syntax error; token: ":", near: "hits : incr"'),
    ("SET", {}, UE + 'Syntax error; token: "<EOF>", near: "SET"'),
    ("SET a", {}, UE + 'Syntax error; token: "<EOF>", near: "a"'),
    ("SET a = ", {}, UE + 'Syntax error; token: "<EOF>", near: "= "'),
    ("SET a = :v,", V1, UE + 'Syntax error; token: "<EOF>", near: ","'),
    ("SET a := :v", V1, UE + 'Syntax error; token: ":", near: "a :="'),
    ("SET a = b + c + d", {}, UE + 'Syntax error; token: "+", near: "c + d"'),
    ("SET a = :v REMOVE", V1, UE + 'Syntax error; token: "<EOF>", near: "REMOVE"'),
    ("REMOVE a = :v", V1, UE + 'Syntax error; token: "=", near: "a = :v"'),
    ("REMOVE :v", V1, UE + 'Syntax error; token: ":v", near: "REMOVE :v"'),
    ("ADD a", {}, UE + 'Syntax error; token: "<EOF>", near: "a"'),
    ("ADD a b", {}, UE + 'Syntax error; token: "b", near: "a b"'),
    ("ADD a :v, ", V1, UE + 'Syntax error; token: "<EOF>", near: ", "'),
    ("UPDATE a = :v", V1, UE + 'Syntax error; token: "UPDATE", near: "UPDATE a"'),
    ("SET a = :v; DROP TABLE", V1, UE + 'Syntax error; token: ";", near: ":v; DROP"'),
    # ordering
    ("SET status = foo(s)", {}, UE + "Attribute name is a reserved keyword; reserved keyword: status"),
    ("SET a = foo(s) SET b = :v", {}, UE + "Invalid function name; function: foo"),
    ("SET a = :x SET b = :x", {}, UE + 'The "SET" section can only be used once in an update expression;'),
    ("SET a = :x REMOVE a", {}, ENV + UE + "An expression attribute value used in expression is not defined; attribute value: :x"),
]


@pytest.mark.parametrize(("expression", "values", "message"), UPDATE_ERRORS,
                         ids=[f"{i}-{u[0]}" for i, u in enumerate(UPDATE_ERRORS)])
def test_update_errors(ddb: Any, table: str, expression: str, values: dict[str, Any], message: str) -> None:
    assert_validation(message, update_item, ddb, table, expression, values)


def test_update_errors_come_before_the_table_lookup(ddb: Any) -> None:
    assert_validation(UE + 'Syntax error; token: "INVALID", near: "INVALID SYNTAX"',
                      update_item, ddb, "no-such-table", "INVALID SYNTAX HERE", {":v": S("val")})


def test_update_expression_checked_before_condition(ddb: Any, table: str) -> None:
    assert_validation(UE + "Invalid function name; function: foo", update_item, ddb, table, "SET a = foo(s)",
                      ConditionExpression="foo(a)")
    assert_validation(ENV + CE + "An expression attribute value used in expression is not defined; attribute value: :v",
                      update_item, ddb, table, "SET b = :w", {":w": S("x")}, ConditionExpression="a = :v")


@pytest.mark.parametrize("expression", ["SET pk = :v", "REMOVE pk", "ADD pk :n", "SET pk.x = :v", "DELETE pk :s"])
def test_updating_a_key_attribute(ddb: Any, table: str, expression: str) -> None:
    values = {k: v for k, v in {":v": S("x"), ":n": N(1), ":s": {"SS": ["x"]}}.items() if k in expression}
    assert_validation(INVALID + "Cannot update attribute pk. This attribute is part of the key",
                      update_item, ddb, table, expression, values)


def test_updating_a_sort_key_attribute(ddb: Any, table_hr: str) -> None:
    for updates in ({"UpdateExpression": "SET sk = :v", "ExpressionAttributeValues": {":v": N(2)}},
                    {"AttributeUpdates": {"sk": {"Action": "PUT", "Value": N(2)}}}):
        assert_validation(INVALID + "Cannot update attribute sk. This attribute is part of the key",
                          ddb.update_item, TableName=table_hr, Key={"pk": S("a"), "sk": N(1)}, **updates)
    # a member named like the key inside another attribute is not the key
    key = {"pk": S("a"), "sk": N(1)}
    ddb.update_item(TableName=table_hr, Key=key, UpdateExpression="SET m = :m", ExpressionAttributeValues={":m": {"M": {}}})
    out = ddb.update_item(TableName=table_hr, Key=key, UpdateExpression="SET m.sk = :v, m.pk = :v",
                          ExpressionAttributeValues={":v": N(2)}, ReturnValues="ALL_NEW")
    assert out["Attributes"] == {**key, "m": {"M": {"sk": N(2), "pk": N(2)}}}


# --- ExpressionAttributeNames / ExpressionAttributeValues -------------------------------------------

def test_unused_placeholders(ddb: Any, table: str) -> None:
    assert_validation("Value provided in ExpressionAttributeNames unused in expressions: keys: {#unused}",
                      update_item, ddb, table, "SET attr1 = :v", {":v": S("val")}, {"#unused": "someattr"})
    assert_validation("Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}",
                      update_item, ddb, table, "SET attr1 = :v", {":v": S("val"), ":unused": S("extra")})
    assert_validation("Value provided in ExpressionAttributeNames unused in expressions: keys: {#b, #c}",
                      put_condition, ddb, table, "a = :v", V1, {"#b": "x", "#c": "y"})
    # names are reported before values
    assert_validation("Value provided in ExpressionAttributeNames unused in expressions: keys: {#u}",
                      put_condition, ddb, table, "a = :v", {":v": N(1), ":w": N(2)}, {"#u": "x"})
    # a placeholder used by any expression of the request counts as used
    update_item(ddb, table, "SET #a = :v", {":v": N(1), ":w": N(1)}, {"#a": "a"}, ConditionExpression="#a <> :w")


def test_empty_and_invalid_placeholder_maps(ddb: Any, table: str) -> None:
    assert_validation(ENV + "ExpressionAttributeNames must not be empty",
                      ddb.put_item, TableName=table, Item=ITEM, ConditionExpression="a = :v",
                      ExpressionAttributeNames={}, ExpressionAttributeValues=V1)
    assert_validation(ENV + "ExpressionAttributeValues must not be empty",
                      ddb.put_item, TableName=table, Item=ITEM, ConditionExpression="a = s", ExpressionAttributeValues={})
    assert_validation('ExpressionAttributeNames contains invalid key: Syntax error; key: "x"',
                      put_condition, ddb, table, "a = :v", V1, {"x": "a"})
    assert_validation('ExpressionAttributeNames contains invalid key: Syntax error; key: "#a-b"',
                      put_condition, ddb, table, "a = :v", V1, {"#a-b": "a"})
    assert_validation('ExpressionAttributeValues contains invalid key: Syntax error; key: "v"',
                      put_condition, ddb, table, "a = :v", {"v": N(1)})
    assert_validation("ExpressionAttributeValues contains invalid value: Supplied AttributeValue is empty, must "
                      "contain exactly one of the supported datatypes for key :v",
                      put_condition, ddb, table, "a = :v", {":v": {}})
    # a value rule is said as in an item, without the wrapper (issue 36)
    assert_validation(ENV + "The parameter cannot be converted to a numeric value: x",
                      put_condition, ddb, table, "a = :v", {":v": {"N": "x"}})
    assert_validation(ENV + "Number overflow. Attempting to store a number with magnitude larger than supported range",
                      update_item, ddb, table, "SET a = a + :v", {":v": N("1E+126")})


def test_placeholders_without_expressions(ddb: Any, table: str) -> None:
    key = {"pk": S("e")}
    # PutItem, DeleteItem, UpdateItem: in the envelope, PutItem's and DeleteItem's without the
    # "...: ConditionExpression is null" tail (issue 36)
    assert_validation(ENV + "ExpressionAttributeNames can only be specified when using expressions",
                      ddb.put_item, TableName=table, Item=ITEM, ExpressionAttributeNames={"#a": "a"})
    assert_validation(ENV + "ExpressionAttributeValues can only be specified when using expressions",
                      ddb.put_item, TableName=table, Item=ITEM, ExpressionAttributeValues=V1)
    assert_validation(ENV + "ExpressionAttributeValues can only be specified when using expressions",
                      ddb.delete_item, TableName=table, Key=key, ExpressionAttributeValues=V1)
    assert_validation(ENV + "ExpressionAttributeValues can only be specified when using expressions: "
                      "UpdateExpression and ConditionExpression are null",
                      ddb.update_item, TableName=table, Key=key, ExpressionAttributeValues=V1)
    assert_validation(ENV + "ExpressionAttributeNames can only be specified when using expressions",
                      ddb.update_item, TableName=table, Key=key, ExpressionAttributeNames={"#a": "a"})
    assert_validation("ExpressionAttributeNames can only be specified when using expressions",
                      ddb.get_item, TableName=table, Key=key, ExpressionAttributeNames={"#a": "a"})
    assert_validation(ENV + "ExpressionAttributeValues can only be specified when using expressions",
                      ddb.put_item, TableName=table, Item=ITEM, Expected={"a": {"Exists": False}},
                      ExpressionAttributeValues=V1)


def test_get_item_ignores_values_it_does_not_take(ddb: Any, table: str, server_url: str) -> None:
    # GetItem has no ExpressionAttributeValues member (boto3 refuses it); the service ignores it.
    ddb.put_item(TableName=table, Item=ITEM)
    body = {"TableName": table, "Key": {"pk": S("e")}, "ProjectionExpression": "a", "ExpressionAttributeValues": V1}
    status, _, data = raw(server_url, json.dumps(body), target="DynamoDB_20120810.GetItem")
    assert status == 200 and json.loads(data) == {"Item": {"a": N(1)}}


# --- legacy parameters and mixing -------------------------------------------------------------------

def test_mixing_expression_and_legacy_parameters(ddb: Any, table: str) -> None:
    key = {"pk": S("e")}
    put = {"AttributeUpdates": {"a": {"Action": "PUT", "Value": N(1)}}}
    assert_validation(MIXING + "Non-expression parameters: {Expected} Expression parameters: {ConditionExpression}",
                      ddb.put_item, TableName=table, Item=ITEM, Expected={"pk": {"Exists": False}},
                      ConditionExpression="attribute_not_exists(pk)")
    assert_validation(MIXING + "Non-expression parameters: {ConditionalOperator} Expression parameters: "
                      "{ConditionExpression}", ddb.delete_item, TableName=table, Key=key, ConditionalOperator="AND",
                      ConditionExpression="attribute_exists(pk)")
    assert_validation(MIXING + "Non-expression parameters: {AttributeUpdates} Expression parameters: {UpdateExpression}",
                      ddb.update_item, TableName=table, Key=key, UpdateExpression="SET attr1 = :v",
                      ExpressionAttributeValues={":v": S("val")}, **put)
    assert_validation(MIXING + "Non-expression parameters: {AttributeUpdates} Expression parameters: "
                      "{ConditionExpression}", ddb.update_item, TableName=table, Key=key,
                      ConditionExpression="attribute_exists(a)", **put)
    assert_validation(MIXING + "Non-expression parameters: {Expected} Expression parameters: {UpdateExpression}",
                      ddb.update_item, TableName=table, Key=key, UpdateExpression="SET a = :v",
                      ExpressionAttributeValues=V1, Expected={"a": {"Exists": False}})
    assert_validation(MIXING + "Non-expression parameters: {AttributeUpdates, Expected} Expression parameters: "
                      "{UpdateExpression, ConditionExpression}", ddb.update_item, TableName=table, Key=key,
                      UpdateExpression="SET a = :v", ConditionExpression="a = :v", ExpressionAttributeValues=V1,
                      Expected={"a": {"Exists": False}}, **put)


EXPECTED_ERRORS: list[tuple[dict[str, Any], str]] = [
    ({"a": {"ComparisonOperator": "EQ"}},
     INVALID + "Value or AttributeValueList must be used with ComparisonOperator: EQ for Attribute: a"),
    ({"a": {"ComparisonOperator": "EQ", "Exists": True, "Value": N(1)}},
     INVALID + "Exists and ComparisonOperator cannot be used together for Attribute: a"),
    ({"a": {"ComparisonOperator": "EQ", "Value": N(1), "AttributeValueList": [N(1)]}},
     INVALID + "Value and AttributeValueList cannot be used together for Attribute: a"),
    ({"a": {"ComparisonOperator": "EQ", "AttributeValueList": [N(1), N(2)]}},
     INVALID + "Invalid number of argument(s) for the EQ ComparisonOperator"),
    ({"a": {"ComparisonOperator": "NULL", "AttributeValueList": [N(1)]}},
     INVALID + "Invalid number of argument(s) for the NULL ComparisonOperator"),
    ({"a": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [N(1)]}},
     INVALID + "Invalid number of argument(s) for the BETWEEN ComparisonOperator"),
    ({"a": {"ComparisonOperator": "IN", "AttributeValueList": [N(1), S("2")]}},
     INVALID + "AttributeValues inside AttributeValueList must be of same type"),
    ({"a": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [N(3), N(2)]}},
     "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"),
    ({"a": {"AttributeValueList": [N(3)]}},
     INVALID + "AttributeValueList can only be used with a ComparisonOperator for Attribute: a"),
    ({"a": {}}, INVALID + "Value must be provided when Exists is null for Attribute: a"),
    ({"a": {"Exists": True}}, INVALID + "Value must be provided when Exists is true for Attribute: a"),
    ({"a": {"Exists": False, "Value": N(1)}}, INVALID + "Value cannot be used when Exists is false for Attribute: a"),
]


@pytest.mark.parametrize(("expected", "message"), EXPECTED_ERRORS, ids=[str(i) for i in range(len(EXPECTED_ERRORS))])
def test_expected_errors(ddb: Any, table: str, expected: dict[str, Any], message: str) -> None:
    # the Expected family, in the envelope (issue 36)
    assert_validation(ENV + message, ddb.put_item, TableName=table, Item=ITEM, Expected=expected)


def test_attribute_updates_errors(ddb: Any, table: str) -> None:
    key = {"pk": S("e")}
    for updates, message in [
        ({"a": {"Action": "PUT"}}, INVALID + "Only DELETE action is allowed when no attribute value is specified"),
        ({"a": {"Action": "ADD"}}, INVALID + "Only DELETE action is allowed when no attribute value is specified"),
        ({"a": {"Action": "DELETE", "Value": S("x")}}, INVALID + "DELETE action with value is not supported for the type S"),
        ({"a": {"Action": "ADD", "Value": S("x")}}, INVALID + "ADD action is not supported for the type S"),
        ({"a": {"Action": "ADD", "Value": {"M": {}}}}, INVALID + "ADD action is not supported for the type M"),
        ({"pk": {"Action": "PUT", "Value": S("x")}}, INVALID + "Cannot update attribute pk. This attribute is part of the key"),
    ]:
        assert_validation(message, ddb.update_item, TableName=table, Key=key, AttributeUpdates=updates)
    ddb.put_item(TableName=table, Item=ITEM)
    assert_validation("Type mismatch for attribute to update", ddb.update_item, TableName=table, Key=key,
                      AttributeUpdates={"s": {"Action": "ADD", "Value": N(1)}})


# --- limits -----------------------------------------------------------------------------------------

def _chain(clause: str, joiner: str, size: int) -> str:
    """Clauses ``clause.format(i)`` joined to exactly ``size`` bytes (the last name padded)."""
    parts: list[str] = []
    total = 0
    i = 0
    while True:
        part = clause.format(f"a{i}")
        if total + len(joiner) * bool(parts) + len(part) > size:
            break
        total += len(joiner) * bool(parts) + len(part)
        parts.append(part)
        i += 1
    parts[-1] = clause.format(f"a{i - 1}" + "z" * (size - total))
    text = joiner.join(parts)
    assert len(text.encode()) == size
    return text


def test_expression_size_limit(ddb: Any, table: str) -> None:
    condition = _chain("attribute_not_exists({})", " AND ", 4096)
    ddb.put_item(TableName=table, Item={"pk": S("size")}, ConditionExpression=condition)
    over = _chain("attribute_not_exists({})", " AND ", 4097)
    assert_validation(CE + "Expression size has exceeded the maximum allowed size; expression size: 4097",
                      ddb.put_item, TableName=table, Item={"pk": S("size")}, ConditionExpression=over)
    update = _chain("{} = :v", ", ", 4096 - 4)
    update_item(ddb, table, "SET " + update, {":v": N(1)})
    update = _chain("{} = :v", ", ", 4097 - 4)
    assert_validation(UE + "Expression size has exceeded the maximum allowed size;",
                      update_item, ddb, table, "SET " + update, {":v": N(1)})
    # bytes, not characters
    assert_validation(CE + "Expression size has exceeded the maximum allowed size; expression size: 4100",
                      put_condition, ddb, table, "attribute_exists(" + "é" * 2041 + ")")
    # checked first, before the table lookup and before the syntax
    assert_validation(CE + "Expression size has exceeded the maximum allowed size; expression size: 5000",
                      ddb.put_item, TableName="no-such-table", Item=ITEM, ConditionExpression="(" * 5000)


def test_in_operand_limit(ddb: Any, table: str) -> None:
    values = {f":v{i}": N(i) for i in range(101)}
    hundred = "a IN (" + ", ".join(f":v{i}" for i in range(1, 101)) + ")"
    put_condition(ddb, table, "NOT " + hundred + " OR a = :v0", values)  # no item yet: a is absent
    too_many = "a IN (" + ", ".join(f":v{i}" for i in range(101)) + ")"
    assert_validation(CE + "The IN operator is provided with too many operands; number of operands: 101",
                      put_condition, ddb, table, too_many, values)


def test_operator_limit(ddb: Any, table: str) -> None:
    # 150 comparisons, 149 ANDs and a NOT: 300 operators are allowed (no item yet: a is absent)
    text = " AND ".join(["a <> :v"] * 149) + " AND NOT a = :v"
    put_condition(ddb, table, text, V1)
    # the service stops counting at 301, however many there are
    for count in (151, 400):
        text = " AND ".join(["a<:v"] * count)
        assert_validation(CE + "The expression contains too many operators; operator count: 301",
                          put_condition, ddb, table, text, V1)
    text = "SET a = " + " + ".join(["if_not_exists(a,:v)"] * 2) + ", " + ",".join(f"b{i}=b+:v" for i in range(299))
    assert_validation(UE + "The expression contains too many operators; operator count: 301",
                      update_item, ddb, table, text, V1)


# --- robustness: nothing produces a 500 or hangs ---------------------------------------------------

def _send(url: str, operation: str, body: dict[str, Any] | bytes) -> tuple[int, dict[str, Any]]:
    """One raw request. No time is asserted (the machine may be loaded): an input whose cost
    grew exponentially would outlast the client's 30 s socket timeout and fail the test."""
    data = body if isinstance(body, bytes) else json.dumps(body)
    status, _, answer = raw(url, data, target=f"DynamoDB_20120810.{operation}")
    return status, json.loads(answer)


def _bodies(table: str, text: str) -> list[tuple[str, dict[str, Any]]]:
    key = {"pk": S("e")}
    values = {":v": N(1)}
    names = {"#n": "a"}
    return [
        ("PutItem", {"TableName": table, "Item": ITEM, "ConditionExpression": text}),
        ("UpdateItem", {"TableName": table, "Key": key, "UpdateExpression": text}),
        ("DeleteItem", {"TableName": table, "Key": key, "ConditionExpression": text, "ExpressionAttributeValues": values}),
        ("GetItem", {"TableName": table, "Key": key, "ProjectionExpression": text, "ExpressionAttributeNames": names}),
    ]


def _assert_rejected(url: str, table: str, text: str) -> None:
    for operation, body in _bodies(table, text):
        status, answer = _send(url, operation, body)
        assert status == 400, (operation, text[:80], status, answer)
        assert answer["__type"] == "com.amazon.coral.validate#ValidationException", (operation, text[:80], answer)


NASTY = [
    "(" * 4000,
    ")" * 4000,
    "(" * 2000 + "a = :v" + ")" * 2000,
    "(" * 1000 + "a" + ")" * 1000 + " = :v",
    "NOT " * 1000 + "a = :v",
    "size(" * 600 + "a" + ")" * 600 + " = :v",
    "a = :v AND (" * 300 + "a = :v" + ")" * 300,
    "a < b or (" * 370 + "a < b" + ")" * 370,
    "a IN (" + ",".join([":v"] * 1300) + ")",
    "a IN (" + ",".join(["a"] * 2000) + ")",
    "a IN (" + "(" * 1000 + ":v" + ")" * 1000 + ")",
    "SET a = " + "if_not_exists(b, " * 400 + ":v" + ")" * 400,
    "SET a = " + "list_append(" * 400 + ":v, :v" + ")" * 400,
    "#" * 4096,
    ":" * 4096,
    "\x00" * 100,
    "a = :v\x00",
    "a" * 5000,
    "SET " + ", ".join(f"a{i} = :v" for i in range(200)) + " REMOVE " + ", ".join(f"a{i}" for i in range(100)),
]


@pytest.mark.parametrize("text", NASTY, ids=[f"{i}" for i in range(len(NASTY))])
def test_nasty_expressions_are_rejected_quickly(server_url: str, table: str, text: str) -> None:
    _assert_rejected(server_url, table, text)


@pytest.mark.parametrize("text", [
    "a" + "[0]" * 1300 + " = :v",  # deep document paths are valid expressions
    "a" + ".b" * 2000 + " = :v",
    "\ud800",  # a lone surrogate is not valid JSON text
])
def test_odd_expressions_are_answered_quickly(server_url: str, table: str, text: str) -> None:
    for operation, body in _bodies(table, text):
        status, answer = _send(server_url, operation, body)
        assert status in (200, 400), (operation, status, answer)
        if status == 400:
            assert answer["__type"].split("#")[1] in (
                "ValidationException", "ConditionalCheckFailedException", "SerializationException"), answer


def test_random_bytes_never_fail_the_server(server_url: str, table: str) -> None:
    rng = random.Random(1234)
    for _ in range(150):
        raw_bytes = bytes(rng.randrange(256) for _ in range(rng.randint(1, 120)))
        text = raw_bytes.decode("latin-1") + "\x01"  # a control character no expression may hold
        _assert_rejected(server_url, table, text)


def test_random_tokens_never_fail_the_server(server_url: str, table: str) -> None:
    tokens = ["a", "s", "l", "#n", ":v", "(", ")", "[", "]", "0", "1", ".", ",", "=", "<>", "<", "<=", ">", ">=",
              "+", "-", "AND", "OR", "NOT", "BETWEEN", "IN", "SET", "REMOVE", "ADD", "DELETE", "size", "contains",
              "attribute_exists", "attribute_type", "begins_with", "if_not_exists", "list_append", "status", "$"]
    rng = random.Random(99)
    for _ in range(400):
        text = " ".join(rng.choice(tokens) for _ in range(rng.randint(1, 14)))
        for operation, body in _bodies(table, text):
            body.setdefault("ExpressionAttributeValues", {":v": N(1)})
            if operation == "GetItem":
                del body["ExpressionAttributeValues"]
            status, answer = _send(server_url, operation, body)
            assert status in (200, 400), (operation, text, status, answer)
            if status == 400:
                assert answer["__type"].split("#")[1] in ("ValidationException", "ConditionalCheckFailedException"), (
                    operation, text, answer)


def test_invalid_utf8_in_an_expression(server_url: str, table: str) -> None:
    body = json.dumps({"TableName": table, "Item": ITEM, "ConditionExpression": "a = PLACEHOLDER"}).encode()
    body = body.replace(b"PLACEHOLDER", b"\xff\xfe\xc3")
    status, answer = _send(server_url, "PutItem", body)
    assert status == 400, answer


def test_non_string_expressions(server_url: str, table: str) -> None:
    for value in (1, True, ["a = :v"], {"a": 1}):
        body = {"TableName": table, "Item": ITEM, "ConditionExpression": value}
        status, answer = _send(server_url, "PutItem", body)
        assert status == 400, answer
        assert answer["__type"].endswith("SerializationException"), answer
