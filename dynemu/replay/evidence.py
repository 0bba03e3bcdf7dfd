"""Reading the evidence of an incident: the JSON files as the AWS CLI prints them.

* ``aws dynamodb describe-table``: ``{"Table": {...}}``;
* ``aws cloudwatch get-metric-data``: ``{"MetricDataResults": [{"Id", "Label", "Timestamps",
  "Values", ...}]}``; which metric and dimensions each result holds is in the queries it was
  asked with (``--metric-data-queries``: give that file with ``--queries``), else the label
  must be the metric's name (the table's metric, then);
* ``aws cloudwatch get-metric-statistics``: ``{"Label": <metric name>, "Datapoints": [...]}``
  (the table's metric: the output does not say its dimensions);
* ``aws cloudwatch get-insight-rule-report``: ``{"KeyLabels", "Contributors": [...], ...}``.

Every problem is an ``EvidenceError`` naming the file and the field: one line for the user.
Timestamps are ISO 8601 (as the CLI prints them) or epoch seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

from dynemu.replay.scenario import REASONS, ScenarioError

# REASONS, the throttle events by reason: production's, set beside the reproduction's
# (replay/evidence_report.py), not replayed
METRICS = (
    "ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits", "ProvisionedReadCapacityUnits",
    "ProvisionedWriteCapacityUnits", "ReadThrottleEvents", "WriteThrottleEvents", "ThrottledRequests", *REASONS,
)  # fmt: skip
SUMMED = ("ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits", "ReadThrottleEvents", "WriteThrottleEvents",
          "ThrottledRequests", *REASONS)  # fmt: skip
# a GSI being built (its backfill): read, not reproduced (a scenario's GSIs exist from the start)
ONLINE_INDEX = ("OnlineIndexConsumedWriteCapacity", "OnlineIndexPercentageProgress", "OnlineIndexThrottleEvents")
PERIODS = (1, 5, 10, 20, 30, 60)  # what divides a minute: a series the replay can follow


class EvidenceError(ScenarioError):
    pass


@dataclass
class Series:
    """One metric of the table or of one GSI: value per period start (epoch seconds)."""

    source: str  # "file: field", for messages
    metric: str
    index: str | None
    period: int
    points: dict[int, float] = field(default_factory=dict)


@dataclass
class Report:
    """A Contributor Insights report: per contributor (its first key), count per period start."""

    source: str
    period: int
    contributors: dict[str, dict[int, float]] = field(default_factory=dict)


def read_json(path: str, what: str) -> Any:
    try:
        return orjson.loads(Path(path).read_bytes())
    except FileNotFoundError:
        raise EvidenceError(f"{path}: no such file ({what})") from None
    except IsADirectoryError:
        raise EvidenceError(f"{path}: a directory, not a file ({what})") from None
    except orjson.JSONDecodeError as e:
        raise EvidenceError(f"{path}: not valid JSON ({e})") from None


def _kind(data: Any) -> str:
    if isinstance(data, dict):
        for key, kind in (("Table", "describe-table"), ("MetricDataResults", "get-metric-data"),
                          ("Datapoints", "get-metric-statistics"), ("Contributors", "get-insight-rule-report")):  # fmt: skip
            if key in data:
                return kind
    return "unknown"


def _expect(path: str, data: Any, kind: str, field_: str) -> None:
    got = _kind(data)
    if got != kind:
        what = f"{got} output" if got != "unknown" else "not an AWS CLI output dynemu knows"
        raise EvidenceError(f"{path}: {field_}: missing: this is {what}, not {kind}'s")


def epoch(v: Any, where: str) -> int:
    if isinstance(v, int | float) and not isinstance(v, bool):
        return int(v)
    if isinstance(v, str):
        try:
            d = datetime.fromisoformat(v.replace("Z", "+00:00"))
        except ValueError:
            raise EvidenceError(f"{where}: not a timestamp: {v!r}") from None
        return int((d if d.tzinfo else d.replace(tzinfo=UTC)).timestamp())
    raise EvidenceError(f"{where}: not a timestamp: {v!r}")


def number(v: Any, where: str) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise EvidenceError(f"{where}: expected a number, got {v!r}")
    return float(v)


# --- describe-table ----------------------------------------------------------------------------------


def table(path: str) -> dict[str, Any]:
    data = read_json(path, "describe-table output")
    _expect(path, data, "describe-table", "Table")
    t = data["Table"]
    for key in ("TableName", "KeySchema", "AttributeDefinitions"):
        if key not in t:
            raise EvidenceError(f"{path}: Table.{key}: missing")
    return t  # type: ignore[no-any-return]


# --- metrics -------------------------------------------------------------------------------------------


def queries(paths: list[str]) -> dict[str, dict[str, Any]]:
    """Id -> MetricStat of the --metric-data-queries files (a list, or {"MetricDataQueries": [...]})."""
    out: dict[str, dict[str, Any]] = {}
    for path in paths:
        data = read_json(path, "--metric-data-queries file")
        items = data.get("MetricDataQueries") if isinstance(data, dict) else data
        if not isinstance(items, list):
            raise EvidenceError(f"{path}: MetricDataQueries: expected a list of queries")
        for i, q in enumerate(items):
            if not isinstance(q, dict) or "Id" not in q or not isinstance(q.get("MetricStat"), dict):
                raise EvidenceError(f"{path}: [{i}]: a query needs an Id and a MetricStat")
            out[q["Id"]] = {**q["MetricStat"], "source": f"{path}: [{i}]"}
    return out


def _target(stat: dict[str, Any], table_name: str, where: str) -> tuple[str, str | None]:
    metric = stat.get("Metric") or {}
    if metric.get("Namespace") != "AWS/DynamoDB":
        raise EvidenceError(f"{where}: MetricStat.Metric.Namespace: {metric.get('Namespace')!r} is not AWS/DynamoDB")
    dims = {d.get("Name"): d.get("Value") for d in metric.get("Dimensions") or ()}
    if dims.get("TableName") != table_name:
        raise EvidenceError(f"{where}: Dimensions: metrics of table {dims.get('TableName')!r}, not of "
                            f"{table_name!r} (the --table file's)")  # fmt: skip
    return metric.get("MetricName", ""), dims.get("GlobalSecondaryIndexName")


def _period(times: list[int], where: str, given: int | None) -> int:
    if given is None:
        gaps = [b - a for a, b in zip(times, times[1:], strict=False) if b > a]
        given = min(gaps) if gaps else 60
    if given not in PERIODS:
        raise EvidenceError(f"{where}: a period of {given} s cannot be used: give the metrics at 60 s or finer "
                            f"({', '.join(map(str, PERIODS))} s)")  # fmt: skip
    return given


def metrics(path: str, table_name: str, known: dict[str, dict[str, Any]], notes: list[str]) -> list[Series]:
    data = read_json(path, "get-metric-data or get-metric-statistics output")
    kind = _kind(data)
    if kind == "get-metric-statistics":
        return [_statistics(path, data, notes)]
    _expect(path, data, "get-metric-data", "MetricDataResults")
    out = []
    for i, r in enumerate(data["MetricDataResults"]):
        where = f"{path}: MetricDataResults[{i}]"
        times = [epoch(t, f"{where}.Timestamps[{j}]") for j, t in enumerate(r.get("Timestamps") or ())]
        values = [number(v, f"{where}.Values[{j}]") for j, v in enumerate(r.get("Values") or ())]
        if len(times) != len(values):
            raise EvidenceError(f"{where}: Timestamps and Values differ in length")
        q = known.get(r.get("Id", ""))
        if q is not None:
            name, index = _target(q, table_name, q["source"])
            if name in ONLINE_INDEX:
                notes.append(f"{where}: {name} of GSI {index!r} (an index being built) is not reproduced: the "
                             "scenario's GSIs exist from the start")  # fmt: skip
                continue
            if name in SUMMED and q.get("Stat") != "Sum":
                raise EvidenceError(f"{q['source']}: MetricStat.Stat: {name} is needed as Sum, not {q.get('Stat')!r}")
            period = _period(sorted(times), where, int(q.get("Period", 60)))
        else:
            name, index = r.get("Label", ""), None
            if name not in METRICS:
                raise EvidenceError(f"{where}.Label: {name!r} names no AWS/DynamoDB metric: give the "
                                    "--metric-data-queries file with --queries, or label each query with its metric")  # fmt: skip
            notes.append(f"{path}: result {r.get('Id')!r} has no query: read as the table's {name}, Sum")
            period = _period(sorted(times), where, None)
        if name not in METRICS:
            raise EvidenceError(f"{where}: {name!r} is not a DynamoDB metric dynemu reproduces")
        s = Series(where, name, index, period)
        for t, v in zip(times, values, strict=True):
            s.points[t] = s.points.get(t, 0.0) + v
        out.append(s)
    return out


def _statistics(path: str, data: dict[str, Any], notes: list[str]) -> Series:
    name = data.get("Label", "")
    if name not in METRICS:
        raise EvidenceError(f"{path}: Label: {name!r} names no AWS/DynamoDB metric dynemu reproduces")
    points = data["Datapoints"]
    times = sorted(epoch(p.get("Timestamp"), f"{path}: Datapoints[{i}].Timestamp") for i, p in enumerate(points))
    s = Series(f"{path}: Datapoints", name, None, _period(times, f"{path}: Datapoints", None))
    notes.append(f"{path}: get-metric-statistics does not say the dimensions: read as the table's {name}")
    for i, p in enumerate(points):
        where = f"{path}: Datapoints[{i}]"
        if "Sum" in p:
            v = number(p["Sum"], where + ".Sum")
        elif name not in SUMMED and ("Average" in p or "Maximum" in p):
            v = number(p.get("Average", p.get("Maximum")), where + ".Average")
        elif "Average" in p and "SampleCount" in p:
            v = number(p["Average"], where + ".Average") * number(p["SampleCount"], where + ".SampleCount")
        else:
            raise EvidenceError(f"{where}.Sum: missing ({name} is needed as Sum)")
        s.points[epoch(p["Timestamp"], where + ".Timestamp")] = v
    return s


# --- Contributor Insights -------------------------------------------------------------------------------


def report(path: str) -> Report:
    data = read_json(path, "get-insight-rule-report output")
    _expect(path, data, "get-insight-rule-report", "Contributors")
    out = Report(path, 60)
    times: set[int] = set()
    for i, c in enumerate(data["Contributors"]):
        where = f"{path}: Contributors[{i}]"
        keys = c.get("Keys")
        if not isinstance(keys, list) or not keys:
            raise EvidenceError(f"{where}.Keys: expected the contributor's key values")
        cells = out.contributors.setdefault(str(keys[0]), {})  # its partition key
        for j, d in enumerate(c.get("Datapoints") or ()):
            t = epoch(d.get("Timestamp"), f"{where}.Datapoints[{j}].Timestamp")
            cells[t] = cells.get(t, 0.0) + number(d.get("ApproximateValue"), f"{where}.Datapoints[{j}].ApproximateValue")
            times.add(t)
    ordered = sorted(times | {epoch(m.get("Timestamp"), f"{path}: MetricDatapoints") for m in data.get("MetricDatapoints") or ()})
    out.period = _period(ordered, f"{path}: Contributors", None) if len(ordered) > 1 else 60
    return out


def items(path: str) -> tuple[float, int]:
    """(average item size in bytes, items read) of a DynamoDB-JSON lines file ({"Item": {...}}
    per line, as an export's data files hold, or the item itself) or of an export directory
    (its data/*.json[.gz] files)."""
    import gzip

    p = Path(path)
    if not p.exists():
        raise EvidenceError(f"{path}: no such file or directory (--items)")
    files = sorted(p.glob("**/*.json*")) if p.is_dir() else [p]
    total, n = 0, 0
    for f in files:
        if f.name in ("manifest-summary.json", "manifest-files.json"):
            continue
        opener = gzip.open if f.suffix == ".gz" else open
        with opener(f, "rb") as fh:  # type: ignore[operator]
            for lineno, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    doc = orjson.loads(line)
                except orjson.JSONDecodeError:
                    raise EvidenceError(f"{f}: line {lineno}: not a DynamoDB JSON item") from None
                item = doc.get("Item", doc) if isinstance(doc, dict) else None
                if not isinstance(item, dict):
                    raise EvidenceError(f"{f}: line {lineno}: not a DynamoDB JSON item")
                total += item_size(item)
                n += 1
    if not n:
        raise EvidenceError(f"{path}: no items found (--items)")
    return total / n, n


def item_size(item: dict[str, Any]) -> int:
    """An item's size as DynamoDB counts it, roughly: names plus values (a number about half
    its digits; sets and documents their elements plus 3 bytes each)."""
    return sum(len(k.encode()) + _value_size(v) for k, v in item.items())


def _value_size(v: Any) -> int:
    if not isinstance(v, dict) or len(v) != 1:
        return 1
    (t, x), = v.items()
    if t == "S":
        return len(str(x).encode())
    if t == "N":
        return len(str(x).strip("-").replace(".", "")) // 2 + 1
    if t == "B":
        return len(str(x)) * 3 // 4
    if t in ("SS", "NS", "BS"):
        return sum(_value_size({t[0]: e}) for e in x)
    if t == "L":
        return 3 + sum(_value_size(e) + 1 for e in x)
    if t == "M":
        return 3 + sum(len(k.encode()) + _value_size(e) + 1 for k, e in x.items())
    return 1
