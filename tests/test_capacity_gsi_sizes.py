"""A GSI's partitions hold exact entry counts and sizes, kept exact on every write and
delete, and split when they outgrow the partition size, as a table's do (issue 23).

An entry's size is its projection's DynamoDB size, the size IndexSizeBytes counts.
"""

from __future__ import annotations

from typing import Any

from dynemu.testing import DynemuServer
from tests.test_throttling import Virtual

KB = 1024


def create_with_gsi(v: Virtual, name: str, projection: dict[str, Any], on_demand: bool = False) -> str:
    """A table with GSI ``by-g`` on ``g``: on-demand (4 GSI partitions) or 100 RCU/WCU (one)."""
    throughput = {"ProvisionedThroughput": {"ReadCapacityUnits": 100, "WriteCapacityUnits": 100}}
    v.ddb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": projection, **({} if on_demand else throughput),
        }],
        **({"BillingMode": "PAY_PER_REQUEST"} if on_demand else throughput),
    )  # fmt: skip
    return name


def index_books(v: Virtual, t: str) -> tuple[int, int, list[dict[str, Any]]]:
    """(IndexItemCount, IndexSizeBytes, the GSI's partitions in the admin view)."""
    desc = v.ddb.describe_table(TableName=t)["Table"]["GlobalSecondaryIndexes"][0]
    return desc["ItemCount"], desc["IndexSizeBytes"], v.admin(f"/_dynemu/tables/{t}/partitions?index=by-g")["partitions"]


def assert_exact(v: Virtual, t: str, count: int) -> list[dict[str, Any]]:
    n, size, parts = index_books(v, t)
    assert n == count
    assert sum(p["item_count"] for p in parts) == n
    assert sum(p["size_bytes"] for p in parts) == size
    assert all(p["item_count"] >= 0 and p["size_bytes"] >= 0 for p in parts)
    return parts


def test_gsi_partitions_track_entries_and_projected_sizes() -> None:
    with DynemuServer(clock="virtual", throttling=True) as url:
        v = Virtual(url)
        t = create_with_gsi(v, "gsi-sizes", {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["p"]}, True)
        # one entry: "pk" "a", "g" "x", "p" "yy" (the unprojected "big" is not in it): 3 + 2 + 3 bytes
        v.ddb.put_item(TableName=t, Item={"pk": {"S": "a"}, "g": {"S": "x"}, "p": {"S": "yy"}, "big": {"S": "z" * 500}})
        _, size, parts = index_books(v, t)
        assert size == 8
        assert sorted((p["item_count"], p["size_bytes"]) for p in parts if p["item_count"]) == [(1, 8)]
        for i in range(60):
            item = {"pk": {"S": f"k{i}"}, "p": {"S": "v" * i}}
            if i % 3:  # every third item lacks the index key: not in the (sparse) index
                item["g"] = {"S": f"g{i % 7}"}
            v.ddb.put_item(TableName=t, Item=item)
        parts = assert_exact(v, t, 41)
        assert sum(1 for p in parts if p["item_count"]) > 1  # spread over the GSI's partitions
        for i in range(1, 60, 3):  # move the entry to another index key
            v.ddb.update_item(TableName=t, Key={"pk": {"S": f"k{i}"}}, UpdateExpression="SET g = :g",
                              ExpressionAttributeValues={":g": {"S": f"moved-{i}"}})
        for i in range(2, 60, 3):  # change a projected attribute: the entry grows
            v.ddb.update_item(TableName=t, Key={"pk": {"S": f"k{i}"}}, UpdateExpression="SET p = :p",
                              ExpressionAttributeValues={":p": {"S": "w" * 90}})
        for i in range(0, 60, 3):  # gain the index key
            v.ddb.update_item(TableName=t, Key={"pk": {"S": f"k{i}"}}, UpdateExpression="SET g = :g",
                              ExpressionAttributeValues={":g": {"S": "late"}})
        assert_exact(v, t, 61)
        for i in range(0, 60, 2):
            v.ddb.delete_item(TableName=t, Key={"pk": {"S": f"k{i}"}})
        v.ddb.update_item(TableName=t, Key={"pk": {"S": "k1"}}, UpdateExpression="REMOVE g")  # leaves the index
        assert_exact(v, t, 30)


def test_a_gsi_added_to_a_full_table_measures_its_partitions() -> None:
    with DynemuServer(clock="virtual", throttling=True) as url:
        v = Virtual(url)
        t = v.create("backfilled", rcu=100, wcu=100,
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])  # fmt: skip
        for i in range(40):
            v.ddb.put_item(TableName=t, Item={"pk": {"S": f"k{i}"}, "g": {"S": f"g{i}"}, "v": {"S": "x" * i}})
        v.ddb.update_table(
            TableName=t,
            AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexUpdates=[{"Create": {
                "IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
                "ProvisionedThroughput": {"ReadCapacityUnits": 100, "WriteCapacityUnits": 100},
            }}],
        )  # fmt: skip
        for _ in range(100):
            if v.ddb.describe_table(TableName=t)["Table"]["GlobalSecondaryIndexes"][0]["IndexStatus"] == "ACTIVE":
                break
        v.ddb.query(TableName=t, IndexName="by-g", KeyConditionExpression="g = :g",
                    ExpressionAttributeValues={":g": {"S": "g1"}})  # fmt: skip
        assert_exact(v, t, 40)
        v.ddb.put_item(TableName=t, Item={"pk": {"S": "new"}, "g": {"S": "gnew"}})
        v.ddb.delete_item(TableName=t, Key={"pk": {"S": "k0"}})
        assert_exact(v, t, 40)


def test_a_gsi_partition_splits_for_size() -> None:
    with DynemuServer(clock="virtual", throttling=True, partition_size=64 * KB) as url:
        v = Virtual(url)
        t = create_with_gsi(v, "gsi-split", {"ProjectionType": "ALL"})  # one GSI partition of 100 WCU
        blob = "x" * (KB - 20)
        for i in range(72):  # 72 KB of entries: more than one 64 KB partition holds
            v.ddb.put_item(TableName=t, Item={"pk": {"S": f"k{i}"}, "g": {"S": f"g{i}"}, "v": {"S": blob}})
        parts = assert_exact(v, t, 72)
        assert len(parts) >= 2  # the full GSI partition split, each child measured
        assert all(p["size_bytes"] <= 64 * KB for p in parts)
        for i in range(0, 72, 2):
            v.ddb.delete_item(TableName=t, Key={"pk": {"S": f"k{i}"}})
        v.ddb.put_item(TableName=t, Item={"pk": {"S": "k1"}, "g": {"S": "g1"}})  # an overwrite shrinks
        assert len(assert_exact(v, t, 36)) == len(parts)  # partitions never merge
