"""A global table survives a restart of an on-disk server: each replica's store keeps the
membership, and replication resumes between the reopened namespaces."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from dynemu.api.admin.app import NAMESPACES
from dynemu.testing import DynemuServer
from tests.conftest import make_client
from tests.helpers import N, S


def test_replicas_and_replication_after_a_restart(tmp_path: Path) -> None:
    with DynemuServer(data_dir=str(tmp_path), clock="virtual") as url:
        us = make_client(url, "us-east-1")
        us.create_table(
            TableName="kept", BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        )  # fmt: skip
        us.put_item(TableName="kept", Item={"pk": S("a")})
        us.update_table(TableName="kept", ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
    server = DynemuServer(data_dir=str(tmp_path), clock="virtual")
    url = server.start()
    try:
        us, eu = make_client(url, "us-east-1"), make_client(url, "eu-west-1")
        away = eu.describe_table(TableName="kept")["Table"]
        assert [(r["RegionName"], r["ReplicaStatus"]) for r in away["Replicas"]] == [("us-east-1", "ACTIVE")]
        assert eu.get_item(TableName="kept", Key={"pk": S("a")}, ConsistentRead=True)["Item"] == {"pk": S("a")}
        eu.put_item(TableName="kept", Item={"pk": S("b")})
        server.app[NAMESPACES].clock.advance(1.0)
        assert us.get_item(TableName="kept", Key={"pk": S("b")}, ConsistentRead=True)["Item"] == {"pk": S("b")}
    finally:
        server.stop()


def _advance(url: str, seconds: float) -> None:
    req = urllib.request.Request(url + "/_dynemu/clock", data=json.dumps({"advance": seconds}).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as resp:
        resp.read()


def _global_table(url: str, name: str) -> tuple[Any, Any]:
    us, eu = make_client(url, "us-east-1"), make_client(url, "eu-west-1")
    us.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
    )  # fmt: skip
    us.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
    return us, eu


def _backlog(url: str, table: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(url + "/_dynemu/global-tables") as resp:
        view = json.loads(resp.read())
    out: list[dict[str, Any]] = next(g for g in view["global_tables"] if g["table"] == table)["backlog"]
    return out


def _stream_events(url: str, region: str, table: str) -> list[str]:
    ddb, streams = make_client(url, region), make_client(url, region, service="dynamodbstreams")
    arn = ddb.describe_table(TableName=table)["Table"]["LatestStreamArn"]
    shards = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]
    events = []
    for shard in shards:
        it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")
        events += [r["eventName"] for r in streams.get_records(ShardIterator=it["ShardIterator"])["Records"]]
    return events


@pytest.mark.parametrize("store", ["leveldb", "sqlite"])
def test_a_change_committed_before_a_restart_reaches_the_other_replica_once(tmp_path: Path, store: str) -> None:
    """A restart between the commit and the replication lag loses nothing, and applies
    nothing twice: the counter incremented once in us-east-1 is 1 in eu-west-1."""
    with DynemuServer(data_dir=str(tmp_path), clock="virtual", store=store) as url:
        us, _ = _global_table(url, "counted")
        us.update_item(TableName="counted", Key={"pk": S("c")}, UpdateExpression="ADD n :one",
                       ExpressionAttributeValues={":one": N(1)})  # fmt: skip
        assert _backlog(url, "counted") == [{"from": "us-east-1", "to": "eu-west-1", "pending": 1}]
    server = DynemuServer(data_dir=str(tmp_path), clock="virtual", store=store)
    url = server.start()
    try:
        us, eu = make_client(url, "us-east-1"), make_client(url, "eu-west-1")
        assert _backlog(url, "counted") == [{"from": "us-east-1", "to": "eu-west-1", "pending": 1}]
        assert "Item" not in eu.get_item(TableName="counted", Key={"pk": S("c")}, ConsistentRead=True)
        server.app[NAMESPACES].clock.advance(1.0)
        assert eu.get_item(TableName="counted", Key={"pk": S("c")}, ConsistentRead=True)["Item"] == {
            "pk": S("c"), "n": N(1)}  # fmt: skip
        assert _backlog(url, "counted") == []
        assert _stream_events(url, "eu-west-1", "counted") == ["INSERT"]
    finally:
        server.stop()
    with DynemuServer(data_dir=str(tmp_path), clock="virtual", store=store) as url:  # and again: nothing left
        assert _backlog(url, "counted") == []
        us, eu = make_client(url, "us-east-1"), make_client(url, "eu-west-1")
        us.update_item(TableName="counted", Key={"pk": S("c")}, UpdateExpression="ADD n :one",
                       ExpressionAttributeValues={":one": N(1)})  # fmt: skip
        _advance(url, 1.0)
        for client in (us, eu):
            item = client.get_item(TableName="counted", Key={"pk": S("c")}, ConsistentRead=True)["Item"]
            assert item == {"pk": S("c"), "n": N(2)}
        assert _stream_events(url, "eu-west-1", "counted") == ["INSERT", "MODIFY"]
