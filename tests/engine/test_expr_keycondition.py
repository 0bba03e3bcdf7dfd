"""KeyConditionExpression / KeyConditions: conversion to a key range, and every error."""

from __future__ import annotations

import pytest

from dynemu.engine.expressions import SortCondition

from .expr_helpers import N, S, compiled, error_message, request

SCHEMA = [("pk", "HASH", "S"), ("sk", "RANGE", "N")]
VALUES = {":p": S("p"), ":a": N(1), ":b": N(5), ":s": S("x"), ":t": {"BOOL": True}}


def key_condition(text: str, schema: list = SCHEMA, values: dict | None = None):
    used = values or {k: v for k, v in VALUES.items() if k in text.split() or f"{k})" in text or f"{k}," in text}
    result = compiled("Query", request("KeyConditionExpression", text, values=used), key_schema=schema)
    return result.key_condition


CASES = [
    ("pk = :p", None),
    ("pk = :p AND sk = :a", SortCondition("sk", "EQ", (N(1),))),
    ("pk = :p AND sk < :a", SortCondition("sk", "LT", (N(1),))),
    ("pk = :p AND sk <= :a", SortCondition("sk", "LE", (N(1),))),
    ("pk = :p AND sk > :a", SortCondition("sk", "GT", (N(1),))),
    ("pk = :p AND sk >= :a", SortCondition("sk", "GE", (N(1),))),
    ("pk = :p AND :a < sk", SortCondition("sk", "GT", (N(1),))),
    ("pk = :p AND :a >= sk", SortCondition("sk", "LE", (N(1),))),
    ("sk BETWEEN :a AND :b AND pk = :p", SortCondition("sk", "BETWEEN", (N(1), N(5)))),
    ("(pk = :p) AND (sk = :a)", SortCondition("sk", "EQ", (N(1),))),
    (":p = pk", None),
]


@pytest.mark.parametrize(("text", "sort"), CASES)
def test_key_conditions(text: str, sort: SortCondition | None) -> None:
    kc = key_condition(text)
    assert kc.partition_name == "pk" and kc.partition_value == S("p")
    assert kc.sort == sort


def test_begins_with() -> None:
    kc = key_condition("pk = :p AND begins_with(sk, :s)", schema=[("pk", "HASH"), ("sk", "RANGE")])
    assert kc.sort == SortCondition("sk", "BEGINS_WITH", (S("x"),))
    assert kc.sort.matches(S("xyz")) and not kc.sort.matches(S("yx"))


def test_sort_condition_matches() -> None:
    between = SortCondition("sk", "BETWEEN", (N(1), N(5)))
    assert between.matches(N(1)) and between.matches(N(5)) and not between.matches(N(6)) and not between.matches(S("2"))
    assert SortCondition("sk", "LT", (N(1),)).matches(N(0))
    assert SortCondition("sk", "EQ", (N(1),)).matches(N("1.0"))


ERRORS = [
    ("pk = :p OR sk = :a", "Invalid operator used in KeyConditionExpression: OR"),
    ("NOT pk = :p", "Invalid operator used in KeyConditionExpression: NOT"),
    ("pk IN (:p)", "Invalid operator used in KeyConditionExpression: IN"),
    ("pk <> :p", "Invalid operator used in KeyConditionExpression: <>"),
    ("pk = :p AND attribute_exists(sk)", "Invalid operator used in KeyConditionExpression: attribute_exists"),
    ("pk = :p AND contains(sk, :a)", "Invalid operator used in KeyConditionExpression: contains"),
    ("size(pk) = :a", "KeyConditionExpressions cannot contain nested operations"),
    ("pk = :p AND :a BETWEEN sk AND :b",
     "Invalid condition in KeyConditionExpression: BETWEEN operator must have the key attribute as its first operand"),
    ("pk = :p AND begins_with(:s, sk)",
     "Invalid condition in KeyConditionExpression: begins_with operator must have the key attribute as its first operand"),
    ("pk = sk", "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"),
    ("pk = :p AND sk.x = :a", "KeyConditionExpressions cannot have conditions on nested attributes"),
    (":p = :a", "Invalid condition in KeyConditionExpression: No key attribute specified"),
    # issue 36's wording (observed against the service)
    ("pk = :p AND pk = :s", "Invalid KeyConditionExpression: KeyConditionExpressions must only contain one condition per key"),
    ("pk = :p AND sk = :a AND x = :b",
     "The number of query conditions (3) exceeds the number of key attributes defined in the schema (2)"),
    ("sk = :a", "Query condition missed key schema element: pk"),
    ("x = :a", "Query condition missed key schema element: pk"),
    ("pk = :p AND x = :a", "Query condition missed key schema element: sk"),
    ("pk < :p", "Query key condition not supported"),
    ("pk = :a", "One or more parameter values were invalid: Condition parameter type does not match schema type"),
    ("pk = :p AND begins_with(sk, :b)",
     "Invalid KeyConditionExpression: Incorrect operand type for operator or function; "
     "operator or function: begins_with, operand type: N"),
    ("pk = :p AND sk = :t",  # a type no key has fails the schema check (issue 36)
     "One or more parameter values were invalid: Condition parameter type does not match schema type"),
    ("pk = :p AND sk BETWEEN :b AND :a",
     "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to lower "
     "bound; lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {N:1}"),
]


@pytest.mark.parametrize(("text", "message"), ERRORS)
def test_errors(text: str, message: str) -> None:
    used = {k: v for k, v in VALUES.items() if k in text} or None
    assert error_message("Query", request("KeyConditionExpression", text, values=used), key_schema=SCHEMA) == message


def test_hash_only_table_with_two_conditions() -> None:
    req = request("KeyConditionExpression", "pk = :p AND sk = :a", values={":p": S("p"), ":a": N(1)})
    assert error_message("Query", req, key_schema=[("pk", "HASH")]) == "Query key condition not supported"


def test_filter_on_key_attributes() -> None:
    req = request("KeyConditionExpression", "pk = :p", values={":p": S("p"), ":a": N(1)}, FilterExpression="sk > :a")
    assert error_message("Query", req, key_schema=SCHEMA) == (
        "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk"
    )
    req = {"KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [S("p")]}},
           "QueryFilter": {"pk": {"ComparisonOperator": "NOT_NULL"}}}
    assert error_message("Query", req, key_schema=SCHEMA) == (
        "QueryFilter can only contain non-primary key attributes: Primary key attribute: pk"
    )


def test_legacy_key_conditions() -> None:
    req = {"KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [S("p")]},
                             "sk": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [N(1), N(5)]}}}
    kc = compiled("Query", req, key_schema=SCHEMA).key_condition
    assert kc.partition_value == S("p") and kc.sort == SortCondition("sk", "BETWEEN", (N(1), N(5)))
    # KeyConditions may be combined with a FilterExpression
    req2 = dict(req, FilterExpression="x = :v", ExpressionAttributeValues={":v": N(1)})
    assert compiled("Query", req2, key_schema=SCHEMA).filter is not None


LEGACY_ERRORS = [
    ({"pk": {"ComparisonOperator": "NULL"}}, "Attempted conditional constraint is not an indexable operation"),
    ({"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [S("p"), S("q")]}},
     "One or more parameter values were invalid: Invalid number of argument(s) for the EQ ComparisonOperator"),
    ({"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [S("p")]},
      "sk": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [N(5), N(1)]}},
     "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"),
    ({"pk": {"ComparisonOperator": "BEGINS_WITH", "AttributeValueList": [S("p")]}}, "Query key condition not supported"),
    ({}, "Conditions can be of length 1 or 2 only"),
]


@pytest.mark.parametrize(("conditions", "message"), LEGACY_ERRORS)
def test_legacy_errors(conditions: dict, message: str) -> None:
    assert error_message("Query", {"KeyConditions": conditions}, key_schema=SCHEMA) == message
