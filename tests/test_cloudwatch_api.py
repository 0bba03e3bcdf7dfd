"""CloudWatch's API on dynemu's port, over HTTP with boto3's cloudwatch client (JSON 1.0, its
default), the same client speaking RPC v2 CBOR and query, and the AWS CLI: each statistic,
period alignment, paging, dimensions, Contributor Insights' rules, and the errors.

The traffic is known second by second on a virtual clock: from a minute boundary M0, second i
writes i % 3 + 1 items of under 1 KB to a table provisioned well above it (1, 2 or 3 WCU), so
each minute sums to 120 WCU; a second table is throttled on purpose."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import urllib.request
import weakref
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import boto3
import pytest
from botocore import serialize
from botocore.config import Config

from dynemu import errors
from dynemu.api.admin.app import NAMESPACES
from dynemu.engine.capacity import retention
from dynemu.engine.capacity.retention import Retention, Ring
from dynemu.engine.cloudwatch import requests
from dynemu.testing import DynemuServer
from tests.conftest import make_client
from tests.helpers import error_of

KNOWN, HOT = "cw-known", "cw-hot"
SECONDS = 120


def at(t: float) -> datetime:
    return datetime.fromtimestamp(t, UTC)


def cloudwatch(url: str, protocol: str = "json", validate: bool = True) -> Any:
    """boto3's cloudwatch client; ``protocol`` "smithy-rpc-v2-cbor" or "query" makes it speak
    that protocol of the model's three (boto3 1.44 picks json)."""
    client = boto3.client(
        "cloudwatch", endpoint_url=url, region_name="us-east-1", aws_access_key_id="AKIDTEST",
        aws_secret_access_key="secret",
        config=Config(retries={"total_max_attempts": 1}, parameter_validation=validate),
    )  # fmt: skip
    if protocol != "json":
        client._serializer = serialize.create_serializer(protocol)
        client.meta.service_model.__dict__["resolved_protocol"] = protocol
    return client


def hot_table(ddb: Any, name: str) -> None:
    """A table of 1 RCU and 1 WCU with Contributor Insights on: the one throttled on purpose."""
    ddb.create_table(
        TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
    )  # fmt: skip
    ddb.update_contributor_insights(TableName=name, ContributorInsightsAction="ENABLE")


def hot_second(ddb: Any, name: str, i: int) -> int:
    """Second ``i`` of half a minute of 12 writes a second on 1 WCU (its burst runs out), 10 on
    key "hot": the writes the client saw throttled."""
    throttled = 0
    for j in range(12):
        try:
            ddb.put_item(TableName=name, Item={"pk": {"S": "hot" if j < 10 else f"c{i}-{j}"}})
        except ddb.exceptions.ProvisionedThroughputExceededException:
            throttled += 1
    return throttled


@pytest.fixture(scope="module")
def traffic() -> Iterator[tuple[str, int, int]]:
    """(url, M0, throttled requests seen by the client)."""
    server = DynemuServer(clock="virtual", throttling=True)
    url = server.start()
    try:
        clock = server.app[NAMESPACES].clock
        ddb = make_client(url)
        ddb.create_table(
            TableName=KNOWN, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                  {"AttributeName": "g", "AttributeType": "S"}],
            ProvisionedThroughput={"ReadCapacityUnits": 100, "WriteCapacityUnits": 100},
            GlobalSecondaryIndexes=[{
                "IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
                "ProvisionedThroughput": {"ReadCapacityUnits": 100, "WriteCapacityUnits": 100}}],
        )  # fmt: skip
        hot_table(ddb, HOT)
        clock.advance(60 - clock.now() % 60)
        m0 = int(clock.now())
        throttled = 0
        for i in range(SECONDS):
            for j in range(i % 3 + 1):
                ddb.put_item(TableName=KNOWN, Item={"pk": {"S": f"k{i}-{j}"}, "g": {"S": "x"}})
            if 60 <= i < 90:
                throttled += hot_second(ddb, HOT, i)
            clock.advance(1)
        yield url, m0, throttled
    finally:
        server.stop()


def per_second(i: int) -> float:
    return float(i % 3 + 1)


def stats(cw: Any, m0: int, start: int, end: int, period: int, **kw: Any) -> list[dict[str, Any]]:
    got = cw.get_metric_statistics(
        Namespace="AWS/DynamoDB", MetricName=kw.pop("metric", "ConsumedWriteCapacityUnits"),
        Dimensions=kw.pop("dims", [{"Name": "TableName", "Value": KNOWN}]),
        StartTime=at(m0 + start), EndTime=at(m0 + end), Period=period, **kw,
    )  # fmt: skip
    return sorted(got["Datapoints"], key=lambda d: d["Timestamp"])


# --- statistics and alignment ----------------------------------------------------------------------------


def test_each_statistic_per_minute(traffic: tuple[str, int, int]) -> None:
    url, m0, _ = traffic
    points = stats(cloudwatch(url), m0, 0, SECONDS, 60,
                   Statistics=["Sum", "SampleCount", "Average", "Minimum", "Maximum"],
                   ExtendedStatistics=["p50", "p99"])  # fmt: skip
    assert [p["Timestamp"] for p in points] == [at(m0), at(m0 + 60)]
    for p in points:
        assert (p["Sum"], p["SampleCount"], p["Average"], p["Minimum"], p["Maximum"]) == (120.0, 60.0, 2.0, 1.0, 3.0)
        assert p["ExtendedStatistics"] == {"p50": 2.0, "p99": 3.0}
        assert p["Unit"] == "Count"


def test_start_rounds_down_to_the_minute_and_end_is_exclusive(traffic: tuple[str, int, int]) -> None:
    url, m0, _ = traffic
    points = stats(cloudwatch(url), m0, 17, 60, 60, Statistics=["Sum"])
    assert [(p["Timestamp"], p["Sum"]) for p in points] == [(at(m0), 120.0)]  # the whole first minute
    points = stats(cloudwatch(url), m0, 17, 40, 10, Statistics=["Sum"])  # 10 s periods from :10, not :40
    want = [(at(m0 + s), sum(per_second(i) for i in range(s, s + 10))) for s in (10, 20, 30)]
    assert [(p["Timestamp"], p["Sum"]) for p in points] == want


def test_one_second_period(traffic: tuple[str, int, int]) -> None:
    url, m0, _ = traffic
    points = stats(cloudwatch(url), m0, 0, 9, 1, Statistics=["Sum"])
    assert [(p["Timestamp"], p["Sum"]) for p in points] == [(at(m0 + i), per_second(i)) for i in range(9)]


def test_provisioned_and_gsi_dimensions(traffic: tuple[str, int, int]) -> None:
    url, m0, _ = traffic
    cw = cloudwatch(url)
    gsi = [{"Name": "TableName", "Value": KNOWN}, {"Name": "GlobalSecondaryIndexName", "Value": "by-g"}]
    points = stats(cw, m0, 0, 60, 60, dims=gsi, Statistics=["Sum"])
    assert [p["Sum"] for p in points] == [120.0]  # every item carries g: one GSI write each
    points = stats(cw, m0, 0, 60, 60, metric="ProvisionedWriteCapacityUnits", Statistics=["Maximum", "Minimum"])
    assert [(p["Maximum"], p["Minimum"]) for p in points] == [(100.0, 100.0)]
    # a dimension set no metric has, another namespace, an unknown metric: no datapoints
    assert stats(cw, m0, 0, 60, 60, dims=gsi[1:], Statistics=["Sum"]) == []
    assert stats(cw, m0, 0, 60, 60, metric="NoSuchMetric", Statistics=["Sum"]) == []
    got = cw.get_metric_statistics(Namespace="AWS/EC2", MetricName="ConsumedWriteCapacityUnits",
                                   Dimensions=gsi[:1], StartTime=at(m0), EndTime=at(m0 + 60), Period=60,
                                   Statistics=["Sum"])  # fmt: skip
    assert got["Datapoints"] == []
    # a unit that is not the metric's: no datapoints
    assert stats(cw, m0, 0, 60, 60, Statistics=["Sum"], Unit="Bytes") == []


def test_throttle_metrics_count_what_the_client_saw(traffic: tuple[str, int, int]) -> None:
    url, m0, throttled = traffic
    assert throttled > 0
    cw = cloudwatch(url)
    dims = [{"Name": "TableName", "Value": HOT}]
    for metric in ("WriteThrottleEvents", "ThrottledRequests"):
        points = stats(cw, m0, 0, SECONDS, 60, metric=metric, dims=dims, Statistics=["Sum"])
        assert [p["Timestamp"] for p in points] == [at(m0 + 60)]
        assert points[0]["Sum"] == float(throttled)
    assert stats(cw, m0, 0, SECONDS, 60, metric="ReadThrottleEvents", dims=dims, Statistics=["Sum"]) == []


def test_list_metrics_filters(traffic: tuple[str, int, int]) -> None:
    url, _, _ = traffic
    cw = cloudwatch(url)

    def listed(**kw: Any) -> set[tuple[str, tuple[tuple[str, str], ...]]]:
        got = cw.list_metrics(**kw)["Metrics"]
        assert all(m["Namespace"] == "AWS/DynamoDB" for m in got)
        return {(m["MetricName"], tuple((d["Name"], d["Value"]) for d in m["Dimensions"])) for m in got}

    hot = listed(Namespace="AWS/DynamoDB", Dimensions=[{"Name": "TableName", "Value": HOT}])
    assert {name for name, dims in hot if len(dims) == 1} == {
        "ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits", "ProvisionedReadCapacityUnits",
        "ProvisionedWriteCapacityUnits", "WriteThrottleEvents", "WriteProvisionedThroughputThrottleEvents",
        "ThrottledRequests",
    }  # fmt: skip
    # by TableName + Operation: the PutItems' latency and their throttled requests (no Query, no Scan:
    # no ReturnedItemCount; no HTTP 500: no SystemErrors)
    put = (("TableName", HOT), ("Operation", "PutItem"))
    assert {(name, dims) for name, dims in hot if len(dims) == 2} == {
        ("SuccessfulRequestLatency", put), ("ThrottledRequests", put)}
    gsi = listed(Dimensions=[{"Name": "GlobalSecondaryIndexName"}], MetricName="ConsumedWriteCapacityUnits")
    assert gsi == {("ConsumedWriteCapacityUnits", (("TableName", KNOWN), ("GlobalSecondaryIndexName", "by-g")))}
    assert listed(Namespace="AWS/Lambda") == set()


# --- GetMetricData ----------------------------------------------------------------------------------------


def _query(qid: str, metric: str = "ConsumedWriteCapacityUnits", period: int = 60, stat: str = "Sum",
           **kw: Any) -> dict[str, Any]:  # fmt: skip
    metric_ = {"Namespace": "AWS/DynamoDB", "MetricName": metric, "Dimensions": [{"Name": "TableName", "Value": KNOWN}]}
    return {"Id": qid, "MetricStat": {"Metric": metric_, "Period": period, "Stat": stat}, **kw}


def test_get_metric_data_ids_labels_return_data_and_order(traffic: tuple[str, int, int]) -> None:
    url, m0, _ = traffic
    got = cloudwatch(url).get_metric_data(
        MetricDataQueries=[_query("w", Label="writes"), _query("hidden", ReturnData=False),
                           _query("avg", stat="Average")],
        StartTime=at(m0), EndTime=at(m0 + SECONDS),
    )  # fmt: skip
    results = got["MetricDataResults"]
    assert [(r["Id"], r["Label"], r["StatusCode"]) for r in results] == [
        ("w", "writes", "Complete"), ("avg", "ConsumedWriteCapacityUnits", "Complete")]  # fmt: skip
    assert results[0]["Timestamps"] == [at(m0 + 60), at(m0)]  # newest first by default
    assert results[0]["Values"] == [120.0, 120.0]
    assert results[1]["Values"] == [2.0, 2.0]
    asc = cloudwatch(url).get_metric_data(MetricDataQueries=[_query("w")], StartTime=at(m0),
                                          EndTime=at(m0 + SECONDS), ScanBy="TimestampAscending")  # fmt: skip
    assert asc["MetricDataResults"][0]["Timestamps"] == [at(m0), at(m0 + 60)]


def test_get_metric_data_pages(traffic: tuple[str, int, int]) -> None:
    url, m0, _ = traffic
    cw = cloudwatch(url)
    queries = [_query("a", period=10), _query("b", period=20)]  # 12 and 6 datapoints
    kw = {"MetricDataQueries": queries, "StartTime": at(m0), "EndTime": at(m0 + SECONDS), "MaxDatapoints": 5}
    pages, token = [], None
    while True:
        page = cw.get_metric_data(**kw, **({"NextToken": token} if token else {}))
        pages.append(page["MetricDataResults"])
        token = page.get("NextToken")
        if token is None:
            break
    assert [[(r["Id"], len(r["Values"]), r["StatusCode"]) for r in p] for p in pages] == [
        [("a", 5, "PartialData")], [("a", 5, "PartialData")], [("a", 2, "Complete"), ("b", 3, "PartialData")],
        [("b", 3, "Complete")],
    ]  # fmt: skip
    whole = cw.get_metric_data(MetricDataQueries=queries, StartTime=at(m0), EndTime=at(m0 + SECONDS))
    for qid, want in (("a", 12), ("b", 6)):
        paged = [v for p in pages for r in p if r["Id"] == qid for v in r["Values"]]
        full = next(r for r in whole["MetricDataResults"] if r["Id"] == qid)["Values"]
        assert len(full) == want and paged == full


def test_the_three_protocols_give_the_same_answer(traffic: tuple[str, int, int]) -> None:
    url, m0, _ = traffic
    answers = []
    for protocol in ("json", "smithy-rpc-v2-cbor", "query"):
        got = cloudwatch(url, protocol).get_metric_data(
            MetricDataQueries=[_query("w", period=30)], StartTime=at(m0), EndTime=at(m0 + 90))
        answers.append(got["MetricDataResults"])
    assert answers[0] == answers[1] == answers[2]
    assert answers[0][0]["Values"] == [60.0, 60.0, 60.0]


def test_every_operation_in_every_protocol(traffic: tuple[str, int, int]) -> None:
    url, m0, _ = traffic
    rule = next(n for n in make_client(url).describe_contributor_insights(TableName=HOT)["ContributorInsightsRuleList"]
                if "-PKC-" in n)  # fmt: skip
    calls = [
        ("list_metrics", {"Dimensions": [{"Name": "TableName", "Value": HOT}]}),
        ("get_metric_statistics", {"Namespace": "AWS/DynamoDB", "MetricName": "ConsumedWriteCapacityUnits",
                                   "Dimensions": [{"Name": "TableName", "Value": KNOWN}], "StartTime": at(m0),
                                   "EndTime": at(m0 + SECONDS), "Period": 60, "Statistics": ["Sum", "Maximum"],
                                   "ExtendedStatistics": ["p90"]}),
        ("describe_insight_rules", {}),
        ("get_insight_rule_report", {"RuleName": rule, "StartTime": at(m0), "EndTime": at(m0 + SECONDS), "Period": 60,
                                     "Metrics": ["UniqueContributors", "MaxContributorValue", "Sum"]}),
    ]  # fmt: skip
    for method, kw in calls:
        got = []
        for protocol in ("json", "smithy-rpc-v2-cbor", "query"):
            answer = getattr(cloudwatch(url, protocol), method)(**kw)
            answer.pop("ResponseMetadata")
            got.append(answer)
        assert got[0] == got[1] == got[2], method
        assert any(got[0].values()), method


def test_the_aws_cli_form(traffic: tuple[str, int, int]) -> None:
    url, m0, _ = traffic
    env = {**os.environ, "AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "secret",
           "AWS_DEFAULT_REGION": "us-east-1"}  # fmt: skip
    out = subprocess.run(
        [sys.executable, "-m", "awscli", "cloudwatch", "get-metric-statistics", "--endpoint-url", url,
         "--namespace", "AWS/DynamoDB", "--metric-name", "ConsumedWriteCapacityUnits",
         "--dimensions", f"Name=TableName,Value={KNOWN}", "--start-time", at(m0).isoformat(),
         "--end-time", at(m0 + SECONDS).isoformat(), "--period", "60", "--statistics", "Sum", "--output", "json"],
        capture_output=True, text=True, env=env, timeout=120, check=True,
    )  # fmt: skip
    got = json.loads(out.stdout)
    assert got["Label"] == "ConsumedWriteCapacityUnits"
    assert sorted(p["Sum"] for p in got["Datapoints"]) == [120.0, 120.0]


# --- Contributor Insights' rules ------------------------------------------------------------------------


def test_insight_rules_and_report(traffic: tuple[str, int, int]) -> None:
    url, m0, _ = traffic
    cw = cloudwatch(url)
    listed = make_client(url).describe_contributor_insights(TableName=HOT)["ContributorInsightsRuleList"]
    rules = cw.describe_insight_rules()["InsightRules"]
    assert sorted(r["Name"] for r in rules) == sorted(listed)
    assert all(r["State"] == "ENABLED" and r["ManagedRule"] for r in rules)
    accessed = next(n for n in listed if "-PKC-" in n)
    report = cw.get_insight_rule_report(RuleName=accessed, StartTime=at(m0), EndTime=at(m0 + SECONDS), Period=60,
                                        MaxContributorCount=1, Metrics=["UniqueContributors", "Sum"])  # fmt: skip
    assert report["KeyLabels"] == ["pk"]
    assert report["AggregationStatistic"] == "Sum"
    (top,) = report["Contributors"]
    assert top["Keys"] == ["hot"]
    assert top["ApproximateAggregateValue"] == 300.0  # 10 a second for 30 s, admitted or throttled
    assert top["Datapoints"] == [{"Timestamp": at(m0 + 60), "ApproximateValue": 300.0}]
    (minute,) = report["MetricDatapoints"]
    assert minute == {"Timestamp": at(m0 + 60), "UniqueContributors": 61.0, "Sum": 360.0}
    assert report["ApproximateUniqueCount"] == 61


# --- errors ---------------------------------------------------------------------------------------------


def test_errors(traffic: tuple[str, int, int]) -> None:
    url, m0, _ = traffic
    raw = cloudwatch(url, validate=False)
    base = {"Namespace": "AWS/DynamoDB", "MetricName": "ConsumedWriteCapacityUnits", "Statistics": ["Sum"]}
    assert error_of(raw.get_metric_statistics, **base, StartTime=at(m0), EndTime=at(m0), Period=60) == (
        "InvalidParameterValue", "The parameter StartTime must not equal parameter EndTime.")  # fmt: skip
    assert error_of(raw.get_metric_statistics, **base, StartTime=at(m0 + 60), EndTime=at(m0), Period=60) == (
        "InvalidParameterValue", "The parameter StartTime must be less than the parameter EndTime.")  # fmt: skip
    assert error_of(raw.get_metric_statistics, **base, StartTime=at(m0), EndTime=at(m0 + 60), Period=45) == (
        "InvalidParameterValue", "The parameter Period must be 1, 5, 10, 20, 30, or a multiple of 60.")  # fmt: skip
    assert error_of(raw.get_metric_statistics, **base, StartTime=at(m0), EndTime=at(m0 + 7200), Period=1) == (
        "InvalidParameterCombination",
        "You have requested up to 7200 datapoints, which exceeds the limit of 1440. "
        "You may reduce the datapoints requested by increasing Period, or decreasing the time range.")  # fmt: skip
    assert error_of(raw.get_metric_statistics, **base, StartTime=at(m0), EndTime=at(m0 + 60), Period=0) == (
        "ValidationError",
        "1 validation error detected: Value '0' at 'period' failed to satisfy constraint: "
        "Member must have value greater than or equal to 1")  # fmt: skip
    no_stats = {k: v for k, v in base.items() if k != "Statistics"}
    assert error_of(raw.get_metric_statistics, **no_stats, StartTime=at(m0), EndTime=at(m0 + 60), Period=60) == (
        "MissingParameter", "Must specify either Statistics or ExtendedStatistics.")  # fmt: skip
    window = {"StartTime": at(m0), "EndTime": at(m0 + 60)}
    assert error_of(raw.get_metric_data, MetricDataQueries=[_query("w")], StartTime=at(m0), EndTime=at(m0)) == (
        "ValidationError", "The parameter StartTime must not equal parameter EndTime.")  # fmt: skip
    assert error_of(raw.get_metric_data, MetricDataQueries=[_query(f"q{i}") for i in range(501)], **window) == (
        "ValidationError", "The collection MetricDataQueries must not have a size greater than 500.")  # fmt: skip
    assert error_of(raw.get_metric_data, MetricDataQueries=[{"Id": "m", "Expression": "SUM(METRICS())"}], **window) == (
        "ValidationError", "The parameter MetricDataQueries.member.1.Expression is not supported: dynemu serves "
        "MetricStat queries only (no metric math or Metrics Insights).")  # fmt: skip
    assert error_of(raw.get_metric_data, MetricDataQueries=[_query("w"), _query("w")], **window) == (
        "ValidationError", "The values for parameter id in MetricDataQueries are not unique.")  # fmt: skip
    assert error_of(raw.get_metric_data, MetricDataQueries=[_query("Upper"), _query("ok"), _query("5xx")], **window) == (
        "ValidationError",
        "The value Upper for parameter MetricDataQueries.member.1.Id is not matching the expected pattern "
        "^[a-z][a-zA-Z0-9_]*$.\nThe value 5xx for parameter MetricDataQueries.member.3.Id is not matching the "
        "expected pattern ^[a-z][a-zA-Z0-9_]*$.")  # fmt: skip
    assert error_of(raw.get_metric_data, MetricDataQueries=[_query("w", stat="Median")], **window) == (
        "ValidationError",
        "The value Median for parameter MetricDataQueries.member.1.MetricStat.Stat is not a valid statistic.")
    assert error_of(raw.get_metric_data, MetricDataQueries=[_query("w", period=7)], **window) == (
        "InvalidParameterValue",
        "The parameter MetricDataQueries.member.1.MetricStat.Period must be 1, 5, 10, 20, 30, or a multiple of 60.")
    assert error_of(raw.get_metric_data, MetricDataQueries=[_query("w")], NextToken="nope", **window) == (
        "InvalidNextToken", "The service cannot read the provided NextToken.")  # fmt: skip
    assert error_of(raw.get_insight_rule_report, RuleName="no-such-rule", Period=60, **window) == (
        "ResourceNotFoundException", "Rule no-such-rule does not exist.")  # fmt: skip


@pytest.mark.parametrize("protocol", ["json", "smithy-rpc-v2-cbor", "query"])
def test_errors_in_each_protocol(traffic: tuple[str, int, int], protocol: str) -> None:
    url, m0, _ = traffic
    raw = cloudwatch(url, protocol, validate=False)
    assert error_of(raw.get_metric_statistics, Namespace="AWS/DynamoDB", MetricName="X", Statistics=["Sum"],
                    StartTime=at(m0), EndTime=at(m0), Period=60) == (
        "InvalidParameterValue", "The parameter StartTime must not equal parameter EndTime.")  # fmt: skip
    assert error_of(raw.list_metrics, NextToken="%%") == (
        "InvalidNextToken", "The service cannot read the provided NextToken.")  # fmt: skip


# --- retention: hours later, and per-operation metrics ---------------------------------------------------
# A second server: two minutes of known traffic from a minute boundary M0 on table OLD (second i: i % 3 + 1
# PutItems; every 5 s a Query of partition "q": 7 items, or 3 with Limit 3, alternately) and on HOT_OLD
# (1 WCU, 12 PutItems a second in seconds 60-89, ten of them on the key "hot"), then the clock moves on
# through the admin API.

OLD, HOT_OLD = "cw-old", "cw-old-hot"


def advance(url: str, seconds: float) -> None:
    req = urllib.request.Request(url + "/_dynemu/clock", data=json.dumps({"advance": seconds}).encode(),
                                 method="POST", headers={"Content-Type": "application/json"})  # fmt: skip
    urllib.request.urlopen(req).read()


@pytest.fixture(scope="module")
def incident() -> Iterator[tuple[str, int, int, Any]]:
    """(url, M0, HOT_OLD's PutItems the client saw throttled, the server's namespaces)."""
    server = DynemuServer(clock="virtual", throttling=True)
    url = server.start()
    try:
        clock = server.app[NAMESPACES].clock
        ddb = make_client(url)
        ddb.create_table(
            TableName=OLD, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
            ProvisionedThroughput={"ReadCapacityUnits": 100, "WriteCapacityUnits": 100},
        )  # fmt: skip
        hot_table(ddb, HOT_OLD)
        for s in range(7):
            ddb.put_item(TableName=OLD, Item={"pk": {"S": "q"}, "sk": {"N": str(s)}})
        advance(url, 60 - clock.now() % 60)
        m0 = int(clock.now())
        throttled = 0
        for i in range(SECONDS):
            for j in range(i % 3 + 1):
                ddb.put_item(TableName=OLD, Item={"pk": {"S": f"k{i}"}, "sk": {"N": str(j)}})
            if i % 5 == 0:
                extra = {"Limit": 3} if i % 10 else {}
                ddb.query(TableName=OLD, KeyConditionExpression="pk = :q", ExpressionAttributeValues={":q": {"S": "q"}},
                          **extra)  # fmt: skip
            if 60 <= i < 90:
                throttled += hot_second(ddb, HOT_OLD, i)
            advance(url, 1)
        yield url, m0, throttled, server.app[NAMESPACES]
    finally:
        server.stop()


def _old(cw: Any, m0: int, metric: str, period: int, stats: list[str], dims: list[dict[str, str]] | None = None,
         window: tuple[int, int] = (-600, 900)) -> list[dict[str, Any]]:  # fmt: skip
    got = cw.get_metric_statistics(
        Namespace="AWS/DynamoDB", MetricName=metric, Dimensions=dims or [{"Name": "TableName", "Value": OLD}],
        StartTime=at(m0 + window[0]), EndTime=at(m0 + window[1]), Period=period, Statistics=stats,
    )  # fmt: skip
    return sorted(got["Datapoints"], key=lambda d: d["Timestamp"])


def _per_minute(points: list[dict[str, Any]], m0: int) -> dict[int, tuple[float, ...]]:
    """{minute from M0: (Sum, SampleCount, Average, Minimum, Maximum)} of the minutes with writes
    from M0 on (the seven items of "q" were written before)."""
    out = {}
    for p in points:
        minute = int(p["Timestamp"].timestamp()) - m0
        if p["Sum"] and minute >= 0:
            out[minute] = (p["Sum"], p["SampleCount"], p["Average"], p["Minimum"], p["Maximum"])
    return out


def test_metrics_hours_later(incident: tuple[str, int, int, Any]) -> None:
    url, m0, _, namespaces = incident
    cw = cloudwatch(url)
    stats = ["Sum", "SampleCount", "Average", "Minimum", "Maximum"]
    clock = namespaces.clock
    advance(url, m0 + 2 * 3600 - clock.now())  # two hours after M0: per-second data are still kept
    for stage in ("2 hours", "4 hours"):
        minutes = _per_minute(_old(cw, m0, "ConsumedWriteCapacityUnits", 60, stats), m0)
        assert minutes == {0: (120.0, 60.0, 2.0, 1.0, 3.0), 60: (120.0, 60.0, 2.0, 1.0, 3.0)}, stage
        five = _old(cw, m0, "ConsumedWriteCapacityUnits", 300, stats)
        # the 5-minute period from M0 holds both minutes and three idle ones
        (p,) = [p for p in five if p["Timestamp"] == at(m0)]
        assert (p["Sum"], p["SampleCount"], p["Average"], p["Minimum"], p["Maximum"]) == (240.0, 300.0, 0.8, 0.0, 3.0)
        provisioned = _old(cw, m0, "ProvisionedWriteCapacityUnits", 60, ["Minimum", "Maximum"])
        assert {(p["Minimum"], p["Maximum"]) for p in provisioned} == {(100.0, 100.0)}
        latency = _old(cw, m0, "SuccessfulRequestLatency", 60, stats,
                       [{"Name": "TableName", "Value": OLD}, {"Name": "Operation", "Value": "PutItem"}])  # fmt: skip
        assert [(int(p["Timestamp"].timestamp()) - m0, p["SampleCount"]) for p in latency] == [
            (-60, 7.0), (0, 120.0), (60, 120.0)]  # the seven items of "q" were written in the minute before M0
        for p in latency:
            assert p["Unit"] == "Milliseconds"
            assert 0 < p["Minimum"] <= p["Average"] <= p["Maximum"]
            assert p["Sum"] == pytest.approx(p["Average"] * p["SampleCount"])
        one_second = _old(cw, m0, "ConsumedWriteCapacityUnits", 1, ["Sum"], window=(0, 600))
        if stage == "2 hours":
            assert [p["Sum"] for p in one_second[:6]] == [1.0, 2.0, 3.0] * 2
            advance(url, m0 + 4 * 3600 - clock.now())  # past the 3 hours of per-second data
        else:  # CloudWatch keeps data points of periods under a minute for 3 hours: none, and no error
            assert one_second == []


def test_per_operation_metrics(incident: tuple[str, int, int, Any]) -> None:
    url, m0, throttled, _ = incident
    assert throttled > 0
    cw = cloudwatch(url)
    stats = ["Sum", "SampleCount", "Average", "Minimum", "Maximum"]

    def by_op(table: str, op: str) -> list[dict[str, str]]:
        return [{"Name": "TableName", "Value": table}, {"Name": "Operation", "Value": op}]

    # ReturnedItemCount: Query's Count, one sample per Query: 6 of 7 items and 6 of 3 each minute
    items = _old(cw, m0, "ReturnedItemCount", 60, stats, by_op(OLD, "Query"))
    assert [(p["Sum"], p["SampleCount"], p["Average"], p["Minimum"], p["Maximum"]) for p in items] == [
        (60.0, 12.0, 5.0, 3.0, 7.0)] * 2
    assert _old(cw, m0, "ReturnedItemCount", 60, stats, by_op(OLD, "PutItem")) == []  # Query and Scan only
    latency = _old(cw, m0, "SuccessfulRequestLatency", 60, ["SampleCount"], by_op(OLD, "Query"))
    assert [p["SampleCount"] for p in latency] == [12.0, 12.0]
    # ThrottledRequests by operation: what the client saw, in the minute it saw it, as the table's total
    for dims in (by_op(HOT_OLD, "PutItem"), [{"Name": "TableName", "Value": HOT_OLD}]):
        points = _old(cw, m0, "ThrottledRequests", 60, ["Sum"], dims)
        assert [(p["Timestamp"], p["Sum"]) for p in points] == [(at(m0 + 60), float(throttled))]
    admitted = _old(cw, m0, "SuccessfulRequestLatency", 60, ["SampleCount"], by_op(HOT_OLD, "PutItem"))
    assert [p["SampleCount"] for p in admitted] == [360.0 - throttled]
    # GetMetricData answers the same, and ListMetrics lists what has data
    got = cw.get_metric_data(
        MetricDataQueries=[{"Id": "q", "MetricStat": {"Metric": {"Namespace": "AWS/DynamoDB", "MetricName": "ReturnedItemCount",
                            "Dimensions": by_op(OLD, "Query")}, "Period": 60, "Stat": "Maximum"}}],
        StartTime=at(m0), EndTime=at(m0 + SECONDS), ScanBy="TimestampAscending",
    )["MetricDataResults"]  # fmt: skip
    assert (got[0]["Timestamps"], got[0]["Values"]) == ([at(m0), at(m0 + 60)], [7.0, 7.0])
    listed = cw.list_metrics(Dimensions=[{"Name": "Operation"}])["Metrics"]
    assert {(m["MetricName"], tuple((d["Name"], d["Value"]) for d in m["Dimensions"])) for m in listed} == {
        ("SuccessfulRequestLatency", (("TableName", OLD), ("Operation", "PutItem"))),
        ("SuccessfulRequestLatency", (("TableName", OLD), ("Operation", "Query"))),
        ("ReturnedItemCount", (("TableName", OLD), ("Operation", "Query"))),
        ("SuccessfulRequestLatency", (("TableName", HOT_OLD), ("Operation", "PutItem"))),
        ("ThrottledRequests", (("TableName", HOT_OLD), ("Operation", "PutItem"))),
    }


def test_insight_report_of_older_minutes(incident: tuple[str, int, int, Any]) -> None:
    url, m0, _, namespaces = incident
    clock = namespaces.clock
    if clock.now() < m0 + 3600:
        advance(url, m0 + 3600 - clock.now())  # an hour on: the minutes are past the ten kept whole
    cw = cloudwatch(url)
    rule = next(n for n in make_client(url).describe_contributor_insights(TableName=HOT_OLD)["ContributorInsightsRuleList"]
                if "-PKC-" in n)  # fmt: skip
    report = cw.get_insight_rule_report(RuleName=rule, StartTime=at(m0), EndTime=at(m0 + SECONDS), Period=60,
                                        MaxContributorCount=1, Metrics=["Sum"])  # fmt: skip
    (top,) = report["Contributors"]
    assert top["Keys"] == ["hot"]
    assert top["Datapoints"] == [{"Timestamp": at(m0 + 60), "ApproximateValue": 300.0}]
    # the minute's Sum: its ten kept keys (the hot key's 300 and nine others' 1 each)
    assert report["MetricDatapoints"] == [{"Timestamp": at(m0 + 60), "Sum": 309.0}]
    # a window before anything was kept: empty, not an error
    empty = cw.get_insight_rule_report(RuleName=rule, StartTime=at(m0 - 86400 * 2), EndTime=at(m0 - 86400),
                                       Period=60)  # fmt: skip
    assert (empty["Contributors"], empty["MetricDatapoints"]) == ([], [])


def test_deleting_a_table_frees_its_metrics(incident: tuple[str, int, int, Any]) -> None:
    url, _, _, namespaces = incident
    ddb = make_client(url)
    name = "cw-old-gone"
    ddb.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     BillingMode="PAY_PER_REQUEST")  # fmt: skip
    ddb.put_item(TableName=name, Item={"pk": {"S": "a"}})
    advance(url, 61)
    (db,) = [db for db in namespaces.databases.values() if name in db.tables]
    state = weakref.ref(db.tables[name].capacity.state)  # holds the retention and the request counters
    cw = cloudwatch(url)
    assert cw.list_metrics(Dimensions=[{"Name": "TableName", "Value": name}])["Metrics"] != []
    ddb.delete_table(TableName=name)
    gc.collect()
    assert state() is None
    assert cw.list_metrics(Dimensions=[{"Name": "TableName", "Value": name}])["Metrics"] == []


def test_system_errors_by_operation(incident: tuple[str, int, int, Any]) -> None:
    """An HTTP 500 of a data-plane operation (a failure of dynemu itself) is a SystemErrors of its
    table and operation; a client's error is not. Driven through the registry's recorder, the one
    place each such request ends: a request cannot make dynemu fail on purpose."""
    url, _, _, namespaces = incident
    (db,) = [db for db in namespaces.databases.values() if OLD in db.tables]
    record = requests.recorder("UpdateItem")
    assert record is not None and requests.recorder("CreateTable") is None
    record.failed(db, {"TableName": OLD}, RuntimeError("a bug"))
    record.failed(db, {"TableName": OLD}, errors.internal_server_error())
    record.failed(db, {"TableName": OLD}, errors.resource_not_found())  # a 400: UserErrors' (not served)
    now = int(namespaces.clock.now())
    got = cloudwatch(url).get_metric_statistics(
        Namespace="AWS/DynamoDB", MetricName="SystemErrors", StartTime=at(now - 60), EndTime=at(now + 60), Period=60,
        Dimensions=[{"Name": "TableName", "Value": OLD}, {"Name": "Operation", "Value": "UpdateItem"}],
        Statistics=["Sum", "SampleCount"],
    )["Datapoints"]  # fmt: skip
    assert [(p["Sum"], p["SampleCount"]) for p in got] == [(2.0, 2.0)]


def test_retention_is_bounded() -> None:
    """A ring keeps at most its rows, in a packed array; the retention of a resource busy every
    minute for longer than 15 days keeps 15 days of minutes and answers nothing older."""
    ring = Ring(2, 5)
    for t in range(12):
        ring.append((float(t), 1.0))
    assert ring.nbytes == 5 * 2 * 8
    assert [r[0] for r in ring.since(0)] == [7.0, 8.0, 9.0, 10.0, 11.0]
    t0 = 1_800_000_000 - 1_800_000_000 % 60
    ret = Retention(t0)
    minutes = retention.MINUTE_KEEP + 100
    rec = {"read": 1.0, "write": 0.0, "alloc_read": 5.0, "alloc_write": 5.0, "throttles": {}, "throttled_requests": 0}
    for m in range(minutes):
        ret.add({**rec, "t": t0 + 60 * m})  # one busy second a minute
    ret.covered(t0 + 60 * minutes)
    assert ret.minutes.count == retention.MINUTE_KEEP
    assert ret.nbytes <= (retention.SECOND_KEEP * (1 + len(retention.CHANNELS)) + retention.MINUTE_KEEP
                          * retention.MINUTE_WIDTH) * 8  # fmt: skip
    read = [name for name, _ in retention.CHANNELS].index("read")
    got = list(ret.per_minute(read, t0, t0 + 60 * minutes))
    assert got[0][0] == t0 + 60 * 100  # the first 100 minutes are past the 15 days
    assert {(s[1], s[2], s[3], s[4]) for s in got} == {(1.0, 60.0, 0.0, 1.0)}  # one second of 1 unit, 59 idle
    assert list(ret.per_second(read, t0, t0 + 60 * 100)) == []  # past the 3 hours of seconds


def _table_at(ddb: Any, name: str, **billing: Any) -> int:
    """Create table ``name`` (a string hash key; on demand unless ``billing`` says); its creation
    time, in seconds."""
    ddb.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     **(billing or {"BillingMode": "PAY_PER_REQUEST"}))  # fmt: skip
    return int(ddb.describe_table(TableName=name)["Table"]["CreationDateTime"].timestamp())


def test_partiql_operations_are_counted_on_their_tables() -> None:
    """ExecuteStatement, BatchExecuteStatement and ExecuteTransaction have per-operation
    metrics on the table each statement names (a batch or a transaction once per table); a
    statement that does not parse names no table; ReturnedItemCount stays Query's and Scan's."""
    with DynemuServer(clock="virtual") as url:
        ddb = make_client(url)
        created = _table_at(ddb, "pq-one")
        _table_at(ddb, "pq-two")
        ddb.execute_statement(Statement="INSERT INTO \"pq-one\" VALUE {'pk': 'a'}")
        ddb.execute_statement(Statement="SELECT * FROM \"pq-one\" WHERE pk = 'a'")
        ddb.batch_execute_statement(Statements=[
            {"Statement": "INSERT INTO \"pq-one\" VALUE {'pk': 'b'}"},
            {"Statement": "INSERT INTO \"pq-one\" VALUE {'pk': 'c'}"},
            {"Statement": "INSERT INTO \"pq-two\" VALUE {'pk': 'a'}"}])  # fmt: skip
        ddb.execute_transaction(TransactStatements=[
            {"Statement": "UPDATE \"pq-two\" SET v = 1 WHERE pk = 'a'"},
            {"Statement": "DELETE FROM \"pq-one\" WHERE pk = 'c'"}])  # fmt: skip
        with pytest.raises(ddb.exceptions.ClientError):
            ddb.execute_statement(Statement="SELEC nothing")
        advance(url, 120)
        cw = cloudwatch(url)

        def samples(metric: str, table: str, op: str) -> float:
            points = cw.get_metric_statistics(
                Namespace="AWS/DynamoDB", MetricName=metric, StartTime=at(created - 600), EndTime=at(created + 600),
                Period=600, Statistics=["SampleCount"],
                Dimensions=[{"Name": "TableName", "Value": table}, {"Name": "Operation", "Value": op}],
            )["Datapoints"]  # fmt: skip
            return sum(p["SampleCount"] for p in points)

        latency = "SuccessfulRequestLatency"
        assert samples(latency, "pq-one", "ExecuteStatement") == 2.0
        assert samples(latency, "pq-one", "BatchExecuteStatement") == 1.0  # its two statements: once
        assert samples(latency, "pq-two", "BatchExecuteStatement") == 1.0
        assert samples(latency, "pq-one", "ExecuteTransaction") == 1.0
        assert samples(latency, "pq-two", "ExecuteTransaction") == 1.0
        assert samples(latency, "pq-two", "ExecuteStatement") == 0.0
        assert samples("ReturnedItemCount", "pq-one", "ExecuteStatement") == 0.0


def test_conditional_check_failed_requests() -> None:
    """ConditionalCheckFailedRequests, by TableName: each write refused with
    ConditionalCheckFailedException (PutItem, UpdateItem, DeleteItem, a PartiQL write), in the
    minute it was refused; not a cancelled transaction, and not by Operation."""
    with DynemuServer(clock="virtual") as url:
        ddb = make_client(url)
        created = _table_at(ddb, "ccf")
        ddb.put_item(TableName="ccf", Item={"pk": {"S": "a"}, "v": {"N": "1"}})
        refused = ddb.exceptions.ConditionalCheckFailedException
        for _ in range(3):
            with pytest.raises(refused):
                ddb.put_item(TableName="ccf", Item={"pk": {"S": "a"}}, ConditionExpression="attribute_not_exists(pk)")
        with pytest.raises(refused):
            ddb.update_item(TableName="ccf", Key={"pk": {"S": "a"}}, UpdateExpression="SET v = :v",
                            ConditionExpression="v = :w", ExpressionAttributeValues={":v": {"N": "2"}, ":w": {"N": "9"}})
        with pytest.raises(refused):
            ddb.delete_item(TableName="ccf", Key={"pk": {"S": "b"}}, ConditionExpression="attribute_exists(pk)")
        with pytest.raises(refused):
            ddb.execute_statement(Statement="UPDATE \"ccf\" SET v = 3 WHERE pk = 'a' AND v = 9")
        with pytest.raises(ddb.exceptions.TransactionCanceledException):
            ddb.transact_write_items(TransactItems=[{"Put": {"TableName": "ccf", "Item": {"pk": {"S": "a"}},
                                                             "ConditionExpression": "attribute_not_exists(pk)"}}])  # fmt: skip
        ddb.put_item(TableName="ccf", Item={"pk": {"S": "c"}}, ConditionExpression="attribute_not_exists(pk)")
        advance(url, 120)
        cw = cloudwatch(url)

        def points(dims: list[dict[str, str]]) -> list[tuple[float, float]]:
            got = cw.get_metric_statistics(
                Namespace="AWS/DynamoDB", MetricName="ConditionalCheckFailedRequests", Dimensions=dims,
                StartTime=at(created - 600), EndTime=at(created + 600), Period=600, Statistics=["Sum", "SampleCount"],
            )["Datapoints"]  # fmt: skip
            return [(p["Sum"], p["SampleCount"]) for p in got]

        assert points([{"Name": "TableName", "Value": "ccf"}]) == [(6.0, 6.0)]
        assert points([{"Name": "TableName", "Value": "ccf"}, {"Name": "Operation", "Value": "PutItem"}]) == []
        listed = cw.list_metrics(MetricName="ConditionalCheckFailedRequests")["Metrics"]
        assert [m["Dimensions"] for m in listed] == [[{"Name": "TableName", "Value": "ccf"}]]


def test_user_errors_of_the_region() -> None:
    """UserErrors, with no dimension: the region's DynamoDB and Streams requests answered with an
    HTTP 400, except ProvisionedThroughputExceededException and ConditionalCheckFailedException;
    a request that names no region (no signature) is not counted, nor is another region's."""
    with DynemuServer(clock="virtual") as url:
        ddb = make_client(url)
        created = _table_at(ddb, "uerr", ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
        ddb.put_item(TableName="uerr", Item={"pk": {"S": "a"}})
        with pytest.raises(ddb.exceptions.ResourceNotFoundException):
            ddb.get_item(TableName="missing", Key={"pk": {"S": "a"}})
        with pytest.raises(ddb.exceptions.ClientError):  # ValidationException: the key's type
            ddb.get_item(TableName="uerr", Key={"pk": {"N": "1"}})
        with pytest.raises(ddb.exceptions.ConditionalCheckFailedException):  # not counted
            ddb.put_item(TableName="uerr", Item={"pk": {"S": "a"}}, ConditionExpression="attribute_not_exists(pk)")
        throttled = 0
        for i in range(400):  # 1 WCU: its burst spent, the rest refused (not counted)
            try:
                ddb.put_item(TableName="uerr", Item={"pk": {"S": f"k{i}"}})
            except ddb.exceptions.ProvisionedThroughputExceededException:
                throttled += 1
        assert throttled > 0
        streams = boto3.client("dynamodbstreams", endpoint_url=url, region_name="us-east-1",
                               aws_access_key_id="AKID", aws_secret_access_key="secret")  # fmt: skip
        with pytest.raises(streams.exceptions.ClientError):  # a Streams request's 400
            streams.describe_stream(StreamArn="arn:aws:dynamodb:us-east-1:000000000000:table/uerr/stream/2020-01-01T00:00:00.000")
        unsigned = urllib.request.Request(url, data=b"{}", method="POST", headers={
            "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.ListTables"})  # fmt: skip
        with pytest.raises(urllib.error.HTTPError):  # MissingAuthenticationTokenException: no region
            urllib.request.urlopen(unsigned)
        with pytest.raises(ddb.exceptions.ResourceNotFoundException):  # another region's
            make_client(url, region="eu-west-3").describe_table(TableName="uerr")
        advance(url, 120)
        cw = cloudwatch(url)

        def points(client: Any, dims: list[dict[str, str]]) -> list[tuple[float, float]]:
            got = client.get_metric_statistics(
                Namespace="AWS/DynamoDB", MetricName="UserErrors", Dimensions=dims, StartTime=at(created - 600),
                EndTime=at(created + 600), Period=600, Statistics=["Sum", "SampleCount"],
            )["Datapoints"]  # fmt: skip
            return [(p["Sum"], p["SampleCount"]) for p in got]

        assert points(cw, []) == [(3.0, 3.0)]
        assert points(cw, [{"Name": "TableName", "Value": "uerr"}]) == []
        assert ({"MetricName": "UserErrors", "Dimensions": []} in
                [{k: m[k] for k in ("MetricName", "Dimensions")} for m in cw.list_metrics()["Metrics"]])  # fmt: skip
        assert cw.list_metrics(Dimensions=[{"Name": "TableName"}], MetricName="UserErrors")["Metrics"] == []
        other = boto3.client("cloudwatch", endpoint_url=url, region_name="eu-west-3", aws_access_key_id="AKID",
                             aws_secret_access_key="secret")  # fmt: skip
        assert points(other, []) == [(1.0, 1.0)]
        # a reset starts them again, in every region (eu-west-3 never held a table)
        reset = urllib.request.Request(url + "/_dynemu/reset", data=b"{}", method="POST",
                                       headers={"Content-Type": "application/json"})  # fmt: skip
        urllib.request.urlopen(reset).read()
        assert points(cw, []) == [] and points(other, []) == []


def test_a_bad_signature_is_a_user_error_of_the_region_it_names(tmp_path: Any) -> None:
    """With --verify-signatures, a request whose signature fails ("an incorrect request
    signature", one of UserErrors' examples) counts in the region its credential scope names."""
    path = tmp_path / "credentials"
    path.write_text("[default]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = right\n")
    with DynemuServer(clock="virtual", verify_signatures=True, credentials_file=str(path)) as url:
        def client(service: str, secret: str) -> Any:
            return boto3.client(service, endpoint_url=url, region_name="us-west-2", aws_access_key_id="AKIAEXAMPLE",
                                aws_secret_access_key=secret, config=Config(retries={"total_max_attempts": 1}))  # fmt: skip

        wrong = client("dynamodb", "wrong")
        for _ in range(2):
            with pytest.raises(wrong.exceptions.ClientError) as e:
                wrong.list_tables()
            assert e.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
        cw = client("cloudwatch", "right")
        now = datetime.now(UTC).timestamp()
        got = cw.get_metric_statistics(
            Namespace="AWS/DynamoDB", MetricName="UserErrors", StartTime=at(now - 86400 * 2), EndTime=at(now + 86400 * 2),
            Period=86400, Statistics=["Sum"],
        )["Datapoints"]  # fmt: skip
        assert sum(p["Sum"] for p in got) == 2.0
