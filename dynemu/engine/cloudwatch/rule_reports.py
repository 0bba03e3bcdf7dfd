"""The CloudWatch rules that DynamoDB's Contributor Insights creates, and their reports
(API_DescribeInsightRules.html, API_GetInsightRuleReport.html, ContributorInsights-
ViewReports.html), from the per-minute top keys engine/insights.py keeps.

A DynamoDB rule counts requests (or throttles) per key: its aggregation is COUNT, so every
observation is 1 and a contributor's value is its count. A report covers the kept minutes
in [StartTime, EndTime): the last ten with their top 100 keys, and before them a day of
archived minutes with their top 10 (engine/capacity/contributors.py; older minutes give an
empty report, not an error, as past CloudWatch's retention), grouped by Period (a
multiple of 60: the counts are per minute, periods aligned as metrics' are), contributors
ranked by their Sum over the range (or by their largest datapoint with OrderBy Maximum).
Counts come from top-N sketches: values are approximate, as CloudWatch's "Approximate..."
fields say.
"""

from __future__ import annotations

import base64
from decimal import Decimal
from typing import Any

import orjson

from dynemu import errors
from dynemu.engine import insights
from dynemu.engine.cloudwatch.metrics import align

TOP_PER_MINUTE = 100  # the largest MaxContributorCount
SCHEMA = "CloudWatchLogRule/1"
RULE_METRICS = ("UniqueContributors", "MaxContributorValue", "SampleCount", "Sum", "Minimum", "Maximum", "Average")


def rules(db: Any, now: float) -> list[dict[str, Any]]:
    """Every rule of every table's and GSI's enabled Contributor Insights, in name order:
    ``{"name", "table", "index", "kind", "key_labels", "state"}``."""
    out = []
    for name, table in sorted(db.tables.items()):
        cap = table.capacity
        for index, state in [(None, cap.state)] + sorted(cap.index_states.items()):
            ins = state.contributors.insights
            if ins is None or not ins.enabled:
                continue
            labels = _key_labels(table.spec, index)
            for kind, rule in zip(ins.rule_kinds, ins.rules(name, index), strict=True):
                out.append({
                    "name": rule, "table": name, "index": index, "kind": kind, "state": "ENABLED",
                    "key_labels": labels if kind.startswith("S") else labels[:1],
                })  # fmt: skip
    return sorted(out, key=lambda r: r["name"])


def _key_labels(spec: Any, index: str | None) -> list[str]:
    if index is None:
        keys = [spec.hash_key.name] + ([spec.range_key.name] if spec.range_key is not None else [])
        return keys
    ix = next(i for i in spec.indexes if i.name == index)
    return [a.name for a in ix.hash_keys] + [a.name for a in ix.range_keys]


def definition(rule: dict[str, Any]) -> str:
    """The rule's Definition, a CloudWatchLogRule document. # UNSURE: DynamoDB's managed rules
    read its Contributor Insights log group; the document dynemu shows has the rule's keys and
    its COUNT aggregation, not DynamoDB's exact text."""
    throttled = rule["kind"].endswith("T")
    doc = {
        "Schema": {"Name": "CloudWatchLogRule", "Version": 1},
        "AggregateOn": "Count",
        "Contribution": {
            "Filters": [{"Match": "$.throttled", "In": [True]}] if throttled else [],
            "Keys": [f"$.{k}" for k in rule["key_labels"]],
        },
        "LogFormat": "JSON",
        "LogGroupNames": [f"/aws/dynamodb/contributorinsights/{rule['table']}"],
    }
    return orjson.dumps(doc).decode()


def find(db: Any, now: float, name: str) -> dict[str, Any]:
    for rule in rules(db, now):
        if rule["name"] == name:
            return rule
    raise errors.cw_no_rule(name)


def _key_text(v: Any) -> str:
    """A key value as a contributor's key: a string's or number's text, a binary's base64."""
    if isinstance(v, dict) and len(v) == 1:  # a typed value: {"S": "a"}, {"N": "1"}, {"B": b"..."}
        return _key_text(next(iter(v.values())))
    if isinstance(v, bytes):
        return base64.b64encode(v).decode()
    if isinstance(v, Decimal):
        return str(v)
    if isinstance(v, list):
        return "#".join(_key_text(x) for x in v)
    return str(v)


def _keys(label: Any) -> list[str]:
    if isinstance(label, dict) and "partition" in label:
        sort = label.get("sort")
        return [_key_text(label["partition"])] + ([] if sort is None else [_key_text(sort)])
    return [_key_text(label)]


def report(
    db: Any, now: float, rule: dict[str, Any], start: float, end: float, period: int,
    max_contributors: int, metrics: list[str], order_by: str,
) -> dict[str, Any]:  # fmt: skip
    """GetInsightRuleReport's answer (timestamps as epoch seconds)."""
    table = db.lookup(rule["table"])
    cap = table.capacity
    state = cap.state if rule["index"] is None else cap.index_states[rule["index"]]
    got = insights.reports(state.contributors, table.spec, rule["index"], now, TOP_PER_MINUTE)
    minutes = next(r["minutes"] for r in got if r["rule"] == rule["name"])
    first = align(start, period)
    per: dict[tuple[str, ...], dict[int, float]] = {}  # contributor -> period -> count
    totals: dict[int, list[float]] = {}  # period -> counts of its (contributor, minute) rows
    for m in minutes:
        t = m["t"]
        if not first <= t < end:
            continue
        ts = first + (t - first) // period * period
        for row in m["top"]:
            keys = tuple(_keys(row["key"]))
            cell = per.setdefault(keys, {})
            cell[ts] = cell.get(ts, 0.0) + row["count"]
            totals.setdefault(ts, []).append(row["count"])
    rank = (lambda c: max(c.values())) if order_by == "Maximum" else (lambda c: sum(c.values()))
    ordered = sorted(per.items(), key=lambda kv: (-rank(kv[1]), kv[0]))
    contributors = [
        {
            "Keys": list(keys),
            "ApproximateAggregateValue": float(sum(cells.values())),
            "Datapoints": [{"Timestamp": ts, "ApproximateValue": float(v)} for ts, v in sorted(cells.items())],
        }
        for keys, cells in ordered[:max_contributors]
    ]
    return {
        "KeyLabels": list(rule["key_labels"]),
        "AggregationStatistic": "Sum",
        "AggregateValue": float(sum(sum(c.values()) for c in per.values())),
        "ApproximateUniqueCount": len(per),
        "Contributors": contributors,
        "MetricDatapoints": [_metric_point(ts, per, totals[ts], metrics) for ts in sorted(totals)],
    }


def _metric_point(ts: int, per: dict[tuple[str, ...], dict[int, float]], counts: list[float],
                  metrics: list[str]) -> dict[str, Any]:  # fmt: skip
    """One period's InsightRuleMetricDatapoint: only the metrics asked for. Each observation of
    a COUNT rule is 1, so Minimum, Maximum and Average are 1 where anything was counted."""
    values = [c[ts] for c in per.values() if ts in c]
    total = float(sum(counts))
    known = {
        "UniqueContributors": float(len(values)),
        "MaxContributorValue": float(max(values)),
        "SampleCount": total,
        "Sum": total,
        "Minimum": 1.0,
        "Maximum": 1.0,
        "Average": 1.0,
    }
    out: dict[str, Any] = {"Timestamp": ts}
    out.update({m: known[m] for m in metrics if m in known})
    return out
