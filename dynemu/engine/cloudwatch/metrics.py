"""The AWS/DynamoDB metrics CloudWatch would hold for dynemu's tables, and CloudWatch's
statistics over them (metrics-dimensions.html, API_GetMetricStatistics.html,
API_GetMetricData.html, cloudwatch_concepts.html "Statistics").

The data are the per-second records of each table's and GSI's capacity history
(engine/capacity/history.py): dynemu's metrics are high-resolution, one sample a second, so a
period may be 1, 5, 10, 20, 30 or any multiple of 60 (API_MetricStat.html), and they are kept
as long as the history keeps its seconds (ten minutes).

Metrics (units: Count), by dimensions TableName, and TableName + GlobalSecondaryIndexName:

* ConsumedReadCapacityUnits / ConsumedWriteCapacityUnits: the units consumed each second;
* ProvisionedReadCapacityUnits / ProvisionedWriteCapacityUnits (provisioned mode only): the
  throughput in force each second;
* ReadThrottleEvents / WriteThrottleEvents: the throttle events of each second that had any
  (one per refused item or GSI write, on the resource that refused it);
* ThrottledRequests (TableName only): the requests refused as a whole, each second that had
  any. # UNSURE: DynamoDB adds an Operation dimension; dynemu's history counts throttled
  requests per table, not per operation, so the metric is served under TableName alone.

Samples are per second, not per request (the history keeps sums): SampleCount counts the
seconds, and Average, Minimum, Maximum and the percentiles are over per-second values.
# UNSURE: CloudWatch's samples for Consumed* are single requests (metrics-dimensions.html);
# Sum, the statistic DynamoDB recommends for them, is exact either way.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from dynemu import errors

NAMESPACE = "AWS/DynamoDB"
TABLE = "TableName"
GSI = "GlobalSecondaryIndexName"
STATISTICS = ("SampleCount", "Average", "Sum", "Minimum", "Maximum")
HIGH_RES = (1, 5, 10, 20, 30)  # periods under a minute (API_MetricStat.html)
MAX_DATAPOINTS = 1440  # GetMetricStatistics' limit per call
_PERCENTILE = re.compile(r"^p(\d{1,2}(\.\d+)?|100(\.0+)?)$")


def _throttles(kind: str) -> Callable[[dict[str, Any]], float]:
    def value(rec: dict[str, Any]) -> float:
        return float(sum(n for reason, n in rec["throttles"].items() if kind in reason))

    return value


@dataclass(frozen=True)
class Metric:
    name: str
    value: Callable[[dict[str, Any]], float]
    sparse: bool = False  # a sample only in seconds where the value is not 0 (events)
    provisioned_only: bool = False
    table_only: bool = False
    unit: str = "Count"


METRICS = {
    m.name: m
    for m in (
        Metric("ConsumedReadCapacityUnits", lambda r: float(r["read"])),
        Metric("ConsumedWriteCapacityUnits", lambda r: float(r["write"])),
        Metric("ProvisionedReadCapacityUnits", lambda r: float(r["alloc_read"]), provisioned_only=True),
        Metric("ProvisionedWriteCapacityUnits", lambda r: float(r["alloc_write"]), provisioned_only=True),
        Metric("ReadThrottleEvents", _throttles("Read"), sparse=True),
        Metric("WriteThrottleEvents", _throttles("Write"), sparse=True),
        Metric("ThrottledRequests", lambda r: float(r.get("throttled_requests", 0)), sparse=True, table_only=True),
    )
}


# --- the resources and their metrics ------------------------------------------------------------------


def resources(db: Any, now: float) -> Iterator[tuple[str, str | None, Any]]:
    """(table, GSI name or None, capacity state) of every table and every GSI that has a
    state (a GSI's is made with its first request), in name order; histories synced."""
    for name in sorted(db.tables):
        table = db.lookup(name)
        if table is None:
            continue
        cap = table.capacity
        states = [(None, cap.state)] + sorted(cap.index_states.items())
        for index, state in states:
            state.history.sync(state, now)
            yield name, index, state


def dimensions(table: str, index: str | None) -> list[tuple[str, str]]:
    return [(TABLE, table)] if index is None else [(TABLE, table), (GSI, index)]


def _emits(metric: Metric, index: str | None, state: Any) -> bool:
    if metric.table_only and index is not None:
        return False
    return not (metric.provisioned_only and state.on_demand)


def list_metrics(
    db: Any, now: float, name: str | None, filters: list[tuple[str, str | None]]
) -> list[tuple[str, list[tuple[str, str]]]]:
    """ListMetrics: (metric name, dimensions) of the metrics that have data, filtered by
    name and by dimension filters ((name, value or None: any value)). A sparse metric (the
    throttle events) is listed once it has a sample in the kept history."""
    out = []
    for table, index, state in resources(db, now):
        dims = dimensions(table, index)
        have = dict(dims)
        if any(k not in have or (v is not None and have[k] != v) for k, v in filters):
            continue
        records = state.history.records
        for metric in METRICS.values():
            if name is not None and metric.name != name or not _emits(metric, index, state):
                continue
            if metric.sparse and not any(metric.value(r) for r in records):
                continue
            out.append((metric.name, dims))
    return out


def samples(db: Any, now: float, name: str, dims: list[tuple[str, str]]) -> list[tuple[int, float]]:
    """The (second, value) samples of one metric; [] for a metric, dimension set or
    resource CloudWatch would not hold (it answers with no datapoints, not an error)."""
    metric = METRICS.get(name)
    want = dict(dims)
    if metric is None or len(want) != len(dims) or set(want) - {TABLE, GSI} or TABLE not in want:
        return []
    table = db.lookup(want[TABLE])
    if table is None:
        return []
    index = want.get(GSI)
    state = table.capacity.state if index is None else table.capacity.index_states.get(index)
    if state is None or not _emits(metric, index, state):
        return []
    state.history.sync(state, now)
    out = []
    for rec in state.history.records:
        v = metric.value(rec)
        if v or not metric.sparse:
            out.append((int(rec["t"]), v))
    return out


# --- statistics --------------------------------------------------------------------------------------


def statistic(stat: str) -> float | str | None:
    """A statistic's name ("Sum", ...), a percentile as its number (p99 -> 99.0), or None
    when dynemu does not compute it."""
    if stat in STATISTICS:
        return stat
    m = _PERCENTILE.match(stat)
    return float(stat[1:]) if m else None


def check_period(period: int, name: str = "Period") -> None:
    if period not in HIGH_RES and period % 60:
        raise errors.cw_invalid_value(errors.MSG_CW_BAD_PERIOD.format(name=name))


def check_window(start: float, end: float, error: Callable[[str], errors.DynamoError]) -> None:
    if start == end:
        raise error(errors.MSG_CW_EQUAL_TIMES)
    if start > end:
        raise error(errors.MSG_CW_START_AFTER_END)


def align(start: float, period: int) -> int:
    """Where the first period begins: the start rounded down to the minute, or for periods
    under a minute to an even division of it (API_GetMetricStatistics.html, StartTime)."""
    step = period if period < 60 else 60
    return int(math.floor(start / step)) * step


def buckets(start: float, end: float, period: int) -> int:
    """How many periods [start, end) spans once aligned (the datapoints a request may get)."""
    first = align(start, period)
    return max(0, math.ceil((end - first) / period))


def datapoints(
    data: list[tuple[int, float]], start: float, end: float, period: int, stats: list[str]
) -> list[tuple[int, dict[str, float]]]:
    """(period start, {statistic: value}) for each period of [start, end) with samples, oldest
    first; periods begin at ``align(start, period)``; ``end`` is exclusive."""
    first = align(start, period)
    grouped: dict[int, list[float]] = {}
    for t, v in data:
        if first <= t < end:
            grouped.setdefault(first + (t - first) // period * period, []).append(v)
    return [(ts, {s: compute(s, grouped[ts]) for s in stats}) for ts in sorted(grouped)]


def compute(stat: str, values: list[float]) -> float:
    """One statistic of a period's samples (cloudwatch_concepts.html, "Statistics"; a
    percentile by nearest rank)."""
    if stat == "Sum":
        return float(sum(values))
    if stat == "SampleCount":
        return float(len(values))
    if stat == "Average":
        return float(sum(values)) / len(values)
    if stat == "Minimum":
        return float(min(values))
    if stat == "Maximum":
        return float(max(values))
    p = float(stat[1:])
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return float(ordered[rank - 1])
