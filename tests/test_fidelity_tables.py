"""Issue 12, the control plane at its edges: tags, continuous backups, UpdateTable no-ops,
DeleteTable's description, CreateTable's validation."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.helpers import assert_error, assert_validation
from tests.test_protocol import raw as raw_http

KS = [{"AttributeName": "pk", "KeyType": "HASH"}]
AD = [{"AttributeName": "pk", "AttributeType": "S"}]
PATTERN = "^([\\p{L}\\p{Z}\\p{N}_.:/=+\\-@]*)$"



def _arn(ddb: Any, table: str) -> str:
    return ddb.describe_table(TableName=table)["Table"]["TableArn"]


# --- tags -----------------------------------------------------------------------------------------


def _tag_error(value: str, path: str, detail: str) -> str:
    return f"1 validation error detected: Value '{value}' at '{path}' failed to satisfy constraint: Member must {detail}"


TAG_ERRORS = [
    ({"Key": "", "Value": "v"}, _tag_error("", "tags.1.member.key", "have length greater than or equal to 1")),
    ({"Key": "k" * 129, "Value": "v"},
     _tag_error("k" * 129, "tags.1.member.key", "have length less than or equal to 128")),
    ({"Key": "k", "Value": "v" * 257},
     _tag_error("v" * 257, "tags.1.member.value", "have length less than or equal to 256")),
    ({"Key": "k!", "Value": "v"}, _tag_error("k!", "tags.1.member.key", f"satisfy regular expression pattern: {PATTERN}")),
    ({"Key": "k", "Value": "v#"}, _tag_error("v#", "tags.1.member.value", f"satisfy regular expression pattern: {PATTERN}")),
]


@pytest.mark.parametrize(("tag", "message"), TAG_ERRORS)
def test_tag_restrictions(raw: Any, table: str, tag: dict[str, str], message: str) -> None:
    assert_validation(message, raw.tag_resource, ResourceArn=_arn(raw, table), Tags=[tag])


def test_tag_limits_accepted(ddb: Any, table: str) -> None:
    arn = _arn(ddb, table)
    tags = [{"Key": "k" * 128, "Value": "v" * 256}, {"Key": "a b_.:/=+-@é", "Value": ""}]
    ddb.tag_resource(ResourceArn=arn, Tags=tags)
    assert sorted(ddb.list_tags_of_resource(ResourceArn=arn)["Tags"], key=lambda t: t["Key"]) == sorted(
        tags, key=lambda t: t["Key"])


def test_create_table_validates_its_tags(raw: Any) -> None:
    assert_validation(_tag_error("k!", "tags.1.member.key", f"satisfy regular expression pattern: {PATTERN}"),
                      raw.create_table, TableName="tagged-bad", KeySchema=KS, AttributeDefinitions=AD,
                      BillingMode="PAY_PER_REQUEST", Tags=[{"Key": "k!", "Value": "v"}])
    assert_error("ResourceNotFoundException", None, raw.describe_table, TableName="tagged-bad")


@pytest.mark.parametrize("suffix", ["/index/by_x", "/stream/2020-01-01T00:00:00.000"])
def test_tagging_a_non_table_arn(ddb: Any, table: str, suffix: str) -> None:
    arn = _arn(ddb, table) + suffix
    assert_validation(f"Invalid TableArn: Invalid ResourceArn provided as input {arn}", ddb.tag_resource,
                      ResourceArn=arn, Tags=[{"Key": "k", "Value": "v"}])


@pytest.mark.parametrize("arn", ["arn:aws:dynamodb:us-east-1:000000000000:tablex"])  # "notanarn": test_wire44
def test_malformed_arn(ddb: Any, arn: str) -> None:
    assert_validation(f"Invalid TableArn: Invalid ResourceArn provided as input {arn}", ddb.list_tags_of_resource,
                      ResourceArn=arn)


def test_tag_and_untag_answer_an_empty_body(server_url: str, ddb: Any, table: str) -> None:
    arn = _arn(ddb, table)
    body = json.dumps({"ResourceArn": arn, "Tags": [{"Key": "k", "Value": "v"}]})
    status, _, data = raw_http(server_url, body, target="DynamoDB_20120810.TagResource")
    assert (status, data) == (200, b"")
    status, _, data = raw_http(server_url, json.dumps({"ResourceArn": arn, "TagKeys": ["k"]}),
                               target="DynamoDB_20120810.UntagResource")
    assert (status, data) == (200, b"")


# --- continuous backups --------------------------------------------------------------------------


def test_point_in_time_recovery(ddb: Any, table: str) -> None:
    out = ddb.describe_continuous_backups(TableName=table)["ContinuousBackupsDescription"]
    assert out == {"ContinuousBackupsStatus": "ENABLED",
                   "PointInTimeRecoveryDescription": {"PointInTimeRecoveryStatus": "DISABLED"}}
    out = ddb.update_continuous_backups(TableName=table, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})["ContinuousBackupsDescription"]
    pitr = out["PointInTimeRecoveryDescription"]
    assert out["ContinuousBackupsStatus"] == "ENABLED" and pitr["PointInTimeRecoveryStatus"] == "ENABLED"
    assert pitr["RecoveryPeriodInDays"] == 35
    assert pitr["EarliestRestorableDateTime"] <= pitr["LatestRestorableDateTime"]
    assert ddb.describe_continuous_backups(TableName=table)["ContinuousBackupsDescription"] == out
    ddb.update_continuous_backups(TableName=table, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": False})
    out = ddb.describe_continuous_backups(TableName=table)["ContinuousBackupsDescription"]
    assert out["PointInTimeRecoveryDescription"] == {"PointInTimeRecoveryStatus": "DISABLED"}


def test_continuous_backups_of_a_missing_table(ddb: Any) -> None:
    assert_error("TableNotFoundException", "Table not found: no-such-table", ddb.describe_continuous_backups,
                 TableName="no-such-table")
    assert_error("TableNotFoundException", "Table not found: no-such-table", ddb.update_continuous_backups,
                 TableName="no-such-table", PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})


# --- UpdateTable, DeleteTable --------------------------------------------------------------------


def test_update_to_the_same_billing_mode_is_a_no_op(ddb: Any, make_table: Any) -> None:
    name = make_table()
    out = ddb.update_table(TableName=name, BillingMode="PAY_PER_REQUEST")["TableDescription"]
    assert out["TableName"] == name and out["BillingModeSummary"]["BillingMode"] == "PAY_PER_REQUEST"
    provisioned = make_table(BillingMode="PROVISIONED", ProvisionedThroughput={"ReadCapacityUnits": 1,
                                                                               "WriteCapacityUnits": 1})
    out = ddb.update_table(TableName=provisioned, BillingMode="PROVISIONED")["TableDescription"]
    assert out["ProvisionedThroughput"]["ReadCapacityUnits"] == 1


def test_delete_table_description(ddb: Any, make_table: Any) -> None:
    name = make_table()
    out = ddb.delete_table(TableName=name)["TableDescription"]
    assert out["TableStatus"] == "DELETING" and out["TableName"] == name
    for member in ("KeySchema", "AttributeDefinitions", "CreationDateTime"):
        assert member not in out
    assert {"TableArn", "TableSizeBytes", "ItemCount", "ProvisionedThroughput"} <= set(out)
