"""UpdateTable GlobalSecondaryIndexUpdates: creating a GSI on a populated table (backfill,
CREATING then ACTIVE), deleting one, throughput updates, and the errors of each."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import pytest

from tests import test_indexes as base
from tests.helpers import assert_error, assert_validation
from tests.test_indexes import PARAM, N, S, ad, gsi, qv, scan_all

create = base.create  # a fixture shared with test_indexes.py (raw is conftest's)

PT = {"ReadCapacityUnits": 2, "WriteCapacityUnits": 2}


def wait_active(ddb: Any, table: str, timeout: float = 120) -> dict[str, Any]:
    """Poll until every GSI is ACTIVE: the backfill runs in the background, in steps, and a
    busy machine may take far longer than an idle one (a generous deadline costs nothing)."""
    deadline = time.time() + timeout
    while True:
        desc = ddb.describe_table(TableName=table)["Table"]
        if all(g["IndexStatus"] == "ACTIVE" for g in desc.get("GlobalSecondaryIndexes", [])):
            return desc
        assert time.time() < deadline, desc
        time.sleep(0.02)


def create_gsi(ddb: Any, table: str, name: str, hash_name: str, kind: str = "ALL", defs: dict[str, str] | None = None,
               **extra: Any) -> dict[str, Any]:
    c = {**gsi(name, hash_name, None, kind), **extra}
    return ddb.update_table(TableName=table, AttributeDefinitions=ad(**(defs or {hash_name: "S"})),
                            GlobalSecondaryIndexUpdates=[{"Create": c}])["TableDescription"]


def test_create_gsi_on_populated_table(ddb: Any, create: Callable[..., str]) -> None:
    name = create()
    for i in range(2500):  # more than one backfill step
        item = {"pk": S(f"p{i}"), "sk": N(i)}
        if i % 3 == 0:
            item["c"] = S(f"c{i % 7}")
        if i == 4:
            item["c"] = N(1)  # an index key violation: left out of the index
        ddb.put_item(TableName=name, Item=item)
    resp = create_gsi(ddb, name, "by_c", "c", "KEYS_ONLY")
    assert resp["TableStatus"] == "UPDATING"
    g = resp["GlobalSecondaryIndexes"][0]
    assert (g["IndexStatus"], g["Backfilling"], g["ItemCount"]) == ("CREATING", False, 0)
    assert {"AttributeName": "c", "AttributeType": "S"} in resp["AttributeDefinitions"]
    desc = wait_active(ddb, name)
    g = desc["GlobalSecondaryIndexes"][0]
    assert "Backfilling" not in g and g["ItemCount"] == len(range(0, 2500, 3))
    assert desc["TableStatus"] == "ACTIVE"
    page = ddb.query(TableName=name, IndexName="by_c", KeyConditionExpression="c = :c", ExpressionAttributeValues=qv(c=S("c3")))
    assert sorted(int(i["sk"]["N"]) for i in page["Items"]) == [i for i in range(0, 2500, 3) if i % 7 == 3]
    # later writes are indexed too
    ddb.put_item(TableName=name, Item={"pk": S("new"), "sk": N(0), "c": S("c3")})
    assert ddb.query(TableName=name, IndexName="by_c", KeyConditionExpression="c = :c",
                     ExpressionAttributeValues=qv(c=S("c3")), Select="COUNT")["Count"] == page["Count"] + 1


def test_delete_gsi(ddb: Any, create: Callable[..., str]) -> None:
    name = create(defs={"a": "S", "b": "S"}, gsis=[gsi("by_a", "a"), gsi("by_b", "b")])
    ddb.put_item(TableName=name, Item={"pk": S("x"), "sk": N(1), "a": S("a"), "b": S("b")})
    resp = ddb.update_table(TableName=name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "by_a"}}])["TableDescription"]
    assert resp["TableStatus"] == "UPDATING"
    assert [(g["IndexName"], g["IndexStatus"]) for g in resp["GlobalSecondaryIndexes"]] == [("by_b", "ACTIVE"), ("by_a", "DELETING")]
    desc = ddb.describe_table(TableName=name)["Table"]
    assert [g["IndexName"] for g in desc["GlobalSecondaryIndexes"]] == ["by_b"]
    assert [a["AttributeName"] for a in desc["AttributeDefinitions"]] == ["pk", "sk", "b"]  # "a" pruned
    assert_validation("The table does not have the specified index: by_a", ddb.scan, TableName=name, IndexName="by_a")
    # the name can be used again, on an index that starts empty of the old entries
    create_gsi(ddb, name, "by_a", "b", "KEYS_ONLY", defs={"b": "S"})
    wait_active(ddb, name)
    assert scan_all(ddb, name, "by_a") == [{"pk": S("x"), "sk": N(1), "b": S("b")}]


def test_update_gsi_throughput(ddb: Any, create: Callable[..., str]) -> None:
    name = create(defs={"a": "S"}, BillingMode="PROVISIONED", ProvisionedThroughput=PT,
                  gsis=[{**gsi("by_a", "a"), "ProvisionedThroughput": PT}])
    new = {"ReadCapacityUnits": 5, "WriteCapacityUnits": 3}
    resp = ddb.update_table(TableName=name, GlobalSecondaryIndexUpdates=[
        {"Update": {"IndexName": "by_a", "ProvisionedThroughput": new}}])["TableDescription"]
    g = resp["GlobalSecondaryIndexes"][0]
    assert resp["TableStatus"] == "ACTIVE" and g["IndexStatus"] == "UPDATING"
    assert g["ProvisionedThroughput"]["ReadCapacityUnits"] == 2  # the response shows the former values
    g = ddb.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"][0]
    assert (g["ProvisionedThroughput"]["ReadCapacityUnits"], g["ProvisionedThroughput"]["WriteCapacityUnits"]) == (5, 3)
    assert "LastIncreaseDateTime" in g["ProvisionedThroughput"]
    assert_validation(
        "The provisioned throughput for the index by_a will not change. The requested value equals the current "
        "value. Current ReadCapacityUnits provisioned for index by_a: 5. Requested ReadCapacityUnits: 5. Current "
        "WriteCapacityUnits provisioned for index by_a: 3. Requested WriteCapacityUnits: 3. Refer to the Amazon "
        "DynamoDB Developer Guide for current limits and how to request higher limits.",
        ddb.update_table, TableName=name,
        GlobalSecondaryIndexUpdates=[{"Update": {"IndexName": "by_a", "ProvisionedThroughput": new}}],
    )


def test_billing_switches_and_gsis(ddb: Any, create: Callable[..., str]) -> None:
    name = create(defs={"a": "S"}, gsis=[gsi("by_a", "a")])
    assert_validation(
        PARAM + "The only Updates for index: by_a when TableThroughputMode is PAY_PER_REQUEST can be to "
        "OnDemandThroughput, WarmThroughput",
        ddb.update_table, TableName=name,
        GlobalSecondaryIndexUpdates=[{"Update": {"IndexName": "by_a", "ProvisionedThroughput": PT}}],
    )
    assert_validation(PARAM + "ProvisionedThroughput must be specified for index: by_a",
                      ddb.update_table, TableName=name, BillingMode="PROVISIONED", ProvisionedThroughput=PT)
    ddb.update_table(TableName=name, BillingMode="PROVISIONED", ProvisionedThroughput=PT,
                     GlobalSecondaryIndexUpdates=[{"Update": {"IndexName": "by_a", "ProvisionedThroughput": PT}}])
    g = ddb.describe_table(TableName=name)["Table"]["GlobalSecondaryIndexes"][0]
    assert g["ProvisionedThroughput"]["ReadCapacityUnits"] == 2
    assert_validation(PARAM + "Both ReadCapacityUnits and WriteCapacityUnits must be specified for index: by_b",
                      ddb.update_table, TableName=name, AttributeDefinitions=ad(b="S"),
                      GlobalSecondaryIndexUpdates=[{"Create": gsi("by_b", "b")}])


def test_update_errors(raw: Any, ddb: Any, create: Callable[..., str]) -> None:
    name = create(defs={"a": "S"}, gsis=[gsi("by_a", "a")])
    new_b = {"Create": gsi("by_b", "b")}
    upd = raw.update_table
    assert_validation(PARAM + "One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, "
                      "GlobalSecondaryIndexUpdate.Delete must not be null",
                      upd, TableName=name, GlobalSecondaryIndexUpdates=[{}])
    assert_validation(PARAM + "Only one global secondary index action is allowed per GlobalSecondaryIndexUpdate object",
                      upd, TableName=name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "by_a"},
                                                                          "Update": {"IndexName": "by_a"}}])
    assert_validation(PARAM + "Only one global secondary index update per index is allowed simultaneously. Index: by_a",
                      upd, TableName=name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "by_a"}},
                                                                         {"Create": gsi("by_a", "a")}])
    assert_validation(PARAM + "AttributeDefinitions is not specified for index: by_b",
                      upd, TableName=name, GlobalSecondaryIndexUpdates=[new_b])
    assert_validation(PARAM + "Some index key attributes are not defined in AttributeDefinitions. Keys: [b], "
                      "AttributeDefinitions: [c]",
                      upd, TableName=name, AttributeDefinitions=ad(c="S"), GlobalSecondaryIndexUpdates=[new_b])
    assert_validation("DeletionProtection modification must be the only operation in the request",
                      upd, TableName=name, AttributeDefinitions=ad(b="S"), DeletionProtectionEnabled=True,
                      GlobalSecondaryIndexUpdates=[new_b])
    assert_error("ResourceNotFoundException", f"Requested resource not found: Index nope for table {name}",
                 upd, TableName=name, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "nope"}}])
    assert_error("LimitExceededException",
                 "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table",
                 upd, TableName=name, AttributeDefinitions=ad(b="S", c="S"),
                 GlobalSecondaryIndexUpdates=[new_b, {"Create": gsi("by_c", "c")}])
    assert_validation(PARAM + "List of GlobalSecondaryIndexUpdates is empty",
                      upd, TableName=name, GlobalSecondaryIndexUpdates=[], DeletionProtectionEnabled=False)
    desc = ddb.describe_table(TableName=name)["Table"]  # nothing was applied by the refused requests
    assert [g["IndexName"] for g in desc["GlobalSecondaryIndexes"]] == ["by_a"]
    assert desc["DeletionProtectionEnabled"] is False


def test_twenty_first_gsi_via_update(ddb: Any, create: Callable[..., str]) -> None:
    name = create(defs={"a": "S"}, gsis=[gsi(f"gsi{i:02}", "a") for i in range(20)])
    assert_error("LimitExceededException",
                 "Subscriber limit exceeded: Number of global secondary indexes exceeds per-table limit of 20",
                 ddb.update_table, TableName=name, AttributeDefinitions=ad(a="S"),
                 GlobalSecondaryIndexUpdates=[{"Create": gsi("gsi20", "a")}])


@pytest.mark.parametrize("table_class", [False, True])
def test_create_cannot_share_the_request(raw: Any, create: Callable[..., str], table_class: bool) -> None:
    name = create(BillingMode="PROVISIONED", ProvisionedThroughput=PT)
    c = {**gsi("by_b", "b"), "ProvisionedThroughput": PT}
    if table_class:
        assert_validation("TableClass modification must be the only operation in the request", raw.update_table,
                          TableName=name, AttributeDefinitions=ad(b="S"), TableClass="STANDARD",
                          GlobalSecondaryIndexUpdates=[{"Create": c}])
    else:
        assert_validation("You cannot create or delete index while updating table IOPS", raw.update_table,
                          TableName=name, AttributeDefinitions=ad(b="S"),
                          ProvisionedThroughput={"ReadCapacityUnits": 3, "WriteCapacityUnits": 3},
                          GlobalSecondaryIndexUpdates=[{"Create": c}])
