"""ConditionExpression on PutItem, UpdateItem and DeleteItem, through boto3 against the server.

Semantics from the developer guide, "Comparison operator and function reference" and
"Condition expressions": comparisons between different types are false (``<>`` is the
negation of ``=``), ``< <= > >= BETWEEN`` order only strings, numbers and binary, NOT binds
tighter than AND, which binds tighter than OR. A failed condition is
ConditionalCheckFailedException "The conditional request failed" (API reference, PutItem),
carrying the old item when ReturnValuesOnConditionCheckFailure is ALL_OLD.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import B, N, S, assert_error

_ids = itertools.count()





ITEM: dict[str, Any] = {
    "pk": S("cond"),
    "s": S("hello"),
    "u": S("é𝄞"),  # 3 UTF-16 code units
    "e": S(""),
    "n": N(5),
    "n2": N(3),
    "neg": N("-2.5"),
    "b": B(b"\x01\x02\x03"),
    "hi": B(b"\xff"),
    "t": {"BOOL": True},
    "f": {"BOOL": False},
    "z": {"NULL": True},
    "l": {"L": [S("a"), N(1), {"L": []}, {"M": {}}]},
    "m": {"M": {"part": {"M": {"deep": {"SS": ["x", "y"]}}}, "k": S("v")}},
    "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2.5"]},
    "bs": {"BS": [b"\x01", b"\x02"]},
    "Status": S("ok"),  # a reserved word, reachable only through a placeholder
}


@pytest.fixture(scope="module")
def ctable(ddb: Any) -> Iterator[str]:
    """One table holding ITEM for the whole module; conditional puts rewrite it unchanged."""
    name = f"expr-cond-{next(_ids)}"
    ddb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    ddb.put_item(TableName=name, Item=ITEM)
    yield name
    ddb.delete_table(TableName=name)


def holds(ddb: Any, table: str, expression: str, values: dict[str, Any] | None = None,
          names: dict[str, str] | None = None) -> bool:
    """Whether ``expression`` is true of ITEM: a conditional put of the same item succeeds."""
    kwargs: dict[str, Any] = {"ConditionExpression": expression}
    if values:
        kwargs["ExpressionAttributeValues"] = values
    if names:
        kwargs["ExpressionAttributeNames"] = names
    try:
        ddb.put_item(TableName=table, Item=ITEM, **kwargs)
    except ClientError as e:
        err = e.response["Error"]
        assert err["Code"] == "ConditionalCheckFailedException", err
        assert err["Message"] == "The conditional request failed"
        return False
    return True


# (expression, values, expected)
COMPARISONS: list[tuple[str, dict[str, Any], bool]] = [
    # numbers, compared by value
    ("n = :v", {":v": N(5)}, True),
    ("n = :v", {":v": N("5.00")}, True),
    ("n = :v", {":v": N(6)}, False),
    ("n <> :v", {":v": N(6)}, True),
    ("n <> :v", {":v": N("5.0")}, False),
    ("n < :v", {":v": N(6)}, True),
    ("n < :v", {":v": N(5)}, False),
    ("n <= :v", {":v": N(5)}, True),
    ("n <= :v", {":v": N("4.99")}, False),
    ("n > :v", {":v": N(-10)}, True),
    ("n > :v", {":v": N(5)}, False),
    ("n >= :v", {":v": N(5)}, True),
    ("n >= :v", {":v": N("5.01")}, False),
    ("neg < :v", {":v": N("-2.4")}, True),
    ("n > n2", {}, True),
    ("n2 >= n", {}, False),
    (":v < n", {":v": N(1)}, True),
    # strings, by code point
    ("s = :v", {":v": S("hello")}, True),
    ("s < :v", {":v": S("help")}, True),
    ("s > :v", {":v": S("Hello")}, True),
    ("s >= :v", {":v": S("hello!")}, False),
    ("e = :v", {":v": S("")}, True),
    ("e < :v", {":v": S("a")}, True),
    # binary, unsigned bytes
    ("b = :v", {":v": B(b"\x01\x02\x03")}, True),
    ("b < :v", {":v": B(b"\x02")}, True),
    ("hi > :v", {":v": B(b"\x7f\xff")}, True),
    ("b <= :v", {":v": B(b"\x01\x02")}, False),
    # other types: equality only
    ("t = :v", {":v": {"BOOL": True}}, True),
    ("t <> :v", {":v": {"BOOL": False}}, True),
    ("t > s", {}, False),  # an unorderable attribute compares false (a value: ValidationException)
    ("z = :v", {":v": {"NULL": True}}, True),
    ("ss = :v", {":v": {"SS": ["b", "a"]}}, True),
    ("ns = :v", {":v": {"NS": ["2.50", "1"]}}, True),
    ("bs = :v", {":v": {"BS": [b"\x02", b"\x01"]}}, True),
    ("ss = :v", {":v": {"SS": ["a"]}}, False),
    ("ss < s", {}, False),
    ("l = :v", {":v": ITEM["l"]}, True),
    ("l = :v", {":v": {"L": [N(1), S("a"), {"L": []}, {"M": {}}]}}, False),  # lists are ordered
    ("m = :v", {":v": ITEM["m"]}, True),
    ("m.part = :v", {":v": {"M": {"deep": {"SS": ["y", "x"]}}}}, True),
    ("l < n", {}, False),
    # types must match, or the comparison is false
    ("n = :v", {":v": S("5")}, False),
    ("n <> :v", {":v": S("5")}, True),
    ("n < :v", {":v": S("9")}, False),
    ("s > :v", {":v": N(1)}, False),
    ("b = :v", {":v": S("\x01\x02\x03")}, False),
    ("ss = :v", {":v": {"L": [S("a"), S("b")]}}, False),
    ("n >= s", {}, False),
    # an absent attribute ("gone") compares false, except with <>
    ("gone = :v", {":v": N(5)}, False),
    ("gone <> :v", {":v": N(5)}, True),
    ("gone < :v", {":v": N(5)}, False),
    ("gone >= :v", {":v": N(5)}, False),
    ("m.nope = :v", {":v": S("v")}, False),
    ("m.k = :v", {":v": S("v")}, True),
    ("l[0] = :v", {":v": S("a")}, True),
    ("l[1] > :v", {":v": N(0)}, True),
    ("l[9] = :v", {":v": S("a")}, False),
    ("s.x = :v", {":v": S("a")}, False),  # a path through a non-map
    ("s[0] = :v", {":v": S("h")}, False),  # a path through a non-list
    # BETWEEN, inclusive, ordered types only
    ("n BETWEEN :a AND :b", {":a": N(1), ":b": N(5)}, True),
    ("n BETWEEN :a AND :b", {":a": N(5), ":b": N(5)}, True),
    ("n BETWEEN :a AND :b", {":a": N(6), ":b": N(10)}, False),
    ("s BETWEEN :a AND :b", {":a": S("a"), ":b": S("i")}, True),
    ("s BETWEEN :a AND :b", {":a": S("hellp"), ":b": S("z")}, False),
    ("b BETWEEN :a AND :b", {":a": B(b"\x01"), ":b": B(b"\x01\x03")}, True),
    ("n BETWEEN :a AND :b", {":a": S("a"), ":b": S("z")}, False),
    ("gone BETWEEN :a AND :b", {":a": N(1), ":b": N(9)}, False),
    ("t BETWEEN :a AND :b", {":a": S("a"), ":b": S("z")}, False),
    ("n BETWEEN n2 AND :b", {":b": N(9)}, True),
    # IN
    ("n IN (:a, :b)", {":a": N(1), ":b": N("5.0")}, True),
    ("n IN (:a)", {":a": N(4)}, False),
    ("n IN (:a, :b)", {":a": S("5"), ":b": N(6)}, False),
    ("s IN (:a, :b, :c)", {":a": S("x"), ":b": S("y"), ":c": S("hello")}, True),
    ("ss IN (:a)", {":a": {"SS": ["b", "a"]}}, True),
    ("gone IN (:a)", {":a": N(1)}, False),
    ("n IN (n2, :a)", {":a": N(5)}, True),
    ("m.k IN (:a)", {":a": S("v")}, True),
    # placeholders for names
    ("#s = :v", {":v": S("ok")}, True),
]


@pytest.mark.parametrize(("expression", "values", "expected"), COMPARISONS, ids=[c[0] for c in COMPARISONS])
def test_comparisons(ddb: Any, ctable: str, expression: str, values: dict[str, Any], expected: bool) -> None:
    names = {"#s": "Status"} if "#s" in expression else None
    assert holds(ddb, ctable, expression, values, names) is expected


LOGIC: list[tuple[str, bool]] = [
    ("n = :five AND s = :hello", True),
    ("n = :five AND s = :nope", False),
    ("n = :one OR s = :hello", True),
    ("n = :one OR s = :nope", False),
    ("NOT n = :one", True),
    ("NOT n = :five", False),
    ("NOT NOT n = :five", True),
    # AND binds tighter than OR
    ("n = :five OR n = :one AND s = :nope", True),
    ("(n = :five OR n = :one) AND s = :nope", False),
    ("s = :nope AND n = :one OR n = :five", True),
    ("s = :nope AND (n = :one OR n = :five)", False),
    # NOT binds tighter than AND and OR
    ("NOT n = :five AND n = :one", False),
    ("NOT (n = :five AND n = :one)", True),
    ("NOT n = :one OR n = :five", True),
    ("NOT (n = :one OR n = :five)", False),
    ("NOT s = :nope AND NOT n = :one", True),
    # parentheses anywhere a condition or operand may stand
    ("(n = :five)", True),
    ("((n = :five) AND (s = :hello))", True),
    ("(n) = :five", True),
    ("n = (:five)", True),
    ("(n = :one OR (s = :hello AND (n = :five)))", True),
    # long chains
    ("n = :one OR n = :one OR n = :one OR n = :five", True),
    ("n = :five AND n = :five AND s = :hello AND s = :nope", False),
    # keywords are case-insensitive
    ("n = :five and not s = :nope or n = :one", True),
    ("n between :one and :five", True),
    ("n in (:one, :five)", True),
]
LOGIC_VALUES = {":one": N(1), ":five": N(5), ":hello": S("hello"), ":nope": S("nope")}


@pytest.mark.parametrize(("expression", "expected"), LOGIC, ids=[c[0] for c in LOGIC])
def test_logic_and_precedence(ddb: Any, ctable: str, expression: str, expected: bool) -> None:
    values = {k: v for k, v in LOGIC_VALUES.items() if k in expression}
    assert holds(ddb, ctable, expression, values) is expected


FUNCTIONS: list[tuple[str, dict[str, Any], bool]] = [
    ("attribute_exists(n)", {}, True),
    ("attribute_exists(gone)", {}, False),
    ("attribute_exists(z)", {}, True),  # a NULL value is present
    ("attribute_exists(e)", {}, True),
    ("attribute_exists(m.part.deep)", {}, True),
    ("attribute_exists(m.part.nope)", {}, False),
    ("attribute_exists(l[3])", {}, True),
    ("attribute_exists(l[4])", {}, False),
    ("attribute_exists(s.x)", {}, False),
    ("attribute_exists(#s)", {}, True),
    ("attribute_not_exists(gone)", {}, True),
    ("attribute_not_exists(n)", {}, False),
    ("attribute_not_exists(m.part.deep)", {}, False),
    ("attribute_not_exists(l[7])", {}, True),
    ("NOT attribute_exists(gone)", {}, True),
    # attribute_type for every type
    ("attribute_type(s, :t)", {":t": S("S")}, True),
    ("attribute_type(n, :t)", {":t": S("N")}, True),
    ("attribute_type(b, :t)", {":t": S("B")}, True),
    ("attribute_type(t, :t)", {":t": S("BOOL")}, True),
    ("attribute_type(z, :t)", {":t": S("NULL")}, True),
    ("attribute_type(l, :t)", {":t": S("L")}, True),
    ("attribute_type(m, :t)", {":t": S("M")}, True),
    ("attribute_type(ss, :t)", {":t": S("SS")}, True),
    ("attribute_type(ns, :t)", {":t": S("NS")}, True),
    ("attribute_type(bs, :t)", {":t": S("BS")}, True),
    ("attribute_type(l[2], :t)", {":t": S("L")}, True),
    ("attribute_type(m.part.deep, :t)", {":t": S("SS")}, True),
    ("attribute_type(n, :t)", {":t": S("S")}, False),
    ("attribute_type(ss, :t)", {":t": S("L")}, False),
    ("attribute_type(gone, :t)", {":t": S("NULL")}, False),
    # begins_with on strings and binary
    ("begins_with(s, :p)", {":p": S("hel")}, True),
    ("begins_with(s, :p)", {":p": S("hello")}, True),
    ("begins_with(s, :p)", {":p": S("")}, True),
    ("begins_with(s, :p)", {":p": S("lo")}, False),
    ("begins_with(s, :p)", {":p": S("Hel")}, False),
    ("begins_with(b, :p)", {":p": B(b"\x01\x02")}, True),
    ("begins_with(b, :p)", {":p": B(b"\x02")}, False),
    ("begins_with(b, :p)", {":p": S("\x01")}, False),
    ("begins_with(n, :p)", {":p": S("5")}, False),
    ("begins_with(l[0], :p)", {":p": S("a")}, True),
    ("begins_with(gone, :p)", {":p": S("a")}, False),
    ("begins_with(s, m.k)", {}, False),
    # contains on strings, binary, sets and lists
    ("contains(s, :v)", {":v": S("ell")}, True),
    ("contains(s, :v)", {":v": S("hello")}, True),
    ("contains(s, :v)", {":v": S("xyz")}, False),
    ("contains(s, :v)", {":v": N(1)}, False),
    ("contains(b, :v)", {":v": B(b"\x02\x03")}, True),
    ("contains(b, :v)", {":v": B(b"\x03\x02")}, False),
    ("contains(ss, :v)", {":v": S("a")}, True),
    ("contains(ss, :v)", {":v": S("c")}, False),
    ("contains(ss, :v)", {":v": S("")}, False),
    ("contains(ns, :v)", {":v": N("2.50")}, True),
    ("contains(ns, :v)", {":v": S("1")}, False),
    ("contains(bs, :v)", {":v": B(b"\x02")}, True),
    ("contains(bs, :v)", {":v": B(b"\x03")}, False),
    ("contains(l, :v)", {":v": N("1.0")}, True),
    ("contains(l, :v)", {":v": S("a")}, True),
    ("contains(l, :v)", {":v": S("1")}, False),
    ("contains(l, :v)", {":v": {"L": []}}, True),
    ("contains(m.part.deep, :v)", {":v": S("y")}, True),
    ("contains(n, :v)", {":v": N(5)}, False),
    ("contains(m, :v)", {":v": S("k")}, False),
    ("contains(gone, :v)", {":v": S("a")}, False),
    ("contains(s, m.k)", {}, False),
    ("contains(ss, l[0])", {}, True),
    ("NOT contains(ss, :v)", {":v": S("c")}, True),
    # size of every type
    ("size(s) = :v", {":v": N(5)}, True),
    ("size(u) = :v", {":v": N(3)}, True),
    ("size(e) = :v", {":v": N(0)}, True),
    ("size(b) = :v", {":v": N(3)}, True),
    ("size(ss) = :v", {":v": N(2)}, True),
    ("size(ns) = :v", {":v": N(2)}, True),
    ("size(bs) = :v", {":v": N(2)}, True),
    ("size(l) = :v", {":v": N(4)}, True),
    ("size(m) = :v", {":v": N(2)}, True),
    ("size(m.part.deep) = :v", {":v": N(2)}, True),
    ("size(l[2]) = :v", {":v": N(0)}, True),
    ("size(s) > :v", {":v": N(4)}, True),
    ("size(s) < :v", {":v": N(5)}, False),
    ("size(s) BETWEEN :a AND :b", {":a": N(1), ":b": N(9)}, True),
    ("size(s) IN (:a, :b)", {":a": N(1), ":b": N(5)}, True),
    ("size(s) > size(b)", {}, True),
    ("size(n) = :v", {":v": N(1)}, False),  # numbers have no size
    ("size(t) = :v", {":v": N(1)}, False),
    ("size(z) = :v", {":v": N(0)}, False),
    ("size(gone) = :v", {":v": N(0)}, False),
    ("size(s) = :v", {":v": S("5")}, False),
    ("size(s) = n", {}, True),
    ("#s = :v AND size(#s) = :two", {":v": S("ok"), ":two": N(2)}, True),
]


@pytest.mark.parametrize(("expression", "values", "expected"), FUNCTIONS,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(FUNCTIONS)])
def test_functions(ddb: Any, ctable: str, expression: str, values: dict[str, Any], expected: bool) -> None:
    names = {"#s": "Status"} if "#s" in expression else None
    assert holds(ddb, ctable, expression, values, names) is expected


# --- the three write operations ------------------------------------------------------------------


def test_put_if_absent(table: str, ddb: Any) -> None:
    item = {"pk": S("p"), "v": N(1)}
    ddb.put_item(TableName=table, Item=item, ConditionExpression="attribute_not_exists(pk)")
    assert_error("ConditionalCheckFailedException", "The conditional request failed",
                 ddb.put_item, TableName=table, Item={"pk": S("p"), "v": N(2)},
                 ConditionExpression="attribute_not_exists(pk)")
    assert ddb.get_item(TableName=table, Key={"pk": S("p")})["Item"] == item


def test_condition_on_missing_item_sees_no_attributes(table: str, ddb: Any) -> None:
    key = {"pk": S("none")}
    for op in (ddb.delete_item, ddb.update_item):
        assert_error("ConditionalCheckFailedException", "The conditional request failed",
                     op, TableName=table, Key=key, ConditionExpression="attribute_exists(pk)")
    assert_error("ConditionalCheckFailedException", "The conditional request failed",
                 ddb.update_item, TableName=table, Key=key, ConditionExpression="v = :v",
                 UpdateExpression="SET w = :v", ExpressionAttributeValues={":v": N(1)})
    # <> holds for an absent attribute, so for an absent item too
    ddb.update_item(TableName=table, Key=key, ConditionExpression="v <> :v", UpdateExpression="SET v = :v",
                    ExpressionAttributeValues={":v": N(1)})
    assert ddb.get_item(TableName=table, Key=key)["Item"] == {"pk": S("none"), "v": N(1)}
    ddb.delete_item(TableName=table, Key=key, ConditionExpression="attribute_exists(v)")
    assert "Item" not in ddb.get_item(TableName=table, Key=key)


def test_delete_with_condition(table: str, ddb: Any) -> None:
    key = {"pk": S("d")}
    ddb.put_item(TableName=table, Item={**key, "state": S("open"), "n": N(3)})
    assert_error("ConditionalCheckFailedException", "The conditional request failed",
                 ddb.delete_item, TableName=table, Key=key, ConditionExpression="#st = :closed",
                 ExpressionAttributeNames={"#st": "state"}, ExpressionAttributeValues={":closed": S("open!")})
    assert "Item" in ddb.get_item(TableName=table, Key=key)
    out = ddb.delete_item(TableName=table, Key=key, ConditionExpression="#st = :open AND n BETWEEN :a AND :b",
                          ExpressionAttributeNames={"#st": "state"},
                          ExpressionAttributeValues={":open": S("open"), ":a": N(1), ":b": N(3)},
                          ReturnValues="ALL_OLD")
    assert out["Attributes"] == {**key, "state": S("open"), "n": N(3)}
    assert "Item" not in ddb.get_item(TableName=table, Key=key)


def test_update_condition_sees_the_old_item(table: str, ddb: Any) -> None:
    key = {"pk": S("u")}
    ddb.put_item(TableName=table, Item={**key, "version": N(1)})
    update = {"UpdateExpression": "SET version = version + :one", "ConditionExpression": "version = :expected"}
    ddb.update_item(TableName=table, Key=key, ExpressionAttributeValues={":one": N(1), ":expected": N(1)}, **update)
    assert_error("ConditionalCheckFailedException", "The conditional request failed",
                 ddb.update_item, TableName=table, Key=key,
                 ExpressionAttributeValues={":one": N(1), ":expected": N(1)}, **update)
    ddb.update_item(TableName=table, Key=key, ExpressionAttributeValues={":one": N(1), ":expected": N(2)}, **update)
    assert ddb.get_item(TableName=table, Key=key)["Item"]["version"] == N(3)


def test_condition_with_names_and_values_shared_by_update(table: str, ddb: Any) -> None:
    key = {"pk": S("shared")}
    ddb.put_item(TableName=table, Item={**key, "count": N(4)})
    out = ddb.update_item(
        TableName=table, Key=key, UpdateExpression="SET #c = #c - :d", ConditionExpression="#c >= :d",
        ExpressionAttributeNames={"#c": "count"}, ExpressionAttributeValues={":d": N(4)}, ReturnValues="UPDATED_NEW",
    )
    assert out["Attributes"] == {"count": N(0)}
    assert_error("ConditionalCheckFailedException", "The conditional request failed",
                 ddb.update_item, TableName=table, Key=key, UpdateExpression="SET #c = #c - :d",
                 ConditionExpression="#c >= :d", ExpressionAttributeNames={"#c": "count"},
                 ExpressionAttributeValues={":d": N(4)})


# --- ReturnValuesOnConditionCheckFailure --------------------------------------------------------


def _failure(call: Any, **kwargs: Any) -> dict[str, Any]:
    with pytest.raises(ClientError) as info:
        call(**kwargs)
    response: dict[str, Any] = info.value.response
    assert response["Error"]["Code"] == "ConditionalCheckFailedException"
    assert response["Error"]["Message"] == "The conditional request failed"
    return response


def test_return_values_on_condition_check_failure(table: str, ddb: Any) -> None:
    key = {"pk": S("rv")}
    old = {**key, "v": N(1), "l": {"L": [S("x")]}, "b": B(b"\x00\xff")}
    ddb.put_item(TableName=table, Item=old)
    fail = {"ConditionExpression": "v = :two", "ExpressionAttributeValues": {":two": N(2)}}
    calls = [
        (ddb.put_item, {"Item": {**key, "v": N(9)}}),
        (ddb.update_item, {"Key": key, "UpdateExpression": "SET v = :two"}),
        (ddb.delete_item, {"Key": key}),
    ]
    for call, args in calls:
        response = _failure(call, TableName=table, ReturnValuesOnConditionCheckFailure="ALL_OLD", **args, **fail)
        assert response["Item"] == old
        response = _failure(call, TableName=table, ReturnValuesOnConditionCheckFailure="NONE", **args, **fail)
        assert "Item" not in response
        response = _failure(call, TableName=table, **args, **fail)
        assert "Item" not in response
    assert ddb.get_item(TableName=table, Key=key)["Item"] == old


def test_return_values_on_condition_check_failure_for_missing_item(table: str, ddb: Any) -> None:
    response = _failure(ddb.delete_item, TableName=table, Key={"pk": S("absent")},
                        ConditionExpression="attribute_exists(pk)", ReturnValuesOnConditionCheckFailure="ALL_OLD")
    assert "Item" not in response


def test_legacy_expected_failure_returns_old_item(table: str, ddb: Any) -> None:
    key = {"pk": S("exp")}
    ddb.put_item(TableName=table, Item={**key, "v": N(1)})
    response = _failure(ddb.put_item, TableName=table, Item=key, Expected={"v": {"Value": N(2)}},
                        ReturnValuesOnConditionCheckFailure="ALL_OLD")
    assert response["Item"] == {**key, "v": N(1)}


# --- legacy Expected, evaluated ------------------------------------------------------------------

EXPECTED: list[tuple[dict[str, Any], str | None, bool]] = [
    ({"n": {"Value": N(5)}}, None, True),
    ({"n": {"Value": N(6)}}, None, False),
    ({"n": {"Exists": True, "Value": N(5)}}, None, True),
    ({"gone": {"Exists": False}}, None, True),
    ({"n": {"Exists": False}}, None, False),
    ({"n": {"ComparisonOperator": "EQ", "AttributeValueList": [N(5)]}}, None, True),
    ({"n": {"ComparisonOperator": "NE", "AttributeValueList": [N(5)]}}, None, False),
    ({"gone": {"ComparisonOperator": "NE", "AttributeValueList": [N(5)]}}, None, True),
    ({"n": {"ComparisonOperator": "LT", "Value": N(6)}}, None, True),
    ({"n": {"ComparisonOperator": "LE", "AttributeValueList": [N(4)]}}, None, False),
    ({"s": {"ComparisonOperator": "GT", "AttributeValueList": [S("a")]}}, None, True),
    ({"s": {"ComparisonOperator": "GE", "AttributeValueList": [S("z")]}}, None, False),
    ({"n": {"ComparisonOperator": "NOT_NULL"}}, None, True),
    ({"gone": {"ComparisonOperator": "NULL"}}, None, True),
    ({"s": {"ComparisonOperator": "CONTAINS", "AttributeValueList": [S("ell")]}}, None, True),
    ({"ss": {"ComparisonOperator": "NOT_CONTAINS", "AttributeValueList": [S("c")]}}, None, True),
    ({"s": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [S("he")]}}, None, True),
    ({"n": {"ComparisonOperator": "IN", "AttributeValueList": [N(1), N(5)]}}, None, True),
    ({"n": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [N(1), N(4)]}}, None, False),
    ({"n": {"Value": N(5)}, "s": {"Value": S("nope")}}, None, False),
    ({"n": {"Value": N(5)}, "s": {"Value": S("nope")}}, "AND", False),
    ({"n": {"Value": N(5)}, "s": {"Value": S("nope")}}, "OR", True),
    ({"n": {"Value": N(6)}, "s": {"Value": S("nope")}}, "OR", False),
]


@pytest.mark.parametrize(("expected", "operator", "result"), EXPECTED, ids=[str(i) for i in range(len(EXPECTED))])
def test_legacy_expected(ddb: Any, ctable: str, expected: dict[str, Any], operator: str | None, result: bool) -> None:
    kwargs: dict[str, Any] = {"Expected": expected}
    if operator:
        kwargs["ConditionalOperator"] = operator
    try:
        ddb.put_item(TableName=ctable, Item=ITEM, **kwargs)
        assert result
    except ClientError as e:
        assert e.response["Error"]["Code"] == "ConditionalCheckFailedException"
        assert not result
