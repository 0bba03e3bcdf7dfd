"""DescribeTableReplicaAutoScaling and UpdateTableReplicaAutoScaling over HTTP, as the service is
observed to answer (aws-controllers-k8s ack-api-quirks, DynamoDB, 2026-10-09): only for global
tables, each update whole, Application Auto Scaling's texts relayed, its objects shared."""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dynemu import errors
from dynemu.testing import DynemuServer
from tests.aas_helpers import aas_client, autoscale, create_table
from tests.conftest import make_client
from tests.helpers import assert_error, assert_validation, error_of

_names = itertools.count()
ROLE = (
    "arn:aws:iam::000000000000:role/aws-service-role/dynamodb.application-autoscaling.amazonaws.com/"
    "AWSServiceRoleForApplicationAutoScaling_DynamoDBTable"
)
OFF = {"AutoScalingDisabled": True, "ScalingPolicies": []}
TAIL = r" \(Service: AWSApplicationAutoScaling; Status Code: 400; Error Code: ValidationException; Request ID: [0-9a-f-]{36}; Proxy: null\)"  # noqa: E501


def policy(target: float, name: str | None = None, **extra: Any) -> dict[str, Any]:
    p: dict[str, Any] = {"TargetTrackingScalingPolicyConfiguration": {"TargetValue": target, **extra}}
    if name is not None:
        p["PolicyName"] = name
    return p


def full(lo: int, hi: int, target: float = 70.0, name: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"MinimumUnits": lo, "MaximumUnits": hi, "ScalingPolicyUpdate": policy(target, name, **extra)}


def described(lo: int, hi: int, name: str, target: float, **conf: Any) -> dict[str, Any]:
    return {"MinimumUnits": lo, "MaximumUnits": hi, "AutoScalingRoleArn": ROLE, "ScalingPolicies": [
        {"PolicyName": name, "TargetTrackingScalingPolicyConfiguration": {"TargetValue": target, **conf}}]}  # fmt: skip


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with DynemuServer(clock="virtual") as u:
        yield u


@pytest.fixture(scope="module")
def us(url: str) -> Any:
    return make_client(url, "us-east-1")


@pytest.fixture(scope="module")
def eu(url: str) -> Any:
    return make_client(url, "eu-west-1")


@pytest.fixture(scope="module")
def aas(url: str) -> Any:
    return aas_client(url, "us-east-1")


def create(client: Any, *, gsi: bool = True, on_demand: bool = False, units: int = 5) -> str:
    return create_table(client, f"scaled-{next(_names)}", gsi=gsi, on_demand=on_demand, units=units)


def global_table(us: Any, aas: Any, *, gsi: bool = True, on_demand: bool = False) -> str:
    """A table in us-east-1 with a replica in eu-west-1 (a provisioned one write auto scaled
    first, as the service requires)."""
    t = create(us, gsi=gsi, on_demand=on_demand)
    if not on_demand:
        autoscale(aas, t, indexes=("by-g",) if gsi else (), lo=1, hi=10)
    us.update_table(TableName=t, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
    return t


def describe(client: Any, name: str) -> dict[str, Any]:
    out: dict[str, Any] = client.describe_table_replica_auto_scaling(TableName=name)["TableAutoScalingDescription"]
    return out


def by_region(client: Any, name: str) -> dict[str, Any]:
    return {r["RegionName"]: r for r in describe(client, name)["Replicas"]}


# --- only for global tables ------------------------------------------------------------------------


def test_a_regional_or_missing_table_is_no_global_table(us: Any, aas: Any) -> None:
    upd = {"ProvisionedWriteCapacityAutoScalingUpdate": full(1, 10)}
    for t in (create(us), create(us, on_demand=True), "nope-404"):
        msg = f"Global table with name: '{t}' does not exist."
        assert_error("ResourceNotFoundException", msg, us.describe_table_replica_auto_scaling, TableName=t)
        assert_error("ResourceNotFoundException", msg, us.update_table_replica_auto_scaling, TableName=t, **upd)
    # also with write auto scaling registered through Application Auto Scaling
    t = create(us, gsi=False)
    autoscale(aas, t)
    assert_error("ResourceNotFoundException", f"Global table with name: '{t}' does not exist.",
                 us.describe_table_replica_auto_scaling, TableName=t)  # fmt: skip


def test_describe_lists_every_replica_by_region_and_accepts_the_arn(us: Any, eu: Any, aas: Any) -> None:
    t = global_table(us, aas)
    w = described(1, 10, f"write-table-{t}", 70.0)
    gw = described(1, 10, f"write-table-{t}-index-by-g", 70.0)
    replica = {
        "GlobalSecondaryIndexes": [{"IndexName": "by-g", "IndexStatus": "ACTIVE",
                                    "ProvisionedReadCapacityAutoScalingSettings": OFF,
                                    "ProvisionedWriteCapacityAutoScalingSettings": gw}],
        "ReplicaProvisionedReadCapacityAutoScalingSettings": OFF,
        "ReplicaProvisionedWriteCapacityAutoScalingSettings": w,
        "ReplicaStatus": "ACTIVE",
    }  # fmt: skip
    expected = {"TableName": t, "TableStatus": "ACTIVE", "Replicas": [
        {"RegionName": "eu-west-1", **replica}, {"RegionName": "us-east-1", **replica}]}  # fmt: skip
    assert describe(us, t) == expected
    assert describe(eu, t) == expected  # the same from either region
    arn = us.describe_table(TableName=t)["Table"]["TableArn"]
    assert describe(us, arn) == expected


def test_an_on_demand_global_table_describes_every_dimension_as_disabled(us: Any, aas: Any) -> None:
    t = global_table(us, aas, gsi=False, on_demand=True)
    assert describe(us, t)["Replicas"] == [{
        "RegionName": region, "GlobalSecondaryIndexes": [],
        "ReplicaProvisionedReadCapacityAutoScalingSettings": OFF,
        "ReplicaProvisionedWriteCapacityAutoScalingSettings": OFF, "ReplicaStatus": "ACTIVE",
    } for region in ("eu-west-1", "us-east-1")]  # fmt: skip


# --- updates ------------------------------------------------------------------------------------------


def test_an_update_answers_the_settings_before_it_and_sets_every_target(us: Any, eu: Any, aas: Any) -> None:
    t = global_table(us, aas)
    before = describe(us, t)
    out = eu.update_table_replica_auto_scaling(
        TableName=t,
        ProvisionedWriteCapacityAutoScalingUpdate=full(5, 100, 55.0, "w", ScaleInCooldown=-1, ScaleOutCooldown=10**9),
        GlobalSecondaryIndexUpdates=[{"IndexName": "by-g", "ProvisionedWriteCapacityAutoScalingUpdate": {
            **full(5, 50, 50.0, DisableScaleIn=True), "AutoScalingRoleArn": "arn:aws:iam::000000000000:role/mine"}}],
        ReplicaUpdates=[{
            "RegionName": "us-east-1",
            "ReplicaProvisionedReadCapacityAutoScalingUpdate": full(2, 20, 19.9),
            "ReplicaGlobalSecondaryIndexUpdates": [{"IndexName": "by-g", "ProvisionedReadCapacityAutoScalingUpdate": full(3, 3)}],
        }],
    )["TableAutoScalingDescription"]  # fmt: skip
    assert out == before  # the answer is the description from before the update (observed)
    regions = by_region(us, t)
    w = described(5, 100, "w", 55.0, ScaleInCooldown=-1, ScaleOutCooldown=10**9)  # cooldowns echoed as given
    gw = described(5, 50, f"DynamoDBWriteCapacityUtilization:table/{t}/index/by-g", 50.0, DisableScaleIn=True)
    for region in ("us-east-1", "eu-west-1"):  # write settings on every replica, the role forced
        assert regions[region]["ReplicaProvisionedWriteCapacityAutoScalingSettings"] == w
        assert regions[region]["GlobalSecondaryIndexes"][0]["ProvisionedWriteCapacityAutoScalingSettings"] == gw
    assert regions["us-east-1"]["ReplicaProvisionedReadCapacityAutoScalingSettings"] == described(
        2, 20, f"DynamoDBReadCapacityUtilization:table/{t}", 19.9)
    assert regions["us-east-1"]["GlobalSecondaryIndexes"][0]["ProvisionedReadCapacityAutoScalingSettings"] == described(
        3, 3, f"DynamoDBReadCapacityUtilization:table/{t}/index/by-g", 70.0)
    assert regions["eu-west-1"]["ReplicaProvisionedReadCapacityAutoScalingSettings"] == OFF
    # the read minimum moved only us-east-1's capacities, at once
    assert us.describe_table(TableName=t)["Table"]["GlobalSecondaryIndexes"][0]["ProvisionedThroughput"]["ReadCapacityUnits"] == 3
    assert eu.describe_table(TableName=t)["Table"]["GlobalSecondaryIndexes"][0]["ProvisionedThroughput"]["ReadCapacityUnits"] == 5


def test_a_new_policy_name_replaces_the_policy_and_disabling_removes_the_target(us: Any, aas: Any) -> None:
    t = global_table(us, aas, gsi=False)
    upd = us.update_table_replica_auto_scaling
    upd(TableName=t, ProvisionedWriteCapacityAutoScalingUpdate=full(1, 10, 40.0, "p2"))
    w = by_region(us, t)["us-east-1"]["ReplicaProvisionedWriteCapacityAutoScalingSettings"]
    assert w == described(1, 10, "p2", 40.0)
    upd(TableName=t, ProvisionedWriteCapacityAutoScalingUpdate={"AutoScalingDisabled": True})
    for r in describe(us, t)["Replicas"]:
        assert r["ReplicaProvisionedWriteCapacityAutoScalingSettings"] == OFF
    targets = aas.describe_scalable_targets(ServiceNamespace="dynamodb", ResourceIds=[f"table/{t}"])["ScalableTargets"]
    assert targets == []
    # disabling a dimension that never had auto scaling is accepted
    upd(TableName=t, ReplicaUpdates=[{"RegionName": "eu-west-1",
                                      "ReplicaProvisionedReadCapacityAutoScalingUpdate": {"AutoScalingDisabled": True}}])  # fmt: skip


def test_settings_are_application_auto_scalings_objects(us: Any, eu: Any, aas: Any, url: str) -> None:
    t = global_table(us, aas, gsi=False)
    us.update_table_replica_auto_scaling(TableName=t, ReplicaUpdates=[
        {"RegionName": "eu-west-1", "ReplicaProvisionedReadCapacityAutoScalingUpdate": full(2, 12, 60.0)}])
    eu_aas = aas_client(url, "eu-west-1")
    [target] = eu_aas.describe_scalable_targets(ServiceNamespace="dynamodb", ScalableDimension="dynamodb:table:ReadCapacityUnits",
                                                ResourceIds=[f"table/{t}"])["ScalableTargets"]  # fmt: skip
    assert (target["MinCapacity"], target["MaxCapacity"], target["RoleARN"]) == (2, 12, ROLE)
    [p] = eu_aas.describe_scaling_policies(ServiceNamespace="dynamodb", ResourceId=f"table/{t}",
                                           ScalableDimension="dynamodb:table:ReadCapacityUnits")["ScalingPolicies"]  # fmt: skip
    assert p["PolicyName"] == f"DynamoDBReadCapacityUtilization:table/{t}"
    assert p["TargetTrackingScalingPolicyConfiguration"] == {
        "TargetValue": 60.0, "PredefinedMetricSpecification": {"PredefinedMetricType": "DynamoDBReadCapacityUtilization"}}
    # a target registered directly, without a policy, reads as disabled; with one, as set
    resource, dim = f"table/{t}", "dynamodb:table:ReadCapacityUnits"
    aas.register_scalable_target(ServiceNamespace="dynamodb", ResourceId=resource, ScalableDimension=dim,
                                 MinCapacity=6, MaxCapacity=8)  # fmt: skip
    assert by_region(us, t)["us-east-1"]["ReplicaProvisionedReadCapacityAutoScalingSettings"] == OFF
    assert us.describe_table(TableName=t)["Table"]["ProvisionedThroughput"]["ReadCapacityUnits"] == 6  # the minimum holds
    aas.put_scaling_policy(PolicyName="mine", ServiceNamespace="dynamodb", ResourceId=resource, ScalableDimension=dim,
                           PolicyType="TargetTrackingScaling", TargetTrackingScalingPolicyConfiguration={
                               "TargetValue": 33.0, "ScaleInCooldown": 7, "DisableScaleIn": False,
                               "PredefinedMetricSpecification": {"PredefinedMetricType": "DynamoDBReadCapacityUtilization"}})  # fmt: skip
    assert by_region(us, t)["us-east-1"]["ReplicaProvisionedReadCapacityAutoScalingSettings"] == described(
        6, 8, "mine", 33.0, ScaleInCooldown=7, DisableScaleIn=False)


# --- errors ------------------------------------------------------------------------------------------


def test_each_update_needs_the_whole_setting(us: Any, aas: Any) -> None:
    t = global_table(us, aas, gsi=False)

    def read(**u: Any) -> dict[str, Any]:
        return {"TableName": t, "ReplicaUpdates": [{"RegionName": "us-east-1",
                                                    "ReplicaProvisionedReadCapacityAutoScalingUpdate": u}]}  # fmt: skip

    upd = us.update_table_replica_auto_scaling
    pol = policy(50.0)
    for given, missing in (
        ({"MinimumUnits": 1, "MaximumUnits": 5}, ["ScalingPolicyUpdate"]),
        ({"ScalingPolicyUpdate": pol}, ["MaximumUnits", "MinimumUnits"]),
        ({"MinimumUnits": 1, "ScalingPolicyUpdate": pol}, ["MaximumUnits"]),
        ({"MaximumUnits": 5, "ScalingPolicyUpdate": pol}, ["MinimumUnits"]),
        ({}, ["MaximumUnits", "ScalingPolicyUpdate", "MinimumUnits"]),
        ({"AutoScalingDisabled": False}, ["MaximumUnits", "ScalingPolicyUpdate", "MinimumUnits"]),
        ({"AutoScalingRoleArn": ROLE}, ["MaximumUnits", "ScalingPolicyUpdate", "MinimumUnits"]),
    ):
        assert_validation(errors.msg_autoscaling_parameters_required(t, missing), upd, **read(**given))
    # the text, in full
    assert errors.msg_autoscaling_parameters_required(t, ["MaximumUnits"]) == (
        f"Failed to update settings for global table with name: \u2018{t}\u2019: Parameters 'MaximumUnits' are "
        "required unless auto scaling is being disabled.")  # fmt: skip
    upd(**read(MinimumUnits=5, MaximumUnits=5, ScalingPolicyUpdate=pol, AutoScalingDisabled=False))  # min = max


def test_application_auto_scalings_refusals_are_relayed(us: Any, aas: Any) -> None:
    t = global_table(us, aas, gsi=False)
    upd = us.update_table_replica_auto_scaling

    def read(u: dict[str, Any]) -> dict[str, Any]:
        return {"TableName": t, "ReplicaUpdates": [{"RegionName": "us-east-1",
                                                    "ReplicaProvisionedReadCapacityAutoScalingUpdate": u}]}  # fmt: skip

    for u, text in (
        (full(10, 5), "Maximum capacity cannot be less than minimum capacity"),
        (full(1, 5, 90.1), "For predefined metric type DynamoDBReadCapacityUtilization, target value must be "
                           "between '10.0' and '90.0', but was '90.1'."),
        (full(1, 5, 100), "For predefined metric type DynamoDBReadCapacityUtilization, target value must be "
                          "between '10.0' and '90.0', but was '100.0'."),
        (full(1, 5, 0), "For target tracking scaling, target value must be between '8.51592E-109' and "
                        "'1.174271E108', but was '0.0'."),
    ):  # fmt: skip
        code, message = error_of(upd, **read(u))
        assert code == "ValidationException"
        assert re.fullmatch(re.escape(text) + TAIL, message), message
    assert by_region(us, t)["us-east-1"]["ReplicaProvisionedReadCapacityAutoScalingSettings"] == OFF  # nothing set
    upd(**read(full(1, 5, 10.0)))  # the bounds themselves are accepted


def test_regions_and_indexes(us: Any, aas: Any) -> None:
    t = global_table(us, aas)
    upd = us.update_table_replica_auto_scaling
    assert_error("ResourceNotFoundException", errors.msg_autoscaling_unknown_regions(t, ["ap-south-1", "US-EAST-1"]),
                 upd, TableName=t, ReplicaUpdates=[
                     {"RegionName": "ap-south-1", "ReplicaProvisionedReadCapacityAutoScalingUpdate": full(1, 2)},
                     {"RegionName": "US-EAST-1", "ReplicaProvisionedReadCapacityAutoScalingUpdate": full(1, 2)}])  # fmt: skip
    assert errors.msg_autoscaling_unknown_regions(t, ["ap-south-1"]) == (
        f"Failed to update settings for global table with name: \u2018{t}\u2019 because a replica does not exist "
        "in regions: \u2018[ap-south-1]\u2019.")  # fmt: skip
    assert_error("ResourceNotFoundException", errors.msg_autoscaling_unknown_indexes(t, ["nope"]), upd, TableName=t,
                 GlobalSecondaryIndexUpdates=[{"IndexName": "nope", "ProvisionedWriteCapacityAutoScalingUpdate": full(1, 2)}])  # fmt: skip
    assert_validation(errors.msg_autoscaling_region_without_update(t, "eu-west-1"), upd, TableName=t,
                      ReplicaUpdates=[{"RegionName": "eu-west-1"}])  # fmt: skip
    assert errors.msg_autoscaling_region_without_update(t, "eu-west-1") == (
        f"Failed to update settings for global table with name: \u2018{t}\u2019 because at least one update "
        "parameter must be specified for region: \u2018eu-west-1\u2019.")  # fmt: skip
    assert_validation(errors.msg_autoscaling_duplicate_region(t, "us-east-1"), upd, TableName=t, ReplicaUpdates=[
        {"RegionName": "us-east-1", "ReplicaProvisionedReadCapacityAutoScalingUpdate": full(1, 2)},
        {"RegionName": "us-east-1", "ReplicaProvisionedReadCapacityAutoScalingUpdate": full(1, 2)}])
    assert_validation(errors.MSG_AUTOSCALING_NO_UPDATES, upd, TableName=t)


def test_an_on_demand_global_table_accepts_only_disabling(us: Any, aas: Any) -> None:
    t = global_table(us, aas, gsi=False, on_demand=True)
    upd = us.update_table_replica_auto_scaling
    assert_validation(
        f"Failed to update global table with name \u2018{t}\u2018. Replicas 'EU-WEST-1', 'US-EAST-1' BillingMode is "
        "PayPerRequest. You must convert table's BillingMode to PROVISIONED to set parameters: "
        "'GlobalTableProvisionedWriteCapacityAutoScalingSettingsUpdate'.",
        upd, TableName=t, ProvisionedWriteCapacityAutoScalingUpdate=full(1, 10))  # fmt: skip
    assert_validation(
        errors.msg_autoscaling_on_demand(t, ["eu-west-1", "us-east-1"], ["ReplicaProvisionedReadCapacityAutoScalingSettingsUpdate"]),
        upd, TableName=t, ReplicaUpdates=[{"RegionName": "us-east-1",
                                           "ReplicaProvisionedReadCapacityAutoScalingUpdate": full(1, 10)}])  # fmt: skip
    upd(TableName=t, ProvisionedWriteCapacityAutoScalingUpdate={"AutoScalingDisabled": True})
    assert aas.describe_scalable_targets(ServiceNamespace="dynamodb", ResourceIds=[f"table/{t}"])["ScalableTargets"] == []


def test_the_model_checks_shapes(url: str) -> None:
    """botocore's model: MinimumUnits >= 1, ReplicaUpdates at least one, TargetValue required
    (a raw request, which boto3 would refuse before sending)."""
    import boto3
    from botocore.config import Config

    raw = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1", aws_access_key_id="AKIDTEST",
                       aws_secret_access_key="secret", config=Config(parameter_validation=False))  # fmt: skip
    assert_error("ValidationException", None, raw.update_table_replica_auto_scaling, TableName="whatever",
                 ProvisionedWriteCapacityAutoScalingUpdate={"MinimumUnits": 0, "MaximumUnits": 2})  # fmt: skip
    assert_error("ValidationException", None, raw.update_table_replica_auto_scaling, TableName="whatever", ReplicaUpdates=[])
    assert_error("ValidationException", None, raw.update_table_replica_auto_scaling, TableName="whatever",
                 ProvisionedWriteCapacityAutoScalingUpdate={"ScalingPolicyUpdate": {
                     "TargetTrackingScalingPolicyConfiguration": {}}})  # fmt: skip


# --- durability, orphans -----------------------------------------------------------------------------


def test_settings_survive_a_restart(tmp_path: Path) -> None:
    with DynemuServer(data_dir=str(tmp_path), clock="virtual") as u:
        c = make_client(u)
        t = global_table(c, aas_client(u), gsi=False)
        c.update_table_replica_auto_scaling(TableName=t, ProvisionedWriteCapacityAutoScalingUpdate=full(5, 9, 45))
        before = describe(c, t)
        assert before["Replicas"][0]["ReplicaProvisionedWriteCapacityAutoScalingSettings"]["MinimumUnits"] == 5
    with DynemuServer(data_dir=str(tmp_path), clock="virtual") as u:
        assert describe(make_client(u), t) == before


def test_deleting_a_table_leaves_its_targets(us: Any, aas: Any) -> None:
    """DeleteTable orphans Application Auto Scaling's objects (observed)."""
    t = create(us, gsi=False)
    autoscale(aas, t)
    us.delete_table(TableName=t)
    [target] = aas.describe_scalable_targets(ServiceNamespace="dynamodb", ResourceIds=[f"table/{t}"])["ScalableTargets"]
    assert target["ScalableDimension"] == "dynamodb:table:WriteCapacityUnits"
