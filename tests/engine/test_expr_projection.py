"""ProjectionExpression and AttributesToGet: result shapes and errors."""

from __future__ import annotations

import re

import pytest

from .expr_helpers import N, S, compiled, error_message, request

ITEM = {
    "pk": S("k"),
    "a": {"M": {"b": {"L": [S("x0"), {"M": {"c": S("c1"), "d": S("d1")}}, {"M": {"c": S("c2")}}]}, "e": N(1)}},
    "l": {"L": [S("l0"), S("l1"), S("l2"), S("l3")]},
    "s": S("v"),
    "a.b": S("dotted"),
}


def project(text: str, names: dict | None = None) -> dict:
    projection = compiled("GetItem", request("ProjectionExpression", text, names)).projection
    assert projection is not None
    return projection.apply(ITEM)


CASES = [
    ("s", {"s": S("v")}),
    ("s, pk, nope", {"s": S("v"), "pk": S("k")}),
    ("a.e", {"a": {"M": {"e": N(1)}}}),
    ("a.b[1].c", {"a": {"M": {"b": {"L": [{"M": {"c": S("c1")}}]}}}}),
    ("a.b[1].c, a.b[2].c", {"a": {"M": {"b": {"L": [{"M": {"c": S("c1")}}, {"M": {"c": S("c2")}}]}}}}),
    ("a.b[2].c, a.e, a.b[0]",
     {"a": {"M": {"b": {"L": [S("x0"), {"M": {"c": S("c2")}}]}, "e": N(1)}}}),
    ("l[3], l[1]", {"l": {"L": [S("l1"), S("l3")]}}),
    ("l[9]", {}),
    ("a.zz, a.b[7]", {}),
    ("s.x, l.x, a[0]", {}),
    ("#ab", {"a.b": S("dotted")}),
    ("#a.#b[0]", {"a": {"M": {"b": {"L": [S("x0")]}}}}),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_projection(text: str, expected: dict) -> None:
    placeholders = {"#ab": "a.b", "#a": "a", "#b": "b"}
    names = {k: placeholders[k] for k in re.findall(r"#\w+", text)} or None
    assert project(text, names) == expected


def test_missing_item() -> None:
    projection = compiled("GetItem", request("ProjectionExpression", "a.b")).projection
    assert projection is not None and projection.apply(None) == {}


ERRORS = [
    ("a, b.c, a.d", "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite "
     "one of these paths; path one: [a], path two: [a, d]"),
    ("a.b, a.b", "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite "
     "one of these paths; path one: [a, b], path two: [a, b]"),
    ("a[0], a.b", "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite "
     "one of these paths; path one: [a, [0]], path two: [a, b]"),
    ("a.name", "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: name"),
    ("#n", "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; "
     "attribute name: #n"),
]


@pytest.mark.parametrize(("text", "message"), ERRORS)
def test_errors(text: str, message: str) -> None:
    assert error_message("GetItem", request("ProjectionExpression", text)) == message


def test_attributes_to_get() -> None:
    projection = compiled("GetItem", {"AttributesToGet": ["s", "a.b", "nope"]}).projection
    assert projection is not None
    assert projection.apply(ITEM) == {"s": S("v"), "a.b": S("dotted")}


def test_attributes_to_get_duplicates() -> None:
    assert error_message("Scan", {"AttributesToGet": ["a", "b", "a"]}) == (
        "One or more parameter values were invalid: Duplicate value in attribute name: a"
    )


def test_attributes_to_get_with_projection_expression() -> None:
    assert error_message("GetItem", {"AttributesToGet": ["a"], "ProjectionExpression": "a"}) == (
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}"
    )
