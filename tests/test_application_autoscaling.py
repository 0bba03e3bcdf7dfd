"""The Application Auto Scaling endpoint (AnyScaleFrontendService, AWS JSON 1.1) for DynamoDB
over HTTP with boto3's ``application-autoscaling`` client: scalable targets, target tracking
policies, scaling activities, and their errors (API reference of Application Auto Scaling)."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from dynemu import errors
from dynemu.testing import DynemuServer
from tests.aas_helpers import aas_client
from tests.conftest import make_client
from tests.helpers import assert_error

_names = itertools.count()
ROLE = (
    "arn:aws:iam::000000000000:role/aws-service-role/dynamodb.application-autoscaling.amazonaws.com/"
    "AWSServiceRoleForApplicationAutoScaling_DynamoDBTable"
)
TABLE_W, TABLE_R = "dynamodb:table:WriteCapacityUnits", "dynamodb:table:ReadCapacityUnits"
INDEX_W = "dynamodb:index:WriteCapacityUnits"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with DynemuServer(clock="virtual") as u:
        yield u


@pytest.fixture(scope="module")
def ddb(url: str) -> Any:
    return make_client(url)


@pytest.fixture(scope="module")
def aas(url: str) -> Any:
    return aas_client(url)


def create(ddb: Any, units: int = 5) -> str:
    name = f"aas-{next(_names)}"
    tp = {"ReadCapacityUnits": units, "WriteCapacityUnits": units}
    ddb.create_table(
        TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        ProvisionedThroughput=tp,
        GlobalSecondaryIndexes=[{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "KEYS_ONLY"}, "ProvisionedThroughput": tp}],
    )  # fmt: skip
    return name


def register(aas: Any, resource: str, dim: str = TABLE_W, **kw: Any) -> Any:
    return aas.register_scalable_target(ServiceNamespace="dynamodb", ResourceId=resource, ScalableDimension=dim, **kw)


def tracking(target: float, metric: str = "DynamoDBWriteCapacityUtilization", **conf: Any) -> dict[str, Any]:
    return {"TargetValue": target, "PredefinedMetricSpecification": {"PredefinedMetricType": metric}, **conf}


def put(aas: Any, name: str, resource: str, dim: str = TABLE_W, **conf: Any) -> Any:
    return aas.put_scaling_policy(PolicyName=name, ServiceNamespace="dynamodb", ResourceId=resource, ScalableDimension=dim,
                                  PolicyType="TargetTrackingScaling", TargetTrackingScalingPolicyConfiguration=conf)  # fmt: skip


def capacity(ddb: Any, t: str, index: bool = False) -> tuple[int, int]:
    table = ddb.describe_table(TableName=t)["Table"]
    tp = table["GlobalSecondaryIndexes"][0]["ProvisionedThroughput"] if index else table["ProvisionedThroughput"]
    return tp["ReadCapacityUnits"], tp["WriteCapacityUnits"]


def test_targets_register_describe_and_deregister(ddb: Any, aas: Any) -> None:
    t = create(ddb)
    out = register(aas, f"table/{t}", MinCapacity=2, MaxCapacity=20, RoleARN="arn:aws:iam::000000000000:role/mine")
    assert out["ScalableTargetARN"].startswith("arn:aws:application-autoscaling:us-east-1:000000000000:scalable-target/")
    register(aas, f"table/{t}/index/by-g", INDEX_W, MinCapacity=1, MaxCapacity=9)
    got = aas.describe_scalable_targets(ServiceNamespace="dynamodb", ResourceIds=[f"table/{t}", f"table/{t}/index/by-g"])
    [table, index] = got["ScalableTargets"]
    assert {k: table[k] for k in ("ServiceNamespace", "ResourceId", "ScalableDimension", "MinCapacity", "MaxCapacity",
                                  "RoleARN", "SuspendedState", "ScalableTargetARN")} == {  # fmt: skip
        "ServiceNamespace": "dynamodb", "ResourceId": f"table/{t}", "ScalableDimension": TABLE_W,
        "MinCapacity": 2, "MaxCapacity": 20, "RoleARN": ROLE,  # the service-linked role, whatever was asked
        "SuspendedState": {"DynamicScalingInSuspended": False, "DynamicScalingOutSuspended": False,
                           "ScheduledScalingSuspended": False},
        "ScalableTargetARN": out["ScalableTargetARN"],
    }  # fmt: skip
    assert "CreationTime" in table and (index["ResourceId"], index["ScalableDimension"]) == (f"table/{t}/index/by-g", INDEX_W)
    # an existing target takes the members given
    register(aas, f"table/{t}", MaxCapacity=30, SuspendedState={"DynamicScalingInSuspended": True})
    [table] = aas.describe_scalable_targets(ServiceNamespace="dynamodb", ResourceIds=[f"table/{t}"])["ScalableTargets"]
    assert (table["MinCapacity"], table["MaxCapacity"], table["SuspendedState"]["DynamicScalingInSuspended"]) == (2, 30, True)
    aas.deregister_scalable_target(ServiceNamespace="dynamodb", ResourceId=f"table/{t}", ScalableDimension=TABLE_W)
    left = aas.describe_scalable_targets(ServiceNamespace="dynamodb", ResourceIds=[f"table/{t}"])["ScalableTargets"]
    assert left == []
    assert_error("ObjectNotFoundException",
                 f"No scalable target registered for service namespace: dynamodb, resource ID: table/{t}, "
                 f"scalable dimension: {TABLE_W}",
                 aas.deregister_scalable_target, ServiceNamespace="dynamodb", ResourceId=f"table/{t}",
                 ScalableDimension=TABLE_W)  # fmt: skip


def test_bounds_move_the_capacity_as_scaling_activities(ddb: Any, aas: Any) -> None:
    t = create(ddb, units=5)
    register(aas, f"table/{t}", TABLE_R, MinCapacity=8, MaxCapacity=20)
    register(aas, f"table/{t}/index/by-g", INDEX_W, MinCapacity=1, MaxCapacity=3)
    assert capacity(ddb, t) == (8, 5)
    assert capacity(ddb, t, index=True) == (5, 3)
    acts = aas.describe_scaling_activities(ServiceNamespace="dynamodb", ResourceId=f"table/{t}")["ScalingActivities"]
    [a] = acts
    assert (a["ScalableDimension"], a["Description"], a["Cause"], a["StatusCode"], a["StatusMessage"]) == (
        TABLE_R, "Setting read capacity units to 8.", "minimum capacity was set to 8", "Successful",
        "Successfully set read capacity units to 8. Change successfully fulfilled by dynamodb.")  # fmt: skip
    newest = aas.describe_scaling_activities(ServiceNamespace="dynamodb")["ScalingActivities"][0]
    assert (newest["ResourceId"], newest["Description"]) == (f"table/{t}/index/by-g", "Setting write capacity units to 3.")


def test_register_errors(ddb: Any, aas: Any) -> None:
    t = create(ddb)
    assert_error("ValidationException", errors.msg_aas_no_table("table/nope-404"), register, aas, "table/nope-404",
                 MinCapacity=1, MaxCapacity=2)  # fmt: skip
    assert errors.msg_aas_no_table("table/nope-404") == "DynamoDB table does not exist: table/nope-404"
    for resource, dim in ((f"dynamo/{t}", TABLE_W), (f"table/{t}", INDEX_W), (f"table/{t}/index/by-g", TABLE_W)):
        assert_error("ValidationException", "Unsupported service namespace, resource type or scalable dimension",
                     register, aas, resource, dim, MinCapacity=1, MaxCapacity=2)  # fmt: skip
    assert_error("ValidationException", errors.msg_aas_no_index(f"table/{t}/index/nope"), register, aas,
                 f"table/{t}/index/nope", INDEX_W, MinCapacity=1, MaxCapacity=2)  # fmt: skip
    assert_error("ValidationException", "Maximum capacity cannot be less than minimum capacity", register, aas,
                 f"table/{t}", MinCapacity=5, MaxCapacity=4)  # fmt: skip
    assert_error("ValidationException", errors.msg_aas_new_target_bounds(f"table/{t}"), register, aas, f"table/{t}",
                 MinCapacity=5)  # fmt: skip
    assert aas.describe_scalable_targets(ServiceNamespace="dynamodb", ResourceIds=[f"table/{t}"])["ScalableTargets"] == []


def test_policies_put_describe_and_delete(ddb: Any, aas: Any) -> None:
    t = create(ddb)
    resource = f"table/{t}"
    assert_error("ObjectNotFoundException", errors.msg_aas_no_target("dynamodb", resource, TABLE_W), put, aas, "p",
                 resource, **tracking(50))  # fmt: skip
    register(aas, resource, MinCapacity=1, MaxCapacity=10)
    out = put(aas, "p", resource, **tracking(50, ScaleInCooldown=-5, DisableScaleIn=True))
    assert out["PolicyARN"] == out["PolicyARN"].split(":policyName/")[0] + ":policyName/p"
    assert out["PolicyARN"].startswith("arn:aws:autoscaling:us-east-1:000000000000:scalingPolicy:")
    kinds = [a["AlarmName"].split("-")[-6] for a in out["Alarms"]]
    assert kinds == ["AlarmHigh", "AlarmLow", "ProvisionedCapacityHigh", "ProvisionedCapacityLow"]
    assert all(a["AlarmName"].startswith(f"TargetTracking-{resource}-") for a in out["Alarms"])
    again = put(aas, "p", resource, **tracking(60))  # the same name: the same policy, changed
    assert again["PolicyARN"] == out["PolicyARN"]
    put(aas, "q", resource, **tracking(30))
    got = aas.describe_scaling_policies(ServiceNamespace="dynamodb", ResourceId=resource)["ScalingPolicies"]
    assert [(p["PolicyName"], p["PolicyType"], p["TargetTrackingScalingPolicyConfiguration"]) for p in got] == [
        ("p", "TargetTrackingScaling", tracking(60)), ("q", "TargetTrackingScaling", tracking(30))]
    assert [p["PolicyName"] for p in aas.describe_scaling_policies(ServiceNamespace="dynamodb", PolicyNames=["q"])
            ["ScalingPolicies"]] == ["q"]  # fmt: skip
    aas.delete_scaling_policy(PolicyName="q", ServiceNamespace="dynamodb", ResourceId=resource, ScalableDimension=TABLE_W)
    assert_error("ObjectNotFoundException", errors.msg_aas_no_policy("dynamodb", resource, TABLE_W, "q"),
                 aas.delete_scaling_policy, PolicyName="q", ServiceNamespace="dynamodb", ResourceId=resource,
                 ScalableDimension=TABLE_W)  # fmt: skip
    # deregistering the target removes its policies
    aas.deregister_scalable_target(ServiceNamespace="dynamodb", ResourceId=resource, ScalableDimension=TABLE_W)
    assert aas.describe_scaling_policies(ServiceNamespace="dynamodb", ResourceId=resource)["ScalingPolicies"] == []


def test_policy_errors(ddb: Any, aas: Any) -> None:
    t = create(ddb)
    resource = f"table/{t}"
    register(aas, resource, MinCapacity=1, MaxCapacity=10)
    for value, text in (
        (90.1, "For predefined metric type DynamoDBWriteCapacityUtilization, target value must be between '10.0' "
               "and '90.0', but was '90.1'."),
        (9.99, "For predefined metric type DynamoDBWriteCapacityUtilization, target value must be between '10.0' "
               "and '90.0', but was '9.99'."),
        (0, "For target tracking scaling, target value must be between '8.51592E-109' and '1.174271E108', but "
            "was '0.0'."),
    ):  # fmt: skip
        assert_error("ValidationException", text, put, aas, "p", resource, **tracking(value))
    put(aas, "p", resource, **tracking(10), ScaleOutCooldown=10**9)  # the bounds, a huge cooldown: accepted
    assert_error("ValidationException", errors.msg_aas_metric_mismatch("DynamoDBReadCapacityUtilization", TABLE_W),
                 put, aas, "p", resource, **tracking(50, "DynamoDBReadCapacityUtilization"))  # fmt: skip
    assert_error("ValidationException", errors.MSG_AAS_PREDEFINED_ONLY, put, aas, "p", resource, TargetValue=50)
    assert_error("ValidationException", errors.MSG_AAS_STEP_SCALING, aas.put_scaling_policy, PolicyName="s",
                 ServiceNamespace="dynamodb", ResourceId=resource, ScalableDimension=TABLE_W)  # fmt: skip


def test_pages(ddb: Any, aas: Any) -> None:
    t = create(ddb)
    register(aas, f"table/{t}", TABLE_R, MinCapacity=1, MaxCapacity=10)
    register(aas, f"table/{t}", TABLE_W, MinCapacity=1, MaxCapacity=10)
    ids = [f"table/{t}"]
    first = aas.describe_scalable_targets(ServiceNamespace="dynamodb", ResourceIds=ids, MaxResults=1)
    second = aas.describe_scalable_targets(ServiceNamespace="dynamodb", ResourceIds=ids, MaxResults=1,
                                           NextToken=first["NextToken"])  # fmt: skip
    assert [x["ScalableDimension"] for x in first["ScalableTargets"] + second["ScalableTargets"]] == [TABLE_R, TABLE_W]
    assert "NextToken" not in second
    assert_error("InvalidNextTokenException", None, aas.describe_scalable_targets, ServiceNamespace="dynamodb",
                 NextToken="bogus")  # fmt: skip
    # another service's namespace holds nothing here
    assert aas.describe_scalable_targets(ServiceNamespace="ecs")["ScalableTargets"] == []


def test_the_model_checks_shapes_and_the_wire_is_json_1_1(url: str) -> None:
    """botocore's application-autoscaling model validates requests, as DynamoDB's does (a raw
    request, which boto3 would refuse before sending); answers are application/x-amz-json-1.1."""
    import boto3
    from botocore.config import Config

    raw = boto3.client("application-autoscaling", endpoint_url=url, region_name="us-east-1", aws_access_key_id="AKIDTEST",
                       aws_secret_access_key="secret", config=Config(parameter_validation=False))  # fmt: skip
    assert_error("ValidationException",
                 "1 validation error detected: Value null at 'scalableDimension' failed to satisfy constraint: "
                 "Member must not be null",
                 raw.register_scalable_target, ServiceNamespace="dynamodb", ResourceId="table/x")  # fmt: skip
    out = raw.describe_scalable_targets(ServiceNamespace="dynamodb", ResourceIds=["table/none"])
    assert out["ResponseMetadata"]["HTTPHeaders"]["content-type"] == "application/x-amz-json-1.1"


def test_the_readme_example_runs(url: str, tmp_path: Any) -> None:
    """README's "Auto scaling" example, as written, against a fresh server."""
    import re
    import subprocess
    import sys
    from pathlib import Path

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    section = readme.split("\n## Auto scaling\n", 1)[1].split("\n## ", 1)[0]
    [example] = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    script = tmp_path / "autoscaling_example.py"
    script.write_text(example.replace("http://127.0.0.1:8000", url))
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "5"
