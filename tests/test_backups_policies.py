"""Resource-based policies over HTTP: Put/Get/DeleteResourcePolicy on tables and streams,
CreateTable's ResourcePolicy, revisions, validation, and the enforcement of an explicit Deny
under --verify-signatures."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config

from dynemu.testing import DynemuServer
from tests.helpers import S, assert_error, assert_validation

KEYS = [{"AttributeName": "pk", "KeyType": "HASH"}]
DEFS = [{"AttributeName": "pk", "AttributeType": "S"}]


def _doc(effect: str = "Deny", principal: Any = "*", action: Any = "dynamodb:GetItem", **extra: Any) -> str:
    statement = {"Effect": effect, "Principal": principal, "Action": action, **extra}
    return json.dumps({"Version": "2012-10-17", "Statement": [statement]})


def _arn(ddb: Any, name: str) -> str:
    return ddb.describe_table(TableName=name)["Table"]["TableArn"]


def test_put_get_delete_with_revisions(ddb: Any, table: str) -> None:
    arn = _arn(ddb, table)
    assert_error("PolicyNotFoundException", f"Resource-based policy not found for the provided ResourceArn: {arn}",
                 ddb.get_resource_policy, ResourceArn=arn)
    doc = _doc()
    rev = ddb.put_resource_policy(ResourceArn=arn, Policy=doc, ExpectedRevisionId="NO_POLICY")["RevisionId"]
    assert rev.isdigit()
    got = ddb.get_resource_policy(ResourceArn=arn)
    assert got["Policy"] == doc and got["RevisionId"] == rev
    # idempotent: the same document keeps its revision
    assert ddb.put_resource_policy(ResourceArn=arn, Policy=doc)["RevisionId"] == rev
    assert_error("PolicyNotFoundException", None, ddb.put_resource_policy, ResourceArn=arn, Policy=doc,
                 ExpectedRevisionId="NO_POLICY")
    assert_error("PolicyNotFoundException",
                 f"Resource-based policy not found for the provided ResourceArn: {arn} and revision id: 123",
                 ddb.put_resource_policy, ResourceArn=arn, Policy=_doc(action="dynamodb:*"), ExpectedRevisionId="123")
    rev2 = ddb.put_resource_policy(ResourceArn=arn, Policy=_doc(action="dynamodb:*"), ExpectedRevisionId=rev)["RevisionId"]
    assert int(rev2) > int(rev)
    assert_error("PolicyNotFoundException", None, ddb.delete_resource_policy, ResourceArn=arn, ExpectedRevisionId=rev)
    assert ddb.delete_resource_policy(ResourceArn=arn, ExpectedRevisionId=rev2)["RevisionId"] == rev2
    assert_error("PolicyNotFoundException", None, ddb.delete_resource_policy, ResourceArn=arn)
    # DescribeTable has no member for a policy, as in DynamoDB
    assert "ResourcePolicy" not in ddb.describe_table(TableName=table)["Table"]


def test_policy_validation_and_missing_resources(ddb: Any, table: str) -> None:
    arn = _arn(ddb, table)
    assert_validation("Invalid policy document: the document is not valid JSON",
                      ddb.put_resource_policy, ResourceArn=arn, Policy="{not json")
    assert_validation("Invalid policy document: Statement is missing",
                      ddb.put_resource_policy, ResourceArn=arn, Policy='{"Version": "2012-10-17"}')
    assert_validation("Invalid policy document: each Statement needs an Effect of Allow or Deny",
                      ddb.put_resource_policy, ResourceArn=arn, Policy=_doc(effect="Maybe"))
    big = _doc(Sid="x" * 21000)
    assert_validation(f"Resource-based policy document size {len(big)} bytes exceeds the maximum of 20 KB (20480 bytes)",
                      ddb.put_resource_policy, ResourceArn=arn, Policy=big)
    gone = arn + "-missing"
    assert_error("ResourceNotFoundException", f"Requested resource not found: ResourceArn: {gone} not found",
                 ddb.get_resource_policy, ResourceArn=gone)


def test_create_table_with_a_policy_and_stream_policies(ddb: Any) -> None:
    name = "pol-created"
    doc = _doc(action=["dynamodb:PutItem", "dynamodb:GetItem"])
    ddb.create_table(TableName=name, KeySchema=KEYS, AttributeDefinitions=DEFS, BillingMode="PAY_PER_REQUEST",
                     ResourcePolicy=doc, StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    try:
        t = ddb.describe_table(TableName=name)["Table"]
        assert ddb.get_resource_policy(ResourceArn=t["TableArn"])["Policy"] == doc
        stream = t["LatestStreamArn"]
        sdoc = _doc(action="dynamodb:GetRecords")
        ddb.put_resource_policy(ResourceArn=stream, Policy=sdoc)
        assert ddb.get_resource_policy(ResourceArn=stream)["Policy"] == sdoc
        assert_error("ResourceNotFoundException", None, ddb.get_resource_policy, ResourceArn=stream + "x")
    finally:
        ddb.delete_table(TableName=name)
    assert_validation("Invalid policy document: the document must be a JSON object", ddb.create_table,
                      TableName="pol-bad", KeySchema=KEYS, AttributeDefinitions=DEFS, BillingMode="PAY_PER_REQUEST",
                      ResourcePolicy="[]")
    assert "pol-bad" not in ddb.list_tables()["TableNames"]


SECRET = "policy-secret"


@pytest.fixture(scope="module")
def signed(tmp_path_factory: Any) -> Iterator[tuple[Any, Any]]:
    """A server checking signatures with two known callers: (alice's client, bob's client)."""
    path = tmp_path_factory.mktemp("creds") / "credentials"
    path.write_text(f"[alice]\naws_access_key_id = AKIAALICE\naws_secret_access_key = {SECRET}\n"
                    f"[bob]\naws_access_key_id = AKIABOB\naws_secret_access_key = {SECRET}\n")
    with DynemuServer(verify_signatures=True, credentials_file=str(path)) as url:
        clients = [boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1", aws_access_key_id=key,
                                aws_secret_access_key=SECRET, config=Config(retries={"total_max_attempts": 1}))
                   for key in ("AKIAALICE", "AKIABOB")]
        yield clients[0], clients[1]


def test_an_explicit_deny_refuses_the_matching_caller(signed: tuple[Any, Any]) -> None:
    alice, bob = signed
    alice.create_table(TableName="pol-enforced", KeySchema=KEYS, AttributeDefinitions=DEFS,
                       BillingMode="PAY_PER_REQUEST")
    arn = _arn(alice, "pol-enforced")
    alice.put_item(TableName="pol-enforced", Item={"pk": S("a")})
    bob_arn = "arn:aws:iam::000000000000:user/AKIABOB"
    alice.put_resource_policy(ResourceArn=arn, Policy=_doc(principal={"AWS": bob_arn}, action=["dynamodb:Get*", "dynamodb:BatchGetItem"],
                                                           Resource=arn))
    assert alice.get_item(TableName="pol-enforced", Key={"pk": S("a")})["Item"] == {"pk": S("a")}
    assert_error("AccessDeniedException",
                 f"User: {bob_arn} is not authorized to perform: dynamodb:GetItem on resource: {arn} "
                 "with an explicit deny in a resource-based policy",
                 bob.get_item, TableName="pol-enforced", Key={"pk": S("a")})
    assert_error("AccessDeniedException", None, bob.batch_get_item,
                 RequestItems={"pol-enforced": {"Keys": [{"pk": S("a")}]}})
    bob.put_item(TableName="pol-enforced", Item={"pk": S("b")})  # not a denied action
    # a statement with a Condition is not evaluated
    alice.put_resource_policy(ResourceArn=arn, Policy=_doc(
        action="dynamodb:*", Condition={"Bool": {"aws:SecureTransport": "false"}}))
    assert bob.get_item(TableName="pol-enforced", Key={"pk": S("b")})["Item"] == {"pk": S("b")}
    # "*" denies everyone, the policy's owner included, until the policy goes
    alice.put_resource_policy(ResourceArn=arn, Policy=_doc(action="dynamodb:Scan"))
    assert_error("AccessDeniedException", None, alice.scan, TableName="pol-enforced")
    alice.delete_resource_policy(ResourceArn=arn)
    assert alice.scan(TableName="pol-enforced")["Count"] == 2
