"""Time to Live through boto3: UpdateTimeToLive / DescribeTimeToLive rules, and the sweeper
on a virtual clock (deletions, eligibility, stream identity, no capacity)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import assert_error, assert_validation
from tests.test_cloudwatch_api import at, cloudwatch
from tests.test_streams_helpers import Harness, by_sequence, serve

HOUR = 3600.0


@pytest.fixture(scope="module")
def harness() -> Iterator[Harness]:
    yield from serve()


def _spec(enabled: bool, attr: str = "ttl") -> dict[str, Any]:
    return {"Enabled": enabled, "AttributeName": attr}


def test_update_and_describe_rules(harness: Harness) -> None:
    d = harness.ddb
    name = harness.create()
    assert d.describe_time_to_live(TableName=name)["TimeToLiveDescription"] == {"TimeToLiveStatus": "DISABLED"}
    assert_validation("TimeToLive is already disabled", d.update_time_to_live, TableName=name,
                      TimeToLiveSpecification=_spec(False))  # fmt: skip
    out = d.update_time_to_live(TableName=name, TimeToLiveSpecification=_spec(True))
    assert out["TimeToLiveSpecification"] == {"Enabled": True, "AttributeName": "ttl"}
    assert d.describe_time_to_live(TableName=name)["TimeToLiveDescription"] == {
        "TimeToLiveStatus": "ENABLED",
        "AttributeName": "ttl",
    }
    # content errors come before the cooldown
    assert_validation("TimeToLive is already enabled", d.update_time_to_live, TableName=name,
                      TimeToLiveSpecification=_spec(True))  # fmt: skip
    other = "TimeToLive is active on a different AttributeName: current AttributeName is ttl"
    assert_validation(other, d.update_time_to_live, TableName=name, TimeToLiveSpecification=_spec(True, "exp"))
    assert_validation(other, d.update_time_to_live, TableName=name, TimeToLiveSpecification=_spec(False, "exp"))
    cooldown = "Time to live has been modified multiple times within a fixed interval"
    assert_validation(cooldown, d.update_time_to_live, TableName=name, TimeToLiveSpecification=_spec(False))
    harness.advance(HOUR)
    out = d.update_time_to_live(TableName=name, TimeToLiveSpecification=_spec(False))
    assert out["TimeToLiveSpecification"] == {"Enabled": False, "AttributeName": "ttl"}
    assert d.describe_time_to_live(TableName=name)["TimeToLiveDescription"] == {"TimeToLiveStatus": "DISABLED"}
    assert_validation(cooldown, d.update_time_to_live, TableName=name, TimeToLiveSpecification=_spec(True, "exp"))
    harness.advance(HOUR)
    d.update_time_to_live(TableName=name, TimeToLiveSpecification=_spec(True, "exp"))  # a new attribute
    assert d.describe_time_to_live(TableName=name)["TimeToLiveDescription"]["AttributeName"] == "exp"
    assert_error("ResourceNotFoundException", "Requested resource not found: Table: nosuchtable not found",
                 d.describe_time_to_live, TableName="nosuchtable")  # fmt: skip


def _key(pk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}}


def _exists(h: Harness, name: str, pk: str) -> bool:
    return "Item" in h.ddb.get_item(TableName=name, Key=_key(pk), ConsistentRead=True)


def test_sweeper_deletes_expired_items_only(harness: Harness) -> None:
    d = harness.ddb
    name, arn = harness.streamed("NEW_AND_OLD_IMAGES")
    d.update_time_to_live(TableName=name, TimeToLiveSpecification=_spec(True, "exp"))
    now = int(harness.now())
    items = {
        "past": {"exp": {"N": str(now - 10)}},
        "fraction": {"exp": {"N": f"{now - 2}.75"}},
        "soon": {"exp": {"N": str(now + 100)}},
        "string": {"exp": {"S": str(now - 10)}},  # not a Number: ignored
        "nested": {"m": {"M": {"exp": {"N": str(now - 10)}}}},  # not top level: ignored
        "ancient": {"exp": {"N": str(now - 6 * 365 * 86400)}},  # more than five years back: ignored
        "none": {"v": {"S": "x"}},
        "later": {"exp": {"N": str(now + 100)}},
    }
    for pk, attrs in items.items():
        d.put_item(TableName=name, Item={"pk": {"S": pk}, **attrs})
    # expired but not yet swept: still readable by every read
    assert _exists(harness, name, "past")
    assert {i["pk"]["S"] for i in d.scan(TableName=name)["Items"]} == set(items)
    # the expiry of "later" moves into the past before any sweep: honoured
    d.update_item(TableName=name, Key=_key("later"), UpdateExpression="SET exp = :e",
                  ExpressionAttributeValues={":e": {"N": str(now - 1)}})  # fmt: skip
    harness.advance(1)  # the sweeper runs
    left = {i["pk"]["S"] for i in d.scan(TableName=name, ConsistentRead=True)["Items"]}
    assert left == {"soon", "string", "nested", "ancient", "none"}
    harness.advance(200)
    left = {i["pk"]["S"] for i in d.scan(TableName=name, ConsistentRead=True)["Items"]}
    assert left == {"string", "nested", "ancient", "none"}
    removes = [r for r in by_sequence(harness.read_all(arn)) if r["eventName"] == "REMOVE"]
    assert sorted(r["dynamodb"]["Keys"]["pk"]["S"] for r in removes) == ["fraction", "later", "past", "soon"]
    for r in removes:
        assert r["userIdentity"] == {"PrincipalId": "dynamodb.amazonaws.com", "Type": "Service"}
        assert "exp" in r["dynamodb"]["OldImage"] and "NewImage" not in r["dynamodb"]
    assert all("userIdentity" not in r for r in harness.read_all(arn) if r["eventName"] != "REMOVE")


def test_sweeper_consumes_no_capacity(harness: Harness) -> None:
    d = harness.ddb
    name = harness.create()
    d.update_time_to_live(TableName=name, TimeToLiveSpecification=_spec(True, "exp"))
    now = int(harness.now())
    for i in range(20):
        d.put_item(TableName=name, Item={"pk": {"S": f"k{i}"}, "exp": {"N": str(now - 5)}})
    state = harness.table(name).capacity.state
    before = list(state.consumed_total)
    count_before = d.describe_table(TableName=name)["Table"]["ItemCount"]
    harness.advance(1)
    assert list(state.consumed_total) == before
    assert count_before == 20 and d.describe_table(TableName=name)["Table"]["ItemCount"] == 0


def test_cloudwatch_counts_the_items_ttl_deleted(harness: Harness) -> None:
    """TimeToLiveDeletedItemCount (metrics-dimensions.html): the items the sweeper deleted, by
    TableName, as Sum; an item whose expiry is still ahead is not counted."""
    d = harness.ddb
    name = harness.create()
    d.update_time_to_live(TableName=name, TimeToLiveSpecification=_spec(True, "exp"))
    now = int(harness.now())
    for i in range(7):
        d.put_item(TableName=name, Item={"pk": {"S": f"k{i}"}, "exp": {"N": str(now - 5 if i < 5 else now + 10**6)}})
    harness.advance(1)
    harness.advance(61)  # the minute of the sweep is complete
    cw = cloudwatch(harness.server.url)
    got = cw.get_metric_statistics(
        Namespace="AWS/DynamoDB", MetricName="TimeToLiveDeletedItemCount",
        Dimensions=[{"Name": "TableName", "Value": name}], StartTime=at(now - now % 60 - 60),
        EndTime=at(now + 180), Period=60, Statistics=["Sum"],
    )["Datapoints"]  # fmt: skip
    assert sum(p["Sum"] for p in got) == 5.0 and len(got) == 1
    listed = cw.list_metrics(MetricName="TimeToLiveDeletedItemCount")["Metrics"]
    assert [{"Name": "TableName", "Value": name}] in [m["Dimensions"] for m in listed]


def test_disabled_ttl_deletes_nothing(harness: Harness) -> None:
    d = harness.ddb
    name = harness.create()
    d.update_time_to_live(TableName=name, TimeToLiveSpecification=_spec(True, "exp"))
    harness.advance(HOUR)
    d.update_time_to_live(TableName=name, TimeToLiveSpecification=_spec(False, "exp"))
    d.put_item(TableName=name, Item={"pk": {"S": "x"}, "exp": {"N": str(int(harness.now()) - 5)}})
    harness.advance(10)
    assert _exists(harness, name, "x")


def test_enabling_indexes_existing_items(harness: Harness) -> None:
    d = harness.ddb
    name = harness.create()
    now = int(harness.now())
    d.put_item(TableName=name, Item={"pk": {"S": "old"}, "exp": {"N": str(now + 30)}})
    d.update_time_to_live(TableName=name, TimeToLiveSpecification=_spec(True, "exp"))
    harness.advance(31)
    assert not _exists(harness, name, "old")
