"""Issue 12, request-level messages: Query/Scan start keys and limits, batch sizes, and
CreateTable's validation order. Raw clients (no boto3 parameter checks) reach the server."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import N, S, assert_validation

KS = [{"AttributeName": "pk", "KeyType": "HASH"}]
AD = [{"AttributeName": "pk", "AttributeType": "S"}]



# --- ExclusiveStartKey, Limit ----------------------------------------------------------------------

SCAN_KEY = "The provided starting key is invalid: The provided key element does not match the schema"


@pytest.mark.parametrize("start", [
    {"pk": N(1)},  # wrong type
    {"pk": S("a"), "x": S("b")},  # an attribute the schema does not have
    {"x": S("a")},  # no partition key
])
def test_scan_start_key_against_a_hash_only_schema(ddb: Any, table: str, start: dict[str, Any]) -> None:
    assert_validation(SCAN_KEY, ddb.scan, TableName=table, ExclusiveStartKey=start)


# Query: a key attribute of the wrong type answers as Scan does (issue 24, observed against the
# service; tests/test_fidelity24_reads.py), a missing one "The provided starting key is invalid".
@pytest.mark.parametrize(("start", "query_message"), [({"pk": S("a"), "sk": S("1")}, SCAN_KEY),
                                                      ({"pk": S("a")}, "The provided starting key is invalid")])
def test_start_key_against_a_hash_range_schema(ddb: Any, table_hr: str, start: dict[str, Any],
                                               query_message: str) -> None:
    assert_validation(SCAN_KEY, ddb.scan, TableName=table_hr, ExclusiveStartKey=start)
    assert_validation(query_message, ddb.query, TableName=table_hr,
                      KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": S("a")},
                      ExclusiveStartKey=start)


def test_limit_zero(raw: Any, table: str) -> None:
    assert_validation("1 validation error detected: Value at 'Limit' failed to satisfy constraint: Member must have "
                      "value greater than or equal to 1", raw.query, TableName=table,
                      KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": S("a")}, Limit=0)
    assert_validation("1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: Member must "
                      "have value greater than or equal to 1", raw.scan, TableName=table, Limit=0)


# --- batches --------------------------------------------------------------------------------------


def test_empty_request_items(raw: Any) -> None:
    # BatchGetItem's in the newer envelope, BatchWriteItem's still the older sentence (issue 36)
    assert_validation("1 validation error detected: Value at 'RequestItems' failed to satisfy constraint: Member must "
                      "have length greater than or equal to 1", raw.batch_get_item, RequestItems={})
    assert_validation("The requestItems parameter is required for BatchWriteItem", raw.batch_write_item,
                      RequestItems={})


def test_batch_get_over_100_keys_across_tables(raw: Any, make_table: Any) -> None:
    a, b = make_table(), make_table()
    keys = [{"pk": S(str(i))} for i in range(60)]
    assert_validation("Too many items requested for the BatchGetItem call", raw.batch_get_item,
                      RequestItems={a: {"Keys": keys}, b: {"Keys": keys[:41]}})
    out = raw.batch_get_item(RequestItems={a: {"Keys": keys}, b: {"Keys": keys[:40]}})
    assert out["Responses"] == {a: [], b: []}


# --- CreateTable / DescribeTable ------------------------------------------------------------------


REQUIRED = "The parameter 'TableName' is required but was not present in the request"


def test_missing_table_name(raw: Any) -> None:
    assert_validation(REQUIRED, raw.create_table, KeySchema=KS, AttributeDefinitions=AD, BillingMode="FOO")
    assert_validation(REQUIRED, raw.describe_table)


@pytest.mark.parametrize(("throughput", "message"), [
    ({"ReadCapacityUnits": 1000000000001, "WriteCapacityUnits": 1},
     "Given value 1000000000001 for ReadCapacityUnits is out of bounds"),
    ({"ReadCapacityUnits": 1, "WriteCapacityUnits": 1000000000001},
     "Given value 1000000000001 for WriteCapacityUnits is out of bounds"),
])
def test_throughput_out_of_bounds_before_the_key_schema(raw: Any, throughput: dict[str, int], message: str) -> None:
    bad_keys = [{"AttributeName": "x", "KeyType": "HASH"}]  # not defined: checked later
    assert_validation(message, raw.create_table, TableName="oob", KeySchema=bad_keys, AttributeDefinitions=AD,
                      ProvisionedThroughput=throughput)


def test_hash_and_range_with_the_same_name(raw: Any) -> None:
    # with as many definitions as key elements (with fewer, the count is reported first: issue 24)
    assert_validation("Both the Hash Key and the Range Key element in the KeySchema have the same name",
                      raw.create_table, TableName="same", BillingMode="PAY_PER_REQUEST",
                      AttributeDefinitions=AD + [{"AttributeName": "other", "AttributeType": "S"}],
                      KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "pk", "KeyType": "RANGE"}])


def test_duplicate_attribute_definition_names_it(raw: Any) -> None:
    assert_validation("Attribute Name is duplicated: pk", raw.create_table, TableName="dup", KeySchema=KS,
                      AttributeDefinitions=AD + [{"AttributeName": "pk", "AttributeType": "N"}],
                      BillingMode="PAY_PER_REQUEST")


@pytest.mark.parametrize("kind", ["LocalSecondaryIndexes", "GlobalSecondaryIndexes"])
def test_empty_index_lists(raw: Any, kind: str) -> None:
    assert_validation(f"One or more parameter values were invalid: List of {kind} is empty", raw.create_table,
                      TableName="noidx", KeySchema=KS, AttributeDefinitions=AD, BillingMode="PAY_PER_REQUEST",
                      **{kind: []})
