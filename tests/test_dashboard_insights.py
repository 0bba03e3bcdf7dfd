"""Contributor Insights: UpdateContributorInsights, DescribeContributorInsights and
ListContributorInsights over boto3, and the four reports as per-minute top-N series in the
admin API and on the dashboard (engine/insights.py)."""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from typing import Any

import orjson
import pytest

from dynemu.api.admin.app import NAMESPACES
from dynemu.testing import DynemuServer
from tests.conftest import make_client
from tests.helpers import assert_error

GSI = {
    "IndexName": "byG",
    "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
    "Projection": {"ProjectionType": "KEYS_ONLY"},
}


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, Any, Any]]:
    server = DynemuServer(clock="virtual")
    url = server.start()
    try:
        ddb = make_client(url)
        ddb.create_table(
            TableName="ci_orders",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": t} for n, t in (("pk", "S"), ("sk", "N"), ("g", "S"))],
            BillingMode="PAY_PER_REQUEST",
            GlobalSecondaryIndexes=[GSI],
        )
        yield url, ddb, server.app[NAMESPACES].clock
    finally:
        server.stop()


def _plain(out: dict[str, Any]) -> dict[str, Any]:
    out.pop("ResponseMetadata", None)
    return out


def test_enable_describe_disable(served: tuple[str, Any, Any]) -> None:
    _, ddb, clock = served
    assert _plain(ddb.describe_contributor_insights(TableName="ci_orders")) == {
        "TableName": "ci_orders", "ContributorInsightsStatus": "DISABLED"}  # fmt: skip
    out = _plain(ddb.update_contributor_insights(TableName="ci_orders", ContributorInsightsAction="ENABLE"))
    assert out == {"TableName": "ci_orders", "ContributorInsightsStatus": "ENABLING",
                   "ContributorInsightsMode": "ACCESSED_AND_THROTTLED_KEYS"}  # fmt: skip
    d = ddb.describe_contributor_insights(TableName="ci_orders")
    assert d["ContributorInsightsStatus"] == "ENABLING"
    stamp = int(clock.now() * 1000)
    assert d["ContributorInsightsRuleList"] == [
        f"DynamoDBContributorInsights-{k}-ci_orders-{stamp}" for k in ("PKC", "PKT", "SKC", "SKT")
    ]
    assert abs(d["LastUpdateDateTime"].timestamp() - clock.now()) < 0.01
    clock.advance(1)
    assert ddb.describe_contributor_insights(TableName="ci_orders")["ContributorInsightsStatus"] == "ENABLED"
    # the GSI: throttled keys only, and no sort key: one rule
    out = _plain(ddb.update_contributor_insights(
        TableName="ci_orders", IndexName="byG", ContributorInsightsAction="ENABLE",
        ContributorInsightsMode="THROTTLED_KEYS"))  # fmt: skip
    assert out["IndexName"] == "byG" and out["ContributorInsightsMode"] == "THROTTLED_KEYS"
    rules = ddb.describe_contributor_insights(TableName="ci_orders", IndexName="byG")["ContributorInsightsRuleList"]
    assert rules == [f"DynamoDBContributorInsights-PKT-ci_orders-byG-{int(clock.now() * 1000)}"]
    out = _plain(ddb.update_contributor_insights(TableName="ci_orders", IndexName="byG", ContributorInsightsAction="DISABLE"))
    assert out == {"TableName": "ci_orders", "IndexName": "byG", "ContributorInsightsStatus": "DISABLING"}
    clock.advance(1)
    d = ddb.describe_contributor_insights(TableName="ci_orders", IndexName="byG")
    assert d["ContributorInsightsStatus"] == "DISABLED" and d["ContributorInsightsRuleList"] == []


def test_list_pages_tables_and_indexes(served: tuple[str, Any, Any]) -> None:
    _, ddb, _ = served
    summaries = ddb.list_contributor_insights(TableName="ci_orders")["ContributorInsightsSummaries"]
    assert [(s["TableName"], s.get("IndexName")) for s in summaries] == [("ci_orders", None), ("ci_orders", "byG")]
    first = ddb.list_contributor_insights(MaxResults=1)
    assert len(first["ContributorInsightsSummaries"]) == 1 and first["NextToken"]
    rest = ddb.list_contributor_insights(MaxResults=1, NextToken=first["NextToken"])
    assert rest["ContributorInsightsSummaries"][0].get("IndexName") == "byG"


def test_errors(served: tuple[str, Any, Any]) -> None:
    _, ddb, _ = served
    assert_error("ResourceNotFoundException", "Requested resource not found: Table: nope not found",
                 ddb.update_contributor_insights, TableName="nope", ContributorInsightsAction="ENABLE")  # fmt: skip
    assert_error("ResourceNotFoundException", "Requested resource not found: Index nope for table ci_orders",
                 ddb.describe_contributor_insights, TableName="ci_orders", IndexName="nope")  # fmt: skip
    assert_error(
        "ValidationException",
        "1 validation error detected: Value 'ON' at 'contributorInsightsAction' failed to satisfy constraint: "
        "Member must satisfy enum value set: [ENABLE, DISABLE]",
        ddb.update_contributor_insights, TableName="ci_orders", ContributorInsightsAction="ON",
    )  # fmt: skip


def test_reports_per_minute_in_json_and_on_the_page(served: tuple[str, Any, Any]) -> None:
    url, ddb, clock = served
    ddb.update_contributor_insights(TableName="ci_orders", ContributorInsightsAction="ENABLE")
    clock.advance(1)  # ENABLING -> ENABLED
    for i in range(30):
        ddb.put_item(TableName="ci_orders", Item={"pk": {"S": "hot"}, "sk": {"N": str(i % 3)}})
    for _ in range(10):
        ddb.put_item(TableName="ci_orders", Item={"pk": {"S": "cool"}, "sk": {"N": "1"}})
    minute = int(clock.now() // 60) * 60
    with urllib.request.urlopen(url + "/_dynemu/tables/ci_orders/contributor-insights", timeout=30) as r:
        data = orjson.loads(r.read())
    assert data["status"] == "ENABLED" and data["mode"] == "ACCESSED_AND_THROTTLED_KEYS"
    reports = {rep["kind"]: rep for rep in data["reports"]}
    assert set(reports) == {"PKC", "PKT", "SKC", "SKT"}
    last = reports["PKC"]["minutes"][-1]
    assert last == {"t": minute, "top": [{"key": {"S": "hot"}, "count": 30}, {"key": {"S": "cool"}, "count": 10}]}
    items = reports["SKC"]["minutes"][-1]["top"]
    assert items[0] == {"key": {"partition": {"S": "cool"}, "sort": {"N": "1"}}, "count": 10}
    assert sorted(r["count"] for r in items) == [10, 10, 10, 10]  # hot · 0, 1, 2 and cool · 1
    assert reports["PKT"]["minutes"][-1]["top"] == []  # nothing throttled
    with urllib.request.urlopen(url + "/_dynemu/tables/ci_orders", timeout=30) as r:
        body = r.read().decode()
    assert "<h3>Contributor Insights</h3>" in body
    assert "Most accessed items (partition key) per minute" in body
    assert '<span class="mono">DynamoDBContributorInsights-PKC-ci_orders-' in body  # the rule, beside the charts


def test_the_chart_draws_what_a_key_certainly_had_and_marks_approximate_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """Space-Saving's count may be over by its error: the chart draws count - error and marks
    the key "at least"; an exact key is drawn as counted, unmarked (issue 43)."""
    from dynemu.api.admin import insights_html

    report = {
        "title": "Most accessed items", "rule": "DynamoDBContributorInsights-PKC-t-1",
        "minutes": [
            {"t": 0.0, "top": [{"key": "busy", "count": 40}, {"key": "rare", "count": 11, "error": 9}]},
            {"t": 60.0, "top": [{"key": "busy", "count": 30}]},
        ],
    }
    svg = insights_html.report_chart(report, lambda t: f"{t:.0f}", str)
    assert ">busy<" in svg and ">rare (at least)<" in svg and "busy (at least)" not in svg
    drawn: list[Any] = []
    monkeypatch.setattr(insights_html, "line_chart", lambda title, series, *a, **k: drawn.extend(series) or "")
    insights_html.report_chart(report, lambda t: f"{t:.0f}", str)
    assert {name: pts for name, _, pts in drawn} == {
        "busy": [(0.0, 40), (60.0, 30)],
        "rare (at least)": [(0.0, 2), (60.0, 0)],
    }


def test_the_chart_draws_complete_minutes_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """The minute under way is not drawn (it would read as a cliff); the rule's long name is
    beside the charts, not in a title it would clip (issue 43)."""
    from dynemu.api.admin import insights_html

    report = {
        "title": "Most accessed items", "rule": "DynamoDBContributorInsights-PKC-t-1",
        "minutes": [{"t": 0.0, "top": [{"key": "k", "count": 40}]}, {"t": 60.0, "top": [{"key": "k", "count": 3}]}],
    }
    drawn: list[Any] = []
    monkeypatch.setattr(insights_html, "line_chart", lambda title, series, *a, **k: drawn.append((title, series)) or "")
    insights_html.report_chart(report, str, str, until=90.0)
    assert drawn == [("Most accessed items per minute", [("k", insights_html.PALETTE[0], [(0.0, 40)])])]
