"""Legacy parameters: Expected (+ConditionalOperator), QueryFilter/ScanFilter, AttributeUpdates."""

from __future__ import annotations

from typing import Any

import pytest

from dynemu.errors import DynamoError

from .expr_helpers import N, S, compiled, error_message

ITEM = {"pk": S("k"), "s": S("hello"), "n": N(5), "ss": {"SS": ["a", "b"]}, "l": {"L": [S("a"), N(1)]}}


def expected(conditions: dict, operator: str | None = None) -> bool:
    req: dict[str, Any] = {"Expected": conditions}
    if operator:
        req["ConditionalOperator"] = operator
    cond = compiled("PutItem", req).condition
    assert cond is not None
    return cond.evaluate(ITEM)


def cmp(op: str, *values: dict) -> dict:
    return {"ComparisonOperator": op, "AttributeValueList": list(values)}


CASES = [
    ({"s": {"Value": S("hello")}}, True),
    ({"s": {"Value": S("nope")}}, False),
    ({"s": {"Exists": True, "Value": S("hello")}}, True),
    ({"x": {"Exists": False}}, True),
    ({"s": {"Exists": False}}, False),
    ({"s": cmp("EQ", S("hello"))}, True),
    ({"s": {"ComparisonOperator": "EQ", "Value": S("hello")}}, True),
    ({"s": cmp("NE", S("hello"))}, False),
    ({"x": cmp("NE", S("hello"))}, True),
    ({"n": cmp("LT", N(6))}, True),
    ({"n": cmp("LE", N(5))}, True),
    ({"n": cmp("GT", N(5))}, False),
    ({"n": cmp("GE", N(5))}, True),
    ({"n": cmp("GT", S("5"))}, False),
    ({"n": cmp("NOT_NULL")}, True),
    ({"x": cmp("NULL")}, True),
    ({"s": cmp("CONTAINS", S("ell"))}, True),
    ({"ss": cmp("CONTAINS", S("a"))}, True),
    ({"l": cmp("CONTAINS", N(1))}, True),
    ({"s": cmp("NOT_CONTAINS", S("xyz"))}, True),
    ({"x": cmp("NOT_CONTAINS", S("xyz"))}, False),  # a missing attribute fails it (issue 24)
    ({"s": cmp("BEGINS_WITH", S("he"))}, True),
    ({"n": cmp("IN", N(1), N(5))}, True),
    ({"n": cmp("IN", N(1), N(2))}, False),
    ({"n": cmp("BETWEEN", N(1), N(5))}, True),
    ({"s": {"Value": S("hello")}, "n": {"Value": N(4)}}, False),
]


@pytest.mark.parametrize(("conditions", "result"), CASES)
def test_expected(conditions: dict, result: bool) -> None:
    assert expected(conditions) is result


def test_conditional_operator_or() -> None:
    conditions = {"s": {"Value": S("hello")}, "n": {"Value": N(4)}}
    assert expected(conditions, "OR") is True
    assert expected(conditions, "AND") is False


EXPECTED_ERRORS = [
    ({"a": {"Value": S("x"), "AttributeValueList": [S("x")]}},
     "One or more parameter values were invalid: Value and AttributeValueList cannot be used together for Attribute: a"),
    ({"a": {"ComparisonOperator": "EQ", "Exists": True, "Value": S("x")}},
     "One or more parameter values were invalid: Exists and ComparisonOperator cannot be used together for Attribute: a"),
    ({"a": {"ComparisonOperator": "EQ"}},
     "One or more parameter values were invalid: Value or AttributeValueList must be used with ComparisonOperator: EQ "
     "for Attribute: a"),
    ({"a": cmp("EQ", S("x"), S("y"))},
     "One or more parameter values were invalid: Invalid number of argument(s) for the EQ ComparisonOperator"),
    ({"a": cmp("NULL", S("x"))},
     "One or more parameter values were invalid: Invalid number of argument(s) for the NULL ComparisonOperator"),
    ({"a": cmp("IN", S("x"), N(1))},
     "One or more parameter values were invalid: AttributeValues inside AttributeValueList must be of same type"),
    ({"a": cmp("BETWEEN", N(5), N(1))},
     "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"),
    ({"a": {"AttributeValueList": [S("x")]}},
     "One or more parameter values were invalid: AttributeValueList can only be used with a ComparisonOperator for "
     "Attribute: a"),
    ({"a": {}}, "One or more parameter values were invalid: Value must be provided when Exists is null for Attribute: a"),
    ({"a": {"Exists": True}},
     "One or more parameter values were invalid: Value must be provided when Exists is true for Attribute: a"),
    ({"a": {"Exists": False, "Value": S("x")}},
     "One or more parameter values were invalid: Value cannot be used when Exists is false for Attribute: a"),
]


@pytest.mark.parametrize(("conditions", "message"), EXPECTED_ERRORS)
def test_expected_errors(conditions: dict, message: str) -> None:
    assert error_message("DeleteItem", {"Expected": conditions}) == message


def test_scan_filter() -> None:
    result = compiled("Scan", {"ScanFilter": {"n": cmp("GT", N(1)), "s": cmp("BEGINS_WITH", S("x"))},
                               "ConditionalOperator": "OR"})
    assert result.filter is not None and result.filter.evaluate(ITEM) is True
    assert result.filter_parameter == "ScanFilter"


FILTER_ERRORS = [
    ({"n": cmp("LT", {"SS": ["a"]})},
     "One or more parameter values were invalid: ComparisonOperator LT is not valid for SS AttributeValue type"),
    ({"n": cmp("CONTAINS", {"BOOL": True})},
     "One or more parameter values were invalid: ComparisonOperator CONTAINS is not valid for BOOL AttributeValue type"),
    ({"n": cmp("BETWEEN", N(1))},
     "One or more parameter values were invalid: Invalid number of argument(s) for the BETWEEN ComparisonOperator"),
    ({"n": cmp("IN")}, "One or more parameter values were invalid: Invalid number of argument(s) for the IN ComparisonOperator"),
]


@pytest.mark.parametrize(("conditions", "message"), FILTER_ERRORS)
def test_filter_errors(conditions: dict, message: str) -> None:
    assert error_message("Scan", {"ScanFilter": conditions}) == message


def legacy_update(updates: dict, item: dict | None = ITEM) -> dict:
    update = compiled("UpdateItem", {"AttributeUpdates": updates}).update
    assert update is not None
    new, _ = update.apply(item, {"pk": S("k")})
    return new


def test_attribute_updates() -> None:
    new = legacy_update({
        "s": {"Action": "PUT", "Value": S("new")},
        "n": {"Action": "ADD", "Value": N(2)},
        "ss": {"Action": "DELETE", "Value": {"SS": ["a"]}},
        "l": {"Action": "ADD", "Value": {"L": [S("z")]}},
        "c": {"Action": "ADD", "Value": {"NS": ["1"]}},
        "pk2": {"Value": S("default put")},
    })
    assert new == {"pk": S("k"), "s": S("new"), "n": N(7), "ss": {"SS": ["b"]}, "l": {"L": [S("a"), N(1), S("z")]},
                   "c": {"NS": ["1"]}, "pk2": S("default put")}
    assert legacy_update({"s": {"Action": "DELETE"}, "ss": {"Action": "DELETE", "Value": {"SS": ["a", "b"]}}}) == {
        "pk": S("k"), "n": N(5), "l": ITEM["l"]}
    assert legacy_update({"n": {"Action": "ADD", "Value": N(1)}}, item=None) == {"pk": S("k"), "n": N(1)}


def test_attribute_updates_type_mismatch() -> None:
    with pytest.raises(DynamoError) as info:
        legacy_update({"s": {"Action": "ADD", "Value": N(1)}})
    assert info.value.message == "Type mismatch for attribute to update"


ATTRIBUTE_UPDATE_ERRORS = [
    ({"a": {"Action": "ADD"}},
     "One or more parameter values were invalid: Only DELETE action is allowed when no attribute value is specified"),
    ({"a": {"Action": "DELETE", "Value": S("x")}},
     "One or more parameter values were invalid: DELETE action with value is not supported for the type S"),
    ({"a": {"Action": "ADD", "Value": S("x")}},
     "One or more parameter values were invalid: ADD action is not supported for the type S"),
]


@pytest.mark.parametrize(("updates", "message"), ATTRIBUTE_UPDATE_ERRORS)
def test_attribute_update_errors(updates: dict, message: str) -> None:
    assert error_message("UpdateItem", {"AttributeUpdates": updates}) == message


def test_attribute_updates_on_key() -> None:
    req = {"AttributeUpdates": {"pk": {"Action": "PUT", "Value": S("x")}}}
    assert error_message("UpdateItem", req, key_schema=[{"AttributeName": "pk", "KeyType": "HASH"}]) == (
        "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key"
    )
