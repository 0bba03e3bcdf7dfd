"""CloudWatch's throttle metrics by reason, over HTTP with boto3 (metrics-dimensions.html; "CloudWatch
throttling metrics"): Read/Write x KeyRangeThroughput, ProvisionedThroughput,
MaxOnDemandThroughput and AccountLimit ThrottleEvents, each counting the throttle events whose
ThrottlingReason ends in that limit type, by TableName (and GlobalSecondaryIndexName), with Sum,
SampleCount, Minimum and Maximum. The reasons each table gets are read off the client's own
errors, so the metrics are checked against what the client saw.

Two tables on a virtual clock: an on-demand one whose one key takes 1,200 WCU a second (a
partition serves 1,000: KeyRangeThroughputExceeded once its burst is spent), and a provisioned
one of 1 WCU taking 12 writes a second (ProvisionedThroughputExceeded)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest

from dynemu.api.admin.app import NAMESPACES
from dynemu.testing import DynemuServer
from tests.conftest import make_client
from tests.test_cloudwatch_api import at, cloudwatch

HOT_KEY, PROVISIONED = "reasons-hot-key", "reasons-provisioned"
SECONDS = 30
LIMITS = ("KeyRangeThroughput", "ProvisionedThroughput", "MaxOnDemandThroughput", "AccountLimit")


def _reason(err: Any) -> str:
    members = err.response.get("ThrottlingReasons") or err.response.get("throttlingReasons")
    assert members and len(members) == 1, err.response
    return str(members[0]["reason"])


@pytest.fixture(scope="module")
def throttled() -> Iterator[tuple[str, int, dict[str, Counter[str]], Counter[int]]]:
    """(url, M0, per table the client's throttles by ThrottlingReason, the hot key's per second)."""
    server = DynemuServer(clock="virtual", throttling=True)
    url = server.start()
    try:
        clock = server.app[NAMESPACES].clock
        ddb = make_client(url)
        key = {"KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
               "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}  # fmt: skip
        ddb.create_table(TableName=HOT_KEY, BillingMode="PAY_PER_REQUEST", **key)
        ddb.create_table(TableName=PROVISIONED, ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
                         **key)  # fmt: skip
        clock.advance(60 - clock.now() % 60)
        m0 = int(clock.now())
        seen: dict[str, Counter[str]] = {HOT_KEY: Counter(), PROVISIONED: Counter()}
        hot_seconds: Counter[int] = Counter()
        big = "x" * 40_000  # 40 WCU
        for second in range(SECONDS):
            for table, count, item in ((HOT_KEY, 30, {"pk": {"S": "hot"}, "v": {"S": big}}),
                                       (PROVISIONED, 12, {"pk": {"S": f"k{second}"}})):  # fmt: skip
                for _ in range(count):
                    try:
                        ddb.put_item(TableName=table, Item=item)
                    except (ddb.exceptions.ThrottlingException,
                            ddb.exceptions.ProvisionedThroughputExceededException) as err:  # fmt: skip
                        seen[table][_reason(err)] += 1
                        hot_seconds[second] += table == HOT_KEY
            clock.advance(1)
        yield url, m0, seen, +hot_seconds
    finally:
        server.stop()


def _points(cw: Any, m0: int, metric: str, table: str, period: int = 60) -> list[dict[str, Any]]:
    got = cw.get_metric_statistics(
        Namespace="AWS/DynamoDB", MetricName=metric, Dimensions=[{"Name": "TableName", "Value": table}],
        StartTime=at(m0), EndTime=at(m0 + 120), Period=period,
        Statistics=["Sum", "SampleCount", "Minimum", "Maximum"],
    )  # fmt: skip
    return sorted(got["Datapoints"], key=lambda d: d["Timestamp"])


def test_each_reason_has_its_metric(throttled: tuple[str, int, dict[str, Counter[str]], Counter[int]]) -> None:
    url, m0, seen, _ = throttled
    assert seen[HOT_KEY]["TableWriteKeyRangeThroughputExceeded"] > 0
    assert seen[PROVISIONED]["TableWriteProvisionedThroughputExceeded"] > 0
    cw = cloudwatch(url)
    for table in (HOT_KEY, PROVISIONED):
        total = 0.0
        for kind in ("Read", "Write"):
            for limit in LIMITS:
                points = _points(cw, m0, f"{kind}{limit}ThrottleEvents", table)
                expected = seen[table][f"Table{kind}{limit}Exceeded"]
                assert sum(p["Sum"] for p in points) == expected, (table, kind, limit)
                assert (points == []) == (expected == 0)  # an event metric has no zero samples
                total += sum(p["Sum"] for p in points)
        events = _points(cw, m0, "WriteThrottleEvents", table)
        assert total == sum(p["Sum"] for p in events) > 0  # the reasons split the events


def test_sample_count_minimum_and_maximum_are_per_second(throttled: tuple[str, int, dict[str, Counter[str]], Counter[int]]) -> None:
    url, m0, _, hot_seconds = throttled
    per_second = [hot_seconds[s] for s in sorted(hot_seconds)]  # the seconds with throttles
    (point,) = _points(cw := cloudwatch(url), m0, "WriteKeyRangeThroughputThrottleEvents", HOT_KEY)
    assert (point["Sum"], point["SampleCount"]) == (sum(per_second), len(per_second))
    assert (point["Minimum"], point["Maximum"]) == (min(per_second), max(per_second))
    seconds = _points(cw, m0, "WriteKeyRangeThroughputThrottleEvents", HOT_KEY, period=1)
    assert [p["Sum"] for p in seconds] == per_second


def test_listed_once_they_have_data(throttled: tuple[str, int, dict[str, Counter[str]], Counter[int]]) -> None:
    url, _, _, _ = throttled
    cw = cloudwatch(url)
    for table, reason in ((HOT_KEY, "WriteKeyRangeThroughputThrottleEvents"),
                          (PROVISIONED, "WriteProvisionedThroughputThrottleEvents")):  # fmt: skip
        got = cw.list_metrics(Namespace="AWS/DynamoDB", Dimensions=[{"Name": "TableName", "Value": table}])["Metrics"]
        names = {m["MetricName"] for m in got}
        by_reason = {n for n in names if any(limit in n for limit in LIMITS) and n.endswith("ThrottleEvents")}
        assert by_reason == {reason}
        only = cw.list_metrics(MetricName=reason)["Metrics"]
        assert [m["Dimensions"] for m in only] == [[{"Name": "TableName", "Value": table}]]
