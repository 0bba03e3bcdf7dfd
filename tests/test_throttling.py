"""Partitions, capacity and throttling, reproduced deterministically on a virtual clock.

Each scenario runs its own server (``--clock virtual``) and moves time only through the
admin API, so every run throttles at the same requests. boto3's retries are off.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from dynemu.api.admin.app import NAMESPACES
from dynemu.storage import keyspace
from dynemu.testing import DynemuServer
from tests.conftest import make_client

TABLE_MESSAGE = (
    "The level of configured provisioned throughput for the table was exceeded. Consider increasing your "
    "provisioning level with the UpdateTable API."
)
KB = 1024


class Virtual:
    """A server on a virtual clock, a client, and the admin calls a test needs."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.ddb = make_client(url)

    def admin(self, path: str, body: dict[str, Any] | None = None) -> Any:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(
            self.url + path, data=data, method="POST" if data else "GET", headers={"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req) as resp:
            return json.loads(resp.read())

    def advance(self, seconds: float) -> None:
        self.admin("/_dynemu/clock", {"advance": seconds})

    def partitions(self, table: str) -> dict[str, Any]:
        return self.admin(f"/_dynemu/tables/{table}/partitions")

    def create(self, name: str, rcu: int | None = None, wcu: int | None = None, **extra: Any) -> str:
        kwargs: dict[str, Any] = dict(
            TableName=name,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        )
        if rcu is None:
            kwargs["BillingMode"] = "PAY_PER_REQUEST"
        else:
            kwargs["ProvisionedThroughput"] = {"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu}
        kwargs.update(extra)
        self.ddb.create_table(**kwargs)
        return name

    def put(self, table: str, pk: str, kb: int = 1) -> ClientError | None:
        """Write an item of ``kb`` KB (charged ``kb`` WCU); the error if throttled."""
        try:
            self.ddb.put_item(TableName=table, Item={"pk": {"S": pk}, "v": {"S": "x" * (kb * KB - 8 - len(pk))}})
        except ClientError as err:
            return err
        return None

    def puts_admitted(self, table: str, pk: str, n: int, kb: int = 1) -> int:
        """How many of ``n`` writes in the same instant are admitted (stops at the first refusal)."""
        for i in range(n):
            if self.put(table, pk, kb) is not None:
                return i
        return n


@pytest.fixture
def virtual(request: pytest.FixtureRequest) -> Iterator[Virtual]:
    model = getattr(request, "param", "gac")
    with DynemuServer(clock="virtual", capacity_model=model, throttling=True) as url:
        yield Virtual(url)


def assert_throttled(err: ClientError | None, reason: str, resource: str, message: str = TABLE_MESSAGE) -> None:
    assert err is not None, "expected a throttle"
    assert err.response["Error"]["Code"] == "ProvisionedThroughputExceededException"
    assert err.response["Error"]["Message"] == message
    assert err.response["ThrottlingReasons"] == [{"reason": reason, "resource": resource}]


def arn(v: Virtual, table: str) -> str:
    return v.ddb.describe_table(TableName=table)["Table"]["TableArn"]


# RCU 9000 + WCU 4 -> ceil(9000/3000 + 4/1000) = 4 partitions, 1 WCU each.
HOT = dict(rcu=9000, wcu=4)


@pytest.mark.parametrize("virtual", ["uniform"], indirect=True)
def test_uniform_hot_partition_throttles_while_the_table_is_under_its_throughput(virtual: Virtual) -> None:
    t = virtual.create("hot-uniform", **HOT)
    assert len(virtual.partitions(t)["partitions"]) == 4
    assert virtual.put(t, "hot") is None  # the partition's one unit for this second
    err = virtual.put(t, "hot")
    # The table has used 1 of its 4 WCU: the partition, not the table, is the limit.
    assert_throttled(err, "TableWriteKeyRangeThroughputExceeded", arn(virtual, t))
    virtual.advance(1)
    assert virtual.put(t, "hot") is None
    view = virtual.partitions(t)
    assert view["summary"]["throttles"] == {"TableWriteKeyRangeThroughputExceeded": 1}
    assert view["hot_keys"]["by_throttles"][0]["key"] == {"S": "hot"}


@pytest.mark.parametrize("virtual", ["burst"], indirect=True)
def test_burst_absorbs_a_spike_until_300_seconds_of_savings_are_spent(virtual: Virtual) -> None:
    t = virtual.create("burst", **HOT)
    virtual.advance(400)  # idle: each partition saves at most 300 s of its 1 WCU
    admitted = virtual.puts_admitted(t, "spike", 400, kb=10)
    # 300 saved units (+ this second's refill) at 10 WCU a write, the last one overdrawing.
    assert admitted == 30
    assert_throttled(virtual.put(t, "spike", 10), "TableWriteKeyRangeThroughputExceeded", arn(virtual, t))


@pytest.mark.parametrize("virtual", ["adaptive"], indirect=True)
def test_adaptive_capacity_ends_sustained_throttling(virtual: Virtual) -> None:
    t = virtual.create("adaptive", rcu=9000, wcu=40)  # 4 partitions of 10 WCU; table 40 WCU
    # The partition starts with 300 s of its 10 WCU saved; a spike spends them, and before
    # adaptive capacity steps in the hot partition is throttled as a hot key range.
    for _ in range(4):  # 100 KB puts, 800 WCU a second: the 3,000 saved units go in 4 s
        virtual.puts_admitted(t, "hot", 8, kb=100)
        virtual.advance(1)
    assert_throttled(virtual.put(t, "hot", 10), "TableWriteKeyRangeThroughputExceeded", arn(virtual, t))
    virtual.advance(1)
    throttled_early = 0
    admitted_late = 0
    for second in range(400):
        admitted = virtual.puts_admitted(t, "hot", 3, kb=10)  # 30 WCU/s on one partition
        if second < 20:
            throttled_early += admitted < 3
        if second >= 380:
            admitted_late += admitted
        virtual.advance(1)
    assert throttled_early > 0  # a 10 WCU partition cannot carry 30 WCU/s
    assert admitted_late == 60  # later the unused table capacity carries the hot partition


@pytest.mark.parametrize("virtual", ["gac"], indirect=True)
def test_gac_serves_a_hot_key_up_to_the_partition_ceiling_and_not_beyond(virtual: Virtual) -> None:
    t = virtual.create("gac-ceiling", rcu=1000, wcu=3000)  # 4 partitions; table 3000 WCU, 300 s burst
    virtual.advance(300)
    # One key can use far more than 3000/4 = 750 WCU/s, but not more than its 1000 WCU/s
    # ceiling, of which a partition keeps 3 s for a spike.
    admitted = virtual.puts_admitted(t, "hot", 40, kb=100)
    assert admitted == 30
    assert_throttled(virtual.put(t, "hot", 100), "TableWriteKeyRangeThroughputExceeded", arn(virtual, t))
    # Keys in the other three partitions are not affected.
    assert sum(virtual.put(t, f"other-{i}", 1) is None for i in range(12)) >= 6


@pytest.mark.parametrize("virtual", ["uniform"], indirect=True)
def test_throughput_dilation_after_a_decrease(virtual: Virtual) -> None:
    t = virtual.create("dilation", rcu=1, wcu=4000)  # ceil(1/3000 + 4000/1000) = 5 partitions
    virtual.ddb.update_table(TableName=t, ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 40})
    view = virtual.partitions(t)
    assert len(view["partitions"]) == 5  # partitions never merge
    assert [p["allocated_write"] for p in view["partitions"]] == [8, 8, 8, 8, 8]  # 40 WCU over 5
    virtual.advance(1)
    assert virtual.puts_admitted(t, "k", 5, kb=4) == 2  # an 8 WCU share: 4 + 4, then refused


def test_size_split_dilutes_the_partition_share() -> None:
    with DynemuServer(clock="virtual", capacity_model="uniform", throttling=True, partition_size=64 * KB) as url:
        v = Virtual(url)
        t = v.create("size-split", rcu=1, wcu=100)
        assert len(v.partitions(t)["partitions"]) == 1
        for i in range(100):
            v.advance(1)
            assert v.put(t, f"k{i}", 1) is None
        view = v.partitions(t)
        assert len(view["partitions"]) >= 2  # 100 KB outgrew 64 KB partitions
        n = len(view["partitions"])
        assert all(p["allocated_write"] == pytest.approx(100 / n) for p in view["partitions"])


@pytest.mark.parametrize("virtual", ["gac"], indirect=True)
def test_split_for_heat_raises_a_hot_ranges_ceiling(virtual: Virtual) -> None:
    t = virtual.create("heat", rcu=1, wcu=999)  # ceil(1/3000 + 999/1000) = 1 partition, ceiling 1000 WCU
    assert len(virtual.partitions(t)["partitions"]) == 1
    for _second in range(120):
        for k in range(9):  # 9 keys x 100 WCU = 900 WCU/s, 90 % of the ceiling
            virtual.put(t, f"key-{k}", 100)
        virtual.advance(1)
    assert len(virtual.partitions(t)["partitions"]) >= 2


ON_DEMAND_MESSAGE = (
    "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling your table "
    "or index so please try again shortly. If exceptions persist, check if you have a hot key: "
    "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html"
)


def test_on_demand_throttles_a_hot_key_and_doubles_behind_a_peak() -> None:
    with DynemuServer(clock="virtual", throttling=True) as url:
        v = Virtual(url)
        t = v.create("on-demand")
        view = v.partitions(t)
        # A new on-demand table is warm for 12,000 reads and 4,000 writes per second: 4 partitions.
        assert len(view["partitions"]) == 4 and view["summary"]["warm_throughput"] == [12000, 4000]
        desc = v.ddb.describe_table(TableName=t)["Table"]
        assert desc["WarmThroughput"] == {"ReadUnitsPerSecond": 12000, "WriteUnitsPerSecond": 4000, "Status": "ACTIVE"}
        # One key cannot pass its partition's 1,000 WCU, on-demand or not.
        # 300 x 10 spends the 3,000 units (3 s of the ceiling) the partition holds
        assert v.puts_admitted(t, "hot", 12, kb=300) == 10
        err = v.put(t, "hot", 300)
        assert err is not None
        assert err.response["Error"]["Code"] == "ThrottlingException"
        assert err.response["Error"]["Message"] == ON_DEMAND_MESSAGE
        assert err.response["throttlingReasons"] == [
            {"reason": "TableWriteKeyRangeThroughputExceeded", "resource": arn(v, t)}
        ]
        # Once that peak of 3,000 WCU is the previous peak, the table has scaled to twice it.
        v.advance(59)
        assert len(v.partitions(t)["partitions"]) == 4
        v.advance(2)
        assert len(v.partitions(t)["partitions"]) == 8


def test_daily_decrease_limit() -> None:
    with DynemuServer(clock="virtual", throttling=True) as url:
        v = Virtual(url)
        t = v.create("decreases", rcu=100, wcu=100)
        for n in range(4):
            v.ddb.update_table(TableName=t, ProvisionedThroughput={"ReadCapacityUnits": 90 - n, "WriteCapacityUnits": 100})
        with pytest.raises(ClientError) as info:
            v.ddb.update_table(TableName=t, ProvisionedThroughput={"ReadCapacityUnits": 50, "WriteCapacityUnits": 100})
        err = info.value.response["Error"]
        assert err["Code"] == "LimitExceededException"
        assert err["Message"].startswith(
            "Subscriber limit exceeded: Provisioned throughput decreases are limited within a given UTC day. After "
            "the first 4 decreases, each subsequent decrease in the same UTC day can be performed at most once every "
            "3600 seconds. Number of decreases today: 4. Last decrease at "
        )
        assert "Next decrease can be made at " in err["Message"]
        v.advance(3600)
        v.ddb.update_table(TableName=t, ProvisionedThroughput={"ReadCapacityUnits": 50, "WriteCapacityUnits": 100})
        tp = v.ddb.describe_table(TableName=t)["Table"]["ProvisionedThroughput"]
        assert tp["NumberOfDecreasesToday"] in (5, 1)  # 1 if the hour crossed midnight UTC


def test_throttling_off_accounts_but_admits() -> None:
    with DynemuServer(clock="virtual", throttling=False) as url:
        v = Virtual(url)
        t = v.create("off", rcu=1, wcu=1)
        assert v.puts_admitted(t, "k", 20, kb=10) == 20
        assert v.partitions(t)["summary"]["consumed_total"][1] == 200


def test_admin_clock_and_metrics() -> None:
    with DynemuServer(clock="virtual") as url:
        v = Virtual(url)
        before = v.admin("/_dynemu/clock")
        assert before["mode"] == "virtual"
        v.advance(3600)
        assert v.admin("/_dynemu/clock")["now"] == pytest.approx(before["now"] + 3600)
        t = v.create("metrics", rcu=5, wcu=5)
        v.put(t, "a")
        with urllib.request.urlopen(url + "/_dynemu/metrics") as resp:
            text = resp.read().decode()
        assert 'dynemu_requests_total{operation="PutItem"} 1' in text
        assert 'dynemu_consumed_capacity_units_total{namespace="us-east-1",table="metrics",index="",operation="write"} 1.0' in text
    with DynemuServer() as url:  # a real clock cannot be advanced
        req = urllib.request.Request(
            url + "/_dynemu/clock", data=b'{"advance": 1}', method="POST", headers={"Content-Type": "application/json"}
        )
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(req)
        assert info.value.code == 409


INDEX_MESSAGE = (
    "The level of configured provisioned throughput for one or more global secondary indexes of the table was "
    "exceeded. Consider increasing your provisioning level for the under-provisioned global secondary indexes with "
    "the UpdateTable API"
)


@pytest.mark.parametrize("virtual", ["gac"], indirect=True)
def test_gsi_back_pressure_throttles_base_table_writes(virtual: Virtual) -> None:
    t = virtual.create(
        "gsi-pressure", rcu=100, wcu=100,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
            "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
        }],
    )
    item = {"g": {"S": "x"}, "v": {"S": "y" * 3000}}  # ~3 KB: 3 WCU on the table and on the GSI
    # ~303 KB: spends the 300 units the GSI saved for bursts (its 1 WCU for 300 s)
    virtual.ddb.put_item(TableName=t, Item={"pk": {"S": "a"}, "g": {"S": "x"}, "v": {"S": "y" * 310_000}})
    with pytest.raises(ClientError) as info:
        virtual.ddb.put_item(TableName=t, Item={"pk": {"S": "b"}, **item})
    err = info.value.response
    assert err["Error"]["Code"] == "ProvisionedThroughputExceededException"
    assert err["Error"]["Message"] == INDEX_MESSAGE
    assert err["ThrottlingReasons"][0]["resource"] == arn(virtual, t) + "/index/by-g"
    assert err["ThrottlingReasons"][0]["reason"].startswith("IndexWrite")
    # The table had capacity: nothing was written, neither to the table nor to the index.
    assert "Item" not in virtual.ddb.get_item(TableName=t, Key={"pk": {"S": "b"}})
    # Items without the GSI key do not touch the index and are admitted.
    assert virtual.put(t, "no-index-key", 3) is None
    virtual.advance(5)
    virtual.ddb.put_item(TableName=t, Item={"pk": {"S": "b"}, **item})


@pytest.mark.parametrize("virtual", ["uniform"], indirect=True)
def test_query_and_scan_are_admitted_and_charged(virtual: Virtual) -> None:
    # ceil(4/3000 + 3999/1000) = 5 partitions; 4 RCU over 5 partitions: 0.8 RCU each
    t = virtual.create("reads", rcu=4, wcu=3999)
    virtual.ddb.update_table(TableName=t, ProvisionedThroughput={"ReadCapacityUnits": 4, "WriteCapacityUnits": 100})
    virtual.advance(1)
    for _ in range(3):
        virtual.put(t, "hot", 8)  # 8 KB: a consistent Query of it costs 2 RCU
        virtual.advance(1)
    q = dict(TableName=t, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "hot"}},
             ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    assert virtual.ddb.query(**q)["ConsumedCapacity"]["CapacityUnits"] == 2.0  # overdraws the 0.8 bucket
    with pytest.raises(ClientError) as info:
        virtual.ddb.query(**q)
    assert info.value.response["ThrottlingReasons"] == [
        {"reason": "TableReadKeyRangeThroughputExceeded", "resource": arn(virtual, t)}
    ]
    virtual.advance(3)
    assert virtual.ddb.query(**q)["Count"] == 1
    assert virtual.partitions(t)["summary"]["consumed_total"][0] == 4.0


@pytest.mark.parametrize("virtual", ["gac"], indirect=True)
def test_batch_write_items_refused_by_a_gsi_are_unprocessed(virtual: Virtual) -> None:
    t = virtual.create(
        "gsi-batch", rcu=100, wcu=100,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
            "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
        }],
    )
    # k0 (~303 KB) spends the GSI's 300 saved units; k1-k3 are ~3 KB
    puts = [{"PutRequest": {"Item": {"pk": {"S": f"k{i}"}, "g": {"S": "x"}, "v": {"S": "y" * (310_000 if i == 0 else 3000)}}}}
            for i in range(4)]
    puts.append({"PutRequest": {"Item": {"pk": {"S": "plain"}}}})  # not in the index
    out = virtual.ddb.batch_write_item(RequestItems={t: puts})
    left = out["UnprocessedItems"].get(t, [])
    # The GSI admits the first write (spending its savings) and refuses the next three.
    assert [r["PutRequest"]["Item"]["pk"]["S"] for r in left] == ["k1", "k2", "k3"]
    assert "Item" in virtual.ddb.get_item(TableName=t, Key={"pk": {"S": "plain"}})
    assert "Item" not in virtual.ddb.get_item(TableName=t, Key={"pk": {"S": "k1"}})


def test_transaction_reports_index_units() -> None:
    with DynemuServer(throttling=False) as url:
        v = Virtual(url)
        t = v.create(
            "tx-indexes",
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexes=[{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                     "Projection": {"ProjectionType": "ALL"}}],
        )
        out = v.ddb.transact_write_items(
            TransactItems=[{"Put": {"TableName": t, "Item": {"pk": {"S": "a"}, "g": {"S": "x"}}}}],
            ReturnConsumedCapacity="INDEXES",
        )
        cc = out["ConsumedCapacity"][0]
        assert cc["Table"]["CapacityUnits"] == 2.0  # transactional: twice a 1 KB write
        assert cc["GlobalSecondaryIndexes"] == {"by-g": {"CapacityUnits": 1.0, "WriteCapacityUnits": 1.0}}
        assert cc["CapacityUnits"] == 3.0


@pytest.mark.parametrize("virtual", ["gac"], indirect=True)
def test_transaction_refused_by_a_gsi_is_cancelled_whole(virtual: Virtual) -> None:
    t = virtual.create(
        "gsi-tx", rcu=100, wcu=100,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{
            "IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
            "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
        }],
    )
    virtual.ddb.put_item(TableName=t, Item={"pk": {"S": "first"}, "g": {"S": "x"}, "v": {"S": "y" * 310_000}})
    with pytest.raises(ClientError) as info:
        virtual.ddb.transact_write_items(TransactItems=[
            {"Put": {"TableName": t, "Item": {"pk": {"S": "plain"}}}},
            {"Put": {"TableName": t, "Item": {"pk": {"S": "indexed"}, "g": {"S": "x"}}}},
        ])
    reasons = info.value.response["CancellationReasons"]
    assert reasons[0] == {"Code": "None"}
    assert reasons[1] == {"Code": "ProvisionedThroughputExceeded", "Message": INDEX_MESSAGE}
    assert "Item" not in virtual.ddb.get_item(TableName=t, Key={"pk": {"S": "plain"}})  # all or nothing


@pytest.mark.parametrize("virtual", ["gac"], indirect=True)
def test_transact_get_refused_by_a_throttle_is_cancelled_whole(virtual: Virtual) -> None:
    """The read executor's ``cancel`` policy: every key admitted before any is read; the
    throttled action carries its reason, every other None."""
    spent = virtual.create("tx-get-spent", rcu=1, wcu=100)
    roomy = virtual.create("tx-get-roomy", rcu=100, wcu=100)
    virtual.ddb.put_item(TableName=spent, Item={"pk": {"S": "big"}, "v": {"S": "y" * 390_000}})
    virtual.ddb.put_item(TableName=roomy, Item={"pk": {"S": "a"}})
    gets = [{"Get": {"TableName": roomy, "Key": {"pk": {"S": "a"}}}},
            {"Get": {"TableName": spent, "Key": {"pk": {"S": "big"}}}}]
    for _ in range(10):  # 196 units a read, against 1 RCU and its 300 s burst
        try:
            virtual.ddb.transact_get_items(TransactItems=gets)
        except ClientError as err:
            assert err.response["Error"]["Code"] == "TransactionCanceledException"
            assert err.response["CancellationReasons"] == [
                {"Code": "None"}, {"Code": "ProvisionedThroughputExceeded", "Message": TABLE_MESSAGE}]
            break
    else:
        raise AssertionError("the table's read capacity was never spent")
    # a transactional read: 2 units per 4 KB (transaction-apis.md)
    consumed = virtual.ddb.transact_get_items(TransactItems=gets[:1], ReturnConsumedCapacity="TOTAL")
    assert consumed["ConsumedCapacity"] == [{"TableName": roomy, "CapacityUnits": 2.0, "ReadCapacityUnits": 2.0}]


# --- calibration: what DynamoDB documents as available is never refused (issue 10) ------------


def retrying_client(url: str) -> Any:
    """boto3 with its standard retry mode (3 attempts), as applications run it."""
    return boto3.client(
        "dynamodb", endpoint_url=url, region_name="us-east-1", aws_access_key_id="AKIDTEST",
        aws_secret_access_key="secret", config=Config(retries={"mode": "standard", "total_max_attempts": 3}),
    )


@pytest.mark.parametrize("virtual", ["gac", "burst"], indirect=True)
def test_batch_write_of_57_items_into_a_1_wcu_table(virtual: Virtual) -> None:
    t = virtual.create("tiny", rcu=1, wcu=1)  # 300 s of 1 WCU saved from the start
    ddb = retrying_client(virtual.url)
    items = [{"PutRequest": {"Item": {"pk": {"S": f"item-{i}"}, "n": {"N": str(i)}}}} for i in range(57)]
    for i in range(0, 57, 25):  # PynamoDB's batch_write: 25 at a time, on a clock that does not move
        out = ddb.batch_write_item(RequestItems={t: items[i : i + 25]})
        assert out["UnprocessedItems"] == {}
    assert virtual.ddb.scan(TableName=t, Select="COUNT")["Count"] == 57
    assert virtual.partitions(t)["summary"]["throttles"] == {}


@pytest.mark.parametrize("virtual", ["gac", "uniform"], indirect=True)
def test_70_puts_into_a_5_wcu_table_and_a_100_kb_put(virtual: Virtual) -> None:
    t = virtual.create("five", rcu=5, wcu=5)
    burst = virtual.admin("/_dynemu/tables/five/partitions")["summary"]["model"] != "uniform"
    if burst:
        assert virtual.puts_admitted(t, "k", 70) == 70
        # a request costing 20 s of the table's throughput draws on the 300 s saved ...
        assert virtual.put(t, "large", 100) is None
        # ... so the next puts are not refused for debt
        assert virtual.puts_admitted(t, "after", 5) == 5
    else:  # uniform keeps no burst: one second of 5 WCU, as the model documents
        assert virtual.puts_admitted(t, "k", 70) == 5
        # one partition: its share is the whole table's throughput
        assert_throttled(virtual.put(t, "k"), "TableWriteProvisionedThroughputExceeded", arn(virtual, t))


@pytest.mark.parametrize("virtual", ["gac"], indirect=True)
def test_batch_write_right_after_a_4_mb_transaction_on_demand(virtual: Virtual) -> None:
    t = virtual.create("tx-4mb")
    blob = "x" * 39_000  # 100 items x ~39 KB: ~3.9 MB, 8,000 WRU as a transaction
    virtual.ddb.transact_write_items(
        TransactItems=[{"Put": {"TableName": t, "Item": {"pk": {"S": f"tx-{i}"}, "v": {"S": blob}}}} for i in range(100)]
    )
    puts = [{"PutRequest": {"Item": {"pk": {"S": f"after-{i}"}}}} for i in range(25)]
    assert virtual.ddb.batch_write_item(RequestItems={t: puts})["UnprocessedItems"] == {}


@pytest.mark.parametrize("virtual", ["gac"], indirect=True)
def test_30_items_of_49_kb_under_one_partition_key(virtual: Virtual) -> None:
    t = virtual.create(
        "collection",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
    )
    blob = "x" * (49 * KB - 20)
    for i in range(30):  # 1,470 WRU in one instant on one partition
        virtual.ddb.put_item(TableName=t, Item={"pk": {"S": "one"}, "sk": {"N": str(i)}, "v": {"S": blob}})
    q = virtual.ddb.query(TableName=t, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "one"}})
    assert q["Count"] == 21 and "LastEvaluatedKey" in q  # a 1 MB page


# --- calibration: what goes beyond it is refused as DynamoDB refuses it --------------------------


@pytest.mark.parametrize("virtual", ["gac"], indirect=True)
def test_reads_and_writes_share_the_partition_ceiling(virtual: Virtual) -> None:
    t = virtual.create("combined", rcu=40000, wcu=40000)  # 14 partitions, table far above one key
    blob = "x" * (300 * KB - 20)
    virtual.ddb.put_item(TableName=t, Item={"pk": {"S": "hot"}, "v": {"S": blob}})
    get = dict(TableName=t, Key={"pk": {"S": "hot"}}, ConsistentRead=True, ReturnConsumedCapacity="TOTAL")
    assert virtual.ddb.get_item(**get)["ConsumedCapacity"]["CapacityUnits"] == 75.0
    virtual.advance(5)
    # 2,400 RCU/s alone is under the 3,000 RCU ceiling: never refused
    for _ in range(5):
        for _ in range(32):
            virtual.ddb.get_item(**get)
        virtual.advance(1)
    # with 800 WCU/s of writes on the same item it is 1.6x the ceiling (2.4/3 + 0.8/1)
    read_errors: list[ClientError] = []
    served = 0.0
    for _second in range(8):
        for i in range(32):
            try:
                virtual.ddb.get_item(**get)
                served += 75 / 3000
            except ClientError as err:
                read_errors.append(err)
            if i % 12 == 0 and virtual.put(t, "hot", 267) is None:  # 3 x 267 WCU a second
                served += 267 / 1000
        virtual.advance(1)
    assert read_errors
    assert_throttled(read_errors[-1], "TableReadKeyRangeThroughputExceeded", arn(virtual, t))
    assert served <= 8 + 3 + 0.4  # 8 s of one ceiling, its 3 s of savings, one request over


def spread_keys(partitions: int, per_partition: int) -> list[str]:
    """Partition keys landing ``per_partition`` in each of ``partitions`` even hash ranges,
    so a scenario loads every partition alike (DynamoDB's "if the table access is
    distributed evenly across partitions")."""
    room = dict.fromkeys(range(partitions), per_partition)
    keys = []
    for i in range(100_000):
        k = f"k{i}"
        p = int.from_bytes(keyspace.key_hash(keyspace.item_key(1, {"S": k}, None)), "big") * partitions >> 64
        if room[p]:
            room[p] -= 1
            keys.append(k)
            if len(keys) == partitions * per_partition:
                return keys
    raise AssertionError("not enough keys")


def test_on_demand_serves_double_the_previous_peak_and_throttles_beyond() -> None:
    """The model's constants shrunk 100-fold (as CapacityConfig allows tests to): a partition
    serves 10 WRU/s, a new on-demand table 40 WRU/s on its 4 partitions."""
    server = DynemuServer(clock="virtual", throttling=True)
    url = server.start()
    try:
        server.app[NAMESPACES].capacity.partition_write_max = 10
        v = Virtual(url)
        t = v.create("peaks")
        keys = spread_keys(16, 4)
        for k in keys:  # a peak of 64 WRU in one second: the ceilings' savings (4 x 30) carry it
            assert v.put(t, k) is None
        v.advance(120)  # two minutes later the table has scaled to twice that peak
        view = v.partitions(t)
        assert view["summary"]["on_demand_peak"][1] == 64 and len(view["partitions"]) == 16
        for _ in range(5):  # 128 WRU/s, double the previous peak: served at once, and on
            for k in keys * 2:
                assert v.put(t, k) is None
            v.advance(1)
        errors = []
        for _ in range(8):  # 256 WRU/s: beyond what the table has scaled to
            errors += [e for k in keys * 4 if (e := v.put(t, k)) is not None]
            v.advance(1)
        assert errors
        err = errors[-1].response
        assert err["Error"]["Code"] == "ThrottlingException"
        assert err["Error"]["Message"] == ON_DEMAND_MESSAGE
        assert err["throttlingReasons"] == [{"reason": "TableWriteKeyRangeThroughputExceeded", "resource": arn(v, t)}]
    finally:
        server.stop()


def test_split_bookkeeping_is_exact_after_writes_and_deletes() -> None:
    with DynemuServer(clock="virtual", throttling=True, partition_size=64 * KB) as url:
        v = Virtual(url)
        t = v.create("bookkeeping", rcu=1, wcu=100)  # one partition
        for i in range(72):  # 72 KB: more than one 64 KB partition holds
            assert v.put(t, f"k{i}") is None
        def books() -> tuple[int, int, list[dict[str, Any]]]:
            desc = v.ddb.describe_table(TableName=t)["Table"]
            return desc["ItemCount"], desc["TableSizeBytes"], v.partitions(t)["partitions"]

        count, size, parts = books()
        assert count == 72 and len(parts) >= 2  # the full partition split
        assert sum(p["item_count"] for p in parts) == count and sum(p["size_bytes"] for p in parts) == size
        assert all(p["size_bytes"] <= 64 * KB for p in parts)
        for i in range(0, 72, 2):
            v.ddb.delete_item(TableName=t, Key={"pk": {"S": f"k{i}"}})
        v.ddb.put_item(TableName=t, Item={"pk": {"S": "k1"}, "v": {"S": "short"}})  # an overwrite shrinks
        count, size, parts = books()
        assert count == 36
        assert sum(p["item_count"] for p in parts) == count and sum(p["size_bytes"] for p in parts) == size
        assert all(p["item_count"] >= 0 and p["size_bytes"] >= 0 for p in parts)


@pytest.mark.parametrize("virtual", ["gac"], indirect=True)
def test_admin_partition_figures(virtual: Virtual) -> None:
    t = virtual.create("figures", rcu=1, wcu=3999)  # 4 partitions
    virtual.ddb.update_table(TableName=t, ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 400})
    view = virtual.partitions(t)
    # gac: the table's 400 WCU spread over 4 partitions, any one of which may take all 400
    assert [p["allocated_write"] for p in view["partitions"]] == [100] * 4
    assert [p["max_write"] for p in view["partitions"]] == [400] * 4
    for _ in range(3):
        assert virtual.put(t, "hot", 10) is None
    virtual.advance(1)
    view = virtual.partitions(t)
    assert view["hot_keys"]["by_consumed_units"][0] == {"key": {"S": "hot"}, "units": 30.0}
    # 30 WCU in the one second the table has existed: 30/s, not 30 spread over a minute
    assert max(p["consumed_write_per_second"] for p in view["partitions"]) == 30.0
    assert virtual.puts_admitted(t, "hot", 12, kb=300) == 10  # the 3,000 units the ceiling holds
    refused = sum(virtual.put(t, "hot") is not None for _ in range(100))
    assert refused == 100
    view = virtual.partitions(t)
    assert view["hot_keys"]["by_throttles"][0] == {"key": {"S": "hot"}, "throttles": 101}  # exact, no 64 cap
    assert view["summary"]["throttles"] == {"TableWriteKeyRangeThroughputExceeded": 101}
