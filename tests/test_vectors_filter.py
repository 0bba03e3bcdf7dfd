"""SearchConditionExpression over HTTP (developer guide, "SearchConditionExpression reference
for vector indexes"): equality, BETWEEN, IN, AND/OR/NOT, the functions, missing
attributes, the HASH attribute's rules (equality only: no other comparator), and each refusal with its full type and message
(sent raw, boto3's own checks off)."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import assert_validation
from tests.test_vectors import create, qv, vec, vector_index

PREFIX = "Invalid SearchConditionExpression: "
COMPARATOR = PREFIX + "Invalid comparator used in SearchConditionExpression"
OPERATOR = PREFIX + "Invalid operator used in SearchConditionExpression"
REQUIRED = "SearchConditionExpression must be provided when SearchSchema has a HASH key"

# pk: (color, price); None: the item lacks the attribute
ROWS: dict[str, tuple[str | None, str | None]] = {
    "a": ("red", "5"), "b": ("blue", "10"), "c": ("green", "9.5"), "d": (None, "20"), "e": ("rose", None),
    "f": ("red", "1.50"),
}  # fmt: skip


def _item(pk: str, i: int, cat: str | None = None) -> dict[str, Any]:
    color, price = ROWS[pk]
    item: dict[str, Any] = {"pk": {"S": pk}, "emb": vec(1, i, 0)}
    if color is not None:
        item["color"] = {"S": color}
    if price is not None:
        item["price"] = {"N": price}
    if cat is not None:
        item["cat"] = {"S": cat}
    return item


@pytest.fixture(scope="module")
def inline(ddb: Any) -> str:
    """color (S) and price (N) as INLINE_FILTER attributes; no HASH."""
    t = create(ddb, vector_index(schema=[("color", "INLINE_FILTER"), ("price", "INLINE_FILTER")]),
               defs=[("color", "S"), ("price", "N")])
    for i, pk in enumerate(ROWS):
        ddb.put_item(TableName=t, Item=_item(pk, i))
    return t


@pytest.fixture(scope="module")
def hashed(ddb: Any) -> str:
    """cat as the HASH attribute, color and price INLINE_FILTER; every row in cat "x" and
    again (pk + "2") in cat "y"."""
    t = create(ddb, vector_index(schema=[("cat", "HASH"), ("color", "INLINE_FILTER"), ("price", "INLINE_FILTER")]),
               defs=[("cat", "S"), ("color", "S"), ("price", "N")])
    for i, pk in enumerate(ROWS):
        ddb.put_item(TableName=t, Item=_item(pk, i, "x"))
        ddb.put_item(TableName=t, Item={**_item(pk, i, "y"), "pk": {"S": pk + "2"}})
    return t


def found(client: Any, table: str, condition: str, top_k: int = 100, **values: dict[str, Any]) -> list[str]:
    kw: dict[str, Any] = {"SearchConditionExpression": condition}
    if values:
        kw["ExpressionAttributeValues"] = {":" + k: v for k, v in values.items()}
    out = client.search_vectors(TableName=table, IndexName="emb-idx", SearchVector=qv(1, 0, 0), TopK=top_k, **kw)
    return sorted(r["Item"]["pk"]["S"] for r in out["SearchResults"])


def S(x: str) -> dict[str, Any]:
    return {"S": x}


def N(x: str) -> dict[str, Any]:
    return {"N": x}


# --- what the page allows ----------------------------------------------------------------------------


def test_equality_on_numbers_compares_by_value(ddb: Any, inline: str) -> None:
    assert found(ddb, inline, "price = :p", p=N("1.5")) == ["f"]  # stored as 1.50
    assert found(ddb, inline, ":p = price", p=N("9.50")) == ["c"]  # the value on the left


def test_other_comparators_are_refused(raw: Any, inline: str) -> None:
    """"Troubleshooting vector indexes": only equality on the vector index partition key and
    inline filter attributes (issue 36: the service refuses a non-equality comparator on an
    INLINE_FILTER attribute)."""
    for op in ("<", "<=", ">", ">=", "<>"):
        assert_validation(COMPARATOR, search, raw, inline, f"price {op} :p", p=N("10"))
        assert_validation(COMPARATOR, search, raw, inline, f"color {op} :c AND color = :c", c=S("red"))
    assert_validation(COMPARATOR, search, raw, inline, "NOT (price < :p)", p=N("5"))


def test_a_condition_on_a_missing_attribute(ddb: Any, inline: str) -> None:
    """As in every DynamoDB expression: an equality, BETWEEN, IN and begins_with are false
    for an item without the attribute, NOT inverts."""
    assert "e" not in found(ddb, inline, "price BETWEEN :lo AND :hi", lo=N("-100"), hi=N("100"))
    assert "d" not in found(ddb, inline, "begins_with(color, :c)", c=S(""))
    assert found(ddb, inline, "NOT price = :p", p=N("5")) == ["b", "c", "d", "e", "f"]
    assert found(ddb, inline, "NOT color = :c", c=S("red")) == ["b", "c", "d", "e"]
    assert found(ddb, inline, "NOT color IN (:c, :g)", c=S("red"), g=S("green")) == ["b", "d", "e"]


def test_between_and_in(ddb: Any, inline: str) -> None:
    assert found(ddb, inline, "price BETWEEN :lo AND :hi", lo=N("5"), hi=N("10")) == ["a", "b", "c"]
    assert found(ddb, inline, "color BETWEEN :lo AND :hi", lo=S("blue"), hi=S("red")) == ["a", "b", "c", "f"]
    assert found(ddb, inline, "color IN (:r, :g)", r=S("red"), g=S("green")) == ["a", "c", "f"]
    assert found(ddb, inline, "price IN (:a, :b)", a=N("1.5"), b=N("20")) == ["d", "f"]


def test_in_between_and_or_combined(ddb: Any, inline: str) -> None:
    """The page's example combines IN, BETWEEN and OR."""
    got = found(ddb, inline, "color IN (:r, :g, :b) AND (price BETWEEN :lo AND :hi OR price = :top)",
                r=S("red"), g=S("green"), b=S("blue"), lo=N("1"), hi=N("6"), top=N("10"))
    assert got == ["a", "b", "f"]
    assert found(ddb, inline, "(color = :r OR color = :b) AND NOT (price = :p)", r=S("red"), b=S("blue"),
                 p=N("5")) == ["b", "f"]


def test_functions(ddb: Any, inline: str) -> None:
    assert found(ddb, inline, "attribute_exists(color)") == ["a", "b", "c", "e", "f"]
    assert found(ddb, inline, "attribute_not_exists(price)") == ["e"]
    assert found(ddb, inline, "begins_with(color, :r)", r=S("r")) == ["a", "e", "f"]
    assert found(ddb, inline, "attribute_exists(price) AND NOT begins_with(color, :r)", r=S("r")) == ["b", "c", "d"]


def test_range_filter_applies_before_top_k(ddb: Any, inline: str) -> None:
    """The two nearest of the rows priced 9 to 100 (b, c, d at angles 1, 2, 3 from the query)."""
    assert found(ddb, inline, "price BETWEEN :p AND :q", top_k=2, p=N("9"), q=N("100")) == ["b", "c"]


def test_hash_attribute_with_other_conditions(ddb: Any, hashed: str) -> None:
    assert found(ddb, hashed, "cat = :x AND price IN (:p, :q)", x=S("x"), p=N("5"), q=N("9.5")) == ["a", "c"]
    assert found(ddb, hashed, "cat = :y AND (color = :r OR price BETWEEN :lo AND :hi)", y=S("y"), r=S("red"),
                 lo=N("10"), hi=N("20")) == ["a2", "b2", "d2", "f2"]
    assert found(ddb, hashed, "(cat = :x) AND NOT color IN (:r)", x=S("x"), r=S("red")) == ["b", "c", "d", "e"]
    assert found(ddb, hashed, ":x = cat", x=S("x")) == ["a", "b", "c", "d", "e", "f"]


# --- what it forbids, each with its message ----------------------------------------------------------


def search(raw: Any, table: str, condition: str, **values: dict[str, Any]) -> Any:
    kw: dict[str, Any] = {"SearchConditionExpression": condition}
    if values:
        kw["ExpressionAttributeValues"] = {":" + k: v for k, v in values.items()}
    return raw.search_vectors(TableName=table, IndexName="emb-idx", SearchVector=qv(1, 0, 0), TopK=3, **kw)


def not_in_schema(name: str) -> str:
    return f"SearchConditionExpression must not contain any attributes that is not in SearchSchema. Invalid attribute: {name}"


def test_comparison_of_two_attributes_or_two_values(raw: Any, inline: str) -> None:
    assert_validation(COMPARATOR, search, raw, inline, "color = price")
    assert_validation(COMPARATOR, search, raw, inline, ":a < :b", a=N("1"), b=N("2"))


def test_functions_the_page_does_not_list(raw: Any, inline: str) -> None:
    assert_validation(OPERATOR, search, raw, inline, "contains(color, :c)", c=S("e"))
    assert_validation(OPERATOR, search, raw, inline, "attribute_type(color, :t)", t=S("S"))
    assert_validation(OPERATOR, search, raw, inline, "size(color) > :n", n=N("3"))
    assert_validation(OPERATOR, search, raw, inline, "price = :p OR begins_with(color, price)", p=N("1"))
    assert_validation(OPERATOR, search, raw, inline, "price IN (:p, price)", p=N("1"))


def test_attributes_outside_the_search_schema_or_nested(raw: Any, inline: str) -> None:
    assert_validation(not_in_schema("title"), search, raw, inline, "title = :c", c=S("a"))
    assert_validation(not_in_schema("tenant"), search, raw, inline, "tenant = :c", c=S("a"))
    assert_validation(not_in_schema("pk"), search, raw, inline, "price = :p AND pk BETWEEN :a AND :b",
                      p=N("1"), a=S("a"), b=S("b"))
    assert_validation(not_in_schema("color.x"), search, raw, inline, "color.x = :c", c=S("a"))
    assert_validation(not_in_schema("color[0]"), search, raw, inline, "attribute_exists(color[0])")


def test_hash_attribute_rules(raw: Any, hashed: str) -> None:
    assert_validation(REQUIRED, raw.search_vectors, TableName=hashed, IndexName="emb-idx",
                      SearchVector=qv(1, 0, 0), TopK=3)
    assert_validation(REQUIRED, search, raw, hashed, "color = :r", r=S("red"))
    assert_validation(REQUIRED, search, raw, hashed, "cat = :x OR color = :r", x=S("x"), r=S("red"))
    assert_validation(REQUIRED, search, raw, hashed, "NOT cat = :x", x=S("x"))
    assert_validation(COMPARATOR, search, raw, hashed, "cat <> :x", x=S("x"))
    assert_validation(COMPARATOR, search, raw, hashed, "cat = :x AND cat >= :x", x=S("x"))
    assert_validation(OPERATOR, search, raw, hashed, "cat IN (:x, :y)", x=S("x"), y=S("y"))
    assert_validation(OPERATOR, search, raw, hashed, "cat BETWEEN :x AND :y", x=S("x"), y=S("y"))
    assert_validation(OPERATOR, search, raw, hashed, "cat = :x AND begins_with(cat, :x)", x=S("x"))
    assert found(raw, hashed, "cat = :x AND cat = :x", x=S("y")) == ["a2", "b2", "c2", "d2", "e2", "f2"]


def test_validation_order(raw: Any, hashed: str) -> None:
    """The expression's own rules (syntax, placeholders, limits), then each condition's form
    (its comparator), then its attributes, then the HASH attribute's rules."""
    assert_validation(PREFIX + "An expression attribute value used in expression is not defined; "
                      "attribute value: :nope", search, raw, hashed, "contains(title, :nope)")
    assert_validation(OPERATOR, search, raw, hashed, "title = :x AND contains(color, :x)", x=S("x"))
    assert_validation(COMPARATOR, search, raw, hashed, "cat < :x AND title = :x", x=S("x"))
    assert_validation(not_in_schema("title"), search, raw, hashed, "cat = :x AND title = :x", x=S("x"))
    assert_validation(not_in_schema("title"), search, raw, hashed, "title = :x", x=S("x"))
    assert_validation(COMPARATOR, search, raw, hashed, "color = :x AND cat > :x", x=S("x"))


def test_expression_limits_are_those_of_every_expression(raw: Any, inline: str) -> None:
    values = {f"v{i}": N(str(i)) for i in range(101)}
    assert_validation(PREFIX + "The IN operator is provided with too many operands; number of operands: 101",
                      search, raw, inline, "price IN (" + ", ".join(":" + k for k in values) + ")", **values)
    assert_validation(PREFIX + "The BETWEEN operator requires upper bound to be greater than or equal to lower "
                      "bound; lower bound operand: AttributeValue: {N:10}, upper bound operand: AttributeValue: {N:5}",
                      search, raw, inline, "price BETWEEN :a AND :b", a=N("10"), b=N("5"))
    within = {f"v{i}": N(str(i)) for i in range(100)}
    out = search(raw, inline, "price IN (" + ", ".join(":" + k for k in within) + ")", **within)
    assert sorted(r["Item"]["pk"]["S"] for r in out["SearchResults"]) == ["a", "b", "d"]
