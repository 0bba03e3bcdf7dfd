"""Issue 24, request-level answers: improperly named tables, BatchGetItem's request items, and
the transaction payload limit. Raw clients (no boto3 parameter checks) reach the server."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.helpers import N, S, assert_validation

KEY = {"pk": S("k")}


def _constraint(value: str, member: str, rule: str) -> str:
    return f"1 validation error detected: Value '{value}' at '{member}' failed to satisfy constraint: {rule}"


SHORT = "Member must have length greater than or equal to 3"
LONG = "Member must have length less than or equal to 255"
PATTERN = "Member must satisfy regular expression pattern: [a-zA-Z0-9_.-]+"

# --- 10. improperly named tables: ValidationException before any lookup ------------------------------

CALLS: dict[str, Callable[[Any, str], Any]] = {
    "PutItem": lambda c, t: c.put_item(TableName=t, Item=KEY),
    "GetItem": lambda c, t: c.get_item(TableName=t, Key=KEY),
    "UpdateItem": lambda c, t: c.update_item(TableName=t, Key=KEY, UpdateExpression="SET a = :v",
                                             ExpressionAttributeValues={":v": N(1)}),
    "DeleteItem": lambda c, t: c.delete_item(TableName=t, Key=KEY),
    "Query": lambda c, t: c.query(TableName=t, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": S("k")}),
    "Scan": lambda c, t: c.scan(TableName=t),
}
NAMES = [("ab", SHORT), ("a", SHORT), ("a$b", PATTERN), ("a b c", PATTERN), ("x" * 256, LONG)]


@pytest.mark.parametrize("operation", list(CALLS))
@pytest.mark.parametrize(("name", "rule"), NAMES, ids=["two", "one", "dollar", "spaces", "long"])
def test_item_operation_on_an_improper_table_name(raw: Any, operation: str, name: str, rule: str) -> None:
    assert_validation(_constraint(name, "tableName", rule), CALLS[operation], raw, name)


@pytest.mark.parametrize(("name", "rule"), NAMES[:3], ids=["two", "one", "dollar"])
def test_transaction_on_an_improper_table_name(raw: Any, table: str, name: str, rule: str) -> None:
    assert_validation(_constraint(name, "transactItems.2.member.put.tableName", rule), raw.transact_write_items,
                      TransactItems=[{"Put": {"TableName": table, "Item": KEY}}, {"Put": {"TableName": name, "Item": KEY}}])
    assert_validation(_constraint(name, "transactItems.1.member.get.tableName", rule), raw.transact_get_items,
                      TransactItems=[{"Get": {"TableName": name, "Key": KEY}}])


def test_names_of_three_characters_are_looked_up(raw: Any) -> None:
    with pytest.raises(raw.exceptions.ResourceNotFoundException) as info:
        raw.get_item(TableName="abc", Key=KEY)
    assert info.value.response["Error"]["Message"] == "Requested resource not found"


# --- 14, 15. BatchGetItem's request items ---------------------------------------------------------------


def test_batch_get_with_empty_request_items(raw: Any) -> None:
    # BatchGetItem's in the newer envelope, BatchWriteItem's still the older sentence (issue 36)
    assert_validation("1 validation error detected: Value at 'RequestItems' failed to satisfy constraint: Member must "
                      "have length greater than or equal to 1", raw.batch_get_item, RequestItems={})
    assert_validation("The requestItems parameter is required for BatchWriteItem", raw.batch_write_item,
                      RequestItems={})


def test_batch_get_over_100_keys_for_one_table(raw: Any, table: str) -> None:
    keys = [{"pk": S(str(i))} for i in range(101)]
    assert_validation(
        f"1 validation error detected: Value at 'RequestItems.{table}.member.Keys' failed to satisfy constraint: "
        "Member must have length less than or equal to 100",
        raw.batch_get_item, RequestItems={table: {"Keys": keys}},
    )
    out = raw.batch_get_item(RequestItems={table: {"Keys": keys[:100]}})
    assert out["Responses"] == {table: []} and out["UnprocessedKeys"] == {}


def test_batch_get_over_100_keys_is_checked_before_the_table(raw: Any, table: str) -> None:
    keys = [{"pk": S(str(i))} for i in range(150)]
    assert_validation(
        "1 validation error detected: Value at 'RequestItems.no-such-table.member.Keys' failed to satisfy "
        "constraint: Member must have length less than or equal to 100",
        raw.batch_get_item, RequestItems={table: {"Keys": keys[:1]}, "no-such-table": {"Keys": keys}},
    )


# --- 16. the transaction payload, not the items it touches ----------------------------------------------

# The 4 MB rule of TransactWriteItems ("The aggregate size of the items in the transaction cannot
# exceed 4 MB", API reference) is checked on what the request carries; the wording is the one
# captured from the service for that rule (errors/items.py cites it).
TOO_LARGE = ("Collection size of items exceeded, which can also be caused by the aggregate size of the items in the "
             "transaction exceeding the 4MB limit")


def test_transaction_payload_over_4_mb(virtual_default: tuple[Any, Any]) -> None:
    ddb, _ = virtual_default
    table = "fid24-payload"
    ddb.create_table(TableName=table, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
    blob = "x" * (100 * 1024)
    puts = [{"Put": {"TableName": table, "Item": {"pk": S(f"p{i}"), "v": S(blob)}}} for i in range(50)]
    assert_validation(TOO_LARGE, ddb.transact_write_items, TransactItems=puts)
    assert ddb.scan(TableName=table, ConsistentRead=True)["Count"] == 0
    ddb.transact_write_items(TransactItems=puts[:38])  # ~3.9 MB: within the limit
    assert _count(ddb, table) == 38


def test_small_transaction_deleting_5_mb_of_items(virtual_default: tuple[Any, Any]) -> None:
    ddb, clock = virtual_default
    table = "fid24-delete"
    ddb.create_table(TableName=table, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
    blob = "x" * (390 * 1024)
    for i in range(14):  # 14 items of 390 KB: about 5.3 MB stored
        ddb.put_item(TableName=table, Item={"pk": S(f"d{i}"), "v": S(blob)})
        clock.advance(1)
    deletes = [{"Delete": {"TableName": table, "Key": {"pk": S(f"d{i}")}}} for i in range(14)]
    assert _count(ddb, table) == 14
    ddb.transact_write_items(TransactItems=deletes)
    assert _count(ddb, table) == 0


def _count(ddb: Any, table: str) -> int:
    """Items in ``table``, over as many 1 MB Scan pages as it takes."""
    count, start = 0, None
    while True:
        page = ddb.scan(TableName=table, Select="COUNT", ConsistentRead=True,
                        **({"ExclusiveStartKey": start} if start else {}))
        count += page["Count"]
        start = page.get("LastEvaluatedKey")
        if start is None:
            return count
