"""A request's namespaces are never evicted while it runs: with --max-open-namespaces 1, an
UpdateTable that adds replicas in two other regions opens them beside its own (the bound is
passed until the next request) and answers, instead of closing a store it still holds."""

from __future__ import annotations

from pathlib import Path

from dynemu.api.admin.app import NAMESPACES
from dynemu.testing import DynemuServer
from tests.conftest import make_client
from tests.test_global_tables import Regions


def test_replicas_in_other_regions_with_one_namespace_open(tmp_path: Path) -> None:
    server = DynemuServer(clock="virtual", data_dir=str(tmp_path), max_open_namespaces=1)
    url = server.start()
    try:
        regions = Regions(url, server.app[NAMESPACES].clock)
        table = regions.create("us-east-1")
        regions.add_replica("us-east-1", table, "us-east-2")
        regions.advance(5)
        regions.add_replica("us-east-1", table, "eu-west-1")
        regions.advance(5)
        regions["us-east-1"].put_item(TableName=table, Item={"pk": {"S": "k"}, "v": {"S": "1"}})
        regions.advance(5)
        for region in ("us-east-1", "us-east-2", "eu-west-1"):
            got = make_client(url, region=region).get_item(TableName=table, Key={"pk": {"S": "k"}}, ConsistentRead=True)
            assert got["Item"]["v"] == {"S": "1"}, region
        # the bound is kept again at the next open: a request in a fourth region closes the rest
        make_client(url, region="ap-south-1").list_tables()
        assert list(server.app[NAMESPACES].databases) == ["ap-south-1"]
    finally:
        server.stop()
