"""A global table survives a restart of an on-disk server: each replica's store keeps the
membership, and replication resumes between the reopened namespaces."""

from __future__ import annotations

from pathlib import Path

from dynemu.api.admin_app import NAMESPACES
from dynemu.testing import DynemuServer
from tests.conftest import make_client
from tests.helpers import S


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
