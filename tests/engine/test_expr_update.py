"""UpdateExpression: every clause and function, runtime errors, static errors, ReturnValues paths."""

from __future__ import annotations

import re
from typing import Any

import pytest

from dynemu.errors import DynamoError

from .expr_helpers import N, S, compiled, error_message, request

KEY = {"pk": S("k")}
ITEM = {
    "pk": S("k"),
    "n": N("5"),
    "s": S("str"),
    "l": {"L": [S("a"), S("b"), S("c")]},
    "m": {"M": {"x": N("1"), "deep": {"M": {"y": S("z")}}}},
    "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2"]},
}
VALUES = {
    ":one": N("1"), ":two": N("2"), ":s": S("new"), ":l": {"L": [S("d")]}, ":ss": {"SS": ["b", "c"]},
    ":ns": {"NS": ["2.0", "3"]}, ":dss": {"SS": ["a", "b"]}, ":dns": {"NS": ["1.0"]}, ":big": N("9" * 37), ":huge": N("9.9E125"),
    ":neg": N("-7.5"), ":empty": {"L": []}, ":m": {"M": {}},
}


def apply(text: str, item: dict | None = ITEM, names: dict | None = None) -> dict[str, Any]:
    used = {k: VALUES[k] for k in re.findall(r":\w+", text)} or None
    update = compiled("UpdateItem", request("UpdateExpression", text, names, used)).update
    assert update is not None
    new, _ = update.apply(item, KEY)
    return new


def changed(text: str, **kwargs: Any) -> dict[str, Any]:
    """The attributes whose value differs from ITEM's after the update (None: removed)."""
    new = apply(text, **kwargs)
    diff = {k: v for k, v in new.items() if ITEM.get(k) != v}
    diff.update({k: None for k in ITEM if k not in new})
    return diff


CASES = [
    ("SET s = :s", {"s": S("new")}),
    ("SET n = n + :one", {"n": N("6")}),
    ("SET n = n - :neg", {"n": N("12.5")}),
    ("SET n = :two - n", {"n": N("-3")}),
    ("SET new1 = n + n", {"new1": N("10")}),
    ("SET n = (n + :one)", {"n": N("6")}),
    ("SET n = (n) + :one", {"n": N("6")}),
    ("SET a = if_not_exists(a, :one)", {"a": N("1")}),
    ("SET n = if_not_exists(n, :two)", {}),
    ("SET l = list_append(l, :l)", {"l": {"L": [S("a"), S("b"), S("c"), S("d")]}}),
    ("SET l = list_append(:l, l)", {"l": {"L": [S("d"), S("a"), S("b"), S("c")]}}),
    ("SET x = list_append(if_not_exists(x, :empty), :l)", {"x": {"L": [S("d")]}}),
    ("SET l[1] = :s", {"l": {"L": [S("a"), S("new"), S("c")]}}),
    ("SET l[7] = :s, l[5] = :one", {"l": {"L": [S("a"), S("b"), S("c"), N("1"), S("new")]}}),
    ("SET m.x = :two, m.deep.q = :s", {"m": {"M": {"x": N("2"), "deep": {"M": {"y": S("z"), "q": S("new")}}}}}),
    ("SET a = n, n = :two", {"a": N("5"), "n": N("2")}),
    ("SET n = s", {"n": S("str")}),
    ("SET s = :m", {"s": {"M": {}}}),
    ("REMOVE s", {"s": None}),
    ("REMOVE absent", {}),
    ("REMOVE l[0]", {"l": {"L": [S("b"), S("c")]}}),
    ("REMOVE l[0], l[2]", {"l": {"L": [S("b")]}}),
    ("REMOVE l[9]", {}),
    ("REMOVE m.deep.y, m.x", {"m": {"M": {"deep": {"M": {}}}}}),
    ("REMOVE m.nothing", {}),
    ("SET l[0] = :s REMOVE l[1]", {"l": {"L": [S("new"), S("c")]}}),
    ("ADD n :one", {"n": N("6")}),
    ("ADD newn :neg", {"newn": N("-7.5")}),
    ("ADD ss :ss", {"ss": {"SS": ["a", "b", "c"]}}),
    ("ADD ns :ns", {"ns": {"NS": ["1", "2", "3"]}}),
    ("ADD newss :ss", {"newss": {"SS": ["b", "c"]}}),
    ("ADD m.x :one", {"m": {"M": {"x": N("2"), "deep": {"M": {"y": S("z")}}}}}),
    ("DELETE ss :ss", {"ss": {"SS": ["a"]}}),
    ("DELETE ss :dss", {"ss": None}),
    ("DELETE ns :dns", {"ns": {"NS": ["2"]}}),
    ("DELETE absent :ss", {}),
    ("SET s = :s REMOVE n ADD ss :ss DELETE ns :dns",
     {"s": S("new"), "n": None, "ss": {"SS": ["a", "b", "c"]}, "ns": {"NS": ["2"]}}),
    ("set s = :s remove n", {"s": S("new"), "n": None}),
    ("REMOVE n SET s = :s", {"s": S("new"), "n": None}),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_update(text: str, expected: dict) -> None:
    assert changed(text) == expected


def test_item_is_not_mutated() -> None:
    import copy

    before = copy.deepcopy(ITEM)
    apply("SET m.deep.y = :s, l[0] = :s REMOVE l[1] ADD ss :ss, m.x :one DELETE ns :dns")
    assert before == ITEM


def test_new_item_starts_from_key() -> None:
    assert apply("SET a = :one", item=None) == {"pk": S("k"), "a": N("1")}
    assert apply("ADD c :one, s2 :ss", item=None) == {"pk": S("k"), "c": N("1"), "s2": {"SS": ["b", "c"]}}
    assert apply("REMOVE a", item=None) is None  # leaves only the key: creates nothing (issue 12)


def test_placeholder_names() -> None:
    new = apply("SET #a.#b = :s", names={"#a": "m", "#b": "x"})
    assert new["m"]["M"]["x"] == S("new")


def test_number_arithmetic_is_38_digits() -> None:
    with pytest.raises(DynamoError) as info:
        apply("SET n = :huge + :huge")
    assert info.value.message == "Number overflow. Attempting to store a number with magnitude larger than supported range"
    assert apply("SET n = n + :big")["n"] == N("1" + "0" * 36 + "4")  # 38 digits
    assert apply("SET n = :big - :big")["n"] == N("0")


RUNTIME_ERRORS = [
    ("SET n = s + :one", "An operand in the update expression has an incorrect data type"),
    ("SET n = :one - s", "An operand in the update expression has an incorrect data type"),
    ("SET l = list_append(l, s)", "An operand in the update expression has an incorrect data type"),
    ("SET n = absent + :one", "The provided expression refers to an attribute that does not exist in the item"),
    ("SET n = absent", "The provided expression refers to an attribute that does not exist in the item"),
    ("SET absent.x = :one", "The document path provided in the update expression is invalid for update"),
    ("SET s.x = :one", "The document path provided in the update expression is invalid for update"),
    ("SET m[0] = :one", "The document path provided in the update expression is invalid for update"),
    ("SET l.x = :one", "The document path provided in the update expression is invalid for update"),
    ("SET l[5].x = :one", "The document path provided in the update expression is invalid for update"),
    ("REMOVE absent.x", "The document path provided in the update expression is invalid for update"),
    ("ADD absent.x :one", "The document path provided in the update expression is invalid for update"),
    ("ADD s :one", "An operand in the update expression has an incorrect data type"),
    ("ADD ss :ns", "An operand in the update expression has an incorrect data type"),
    ("ADD n :ss", "An operand in the update expression has an incorrect data type"),
    ("DELETE ss :ns", "An operand in the update expression has an incorrect data type"),
    ("DELETE s :ss", "An operand in the update expression has an incorrect data type"),
]


@pytest.mark.parametrize(("text", "message"), RUNTIME_ERRORS)
def test_runtime_errors(text: str, message: str) -> None:
    with pytest.raises(DynamoError) as info:
        apply(text)
    assert (info.value.type_name, info.value.message) == ("ValidationException", message)


STATIC_ERRORS = [
    ("SET a = :s + :one", {":s": S("x"), ":one": N(1)},
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: +, operand type: S"),
    ("SET a = a - :l", {":l": {"L": []}},
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator or function: -, operand type: L"),
    ("SET a = list_append(a, :s)", {":s": S("x")},
     "Invalid UpdateExpression: Incorrect operand type for operator or function; "
     "operator or function: list_append, operand type: S"),
    ("SET a = list_append(a)", None,
     "Invalid UpdateExpression: Incorrect number of operands for operator or function; "
     "operator or function: list_append, number of operands: 1"),
    ("SET a = if_not_exists(:s, a)", {":s": S("x")},
     "Invalid UpdateExpression: Operator or function requires a document path; operator or function: if_not_exists"),
    ("SET a = size(b)", None,
     "Invalid UpdateExpression: The function is not allowed in an update expression; function: size"),
    ("SET a = attribute_exists(b)", None,
     "Invalid UpdateExpression: The function is not allowed in an update expression; function: attribute_exists"),
    ("SET a = foo(b)", None, "Invalid UpdateExpression: Invalid function name; function: foo"),
    ("ADD a :v", {":v": S("x")},
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: STRING"),
    ("ADD a :v", {":v": {"L": []}},
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: LIST"),
    ("ADD a :v", {":v": {"M": {}}},
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: MAP"),
    ("ADD a :v", {":v": {"BOOL": True}},
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, operand type: BOOLEAN"),
    ("DELETE a :v", {":v": N(1)},
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NUMBER"),
    ("DELETE a :v", {":v": {"NULL": True}},
     "Invalid UpdateExpression: Incorrect operand type for operator or function; operator: DELETE, operand type: NULL"),
    ("SET a = :v SET b = :v", {":v": N(1)},
     'Invalid UpdateExpression: The "SET" section can only be used once in an update expression;'),
    ("REMOVE a ADD b :v remove c", {":v": N(1)},
     'Invalid UpdateExpression: The "REMOVE" section can only be used once in an update expression;'),
    ("SET a = :v, a = :v", {":v": N(1)},
     "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these "
     "paths; path one: [a], path two: [a]"),
    ("SET a = :v REMOVE a.b", {":v": N(1)},
     "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these "
     "paths; path one: [a], path two: [a, b]"),
    ("SET #x = :v REMOVE #y", {":v": N(1)},
     "Invalid UpdateExpression: Two document paths overlap with each other; must remove or rewrite one of these "
     "paths; path one: [same], path two: [same]"),
    ("SET a[1] = :v REMOVE a.b", {":v": N(1)},
     "Invalid UpdateExpression: Two document paths conflict with each other; must remove or rewrite one of these "
     "paths; path one: [a, [1]], path two: [a, b]"),
    ("SET status = :v", {":v": N(1)},
     "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: status"),
    ("SET #a = :v", {":v": N(1)},
     "Invalid UpdateExpression: An expression attribute name used in the document path is not defined; "
     "attribute name: #a"),
    ("SET a = :v", None,
     "Invalid UpdateExpression: An expression attribute value used in expression is not defined; attribute value: :v"),
]


@pytest.mark.parametrize(("text", "values", "message"), STATIC_ERRORS)
def test_static_errors(text: str, values: dict | None, message: str) -> None:
    names = {"#x": "same", "#y": "same"} if "#x" in text else None
    assert error_message("UpdateItem", request("UpdateExpression", text, names, values)) == message


def test_update_priority_reserved_before_unknown_function() -> None:
    message = error_message("UpdateItem", request("UpdateExpression", "SET a = foo(b), status = :v", values={":v": N(1)}))
    assert message == "Invalid UpdateExpression: Attribute name is a reserved keyword; reserved keyword: status"


def test_update_priority_names_before_values_before_overlap() -> None:
    message = error_message("UpdateItem", request("UpdateExpression", "SET a = :w, a = :v, #b = :v", values={":v": N(1)}))
    assert message == ("Invalid UpdateExpression: An expression attribute name used in the document path is not "
                       "defined; attribute name: #b")
    message = error_message("UpdateItem", request("UpdateExpression", "SET a = :w, a = :v", values={":v": N(1)}))
    assert message == ("Invalid UpdateExpression: An expression attribute value used in expression is not defined; "
                       "attribute value: :w")


@pytest.mark.parametrize("text", ["SET pk = :v", "REMOVE pk", "ADD sk :v", "SET pk.x = :v"])
def test_key_attributes_cannot_be_updated(text: str) -> None:
    name = "sk" if "sk" in text else "pk"
    values = {":v": N(1)} if ":v" in text else None
    message = error_message("UpdateItem", request("UpdateExpression", text, values=values),
                            key_schema=[("pk", "HASH"), ("sk", "RANGE")])
    assert message == f"One or more parameter values were invalid: Cannot update attribute {name}. This attribute is part of the key"


def test_operator_limit() -> None:
    values = {":v": N(1)}
    text = "SET " + ",".join(f"a{i}=a{i}+:v" for i in range(301))
    assert error_message("UpdateItem", request("UpdateExpression", text, values=values)) == (
        "Invalid UpdateExpression: The expression contains too many operators; operator count: 301"
    )


def test_updated_paths_for_return_values() -> None:
    values = {":s": S("new"), ":one": N(1)}
    update = compiled("UpdateItem", request("UpdateExpression", "SET m.x = :one, s = :s REMOVE l[1] ADD n :one",
                                            values=values)).update
    assert update is not None
    new, touched = update.apply(ITEM, KEY)
    assert touched.apply(ITEM) == {"m": {"M": {"x": N("1")}}, "s": S("str"), "l": {"L": [S("b")]}, "n": N("5")}
    assert touched.apply(new) == {"m": {"M": {"x": N("1")}}, "s": S("new"), "l": {"L": [S("c")]}, "n": N("6")}
