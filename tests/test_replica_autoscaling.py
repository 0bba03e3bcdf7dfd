"""DescribeTableReplicaAutoScaling and UpdateTableReplicaAutoScaling over HTTP: the settings on
a table and on every replica of a global table, their errors, and their durability."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dynemu import errors
from dynemu.api.admin_app import NAMESPACES
from dynemu.testing import DynemuServer
from tests.conftest import make_client
from tests.helpers import assert_error, assert_validation

_names = itertools.count()
ROLE = (
    "arn:aws:iam::000000000000:role/aws-service-role/dynamodb.application-autoscaling.amazonaws.com/"
    "AWSServiceRoleForApplicationAutoScaling_DynamoDBTable"
)
OFF = {"AutoScalingDisabled": True}


def policy(target: float, **extra: Any) -> dict[str, Any]:
    return {"TargetTrackingScalingPolicyConfiguration": {"TargetValue": target, **extra}}


def described(lo: int, hi: int, name: str | None = None, target: float | None = None, **conf: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"MinimumUnits": lo, "MaximumUnits": hi, "AutoScalingDisabled": False, "AutoScalingRoleArn": ROLE}
    if target is not None:
        c = {"DisableScaleIn": False, "ScaleInCooldown": 0, "ScaleOutCooldown": 0, **conf, "TargetValue": target}
        out["ScalingPolicies"] = [{"PolicyName": name, "TargetTrackingScalingPolicyConfiguration": c}]
    return out


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Any]]:
    s = DynemuServer(clock="virtual")
    url = s.start()
    try:
        yield url, s.app[NAMESPACES].clock
    finally:
        s.stop()


@pytest.fixture(scope="module")
def us(server: tuple[str, Any]) -> Any:
    return make_client(server[0], "us-east-1")


@pytest.fixture(scope="module")
def eu(server: tuple[str, Any]) -> Any:
    return make_client(server[0], "eu-west-1")


def create(client: Any, *, gsi: bool = True, on_demand: bool = False, units: int = 5) -> str:
    name = f"scaled-{next(_names)}"
    kw: dict[str, Any] = dict(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
    )
    tp = {"ReadCapacityUnits": units, "WriteCapacityUnits": units}
    if on_demand:
        kw["BillingMode"] = "PAY_PER_REQUEST"
    else:
        kw["ProvisionedThroughput"] = tp
    if gsi:
        kw["AttributeDefinitions"].append({"AttributeName": "g", "AttributeType": "S"})
        ix: dict[str, Any] = {"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": "ALL"}}  # fmt: skip
        if not on_demand:
            ix["ProvisionedThroughput"] = tp
        kw["GlobalSecondaryIndexes"] = [ix]
    client.create_table(**kw)
    return name


def describe(client: Any, name: str) -> dict[str, Any]:
    out: dict[str, Any] = client.describe_table_replica_auto_scaling(TableName=name)["TableAutoScalingDescription"]
    return out


# --- a table that is not global: its own only replica ------------------------------------------------


def test_describe_a_provisioned_table_without_settings(us: Any) -> None:
    t = create(us)
    assert describe(us, t) == {
        "TableName": t,
        "TableStatus": "ACTIVE",
        "Replicas": [{
            "RegionName": "us-east-1",
            "GlobalSecondaryIndexes": [{
                "IndexName": "by-g", "IndexStatus": "ACTIVE",
                "ProvisionedReadCapacityAutoScalingSettings": OFF,
                "ProvisionedWriteCapacityAutoScalingSettings": OFF,
            }],
            "ReplicaProvisionedReadCapacityAutoScalingSettings": OFF,
            "ReplicaProvisionedWriteCapacityAutoScalingSettings": OFF,
            "ReplicaStatus": "ACTIVE",
        }],
    }  # fmt: skip


def test_describe_an_on_demand_table_has_no_settings(us: Any) -> None:
    t = create(us, on_demand=True)
    assert describe(us, t)["Replicas"] == [{
        "RegionName": "us-east-1",
        "GlobalSecondaryIndexes": [{"IndexName": "by-g", "IndexStatus": "ACTIVE"}],
        "ReplicaStatus": "ACTIVE",
    }]  # fmt: skip


def test_update_sets_every_target_and_answers_the_description(us: Any) -> None:
    t = create(us)
    out = us.update_table_replica_auto_scaling(
        TableName=t,
        ProvisionedWriteCapacityAutoScalingUpdate={
            "MinimumUnits": 5, "MaximumUnits": 100,
            "ScalingPolicyUpdate": {"PolicyName": "w", **policy(70.0, ScaleInCooldown=60, ScaleOutCooldown=30)},
        },
        GlobalSecondaryIndexUpdates=[{"IndexName": "by-g", "ProvisionedWriteCapacityAutoScalingUpdate": {
            "MinimumUnits": 5, "MaximumUnits": 50, "ScalingPolicyUpdate": policy(50.0, DisableScaleIn=True)}}],
        ReplicaUpdates=[{
            "RegionName": "us-east-1",
            "ReplicaProvisionedReadCapacityAutoScalingUpdate": {"MinimumUnits": 1, "MaximumUnits": 20,
                                                                "AutoScalingRoleArn": "arn:aws:iam::000000000000:role/mine"},
            "ReplicaGlobalSecondaryIndexUpdates": [{"IndexName": "by-g", "ProvisionedReadCapacityAutoScalingUpdate": {
                "MinimumUnits": 2, "MaximumUnits": 8, "ScalingPolicyUpdate": policy(20.0)}}],
        }],
    )["TableAutoScalingDescription"]  # fmt: skip
    assert out == describe(us, t)
    [replica] = out["Replicas"]
    assert replica["ReplicaProvisionedWriteCapacityAutoScalingSettings"] == described(
        5, 100, "w", 70.0, ScaleInCooldown=60, ScaleOutCooldown=30)
    assert replica["ReplicaProvisionedReadCapacityAutoScalingSettings"] == {
        **described(1, 20), "AutoScalingRoleArn": "arn:aws:iam::000000000000:role/mine"}
    [gsi] = replica["GlobalSecondaryIndexes"]
    assert gsi["ProvisionedWriteCapacityAutoScalingSettings"] == described(
        5, 50, f"DynamoDBWriteCapacityUtilization:table/{t}/index/by-g", 50.0, DisableScaleIn=True)
    assert gsi["ProvisionedReadCapacityAutoScalingSettings"] == described(
        2, 8, f"DynamoDBReadCapacityUtilization:table/{t}/index/by-g", 20.0)


def test_an_update_merges_into_what_is_set(us: Any) -> None:
    t = create(us, gsi=False)
    us.update_table_replica_auto_scaling(TableName=t, ProvisionedWriteCapacityAutoScalingUpdate={
        "MinimumUnits": 5, "MaximumUnits": 10, "ScalingPolicyUpdate": policy(60.0)})
    us.update_table_replica_auto_scaling(TableName=t, ProvisionedWriteCapacityAutoScalingUpdate={"MaximumUnits": 40})
    w = describe(us, t)["Replicas"][0]["ReplicaProvisionedWriteCapacityAutoScalingSettings"]
    assert w == described(5, 40, f"DynamoDBWriteCapacityUtilization:table/{t}", 60.0)
    us.update_table_replica_auto_scaling(TableName=t, ProvisionedWriteCapacityAutoScalingUpdate={"AutoScalingDisabled": True})
    w = describe(us, t)["Replicas"][0]["ReplicaProvisionedWriteCapacityAutoScalingSettings"]
    assert w["AutoScalingDisabled"] is True and w["MaximumUnits"] == 40


def test_bounds_move_the_capacity_into_them_through_update_table(us: Any) -> None:
    t = create(us, units=5)
    us.update_table_replica_auto_scaling(
        TableName=t,
        ProvisionedWriteCapacityAutoScalingUpdate={"MinimumUnits": 12, "MaximumUnits": 30},
        ReplicaUpdates=[{"RegionName": "us-east-1", "ReplicaGlobalSecondaryIndexUpdates": [
            {"IndexName": "by-g", "ProvisionedReadCapacityAutoScalingUpdate": {"MinimumUnits": 9, "MaximumUnits": 9}}]}],
    )  # fmt: skip
    table = us.describe_table(TableName=t)["Table"]
    assert (table["ProvisionedThroughput"]["ReadCapacityUnits"], table["ProvisionedThroughput"]["WriteCapacityUnits"]) == (5, 12)
    assert "LastIncreaseDateTime" in table["ProvisionedThroughput"]
    gsi = table["GlobalSecondaryIndexes"][0]["ProvisionedThroughput"]
    assert (gsi["ReadCapacityUnits"], gsi["WriteCapacityUnits"]) == (9, 5)


# --- errors ---------------------------------------------------------------------------------------


def test_unknown_table(us: Any) -> None:
    msg = "Requested resource not found: Table: nope-404 not found"
    assert_error("ResourceNotFoundException", msg, us.describe_table_replica_auto_scaling, TableName="nope-404")
    assert_error("ResourceNotFoundException", msg, us.update_table_replica_auto_scaling, TableName="nope-404",
                 ProvisionedWriteCapacityAutoScalingUpdate={"MinimumUnits": 1, "MaximumUnits": 2})  # fmt: skip


def test_validation_errors(us: Any) -> None:
    t = create(us)
    upd = us.update_table_replica_auto_scaling

    def write(**u: Any) -> dict[str, Any]:
        return {"TableName": t, "ProvisionedWriteCapacityAutoScalingUpdate": u}

    assert_validation(errors.MSG_AUTOSCALING_NO_UPDATES, upd, TableName=t)
    assert_validation(errors.msg_autoscaling_min_above_max(10, 5), upd, **write(MinimumUnits=10, MaximumUnits=5))
    assert_validation(errors.msg_autoscaling_bounds_required(f"table/{t}"), upd, **write(MinimumUnits=10))
    for bad in (19.9, 90.5):
        assert_validation(errors.msg_autoscaling_target_range(bad, 20, 90), upd,
                          **write(MinimumUnits=1, MaximumUnits=5, ScalingPolicyUpdate=policy(bad)))  # fmt: skip
    assert_validation(errors.msg_autoscaling_negative_cooldown("ScaleInCooldown", -1), upd,
                      **write(MinimumUnits=1, MaximumUnits=5, ScalingPolicyUpdate=policy(50, ScaleInCooldown=-1)))
    assert_validation(errors.msg_autoscaling_unknown_replica("ap-south-1", t), upd, TableName=t,
                      ReplicaUpdates=[{"RegionName": "ap-south-1"}])  # fmt: skip
    assert_validation(errors.msg_autoscaling_duplicate("Region", "us-east-1"), upd, TableName=t,
                      ReplicaUpdates=[{"RegionName": "us-east-1"}, {"RegionName": "us-east-1"}])  # fmt: skip
    assert_validation(errors.msg_autoscaling_unknown_index("nope", t), upd, TableName=t, GlobalSecondaryIndexUpdates=[
        {"IndexName": "nope", "ProvisionedWriteCapacityAutoScalingUpdate": {"MinimumUnits": 1, "MaximumUnits": 2}}])
    # a refused request changes nothing, on no target
    assert describe(us, t)["Replicas"][0]["ReplicaProvisionedWriteCapacityAutoScalingSettings"] == OFF
    on_demand = create(us, on_demand=True)
    assert_validation(errors.MSG_AUTOSCALING_ON_DEMAND, upd, TableName=on_demand,
                      ProvisionedWriteCapacityAutoScalingUpdate={"MinimumUnits": 1, "MaximumUnits": 2})  # fmt: skip


def test_the_model_checks_shapes(server: tuple[str, Any]) -> None:
    """botocore's model: MinimumUnits >= 1, ReplicaUpdates at least one, TargetValue required
    (a raw request, which boto3 would refuse before sending)."""
    import boto3
    from botocore.config import Config

    raw = boto3.client("dynamodb", endpoint_url=server[0], region_name="us-east-1", aws_access_key_id="AKIDTEST",
                       aws_secret_access_key="secret", config=Config(parameter_validation=False))  # fmt: skip
    assert_error("ValidationException", None, raw.update_table_replica_auto_scaling, TableName="whatever",
                 ProvisionedWriteCapacityAutoScalingUpdate={"MinimumUnits": 0, "MaximumUnits": 2})  # fmt: skip
    assert_error("ValidationException", None, raw.update_table_replica_auto_scaling, TableName="whatever", ReplicaUpdates=[])
    assert_error("ValidationException", None, raw.update_table_replica_auto_scaling, TableName="whatever",
                 ProvisionedWriteCapacityAutoScalingUpdate={"ScalingPolicyUpdate": {
                     "TargetTrackingScalingPolicyConfiguration": {}}})  # fmt: skip


# --- a global table: write settings shared, read settings per replica ---------------------------------


def test_global_table_settings_on_every_replica(us: Any, eu: Any) -> None:
    t = create(us)
    us.update_table(TableName=t, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
    out = eu.update_table_replica_auto_scaling(
        TableName=t,
        ProvisionedWriteCapacityAutoScalingUpdate={"MinimumUnits": 5, "MaximumUnits": 60, "ScalingPolicyUpdate": policy(70)},
        ReplicaUpdates=[
            {"RegionName": "us-east-1", "ReplicaProvisionedReadCapacityAutoScalingUpdate": {"MinimumUnits": 7, "MaximumUnits": 70}},
        ],
    )["TableAutoScalingDescription"]  # fmt: skip
    # the region asked first, then the others
    assert [(r["RegionName"], r["ReplicaStatus"]) for r in out["Replicas"]] == [("eu-west-1", "ACTIVE"), ("us-east-1", "ACTIVE")]
    seen_from_us = describe(us, t)["Replicas"]
    assert [r["RegionName"] for r in seen_from_us] == ["us-east-1", "eu-west-1"]
    by_region = {r["RegionName"]: r for r in seen_from_us}
    w = described(5, 60, f"DynamoDBWriteCapacityUtilization:table/{t}", 70.0)
    assert by_region["us-east-1"]["ReplicaProvisionedWriteCapacityAutoScalingSettings"] == w
    assert by_region["eu-west-1"]["ReplicaProvisionedWriteCapacityAutoScalingSettings"] == w
    assert by_region["us-east-1"]["ReplicaProvisionedReadCapacityAutoScalingSettings"] == described(7, 70)
    assert by_region["eu-west-1"]["ReplicaProvisionedReadCapacityAutoScalingSettings"] == OFF
    # the read minimum moved only us-east-1's read capacity
    assert us.describe_table(TableName=t)["Table"]["ProvisionedThroughput"]["ReadCapacityUnits"] == 7
    assert eu.describe_table(TableName=t)["Table"]["ProvisionedThroughput"]["ReadCapacityUnits"] == 5


# --- durability -------------------------------------------------------------------------------------


def test_settings_survive_a_restart(tmp_path: Path) -> None:
    with DynemuServer(data_dir=str(tmp_path), clock="virtual") as url:
        c = make_client(url)
        t = create(c)
        c.update_table_replica_auto_scaling(TableName=t, ProvisionedWriteCapacityAutoScalingUpdate={
            "MinimumUnits": 5, "MaximumUnits": 9, "ScalingPolicyUpdate": policy(45)})
        before = describe(c, t)
    with DynemuServer(data_dir=str(tmp_path), clock="virtual") as url:
        assert describe(make_client(url), t) == before


def test_a_deleted_and_recreated_table_starts_without_settings(us: Any) -> None:
    t = create(us, gsi=False)
    us.update_table_replica_auto_scaling(TableName=t, ProvisionedWriteCapacityAutoScalingUpdate={
        "MinimumUnits": 5, "MaximumUnits": 9})
    us.delete_table(TableName=t)
    us.create_table(TableName=t, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                    AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                    ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})  # fmt: skip
    assert describe(us, t)["Replicas"][0]["ReplicaProvisionedWriteCapacityAutoScalingSettings"] == OFF
