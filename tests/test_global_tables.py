"""Global tables over HTTP: boto3 clients in several regions against one server on a virtual
clock, so replication lag, last-writer-wins and MRSC conflicts are deterministic."""

from __future__ import annotations

import itertools
import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from dynemu import errors
from dynemu.api.admin.app import NAMESPACES
from dynemu.testing import DynemuServer
from tests.aas_helpers import aas_client, autoscale
from tests.conftest import make_client
from tests.helpers import N, S, assert_error, assert_validation

_names = itertools.count()
LAG = 1.0  # --replication-lag-ms default, in seconds


class Regions:
    """One server, a client per region, the virtual clock and the admin view."""

    def __init__(self, url: str, clock: Any) -> None:
        self.url = url
        self.clock = clock
        self.clients: dict[str, Any] = {}

    def __getitem__(self, region: str) -> Any:
        if region not in self.clients:
            self.clients[region] = make_client(self.url, region)
        return self.clients[region]

    def advance(self, seconds: float) -> None:
        self.clock.advance(seconds)

    def admin(self) -> dict[str, Any]:
        with urllib.request.urlopen(self.url + "/_dynemu/global-tables") as resp:
            out: dict[str, Any] = json.loads(resp.read())
            return out

    def view(self, table: str) -> dict[str, Any]:
        return next(g for g in self.admin()["global_tables"] if g["table"] == table)

    def create(self, region: str, *, gsi: bool = False, **extra: Any) -> str:
        name = f"glob-{next(_names)}"
        kw: dict[str, Any] = dict(
            TableName=name,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
            BillingMode="PAY_PER_REQUEST",
        )
        if gsi:
            kw["AttributeDefinitions"].append({"AttributeName": "g", "AttributeType": "S"})
            kw["GlobalSecondaryIndexes"] = [{
                "IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"},
            }]  # fmt: skip
        kw.update(extra)
        self[region].create_table(**kw)
        return name

    def add_replica(self, region: str, table: str, to: str, **create: Any) -> dict[str, Any]:
        out: dict[str, Any] = self[region].update_table(
            TableName=table, ReplicaUpdates=[{"Create": {"RegionName": to, **create}}]
        )["TableDescription"]
        return out

    def get(self, region: str, table: str, pk: str) -> dict[str, Any] | None:
        item: dict[str, Any] | None = self[region].get_item(
            TableName=table, Key={"pk": S(pk)}, ConsistentRead=True
        ).get("Item")
        return item


@pytest.fixture(scope="module")
def regions() -> Iterator[Regions]:
    server = DynemuServer(clock="virtual")
    url = server.start()
    try:
        yield Regions(url, server.app[NAMESPACES].clock)
    finally:
        server.stop()


def put(r: Regions, region: str, table: str, pk: str, v: str) -> None:
    r[region].put_item(TableName=table, Item={"pk": S(pk), "v": S(v)})


# --- replicas: create, describe, backfill, delete ---------------------------------------------------


def test_replica_create_backfills_and_both_describe_it(regions: Regions) -> None:
    t = regions.create("us-east-1", gsi=True)
    for i in range(3):
        regions["us-east-1"].put_item(TableName=t, Item={"pk": S(f"k{i}"), "g": S("G"), "n": N(i)})
    desc = regions.add_replica("us-east-1", t, "eu-west-1", TableClassOverride="STANDARD_INFREQUENT_ACCESS")
    assert desc["TableStatus"] == "UPDATING"
    assert desc["Replicas"] == [{
        "RegionName": "eu-west-1", "ReplicaStatus": "CREATING",
        "ReplicaTableClassSummary": {"TableClass": "STANDARD_INFREQUENT_ACCESS"},
        "GlobalSecondaryIndexes": [{"IndexName": "by-g"}],
        "WarmThroughput": {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"},
        "GlobalTableSettingsReplicationMode": "ENABLED_WITH_OVERRIDES",
    }]  # fmt: skip
    assert desc["GlobalTableSettingsReplicationMode"] == "ENABLED_WITH_OVERRIDES"
    assert "MultiRegionConsistency" not in desc  # shown only when STRONG
    # a table without a stream gets a NEW_AND_OLD_IMAGES one
    assert desc["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}
    home = regions["us-east-1"].describe_table(TableName=t)["Table"]
    assert home["TableStatus"] == "ACTIVE"
    assert home["GlobalTableVersion"] == "2019.11.21"
    assert [(x["RegionName"], x["ReplicaStatus"]) for x in home["Replicas"]] == [("eu-west-1", "ACTIVE")]
    away = regions["eu-west-1"].describe_table(TableName=t)["Table"]
    assert away["KeySchema"] == home["KeySchema"]
    assert [g["IndexName"] for g in away["GlobalSecondaryIndexes"]] == ["by-g"]
    assert away["TableArn"] == home["TableArn"].replace("us-east-1", "eu-west-1")
    assert away["TableClassSummary"] == {"TableClass": "STANDARD_INFREQUENT_ACCESS"}
    assert away["StreamSpecification"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
    assert [(x["RegionName"], x["ReplicaStatus"]) for x in away["Replicas"]] == [("us-east-1", "ACTIVE")]
    assert away["ItemCount"] == 3
    # backfilled through the write path: the replica's GSI has the items too
    q = regions["eu-west-1"].query(TableName=t, IndexName="by-g", KeyConditionExpression="g = :g",
                                   ExpressionAttributeValues={":g": S("G")})  # fmt: skip
    assert sorted(i["pk"]["S"] for i in q["Items"]) == ["k0", "k1", "k2"]
    assert regions["eu-west-1"].list_tables()["TableNames"].count(t) == 1


def test_existing_stream_is_kept_and_cannot_be_disabled(regions: Regions) -> None:
    t = regions.create("us-east-1", StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    desc = regions.add_replica("us-east-1", t, "eu-west-1")
    assert desc["StreamSpecification"] == {"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}
    for region in ("us-east-1", "eu-west-1"):
        assert_validation(
            "One or more parameter values were invalid: " + errors.MSG_STREAM_DISABLE_REPLICA,
            regions[region].update_table, TableName=t, StreamSpecification={"StreamEnabled": False},
        )


def test_replica_delete_leaves_a_regional_table(regions: Regions) -> None:
    t = regions.create("us-east-1")
    regions.add_replica("us-east-1", t, "eu-west-1")
    put(regions, "us-east-1", t, "a", "1")
    desc = regions["us-east-1"].update_table(TableName=t, ReplicaUpdates=[{"Delete": {"RegionName": "eu-west-1"}}])
    assert desc["TableDescription"]["Replicas"] == [{"RegionName": "eu-west-1", "ReplicaStatus": "DELETING"}]
    assert t not in regions["eu-west-1"].list_tables()["TableNames"]
    home = regions["us-east-1"].describe_table(TableName=t)["Table"]
    assert "Replicas" not in home and "GlobalTableVersion" not in home
    regions.advance(LAG)  # the pending change has nowhere to go
    assert t not in regions["eu-west-1"].list_tables()["TableNames"]
    assert regions.get("us-east-1", t, "a") == {"pk": S("a"), "v": S("1")}


def test_delete_table_of_one_replica_keeps_the_others(regions: Regions) -> None:
    t = regions.create("us-east-1")
    regions.add_replica("us-east-1", t, "eu-west-1")
    regions.add_replica("us-east-1", t, "ap-south-1")
    regions["ap-south-1"].delete_table(TableName=t)
    home = regions["us-east-1"].describe_table(TableName=t)["Table"]
    assert [x["RegionName"] for x in home["Replicas"]] == ["eu-west-1"]
    put(regions, "eu-west-1", t, "k", "v")
    regions.advance(LAG)
    assert regions.get("us-east-1", t, "k") == {"pk": S("k"), "v": S("v")}


# --- MREC replication ------------------------------------------------------------------------------


def test_a_write_reaches_the_other_region_after_the_lag(regions: Regions) -> None:
    t = regions.create("us-east-1")
    regions.add_replica("us-east-1", t, "eu-west-1")
    put(regions, "us-east-1", t, "k", "1")
    assert regions.get("eu-west-1", t, "k") is None  # even a strongly consistent read: not yet there
    regions.advance(LAG - 0.001)
    assert regions.get("eu-west-1", t, "k") is None
    regions.advance(0.001)
    assert regions.get("eu-west-1", t, "k") == {"pk": S("k"), "v": S("1")}
    # the other direction, an update, then a delete
    regions["eu-west-1"].update_item(TableName=t, Key={"pk": S("k")}, UpdateExpression="SET w = :w",
                                     ExpressionAttributeValues={":w": N(2)})  # fmt: skip
    assert regions.get("us-east-1", t, "k") == {"pk": S("k"), "v": S("1")}
    regions.advance(LAG)
    assert regions.get("us-east-1", t, "k") == {"pk": S("k"), "v": S("1"), "w": N(2)}
    regions["us-east-1"].delete_item(TableName=t, Key={"pk": S("k")})
    regions.advance(LAG)
    assert regions.get("eu-west-1", t, "k") is None
    view = regions.view(t)
    assert view["backlog"] == []
    assert {(a["from"], a["to"]): a["count"] for a in view["applied"]} == {
        ("us-east-1", "eu-west-1"): 2, ("eu-west-1", "us-east-1"): 1,
    }  # fmt: skip


def test_last_writer_wins_on_every_replica(regions: Regions) -> None:
    t = regions.create("us-east-1")
    regions.add_replica("us-east-1", t, "eu-west-1")
    put(regions, "eu-west-1", t, "k", "first")
    regions.advance(0.25)
    put(regions, "us-east-1", t, "k", "second")  # later: wins everywhere
    regions.advance(2 * LAG)
    assert regions.get("us-east-1", t, "k") == {"pk": S("k"), "v": S("second")}
    assert regions.get("eu-west-1", t, "k") == {"pk": S("k"), "v": S("second")}
    assert regions.view(t)["conflicts_resolved"] == 1
    # the same instant: the greater region name wins (dynemu's tie-break)
    put(regions, "eu-west-1", t, "tie", "eu")
    put(regions, "us-east-1", t, "tie", "us")
    regions.advance(LAG)
    assert regions.get("us-east-1", t, "tie") == {"pk": S("tie"), "v": S("us")}
    assert regions.get("eu-west-1", t, "tie") == {"pk": S("tie"), "v": S("us")}
    assert regions.view(t)["conflicts_resolved"] == 2


def test_each_region_streams_the_replicated_writes(regions: Regions) -> None:
    t = regions.create("us-east-1")
    regions.add_replica("us-east-1", t, "eu-west-1")
    put(regions, "us-east-1", t, "k", "1")
    regions.advance(LAG)

    def records(region: str) -> list[dict[str, Any]]:
        streams = make_client(regions.url, region, service="dynamodbstreams")
        arn = regions[region].describe_table(TableName=t)["Table"]["LatestStreamArn"]
        shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
        it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON")
        out: list[dict[str, Any]] = streams.get_records(ShardIterator=it["ShardIterator"])["Records"]
        return out

    for region in ("us-east-1", "eu-west-1"):
        (rec,) = records(region)
        assert rec["eventName"] == "INSERT"
        assert rec["awsRegion"] == region
        assert rec["dynamodb"]["NewImage"] == {"pk": S("k"), "v": S("1")}


def test_a_transaction_is_replicated_item_by_item(regions: Regions) -> None:
    t = regions.create("us-east-1")
    regions.add_replica("us-east-1", t, "eu-west-1")
    regions["us-east-1"].transact_write_items(TransactItems=[
        {"Put": {"TableName": t, "Item": {"pk": S("a"), "v": S("1")}}},
        {"Put": {"TableName": t, "Item": {"pk": S("b"), "v": S("2")}}},
    ])  # fmt: skip
    assert regions.view(t)["backlog"] == [{"from": "us-east-1", "to": "eu-west-1", "pending": 2}]
    regions.advance(LAG)
    assert regions.get("eu-west-1", t, "a") == {"pk": S("a"), "v": S("1")}
    assert regions.get("eu-west-1", t, "b") == {"pk": S("b"), "v": S("2")}


def test_ttl_deletes_replicate(regions: Regions) -> None:
    t = regions.create("us-east-1")
    regions.add_replica("us-east-1", t, "eu-west-1")
    regions["us-east-1"].update_time_to_live(TableName=t, TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"})
    now = regions.clock.now()
    regions["us-east-1"].put_item(TableName=t, Item={"pk": S("old"), "exp": N(int(now) - 10)})
    regions.advance(LAG)
    assert regions.get("eu-west-1", t, "old") is not None  # replicated; eu-west-1 sweeps nothing itself
    regions.advance(LAG)  # the sweep in us-east-1 deletes it ...
    assert regions.get("us-east-1", t, "old") is None
    regions.advance(LAG)  # ... and the delete reaches eu-west-1
    assert regions.get("eu-west-1", t, "old") is None


# --- errors -----------------------------------------------------------------------------------------


def test_replica_update_errors(regions: Regions) -> None:
    t = regions.create("us-east-1")
    ddb = regions["us-east-1"]
    assert_validation(errors.MSG_LOCAL_REGION_REPLICA, ddb.update_table, TableName=t,
                      ReplicaUpdates=[{"Create": {"RegionName": "us-east-1"}}])  # fmt: skip
    assert_validation(errors.msg_replica_not_found(["eu-west-1"]), ddb.update_table, TableName=t,
                      ReplicaUpdates=[{"Delete": {"RegionName": "eu-west-1"}}])  # fmt: skip
    regions["eu-west-3"].create_table(
        TableName=t, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
    )  # fmt: skip
    assert_validation(errors.msg_replica_exists(t), ddb.update_table, TableName=t,
                      ReplicaUpdates=[{"Create": {"RegionName": "eu-west-3"}}])  # fmt: skip
    assert_error("ResourceNotFoundException", None, ddb.update_table, TableName="glob-missing",
                 ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])  # fmt: skip


def test_legacy_operations(regions: Regions) -> None:
    ddb = regions["us-east-1"]
    assert_validation(
        "One or more parameter values were invalid: " + errors.MSG_LEGACY_VERSION,
        ddb.create_global_table, GlobalTableName="legacy", ReplicationGroup=[{"RegionName": "us-east-1"}],
    )
    assert ddb.list_global_tables()["GlobalTables"] == []
    assert_error("GlobalTableNotFoundException", "Global table not found: Global table with name: 'legacy' does not exist.",
                 ddb.describe_global_table, GlobalTableName="legacy")  # fmt: skip


# --- capacity ------------------------------------------------------------------------------------------


def test_replicated_writes_consume_the_replicas_capacity() -> None:
    with DynemuServer(clock="virtual", capacity_model="uniform", throttling=True) as url:
        from tests.test_throttling import Virtual

        v = Virtual(url)
        r = Regions(url, None)
        t = v.create("glob-capacity", rcu=5, wcu=5)
        autoscale(aas_client(url), t, lo=5, hi=5)  # a provisioned table's replica needs write auto scaling
        r.add_replica("us-east-1", t, "eu-west-1")
        put(r, "us-east-1", t, "k", "x")
        v.advance(LAG - 0.01)
        # a 100 KB write in eu-west-1 spends 20 s of its 5 WCU just before the change is due
        r["eu-west-1"].put_item(TableName=t, Item={"pk": S("big"), "v": S("x" * 100 * 1024)})
        v.advance(0.01)
        assert r.get("eu-west-1", t, "k") is None  # throttled on the replica: still in the backlog
        assert {"from": "us-east-1", "to": "eu-west-1", "pending": 1} in r.view(t)["backlog"]
        v.advance(25)
        assert r.get("eu-west-1", t, "k") == {"pk": S("k"), "v": S("x")}
        assert r.view(t)["backlog"] == []
        assert r.get("us-east-1", t, "big") is not None  # and the big one reached us-east-1


# --- MRSC ------------------------------------------------------------------------------------------


def strong(r: Regions, table: str, **more: Any) -> dict[str, Any]:
    out: dict[str, Any] = r["us-east-2"].update_table(
        TableName=table, ReplicaUpdates=[{"Create": {"RegionName": "us-east-1"}}],
        GlobalTableWitnessUpdates=[{"Create": {"RegionName": "us-west-2"}}], MultiRegionConsistency="STRONG", **more,
    )["TableDescription"]  # fmt: skip
    return out


def test_mrsc_reads_see_the_latest_write_and_conflicts_are_refused(regions: Regions) -> None:
    t = regions.create("us-east-2")
    desc = strong(regions, t)
    assert desc["MultiRegionConsistency"] == "STRONG"
    assert desc["GlobalTableWitnesses"] == [{"RegionName": "us-west-2", "WitnessStatus": "ACTIVE"}]
    put(regions, "us-east-2", t, "k", "1")
    assert regions.get("us-east-1", t, "k") == {"pk": S("k"), "v": S("1")}  # no lag
    err = pytest.raises(ClientError, put, regions, "us-east-1", t, "k", "2").value
    assert err.response["Error"] == {"Code": "ReplicatedWriteConflictException", "Message": errors.MSG_REPLICATED_WRITE_CONFLICT}
    put(regions, "us-east-2", t, "k", "3")  # the same region may write again at once
    regions.advance(0.1)  # past --mrsc-conflict-window-ms (50)
    put(regions, "us-east-1", t, "k", "4")
    assert regions.get("us-east-2", t, "k") == {"pk": S("k"), "v": S("4")}
    assert_validation(errors.MSG_MRSC_TRANSACTIONS, regions["us-east-1"].transact_write_items, TransactItems=[
        {"Put": {"TableName": t, "Item": {"pk": S("t"), "v": S("1")}}},
    ])  # fmt: skip
    # the refusal is counted as a refusal, not as a conflict resolved (issue 43)
    assert (regions.view(t)["writes_refused"], regions.view(t)["conflicts_resolved"]) == (1, 0)


def test_mrsc_constraints(regions: Regions) -> None:
    t = regions.create("us-east-2")
    ddb = regions["us-east-2"]
    assert_validation(errors.MSG_MRSC_REGION_COUNT, ddb.update_table, TableName=t, MultiRegionConsistency="STRONG",
                      ReplicaUpdates=[{"Create": {"RegionName": "us-east-1"}}])  # fmt: skip
    # us-west-1 offers no MRSC (the service accepts Regions of different sets, e.g. eu-west-1 with us-east-2)
    assert_validation(errors.msg_mrsc_regions(["us-west-1"]), ddb.update_table, TableName=t,
                      MultiRegionConsistency="STRONG", ReplicaUpdates=[{"Create": {"RegionName": "us-west-1"}}],
                      GlobalTableWitnessUpdates=[{"Create": {"RegionName": "us-west-2"}}])  # fmt: skip
    assert_validation(errors.MSG_WITNESS_IN_LOCAL_REGION, ddb.update_table, TableName=t,
                      MultiRegionConsistency="STRONG", ReplicaUpdates=[{"Create": {"RegionName": "us-east-1"}}],
                      GlobalTableWitnessUpdates=[{"Create": {"RegionName": "us-east-2"}}])  # fmt: skip
    assert_validation(errors.MSG_WITNESS_IN_REPLICA_REGION, ddb.update_table, TableName=t,
                      MultiRegionConsistency="STRONG", ReplicaUpdates=[{"Create": {"RegionName": "us-east-1"}}],
                      GlobalTableWitnessUpdates=[{"Create": {"RegionName": "us-east-1"}}])  # fmt: skip
    assert_validation(errors.MSG_REPLICA_UPDATES_ALONE, strong, regions, t, DeletionProtectionEnabled=True)
    put(regions, "us-east-2", t, "k", "1")
    assert_validation(errors.MSG_MRSC_NOT_EMPTY, strong, regions, t)
    # a witness needs STRONG; a witness alone changes nothing
    assert_validation(errors.MSG_WITNESS_WITHOUT_STRONG, ddb.update_table, TableName=t,
                      ReplicaUpdates=[{"Create": {"RegionName": "us-east-1"}}],
                      GlobalTableWitnessUpdates=[{"Create": {"RegionName": "us-west-2"}}])  # fmt: skip
    assert_validation(errors.MSG_NO_CHANGE, ddb.update_table, TableName=t,
                      GlobalTableWitnessUpdates=[{"Create": {"RegionName": "us-west-2"}}])  # fmt: skip
    assert t not in regions["us-east-1"].list_tables()["TableNames"]  # nothing was created


def test_mrsc_needs_a_table_without_lsi_and_ttl(regions: Regions) -> None:
    t = regions.create("us-east-2", LocalSecondaryIndexes=[{
        "IndexName": "by-pk", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                            {"AttributeName": "s", "KeyType": "RANGE"}],
        "Projection": {"ProjectionType": "KEYS_ONLY"},
    }], KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
       AttributeDefinitions=[{"AttributeName": a, "AttributeType": "S"} for a in ("pk", "sk", "s")])  # fmt: skip
    assert_validation(errors.MSG_MRSC_LSI, strong, regions, t)
    t = regions.create("us-east-2")
    regions["us-east-2"].update_time_to_live(TableName=t, TimeToLiveSpecification={"Enabled": True, "AttributeName": "e"})
    assert_validation(errors.MSG_MRSC_TTL, strong, regions, t)


def test_an_mrsc_group_is_frozen_until_it_is_dissolved_whole(regions: Regions) -> None:
    t = regions.create("us-east-2")
    strong(regions, t)
    ddb = regions["us-east-2"]
    assert_validation(errors.MSG_MRSC_ADD_REPLICA, ddb.update_table, TableName=t,
                      ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])  # fmt: skip
    assert_validation(errors.MSG_MRSC_DELETE_WITNESSES, ddb.update_table, TableName=t,
                      ReplicaUpdates=[{"Delete": {"RegionName": "us-east-1"}}])  # fmt: skip
    assert_validation(errors.MSG_CONSISTENCY_FIXED, ddb.update_table, TableName=t, MultiRegionConsistency="EVENTUAL",
                      ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])  # fmt: skip
    assert_validation(errors.MSG_MRSC_ONLY_CREATES, ddb.update_table, TableName=t, MultiRegionConsistency="STRONG",
                      ReplicaUpdates=[{"Delete": {"RegionName": "us-east-1"}}])  # fmt: skip
    assert_validation(errors.msg_witness_not_found(["eu-west-1"]), ddb.update_table, TableName=t,
                      ReplicaUpdates=[{"Delete": {"RegionName": "us-east-1"}}],
                      GlobalTableWitnessUpdates=[{"Delete": {"RegionName": "eu-west-1"}}])  # fmt: skip
    for region in ("us-east-2", "us-east-1"):
        assert_validation(errors.MSG_MRSC_DELETE_ONE, regions[region].delete_table, TableName=t)
    # unsupported on MRSC: TTL and transactions, reads included
    assert_validation(errors.MSG_MRSC_TTL, ddb.update_time_to_live, TableName=t,
                      TimeToLiveSpecification={"Enabled": True, "AttributeName": "e"})  # fmt: skip
    assert_validation(errors.MSG_MRSC_TRANSACTIONS, regions["us-east-1"].transact_get_items,
                      TransactItems=[{"Get": {"TableName": t, "Key": {"pk": S("k")}}}])  # fmt: skip
    # one request deleting every replica and the witness dissolves it
    ddb.update_table(TableName=t, ReplicaUpdates=[{"Delete": {"RegionName": "us-east-1"}}],
                     GlobalTableWitnessUpdates=[{"Delete": {"RegionName": "us-west-2"}}])  # fmt: skip
    home = ddb.describe_table(TableName=t)["Table"]
    for key in ("Replicas", "GlobalTableVersion", "MultiRegionConsistency", "GlobalTableWitnesses"):
        assert key not in home
    assert t not in regions["us-east-1"].list_tables()["TableNames"]


def test_mrsc_with_three_replicas(regions: Regions) -> None:
    t = regions.create("us-east-2")
    desc = regions["us-east-2"].update_table(
        TableName=t, MultiRegionConsistency="STRONG",
        ReplicaUpdates=[{"Create": {"RegionName": "us-east-1"}}, {"Create": {"RegionName": "us-west-2"}}],
    )["TableDescription"]  # fmt: skip
    assert sorted(r["RegionName"] for r in desc["Replicas"]) == ["us-east-1", "us-west-2"]
    for region in ("us-east-1", "us-east-2", "us-west-2"):  # every replica lists the two others
        d = regions[region].describe_table(TableName=t)["Table"]
        assert d["MultiRegionConsistency"] == "STRONG"
        assert sorted(r["RegionName"] for r in d["Replicas"]) == sorted({"us-east-1", "us-east-2", "us-west-2"} - {region})
    put(regions, "us-west-2", t, "k", "1")
    assert regions.get("us-east-1", t, "k") == {"pk": S("k"), "v": S("1")}
    assert_validation(errors.MSG_MRSC_DELETE_ONE, regions["us-east-2"].update_table, TableName=t,
                      ReplicaUpdates=[{"Delete": {"RegionName": "us-east-1"}}])  # fmt: skip


def test_mrec_takes_one_replica_action_per_request(regions: Regions) -> None:
    t = regions.create("us-east-1")
    ddb = regions["us-east-1"]
    assert_validation(errors.MSG_ONE_REPLICA_ACTION, ddb.update_table, TableName=t, ReplicaUpdates=[
        {"Create": {"RegionName": "eu-west-1"}}, {"Create": {"RegionName": "eu-west-2"}},
    ])  # fmt: skip
    assert_validation(errors.MSG_REPLICA_UPDATES_ALONE, ddb.update_table, TableName=t,
                      ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}], DeletionProtectionEnabled=True)
    regions.add_replica("us-east-1", t, "eu-west-1")
    assert_validation(errors.MSG_MRSC_REGION_COUNT, ddb.update_table, TableName=t, MultiRegionConsistency="STRONG",
                      ReplicaUpdates=[{"Create": {"RegionName": "us-east-2"}}])  # fmt: skip
    # three regions, each listing the other two (never itself)
    regions.add_replica("eu-west-1", t, "ap-south-1")
    for region in ("us-east-1", "eu-west-1", "ap-south-1"):
        d = regions[region].describe_table(TableName=t)["Table"]
        assert sorted(r["RegionName"] for r in d["Replicas"]) == sorted({"us-east-1", "eu-west-1", "ap-south-1"} - {region})
        assert all(r["ReplicaStatus"] == "ACTIVE" for r in d["Replicas"])


def test_a_gsi_added_on_one_replica_is_added_on_every_replica(regions: Regions) -> None:
    from tests.test_indexes_update import wait_active

    t = regions.create("us-east-1")
    regions.add_replica("us-east-1", t, "eu-west-1")
    put(regions, "us-east-1", t, "a", "x")
    regions.advance(LAG)
    regions["us-east-1"].update_table(
        TableName=t, AttributeDefinitions=[{"AttributeName": "v", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": {
            "IndexName": "by-v", "KeySchema": [{"AttributeName": "v", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }}],
    )  # fmt: skip
    away = wait_active(regions["eu-west-1"], t)
    assert [g["IndexName"] for g in away["GlobalSecondaryIndexes"]] == ["by-v"]
    wait_active(regions["us-east-1"], t)
    put(regions, "us-east-1", t, "b", "x")
    regions.advance(LAG)
    q = regions["eu-west-1"].query(TableName=t, IndexName="by-v", KeyConditionExpression="v = :v",
                                   ExpressionAttributeValues={":v": S("x")})  # fmt: skip
    assert sorted(i["pk"]["S"] for i in q["Items"]) == ["a", "b"]


def test_replica_update_sets_that_replicas_own_settings(regions: Regions) -> None:
    t = regions.create("us-east-1")
    regions.add_replica("us-east-1", t, "eu-west-1")
    regions["us-east-1"].update_table(TableName=t, ReplicaUpdates=[{"Update": {
        "RegionName": "eu-west-1", "TableClassOverride": "STANDARD_INFREQUENT_ACCESS",
        "OnDemandThroughputOverride": {"MaxReadRequestUnits": 100},
    }}])  # fmt: skip
    (rep,) = regions["us-east-1"].describe_table(TableName=t)["Table"]["Replicas"]
    assert rep["ReplicaTableClassSummary"] == {"TableClass": "STANDARD_INFREQUENT_ACCESS"}
    assert rep["OnDemandThroughputOverride"] == {"MaxReadRequestUnits": 100}
    away = regions["eu-west-1"].describe_table(TableName=t)["Table"]
    assert away["TableClassSummary"] == {"TableClass": "STANDARD_INFREQUENT_ACCESS"}
    assert away["OnDemandThroughput"]["MaxReadRequestUnits"] == 100
    home = regions["us-east-1"].describe_table(TableName=t)["Table"]
    assert "TableClassSummary" not in home and home["OnDemandThroughput"]["MaxReadRequestUnits"] == -1


def test_shared_db_has_no_global_tables() -> None:
    with DynemuServer(shared_db=True) as url:
        r = Regions(url, None)
        t = r.create("us-east-1")
        assert_validation(errors.MSG_GLOBAL_TABLES_SHARED_DB, r["us-east-1"].update_table, TableName=t,
                          ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])  # fmt: skip


def test_a_new_replica_gets_what_was_on_its_way_to_its_source(regions: Regions) -> None:
    """A change still in the backlog towards the region a new replica is backfilled from
    reaches the new replica too, and last writer wins holds there."""
    t = regions.create("us-east-1")
    regions.add_replica("us-east-1", t, "eu-west-1")
    put(regions, "eu-west-1", t, "from-eu", "1")  # on its way to us-east-1
    put(regions, "eu-west-1", t, "both", "eu-older")
    regions.advance(0.5)
    put(regions, "us-east-1", t, "both", "us-newer")
    regions.add_replica("us-east-1", t, "ap-south-1")  # backfilled from us-east-1
    regions.advance(LAG)
    for region in ("us-east-1", "eu-west-1", "ap-south-1"):
        assert regions.get(region, t, "from-eu") == {"pk": S("from-eu"), "v": S("1")}
        assert regions.get(region, t, "both") == {"pk": S("both"), "v": S("us-newer")}
    assert regions.view(t)["backlog"] == []
