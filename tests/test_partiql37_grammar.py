"""Issue 37, "grammar" and "FROM-first UPDATE": PartiQL as DynamoDB parses it, over HTTP.

Each error case asserts the error type and the whole message the issue quotes (the service's);
"refused" cases assert the message dynemu gives, which is marked UNSURE in the code.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.partiql37_helpers import INCOMPLETE_KEY, MALFORMED, failure, item, made, run


@pytest.fixture
def t37(ddb: Any) -> Iterator[str]:
    yield from made(ddb)


@pytest.fixture
def t37_sorted(ddb: Any) -> Iterator[str]:
    yield from made(ddb, sort=True)


OVERFLOW = "Number overflow. Attempting to store a number with magnitude larger than supported range"
UNDERFLOW = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
PRECISION = "Attempting to store more than 38 significant digits in a Number"
V = "ValidationException"

# (case, statement, error type, whole message)
ERRORS = [
    ("DELETE FROM then WHERE with no table", "DELETE FROM WHERE pk = 'a'", V,
     MALFORMED + "Expected identifier for simple path"),
    ("DELETE FROM then a semicolon with no table", "DELETE FROM ;", V, MALFORMED + "Expected identifier for simple path"),
    ("DELETE FROM then spaces with no table", "DELETE FROM    ", V, MALFORMED + "Expected identifier for simple path"),
    ("DELETE FROM with no table", "DELETE FROM", V, MALFORMED + "Expected identifier for simple path"),
    ("FROM ... REMOVE with no WHERE", "FROM {t} REMOVE a", V, INCOMPLETE_KEY),
    ("FROM ... SET ... WHERE ... SET", "FROM {t} SET a = 1 WHERE pk = 'a' SET b = 2", V,
     MALFORMED + "Unexpected token after expression"),
    ("FROM ... SET with no WHERE", "FROM {t} SET a = 1", V, INCOMPLETE_KEY),
    ("FROM ... SET with the WHERE after it", "FROM {t} SET a = 1 WHERE pk = 'a'", V,
     MALFORMED + "Unexpected token after expression"),
    ("FROM ... WHERE ... SET on a table that does not exist", "FROM nope WHERE pk = 'a' SET a = 1",
     "ResourceNotFoundException", "Requested resource not found"),
    ("FROM ... WHERE on a non-key attribute ... SET", "FROM {t} WHERE a = 1 SET b = 2", V, INCOMPLETE_KEY),
    ("IS CHARACTER VARYING parses as a type test", "SELECT * FROM {t} WHERE a IS CHARACTER VARYING", V,
     "Unsupported operation: IsType"),
    ("IS DOUBLE PRECISION parses as a type test", "SELECT * FROM {t} WHERE a IS DOUBLE PRECISION", V,
     "Unsupported operation: IsType"),
    ("IS INT4 parses as a type test", "SELECT * FROM {t} WHERE a IS INT4", V, "Unsupported operation: IsType"),
    ("IS INT8 parses as a type test", "SELECT * FROM {t} WHERE a IS NOT INT8", V, "Unsupported operation: IsType"),
    ("IS where a WHERE condition should start", "SELECT * FROM {t} WHERE IS MISSING", V,
     MALFORMED + "Unexpected operator"),
    ("IS with a name that is not a type, in a WHERE", "SELECT * FROM {t} WHERE a IS foo", V,
     MALFORMED + "Expected type name"),
    ("LIKE where a comparison operand should start", "SELECT * FROM {t} WHERE a = LIKE 'x'", V,
     MALFORMED + "Unexpected operator"),
    ("ORDER BY ahead of WHERE", "SELECT * FROM {t} ORDER BY pk WHERE pk = 'a'", V,
     MALFORMED + "Unexpected token after expression"),
    ("ORDER BY on a DELETE", "DELETE FROM {t} WHERE pk = 'a' ORDER BY pk", V,
     MALFORMED + "Unexpected token after expression"),
    ("SELECT * FROM with no table", "SELECT * FROM", V, MALFORMED + "Unexpected term"),
    ("WHERE ( with nothing after it", "SELECT * FROM {t} WHERE (", V, MALFORMED + "Unexpected term"),
    ("WHERE NOT with nothing after it", "SELECT * FROM {t} WHERE NOT", V, MALFORMED + "Unexpected term"),
    ("WHERE after a projection", "SELECT a, b FROM {t} WHERE", V, MALFORMED + "Unexpected term"),
    ("WHERE at the end of a DELETE", "DELETE FROM {t} WHERE", V, MALFORMED + "Unexpected term"),
    ("WHERE at the end of a SELECT", "SELECT * FROM {t} WHERE", V, MALFORMED + "Unexpected term"),
    ("WHERE at the end of an UPDATE", "UPDATE {t} SET a = 1 WHERE", V, MALFORMED + "Unexpected term"),
    ("WHERE at the end, on a table that does not exist", "SELECT * FROM nope WHERE", V,
     MALFORMED + "Unexpected term"),
    ("WHERE followed by ORDER BY", "SELECT * FROM {t} WHERE ORDER BY pk", V, MALFORMED + "Unexpected keyword"),
    ("WHERE then a semicolon", "SELECT * FROM {t} WHERE ;", V, MALFORMED + "Unexpected term"),
    ("WHERE then spaces", "SELECT * FROM {t} WHERE    ", V, MALFORMED + "Unexpected term"),
    ("a WHERE literal above the largest number", "SELECT * FROM {t} WHERE a = 1e126", V, OVERFLOW + " under root"),
    ("a WHERE literal below the smallest number", "SELECT * FROM {t} WHERE a = 1e-131", V,
     UNDERFLOW + " under root"),
    ("a WHERE literal with 39 significant digits",
     "SELECT * FROM {t} WHERE a = 123456789012345678901234567890123456789", V, PRECISION + " under root"),
    ("a condition ending in AND", "SELECT * FROM {t} WHERE pk = 'a' AND", V,
     MALFORMED + "Missing right-hand side expression of infix operator"),
    ("a condition ending in OR", "SELECT * FROM {t} WHERE pk = 'a' OR", V,
     MALFORMED + "Missing right-hand side expression of infix operator"),
    ("a far larger exponent", "SELECT * FROM {t} WHERE a = 1e99999999999", V, MALFORMED),
    ("a hash comment", "SELECT * FROM {t} # all of it", V, MALFORMED),
    ("a literal inside a list names its index", "SELECT * FROM {t} WHERE a = [1, 1e126]", V,
     OVERFLOW + " under root[1]"),
    ("a literal inside a map names its path", "SELECT * FROM {t} WHERE a = {{'x': 1e126}}", V,
     OVERFLOW + " under root.x"),
    ("a number split from its exponent", "SELECT * FROM {t} WHERE a = 1 e5", V,
     MALFORMED + "Unexpected token after expression"),
    ("a stray closing parenthesis", "SELECT * FROM {t} WHERE pk = 'a')", V,
     MALFORMED + "Unexpected token after expression"),
    ("a token after a DELETE WHERE clause", "DELETE FROM {t} WHERE pk = 'a' extra", V,
     MALFORMED + "Unexpected token after expression"),
    ("a token after a SELECT WHERE clause", "SELECT * FROM {t} WHERE pk = 'a' extra", V,
     MALFORMED + "Unexpected token after expression"),
    ("a token after an INSERT item literal", "INSERT INTO {t} VALUE {{'pk': 'a'}} extra", V,
     MALFORMED + "Unexpected token after expression"),
    ("a token after an UPDATE WHERE clause", "UPDATE {t} SET a = 1 WHERE pk = 'a' extra", V,
     MALFORMED + "Unexpected token after expression"),
    ("an AS alias on a SELECT", "SELECT * FROM {t} AS x WHERE pk = 'a'", V, "Aliasing is not supported"),
    ("an INSERT literal above the largest number", "INSERT INTO {t} VALUE {{'pk': 'a', 'n': 1e126}}", V,
     OVERFLOW + " under root"),
    ("an UPDATE SET literal below the smallest number", "UPDATE {t} SET a = 1e-131 WHERE pk = 'a'", V,
     UNDERFLOW + " under root"),
    ("an alias on a DELETE", "DELETE FROM {t} AS x WHERE pk = 'a'", V, "Aliasing is not supported"),
    ("an alias on a SELECT", "SELECT * FROM {t} x WHERE pk = 'a'", V, "Aliasing is not supported"),
    ("an alias on an INSERT is a leftover token", "INSERT INTO {t} x VALUE {{'pk': 'a'}}", V,
     MALFORMED + "Unexpected token after expression"),
    ("an alias on an UPDATE", "UPDATE {t} AS x SET a = 1 WHERE pk = 'a'", V, "Aliasing is not supported"),
    ("an exponent that does not fit a 32-bit integer", "SELECT * FROM {t} WHERE a = 1e2147483648", V, MALFORMED),
    ("an exponent that fits but leaves a scale that does not", "SELECT * FROM {t} WHERE a = 1.5e-2147483647", V,
     MALFORMED),
    ("an unterminated block comment", "SELECT * FROM {t} WHERE pk = 'a' /* open", V, MALFORMED),
]


@pytest.mark.parametrize(("case", "statement", "code", "message"), ERRORS, ids=[c[0] for c in ERRORS])
def test_execute_statement_refuses(t37: str, ddb: Any, case: str, statement: str, code: str, message: str) -> None:
    assert failure(run, ddb, statement.format(t=f'"{t37}"')) == (code, message)


@pytest.mark.parametrize("branch", ["x <> 2", "x = 2"])
def test_an_or_branch_beside_a_sort_key_branch_is_refused(t37_sorted: str, ddb: Any, branch: str) -> None:
    """"an OR branch with a non-key <> / equality beside a sort-key branch": the key is not fixed."""
    statement = f"DELETE FROM \"{t37_sorted}\" WHERE pk = 'a' AND (sk = 1 OR {branch})"
    assert failure(run, ddb, statement) == ("ValidationException", INCOMPLETE_KEY)


def test_an_empty_where_in_batch_and_transaction(t37: str, ddb: Any) -> None:
    statement = f"DELETE FROM \"{t37}\" WHERE"
    out = ddb.batch_execute_statement(Statements=[{"Statement": statement}])
    assert out["Responses"] == [{"Error": {"Code": "ValidationError", "Message": MALFORMED + "Unexpected term"}}]
    assert failure(ddb.execute_transaction, TransactStatements=[{"Statement": statement}]) == (
        "ValidationException", "Validation failed in TransactStatements[0]: " + MALFORMED + "Unexpected term")


@pytest.mark.parametrize("statement", ["SELECT * FROM {t} WHERE pk = 'a' /* the key */",
                                       "SELECT * FROM {t} /* by key */ WHERE pk = 'a' -- done",
                                       "SELECT *\nFROM {t}\n-- one line\nWHERE pk = 'a';"])
def test_comments_are_ignored(t37: str, ddb: Any, statement: str) -> None:
    run(ddb, f"INSERT INTO \"{t37}\" VALUE {{'pk': 'a'}}")
    assert run(ddb, statement.format(t=f'"{t37}"'))["Items"] == [{"pk": {"S": "a"}}]


# --- FROM-first UPDATE ----------------------------------------------------------------------------


def seed(ddb: Any, table: str) -> None:
    run(ddb, f"INSERT INTO \"{table}\" VALUE {{'pk': 'a', 'n': 1, 'gone': 'x'}}")


def test_from_where_set_updates_the_item(t37: str, ddb: Any) -> None:
    seed(ddb, t37)
    assert run(ddb, f"FROM \"{t37}\" WHERE pk = 'a' SET n = 2")["Items"] == []
    assert item(ddb, t37, pk="a") == {"pk": {"S": "a"}, "n": {"N": "2"}, "gone": {"S": "x"}}


def test_from_where_remove_removes_the_attribute(t37: str, ddb: Any) -> None:
    seed(ddb, t37)
    run(ddb, f"FROM \"{t37}\" WHERE pk = 'a' REMOVE gone")
    assert item(ddb, t37, pk="a") == {"pk": {"S": "a"}, "n": {"N": "1"}}


def test_from_first_set_and_remove_follow_each_other(t37: str, ddb: Any) -> None:
    seed(ddb, t37)
    run(ddb, f"FROM \"{t37}\" WHERE pk = 'a' SET n = 3 REMOVE gone SET m = 'q'")
    assert item(ddb, t37, pk="a") == {"pk": {"S": "a"}, "n": {"N": "3"}, "m": {"S": "q"}}


def test_from_first_returning_all_new(t37: str, ddb: Any) -> None:
    seed(ddb, t37)
    out = run(ddb, f"FROM \"{t37}\" WHERE pk = 'a' SET n = 5 RETURNING ALL NEW *")
    assert out["Items"] == [{"pk": {"S": "a"}, "n": {"N": "5"}, "gone": {"S": "x"}}]


def test_from_first_further_condition(t37: str, ddb: Any) -> None:
    seed(ddb, t37)
    assert failure(run, ddb, f"FROM \"{t37}\" WHERE pk = 'a' AND n = 9 SET n = 2") == (
        "ConditionalCheckFailedException", "The conditional request failed")
    assert item(ddb, t37, pk="a")["n"] == {"N": "1"}  # type: ignore[index]
    run(ddb, f"FROM \"{t37}\" WHERE pk = 'a' AND n = 1 SET n = 2")
    assert item(ddb, t37, pk="a")["n"] == {"N": "2"}  # type: ignore[index]


def test_from_first_on_a_missing_item_creates_nothing(t37: str, ddb: Any) -> None:
    assert failure(run, ddb, f"FROM \"{t37}\" WHERE pk = 'none' SET n = 2") == (
        "ConditionalCheckFailedException", "The conditional request failed")
    assert item(ddb, t37, pk="none") is None


def test_from_first_takes_parameters_and_any_case(t37: str, ddb: Any) -> None:
    seed(ddb, t37)
    run(ddb, f"from \"{t37}\" where pk = ? Set n = ? remove gone", {"S": "a"}, {"N": "7"})
    assert item(ddb, t37, pk="a") == {"pk": {"S": "a"}, "n": {"N": "7"}}


def test_from_first_in_batch_and_transaction(t37: str, ddb: Any) -> None:
    seed(ddb, t37)
    out = ddb.batch_execute_statement(Statements=[{"Statement": f"FROM \"{t37}\" WHERE pk = 'a' SET n = 10"}])
    assert out["Responses"] == [{"TableName": t37}]
    assert item(ddb, t37, pk="a")["n"] == {"N": "10"}  # type: ignore[index]
    out = ddb.execute_transaction(TransactStatements=[{"Statement": f"FROM \"{t37}\" WHERE pk = 'a' SET n = 11"}])
    assert out["Responses"] == []
    assert item(ddb, t37, pk="a")["n"] == {"N": "11"}  # type: ignore[index]
