"""State control over HTTP (POST /_dynemu/reset, /_dynemu/snapshots...): on each store, with
streams, GSIs, TTL and backups present; a restore leaves no trace of later writes; the admin
token guards it; bad input gets the admin API's errors; a restore survives a crash."""

from __future__ import annotations

import json
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from dynemu.testing import DynemuServer
from tests.conftest import make_client

STORES = ["memory", "leveldb", "sqlite"]


def admin(url: str, path: str, body: Any = None, method: str = "POST", token: str | None = None,
          content_type: str = "application/json") -> tuple[int, Any]:  # fmt: skip
    data = None if method == "GET" else (b"" if body is None else json.dumps(body).encode())
    headers = {"Content-Type": content_type}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    req = urllib.request.Request(url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read())


@pytest.fixture(params=STORES)
def server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[DynemuServer]:
    kind = request.param
    extra: dict[str, Any] = {} if kind == "memory" else {"data_dir": str(tmp_path / "data"), "store": kind}
    s = DynemuServer(ttl_change_seconds=0, **extra)
    s.start()
    try:
        yield s
    finally:
        s.stop()


def _create(c: Any, name: str) -> None:
    c.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )
    c.update_time_to_live(TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": "exp"})


def _state(url: str) -> dict[str, Any]:
    """Everything a restore must put back, as the API shows it."""
    c = make_client(url)
    streams = make_client(url, service="dynamodbstreams")
    out: dict[str, Any] = {"tables": c.list_tables()["TableNames"]}
    for name in out["tables"]:
        d = c.describe_table(TableName=name)["Table"]
        items = sorted(json.dumps(i, sort_keys=True) for i in c.scan(TableName=name)["Items"])
        gsi = sorted(json.dumps(i, sort_keys=True) for i in c.scan(TableName=name, IndexName="by_g")["Items"]) \
            if d.get("GlobalSecondaryIndexes") else []
        records = 0
        arn = d.get("LatestStreamArn")
        if arn:
            for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
                it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                                ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
                records += len(streams.get_records(ShardIterator=it)["Records"])
        out[name] = {
            "items": items, "gsi_items": gsi, "count": d["ItemCount"],
            "indexes": sorted(i["IndexName"] for i in d.get("GlobalSecondaryIndexes", [])),
            "ttl": c.describe_time_to_live(TableName=name)["TimeToLiveDescription"],
            "stream_records": records, "stream": arn,
        }
    out["backups"] = sorted(b["BackupName"] for b in c.list_backups()["BackupSummaries"])
    out["streams"] = sorted(s["StreamArn"] for s in streams.list_streams()["Streams"])
    return out


def test_restore_leaves_no_trace_of_later_writes(server: DynemuServer) -> None:
    url = server.url
    c = make_client(url)
    _create(c, "orders")
    for i in range(30):
        c.put_item(TableName="orders", Item={"pk": {"S": f"o{i}"}, "g": {"S": f"g{i % 3}"}, "exp": {"N": "4102444800"}})
    c.create_backup(TableName="orders", BackupName="before")
    saved = _state(url)
    assert saved["orders"]["stream_records"] == 30 and saved["orders"]["gsi_items"] and saved["backups"] == ["before"]
    status, info = admin(url, "/_dynemu/snapshots", {"name": "base"})
    assert status == 200 and info["name"] == "base" and info["scope"] == "*" and info["namespaces"] == ["us-east-1"]

    # later writes of every kind
    for i in range(30, 40):
        c.put_item(TableName="orders", Item={"pk": {"S": f"o{i}"}, "g": {"S": "new"}})
    c.delete_item(TableName="orders", Key={"pk": {"S": "o0"}})
    c.update_item(TableName="orders", Key={"pk": {"S": "o1"}}, UpdateExpression="SET g = :g",
                  ExpressionAttributeValues={":g": {"S": "moved"}})
    c.update_time_to_live(TableName="orders", TimeToLiveSpecification={"Enabled": False, "AttributeName": "exp"})
    c.create_backup(TableName="orders", BackupName="after")
    _create(c, "later")
    c.put_item(TableName="later", Item={"pk": {"S": "x"}, "g": {"S": "y"}})
    make_client(url, region="eu-west-1").create_table(
        TableName="elsewhere", BillingMode="PAY_PER_REQUEST", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    assert _state(url) != saved

    status, info = admin(url, "/_dynemu/snapshots/base/restore", {})
    assert status == 200 and info["name"] == "base"
    assert _state(url) == saved
    # a namespace made after a snapshot of every namespace is gone too
    assert make_client(url, region="eu-west-1").list_tables()["TableNames"] == []
    # the restored namespace serves on: writes, indexes and streams carry on from the snapshot
    c.put_item(TableName="orders", Item={"pk": {"S": "again"}, "g": {"S": "g0"}})
    assert c.query(TableName="orders", IndexName="by_g", KeyConditionExpression="g = :g",
                   ExpressionAttributeValues={":g": {"S": "g0"}})["Count"] == 11
    # and can be restored again, as often as wanted
    assert admin(url, "/_dynemu/snapshots/base/restore", {})[0] == 200
    assert _state(url) == saved


def test_reset_drops_everything(server: DynemuServer) -> None:
    url = server.url
    c = make_client(url)
    _create(c, "orders")
    c.put_item(TableName="orders", Item={"pk": {"S": "a"}, "g": {"S": "b"}})
    c.create_backup(TableName="orders", BackupName="bk1")
    c.update_continuous_backups(TableName="orders", PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    eu = make_client(url, region="eu-west-1")
    _create(eu, "theirs")
    # one region: the other keeps its tables
    assert admin(url, "/_dynemu/reset?region=eu-west-1", {}) == (200, {"reset": ["eu-west-1"]})
    assert eu.list_tables()["TableNames"] == [] and c.list_tables()["TableNames"] == ["orders"]
    status, body = admin(url, "/_dynemu/reset", {})
    assert status == 200 and "us-east-1" in body["reset"]
    empty = _state(url)
    assert empty == {"tables": [], "backups": [], "streams": []}
    # a table of the same name starts with no trace of the old one's settings
    _create(c, "orders")
    assert c.describe_continuous_backups(TableName="orders")["ContinuousBackupsDescription"][
        "PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "DISABLED"
    assert c.scan(TableName="orders")["Count"] == 0


def test_one_namespace_snapshot_restores_that_namespace(server: DynemuServer) -> None:
    url = server.url
    us, eu = make_client(url), make_client(url, region="eu-west-1")
    _create(us, "mine")
    _create(eu, "theirs")
    status, info = admin(url, "/_dynemu/snapshots?region=eu-west-1", {"name": "eu"})
    assert (status, info["scope"], info["namespaces"]) == (200, "eu-west-1", ["eu-west-1"])
    eu.delete_table(TableName="theirs")
    us.delete_table(TableName="mine")
    assert admin(url, "/_dynemu/snapshots/eu/restore", {})[0] == 200
    assert eu.list_tables()["TableNames"] == ["theirs"]
    assert us.list_tables()["TableNames"] == []  # the other namespace is not touched


def test_list_and_delete(server: DynemuServer) -> None:
    url = server.url
    for name in ("b", "a"):
        assert admin(url, "/_dynemu/snapshots", {"name": name})[0] == 200
    status, body = admin(url, "/_dynemu/snapshots", method="GET")
    assert status == 200 and [s["name"] for s in body["snapshots"]] == ["a", "b"]
    assert admin(url, "/_dynemu/snapshots/a", {}, method="DELETE")[0] == 200
    assert [s["name"] for s in admin(url, "/_dynemu/snapshots", method="GET")[1]["snapshots"]] == ["b"]
    assert admin(url, "/_dynemu/snapshots/a", {}, method="DELETE") == (404, {"error": "snapshot not found: a"})


BAD_NAME = ('the body must be JSON such as {"name": "fixtures"}: a snapshot name is 1 to 128 letters, digits, '
            "'.', '_' or '-', not starting with '.'")


@pytest.mark.parametrize("body", [{}, {"name": ""}, {"name": ".hidden"}, {"name": "a/b"}, {"name": 3},
                                  {"name": "x" * 129}, [1], "text"])  # fmt: skip
def test_bad_snapshot_names(body: Any) -> None:
    with DynemuServer() as url:
        assert admin(url, "/_dynemu/snapshots", body) == (400, {"error": BAD_NAME})
        assert admin(url, "/_dynemu/snapshots", method="GET") == (200, {"snapshots": []})


def test_errors_of_the_routes() -> None:
    with DynemuServer() as url:
        assert admin(url, "/_dynemu/snapshots/nope/restore", {}) == (404, {"error": "snapshot not found: nope"})
        assert admin(url, "/_dynemu/snapshots/.x/restore", {}) == (400, {"error": BAD_NAME})
        assert admin(url, "/_dynemu/reset?namespace=nowhere", {}) == (404, {"error": "namespace not found: nowhere"})
        assert admin(url, "/_dynemu/reset?region=no.where", {}) == (
            400, {"error": "Credential should be scoped to a valid region, not 'no.where'."})
        # a state change must say it is JSON (admin_guard): a page cannot forge it
        assert admin(url, "/_dynemu/reset", {}, content_type="text/plain")[0] == 415


def test_admin_token_guards_every_state_change() -> None:
    with DynemuServer(admin_token="s3cret") as url:
        refused = (401, {"error": "the admin API needs the token given by --admin-token "
                                  "(Authorization: Bearer ... or X-Dynemu-Admin-Token)"})
        assert admin(url, "/_dynemu/reset", {}) == refused
        assert admin(url, "/_dynemu/snapshots", {"name": "s"}) == refused
        assert admin(url, "/_dynemu/snapshots", {"name": "s"}, token="wrong") == refused
        assert admin(url, "/_dynemu/snapshots", {"name": "s"}, token="s3cret")[0] == 200
        assert admin(url, "/_dynemu/snapshots/s/restore", {}) == refused
        assert admin(url, "/_dynemu/snapshots/s", {}, method="DELETE") == refused
        assert admin(url, "/_dynemu/snapshots", method="GET")[0] == 200  # reads stay open
        assert admin(url, "/_dynemu/snapshots/s/restore", {}, token="s3cret")[0] == 200
        assert admin(url, "/_dynemu/reset", {}, token="s3cret")[0] == 200


def test_snapshots_on_disk_survive_a_restart(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    with DynemuServer(data_dir=data) as url:
        c = make_client(url)
        _create(c, "kept")
        c.put_item(TableName="kept", Item={"pk": {"S": "a"}, "g": {"S": "b"}})
        admin(url, "/_dynemu/snapshots", {"name": "disk"})
        c.delete_table(TableName="kept")
    with DynemuServer(data_dir=data) as url:
        assert [s["name"] for s in admin(url, "/_dynemu/snapshots", method="GET")[1]["snapshots"]] == ["disk"]
        assert admin(url, "/_dynemu/snapshots/disk/restore", {})[0] == 200
        c = make_client(url)
        assert c.scan(TableName="kept")["Items"] == [{"pk": {"S": "a"}, "g": {"S": "b"}}]
    with DynemuServer(data_dir=data) as url:  # and the restored state is the one on disk
        assert make_client(url).scan(TableName="kept")["Count"] == 1


def test_reset_brings_back_init_tables_over_http(tmp_path: Path) -> None:
    init = tmp_path / "init"
    init.mkdir()
    (init / "users.json").write_text(json.dumps({
        "TableName": "users", "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}]}))
    (init / "users.jsonl").write_text('{"Item": {"id": {"S": "u1"}}}\n')
    with DynemuServer(init=str(init), data_dir=str(tmp_path / "data")) as url:
        c = make_client(url)
        c.delete_item(TableName="users", Key={"id": {"S": "u1"}})
        _create(c, "scratch")
        assert admin(url, "/_dynemu/reset", {})[0] == 200
        assert c.list_tables()["TableNames"] == ["users"] and c.scan(TableName="users")["Count"] == 1


def test_reset_drops_settings_kept_beside_the_tables(server: DynemuServer) -> None:
    """Contributor Insights, resource policies and auto scaling targets go with the namespace."""
    from tests.aas_helpers import aas_client

    url = server.url
    c, aas = make_client(url), aas_client(url)

    def provisioned() -> str:
        c.create_table(TableName="prov", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                       ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})  # fmt: skip
        return str(c.describe_table(TableName="prov")["Table"]["TableArn"])

    arn = provisioned()
    c.update_contributor_insights(TableName="prov", ContributorInsightsAction="ENABLE")
    policy = json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Deny", "Principal": "*", "Action": "dynamodb:GetItem", "Resource": arn}]})
    c.put_resource_policy(ResourceArn=arn, Policy=policy)
    aas.register_scalable_target(ServiceNamespace="dynamodb", ResourceId="table/prov",
                                 ScalableDimension="dynamodb:table:WriteCapacityUnits", MinCapacity=1, MaxCapacity=10)
    assert len(aas.describe_scalable_targets(ServiceNamespace="dynamodb")["ScalableTargets"]) == 1
    assert admin(url, "/_dynemu/reset", {})[0] == 200
    assert aas.describe_scalable_targets(ServiceNamespace="dynamodb")["ScalableTargets"] == []
    arn = provisioned()
    assert c.describe_contributor_insights(TableName="prov")["ContributorInsightsStatus"] == "DISABLED"
    with pytest.raises(c.exceptions.PolicyNotFoundException):
        c.get_resource_policy(ResourceArn=arn)


def _replica_regions(c: Any, name: str) -> list[str] | None:
    """The regions DescribeTable lists as the table's other replicas (None: not global)."""
    d = c.describe_table(TableName=name)["Table"]
    return [r["RegionName"] for r in d["Replicas"]] if "Replicas" in d else None


def test_reset_of_one_region_removes_its_replicas_from_the_others(server: DynemuServer) -> None:
    """A reset of one region drops its replicas as deleting them would: the other regions'
    replicas no longer list it, and a table left alone is no longer global."""
    url = server.url
    home, eu, ap = (make_client(url, region=r) for r in ("us-east-1", "eu-west-1", "ap-south-1"))
    for name in ("three", "two"):
        home.create_table(TableName=name, BillingMode="PAY_PER_REQUEST",
                          KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                          AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
        home.put_item(TableName=name, Item={"pk": {"S": "a"}})
    for name, region in (("three", "eu-west-1"), ("three", "ap-south-1"), ("two", "eu-west-1")):
        home.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": region}}])
    assert _replica_regions(ap, "three") == ["us-east-1", "eu-west-1"]
    assert _replica_regions(home, "two") == ["eu-west-1"]

    assert admin(url, "/_dynemu/reset?region=eu-west-1", {}) == (200, {"reset": ["eu-west-1"]})
    assert eu.list_tables()["TableNames"] == []
    assert _replica_regions(home, "three") == ["ap-south-1"]
    assert _replica_regions(ap, "three") == ["us-east-1"]
    assert _replica_regions(home, "two") is None  # its only other replica is gone
    status, view = admin(url, "/_dynemu/global-tables", method="GET")
    assert status == 200
    assert [(g["table"], [r["region"] for r in g["replicas"]]) for g in view["global_tables"]] == [
        ("three", ["us-east-1", "ap-south-1"])]
    # the survivors serve on, and the reset region may hold a table of that name again
    home.put_item(TableName="three", Item={"pk": {"S": "b"}})
    home.update_table(TableName="two", ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
    assert eu.get_item(TableName="two", Key={"pk": {"S": "a"}}, ConsistentRead=True)["Item"] == {"pk": {"S": "a"}}
