"""ConditionExpression / FilterExpression: evaluation of every operator and function, and
every validation error with its full message."""

from __future__ import annotations

import base64
import re

import pytest

from .expr_helpers import N, S, condition, error_message, request


def B(raw: bytes) -> dict:
    return {"B": base64.b64encode(raw).decode()}


ITEM = {
    "pk": S("p1"),
    "s": S("hello"),
    "n": N("10"),
    "n2": N("10.0"),
    "b": B(b"\x01\x02\x03"),
    "t": {"BOOL": True},
    "nul": {"NULL": True},
    "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2.5"]},
    "bs": {"BS": [base64.b64encode(b"x").decode()]},
    "l": {"L": [S("x"), N("1"), {"L": [S("deep")]}]},
    "m": {"M": {"k": S("v"), "inr": {"M": {"z": N("3")}}, "lst": {"L": [N("7")]}}},
    "status": S("active"),
}

VALUES = {
    ":s": S("hello"), ":he": S("he"), ":lo": S("hellp"), ":n5": N("5"), ":n10": N("10"), ":n20": N("20"),
    ":b": B(b"\x01\x02\x03"), ":b1": B(b"\x01"), ":b2": B(b"\x02"), ":true": {"BOOL": True}, ":a": S("a"), ":one": N("1"),
    ":x": S("x"), ":ss": {"SS": ["b", "a"]}, ":ns": {"NS": ["2.50", "1"]}, ":l": {"L": [S("x"), N("1"), {"L": [S("deep")]}]},
    ":tS": S("S"), ":tN": S("N"), ":tSS": S("SS"), ":tL": S("L"), ":tM": S("M"), ":tNULL": S("NULL"), ":tBOOL": S("BOOL"),
    ":tB": S("B"), ":tNS": S("NS"), ":tBS": S("BS"), ":three": N("3"), ":five": N("5"), ":two": N("2"), ":v": S("v"),
    ":deep": S("deep"), ":seven": N("7"), ":ten": N("10.00"),
}

CASES = [
    # comparisons
    ("s = :s", True), ("s = :he", False), ("n = :n10", True), ("n = :ten", True), ("n2 = :n10", True),
    ("s <> :he", True), ("s <> :s", False), ("nope <> :s", True), ("nope = :s", False),
    ("n = :s", False), ("n <> :s", True),
    ("n < :n20", True), ("n <= :n10", True), ("n > :n5", True), ("n >= :n20", False), ("n < :s", False),
    ("s < :lo", True), ("s > :he", True), ("b > :b1", True), ("b < :b2", True), ("nope < :n5", False),
    (":n5 < n", True), ("t = :true", True), ("t > s", False), ("ss = :ss", True), ("ns = :ns", True),
    ("l = :l", True), ("n = n2", True), ("m.k = :v", True), ("m.inr.z = :three", True), ("m.lst[0] = :seven", True),
    ("l[2][0] = :deep", True), ("l[5] = :x", False), ("m.k.z = :v", False), ("s[0] = :s", False),
    # BETWEEN and IN
    ("n BETWEEN :n5 AND :n20", True), ("n BETWEEN :n10 AND :n10", True), ("n BETWEEN :five AND :n5", False),
    ("s BETWEEN :he AND :lo", True), ("n BETWEEN :he AND :lo", False), ("nope BETWEEN :n5 AND :n20", False),
    ("n IN (:n5, :ten)", True), ("n IN (:n5, :n20)", False), ("s IN (:s)", True), ("nope IN (:s)", False),
    ("ss IN (:ss, :a)", True),
    # functions
    ("attribute_exists(s)", True), ("attribute_exists(nope)", False), ("attribute_not_exists(nope)", True),
    ("attribute_exists(m.inr.z)", True), ("attribute_not_exists(l[9])", True), ("attribute_exists(nul)", True),
    ("attribute_type(s, :tS)", True), ("attribute_type(n, :tN)", True), ("attribute_type(ss, :tSS)", True),
    ("attribute_type(l, :tL)", True), ("attribute_type(m, :tM)", True), ("attribute_type(nul, :tNULL)", True),
    ("attribute_type(t, :tBOOL)", True), ("attribute_type(b, :tB)", True), ("attribute_type(ns, :tNS)", True),
    ("attribute_type(bs, :tBS)", True), ("attribute_type(s, :tN)", False), ("attribute_type(nope, :tS)", False),
    ("begins_with(s, :he)", True), ("begins_with(s, :lo)", False), ("begins_with(b, :b1)", True),
    ("begins_with(b, :b2)", False), ("begins_with(n, :he)", False), ("begins_with(nope, :he)", False),
    ("contains(s, :he)", True), ("contains(ss, :a)", True), ("contains(ss, :x)", False), ("contains(ns, :one)", True),
    ("contains(l, :x)", True), ("contains(l, :one)", True), ("contains(b, :b2)", True), ("contains(n, :one)", False),
    ("contains(nope, :a)", False), ("contains(s, n)", False),
    ("size(s) = :five", True), ("size(ss) = :two", True), ("size(l) = :three", True), ("size(m) = :three", True),
    ("size(b) = :three", True), ("size(n) = :two", False), ("size(nope) = :two", False), ("size(s) > :n5", False),
    ("size(s) BETWEEN :n5 AND :n10", True),
    # logic and precedence: NOT > AND > OR
    ("s = :s AND n = :n10", True), ("s = :s AND n = :n5", False), ("s = :he OR n = :n10", True),
    ("NOT s = :he", True), ("NOT (s = :s AND n = :n10)", False), ("NOT NOT s = :s", True),
    ("s = :he AND n = :n5 OR n = :n10", True), ("s = :he AND (n = :n5 OR n = :n10)", False),
    ("n = :n10 OR s = :he AND n = :n5", True), ("NOT s = :s OR n = :n10", True), ("NOT (s = :s OR n = :n10)", False),
    ("(s = :s) AND (n = :n10)", True), ("((s = :s) AND (n = :n10)) OR s = :he", True),
    ("(attribute_exists(s))", True), ("(s) = :s", True), ("(size(s)) = :five", True),
    ("s = :s and n = :n10", True), ("s = :s AnD NoT n = :n5", True),
    ("#st = :a OR #st <> :a", True),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_evaluation(text: str, expected: bool) -> None:
    used = {k: VALUES[k] for k in re.findall(r":\w+", text)} or None
    names = {"#st": "status"} if "#st" in text else None
    assert condition(text, names, used).evaluate(ITEM) is expected


def test_nope_item_is_empty() -> None:
    assert condition("attribute_not_exists(pk)").evaluate(None) is True
    assert condition("attribute_exists(pk)").evaluate(None) is False


def test_names_with_placeholders_and_dots() -> None:
    item = {"a.b": S("flat"), "a": {"M": {"b": S("nested")}}}
    assert condition("#ab = :v", {"#ab": "a.b"}, {":v": S("flat")}).evaluate(item)
    assert condition("#a.#b = :v", {"#a": "a", "#b": "b"}, {":v": S("nested")}).evaluate(item)


def test_condition_names_lists_top_level_attributes() -> None:
    cond = condition("a.b = :v AND size(c[1]) > :v", values={":v": N(1)})
    assert cond.names == frozenset({"a", "c"})


ERRORS = [
    ("status = :v", None, {":v": S("x")},
     "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"),
    ("a.Size = :v", None, {":v": S("x")},
     "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: Size"),
    ("#a = :v", None, {":v": S("x")},
     "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; "
     "attribute name: #a"),
    ("a = :v", None, None,
     "Invalid ConditionExpression: An expression attribute value used in expression is not defined; "
     "attribute value: :v"),
    ("foo(a)", None, None, "Invalid ConditionExpression: Invalid function name; function: foo"),
    ("SIZE(a) = :v", None, {":v": N(1)}, "Invalid ConditionExpression: Invalid function name; function: SIZE"),
    ("if_not_exists(a, :v)", None, {":v": N(1)},
     "Invalid ConditionExpression: The function is not allowed in a condition expression; function: if_not_exists"),
    ("a = list_append(a, :v)", None, {":v": N(1)},
     "Invalid ConditionExpression: The function is not allowed in a condition expression; function: list_append"),
    ("size(a)", None, None,
     "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size"),
    ("NOT size(a) AND a = :v", None, {":v": N(1)},
     "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size"),
    ("attribute_exists(a) = :v", None, {":v": N(1)},
     "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; "
     "function: attribute_exists"),
    ("contains(begins_with(a, :v), :v)", None, {":v": S("x")},
     "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; "
     "function: begins_with"),
    ("size(a, b) = :v", None, {":v": N(1)},
     "Invalid ConditionExpression: Incorrect number of operands for operator or function; "
     "operator or function: size, number of operands: 2"),
    ("attribute_exists(a, b)", None, None,
     "Invalid ConditionExpression: Incorrect number of operands for operator or function; "
     "operator or function: attribute_exists, number of operands: 2"),
    ("attribute_exists(:v)", None, {":v": N(1)},
     "Invalid ConditionExpression: Operator or function requires a document path; operator or function: attribute_exists"),
    ("attribute_not_exists(size(a))", None, None,
     "Invalid ConditionExpression: Operator or function requires a document path; "
     "operator or function: attribute_not_exists"),
    ("a = a", None, None,
     "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or "
     "function; operator: =, first operand: [a]"),
    ("#x.b[1] <> a.#y[1]", {"#x": "a", "#y": "b"}, None,
     "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or "
     "function; operator: <>, first operand: [a, b, [1]]"),
    ("contains(a, a)", None, None,
     "Invalid ConditionExpression: The first operand must be distinct from the remaining operands for this operator or "
     "function; operator: contains, first operand: [a]"),
    ("begins_with(a, :v)", None, {":v": N(1)},
     "Invalid ConditionExpression: Incorrect operand type for operator or function; "
     "operator or function: begins_with, operand type: N"),
    ("begins_with(a, size(b))", None, None,
     "Invalid ConditionExpression: Incorrect operand type for operator or function; "
     "operator or function: begins_with, operand type: N"),
    ("size(:v) = :v", None, {":v": N(1)},
     "Invalid ConditionExpression: Incorrect operand type for operator or function; "
     "operator or function: size, operand type: N"),
    ("size(:v) > :w", None, {":v": {"BOOL": True}, ":w": N(1)},
     "Invalid ConditionExpression: Incorrect operand type for operator or function; "
     "operator or function: size, operand type: BOOL"),
    ("attribute_type(a, :v)", None, {":v": N(1)},
     "Invalid ConditionExpression: Incorrect operand type for operator or function; "
     "operator or function: attribute_type, operand type: N"),
    ("attribute_type(a, b)", None, None,
     "Invalid ConditionExpression: Incorrect operand type for operator or function; "
     "operator or function: attribute_type, operand type: {NS,SS,L,BS,N,M,B,BOOL,NULL,S}"),
    ("attribute_type(a, :v)", None, {":v": S("STRING")},
     "Invalid ConditionExpression: Invalid attribute type name found; type: STRING, "
     "valid types: {B,NULL,SS,BOOL,L,BS,N,NS,S,M}"),
    ("a BETWEEN :hi AND :lo", None, {":lo": N(1), ":hi": N(5)},
     "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower "
     "bound; lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {N:1}"),
    ("a BETWEEN :lo AND :s", None, {":lo": N(1), ":s": S("a")},
     "Invalid ConditionExpression: The BETWEEN operator requires same data type for lower and upper bounds; "
     "lower bound operand: AttributeValue: {N:1}, upper bound operand: AttributeValue: {S:a}"),
    ("a BETWEEN :z AND :a", None, {":a": S("a"), ":z": S("z")},
     "Invalid ConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower "
     "bound; lower bound operand: AttributeValue: {S:z}, upper bound operand: AttributeValue: {S:a}"),
    ("((a = :v))", None, {":v": N(1)}, "Invalid ConditionExpression: The expression has redundant parentheses;"),
    ("a = :v AND ((b = :v))", None, {":v": N(1)},
     "Invalid ConditionExpression: The expression has redundant parentheses;"),
    ("((a)) = :v", None, {":v": N(1)}, "Invalid ConditionExpression: The expression has redundant parentheses;"),
]


@pytest.mark.parametrize(("text", "names", "values", "message"), ERRORS)
def test_errors(text: str, names: dict | None, values: dict | None, message: str) -> None:
    assert error_message("PutItem", request("ConditionExpression", text, names, values)) == message


PRIORITY = [
    # redundant parentheses before an unknown function
    ("((foo(a)))", None, None, "Invalid ConditionExpression: The expression has redundant parentheses;"),
    # unknown function before a reserved word
    ("status = :v AND foo(a)", None, {":v": N(1)}, "Invalid ConditionExpression: Invalid function name; function: foo"),
    # misused function before a reserved word
    ("status = :v AND size(a)", None, {":v": N(1)},
     "Invalid ConditionExpression: The function is not allowed to be used this way in an expression; function: size"),
    # reserved word before an undefined placeholder
    ("#a = :v AND status = :v", None, {":v": N(1)},
     "Invalid ConditionExpression: Attribute name is a reserved keyword; reserved keyword: status"),
    # within one comparison: undefined placeholder before operand count
    ("size(a, #b) = :v", None, {":v": N(1)},
     "Invalid ConditionExpression: An expression attribute name used in the document path is not defined; "
     "attribute name: #b"),
    # the first failing comparison wins
    ("begins_with(a, :n) AND size(a, b) = :n", None, {":n": N(1)},
     "Invalid ConditionExpression: Incorrect operand type for operator or function; "
     "operator or function: begins_with, operand type: N"),
]


@pytest.mark.parametrize(("text", "names", "values", "message"), PRIORITY)
def test_error_priority(text: str, names: dict | None, values: dict | None, message: str) -> None:
    assert error_message("PutItem", request("ConditionExpression", text, names, values)) == message


def test_filter_expression_prefix() -> None:
    message = error_message("Scan", request("FilterExpression", "#missing = :fv", values={":fv": S("x")}))
    assert message == ("Invalid FilterExpression: An expression attribute name used in the document path is not "
                       "defined; attribute name: #missing")


def test_parentheses_that_are_not_redundant() -> None:
    values = {":v": N(1)}
    for text in ["(a = :v)", "(a = :v) AND (b = :v)", "((a = :v AND b = :v) AND c = :v)", "(a = :v AND (b = :v))",
                 "((a = :v) AND (b = :v))", "a = :v OR (b = :v AND c = :v)"]:
        assert condition(text, values=values) is not None
