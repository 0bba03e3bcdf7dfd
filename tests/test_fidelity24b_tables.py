"""Issue 24, tables, indexes and tags (items 11, 17, 18, 19): DeleteTable's description,
a key attribute both HASH and RANGE, GSI creation over an existing index or with a key of
another type, and the limits and ARNs of tagging."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.helpers import assert_error, assert_validation
from tests.test_protocol import raw as raw_http

PARAM = "One or more parameter values were invalid: "
KS = [{"AttributeName": "pk", "KeyType": "HASH"}]


def _ad(**defs: str) -> list[dict[str, str]]:
    return [{"AttributeName": n, "AttributeType": t} for n, t in defs.items()]


def _gsi(name: str, key: str) -> dict[str, Any]:
    return {"IndexName": name, "KeySchema": [{"AttributeName": key, "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"}}


# --- 11. DeleteTable's description ------------------------------------------------------------------


def test_delete_table_omits_the_key_schema_definitions_and_indexes(ddb: Any) -> None:
    name = "del24-indexed"
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST", AttributeDefinitions=_ad(pk="S", sk="S", g="S", l="S"),
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[_gsi("by_g", "g")],
        LocalSecondaryIndexes=[{"IndexName": "by_l", "Projection": {"ProjectionType": "ALL"},
                                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                              {"AttributeName": "l", "KeyType": "RANGE"}]}],
    )
    described = ddb.describe_table(TableName=name)["Table"]
    omitted = ("KeySchema", "AttributeDefinitions", "GlobalSecondaryIndexes", "LocalSecondaryIndexes")
    assert all(m in described for m in omitted)  # DescribeTable keeps them
    out = ddb.delete_table(TableName=name)["TableDescription"]
    assert out["TableStatus"] == "DELETING" and out["TableName"] == name
    for member in omitted:
        assert member not in out


# --- 17. the same attribute as HASH and RANGE -------------------------------------------------------


def test_one_attribute_as_hash_and_range(raw: Any) -> None:
    assert_validation("Invalid KeySchema: Some index key attribute have no definition", raw.create_table,
                      TableName="same24", AttributeDefinitions=_ad(pk="S"), BillingMode="PAY_PER_REQUEST",
                      KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "pk", "KeyType": "RANGE"}])
    assert_error("ResourceNotFoundException", None, raw.describe_table, TableName="same24")


# --- 18. GSI changes in UpdateTable -------------------------------------------------------------------


def test_creating_a_gsi_that_exists(ddb: Any, make_table: Any) -> None:
    name = make_table()
    ddb.update_table(TableName=name, AttributeDefinitions=_ad(a="S"),
                     GlobalSecondaryIndexUpdates=[{"Create": _gsi("by_a", "a")}])
    assert_validation("Attempting to create an index which already exists", ddb.update_table, TableName=name,
                      AttributeDefinitions=_ad(b="S"), GlobalSecondaryIndexUpdates=[{"Create": _gsi("by_a", "b")}])
    gsis = ddb.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"]
    assert [(g["IndexName"], g["KeySchema"][0]["AttributeName"]) for g in gsis] == [("by_a", "a")]


@pytest.mark.parametrize(("key", "defined"), [("pk", "S"), ("a", "S")])
def test_a_new_gsi_key_defined_with_another_type(ddb: Any, make_table: Any, key: str, defined: str) -> None:
    name = make_table()  # pk S
    ddb.update_table(TableName=name, AttributeDefinitions=_ad(a="S"),
                     GlobalSecondaryIndexUpdates=[{"Create": _gsi("by_a", "a")}])
    assert_validation(PARAM + f"Attribute {key} is already defined with type {defined}; AttributeDefinitions gives "
                      "type N", ddb.update_table, TableName=name, AttributeDefinitions=_ad(**{key: "N"}),
                      GlobalSecondaryIndexUpdates=[{"Create": _gsi("by_n", key)}])
    desc = ddb.describe_table(TableName=name)["Table"]
    assert [g["IndexName"] for g in desc["GlobalSecondaryIndexes"]] == ["by_a"]
    assert {"AttributeName": key, "AttributeType": defined} in desc["AttributeDefinitions"]


def test_a_new_gsi_key_defined_with_its_own_type_is_accepted(ddb: Any, make_table: Any) -> None:
    name = make_table()
    out = ddb.update_table(TableName=name, AttributeDefinitions=_ad(pk="S"),
                           GlobalSecondaryIndexUpdates=[{"Create": _gsi("by_pk", "pk")}])["TableDescription"]
    assert [g["IndexName"] for g in out["GlobalSecondaryIndexes"]] == ["by_pk"]


# --- 19. tags -----------------------------------------------------------------------------------------


def test_create_table_with_more_than_50_tags(raw: Any, ddb: Any) -> None:
    tags = [{"Key": f"k{i}", "Value": "v"} for i in range(51)]
    assert_validation(PARAM + "The number of tags exceeds the limit of 50", raw.create_table, TableName="tags24",
                      KeySchema=KS, AttributeDefinitions=_ad(pk="S"), BillingMode="PAY_PER_REQUEST", Tags=tags)
    assert_error("ResourceNotFoundException", None, raw.describe_table, TableName="tags24")
    ddb.create_table(TableName="tags24", KeySchema=KS, AttributeDefinitions=_ad(pk="S"),
                     BillingMode="PAY_PER_REQUEST", Tags=tags[:50])
    try:
        arn = ddb.describe_table(TableName="tags24")["Table"]["TableArn"]
        assert len(ddb.list_tags_of_resource(ResourceArn=arn)["Tags"]) == 50
    finally:
        ddb.delete_table(TableName="tags24")


def _denied(operation: str, arn: str) -> str:
    return f"User: arn:aws:iam::000000000000:root is not authorized to perform: dynamodb:{operation} on resource: {arn}"


@pytest.mark.parametrize("arn", [
    "arn:aws:s3:::some-bucket/table/t",  # another service
    "arn:aws:dynamodb:us-east-1:123456789012:table/elsewhere",  # another account
    "arn:aws:dynamodb:us-east-1:not-an-account:table/t",
    "arn:aws:sqs:us-east-1:000000000000:queue",
])
@pytest.mark.parametrize("operation", ["TagResource", "ListTagsOfResource", "UntagResource"])
def test_an_arn_outside_the_account_or_service_is_access_denied(server_url: str, arn: str, operation: str) -> None:
    body: dict[str, Any] = {"ResourceArn": arn}
    if operation == "TagResource":
        body["Tags"] = [{"Key": "k", "Value": "v"}]
    elif operation == "UntagResource":
        body["TagKeys"] = ["k"]
    status, _, data = raw_http(server_url, json.dumps(body), target=f"DynamoDB_20120810.{operation}")
    assert status == 400
    assert json.loads(data) == {"__type": "com.amazon.coral.service#AccessDeniedException",
                                "message": _denied(operation, arn)}


@pytest.mark.parametrize("arn", ["arn:aws:dynamodb:us-east-1:000000000000:tablex"])  # "notanarn": test_wire44
def test_a_malformed_dynamodb_arn_of_the_account_stays_a_validation_error(ddb: Any, arn: str) -> None:
    assert_validation(f"Invalid TableArn: Invalid ResourceArn provided as input {arn}", ddb.tag_resource,
                      ResourceArn=arn, Tags=[{"Key": "k", "Value": "v"}])
