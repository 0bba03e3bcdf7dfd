"""CloudWatch's GetMetricStatistics, GetMetricData, ListMetrics, DescribeInsightRules and
GetInsightRuleReport, for namespace AWS/DynamoDB (API reference of CloudWatch, one page per
operation). The metrics and the rule reports are the engine's (engine/cloudwatch/); here only
parsing and rendering. Timestamps go out as epoch seconds; the wire (api/cloudwatch_wire.py)
renders them as each protocol does.

Another namespace, an unknown metric or a dimension set no metric has gives no datapoints (an
empty result), as CloudWatch answers a metric it does not hold.
"""

from __future__ import annotations

import base64
import re
from typing import Any

from dynemu import errors
from dynemu.api.protocol import Context
from dynemu.engine.cloudwatch import metrics as cw
from dynemu.engine.cloudwatch import rule_reports

LIST_PAGE = 500  # ListMetrics: up to 500 results a call (API_ListMetrics.html)
RULES_PAGE = 500  # DescribeInsightRules' MaxResults at most  # UNSURE: the default
MAX_QUERIES = 500  # MetricDataQueries (API_GetMetricData.html)
MAX_DATAPOINTS = 100_800  # GetMetricData's MaxDatapoints by default
_ID = re.compile(r"[a-z][a-zA-Z0-9_]*\Z")  # MetricDataQuery.Id (API_MetricDataQuery.html)


def _dims(raw: list[dict[str, Any]] | None) -> list[tuple[str, str]]:
    return [(d["Name"], d["Value"]) for d in raw or ()]


def _token(body: dict[str, Any], parts: int) -> list[int]:
    """A NextToken of ours: ``parts`` integers, base64 of "a:b"."""
    token = body.get("NextToken")
    if token is None:
        return [0] * parts
    try:
        out = [int(x) for x in base64.b64decode(token, validate=True).decode().split(":")]
    except (ValueError, UnicodeDecodeError):
        raise errors.cw_bad_token() from None
    if len(out) != parts or any(x < 0 for x in out):
        raise errors.cw_bad_token()
    return out


def _make_token(*parts: int) -> str:
    return base64.b64encode(":".join(str(p) for p in parts).encode()).decode()


# --- GetMetricStatistics -----------------------------------------------------------------------------


def get_metric_statistics(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    start, end, period = float(body["StartTime"]), float(body["EndTime"]), int(body["Period"])
    stats = list(body.get("Statistics") or ()) + list(body.get("ExtendedStatistics") or ())
    if not stats:
        raise errors.cw_missing_parameter(errors.MSG_CW_NO_STATISTICS)
    for s in body.get("ExtendedStatistics") or ():
        if not isinstance(cw.statistic(s), float):
            raise errors.cw_invalid_value(errors.MSG_CW_BAD_STAT.format(stat=s, name="ExtendedStatistics"))
    cw.check_period(period)
    cw.check_window(start, end, errors.cw_invalid_value)
    n = cw.buckets(start, end, period)
    if n > cw.MAX_DATAPOINTS:
        raise errors.cw_invalid_combination(errors.MSG_CW_TOO_MANY_DATAPOINTS.format(n=n))
    name = body["MetricName"]
    unit = body.get("Unit")
    out: dict[str, Any] = {"Label": name, "Datapoints": []}
    known = cw.METRICS.get(name)
    if body["Namespace"] != cw.NAMESPACE or known is None or (unit is not None and unit != known.unit):
        return out
    data = cw.samples(ctx.db, ctx.db.now(), name, _dims(body.get("Dimensions")), period, start, end)
    extended = set(body.get("ExtendedStatistics") or ())
    for ts, values in cw.datapoints(data, start, end, period, stats):
        point: dict[str, Any] = {"Timestamp": ts}
        point.update({s: v for s, v in values.items() if s not in extended})
        if extended:  # a percentile the samples cannot give is left out (metrics.compute)
            point["ExtendedStatistics"] = {s: values[s] for s in body["ExtendedStatistics"] if s in values}
        point["Unit"] = cw.METRICS[name].unit
        out["Datapoints"].append(point)
    return out


# --- GetMetricData ------------------------------------------------------------------------------------


def _check_queries(queries: list[dict[str, Any]]) -> None:
    if len(queries) > MAX_QUERIES:
        raise errors.cw_validation(errors.MSG_CW_TOO_MANY_QUERIES)
    bad = [errors.MSG_CW_BAD_ID.format(id=q["Id"], n=n) for n, q in enumerate(queries, 1) if not _ID.match(q["Id"])]
    if bad:
        raise errors.cw_validation("\n".join(bad))
    if len({q["Id"] for q in queries}) != len(queries):
        raise errors.cw_validation(errors.MSG_CW_DUPLICATE_ID)
    for n, q in enumerate(queries, 1):
        if ("MetricStat" in q) == ("Expression" in q):
            raise errors.cw_validation(errors.MSG_CW_QUERY_NEEDS_ONE.format(n=n))
        if "Expression" in q:
            raise errors.cw_validation(errors.MSG_CW_METRIC_MATH.format(n=n))
        stat = q["MetricStat"]
        if cw.statistic(stat["Stat"]) is None:
            raise errors.cw_validation(errors.MSG_CW_BAD_STAT.format(
                stat=stat["Stat"], name=f"MetricDataQueries.member.{n}.MetricStat.Stat"))  # fmt: skip
        cw.check_period(int(stat["Period"]), f"MetricDataQueries.member.{n}.MetricStat.Period")
    if not any(q.get("ReturnData", True) for q in queries):
        raise errors.cw_validation(errors.MSG_CW_NO_RETURN_DATA)


def _series(ctx: Context, q: dict[str, Any], start: float, end: float, now: float) -> tuple[list[int], list[float]]:
    stat = q["MetricStat"]
    metric = stat["Metric"]
    name = metric.get("MetricName")
    unit = stat.get("Unit")
    known = cw.METRICS.get(name or "")
    if metric.get("Namespace") != cw.NAMESPACE or known is None or (unit is not None and unit != known.unit):
        return [], []
    period = int(stat["Period"])
    data = cw.samples(ctx.db, now, name, _dims(metric.get("Dimensions")), period, start, end)
    points = [(ts, v[stat["Stat"]]) for ts, v in cw.datapoints(data, start, end, period, [stat["Stat"]])
              if stat["Stat"] in v]  # fmt: skip
    return [ts for ts, _ in points], [v for _, v in points]


def get_metric_data(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    start, end = float(body["StartTime"]), float(body["EndTime"])
    queries = body["MetricDataQueries"]
    _check_queries(queries)
    cw.check_window(start, end, errors.cw_validation)
    q0, offset = _token(body, 2)
    room = int(body.get("MaxDatapoints") or MAX_DATAPOINTS)
    descending = body.get("ScanBy", "TimestampDescending") == "TimestampDescending"
    now = ctx.db.now()
    results: list[dict[str, Any]] = []
    token = None
    shown = [(i, q) for i, q in enumerate(queries) if q.get("ReturnData", True)]
    for i, q in shown:
        if i < q0:
            continue
        times, values = _series(ctx, q, start, end, now)
        if descending:
            times, values = times[::-1], values[::-1]
        skip = offset if i == q0 else 0
        take = min(room, len(times) - skip)
        result = {
            "Id": q["Id"],
            "Label": q.get("Label") or q["MetricStat"]["Metric"].get("MetricName", q["Id"]),  # UNSURE: the default label
            "Timestamps": times[skip : skip + take],
            "Values": values[skip : skip + take],
            "StatusCode": "Complete",
            "Messages": [],
        }
        room -= take
        results.append(result)
        if skip + take < len(times):  # the page is full: the rest of this series comes next
            result["StatusCode"] = "PartialData"
            token = _make_token(i, skip + take)
            break
    out: dict[str, Any] = {"MetricDataResults": results, "Messages": []}
    if token is not None:
        out["NextToken"] = token
    return out


# --- ListMetrics ----------------------------------------------------------------------------------------


def list_metrics(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    (start,) = _token(body, 1)
    ns = body.get("Namespace")
    found: list[tuple[str, list[tuple[str, str]]]] = []
    if ns is None or ns == cw.NAMESPACE:
        filters = [(f["Name"], f.get("Value")) for f in body.get("Dimensions") or ()]
        found = cw.list_metrics(ctx.db, ctx.db.now(), body.get("MetricName"), filters)
    page = found[start : start + LIST_PAGE]
    out: dict[str, Any] = {
        "Metrics": [
            {"Namespace": cw.NAMESPACE, "MetricName": name, "Dimensions": [{"Name": k, "Value": v} for k, v in dims]}
            for name, dims in page
        ]
    }
    if start + LIST_PAGE < len(found):
        out["NextToken"] = _make_token(start + LIST_PAGE)
    return out


# --- Contributor Insights' rules ----------------------------------------------------------------------


def describe_insight_rules(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    (start,) = _token(body, 1)
    found = rule_reports.rules(ctx.db, ctx.db.now())
    size = min(int(body.get("MaxResults") or RULES_PAGE), RULES_PAGE)
    out: dict[str, Any] = {
        "InsightRules": [
            {"Name": r["name"], "State": r["state"], "Schema": rule_reports.SCHEMA,
             "Definition": rule_reports.definition(r), "ManagedRule": True}
            for r in found[start : start + size]
        ]
    }  # fmt: skip
    if start + size < len(found):
        out["NextToken"] = _make_token(start + size)
    return out


def get_insight_rule_report(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    start, end, period = float(body["StartTime"]), float(body["EndTime"]), int(body["Period"])
    most = body.get("MaxContributorCount", 10)
    if not 1 <= most <= 100:
        raise errors.cw_invalid_value(errors.MSG_CW_MAX_CONTRIBUTORS)
    if period % 60:
        raise errors.cw_invalid_value(errors.MSG_CW_RULE_PERIOD)
    cw.check_window(start, end, errors.cw_invalid_value)
    now = ctx.db.now()
    rule = rule_reports.find(ctx.db, now, body["RuleName"])
    return rule_reports.report(
        ctx.db, now, rule, start, end, period, most, list(body.get("Metrics") or ()), body.get("OrderBy", "Sum")
    )


OPERATIONS = {
    "GetMetricStatistics": get_metric_statistics,
    "GetMetricData": get_metric_data,
    "ListMetrics": list_metrics,
    "DescribeInsightRules": describe_insight_rules,
    "GetInsightRuleReport": get_insight_rule_report,
}
