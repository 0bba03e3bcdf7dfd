"""What the capacity model keeps across a restart (issue 39, part 4; docs/capacity.md, "Across
a restart"): Contributor Insights settings, each GSI's partition map (its sizes measured
again on first use, the first request admitted), and the model's balances, so a restart in
the middle of a burst does not hand out a fresh burst allowance. On LevelDB (SQLite where
plyvel is missing), a clean stop between the runs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dynemu.testing import DynemuServer
from tests.conftest import make_client
from tests.test_throttling import Virtual

KB = 1024
GSI = {
    "IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "ALL"},
}  # fmt: skip
ATTRS = [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}]


def server(data_dir: Path, **kw: Any) -> DynemuServer:
    return DynemuServer(data_dir=str(data_dir), clock="virtual", throttling=True, **kw)


def test_contributor_insights_settings_survive_a_restart(tmp_path: Path) -> None:
    s = server(tmp_path)
    v = Virtual(s.start())
    v.create("orders", AttributeDefinitions=ATTRS, GlobalSecondaryIndexes=[GSI])
    v.ddb.update_contributor_insights(TableName="orders", ContributorInsightsAction="ENABLE")
    v.ddb.update_contributor_insights(TableName="orders", IndexName="by-g", ContributorInsightsAction="ENABLE",
                                      ContributorInsightsMode="THROTTLED_KEYS")  # fmt: skip
    v.advance(1)
    before = [v.ddb.describe_contributor_insights(TableName="orders", **kw) for kw in ({}, {"IndexName": "by-g"})]
    assert [b["ContributorInsightsStatus"] for b in before] == ["ENABLED", "ENABLED"]
    s.stop()
    v = Virtual(s.start())
    try:
        v.advance(2)  # a virtual clock starts again from the wall clock's second: past the changes
        after = [v.ddb.describe_contributor_insights(TableName="orders", **kw) for kw in ({}, {"IndexName": "by-g"})]
        for b, a in zip(before, after, strict=True):
            b.pop("ResponseMetadata"), a.pop("ResponseMetadata")
            assert a == b
        assert after[1]["ContributorInsightsMode"] == "THROTTLED_KEYS"
        assert after[0]["ContributorInsightsRuleList"][0].startswith("DynamoDBContributorInsights-PKC-orders-")
        # and a DISABLE is kept too
        v.ddb.update_contributor_insights(TableName="orders", ContributorInsightsAction="DISABLE")
        v.advance(1)
    finally:
        s.stop()
    v = Virtual(s.start())
    try:
        v.advance(10)  # a virtual clock starts again from the wall clock's second: past the DISABLE
        got = v.ddb.describe_contributor_insights(TableName="orders")
        assert got["ContributorInsightsStatus"] == "DISABLED"
    finally:
        s.stop()


def test_a_restart_mid_burst_resumes_with_what_the_burst_left(tmp_path: Path) -> None:
    """A hot key spends its partition's balance (3,000 units) and spike allowance (3,000);
    after the restart the partition has what it had plus the refill of the clock time that
    passed, not a fresh allowance."""
    s = server(tmp_path)
    v = Virtual(s.start())
    v.create("burst")
    admitted = 0
    while v.put("burst", "hot", 290) is None:
        admitted += 1
    assert admitted == 11  # 3,000 units, the last write's excess taken from the spike allowance
    hot = v.partitions("burst")["partitions"]
    assert min(p["spike_allowance_seconds"] for p in hot) < 3.0
    assert min(p["bucket_write"] for p in hot) <= 0.0
    now1 = v.admin("/_dynemu/clock")["now"]
    s.stop()
    v = Virtual(s.start())
    try:
        now2 = v.admin("/_dynemu/clock")["now"]
        assert now2 >= now1
        after = v.partitions("burst")["partitions"]
        for b, a in zip(hot, after, strict=True):
            assert a["spike_allowance_seconds"] == b["spike_allowance_seconds"]  # no fresh allowance
            expected = min(3000.0, b["bucket_write"] + 1000.0 * (now2 - now1))  # the refill of the time passed
            assert abs(a["bucket_write"] - expected) < 1e-6, (a, b)
        # a fresh allowance would admit ten such writes at once; the refill of the time passed admits
        assert v.puts_admitted("burst", "hot", 11, kb=290) <= 1 + int(1000.0 * (now2 - now1) / 290)
    finally:
        s.stop()


def test_a_gsi_keeps_its_partitions_and_its_first_request_is_admitted(tmp_path: Path) -> None:
    """A GSI that split for size (64 KB partitions here) has the same partitions after a
    restart, measured again from storage on its first use; that first request is admitted."""
    s = server(tmp_path, partition_size=64 * KB)
    v = Virtual(s.start())
    v.create("gsi-map", AttributeDefinitions=ATTRS, GlobalSecondaryIndexes=[GSI])
    for i in range(200):  # ~200 KB of entries: several 64 KB partitions
        v.ddb.put_item(TableName="gsi-map", Item={"pk": {"S": f"k{i}"}, "g": {"S": f"g{i}"}, "v": {"S": "x" * 1000}})
        v.advance(0.01)
    before = v.admin("/_dynemu/tables/gsi-map/partitions?index=by-g")["partitions"]
    assert len(before) > 2
    s.stop()
    v = Virtual(s.start())
    try:
        ddb = make_client(v.url)
        out = ddb.query(TableName="gsi-map", IndexName="by-g", KeyConditionExpression="g = :g",
                        ExpressionAttributeValues={":g": {"S": "g7"}})  # fmt: skip
        assert out["Count"] == 1
        after = v.admin("/_dynemu/tables/gsi-map/partitions?index=by-g")["partitions"]
        keep = ("start", "end", "item_count", "size_bytes")
        assert [{k: p[k] for k in keep} for p in after] == [{k: p[k] for k in keep} for p in before]
        assert all(p["throttles"] == {} for p in after)
    finally:
        s.stop()
