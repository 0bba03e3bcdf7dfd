"""BatchExecuteStatement and ExecuteTransaction over HTTP with boto3."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import assert_validation, error_of
from tests.test_streams_helpers import Harness, by_sequence, serve

MALFORMED = "Statement wasn't well formed, can't be processed: "
INCOMPLETE_KEY = "Where clause does not contain a mandatory equality on all key attributes"
BATCH_SELECT_KEY = "Select statements within BatchExecuteStatement must specify the primary key in the where clause."


def st(statement: str, *params: dict[str, Any], **kw: Any) -> dict[str, Any]:
    entry: dict[str, Any] = {"Statement": statement, **kw}
    if params:
        entry["Parameters"] = list(params)
    return entry


def item_of(ddb: Any, table: str, pk: str) -> dict[str, Any] | None:
    return ddb.get_item(TableName=table, Key={"pk": {"S": pk}}, ConsistentRead=True).get("Item")


def cancelled(call: Any, **kwargs: Any) -> list[dict[str, Any]]:
    with pytest.raises(Exception) as info:
        call(**kwargs)
    response = info.value.response  # type: ignore[attr-defined]
    assert response["Error"]["Code"] == "TransactionCanceledException"
    return response["CancellationReasons"]


# --- BatchExecuteStatement ------------------------------------------------------------------------


def test_batch_writes_fail_one_by_one(table: str, ddb: Any) -> None:
    t = f'"{table}"'
    ddb.execute_statement(Statement=f"INSERT INTO {t} VALUE {{'pk': 'old', 'v': 1}}")
    out = ddb.batch_execute_statement(Statements=[
        st(f"INSERT INTO {t} VALUE {{'pk': 'new', 'v': 1}}"),
        st(f"INSERT INTO {t} VALUE {{'pk': 'old', 'v': 2}}"),
        st(f"UPDATE {t} SET v = 5 WHERE pk = 'old' AND v = 99", ReturnValuesOnConditionCheckFailure="ALL_OLD"),
        st(f"UPDATE {t} SET w = ? WHERE v = 1", {"S": "w"}),
        st(f"DELETE FROM {t} WHERE pk = 'new' AND v = 1"),
        st(f"DELETE FROM {t} WHERE"),
    ], ReturnConsumedCapacity="TOTAL")
    responses = out["Responses"]
    assert responses[0] == {"TableName": table}
    assert responses[1] == {"TableName": table, "Error": {"Code": "DuplicateItem",
                                                         "Message": "Duplicate primary key exists in table"}}
    assert responses[2]["Error"] == {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed",
                                     "Item": {"pk": {"S": "old"}, "v": {"N": "1"}}}
    assert responses[3] == {"TableName": table, "Error": {"Code": "ValidationError", "Message": "Where clause does "
                            "not contain a mandatory equality on all key attributes"}}
    assert responses[4] == {"TableName": table}
    assert responses[5] == {"Error": {"Code": "ValidationError", "Message": MALFORMED + "Unexpected term"}}
    assert item_of(ddb, table, "new") is None and item_of(ddb, table, "old") == {"pk": {"S": "old"}, "v": {"N": "1"}}
    # the two writes done are reported (the failed ones consumed a unit each, unreported)
    assert out["ConsumedCapacity"] == [{"TableName": table, "CapacityUnits": 2.0}]


def test_batch_reads_are_gets_by_full_key(table: str, ddb: Any) -> None:
    t = f'"{table}"'
    ddb.execute_statement(Statement=f"INSERT INTO {t} VALUE {{'pk': 'a', 'v': 1, 'm': {{'x': 1, 'y': 2}}}}")
    out = ddb.batch_execute_statement(Statements=[
        st(f"SELECT m.y FROM {t} WHERE pk = ?", {"S": "a"}),
        st(f"SELECT * FROM {t} WHERE pk = 'missing'", ConsistentRead=True),
        st(f"SELECT * FROM {t} WHERE v = 1"),
        st("SELECT * FROM no_such_table WHERE pk = 'a'"),
        st(f"SELECT * FROM {t} WHERE pk = 'a' AND v = 2"),
    ], ReturnConsumedCapacity="TOTAL")
    responses = out["Responses"]
    assert responses[0] == {"TableName": table, "Item": {"m": {"M": {"y": {"N": "2"}}}}}
    assert responses[1] == {"TableName": table}
    # a batch SELECT names the key and nothing else (issue 37)
    assert responses[2] == {"TableName": table, "Error": {"Code": "ValidationError", "Message": BATCH_SELECT_KEY}}
    assert responses[3] == {"Error": {"Code": "ResourceNotFound", "Message": "Requested resource not found"}}
    assert responses[4] == {"TableName": table, "Error": {"Code": "ValidationError", "Message": BATCH_SELECT_KEY}}
    assert out["ConsumedCapacity"] == [{"TableName": table, "CapacityUnits": 1.5}]  # 0.5 + 1


def test_batch_does_not_mix_reads_and_writes(table: str, ddb: Any) -> None:
    assert_validation(
        "Batch statements must be either all reads (SELECT) or all writes (INSERT, UPDATE, DELETE)",
        ddb.batch_execute_statement,
        Statements=[st(f"SELECT * FROM \"{table}\" WHERE pk = 'a'"), st(f"DELETE FROM \"{table}\" WHERE pk = 'a'")],
    )


def test_batch_takes_at_most_25_statements(table: str, ddb: Any) -> None:
    code, message = error_of(ddb.batch_execute_statement,
                             Statements=[st(f"SELECT * FROM \"{table}\" WHERE pk = 'a'")] * 26)
    assert code == "ValidationException"
    assert message.endswith("at 'statements' failed to satisfy constraint: Member must have length less than or "
                            "equal to 25")


# --- ExecuteTransaction ---------------------------------------------------------------------------


def test_transaction_writes_all_and_checks_with_exists(table: str, ddb: Any) -> None:
    t = f'"{table}"'
    ddb.execute_statement(Statement=f"INSERT INTO {t} VALUE {{'pk': 'a', 'n': 1}}")
    ddb.execute_statement(Statement=f"INSERT INTO {t} VALUE {{'pk': 'gone'}}")
    out = ddb.execute_transaction(TransactStatements=[
        st(f"EXISTS(SELECT * FROM {t} WHERE pk = 'a' AND n = 1)"),
        st(f"INSERT INTO {t} VALUE {{'pk': ?, 'n': 2}}", {"S": "b"}),
        st(f"UPDATE {t} SET n = 10 WHERE pk = 'gone'"),
        st(f"DELETE FROM {t} WHERE pk = 'nothing'"),
    ], ReturnConsumedCapacity="TOTAL")
    assert item_of(ddb, table, "b") == {"pk": {"S": "b"}, "n": {"N": "2"}}
    assert item_of(ddb, table, "gone") == {"pk": {"S": "gone"}, "n": {"N": "10"}}
    assert out["ConsumedCapacity"] == [{"TableName": table, "CapacityUnits": 8.0, "WriteCapacityUnits": 8.0}]


def test_transaction_is_all_or_nothing(table: str, ddb: Any) -> None:
    t = f'"{table}"'
    ddb.execute_statement(Statement=f"INSERT INTO {t} VALUE {{'pk': 'a', 'n': 1}}")
    reasons = cancelled(ddb.execute_transaction, TransactStatements=[
        st(f"INSERT INTO {t} VALUE {{'pk': 'b'}}"),
        st(f"EXISTS(SELECT * FROM {t} WHERE pk = 'a' AND n = 2)", ReturnValuesOnConditionCheckFailure="ALL_OLD"),
        st(f"UPDATE {t} SET n = 1 WHERE pk = 'missing'"),
    ])
    assert reasons == [{"Code": "None"},
                       {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed",
                        "Item": {"pk": {"S": "a"}, "n": {"N": "1"}}},
                       {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}]
    assert item_of(ddb, table, "b") is None
    reasons = cancelled(ddb.execute_transaction, TransactStatements=[
        st(f"INSERT INTO {t} VALUE {{'pk': 'a'}}"), st(f"INSERT INTO {t} VALUE {{'pk': 'c'}}")])
    assert reasons == [{"Code": "DuplicateItem", "Message": "Duplicate primary key exists in table"}, {"Code": "None"}]
    assert item_of(ddb, table, "c") is None


def test_transaction_reads(table: str, ddb: Any) -> None:
    t = f'"{table}"'
    ddb.execute_statement(Statement=f"INSERT INTO {t} VALUE {{'pk': 'a', 'n': 1, 'o': 2}}")
    out = ddb.execute_transaction(TransactStatements=[
        st(f"SELECT n FROM {t} WHERE pk = 'a'"), st(f"SELECT * FROM {t} WHERE pk = ?", {"S": "zz"})],
        ReturnConsumedCapacity="TOTAL")
    assert out["Responses"] == [{"Item": {"n": {"N": "1"}}}, {}]
    assert out["ConsumedCapacity"] == [{"TableName": table, "CapacityUnits": 4.0, "ReadCapacityUnits": 4.0}]


def test_transaction_errors(table: str, ddb: Any) -> None:
    t = f'"{table}"'
    assert_validation("Transaction statements must be either all reads (SELECT) or all writes (INSERT, UPDATE, "
                      "DELETE, EXISTS)", ddb.execute_transaction,
                      TransactStatements=[st(f"SELECT * FROM {t} WHERE pk = 'a'"), st(f"DELETE FROM {t} WHERE pk = 'a'")])
    assert_validation("Validation failed in TransactStatements[0]: Select statements within ExecuteTransaction must "
                      "specify the primary key in the where clause.", ddb.execute_transaction,
                      TransactStatements=[st(f"SELECT * FROM {t} WHERE pk > 'a'")])
    assert_validation("Transaction request cannot include multiple operations on one item", ddb.execute_transaction,
                      TransactStatements=[st(f"DELETE FROM {t} WHERE pk = 'a'"),
                                          st(f"UPDATE {t} SET v = 1 WHERE pk = 'a'")])
    assert_validation("Validation failed in TransactStatements[0]: " + MALFORMED + "Unexpected term",
                      ddb.execute_transaction, TransactStatements=[st(f"DELETE FROM {t} WHERE")])
    code, _ = error_of(ddb.execute_transaction, TransactStatements=[st("DELETE FROM nope WHERE pk = 'a'")])
    assert code == "ResourceNotFoundException"
    code, message = error_of(ddb.execute_transaction,
                             TransactStatements=[st(f"DELETE FROM {t} WHERE pk = '{i}'") for i in range(101)])
    assert code == "ValidationException" and message.endswith("Member must have length less than or equal to 100")


def test_client_request_token_is_idempotent(table: str, ddb: Any) -> None:
    t = f'"{table}"'
    statements = [st(f"INSERT INTO {t} VALUE {{'pk': 'once'}}")]
    ddb.execute_transaction(TransactStatements=statements, ClientRequestToken="tok-1")
    ddb.execute_transaction(TransactStatements=statements, ClientRequestToken="tok-1")  # no DuplicateItem: replayed
    assert item_of(ddb, table, "once") == {"pk": {"S": "once"}}
    code, _ = error_of(ddb.execute_transaction, TransactStatements=[st(f"INSERT INTO {t} VALUE {{'pk': 'two'}}")],
                       ClientRequestToken="tok-1")
    assert code == "IdempotentParameterMismatchException"
    reasons = cancelled(ddb.execute_transaction, TransactStatements=statements, ClientRequestToken="tok-2")
    assert reasons == [{"Code": "DuplicateItem", "Message": "Duplicate primary key exists in table"}]


# --- the one write path: streams see PartiQL writes as they see PutItem's ------------------------


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    yield from serve()


def test_partiql_writes_are_stream_records(harness: Harness) -> None:
    name, arn = harness.streamed("NEW_AND_OLD_IMAGES")
    d, t = harness.ddb, f'"{name}"'
    d.execute_statement(Statement=f"INSERT INTO {t} VALUE {{'pk': 'a', 'v': 1}}")
    d.execute_statement(Statement=f"UPDATE {t} SET v = 2 WHERE pk = 'a'")
    d.execute_statement(Statement=f"UPDATE {t} SET v = 2 WHERE pk = 'a'")  # unchanged: no record
    d.execute_statement(Statement=f"DELETE FROM {t} WHERE pk = 'nothing'")  # nothing removed: no record
    d.execute_transaction(TransactStatements=[st(f"INSERT INTO {t} VALUE {{'pk': 'b'}}"),
                                              st(f"DELETE FROM {t} WHERE pk = 'a'")])
    d.batch_execute_statement(Statements=[st(f"UPDATE {t} SET w = 1 WHERE pk = 'b'")])
    records = by_sequence(harness.read_all(arn))
    assert [(r["eventName"], r["dynamodb"]["Keys"]["pk"]["S"]) for r in records] == [
        ("INSERT", "a"), ("MODIFY", "a"), ("INSERT", "b"), ("REMOVE", "a"), ("MODIFY", "b")]
    assert records[1]["dynamodb"]["OldImage"]["v"] == {"N": "1"}
    assert records[1]["dynamodb"]["NewImage"]["v"] == {"N": "2"}


# --- throttling: the executor's policies ---------------------------------------------------------


def test_throttled_statements(virtual_uniform: tuple[Any, Any]) -> None:
    """A provisioned table of 1 WCU: the bucket starts with one second of tokens."""
    c, clock = virtual_uniform
    c.create_table(TableName="partiql-throttled", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                   ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    t = '"partiql-throttled"'
    out = c.batch_execute_statement(Statements=[st(f"INSERT INTO {t} VALUE {{'pk': '{i}'}}") for i in range(3)])
    codes = [r.get("Error", {}).get("Code") for r in out["Responses"]]
    assert codes == [None, "ProvisionedThroughputExceeded", "ProvisionedThroughputExceeded"]
    code, _ = error_of(c.execute_statement, Statement=f"INSERT INTO {t} VALUE {{'pk': 'x'}}")
    assert code == "ProvisionedThroughputExceededException"
    reasons = cancelled(c.execute_transaction, TransactStatements=[st(f"INSERT INTO {t} VALUE {{'pk': 'y'}}")])
    assert reasons[0]["Code"] == "ProvisionedThroughputExceeded"
    clock.advance(10)
    c.execute_statement(Statement=f"INSERT INTO {t} VALUE {{'pk': 'x'}}")
    assert c.describe_table(TableName="partiql-throttled")["Table"]["ItemCount"] == 2
