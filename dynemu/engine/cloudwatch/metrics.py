"""The AWS/DynamoDB metrics CloudWatch would hold for dynemu's tables, and CloudWatch's
statistics over them (metrics-dimensions.html, API_GetMetricStatistics.html,
API_GetMetricData.html, cloudwatch_concepts.html "Statistics").

Capacity metrics (units: Count), by dimensions TableName, and TableName +
GlobalSecondaryIndexName, from each table's and GSI's capacity history
(engine/capacity/history.py, its tail engine/capacity/retention.py):

* ConsumedReadCapacityUnits / ConsumedWriteCapacityUnits: the units consumed each second;
* ProvisionedReadCapacityUnits / ProvisionedWriteCapacityUnits (provisioned mode only): the
  throughput in force each second;
* ReadThrottleEvents / WriteThrottleEvents: the throttle events of each second that had any
  (one per refused item or GSI write, on the resource that refused it);
* ThrottledRequests by TableName alone: the requests refused as a whole, each second that had
  any. # UNSURE: DynamoDB documents it by TableName + Operation only (served too, below);
  dynemu also serves the table's total under TableName alone, as it did before.

Per-operation metrics, by TableName + Operation, from each table's request counters
(engine/cloudwatch/requests.py), one-minute data as DynamoDB's are:

* SuccessfulRequestLatency (Milliseconds): dynemu's own server-side time of each successful
  request; SampleCount is the successful requests;
* ReturnedItemCount (Count): the items each Query or Scan returned;
* ThrottledRequests (Count) and SystemErrors (Count): per operation.

Retention, as CloudWatch's (API_GetMetricStatistics.html): a period under 60 s is answered from
the per-second data, kept 3 hours; a period of 60 s or more from the per-second data where they
are still kept and from per-minute roll-ups (Sum, SampleCount, Minimum, Maximum) before that,
kept 15 days. Older data give no datapoints, not an error, as a query past CloudWatch's
retention does (its 5-minute and 1-hour data kept longer are not modelled).

Capacity samples are per second, not per request (the history keeps sums): SampleCount counts
the seconds, and Average, Minimum, Maximum and the percentiles are over per-second values.
# UNSURE: CloudWatch's samples for Consumed* are single requests (metrics-dimensions.html);
# Sum, the statistic DynamoDB recommends for them, is exact either way. A percentile needs raw
# data points, or statistic sets whose Min and Max are equal (API_GetMetricStatistics.html): over
# a per-minute roll-up of unequal samples it is not available, and the datapoint goes without it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from dynemu import errors
from dynemu.engine.capacity.retention import CHANNELS, EXTRACT, LIMITS, Aggregate
from dynemu.engine.cloudwatch import requests

NAMESPACE = "AWS/DynamoDB"
TABLE = "TableName"
GSI = "GlobalSecondaryIndexName"
OPERATION = "Operation"
STATISTICS = ("SampleCount", "Average", "Sum", "Minimum", "Maximum")
HIGH_RES = (1, 5, 10, 20, 30)  # periods under a minute (API_MetricStat.html)
MAX_DATAPOINTS = 1440  # GetMetricStatistics' limit per call
_PERCENTILE = re.compile(r"^p(\d{1,2}(\.\d+)?|100(\.0+)?)$")
_CHANNEL = {name: i for i, (name, _) in enumerate(CHANNELS)}


@dataclass(frozen=True)
class Metric:
    name: str
    channel: str | None = None  # a capacity metric's channel (engine/capacity/retention.py)
    per_operation: bool = False  # by TableName + Operation (engine/cloudwatch/requests.py)
    # by TableName alone, the sum of the table's per-operation rows (engine/cloudwatch/requests.py)
    of_operations: bool = False
    account: bool = False  # no dimension: the namespace's (engine/cloudwatch/user_errors.py)
    sparse: bool = False  # a sample only in seconds where the value is not 0 (events)
    provisioned_only: bool = False
    table_only: bool = False
    unit: str = "Count"
    operations: tuple[str, ...] = requests.OPERATIONS  # the operations a per-operation metric covers

    @property
    def value(self) -> Callable[[dict[str, Any]], float]:
        """A capacity metric's value in one history record (the dashboard's per-minute view)."""
        assert self.channel is not None
        return EXTRACT[self.channel]  # type: ignore[no-any-return]


METRICS = {
    m.name: m
    for m in (
        Metric("ConsumedReadCapacityUnits", "read"),
        Metric("ConsumedWriteCapacityUnits", "write"),
        Metric("ProvisionedReadCapacityUnits", "alloc_read", provisioned_only=True),
        Metric("ProvisionedWriteCapacityUnits", "alloc_write", provisioned_only=True),
        Metric("ReadThrottleEvents", "read_throttles", sparse=True),
        Metric("WriteThrottleEvents", "write_throttles", sparse=True),
        # by the limit type of their ThrottlingReason, named after it less "Exceeded"
        # (metrics-dimensions.html): ReadKeyRangeThroughputThrottleEvents, ...
        *(Metric(f"{kind}{limit.removesuffix('Exceeded')}ThrottleEvents", f"{kind.lower()}:{limit}", sparse=True)
          for kind in ("Read", "Write") for limit in LIMITS),
        Metric("ThrottledRequests", "throttled_requests", sparse=True, table_only=True, per_operation=True),
        Metric("SuccessfulRequestLatency", per_operation=True, unit="Milliseconds"),
        Metric("ReturnedItemCount", per_operation=True, operations=requests.RETURNS_ITEMS),
        Metric("SystemErrors", per_operation=True),
        Metric("ConditionalCheckFailedRequests", of_operations=True),
        Metric("UserErrors", account=True),
        Metric("TimeToLiveDeletedItemCount", "ttl_deleted", sparse=True, table_only=True),
    )  # fmt: skip
}
# the throttle events by the limit type of their reason, in METRICS' order (Read..., Write...)
THROTTLE_REASON_METRICS = tuple(m for m in METRICS.values() if m.channel is not None and ":" in m.channel)


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
    if metric.channel is None or (metric.table_only and index is not None):
        return False
    return not (metric.provisioned_only and state.on_demand)


def _operation_rows(state: Any, now: float, start: int = 0) -> Iterator[Any]:
    return state.requests.minutes(now, start) if state.requests is not None else iter(())


def _sample(metric: Metric, row: Any) -> tuple[float, float, float, float] | None:
    """A per-operation metric's roll-up in one minute's row of the request counters."""
    if requests.OPERATIONS[int(row[1])] not in metric.operations:
        return None
    return requests.aggregate(metric.name, row)


def list_metrics(
    db: Any, now: float, name: str | None, filters: list[tuple[str, str | None]]
) -> list[tuple[str, list[tuple[str, str]]]]:
    """ListMetrics: (metric name, dimensions) of the metrics that have data, filtered by
    name and by dimension filters ((name, value or None: any value)). A sparse metric (the
    throttle events) is listed once it has a sample in the kept data; a per-operation metric
    once the operation has one."""
    out = []
    account = METRICS["UserErrors"]
    if (name is None or name == account.name) and not filters and _account(db, now, 0, int(now) + 1):
        out.append((account.name, []))
    for table, index, state in resources(db, now):
        dims = dimensions(table, index)
        sets = [dims]
        ops = [] if index is not None else [r for r in _operation_rows(state, now)]
        for op in sorted({requests.OPERATIONS[int(r[1])] for r in ops}):
            sets.append([(TABLE, table), (OPERATION, op)])
        for d in sets:
            have = dict(d)
            if any(k not in have or (v is not None and have[k] != v) for k, v in filters):
                continue
            for metric in METRICS.values():
                if name is not None and metric.name != name:
                    continue
                if len(d) == 2 and d[1][0] == OPERATION:
                    slot = requests.SLOT[d[1][1]]
                    if metric.per_operation and any(int(r[1]) == slot and _sample(metric, r) for r in ops):
                        out.append((metric.name, d))
                    continue
                if metric.of_operations:
                    if index is None and any(_sample(metric, r) for r in ops):
                        out.append((metric.name, d))
                    continue
                if not _emits(metric, index, state):
                    continue
                if metric.sparse and not any(True for _ in _capacity(state, metric, 60, 0, int(now) + 1)):
                    continue
                out.append((metric.name, d))
    return out


def _capacity(state: Any, metric: Metric, period: int, start: int, end: int) -> Iterator[Aggregate]:
    """A capacity metric's samples: per second where kept; with a period of a minute or more,
    per-minute roll-ups before that."""
    assert metric.channel is not None
    ret = state.history.retention
    i = _CHANNEL[metric.channel]
    if period < 60:
        yield from ret.per_second(i, start, end)
        return
    floor = ret.second_floor()
    split = floor + (-floor % 60)  # per-second data for whole minutes only
    yield from ret.per_minute(i, start, min(end, split))
    yield from ret.per_second(i, max(start, split), end)


def _per_operation(state: Any, metric: Metric, operation: str, period: int, start: int,
                   end: int, now: float) -> Iterator[Aggregate]:  # fmt: skip
    """A per-operation metric's per-minute samples (a period under a minute: of the last 3
    hours only, as CloudWatch keeps such data)."""
    if operation not in metric.operations:
        return
    if period < 60:
        start = max(start, state.history.retention.second_floor())
    slot = requests.SLOT[operation]
    for r in _operation_rows(state, now, start - start % 60):
        if int(r[1]) == slot and start - start % 60 <= r[0] < end:
            got = _sample(metric, r)
            if got is not None:
                yield (int(r[0]), *got)


def _of_operations(state: Any, metric: Metric, period: int, start: int, end: int, now: float) -> list[Aggregate]:
    """A table-level metric kept per operation: each minute's rows summed."""
    if period < 60:
        start = max(start, state.history.retention.second_floor())
    minutes: dict[int, float] = {}
    for r in _operation_rows(state, now, start - start % 60):
        if start - start % 60 <= r[0] < end:
            got = _sample(metric, r)
            if got is not None:
                minutes[int(r[0])] = minutes.get(int(r[0]), 0.0) + got[0]
    return _events(sorted(minutes.items()))


def _events(counts: Iterable[tuple[int, float]]) -> list[Aggregate]:
    """Per-minute samples of a count whose samples are its events, each of value 1."""
    return [(t, n, n, 1.0, 1.0) for t, n in counts]


def _account(db: Any, now: float, start: int, end: int) -> list[Aggregate]:
    """UserErrors' per-minute samples in [start, end)."""
    counts = db.user_errors
    if counts is None:
        return []
    return _events((t, n) for t, n in counts.minutes(now, start - start % 60) if t < end)


def samples(db: Any, now: float, name: str, dims: list[tuple[str, str]], period: int, start: float,
            end: float) -> list[Aggregate]:  # fmt: skip
    """The samples ((start, Sum, SampleCount, Minimum, Maximum): a second's value, or a
    minute's roll-up) of one metric in [start, end), for ``period``; [] for a metric, dimension
    set or resource CloudWatch would not hold (it answers with no datapoints, not an error)."""
    metric = METRICS.get(name)
    want = dict(dims)
    if metric is not None and metric.account:
        return _account(db, now, align(start, period), int(math.ceil(min(end, now + 1)))) if not dims else []
    if metric is None or len(want) != len(dims) or TABLE not in want:
        return []
    table = db.lookup(want[TABLE])
    if table is None:
        return []
    lo, hi = align(start, period), int(math.ceil(min(end, now + 1)))  # the periods' samples
    if set(want) == {TABLE, OPERATION}:
        if not metric.per_operation:
            return []
        return list(_per_operation(table.capacity.state, metric, want[OPERATION], period, lo, hi, now))
    if set(want) - {TABLE, GSI}:
        return []
    if metric.of_operations:
        return [] if GSI in want else _of_operations(table.capacity.state, metric, period, lo, hi, now)
    index = want.get(GSI)
    state = table.capacity.state if index is None else table.capacity.index_states.get(index)
    if state is None or not _emits(metric, index, state):
        return []
    state.history.sync(state, now)
    return [s for s in _capacity(state, metric, period, lo, hi) if s[1] or not metric.sparse]


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
    data: Iterable[Aggregate], start: float, end: float, period: int, stats: list[str]
) -> list[tuple[int, dict[str, float]]]:
    """(period start, {statistic: value}) for each period of [start, end) with samples, oldest
    first; periods begin at ``align(start, period)``; ``end`` is exclusive. A percentile that
    the period's samples cannot give (``compute``) is left out of its datapoint."""
    first = align(start, period)
    grouped: dict[int, list[Aggregate]] = {}
    for sample in data:
        t = sample[0]
        if first <= t < end:
            grouped.setdefault(first + (t - first) // period * period, []).append(sample)
    out = []
    for ts in sorted(grouped):
        got = {s: compute(s, grouped[ts]) for s in stats}
        out.append((ts, {s: v for s, v in got.items() if v is not None}))
    return out


def compute(stat: str, samples: list[Aggregate]) -> float | None:
    """One statistic of a period's samples, each a (start, Sum, SampleCount, Minimum, Maximum)
    (cloudwatch_concepts.html, "Statistics"; a percentile by nearest rank, only where every
    sample's values are known: a roll-up whose Minimum and Maximum are equal, the rule of
    API_GetMetricStatistics.html for statistic sets)."""
    if stat == "Sum":
        return float(sum(s[1] for s in samples))
    if stat == "SampleCount":
        return float(sum(s[2] for s in samples))
    if stat == "Average":
        return float(sum(s[1] for s in samples)) / sum(s[2] for s in samples)
    if stat == "Minimum":
        return float(min(s[3] for s in samples))
    if stat == "Maximum":
        return float(max(s[4] for s in samples))
    if any(s[3] != s[4] for s in samples):
        return None
    p = float(stat[1:])
    ordered = sorted((s[3], s[2]) for s in samples)  # (value, how many samples had it)
    rank = max(1, math.ceil(p / 100 * sum(n for _, n in ordered)))
    seen = 0.0
    for value, n in ordered:
        seen += n
        if seen >= rank:
            return float(value)
    return float(ordered[-1][0])
