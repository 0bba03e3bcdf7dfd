"""Item size by surface (issue 36 §5; docs/rules.md, "Item size by surface"): UpdateItem is
checked by what its statement writes plus a fixed charge per clause, before its condition.
Each clause kind at one byte under the limit (written) and one byte over (refused): a filler
``SET f = :fill`` (19 + 1 + its bytes) brings the statement to the limit, and the clause
under test takes its share. The finished item must also stay within 400 KB (no item past the
limit is ever stored), so each test starts from an item holding only what its clauses use."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

LIMIT = 409_600
MESSAGE = "Item size to update has exceeded the maximum allowed size"
FILLER = 19 + 1  # SET f = :fill, without the fill's bytes


ATTRIBUTES = {"m": {"M": {"x": {"S": "x"}}}, "l": {"L": [{"S": "a"}]}, "c": {"N": "1"}, "s": {"SS": ["a"]},
              "src": {"S": "xyz"}}


@pytest.fixture
def table(make_table: Callable[..., str], ddb: Any) -> str:
    t = make_table()
    ddb.put_item(TableName=t, Item={"pk": {"S": "k"}, **ATTRIBUTES})
    return t


def _holding(ddb: Any, table: str, *names: str) -> None:
    """The item "k" afresh, with only these of ATTRIBUTES."""
    ddb.put_item(TableName=table, Item={"pk": {"S": "k"}, **{n: ATTRIBUTES[n] for n in names}})


def _update(ddb: Any, table: str, fill: int, clause: str, values: dict[str, Any] | None = None,
            key: str = "k", **kw: Any) -> str | None:
    """UpdateItem ``SET f = :fill<clause>``: None when written, else the error's (type, message)."""
    vals = {":fill": {"S": "x" * fill}, **(values or {})}
    try:
        ddb.update_item(TableName=table, Key={"pk": {"S": key}}, UpdateExpression="SET f = :fill" + clause,
                        ExpressionAttributeValues=vals, **kw)
    except ClientError as err:
        return f'{err.response["Error"]["Code"]}: {err.response["Error"]["Message"]}'
    return None


def _at_the_limit(ddb: Any, table: str, charge: int, clause: str, values: dict[str, Any] | None = None,
                  **kw: Any) -> None:
    """The clause costs ``charge`` bytes: one byte over the limit is refused (first: it
    changes nothing), a fill that brings the statement to the limit is written."""
    fill = LIMIT - FILLER - charge
    assert _update(ddb, table, fill + 1, clause, values, **kw) == f"ValidationException: {MESSAGE}"
    assert _update(ddb, table, fill, clause, values, **kw) is None


def test_a_set_alone(ddb: Any, table: str) -> None:
    _holding(ddb, table)
    _at_the_limit(ddb, table, 0, "")


@pytest.mark.parametrize(("clause", "charge"), [
    (", b = :one", 19 + 1 + 2),  # a second SET: 19, its name, its value ({"N": "1"}: 2 bytes)
    (", #long = :one", 19 + 4 + 2),  # the name, not its alias
    (", m.x = :one", 19 + 2 + 2),  # through a path: each name
    (", l[0] = :one", 19 + 2 + 2),  # through a list index: one byte more than the name alone
    (", g = src", 19 + 1 + 15 + 3),  # a path operand: 15 plus its name, not the value it copies
    (", g = m.x", 19 + 1 + 1 + 14 + 1 + 14 + 1),  # a nested path operand: 14 plus each element
    (", c = c + :one", 19 + 1 + 34 + 16 + 2),  # an addition: 34 plus its operands
    (", c = c - :one", 19 + 1 + 37 + 16 + 2),  # a subtraction: 37 plus its operands
    (", l = list_append(l, :list)", 19 + 1 + 37 + 16 + 5),  # list_append: 37 plus its operands
    (", g = if_not_exists(g, :one)", 19 + 1 + 39 + 16 + 2),  # if_not_exists: 39 plus its operands
    (", g = if_not_exists(c, :one)", 19 + 1 + 39 + 16 + 2),  # ... whether or not the path exists
    (", g = :list, h = :list", 2 * (19 + 1 + 5)),  # a value at every use
])  # fmt: skip
def test_set_clauses(ddb: Any, table: str, clause: str, charge: int) -> None:
    values = {":one": {"N": "1"}, ":list": {"L": [{"S": "x"}]}}
    used = {k: v for k, v in values.items() if k in clause}
    names = {"ExpressionAttributeNames": {"#long": "long"}} if "#long" in clause else {}
    _holding(ddb, table, "m", "l", "c", "src")
    _at_the_limit(ddb, table, charge, clause, used, **names)


def test_remove(ddb: Any, table: str) -> None:
    _holding(ddb, table, "l", "src")
    _at_the_limit(ddb, table, 1 + 3, " REMOVE src")  # 1 plus its path
    _at_the_limit(ddb, table, 1 + 1 + 4 + 2, " REMOVE l[12]")  # a list index: 4 plus its digits


def test_add(ddb: Any, table: str) -> None:
    _holding(ddb, table, "c", "s")
    _at_the_limit(ddb, table, 19 + 1 + 2, " ADD c :one", {":one": {"N": "1"}})  # 19, its path, the value
    # to a set, only the members it adds ("a" is held already)
    _at_the_limit(ddb, table, 19 + 1 + 2, " ADD s :m", {":m": {"SS": ["a", "bb"]}})
    _at_the_limit(ddb, table, 19 + 1 + 3, " ADD s :m", {":m": {"SS": ["ccc"]}})


def test_delete_is_charged_its_path_not_its_members(ddb: Any, table: str) -> None:
    _holding(ddb, table, "s")
    _at_the_limit(ddb, table, 1 + 1, " DELETE s :m", {":m": {"SS": ["a", "y" * 5000]}})


def test_the_charge_is_checked_before_the_condition(ddb: Any, table: str) -> None:
    fill = LIMIT - FILLER
    failing = {"ConditionExpression": "attribute_not_exists(pk)"}
    assert _update(ddb, table, fill + 1, "", **failing) == f"ValidationException: {MESSAGE}"
    assert _update(ddb, table, fill, "", **failing) == \
        "ConditionalCheckFailedException: The conditional request failed"
    # and with a condition that holds, or none, over the limit is refused as well
    assert _update(ddb, table, fill + 1, "", ConditionExpression="attribute_exists(pk)") == \
        f"ValidationException: {MESSAGE}"
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "k"}}, ConsistentRead=True)["Item"].get("f") is None


@pytest.mark.parametrize("key", ["k", "k" * 16])
def test_the_key_is_not_charged(ddb: Any, table: str, key: str) -> None:
    """The same fill is the most a SET takes whatever the key's length (the finished item,
    key included, stays within 400 KB here)."""
    _holding(ddb, table)
    fill = LIMIT - FILLER
    assert _update(ddb, table, fill, "", key=key) is None
    assert _update(ddb, table, fill + 1, "", key=key) == f"ValidationException: {MESSAGE}"


def test_other_surfaces_measure_the_finished_item(ddb: Any, table: str) -> None:
    """A transaction's Update and a PartiQL UPDATE write what UpdateItem refuses: they check
    the finished item (pk "k": 3 bytes, f: 1 plus its value)."""
    over = LIMIT - FILLER + 1
    assert _update(ddb, table, over, "", key="t") == f"ValidationException: {MESSAGE}"
    ddb.transact_write_items(TransactItems=[{"Update": {
        "TableName": table, "Key": {"pk": {"S": "t"}}, "UpdateExpression": "SET f = :fill",
        "ExpressionAttributeValues": {":fill": {"S": "x" * over}}}}])
    got = ddb.get_item(TableName=table, Key={"pk": {"S": "t"}}, ConsistentRead=True)["Item"]
    assert got["f"]["S"] == "x" * over
    ddb.execute_statement(Statement=f'UPDATE "{table}" SET f = ? WHERE pk = ?',
                          Parameters=[{"S": "y" * over}, {"S": "t"}])
    got = ddb.get_item(TableName=table, Key={"pk": {"S": "t"}}, ConsistentRead=True)["Item"]
    assert got["f"]["S"] == "y" * over
    # the finished item is still limited
    huge = LIMIT - 3 - 1 + 1
    with pytest.raises(ClientError) as err:
        ddb.execute_statement(Statement=f'UPDATE "{table}" SET f = ? WHERE pk = ?',
                              Parameters=[{"S": "y" * huge}, {"S": "t"}])
    assert err.value.response["Error"]["Code"] == "ValidationException"


def test_the_finished_item_is_limited_too(ddb: Any, table: str) -> None:
    """A statement within its charge that would leave the item past 400 KB is refused as well:
    300 KB held, 120 KB set (ServiceQuotas.html#limits-items: no item is larger than 400 KB)."""
    ddb.put_item(TableName=table, Item={"pk": {"S": "big"}, "a": {"S": "x" * 300_000}})
    with pytest.raises(ClientError) as err:
        ddb.update_item(TableName=table, Key={"pk": {"S": "big"}}, UpdateExpression="SET b = :v",
                        ExpressionAttributeValues={":v": {"S": "y" * 120_000}})
    assert err.value.response["Error"] == {"Code": "ValidationException", "Message": MESSAGE}
    got = ddb.get_item(TableName=table, Key={"pk": {"S": "big"}}, ConsistentRead=True)["Item"]
    assert "b" not in got
