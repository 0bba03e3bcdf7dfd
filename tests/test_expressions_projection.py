"""ProjectionExpression (and legacy AttributesToGet) on GetItem, through boto3 against the server.

Developer guide, "Projection expressions" and "Document paths": a projection returns only
the named attributes; nested map members come back inside their maps, list elements picked
by index come back as a list of the picked elements in index order; paths that resolve to
nothing are left out, and an existing item with no match comes back as an empty Item.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import L, M, N, S, assert_validation

KEY = {"pk": S("p")}
ITEM: dict[str, Any] = {
    **KEY,
    "s": S("str"),
    "n": N(1),
    "l": L(S("a"), M(x=N(1), y=N(2)), L(N(0), N(1), N(2))),
    "m": M(x=N(1), y=M(z=N(2), w=L(S("p"), S("q")))),
    "ss": {"SS": ["a", "b"]},
    "dotted.part": S("dot"),
    "Name": S("reserved"),
}


@pytest.fixture(scope="module")
def ptable(ddb: Any) -> Iterator[str]:
    name = "expr-projection"
    ddb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    ddb.put_item(TableName=name, Item=ITEM)
    yield name
    ddb.delete_table(TableName=name)


NAMES = {"#l": "l", "#x": "x", "#m": "m", "#y": "y", "#dot": "dotted.part", "#name": "Name", "#k": "pk"}

PROJECTIONS: list[tuple[str, dict[str, Any]]] = [
    ("s", {"s": S("str")}),
    ("s, n", {"s": S("str"), "n": N(1)}),
    ("n,s", {"s": S("str"), "n": N(1)}),
    ("pk", KEY),
    ("s", {"s": S("str")}),  # the key is not added
    ("ss", {"ss": {"SS": ["a", "b"]}}),
    ("l", {"l": ITEM["l"]}),
    ("m", {"m": ITEM["m"]}),
    # nested map members keep their enclosing maps, and only the named members
    ("m.x", {"m": M(x=N(1))}),
    ("m.y.z", {"m": M(y=M(z=N(2)))}),
    ("m.y.z, m.x", {"m": M(x=N(1), y=M(z=N(2)))}),
    ("m.y.w", {"m": M(y=M(w=L(S("p"), S("q"))))}),
    # list elements picked by index are gathered in index order
    ("l[0]", {"l": L(S("a"))}),
    ("l[2], l[0]", {"l": L(S("a"), L(N(0), N(1), N(2)))}),
    ("l[1].x", {"l": L(M(x=N(1)))}),
    ("l[1].y, l[1].x", {"l": L(M(x=N(1), y=N(2)))}),
    ("l[2][1]", {"l": L(L(N(1)))}),
    ("l[2][2], l[2][0]", {"l": L(L(N(0), N(2)))}),
    ("l[2][1], l[0]", {"l": L(S("a"), L(N(1)))}),
    ("m.y.w[1]", {"m": M(y=M(w=L(S("q"))))}),
    ("l[1].x, m.y.w[1], s", {"l": L(M(x=N(1))), "m": M(y=M(w=L(S("q")))), "s": S("str")}),
    # whole attribute beside a path into a different attribute
    ("l[1].x, m", {"l": L(M(x=N(1))), "m": ITEM["m"]}),
    # paths that resolve to nothing are left out
    ("gone", {}),
    ("m.gone", {}),
    ("l[9]", {}),
    ("l[1].gone", {}),
    ("s.x", {}),
    ("s[0]", {}),
    ("m[0]", {}),
    ("l.x", {}),
    ("gone, s, m.gone, l[9]", {"s": S("str")}),
    # placeholders
    ("#l[1].#x", {"l": L(M(x=N(1)))}),
    ("#m.#y", {"m": M(y=ITEM["m"]["M"]["y"])}),
    ("#dot", {"dotted.part": S("dot")}),
    ("dotted.part", {}),  # a path: member "name" of attribute "dotted"
    ("#name", {"Name": S("reserved")}),
    ("#k, #m.#x", {**KEY, "m": M(x=N(1))}),
]


@pytest.mark.parametrize(("expression", "expected"), PROJECTIONS, ids=[f"{i}-{p[0]}" for i, p in enumerate(PROJECTIONS)])
def test_projection(ddb: Any, ptable: str, expression: str, expected: dict[str, Any]) -> None:
    names = {k: NAMES[k] for k in re.findall(r"#\w+", expression)}
    kwargs: dict[str, Any] = {"ProjectionExpression": expression}
    if names:
        kwargs["ExpressionAttributeNames"] = names
    out = ddb.get_item(TableName=ptable, Key=KEY, **kwargs)
    assert out["Item"] == expected  # an empty projection of an existing item is an empty Item


def test_projection_of_a_missing_item(ddb: Any, ptable: str) -> None:
    out = ddb.get_item(TableName=ptable, Key={"pk": S("absent")}, ProjectionExpression="s, m.x")
    assert "Item" not in out


def test_projection_with_consistent_read_and_capacity(ddb: Any, ptable: str) -> None:
    out = ddb.get_item(TableName=ptable, Key=KEY, ProjectionExpression="n", ConsistentRead=True,
                       ReturnConsumedCapacity="TOTAL")
    assert out["Item"] == {"n": N(1)}
    assert out["ConsumedCapacity"]["CapacityUnits"] == 1.0  # capacity is charged on the whole item


def test_attributes_to_get(ddb: Any, ptable: str) -> None:
    out = ddb.get_item(TableName=ptable, Key=KEY, AttributesToGet=["s", "m", "gone", "dotted.part"])
    assert out["Item"] == {"s": S("str"), "m": ITEM["m"], "dotted.part": S("dot")}  # names, not paths


# --- errors ------------------------------------------------------------------------------------------

OVERLAP = "Invalid ProjectionExpression: Two document paths overlap with each other; must remove or rewrite one of these paths; "
CONFLICT = "Invalid ProjectionExpression: Two document paths conflict with each other; must remove or rewrite one of these paths; "

ERRORS: list[tuple[str, dict[str, str] | None, str]] = [
    ("", None, "Invalid ProjectionExpression: The expression can not be empty;"),
    ("name", None, "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: name"),
    ("s, m.Status", None, "Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: Status"),
    ("#u", None,
     "Invalid ProjectionExpression: An expression attribute name used in the document path is not defined; "
     "attribute name: #u"),
    ("s", {"#unused": "x"}, "Value provided in ExpressionAttributeNames unused in expressions: keys: {#unused}"),
    ("s, s", None, OVERLAP + "path one: [s], path two: [s]"),
    ("m, m.x", None, OVERLAP + "path one: [m], path two: [m, x]"),
    ("m.y.z, m.y", None, OVERLAP + "path one: [m, y, z], path two: [m, y]"),
    ("l[1], l[1].x", None, OVERLAP + "path one: [l, [1]], path two: [l, [1], x]"),
    ("#a, a", {"#a": "a"}, OVERLAP + "path one: [a], path two: [a]"),
    ("m.x, m[0]", None, CONFLICT + "path one: [m, x], path two: [m, [0]]"),
    ("l[0].x, l[0][1]", None, CONFLICT + "path one: [l, [0], x], path two: [l, [0], [1]]"),
    # syntax
    ("s,", None, 'Invalid ProjectionExpression: Syntax error; token: "<EOF>", near: ","'),
    (",s", None, 'Invalid ProjectionExpression: Syntax error; token: ",", near: ",s"'),
    ("s n", None, 'Invalid ProjectionExpression: Syntax error; token: "n", near: "s n"'),
    ("s.", None, 'Invalid ProjectionExpression: Syntax error; token: "<EOF>", near: "."'),
    ("l[", None, 'Invalid ProjectionExpression: Syntax error; token: "<EOF>", near: "["'),
    ("l[x]", None, 'Invalid ProjectionExpression: Syntax error; token: "x", near: "[x]"'),
    ("l[-1]", None, 'Invalid ProjectionExpression: Syntax error; token: "-", near: "[-1"'),
    ("size(s)", None, 'Invalid ProjectionExpression: Syntax error; token: "(", near: "size(s"'),
    (":v", None, 'Invalid ProjectionExpression: Syntax error; token: ":v", near: ":v"'),
    ("s = n", None, 'Invalid ProjectionExpression: Syntax error; token: "=", near: "s = n"'),
    ("a-b", None, 'Invalid ProjectionExpression: Syntax error; token: "-", near: "a-b"'),
    ("é", None, 'Invalid ProjectionExpression: Syntax error; token: "é", near: "é"'),
]


@pytest.mark.parametrize(("expression", "names", "message"), ERRORS, ids=[f"{i}-{e[0]}" for i, e in enumerate(ERRORS)])
def test_projection_errors(ddb: Any, ptable: str, expression: str, names: dict[str, str] | None, message: str) -> None:
    kwargs: dict[str, Any] = {"ProjectionExpression": expression}
    if names:
        kwargs["ExpressionAttributeNames"] = names
    assert_validation(message, ddb.get_item, TableName=ptable, Key=KEY, **kwargs)


def test_projection_errors_come_before_the_table_lookup(ddb: Any) -> None:
    assert_validation("Invalid ProjectionExpression: Attribute name is a reserved keyword; reserved keyword: name",
                      ddb.get_item, TableName="no-such-table", Key=KEY, ProjectionExpression="name")


def test_attributes_to_get_errors(ddb: Any, ptable: str) -> None:
    assert_validation("One or more parameter values were invalid: Duplicate value in attribute name: s",
                      ddb.get_item, TableName=ptable, Key=KEY, AttributesToGet=["s", "n", "s"])
    assert_validation(
        "Can not use both expression and non-expression parameters in the same request: "
        "Non-expression parameters: {AttributesToGet} Expression parameters: {ProjectionExpression}",
        ddb.get_item, TableName=ptable, Key=KEY, AttributesToGet=["s"], ProjectionExpression="s",
    )
    assert_validation("ExpressionAttributeNames can only be specified when using expressions",
                      ddb.get_item, TableName=ptable, Key=KEY, AttributesToGet=["s"],
                      ExpressionAttributeNames={"#s": "s"})


def test_projection_size_limit(ddb: Any, ptable: str) -> None:
    at_limit = ", ".join(f"a{i:04d}" for i in range(580))
    at_limit += ", " + "x" * (4096 - len(at_limit) - 2)
    assert len(at_limit) == 4096
    assert ddb.get_item(TableName=ptable, Key=KEY, ProjectionExpression=at_limit)["Item"] == {}
    assert_validation("Invalid ProjectionExpression: Expression size has exceeded the maximum allowed size;",
                      ddb.get_item, TableName=ptable, Key=KEY, ProjectionExpression=at_limit + "y")
    # the raw text counts, not the names it stands for
    names = {f"#a{i}": "n" * 250 + str(i) for i in range(30)}
    out = ddb.get_item(TableName=ptable, Key=KEY, ProjectionExpression=", ".join(names), ExpressionAttributeNames=names)
    assert out["Item"] == {}
