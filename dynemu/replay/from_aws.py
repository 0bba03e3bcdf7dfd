"""``dynemu scenario from-aws``: a scenario (replay/scenario.py) that reproduces an incident
from the evidence AWS gives (replay/evidence.py reads the files).

What it builds:

* the table and its GSIs as describe-table shows them (billing, throughput, warm throughput),
  the throughput over time from ProvisionedRead/WriteCapacityUnits (the first value is the
  table's at the start; a change becomes a phase's UpdateTable);
* one phase per minute of evidence, each with a write and a read operation whose ``series``
  follows the measured consumption at the evidence's resolution: requests per second =
  consumed units / units per request + throttle events (a throttled request was demand too;
  the replay does not retry it, so admitted units come back as consumption and the refused
  ones as throttle events);
* keys: the top contributors of the Contributor Insights reports at their measured share of
  each minute's requests, the rest uniform over ItemCount keys;
* items of TableSizeBytes / ItemCount bytes, or of the --items file's average size;
* ``evidence``: the table's measured minutes, for ``dynemu replay --report`` to compare;
* ``notes``: every assumption the evidence cannot settle, printed too.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson

from dynemu.replay import evidence, scenario
from dynemu.replay.evidence import EvidenceError, Report, Series

EXIT_ERROR = 2
DEFAULT_ITEM = 1024  # bytes, when nothing says


def _key(t: dict[str, Any], schema: list[dict[str, Any]], kind: str) -> list[str] | None:
    types = {a["AttributeName"]: a["AttributeType"] for a in t["AttributeDefinitions"]}
    name = next((k["AttributeName"] for k in schema if k["KeyType"] == kind), None)
    return None if name is None else [name, types.get(name, "S")]


def _table(t: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    billing = (t.get("BillingModeSummary") or {}).get("BillingMode") or (
        "PROVISIONED" if (t.get("ProvisionedThroughput") or {}).get("ReadCapacityUnits") else "PAY_PER_REQUEST")
    pt = t.get("ProvisionedThroughput") or {}
    out: dict[str, Any] = {"name": t["TableName"], "hash": _key(t, t["KeySchema"], "HASH"), "billing": billing}
    rng = _key(t, t["KeySchema"], "RANGE")
    if rng:
        out["range"] = rng
    if billing == "PROVISIONED":
        out["read"], out["write"] = int(pt.get("ReadCapacityUnits", 1)), int(pt.get("WriteCapacityUnits", 1))
    warm = t.get("WarmThroughput") or {}
    if warm.get("ReadUnitsPerSecond") and warm.get("WriteUnitsPerSecond"):
        out["warm"] = {"read": int(warm["ReadUnitsPerSecond"]), "write": int(warm["WriteUnitsPerSecond"])}
    gsis = []
    for g in t.get("GlobalSecondaryIndexes") or ():
        spec: dict[str, Any] = {"name": g["IndexName"], "hash": _key(t, g["KeySchema"], "HASH"),
                                "projection": (g.get("Projection") or {}).get("ProjectionType", "KEYS_ONLY")}  # fmt: skip
        if _key(t, g["KeySchema"], "RANGE"):
            spec["range"] = _key(t, g["KeySchema"], "RANGE")
        gpt = g.get("ProvisionedThroughput") or {}
        spec["read"], spec["write"] = int(gpt.get("ReadCapacityUnits", 0)), int(gpt.get("WriteCapacityUnits", 0))
        gsis.append(spec)
    if gsis:
        out["gsis"] = gsis
        notes.append("GSI keys: every write carries each GSI's key attributes, uniform over the table's keys "
                     "(the evidence does not give the GSIs' key distribution)")  # fmt: skip
    return out


def _per_second(series: list[Series], metric: str, index: str | None, t0: int, seconds: int) -> list[float] | None:
    """The metric per second from ``t0``: a sum (consumed units, events) spread evenly over the
    seconds of each period, a level (provisioned throughput) held through it; None when absent."""
    found = [s for s in series if s.metric == metric and s.index == index]
    if not found:
        return None
    out = [0.0] * seconds
    for s in found:
        for t, v in s.points.items():
            share = v / s.period if metric in evidence.SUMMED else v
            for k in range(s.period):
                i = t - t0 + k
                if 0 <= i < seconds:
                    out[i] = out[i] + share if metric in evidence.SUMMED else share
    return out


def _minutes(values: list[float] | None, n: int) -> list[float]:
    if values is None:
        return [0.0] * n
    return [sum(values[m * 60 : m * 60 + 60]) for m in range(n)]


def _shares(reports: list[Report], t0: int, minutes: int, demand: list[float]) -> list[dict[str, float]]:
    """Per minute, each top contributor's share of the minute's requests (a report's period
    spread evenly over its minutes; shares scaled down if they add up past 1)."""
    counts: list[dict[str, float]] = [{} for _ in range(minutes)]
    for r in reports:
        for key, cells in r.contributors.items():
            for t, v in cells.items():
                span = max(1, r.period // 60)
                for k in range(span):
                    m = (t - t0) // 60 + k
                    if 0 <= m < minutes:
                        counts[m][key] = counts[m].get(key, 0.0) + v / span
    out = []
    for m in range(minutes):
        total = demand[m]
        shares = {k: v / total for k, v in sorted(counts[m].items()) if total > 0}
        over = sum(shares.values())
        if over > 1:
            shares = {k: v / over for k, v in shares.items()}
        out.append({k: round(v, 6) for k, v in shares.items() if v > 0})
    return out


def build(args: argparse.Namespace) -> tuple[dict[str, Any], list[str]]:
    notes: list[str] = []
    t = evidence.table(args.table)
    name = t["TableName"]
    known = evidence.queries(args.queries or [])
    series = [s for path in args.metrics for s in evidence.metrics(path, name, known, notes)]
    gsi_names = {g["IndexName"] for g in t.get("GlobalSecondaryIndexes") or ()}
    for s in series:
        if s.index is not None and s.index not in gsi_names:
            raise EvidenceError(f"{s.source}: GlobalSecondaryIndexName: {s.index!r} is not a GSI of {name!r}")
    consumed = [s for s in series if s.metric.startswith("Consumed") and s.index is None]
    if not consumed:
        raise EvidenceError(f"{args.metrics[0]}: MetricDataResults: no ConsumedRead/WriteCapacityUnits of the "
                            f"table {name!r}: nothing to reproduce")  # fmt: skip
    reports = [evidence.report(p) for p in args.insights or []]
    throttled_reports = [evidence.report(p) for p in args.throttled_insights or []]
    period = min(s.period for s in series)
    t0 = min(t for s in series for t in s.points) // 60 * 60
    end = max(t + s.period for s in series for t in s.points)
    minutes = math.ceil((end - t0) / 60)
    seconds = minutes * 60
    table = _table(t, notes)
    size, wcu, rcu = _item_size(args, t, notes)
    per = {m: _per_second(series, m, None, t0, seconds) for m in evidence.METRICS}
    zeros = [0.0] * seconds
    write_rate = [u / wcu + e for u, e in zip(per["ConsumedWriteCapacityUnits"] or zeros,
                                              per["WriteThrottleEvents"] or zeros, strict=True)]  # fmt: skip
    read_rate = [u / rcu + e for u, e in zip(per["ConsumedReadCapacityUnits"] or zeros,
                                             per["ReadThrottleEvents"] or zeros, strict=True)]  # fmt: skip
    demand = [sum(write_rate[m * 60 : m * 60 + 60]) + sum(read_rate[m * 60 : m * 60 + 60]) for m in range(minutes)]
    shares = _shares(reports, t0, minutes, demand)
    n_keys = max(1, int(t.get("ItemCount") or 0))
    if not t.get("ItemCount"):
        notes.append("ItemCount is 0 or absent: the keys other than the top contributors are one key")
    phases = _phases(table, series, t0, minutes, period, write_rate, read_rate, shares, n_keys, size)
    ev = _evidence(name, per, t0, minutes, period, throttled_reports)
    notes += _standing_notes(reports, period, size)
    out = {
        "name": f"{name} from AWS evidence",
        "look_for": "production's minutes beside the reproduction's (dynemu replay --report DIR)",
        "seed": 0,
        "tables": [table],
        "phases": phases,
        "notes": notes,
        "evidence": ev,
    }
    return out, notes


def _item_size(args: argparse.Namespace, t: dict[str, Any], notes: list[str]) -> tuple[int, int, float]:
    if args.items:
        avg, n = evidence.items(args.items)
        size = max(1, round(avg))
        notes.append(f"item size: {size} bytes, the average of {n:,} items of {args.items}")
    elif t.get("ItemCount") and t.get("TableSizeBytes"):
        size = max(1, round(t["TableSizeBytes"] / t["ItemCount"]))
        notes.append(f"item size: {size} bytes (TableSizeBytes / ItemCount), every item the same size")
    else:
        size = DEFAULT_ITEM
        notes.append(f"item size: {size} bytes (neither --items nor ItemCount and TableSizeBytes say)")
    wcu = math.ceil(size / 1024)
    rcu = math.ceil(size / 4096) * 0.5
    notes.append(f"reads are eventually consistent GetItems ({rcu:g} RCU each) and writes PutItems "
                 f"({wcu} WCU each): CloudWatch does not say which operations consumed the units")  # fmt: skip
    return size, wcu, rcu


def _standing_notes(reports: list[Report], period: int, size: int) -> list[str]:
    notes = []
    if period == 60:
        notes.append("within each minute the requests are spread evenly over its seconds (the evidence is per minute)")
    if reports:
        notes.append("the Contributor Insights counts are taken as most-accessed keys, shared by reads and writes")
    else:
        notes.append("no Contributor Insights report: keys are uniform over ItemCount keys (no hot key)")
    notes.append("the capacity model is dynemu's default (gac); the table starts fresh, its partitions from its "
                 "throughput (and warm throughput) alone")  # fmt: skip
    return notes


def _phases(table: dict[str, Any], series: list[Series], t0: int, minutes: int, period: int, write_rate: list[float],
            read_rate: list[float], shares: list[dict[str, float]], n_keys: int, size: int) -> list[dict[str, Any]]:  # fmt: skip
    attrs = {}
    for g in table.get("gsis", ()):
        attrs[g["hash"][0]] = {"distribution": "uniform", "keys": n_keys}
        if g.get("range"):
            attrs[g["range"][0]] = {"distribution": "uniform", "keys": n_keys}
    provisioned = {(k, ix): _per_second(series, f"Provisioned{k.title()}CapacityUnits", ix, t0, minutes * 60)
                   for k in ("read", "write") for ix in [None] + [g["name"] for g in table.get("gsis", ())]}  # fmt: skip
    current = {(k, None): table.get(k, 0) for k in ("read", "write")}
    current.update({(k, g["name"]): g[k] for g in table.get("gsis", ()) for k in ("read", "write")})
    phases = []
    for m in range(minutes):
        update = _updates(table, provisioned, current, m, first=m == 0)
        ops = []
        for op, rates in (("write", write_rate), ("read", read_rate)):
            values = [round(sum(rates[i : i + period]) / period, 6) for i in range(m * 60, m * 60 + 60, period)]
            if not any(values):
                continue
            keys: dict[str, Any] = {"distribution": "uniform", "keys": n_keys}
            if shares[m]:
                keys = {"distribution": "weighted", "keys": n_keys, "weights": shares[m]}
            o: dict[str, Any] = {"table": table["name"], "op": op, "series": values, "series_period": period,
                                 "keys": keys, "item_size": size}  # fmt: skip
            if op == "write" and attrs:
                o["attributes"] = attrs
            ops.append(o)
        phase: dict[str, Any] = {"name": f"minute {m}", "duration": 60, "operations": ops}
        if update:
            phase["update"] = update
        phases.append(phase)
    return phases


def _updates(table: dict[str, Any], provisioned: dict[tuple[str, str | None], list[float] | None],
             current: dict[tuple[str, str | None], int], m: int, first: bool) -> list[dict[str, Any]]:  # fmt: skip
    """The UpdateTables of minute ``m``: where the Provisioned* series changes (at the first
    minute: the table is created with its values instead)."""
    if table["billing"] != "PROVISIONED":
        return []
    out = []
    for ix in [None] + [g["name"] for g in table.get("gsis", ())]:
        want = {}
        for k in ("read", "write"):
            values = provisioned[(k, ix)]
            v = max(values[m * 60 : m * 60 + 60]) if values is not None else 0.0
            if v and round(v) != current[(k, ix)]:
                want[k] = int(round(v))
        if not want:
            continue
        if first:  # the table is created with its throughput at the start
            target = table if ix is None else next(g for g in table["gsis"] if g["name"] == ix)
            target.update(want)
        else:
            u = {"table": table["name"], "read": current[("read", ix)], "write": current[("write", ix)], **want}
            if ix is not None:
                u["index"] = ix
            out.append(u)
        current.update({(k, ix): v for k, v in want.items()})
    return out


def _evidence(name: str, per: dict[str, list[float] | None], t0: int, minutes: int, period: int,
              throttled: list[Report]) -> dict[str, Any]:  # fmt: skip
    cols = {"consumed_read": "ConsumedReadCapacityUnits", "consumed_write": "ConsumedWriteCapacityUnits",
            "read_throttle_events": "ReadThrottleEvents", "write_throttle_events": "WriteThrottleEvents"}  # fmt: skip
    sums = {k: _minutes(per[v], minutes) for k, v in cols.items()}
    keys: dict[str, list[str]] = {}
    for r in throttled:
        for key, cells in r.contributors.items():
            for t in cells:
                m = (t - t0) // 60
                if 0 <= m < minutes:
                    keys.setdefault(str(m), []).append(key)
    return {
        "table": name, "period": period, "start": t0,
        "minutes": [{"minute": m, **{k: round(sums[k][m], 3) for k in cols}} for m in range(minutes)],
        "throttled_keys": {m: sorted(set(v)) for m, v in sorted(keys.items(), key=lambda kv: int(kv[0]))},
    }  # fmt: skip


# --- the command ------------------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dynemu scenario from-aws",
                                description="Build a replay scenario from an incident's AWS CLI outputs.")  # fmt: skip
    p.add_argument("--table", required=True, metavar="DESCRIBE.json", help="aws dynamodb describe-table output")
    p.add_argument("--metrics", required=True, action="append", metavar="M.json",
                   help="aws cloudwatch get-metric-data or get-metric-statistics output (repeatable)")  # fmt: skip
    p.add_argument("--queries", action="append", metavar="Q.json",
                   help="the --metric-data-queries file the get-metric-data outputs were asked with")
    p.add_argument("--insights", action="append", metavar="R.json",
                   help="aws cloudwatch get-insight-rule-report output of a most-accessed-keys rule (repeatable)")
    p.add_argument("--throttled-insights", action="append", metavar="R.json",
                   help="get-insight-rule-report output of a most-throttled-keys rule: the throttled keys")
    p.add_argument("--items", metavar="ITEMS", help="a DynamoDB JSON lines file, or an export directory")
    p.add_argument("--out", required=True, metavar="SCENARIO.json", help="where to write the scenario")
    return p


def main(argv: Sequence[str]) -> int:
    if list(argv[:1]) != ["from-aws"]:
        print("usage: dynemu scenario from-aws --table DESCRIBE.json --metrics M.json [...] --out SCENARIO.json",
              file=sys.stderr)  # fmt: skip
        return EXIT_ERROR
    args = _parser().parse_args(argv[1:])
    try:
        built, notes = build(args)
        scenario.parse(orjson.loads(orjson.dumps(built)))  # what a replay will load
        Path(args.out).write_bytes(orjson.dumps(built, option=orjson.OPT_INDENT_2) + b"\n")
    except scenario.ScenarioError as e:
        print(f"dynemu scenario from-aws: {e}", file=sys.stderr)
        return EXIT_ERROR
    except (KeyError, TypeError, AttributeError) as e:  # a field of the wrong shape somewhere in a file
        print(f"dynemu scenario from-aws: a file has a field of an unexpected shape ({type(e).__name__}: {e})",
              file=sys.stderr)  # fmt: skip
        return EXIT_ERROR
    except OSError as e:
        print(f"dynemu scenario from-aws: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return EXIT_ERROR
    print("assumptions (also in the scenario's notes):")
    for n in notes:
        print(f"  - {n}")
    print(f"scenario: {args.out} ({len(built['phases'])} minutes)")
    return 0
