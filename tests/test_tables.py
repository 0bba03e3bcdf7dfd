"""CreateTable, DescribeTable, ListTables, UpdateTable, DeleteTable through boto3."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.conftest import make_client
from tests.helpers import assert_error, assert_validation

KEYS = [{"AttributeName": "pk", "KeyType": "HASH"}]
DEFS = [{"AttributeName": "pk", "AttributeType": "S"}]
PT = {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}


def test_create_describe_delete_round_trip(ddb: Any) -> None:
    created = ddb.create_table(
        TableName="round-trip",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
        ],
        ProvisionedThroughput=PT,
        Tags=[{"Key": "team", "Value": "a"}],
    )["TableDescription"]
    assert created["TableStatus"] == "CREATING"
    ddb.get_waiter("table_exists").wait(TableName="round-trip", WaiterConfig={"Delay": 0.1})
    t = ddb.describe_table(TableName="round-trip")["Table"]
    assert t["TableStatus"] == "ACTIVE"
    assert t["TableName"] == "round-trip"
    assert t["KeySchema"] == [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ]
    assert t["TableArn"] == "arn:aws:dynamodb:us-east-1:000000000000:table/round-trip"
    assert len(t["TableId"]) == 36
    assert t["ProvisionedThroughput"] == {"NumberOfDecreasesToday": 0, "ReadCapacityUnits": 5, "WriteCapacityUnits": 5}
    # The service omits BillingModeSummary for a table created without BillingMode.
    assert "BillingModeSummary" not in t
    assert t["ItemCount"] == 0 and t["TableSizeBytes"] == 0
    assert t["DeletionProtectionEnabled"] is False
    assert t["CreationDateTime"].year >= 2024
    tags = ddb.list_tags_of_resource(ResourceArn=t["TableArn"])["Tags"]
    assert tags == [{"Key": "team", "Value": "a"}]
    deleted = ddb.delete_table(TableName="round-trip")["TableDescription"]
    assert deleted["TableStatus"] == "DELETING"
    ddb.get_waiter("table_not_exists").wait(TableName="round-trip", WaiterConfig={"Delay": 0.1})
    assert_error(
        "ResourceNotFoundException",
        "Requested resource not found: Table: round-trip not found",
        ddb.describe_table,
        TableName="round-trip",
    )


def test_pay_per_request_description(make_table: Any, ddb: Any) -> None:
    name = make_table()
    t = ddb.describe_table(TableName=name)["Table"]
    assert t["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    assert "LastUpdateToPayPerRequestDateTime" in t["BillingModeSummary"]
    assert t["ProvisionedThroughput"] == {"NumberOfDecreasesToday": 0, "ReadCapacityUnits": 0, "WriteCapacityUnits": 0}


def test_create_existing_table(table: str, ddb: Any) -> None:
    assert_error(
        "ResourceInUseException",
        f"Table already exists: {table}",
        ddb.create_table,
        TableName=table,
        KeySchema=KEYS,
        AttributeDefinitions=DEFS,
        BillingMode="PAY_PER_REQUEST",
    )


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"KeySchema": KEYS, "AttributeDefinitions": [{"AttributeName": "x", "AttributeType": "S"}]},
            "One or more parameter values were invalid: Some index key attributes are not defined in "
            "AttributeDefinitions. Keys: [pk], AttributeDefinitions: [x]",
        ),
        (
            {"KeySchema": KEYS, "AttributeDefinitions": DEFS + [{"AttributeName": "x", "AttributeType": "S"}]},
            "One or more parameter values were invalid: Number of attributes in KeySchema does not exactly match "
            "number of attributes defined in AttributeDefinitions",
        ),
        (
            {"KeySchema": [{"AttributeName": "pk", "KeyType": "RANGE"}], "AttributeDefinitions": DEFS},
            "Invalid KeySchema: The first KeySchemaElement is not a HASH key type",
        ),
        (
            {
                "KeySchema": KEYS + [{"AttributeName": "x", "KeyType": "HASH"}],
                "AttributeDefinitions": DEFS + [{"AttributeName": "x", "AttributeType": "S"}],
            },
            "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type",
        ),
    ],
)
def test_create_table_schema_errors(ddb: Any, kwargs: dict[str, Any], message: str) -> None:
    assert_validation(message, ddb.create_table, TableName="bad-schema", ProvisionedThroughput=PT, **kwargs)


def test_billing_mode_errors(ddb: Any) -> None:
    assert_validation(
        "One or more parameter values were invalid: ReadCapacityUnits and WriteCapacityUnits must both be "
        "specified when BillingMode is PROVISIONED",
        ddb.create_table,
        TableName="bad-billing",
        KeySchema=KEYS,
        AttributeDefinitions=DEFS,
    )
    assert_validation(
        "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be "
        "specified when BillingMode is PAY_PER_REQUEST",
        ddb.create_table,
        TableName="bad-billing",
        KeySchema=KEYS,
        AttributeDefinitions=DEFS,
        BillingMode="PAY_PER_REQUEST",
        ProvisionedThroughput=PT,
    )


def test_missing_table_everywhere(ddb: Any) -> None:
    for call, kwargs in [
        (ddb.describe_table, {}),
        (ddb.delete_table, {}),
        (ddb.update_table, {"ProvisionedThroughput": PT}),
    ]:
        assert_error(
            "ResourceNotFoundException", "Requested resource not found: Table: nope not found", call,
            TableName="nope", **kwargs,
        )
    for call, kwargs in [
        (ddb.get_item, {"Key": {"pk": {"S": "a"}}}),
        (ddb.put_item, {"Item": {"pk": {"S": "a"}}}),
        (ddb.delete_item, {"Key": {"pk": {"S": "a"}}}),
        (ddb.update_item, {"Key": {"pk": {"S": "a"}}}),
    ]:
        assert_error("ResourceNotFoundException", None, call, TableName="nope", **kwargs)


def test_list_tables_paging(server_url: str) -> None:
    client = make_client(server_url, region="eu-west-3")  # a region of its own: a clean namespace
    names = [f"list-{i:02d}" for i in range(7)]
    for n in reversed(names):
        client.create_table(TableName=n, KeySchema=KEYS, AttributeDefinitions=DEFS, BillingMode="PAY_PER_REQUEST")
    assert client.list_tables()["TableNames"] == names
    page = client.list_tables(Limit=3)
    assert page["TableNames"] == names[:3] and page["LastEvaluatedTableName"] == names[2]
    page = client.list_tables(Limit=3, ExclusiveStartTableName=names[2])
    assert page["TableNames"] == names[3:6]
    page = client.list_tables(Limit=3, ExclusiveStartTableName=names[5])
    assert page["TableNames"] == names[6:] and "LastEvaluatedTableName" not in page
    paginated = [n for p in client.get_paginator("list_tables").paginate(PaginationConfig={"PageSize": 2})
                 for n in p["TableNames"]]
    assert paginated == names
    # Other regions do not see these tables.
    assert not set(names) & set(make_client(server_url, region="ap-south-2").list_tables()["TableNames"])


def test_update_throughput(ddb: Any) -> None:
    ddb.create_table(TableName="upd", KeySchema=KEYS, AttributeDefinitions=DEFS, ProvisionedThroughput=PT)
    try:
        out = ddb.update_table(TableName="upd", ProvisionedThroughput={"ReadCapacityUnits": 10, "WriteCapacityUnits": 5})
        assert out["TableDescription"]["ProvisionedThroughput"]["ReadCapacityUnits"] == 10
        t = ddb.describe_table(TableName="upd")["Table"]["ProvisionedThroughput"]
        assert "LastIncreaseDateTime" in t and t["NumberOfDecreasesToday"] == 0
        ddb.update_table(TableName="upd", ProvisionedThroughput={"ReadCapacityUnits": 2, "WriteCapacityUnits": 5})
        t = ddb.describe_table(TableName="upd")["Table"]["ProvisionedThroughput"]
        assert t["NumberOfDecreasesToday"] == 1 and "LastDecreaseDateTime" in t and t["ReadCapacityUnits"] == 2
        assert_validation(
            "The provisioned throughput for the table will not change. The requested value equals the current "
            "value. Current ReadCapacityUnits provisioned for the table: 2. Requested ReadCapacityUnits: 2. "
            "Current WriteCapacityUnits provisioned for the table: 5. Requested WriteCapacityUnits: 5. Refer to "
            "the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
            ddb.update_table,
            TableName="upd",
            ProvisionedThroughput={"ReadCapacityUnits": 2, "WriteCapacityUnits": 5},
        )
        ddb.update_table(TableName="upd", BillingMode="PAY_PER_REQUEST")
        t = ddb.describe_table(TableName="upd")["Table"]
        assert t["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    finally:
        ddb.delete_table(TableName="upd")


def test_deletion_protection(ddb: Any) -> None:
    ddb.create_table(
        TableName="protected", KeySchema=KEYS, AttributeDefinitions=DEFS, BillingMode="PAY_PER_REQUEST",
        DeletionProtectionEnabled=True,
    )
    assert_validation(
        "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection "
        "first.",
        ddb.delete_table,
        TableName="protected",
    )
    ddb.update_table(TableName="protected", DeletionProtectionEnabled=False)
    assert ddb.describe_table(TableName="protected")["Table"]["DeletionProtectionEnabled"] is False
    ddb.delete_table(TableName="protected")


def test_table_name_may_be_its_arn(table: str, ddb: Any) -> None:
    arn = ddb.describe_table(TableName=table)["Table"]["TableArn"]
    ddb.put_item(TableName=arn, Item={"pk": {"S": "a"}})
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "a"}})["Item"] == {"pk": {"S": "a"}}


def test_describe_limits_and_endpoints(ddb: Any, server_url: str) -> None:
    limits = ddb.describe_limits()
    assert limits["TableMaxReadCapacityUnits"] == 40000
    assert limits["AccountMaxWriteCapacityUnits"] == 80000
    endpoints = ddb.describe_endpoints()["Endpoints"]
    assert endpoints[0]["Address"] == server_url.removeprefix("http://")


def test_tags(table: str, ddb: Any) -> None:
    arn = ddb.describe_table(TableName=table)["Table"]["TableArn"]
    ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}])
    ddb.untag_resource(ResourceArn=arn, TagKeys=["a"])
    assert ddb.list_tags_of_resource(ResourceArn=arn)["Tags"] == [{"Key": "b", "Value": "2"}]
    assert_validation("Atleast one Tag needs to be provided as Input.", ddb.tag_resource, ResourceArn=arn, Tags=[])
    assert_validation("Atleast one Tag Key needs to be provided as Input.", ddb.untag_resource, ResourceArn=arn, TagKeys=[])
    missing = arn.replace(table, "no-such-table")
    assert_error(
        "ResourceNotFoundException", f"Requested resource not found: ResourcArn: {missing} not found",
        ddb.list_tags_of_resource, ResourceArn=missing,
    )


def test_create_table_without_key_schema(ddb: Any, server_url: str) -> None:
    from tests.test_protocol import raw

    status, _, data = raw(server_url, '{"TableName": "no-keys", "BillingMode": "PAY_PER_REQUEST"}',
                          target="DynamoDB_20120810.CreateTable")
    assert status == 400
    assert json.loads(data)["message"] == (
        "2 validation errors detected: Value null at 'attributeDefinitions' failed to satisfy constraint: Member "
        "must not be null; Value null at 'keySchema' failed to satisfy constraint: Member must not be null"
    )
