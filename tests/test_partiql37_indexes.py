"""Issue 37 "multi-attribute GSI" and issue 36's PartiQL parts ([executeStatementIndex],
[indexReads], [partiqlParameterNumbers], §3, §4, §7), over HTTP."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.partiql37_helpers import MALFORMED, create, failure, item, made, new_name, run

V = "ValidationException"
MULTI = ("PartiQL statements cannot be executed on tables with multi-attribute HASH keys or multi-attribute RANGE "
         "keys.")
BATCH_KEY = "Select statements within BatchExecuteStatement must specify the primary key in the where clause."
NOT_A_NUMBER = "The parameter cannot be converted to a numeric value: "
UNDERFLOW = "Number underflow. Attempting to store a number with magnitude smaller than supported range"


def _gsi(name: str, hashes: tuple[str, ...], ranges: tuple[str, ...]) -> dict[str, Any]:
    schema = [{"AttributeName": h, "KeyType": "HASH"} for h in hashes]
    schema += [{"AttributeName": r, "KeyType": "RANGE"} for r in ranges]
    return {"IndexName": name, "KeySchema": schema, "Projection": {"ProjectionType": "ALL"}}


@pytest.fixture
def multi(ddb: Any) -> Iterator[str]:
    """GSIs ``two_by_two`` (h1, h2 / r1, r2), ``two_by_one`` (h1, h2 / r1) and ``plain`` (h1)."""
    name = create(ddb, new_name(), attributes=(("h1", "S"), ("h2", "S"), ("r1", "N"), ("r2", "N")),
                  gsi=[_gsi("two_by_two", ("h1", "h2"), ("r1", "r2")), _gsi("two_by_one", ("h1", "h2"), ("r1",)),
                       _gsi("plain", ("h1",), ())])
    run(ddb, f"INSERT INTO \"{name}\" VALUE {{'pk': 'a', 'h1': 'x', 'h2': 'y', 'r1': 1, 'r2': 2}}")
    yield name
    ddb.delete_table(TableName=name)


@pytest.fixture
def t37(ddb: Any) -> Iterator[str]:
    yield from made(ddb)


# --- multi-attribute GSI --------------------------------------------------------------------------


@pytest.mark.parametrize("index", ["two_by_two", "two_by_one"])
@pytest.mark.parametrize(
    "where",
    ["WHERE h1 = 'x' AND h2 = 'y'",
     "WHERE h1 = 1 AND h2 = 'y'",  # a key type mismatch
     "WHERE other = 1",  # a non-key WHERE
     "",  # no WHERE
     "WHERE h1 = 'x' AND h2 = 'y' ORDER BY r1"],
)
def test_a_select_on_a_multi_attribute_gsi_is_refused(multi: str, ddb: Any, index: str, where: str) -> None:
    assert failure(run, ddb, f"SELECT * FROM \"{multi}\".\"{index}\" {where}") == (V, MULTI)


def test_syntax_and_number_errors_come_ahead_of_the_refusal(multi: str, ddb: Any) -> None:
    base = f"SELECT * FROM \"{multi}\".\"two_by_two\" WHERE "
    assert failure(run, ddb, base + "h1 = 1e99999999999") == (V, MALFORMED)
    assert failure(run, ddb, base) == (V, MALFORMED + "Unexpected term")
    # COUNT(*) is refused too (not a path: the projection's refusal comes first)
    assert failure(run, ddb, f"SELECT COUNT(*) FROM \"{multi}\".\"two_by_two\" WHERE h1 = 'x'") == (
        V, "Unexpected path component at 1:8:5")


def test_a_single_attribute_gsi_of_the_same_table_is_served(multi: str, ddb: Any) -> None:
    assert len(run(ddb, f"SELECT * FROM \"{multi}\".\"plain\" WHERE h1 = 'x'")["Items"]) == 1


def test_batch_refuses_each_index_and_partial_key_select_in_its_slot(multi: str, ddb: Any) -> None:
    t = f'"{multi}"'
    out = ddb.batch_execute_statement(Statements=[
        {"Statement": f"SELECT * FROM {t}.\"two_by_two\" WHERE h1 = 'x' AND h2 = 'y'"},
        {"Statement": f"SELECT * FROM {t} WHERE pk = 'a'"},
        {"Statement": f"SELECT * FROM {t}.\"plain\" WHERE h1 = 'x'"},
        {"Statement": f"SELECT * FROM {t} WHERE h1 = 'x'"},
    ])
    refused = {"TableName": multi, "Error": {"Code": "ValidationError", "Message": BATCH_KEY}}
    responses = out["Responses"]
    assert responses[0] == refused and responses[2] == refused and responses[3] == refused
    assert responses[1]["Item"]["pk"] == {"S": "a"}


# --- ExecuteStatement's index messages (issue 36 §7) -------------------------------------------------


def test_index_messages(multi: str, ddb: Any) -> None:
    t = f'"{multi}"'
    assert failure(run, ddb, f"SELECT * FROM {t}.\"plain\" WHERE h1 = 'x'", ConsistentRead=True) == (
        V, "Strongly consistent read is not supported on Global Secondary Indexes")
    assert failure(run, ddb, f"SELECT * FROM {t}.\"nope\" WHERE h1 = 'x'") == (
        V, "The table does not have the specified index")
    # the unknown index wins over the ConsistentRead refusal
    assert failure(run, ddb, f"SELECT * FROM {t}.\"nope\" WHERE h1 = 'x'", ConsistentRead=True) == (
        V, "The table does not have the specified index")


# --- parameters: numbers (issue 36 §3, §4, [partiqlParameterNumbers]) -----------------------------------


def deep(levels: int, leaf: dict[str, Any]) -> dict[str, Any]:
    value = leaf
    for _ in range(levels - 1):
        value = {"L": [value]}
    return value


@pytest.mark.parametrize(
    ("shape", "number", "message"),
    [
        ("where", "1e-2147483648", NOT_A_NUMBER + "1e-2147483648"),
        ("key", "1e-2147483648", NOT_A_NUMBER + "1e-2147483648"),
        ("insert", "1e-2147483648", NOT_A_NUMBER + "1e-2147483648"),
        ("set", "1e-2147483648", NOT_A_NUMBER + "1e-2147483648"),
        ("where", "1e2147483647", UNDERFLOW),
        ("key", "1e2147483647", UNDERFLOW),
        ("insert", "1e2147483647", UNDERFLOW),
        ("set", "1e2147483647", UNDERFLOW),
    ],
)
def test_parameter_numbers(t37: str, ddb: Any, shape: str, number: str, message: str) -> None:
    t = f'"{t37}"'
    statement = {"where": f"SELECT * FROM {t} WHERE pk = 'a' AND n = ?",
                 "key": f"SELECT * FROM {t} WHERE pk = ?",
                 "insert": f"INSERT INTO {t} VALUE {{'pk': 'a', 'n': ?}}",
                 "set": f"UPDATE {t} SET n = ? WHERE pk = 'a'"}[shape]
    assert failure(run, ddb, statement, {"N": number}) == (V, message)
    assert item(ddb, t37, pk="a") is None


def test_parameters_nested_100_levels(t37: str, ddb: Any) -> None:
    t = f'"{t37}"'
    two = f"SELECT * FROM {t} WHERE pk = 'a' AND x = ? AND y = ?"
    deep_one = deep(100, {"S": "v"})
    # an unconvertible parameter before a deep one: the number error
    assert failure(run, ddb, two, {"N": "abc"}, deep_one) == (V, NOT_A_NUMBER + "abc")
    # an unconvertible member of a map before a deep one (the map nested 100 levels in all)
    deep_map = {"M": {"a": {"N": "abc"}, "b": deep(99, {"S": "v"})}}
    assert failure(run, ddb, two, deep_map, {"S": "v"}) == (V, NOT_A_NUMBER + "abc")
    # a deep parameter is accepted
    assert run(ddb, two, deep_one, {"S": "v"})["Items"] == []
    # in BatchExecuteStatement: served, the statement's number error its own entry
    out = ddb.batch_execute_statement(Statements=[{"Statement": f"UPDATE {t} SET x = ?, y = ? WHERE pk = 'a'",
                                                   "Parameters": [deep_one, {"N": "abc"}]}])
    assert out["Responses"] == [{"Error": {"Code": "ValidationError", "Message": NOT_A_NUMBER + "abc"}}]
