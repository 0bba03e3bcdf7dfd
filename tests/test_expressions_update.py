"""UpdateExpression and ReturnValues through boto3 against the server.

Semantics from the developer guide, "Update expressions": SET operands read the item as it
was before the update; SET on a list index past the end appends; REMOVE of list elements
shifts the rest down; ADD adds to a number or a set and creates a missing attribute; DELETE
removes set elements and an emptied set disappears. ReturnValues from the API reference,
UpdateItem: UPDATED_OLD / UPDATED_NEW return only the updated paths, shaped as a projection
of them.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import L, M, N, S, assert_validation

KEY = {"pk": S("u")}
BASE: dict[str, Any] = {
    **KEY,
    "s": S("str"),
    "n": N(10),
    "l": L(S("a"), S("b"), S("c"), S("d")),
    "m": M(x=N(1), y=M(z=N(2)), keep=S("k")),
    "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2"]},
    "bs": {"BS": [b"\x01", b"\x02"]},
}


def _sorted_sets(item: dict[str, Any]) -> dict[str, Any]:
    """Sets are unordered: compare them sorted."""
    out = {}
    for name, value in item.items():
        ((t, x),) = value.items()
        if t in ("SS", "BS"):
            value = {t: sorted(x)}
        elif t == "NS":
            value = {t: sorted(x, key=float)}
        out[name] = value
    return out


def update(ddb: Any, table: str, expression: str, values: dict[str, Any] | None = None,
           names: dict[str, str] | None = None, **extra: Any) -> dict[str, Any]:
    kwargs: dict[str, Any] = {"UpdateExpression": expression, **extra}
    if values:
        kwargs["ExpressionAttributeValues"] = values
    if names:
        kwargs["ExpressionAttributeNames"] = names
    return ddb.update_item(TableName=table, Key=KEY, **kwargs)


# (expression, values, the item afterwards as changes to BASE; None removes an attribute)
UPDATES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    # SET
    ("SET s = :v", {":v": S("new")}, {"s": S("new")}),
    ("SET fresh = :v", {":v": N(1)}, {"fresh": N(1)}),
    ("SET n = n + :v", {":v": N(5)}, {"n": N(15)}),
    ("SET n = n - :v", {":v": N("0.5")}, {"n": N("9.5")}),
    ("SET n = :v - n", {":v": N(3)}, {"n": N(-7)}),
    ("SET n = n + n", {}, {"n": N(20)}),
    ("SET n = (n - :v)", {":v": N(3)}, {"n": N(7)}),
    ("SET fresh = m.x + m.y.z", {}, {"fresh": N(3)}),
    ("SET n = :a + :b", {":a": N("0.1"), ":b": N("0.2")}, {"n": N("0.3")}),
    ("SET n = :a + :b", {":a": N("99999999999999999999999999999999999999"), ":b": N(1)},
     {"n": N("100000000000000000000000000000000000000")}),
    ("SET s = n", {}, {"s": N(10)}),
    ("SET fresh = if_not_exists(fresh, :v)", {":v": N(0)}, {"fresh": N(0)}),
    ("SET n = if_not_exists(n, :v)", {":v": N(0)}, {}),
    ("SET fresh = if_not_exists(fresh, n)", {}, {"fresh": N(10)}),
    ("SET fresh = if_not_exists(fresh, :zero) + :one", {":zero": N(0), ":one": N(1)}, {"fresh": N(1)}),
    ("SET n = if_not_exists(n, :zero) + :one", {":zero": N(0), ":one": N(1)}, {"n": N(11)}),
    ("SET m.x = if_not_exists(m.x, :v)", {":v": N(9)}, {}),
    ("SET l = list_append(l, :v)", {":v": L(S("e"))}, {"l": L(S("a"), S("b"), S("c"), S("d"), S("e"))}),
    ("SET l = list_append(:v, l)", {":v": L(S("z"))}, {"l": L(S("z"), S("a"), S("b"), S("c"), S("d"))}),
    ("SET fresh = list_append(:a, :b)", {":a": L(N(1)), ":b": L()}, {"fresh": L(N(1))}),
    ("SET fresh = list_append(if_not_exists(fresh, :empty), :more)", {":empty": L(), ":more": L(S("x"))},
     {"fresh": L(S("x"))}),
    ("SET l[0] = :v", {":v": S("A")}, {"l": L(S("A"), S("b"), S("c"), S("d"))}),
    ("SET l[3] = :v", {":v": S("D")}, {"l": L(S("a"), S("b"), S("c"), S("D"))}),
    ("SET l[4] = :v", {":v": S("e")}, {"l": L(S("a"), S("b"), S("c"), S("d"), S("e"))}),
    ("SET l[99] = :v", {":v": S("e")}, {"l": L(S("a"), S("b"), S("c"), S("d"), S("e"))}),
    ("SET l[9] = :x, l[7] = :y", {":x": S("x"), ":y": S("y")}, {"l": L(S("a"), S("b"), S("c"), S("d"), S("y"), S("x"))}),
    ("SET m.x = :v", {":v": S("X")}, {"m": M(x=S("X"), y=M(z=N(2)), keep=S("k"))}),
    ("SET m.y.z = m.y.z + :v", {":v": N(5)}, {"m": M(x=N(1), y=M(z=N(7)), keep=S("k"))}),
    ("SET m.w = :v", {":v": L()}, {"m": M(x=N(1), y=M(z=N(2)), keep=S("k"), w=L())}),
    ("SET a = :v, b = s, s = :w", {":v": N(1), ":w": S("W")}, {"a": N(1), "b": S("str"), "s": S("W")}),
    ("SET #k = :v", {":v": S("v")}, {"dotted.name": S("v")}),
    ("SET #s = :v", {":v": S("v")}, {"Status": S("v")}),
    ("set s = :v", {":v": S("lower")}, {"s": S("lower")}),
    ("SET s=:v,n=:w", {":v": S("x"), ":w": N(1)}, {"s": S("x"), "n": N(1)}),
    # REMOVE
    ("REMOVE s", {}, {"s": None}),
    ("REMOVE s, n", {}, {"s": None, "n": None}),
    ("REMOVE gone", {}, {}),
    ("REMOVE m.x", {}, {"m": M(y=M(z=N(2)), keep=S("k"))}),
    ("REMOVE m.gone", {}, {}),
    ("REMOVE m.y.z", {}, {"m": M(x=N(1), y=M(), keep=S("k"))}),
    ("REMOVE l[0]", {}, {"l": L(S("b"), S("c"), S("d"))}),
    ("REMOVE l[1], l[2]", {}, {"l": L(S("a"), S("d"))}),
    ("REMOVE l[3], l[0]", {}, {"l": L(S("b"), S("c"))}),
    ("REMOVE l[9]", {}, {}),
    ("REMOVE l[0], l[1], l[2], l[3]", {}, {"l": L()}),
    # ADD
    ("ADD n :v", {":v": N(5)}, {"n": N(15)}),
    ("ADD n :v", {":v": N(-10)}, {"n": N(0)}),
    ("ADD fresh :v", {":v": N(5)}, {"fresh": N(5)}),
    ("ADD m.x :v", {":v": N(1)}, {"m": M(x=N(2), y=M(z=N(2)), keep=S("k"))}),
    ("ADD m.fresh :v", {":v": N(1)}, {"m": M(x=N(1), y=M(z=N(2)), keep=S("k"), fresh=N(1))}),
    ("ADD ss :v", {":v": {"SS": ["b", "c"]}}, {"ss": {"SS": ["a", "b", "c"]}}),
    ("ADD ns :v", {":v": {"NS": ["2.0", "3"]}}, {"ns": {"NS": ["1", "2", "3"]}}),
    ("ADD bs :v", {":v": {"BS": [b"\x03"]}}, {"bs": {"BS": [b"\x01", b"\x02", b"\x03"]}}),
    ("ADD fresh :v", {":v": {"SS": ["x"]}}, {"fresh": {"SS": ["x"]}}),
    ("ADD ss :v", {":v": {"SS": [""]}}, {"ss": {"SS": ["", "a", "b"]}}),
    ("ADD n :a, fresh :b", {":a": N(1), ":b": {"NS": ["7"]}}, {"n": N(11), "fresh": {"NS": ["7"]}}),
    # DELETE
    ("DELETE ss :v", {":v": {"SS": ["a"]}}, {"ss": {"SS": ["b"]}}),
    ("DELETE ss :v", {":v": {"SS": ["a", "zz"]}}, {"ss": {"SS": ["b"]}}),
    ("DELETE ss :v", {":v": {"SS": ["a", "b"]}}, {"ss": None}),
    ("DELETE ns :v", {":v": {"NS": ["2.00"]}}, {"ns": {"NS": ["1"]}}),
    ("DELETE bs :v", {":v": {"BS": [b"\x01", b"\x02"]}}, {"bs": None}),
    ("DELETE gone :v", {":v": {"SS": ["a"]}}, {}),
    ("DELETE ss :v", {":v": {"SS": ["zz"]}}, {}),
    # several clauses, in any order, keywords in any case
    ("SET s = :v REMOVE n ADD fresh :one DELETE ss :a", {":v": S("x"), ":one": N(1), ":a": {"SS": ["a"]}},
     {"s": S("x"), "n": None, "fresh": N(1), "ss": {"SS": ["b"]}}),
    ("DELETE ss :a ADD fresh :one REMOVE n SET s = :v", {":v": S("x"), ":one": N(1), ":a": {"SS": ["a"]}},
     {"s": S("x"), "n": None, "fresh": N(1), "ss": {"SS": ["b"]}}),
    ("remove n set s = :v", {":v": S("x")}, {"s": S("x"), "n": None}),
    ("SET l[0] = :v REMOVE l[1]", {":v": S("A")}, {"l": L(S("A"), S("c"), S("d"))}),
    ("SET m.x = :v REMOVE m.y ADD m.c :one", {":v": S("X"), ":one": N(1)}, {"m": M(x=S("X"), keep=S("k"), c=N(1))}),
]


@pytest.mark.parametrize(("expression", "values", "changes"), UPDATES, ids=[f"{i}-{u[0]}" for i, u in enumerate(UPDATES)])
def test_updates(ddb: Any, table: str, expression: str, values: dict[str, Any], changes: dict[str, Any]) -> None:
    ddb.put_item(TableName=table, Item=BASE)
    names = {k: v for k, v in {"#k": "dotted.name", "#s": "Status"}.items() if k in expression}
    out = update(ddb, table, expression, values, names, ReturnValues="ALL_NEW")
    expected = {**BASE, **changes}
    expected = {k: v for k, v in expected.items() if v is not None}
    assert _sorted_sets(out["Attributes"]) == _sorted_sets(expected)
    assert _sorted_sets(ddb.get_item(TableName=table, Key=KEY, ConsistentRead=True)["Item"]) == _sorted_sets(expected)


def test_update_creates_the_item(table: str, ddb: Any) -> None:
    out = update(ddb, table, "SET a = :a ADD c :one, tags :t", {":a": S("x"), ":one": N(1), ":t": {"SS": ["t"]}},
                 ReturnValues="ALL_NEW")
    assert out["Attributes"] == {**KEY, "a": S("x"), "c": N(1), "tags": {"SS": ["t"]}}
    ddb.delete_item(TableName=table, Key=KEY)
    # actions that leave only the key create nothing (issue 12; scylladb/scylladb#5862)
    out = update(ddb, table, "REMOVE a DELETE tags :t", {":t": {"SS": ["t"]}}, ReturnValues="ALL_NEW")
    assert "Attributes" not in out
    assert "Item" not in ddb.get_item(TableName=table, Key=KEY, ConsistentRead=True)


def test_update_on_a_table_with_a_sort_key(table_hr: str, ddb: Any) -> None:
    key = {"pk": S("a"), "sk": N(1)}
    out = ddb.update_item(TableName=table_hr, Key=key, UpdateExpression="ADD hits :one",
                          ExpressionAttributeValues={":one": N(1)}, ReturnValues="ALL_NEW")
    assert out["Attributes"] == {**key, "hits": N(1)}


# --- ReturnValues ---------------------------------------------------------------------------------

# (expression, values, ReturnValues, expected Attributes or None when the member is absent)
RETURN_VALUES: list[tuple[str, dict[str, Any], str, dict[str, Any] | None]] = [
    ("SET s = :v", {":v": S("x")}, "NONE", None),
    ("SET s = :v", {":v": S("x")}, "ALL_OLD", BASE),
    ("SET s = :v", {":v": S("x")}, "ALL_NEW", {**BASE, "s": S("x")}),
    ("SET s = :v", {":v": S("x")}, "UPDATED_OLD", {"s": S("str")}),
    ("SET s = :v", {":v": S("x")}, "UPDATED_NEW", {"s": S("x")}),
    ("SET fresh = :v", {":v": S("x")}, "UPDATED_OLD", None),
    ("SET fresh = :v", {":v": S("x")}, "UPDATED_NEW", {"fresh": S("x")}),
    # nested paths come back as fragments of their maps and lists
    ("SET m.y.z = m.y.z + :v, m.q = :v", {":v": N(5)}, "UPDATED_NEW", {"m": M(y=M(z=N(7)), q=N(5))}),
    ("SET m.y.z = m.y.z + :v, m.q = :v", {":v": N(5)}, "UPDATED_OLD", {"m": M(y=M(z=N(2)))}),
    ("SET l[1] = :v", {":v": S("B")}, "UPDATED_OLD", {"l": L(S("b"))}),
    ("SET l[1] = :v, l[3] = :v", {":v": S("B")}, "UPDATED_NEW", {"l": L(S("B"), S("B"))}),
    ("SET n = n + :v, s = :s", {":v": N(1), ":s": S("t")}, "UPDATED_NEW", {"n": N(11), "s": S("t")}),
    ("SET n = if_not_exists(n, :v), fresh = if_not_exists(fresh, :v)", {":v": N(0)}, "UPDATED_NEW",
     {"n": N(10), "fresh": N(0)}),
    # REMOVE: the old value, and nothing new
    ("REMOVE s", {}, "UPDATED_OLD", {"s": S("str")}),
    ("REMOVE s", {}, "UPDATED_NEW", None),
    ("REMOVE s", {}, "ALL_NEW", {k: v for k, v in BASE.items() if k != "s"}),
    ("REMOVE gone", {}, "UPDATED_OLD", None),
    ("REMOVE m.y", {}, "UPDATED_OLD", {"m": M(y=M(z=N(2)))}),
    ("REMOVE m.y", {}, "UPDATED_NEW", None),
    ("REMOVE l[1], l[2]", {}, "UPDATED_OLD", {"l": L(S("b"), S("c"))}),
    # a removed list element reports the one that shifted into its place (issue 24): [a, d]
    ("REMOVE l[1], l[2]", {}, "UPDATED_NEW", {"l": L(S("d"))}),
    ("REMOVE s SET n = :v", {":v": N(0)}, "UPDATED_NEW", {"n": N(0)}),
    # ADD and DELETE
    ("ADD n :v, fresh :v", {":v": N(2)}, "UPDATED_OLD", {"n": N(10)}),
    ("ADD n :v, fresh :v", {":v": N(2)}, "UPDATED_NEW", {"n": N(12), "fresh": N(2)}),
    ("DELETE ss :v", {":v": {"SS": ["a"]}}, "UPDATED_NEW", {"ss": {"SS": ["b"]}}),
    ("DELETE ss :v", {":v": {"SS": ["a", "b"]}}, "UPDATED_OLD", {"ss": {"SS": ["a", "b"]}}),
    ("DELETE ss :v", {":v": {"SS": ["a", "b"]}}, "UPDATED_NEW", None),
]


@pytest.mark.parametrize(("expression", "values", "rv", "expected"), RETURN_VALUES,
                         ids=[f"{i}-{r[2]}-{r[0]}" for i, r in enumerate(RETURN_VALUES)])
def test_return_values(ddb: Any, table: str, expression: str, values: dict[str, Any], rv: str,
                       expected: dict[str, Any] | None) -> None:
    ddb.put_item(TableName=table, Item=BASE)
    out = update(ddb, table, expression, values, ReturnValues=rv)
    if expected is None:
        assert "Attributes" not in out
    else:
        assert _sorted_sets(out["Attributes"]) == _sorted_sets(expected)


def test_return_values_on_a_new_item(table: str, ddb: Any) -> None:
    values = {":v": S("x")}
    out = update(ddb, table, "SET a = :v", values, ReturnValues="UPDATED_NEW")
    assert out["Attributes"] == {"a": S("x")}
    ddb.delete_item(TableName=table, Key=KEY)
    for rv in ("ALL_OLD", "UPDATED_OLD"):
        assert "Attributes" not in update(ddb, table, "SET a = :v", values, ReturnValues=rv)
        ddb.delete_item(TableName=table, Key=KEY)
    out = update(ddb, table, "SET a = :v", values, ReturnValues="ALL_NEW")
    assert out["Attributes"] == {**KEY, "a": S("x")}


def test_return_values_without_update_expression(table: str, ddb: Any) -> None:
    ddb.put_item(TableName=table, Item=BASE)
    for rv in ("UPDATED_OLD", "UPDATED_NEW"):
        assert "Attributes" not in ddb.update_item(TableName=table, Key=KEY, ReturnValues=rv)


# --- legacy AttributeUpdates -------------------------------------------------------------------------

LEGACY: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"s": {"Action": "PUT", "Value": S("x")}}, {"s": S("x")}),
    ({"s": {"Value": S("x")}}, {"s": S("x")}),  # PUT is the default action
    ({"s": {"Action": "DELETE"}}, {"s": None}),
    ({"gone": {"Action": "DELETE"}}, {}),
    ({"n": {"Action": "ADD", "Value": N(-3)}}, {"n": N(7)}),
    ({"fresh": {"Action": "ADD", "Value": N(3)}}, {"fresh": N(3)}),
    ({"ss": {"Action": "ADD", "Value": {"SS": ["c"]}}}, {"ss": {"SS": ["a", "b", "c"]}}),
    ({"l": {"Action": "ADD", "Value": L(S("e"))}}, {"l": L(S("a"), S("b"), S("c"), S("d"), S("e"))}),
    ({"ss": {"Action": "DELETE", "Value": {"SS": ["a"]}}}, {"ss": {"SS": ["b"]}}),
    ({"ss": {"Action": "DELETE", "Value": {"SS": ["a", "b"]}}}, {"ss": None}),
    ({"s": {"Action": "PUT", "Value": S("x")}, "n": {"Action": "ADD", "Value": N(1)}, "m": {"Action": "DELETE"}},
     {"s": S("x"), "n": N(11), "m": None}),
]


@pytest.mark.parametrize(("updates", "changes"), LEGACY, ids=[str(i) for i in range(len(LEGACY))])
def test_legacy_attribute_updates(ddb: Any, table: str, updates: dict[str, Any], changes: dict[str, Any]) -> None:
    ddb.put_item(TableName=table, Item=BASE)
    out = ddb.update_item(TableName=table, Key=KEY, AttributeUpdates=updates, ReturnValues="ALL_NEW")
    expected = {k: v for k, v in {**BASE, **changes}.items() if v is not None}
    assert _sorted_sets(out["Attributes"]) == _sorted_sets(expected)


def test_legacy_attribute_updates_return_values(table: str, ddb: Any) -> None:
    ddb.put_item(TableName=table, Item=BASE)
    out = ddb.update_item(TableName=table, Key=KEY, ReturnValues="UPDATED_OLD",
                          AttributeUpdates={"n": {"Action": "ADD", "Value": N(1)}, "fresh": {"Value": S("x")}})
    assert out["Attributes"] == {"n": N(10)}
    out = ddb.update_item(TableName=table, Key=KEY, ReturnValues="UPDATED_NEW",
                          AttributeUpdates={"n": {"Action": "ADD", "Value": N(1)}, "s": {"Action": "DELETE"}})
    assert out["Attributes"] == {"n": N(12)}


def test_legacy_attribute_updates_with_expected(table: str, ddb: Any) -> None:
    ddb.put_item(TableName=table, Item=BASE)
    updates = {"n": {"Action": "ADD", "Value": N(1)}}
    ddb.update_item(TableName=table, Key=KEY, AttributeUpdates=updates, Expected={"n": {"Value": N(10)}})
    with pytest.raises(ddb.exceptions.ConditionalCheckFailedException):
        ddb.update_item(TableName=table, Key=KEY, AttributeUpdates=updates, Expected={"n": {"Value": N(10)}})
    assert ddb.get_item(TableName=table, Key=KEY)["Item"]["n"] == N(11)


# --- errors found while applying the update (the item matters) -------------------------------------

INVALID_PATH = "The document path provided in the update expression is invalid for update"
MISSING = "The provided expression refers to an attribute that does not exist in the item"
WRONG_TYPE = "An operand in the update expression has an incorrect data type"
OVERFLOW = "Number overflow. Attempting to store a number with magnitude larger than supported range"
PRECISION = "Attempting to store more than 38 significant digits in a Number"

RUNTIME_ERRORS: list[tuple[str, dict[str, Any], str]] = [
    # a path through a missing attribute, a non-map or a non-list
    ("SET gone.x = :v", {":v": N(1)}, INVALID_PATH),
    ("SET s.x = :v", {":v": N(1)}, INVALID_PATH),
    ("SET m.gone.x = :v", {":v": N(1)}, INVALID_PATH),
    ("SET m.x.y = :v", {":v": N(1)}, INVALID_PATH),
    ("SET s[0] = :v", {":v": N(1)}, INVALID_PATH),
    ("SET m[0] = :v", {":v": N(1)}, INVALID_PATH),
    ("SET l.x = :v", {":v": N(1)}, INVALID_PATH),
    ("SET gone[0] = :v", {":v": N(1)}, INVALID_PATH),
    ("SET l[9].x = :v", {":v": N(1)}, INVALID_PATH),
    ("REMOVE s.x", {}, INVALID_PATH),
    ("REMOVE s[1]", {}, INVALID_PATH),
    ("ADD s.x :v", {":v": N(1)}, INVALID_PATH),
    ("DELETE gone.x :v", {":v": {"SS": ["a"]}}, INVALID_PATH),
    # operands that read missing attributes
    ("SET a = gone", {}, MISSING),
    ("SET a = gone + :v", {":v": N(1)}, MISSING),
    ("SET a = :v + m.gone", {":v": N(1)}, MISSING),
    ("SET a = list_append(gone, :v)", {":v": L()}, MISSING),
    ("SET a = if_not_exists(gone, m.gone)", {}, MISSING),
    ("SET a = l[9]", {}, MISSING),
    # operands of the wrong type
    ("SET a = s + :v", {":v": N(1)}, WRONG_TYPE),
    ("SET a = :v - s", {":v": N(1)}, WRONG_TYPE),
    ("SET a = ss + :v", {":v": N(1)}, WRONG_TYPE),
    ("SET a = list_append(s, :v)", {":v": L()}, WRONG_TYPE),
    ("SET a = list_append(:v, m)", {":v": L()}, WRONG_TYPE),
    ("ADD s :v", {":v": N(1)}, WRONG_TYPE),
    ("ADD n :v", {":v": {"NS": ["1"]}}, WRONG_TYPE),
    ("ADD ss :v", {":v": {"NS": ["1"]}}, WRONG_TYPE),
    ("ADD l :v", {":v": {"SS": ["x"]}}, WRONG_TYPE),
    ("DELETE ss :v", {":v": {"NS": ["1"]}}, WRONG_TYPE),
    ("DELETE s :v", {":v": {"SS": ["s"]}}, WRONG_TYPE),
    # 38-digit arithmetic
    ("SET big = big + :v", {":v": N("1E+125")}, OVERFLOW),
    ("ADD big :v", {":v": N("1E+125")}, OVERFLOW),
    ("SET a = :v - big", {":v": N("-1E+125")}, OVERFLOW),
    ("SET a = wide + :v", {":v": N("0.1")}, PRECISION),
    ("ADD wide :v", {":v": N("0.1")}, PRECISION),
]


@pytest.mark.parametrize(("expression", "values", "message"), RUNTIME_ERRORS,
                         ids=[f"{i}-{r[0]}" for i, r in enumerate(RUNTIME_ERRORS)])
def test_runtime_errors(ddb: Any, table: str, expression: str, values: dict[str, Any], message: str) -> None:
    item = {**BASE, "big": N("9.9999999999999999999999999999999999999E+125"),
            "wide": N("99999999999999999999999999999999999999")}
    ddb.put_item(TableName=table, Item=item)
    stored = ddb.get_item(TableName=table, Key=KEY)["Item"]
    assert_validation(message, update, ddb, table, expression, values)
    assert ddb.get_item(TableName=table, Key=KEY)["Item"] == stored  # nothing was written


def test_runtime_errors_on_a_missing_item(table: str, ddb: Any) -> None:
    assert_validation(MISSING, update, ddb, table, "SET a = b")
    assert_validation(INVALID_PATH, update, ddb, table, "SET a.b = :v", {":v": N(1)})
    assert "Item" not in ddb.get_item(TableName=table, Key=KEY)


def test_condition_is_checked_before_the_update_is_applied(table: str, ddb: Any) -> None:
    # A failed condition wins over an update that could not be applied.
    ddb.put_item(TableName=table, Item=BASE)
    with pytest.raises(ddb.exceptions.ConditionalCheckFailedException):
        update(ddb, table, "SET a = gone", ConditionExpression="attribute_not_exists(s)")


def test_arithmetic_precision_and_normalisation(table: str, ddb: Any) -> None:
    ddb.put_item(TableName=table, Item={**KEY, "n": N("0.1")})
    out = update(ddb, table, "SET n = n + :a, m = :b - :c", {":a": N("0.20"), ":b": N("1E+2"), ":c": N("100.0")},
                 ReturnValues="ALL_NEW")
    assert out["Attributes"] == {**KEY, "n": N("0.3"), "m": N(0)}
    out = update(ddb, table, "ADD n :a", {":a": N("1234567890123456789012345678901234567")}, ReturnValues="UPDATED_NEW")
    assert out["Attributes"] == {"n": N("1234567890123456789012345678901234567.3")}  # 38 digits fit
    out = update(ddb, table, "SET n = n - :a", {":a": N("1234567890123456789012345678901234567.3")},
                 ReturnValues="UPDATED_NEW")
    assert out["Attributes"] == {"n": N(0)}
