"""Application Auto Scaling from the tests: write (or read) auto scaling of a table and its GSIs
registered through dynemu's AnyScaleFrontendService endpoint, as Terraform and the CDK do."""

from __future__ import annotations

from typing import Any

from tests.conftest import make_client

METRIC = {"Read": "DynamoDBReadCapacityUtilization", "Write": "DynamoDBWriteCapacityUtilization"}


def aas_client(url: str, region: str = "us-east-1", key: str = "AKIDTEST") -> Any:
    return make_client(url, region, key, service="application-autoscaling")


def autoscale(
    aas: Any, table: str, *, indexes: tuple[str, ...] = (), kind: str = "Write", lo: int = 1, hi: int = 10,
    target: float = 70.0, **conf: Any,
) -> None:
    """A target and a target tracking policy on the table's ``kind`` capacity and each index's."""
    for index in (None, *indexes):
        resource = f"table/{table}" if index is None else f"table/{table}/index/{index}"
        dim = f"dynamodb:{'table' if index is None else 'index'}:{kind}CapacityUnits"
        aas.register_scalable_target(ServiceNamespace="dynamodb", ResourceId=resource, ScalableDimension=dim,
                                     MinCapacity=lo, MaxCapacity=hi)  # fmt: skip
        aas.put_scaling_policy(
            PolicyName=f"{kind.lower()}-{resource}".replace("/", "-"), ServiceNamespace="dynamodb", ResourceId=resource,
            ScalableDimension=dim, PolicyType="TargetTrackingScaling",
            TargetTrackingScalingPolicyConfiguration={
                "TargetValue": target, "PredefinedMetricSpecification": {"PredefinedMetricType": METRIC[kind]}, **conf},
        )  # fmt: skip


def create_table(
    client: Any, name: str, *, gsi: bool = True, on_demand: bool = False, units: int = 5, projection: str = "ALL"
) -> str:
    """A table keyed on ``pk``, provisioned at ``units`` (or on demand), with a GSI ``by-g`` on ``g``."""
    tp = {"ReadCapacityUnits": units, "WriteCapacityUnits": units}
    kw: dict[str, Any] = dict(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                              AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])  # fmt: skip
    kw.update(BillingMode="PAY_PER_REQUEST") if on_demand else kw.update(ProvisionedThroughput=tp)
    if gsi:
        kw["AttributeDefinitions"].append({"AttributeName": "g", "AttributeType": "S"})
        ix: dict[str, Any] = {"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                              "Projection": {"ProjectionType": projection}}  # fmt: skip
        if not on_demand:
            ix["ProvisionedThroughput"] = tp
        kw["GlobalSecondaryIndexes"] = [ix]
    client.create_table(**kw)
    return name
