"""Account-level limits (issue 39, part 3): the account's provisioned throughput maxima per
region refuse CreateTable and UpdateTable with LimitExceededException, and traffic produces
each of the 16 throttling reasons (ResourceType + OperationType + LimitType,
API_ThrottlingReason.html), the account-level ones included.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from dynemu.api.admin.app import NAMESPACES
from dynemu.testing import DynemuServer
from tests.test_capacity_spread import keys_on
from tests.test_throttling import Virtual

LIMIT_TAIL = "Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."


def account_message(which: str, reserved: int, limit: int, requested: int) -> str:
    return (
        f"This request would have caused the {which} limit to be exceeded for the account in us-east-1. "
        f"Current {which} reserved by the account: {reserved}. Limit: {limit}. Requested: {requested}. {LIMIT_TAIL}"
    )


def table_args(name: str, rcu: int, wcu: int, gsi: tuple[int, int] | None = None) -> dict[str, Any]:
    args: dict[str, Any] = {
        "TableName": name,
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        "ProvisionedThroughput": {"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu},
    }
    if gsi is not None:
        args["GlobalSecondaryIndexes"] = [{
            "IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
            "ProvisionedThroughput": {"ReadCapacityUnits": gsi[0], "WriteCapacityUnits": gsi[1]},
        }]  # fmt: skip
    else:
        args["AttributeDefinitions"] = args["AttributeDefinitions"][:1]
    return args


def limit_error(call: Any, **kw: Any) -> str:
    with pytest.raises(ClientError) as info:
        call(**kw)
    err = info.value.response["Error"]
    assert err["Code"] == "LimitExceededException"
    return str(err["Message"])


def test_create_and_update_table_beyond_the_account_maxima(ddb_account: Any) -> None:
    ddb = ddb_account
    limits = ddb.describe_limits()
    assert (limits["AccountMaxReadCapacityUnits"], limits["AccountMaxWriteCapacityUnits"]) == (1000, 500)
    ddb.create_table(**table_args("tab-a", 600, 100, gsi=(200, 100)))  # 800 RCU and 200 WCU reserved
    msg = limit_error(ddb.create_table, **table_args("tab-b", 201, 10))
    assert msg == account_message("ReadCapacityUnits", 800, 1000, 201)
    msg = limit_error(ddb.create_table, **table_args("tab-b", 10, 301, gsi=(1, 1)))
    assert msg == account_message("WriteCapacityUnits", 200, 500, 302)
    assert "tab-b" not in ddb.list_tables()["TableNames"]
    ddb.create_table(**table_args("tab-b", 200, 300))  # exactly the maxima: accepted
    # UpdateTable: an increase beyond what is left is refused, and changes nothing
    msg = limit_error(ddb.update_table, TableName="tab-a",
                      ProvisionedThroughput={"ReadCapacityUnits": 601, "WriteCapacityUnits": 100})  # fmt: skip
    assert msg == account_message("ReadCapacityUnits", 1000, 1000, 1)
    msg = limit_error(ddb.update_table, TableName="tab-a", GlobalSecondaryIndexUpdates=[
        {"Update": {"IndexName": "by-g", "ProvisionedThroughput": {"ReadCapacityUnits": 200, "WriteCapacityUnits": 150}}}
    ])  # fmt: skip
    assert msg == account_message("WriteCapacityUnits", 500, 500, 50)
    desc = ddb.describe_table(TableName="tab-a")["Table"]
    assert desc["ProvisionedThroughput"]["ReadCapacityUnits"] == 600
    assert desc["GlobalSecondaryIndexes"][0]["ProvisionedThroughput"]["WriteCapacityUnits"] == 100
    # a decrease, or moving reserved units from one table to another, is accepted
    ddb.update_table(TableName="tab-a", ProvisionedThroughput={"ReadCapacityUnits": 500, "WriteCapacityUnits": 100})
    ddb.update_table(TableName="tab-b", ProvisionedThroughput={"ReadCapacityUnits": 300, "WriteCapacityUnits": 300})
    # an on-demand table reserves nothing; switching one to provisioned reserves its units
    ddb.create_table(TableName="on-demand", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST")  # fmt: skip
    msg = limit_error(ddb.update_table, TableName="on-demand", BillingMode="PROVISIONED",
                      ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})  # fmt: skip
    assert msg == account_message("ReadCapacityUnits", 1000, 1000, 1)
    ddb.delete_table(TableName="tab-b")  # deleting frees its units
    ddb.update_table(TableName="on-demand", BillingMode="PROVISIONED",
                     ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})  # fmt: skip


@pytest.fixture
def ddb_account() -> Iterator[Any]:
    with DynemuServer(account_max_read=1000, account_max_write=500) as url:
        yield Virtual(url).ddb


# --- the 16 reasons ---------------------------------------------------------------------------

REASONS = {
    f"{resource}{op}{limit}"
    for resource in ("Table", "Index")
    for op in ("Read", "Write")
    for limit in ("KeyRangeThroughputExceeded", "ProvisionedThroughputExceeded", "AccountLimitExceeded",
                  "MaxOnDemandThroughputExceeded")
}  # fmt: skip
GSI_ON_DEMAND = {
    "IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "ALL"},
}  # fmt: skip
ATTRS = [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}]


class Driver:
    """Requests that record the throttling reasons they get back."""

    def __init__(self, v: Virtual) -> None:
        self.v = v
        self.reasons: set[str] = set()

    def call(self, op: str, **kw: Any) -> bool:
        try:
            getattr(self.v.ddb, op)(**kw)
        except ClientError as err:
            body = err.response
            for r in body.get("ThrottlingReasons") or body.get("throttlingReasons") or []:
                self.reasons.add(r["reason"])
            assert body["Error"]["Code"] in ("ThrottlingException", "ProvisionedThroughputExceededException"), body
            return False
        return True

    def put(self, t: str, pk: str, g: str | None = None, kb: int = 0) -> bool:
        item = {"pk": {"S": pk}, "v": {"S": "x" * (kb * 1024)}}
        if g is not None:
            item["g"] = {"S": g}
        return self.call("put_item", TableName=t, Item=item)

    def get(self, t: str, pk: str) -> bool:
        return self.call("get_item", TableName=t, Key={"pk": {"S": pk}}, ConsistentRead=True)

    def query_index(self, t: str, g: str) -> bool:
        return self.call("query", TableName=t, IndexName="by-g", KeyConditionExpression="g = :g",
                         ExpressionAttributeValues={":g": {"S": g}})  # fmt: skip

    def until_refused(self, attempt: Any, most: int = 1000) -> None:
        for i in range(most):
            if not attempt(i):
                return
        raise AssertionError("never refused")


@pytest.fixture
def v() -> Iterator[Virtual]:
    """Ceilings of 30 RRU / 10 WRU a partition, 1 s of provisioned savings, and per-table
    account quotas (on-demand tables and GSIs) of 200 RRU and 60 WRU a second."""
    server = DynemuServer(clock="virtual", throttling=True)
    url = server.start()
    cfg = server.app[NAMESPACES].capacity
    cfg.partition_write_max, cfg.partition_read_max = 10, 30
    cfg.burst_seconds = 1.0
    cfg.table_quota_read, cfg.table_quota_write = 200.0, 60.0
    try:
        yield Virtual(url)
    finally:
        server.stop()


def test_every_throttling_reason_is_produced_by_traffic(v: Virtual) -> None:
    d = Driver(v)
    ddb = v.ddb
    # provisioned: the table's and the GSI's own throughput
    v.create("prov", rcu=5, wcu=5, AttributeDefinitions=ATTRS, GlobalSecondaryIndexes=[
        {**GSI_ON_DEMAND, "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1}}])
    d.until_refused(lambda i: d.put("prov", f"k{i}"))  # TableWriteProvisioned
    d.until_refused(lambda i: d.get("prov", f"k{i}"))  # TableReadProvisioned
    v.advance(10)
    d.until_refused(lambda i: d.put("prov", f"g{i}", g="x"))  # IndexWriteProvisioned
    v.advance(10)
    d.until_refused(lambda i: d.query_index("prov", "x"))  # IndexReadProvisioned
    # on-demand: hot keys on the table and on the GSI
    v.create("on-demand", AttributeDefinitions=ATTRS, GlobalSecondaryIndexes=[GSI_ON_DEMAND])
    d.until_refused(lambda i: d.put("on-demand", "hot"))  # TableWriteKeyRange
    d.until_refused(lambda i: d.get("on-demand", "hot"))  # TableReadKeyRange
    v.advance(10)
    keys = keys_on([15, 15, 15, 15], "s")  # spread on the table, one key on the GSI
    d.until_refused(lambda i: d.put("on-demand", keys[i], g="hot"))  # IndexWriteKeyRange
    v.advance(10)
    d.until_refused(lambda i: d.query_index("on-demand", "hot"))  # IndexReadKeyRange
    # on-demand: the per-table account quota, on the table and on its GSI
    v.advance(10)
    d.until_refused(lambda i: d.get("on-demand", keys[i % 60]))  # TableReadAccountLimit: 200 RRU a second
    v.advance(10)
    d.until_refused(lambda i: d.put("on-demand", keys[i % 60]))  # TableWriteAccountLimit: 60 WRU a second
    v.advance(10)
    g_keys = keys_on([10, 10, 10, 10], "g")  # 5 KB entries: 1 RRU a query, 5 WRU a write
    for k in g_keys:
        d.put("on-demand", k, g=k, kb=5)
        v.advance(0.2)
    v.advance(10)
    d.until_refused(lambda i: d.query_index("on-demand", g_keys[i % 40]))  # IndexReadAccountLimit
    v.advance(10)
    # moving an entry to another index key writes the GSI twice (a delete and a put): the
    # GSI spends its 60 WRU before the table does
    d.until_refused(lambda i: d.call("update_item", TableName="on-demand", Key={"pk": {"S": g_keys[i % 40]}},
                                     UpdateExpression="SET g = :g", ExpressionAttributeValues={":g": {"S": f"m{i}"}}))  # fmt: skip
    # on-demand: OnDemandThroughput maxima, on the table and on its GSI
    v.create("capped", AttributeDefinitions=ATTRS, OnDemandThroughput={"MaxReadRequestUnits": 5, "MaxWriteRequestUnits": 5},
             GlobalSecondaryIndexes=[{**GSI_ON_DEMAND, "OnDemandThroughput": {"MaxReadRequestUnits": 5, "MaxWriteRequestUnits": 5}}])  # fmt: skip
    assert d.put("capped", "first", g="x0")  # the GSI's capacity is in use before the UpdateTable below
    d.until_refused(lambda i: d.put("capped", f"k{i}"))  # TableWriteMaxOnDemand
    d.until_refused(lambda i: d.get("capped", f"k{i}"))  # TableReadMaxOnDemand
    ddb.update_table(TableName="capped", OnDemandThroughput={"MaxReadRequestUnits": 100, "MaxWriteRequestUnits": 100})
    v.advance(10)  # the table's buckets fill to its new maxima; the GSI keeps its own
    d.until_refused(lambda i: d.put("capped", f"g{i}", g=f"x{i}", kb=1))  # IndexWriteMaxOnDemand
    v.advance(10)
    d.until_refused(lambda i: d.query_index("capped", f"x{i % 5}"))  # IndexReadMaxOnDemand
    assert d.reasons == REASONS, sorted(REASONS - d.reasons)
