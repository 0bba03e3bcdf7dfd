"""Every refusal is counted the same way everywhere (issue 39, part 2): each kind of
refusal -- the table's throughput, a hot partition, GSI back-pressure, an on-demand table
beyond double its previous peak, its OnDemandThroughput maximum, and the per-table account
quota -- shows, with the same reason, in the Prometheus counter, the partitions view, the
CloudWatch-style per-minute figures (Read/WriteThrottleEvents, ThrottledRequests) and
Contributor Insights' most throttled keys; and the Prometheus counter keeps a deleted
table's refusals.

The model's constants are shrunk (as CapacityConfig allows tests to): a partition serves
10 WRU or 30 RRU a second, a provisioned bucket keeps 1 s of savings, and the per-table
account quota for on-demand reads is 20 RRU a second. A virtual clock, boto3's retries off.
"""

from __future__ import annotations

import re
import urllib.request
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from dynemu.api.admin.app import NAMESPACES
from dynemu.api.admin.cloudwatch_view import per_minute, throttled_requests
from dynemu.testing import DynemuServer
from tests.test_capacity_spread import keys_on
from tests.test_throttling import Virtual

GSI = [{
    "IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "KEYS_ONLY"},
    "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
}]  # fmt: skip
ATTRS = [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}]


class Seen:
    """What the client saw refused, per resource ``(table, index)``: throttle events by reason
    and requests refused as a whole."""

    def __init__(self, v: Virtual) -> None:
        self.v = v
        self.events: dict[tuple[str, str | None], Counter[str]] = {}
        self.requests: Counter[str] = Counter()

    def event(self, table: str, reason: str, index: str | None = None) -> None:
        self.events.setdefault((table, index), Counter())[reason] += 1

    def refused(self, table: str, err: ClientError) -> None:
        """A request refused as a whole, with its ThrottlingReasons."""
        body = err.response
        reasons = body.get("ThrottlingReasons") or body.get("throttlingReasons")
        assert reasons, body
        for r in reasons:
            index = r["resource"].split("/index/")[1] if "/index/" in r["resource"] else None
            self.event(table, r["reason"], index)
        self.requests[table] += 1

    def put(self, table: str, pk: str, **extra: Any) -> bool:
        try:
            self.v.ddb.put_item(TableName=table, Item={"pk": {"S": pk}, **extra})
        except ClientError as err:
            self.refused(table, err)
            return False
        return True

    def get(self, table: str, pk: str) -> bool:
        try:
            self.v.ddb.get_item(TableName=table, Key={"pk": {"S": pk}}, ConsistentRead=True)
        except ClientError as err:
            self.refused(table, err)
            return False
        return True


@pytest.fixture
def v() -> Iterator[Virtual]:
    server = DynemuServer(clock="virtual", throttling=True)
    url = server.start()
    cfg = server.app[NAMESPACES].capacity
    cfg.partition_write_max, cfg.partition_read_max = 10, 30
    cfg.burst_seconds = 1.0
    cfg.table_quota_read = 20.0
    try:
        yield Virtual(url)
    finally:
        server.stop()


def create(v: Virtual, name: str, **kw: Any) -> str:
    v.create(name, **kw)
    v.ddb.update_contributor_insights(TableName=name, ContributorInsightsAction="ENABLE")
    if "GlobalSecondaryIndexes" in kw:
        v.ddb.update_contributor_insights(TableName=name, IndexName="by-g", ContributorInsightsAction="ENABLE")
    return name


def drive_every_kind(v: Virtual, seen: Seen) -> None:
    """One table per kind of refusal, each refusing a few requests."""
    t = create(v, "table-throughput", rcu=5, wcu=5)  # its bucket: 5 WCU, 1 s of savings
    for i in range(8):
        seen.put(t, f"k{i}")
    t = create(v, "hot-key")  # on-demand: a partition's ceiling holds 30 WRU
    for _ in range(34):
        seen.put(t, "hot")
    t = create(v, "gsi-pressure", rcu=5, wcu=5, AttributeDefinitions=ATTRS, GlobalSecondaryIndexes=GSI)
    for i in range(3):  # the GSI's bucket holds 1 WCU
        seen.put(t, f"k{i}", g={"S": f"g{i}"})
    t = create(v, "on-demand-peak")  # 4 partitions of 10 WRU/s; 80 WRU/s offered for 4 s
    keys = keys_on([2, 2, 2, 2], "k")
    for _ in range(4):
        for _ in range(10):
            for k in keys:
                seen.put(t, k)
        v.advance(1)
    t = create(v, "max-on-demand", OnDemandThroughput={"MaxWriteRequestUnits": 5})
    for i in range(8):
        seen.put(t, f"k{i}")
    t = create(v, "account-quota")  # on-demand reads: the per-table quota is 20 RRU/s here
    for i in range(24):
        seen.get(t, f"k{i % 3}")
    # a batch partly refused (events only) and a transaction cancelled (one request)
    t = create(v, "batch-and-transaction", rcu=5, wcu=5)
    out = v.ddb.batch_write_item(RequestItems={t: [{"PutRequest": {"Item": {"pk": {"S": f"b{i}"}}}} for i in range(8)]})
    for _ in out["UnprocessedItems"].get(t, []):
        seen.event(t, "TableWriteProvisionedThroughputExceeded")
    with pytest.raises(ClientError) as info:
        v.ddb.transact_write_items(TransactItems=[{"Put": {"TableName": t, "Item": {"pk": {"S": "x"}}}}])
    reasons = info.value.response["CancellationReasons"]
    assert [r["Code"] for r in reasons] == ["ProvisionedThroughputExceeded"]
    seen.event(t, "TableWriteProvisionedThroughputExceeded")
    seen.requests[t] += 1
    v.advance(61)  # every minute complete


def prometheus(v: Virtual) -> dict[tuple[str, str | None], Counter[str]]:
    with urllib.request.urlopen(v.url + "/_dynemu/metrics") as resp:
        text = resp.read().decode()
    out: dict[tuple[str, str | None], Counter[str]] = {}
    pattern = r'dynemu_throttled_requests_total\{namespace="[^"]*",table="([^"]*)",index="([^"]*)",reason="(\w+)"\} (\d+)'
    for table, index, reason, n in re.findall(pattern, text):
        out.setdefault((table, index or None), Counter())[reason] += int(n)
    return out


def views(v: Virtual, table: str, index: str | None) -> dict[str, Any]:
    """The throttles of one table or GSI as each view shows them."""
    q = f"?index={index}" if index else ""
    parts = v.admin(f"/_dynemu/tables/{table}/partitions{q}")
    by_partition: Counter[str] = Counter()
    for p in parts["partitions"]:
        by_partition.update(p["throttles"])
    history = v.admin(f"/_dynemu/tables/{table}/history{q}")["seconds"]
    cloudwatch: Counter[str] = Counter()
    for h in history:
        cloudwatch.update(h["throttles"])
    minutes = per_minute(history)
    insights = v.admin(f"/_dynemu/tables/{table}/contributor-insights{q}")
    pkt = next(r for r in insights["reports"] if r["kind"] == "PKT")
    return {
        "summary": Counter(parts["summary"]["throttles"]),
        "partitions": by_partition,
        "cloudwatch": cloudwatch,
        "read_events": sum(m[2] for m in minutes.values()),
        "write_events": sum(m[3] for m in minutes.values()),
        "throttled_requests": sum(throttled_requests(history).values()),
        "insights_throttled_keys": sum(row["count"] for m in pkt["minutes"] for row in m["top"]),
    }


def test_every_refusal_counts_alike_in_all_four_views(v: Virtual) -> None:
    seen = Seen(v)
    drive_every_kind(v, seen)
    reasons = {r for c in seen.events.values() for r in c}
    assert reasons == {
        "TableWriteProvisionedThroughputExceeded",
        "TableWriteKeyRangeThroughputExceeded",
        "IndexWriteProvisionedThroughputExceeded",
        "TableWriteMaxOnDemandThroughputExceeded",
        "TableReadAccountLimitExceeded",
    }
    prom = prometheus(v)
    for (table, index), events in seen.events.items():
        got = views(v, table, index)
        where = f"{table} {index or ''}"
        assert prom[(table, index)] == events, where
        assert got["summary"] == events, where
        assert got["partitions"] == events, where
        assert got["cloudwatch"] == events, where
        reads = sum(n for r, n in events.items() if "Read" in r)
        assert (got["read_events"], got["write_events"]) == (reads, sum(events.values()) - reads), where
        assert got["insights_throttled_keys"] == sum(events.values()), where
        if index is None:
            assert got["throttled_requests"] == seen.requests[table], where
    # a GSI's refusal is a ThrottledRequests of its table
    assert views(v, "gsi-pressure", None)["throttled_requests"] == seen.requests["gsi-pressure"] > 0


def test_a_deleted_tables_refusals_stay_in_the_prometheus_counter(v: Virtual) -> None:
    seen = Seen(v)
    t = create(v, "short-lived", rcu=5, wcu=5)
    for i in range(8):
        seen.put(t, f"k{i}")
    assert seen.events[(t, None)] == {"TableWriteProvisionedThroughputExceeded": 3}
    v.ddb.delete_table(TableName=t)
    # a counter never goes down: the refusals of deleted tables are kept under table=""
    assert prometheus(v)[("", None)] == {"TableWriteProvisionedThroughputExceeded": 3}
