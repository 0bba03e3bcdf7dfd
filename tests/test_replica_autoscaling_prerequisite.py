"""The replica prerequisite of provisioned tables (engine/global_tables/rules.py): write auto
scaling -- an Application Auto Scaling target and a policy -- on the table and on every GSI
before a replica is added; afterwards a GSI update of the global table needs every GSI's
(observed service answers (aws-controllers-k8s ack-api-quirks, DynamoDB, 2026-10-09))."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from dynemu import errors
from dynemu.testing import DynemuServer
from tests.aas_helpers import aas_client, autoscale, create_table
from tests.conftest import make_client
from tests.helpers import assert_validation

_names = itertools.count()
ADD = [{"Create": {"RegionName": "eu-west-1"}}]


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with DynemuServer(clock="virtual") as u:
        yield u


def create(ddb: Any, *, gsi: bool = True, on_demand: bool = False) -> str:
    return create_table(ddb, f"prereq-{next(_names)}", gsi=gsi, on_demand=on_demand, projection="KEYS_ONLY")


def test_a_provisioned_table_needs_write_auto_scaling_on_itself_and_every_gsi(url: str) -> None:
    ddb, aas = make_client(url), aas_client(url)
    t = create(ddb)
    assert_validation(errors.MSG_TABLE_WRITE_NOT_AUTOSCALED, ddb.update_table, TableName=t, ReplicaUpdates=ADD)
    assert errors.MSG_TABLE_WRITE_NOT_AUTOSCALED == "Table write capacity should either be Pay-Per-Request or AutoScaled."
    # read auto scaling, or a write target without a policy, is not enough
    autoscale(aas, t, kind="Read")
    aas.register_scalable_target(ServiceNamespace="dynamodb", ResourceId=f"table/{t}",
                                 ScalableDimension="dynamodb:table:WriteCapacityUnits", MinCapacity=1, MaxCapacity=9)  # fmt: skip
    assert_validation(errors.MSG_TABLE_WRITE_NOT_AUTOSCALED, ddb.update_table, TableName=t, ReplicaUpdates=ADD)
    autoscale(aas, t)  # the table's writes: the GSI's are still missing
    assert_validation("GSI write capacity should either be Pay-Per-Request or AutoScaled.", ddb.update_table,
                      TableName=t, ReplicaUpdates=ADD)  # fmt: skip
    autoscale(aas, t, indexes=("by-g",))
    ddb.update_table(TableName=t, ReplicaUpdates=ADD)
    assert [r["RegionName"] for r in ddb.describe_table(TableName=t)["Table"]["Replicas"]] == ["eu-west-1"]
    # the write targets and policies were copied into the replica's Region
    eu = aas_client(url, "eu-west-1")
    got = eu.describe_scalable_targets(ServiceNamespace="dynamodb", ResourceIds=[f"table/{t}", f"table/{t}/index/by-g"])
    assert sorted((x["ResourceId"], x["ScalableDimension"]) for x in got["ScalableTargets"]) == [
        (f"table/{t}", "dynamodb:table:WriteCapacityUnits"), (f"table/{t}/index/by-g", "dynamodb:index:WriteCapacityUnits")]
    assert len(eu.describe_scaling_policies(ServiceNamespace="dynamodb", ResourceId=f"table/{t}")["ScalingPolicies"]) == 1


def test_an_on_demand_table_needs_none(url: str) -> None:
    ddb = make_client(url)
    t = create(ddb, on_demand=True)
    ddb.update_table(TableName=t, ReplicaUpdates=ADD)
    assert [r["RegionName"] for r in ddb.describe_table(TableName=t)["Table"]["Replicas"]] == ["eu-west-1"]


def test_then_a_gsi_update_needs_every_gsi_auto_scaled(url: str) -> None:
    ddb, aas = make_client(url), aas_client(url)
    t = create(ddb)
    autoscale(aas, t, indexes=("by-g",))
    ddb.update_table(TableName=t, ReplicaUpdates=ADD)
    aas.deregister_scalable_target(ServiceNamespace="dynamodb", ResourceId=f"table/{t}/index/by-g",
                                   ScalableDimension="dynamodb:index:WriteCapacityUnits")  # fmt: skip
    new_gsi = {"Create": {"IndexName": "by-h", "KeySchema": [{"AttributeName": "h", "KeyType": "HASH"}],
                          "Projection": {"ProjectionType": "KEYS_ONLY"},
                          "ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}}  # fmt: skip
    defs = [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"},
            {"AttributeName": "h", "AttributeType": "S"}]  # fmt: skip
    assert_validation(errors.MSG_GSI_WRITE_NOT_AUTOSCALED, ddb.update_table, TableName=t, AttributeDefinitions=defs,
                      GlobalSecondaryIndexUpdates=[new_gsi])  # fmt: skip
    autoscale(aas, t, indexes=("by-g",))
    ddb.update_table(TableName=t, AttributeDefinitions=defs, GlobalSecondaryIndexUpdates=[new_gsi])
    names = {ix["IndexName"] for ix in ddb.describe_table(TableName=t)["Table"]["GlobalSecondaryIndexes"]}
    assert names == {"by-g", "by-h"}
    # a regional provisioned table's GSI updates need nothing
    r = create(ddb)
    ddb.update_table(TableName=r, AttributeDefinitions=defs, GlobalSecondaryIndexUpdates=[new_gsi])
