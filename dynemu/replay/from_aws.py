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
* a preload before the evidence starts: the items the reads find (a read of a missing item
  costs less than the evidence's), written within the table's throughput, then five idle
  minutes so that the table starts the evidence with its burst savings, as a running table would;
* keys: the top contributors of the Contributor Insights reports at their measured share of
  each minute's requests (given to the throttled operation first: a key that throttled writes
  was written), the rest uniform over ItemCount keys for writes and over the preloaded items
  for reads;
* items of TableSizeBytes / ItemCount bytes, or of the --items file's average size;
* the GSIs' writes, queries and throughput from their own metrics (replay/from_aws_gsi.py);
* ``evidence``: the table's and its GSIs' measured minutes, for ``dynemu replay --report`` to compare;
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

from dynemu.replay import evidence, from_aws_gsi, scenario
from dynemu.replay.evidence import EvidenceError, Report, Series

EXIT_ERROR = 2
DEFAULT_ITEM = 1024  # bytes, when nothing says
READ_KEYS = 2000  # items written before the evidence starts, that the reads find
SETTLE = 300  # idle seconds at least after the preload: the burst savings of a table that was running


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
        out["gsis"] = gsis  # what their evidence becomes: from_aws_gsi.py
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


def _counts(reports: list[Report], t0: int, minutes: int) -> list[dict[str, float]]:
    """Per minute, each top contributor's count (a report's period spread evenly over its minutes)."""
    counts: list[dict[str, float]] = [{} for _ in range(minutes)]
    for r in reports:
        for key, cells in r.contributors.items():
            span = max(1, r.period // 60)
            for t, v in cells.items():
                for k in range(span):
                    m = (t - t0) // 60 + k
                    if 0 <= m < minutes:
                        counts[m][key] = counts[m].get(key, 0.0) + v / span
    return counts


def _split(count: float, first: float, second: float) -> tuple[float, float]:
    """A key's requests of a minute given to the first operation up to its demand, the rest to
    the second (up to its demand)."""
    a = min(count, first)
    return a, min(count - a, second)


def _shares(counts: list[dict[str, float]], writes: list[float], reads: list[float],
            writes_first: bool) -> list[tuple[dict[str, float], dict[str, float]]]:  # fmt: skip
    """Per minute, (write shares, read shares) of the top contributors (shares scaled down if
    they add up past 1)."""
    out = []
    for m, keys in enumerate(counts):
        w_share: dict[str, float] = {}
        r_share: dict[str, float] = {}
        w_left, r_left = writes[m], reads[m]
        for key, c in sorted(keys.items(), key=lambda kv: (-kv[1], kv[0])):
            if writes_first:
                w, r = _split(c, w_left, r_left)
            else:
                r, w = _split(c, r_left, w_left)
            w_left, r_left = w_left - w, r_left - r
            if w > 0:
                w_share[key] = w / writes[m]
            if r > 0:
                r_share[key] = r / reads[m]
        out.append(({k: round(v, 6) for k, v in sorted(w_share.items())}, {k: round(v, 6) for k, v in sorted(r_share.items())}))
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
    n_keys = max(1, int(t.get("ItemCount") or 0))
    if not t.get("ItemCount"):
        notes.append("ItemCount is 0 or absent: the keys other than the top contributors are one key")
    gsis = from_aws_gsi.indexes(table, t, lambda m, ix: _per_second(series, m, ix, t0, seconds), size, wcu, rcu,
                                n_keys, notes)  # fmt: skip
    zeros = [0.0] * seconds
    write_rate = [u / wcu + e + g for u, e, g in zip(per["ConsumedWriteCapacityUnits"] or zeros,
                                                     per["WriteThrottleEvents"] or zeros,
                                                     from_aws_gsi.refused(gsis, seconds), strict=True)]  # fmt: skip
    read_rate = [u / rcu + e for u, e in zip(per["ConsumedReadCapacityUnits"] or zeros,
                                             per["ReadThrottleEvents"] or zeros, strict=True)]  # fmt: skip
    writes = [sum(write_rate[m * 60 : m * 60 + 60]) for m in range(minutes)]
    reads = [sum(read_rate[m * 60 : m * 60 + 60]) for m in range(minutes)]
    writes_first = bool(per["WriteThrottleEvents"] and any(per["WriteThrottleEvents"])) or not (
        per["ReadThrottleEvents"] and any(per["ReadThrottleEvents"]))  # fmt: skip
    shares = _shares(_counts(reports, t0, minutes), writes, reads, writes_first)
    if reports:
        first, then = ("writes", "reads") if writes_first else ("reads", "writes")
        notes.append(f"the Contributor Insights counts (requests per key) are given to {first} first, up to their "
                     f"number each minute, the rest to {then}: the {first} are the throttled ones")  # fmt: skip
    hot = [sum(w.values()) * writes[m] for m, (w, _) in enumerate(shares)]
    plain, layer_rates = from_aws_gsi.layers(gsis, write_rate, hot, notes)
    from_aws_gsi.plan_queries(gsis, table, notes)
    preload = _preload(table, n_keys, size, wcu, from_aws_gsi.preload_op(gsis, table, size), notes)
    phases = preload + _phases(table, series, t0, minutes, period, (plain, writes), read_rate, shares, n_keys, size)
    for m, phase in enumerate(phases[len(preload) :]):
        phase["operations"] += from_aws_gsi.write_ops(table, layer_rates, m, period, size)
        phase["operations"] += from_aws_gsi.query_ops(gsis, table, m, period)
    ev = _evidence(name, per, t0, minutes, period, throttled_reports)
    ev["offset"] = sum(p["duration"] for p in preload)
    if gsi_evidence := from_aws_gsi.evidence(gsis, minutes):
        ev["gsis"] = gsi_evidence
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
    if not reports:
        notes.append("no Contributor Insights report: keys are uniform over ItemCount keys (no hot key)")
    notes.append("the capacity model is dynemu's default (gac); the table starts fresh, its partitions from its "
                 "throughput (and warm throughput) alone")  # fmt: skip
    return notes


def _phases(table: dict[str, Any], series: list[Series], t0: int, minutes: int, period: int,
            writes: tuple[list[float], list[float]], read_rate: list[float],
            shares: list[tuple[dict[str, float], dict[str, float]]], n_keys: int, size: int) -> list[dict[str, Any]]:  # fmt: skip
    """One phase a minute: its throughput changes, the writes that reach no GSI (``writes``:
    their rate a second, and every write of each minute, which the shares are of) and the
    table's reads (from_aws_gsi adds the GSIs' writes and queries)."""
    write_rate, per_minute = writes
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
            space = n_keys if op == "write" else min(n_keys, READ_KEYS)
            weights = shares[m][0 if op == "write" else 1]
            if op == "write" and weights:  # the hot keys' share of these writes (some writes reach a GSI)
                scale = per_minute[m] / max(1e-9, sum(write_rate[m * 60 : m * 60 + 60]))
                weights = {k: math.floor(min(1.0, v * scale) * 1e6) / 1e6 for k, v in weights.items()}
            keys: dict[str, Any] = {"distribution": "uniform", "keys": space}
            if weights:
                keys = {"distribution": "weighted", "keys": space, "weights": weights}
            ops.append({"table": table["name"], "op": op, "series": values, "series_period": period,
                        "keys": keys, "item_size": size})  # fmt: skip
        phase: dict[str, Any] = {"name": f"minute {m}", "duration": 60, "operations": ops}
        if update:
            phase["update"] = update
        phases.append(phase)
    return phases


def _preload(table: dict[str, Any], n_keys: int, size: int, wcu: int, gsi_op: tuple[dict[str, Any], int, int] | None,
             notes: list[str]) -> list[dict[str, Any]]:  # fmt: skip
    """The items the reads find (and the GSI entries the queries find, ``gsi_op``: from_aws_gsi),
    written within half the table's (and the GSIs') write throughput, then an idle settle: two
    phases before the evidence's minute 0."""
    count = min(n_keys, READ_KEYS)
    extra = gsi_op[1] if gsi_op else 0
    capacity = table.get("write", 0) if table["billing"] == "PROVISIONED" else 4000
    rate = max(1, int(capacity * 0.5 / wcu))
    duration = max(1, math.ceil((count + extra) / rate), gsi_op[2] if gsi_op else 1)
    settle = SETTLE + (-(duration + SETTLE)) % 60  # the evidence's minute 0 starts a clock minute
    also = f" and {extra:,} items that the GSI queries find" if extra else ""
    notes.append(f"before the evidence: {count:,} items (the items the reads find: a read of a missing item costs "
                 f"less){also} written in {duration} s, then {settle} idle seconds; minute 0 of the evidence follows")  # fmt: skip
    ops: list[dict[str, Any]] = [{"table": table["name"], "op": "write", "rate": count / duration, "item_size": size,
                                  "keys": {"distribution": "sequential", "keys": count}}]  # fmt: skip
    if gsi_op:
        ops.append({**gsi_op[0], "rate": extra / duration})
    return [{"name": "preload (before the evidence)", "duration": duration, "operations": ops},
            {"name": "settle (before the evidence)", "duration": settle, "operations": []}]  # fmt: skip


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
    reasons = {r: round(sum(per[r] or ()), 3) for r in evidence.REASONS if per[r] is not None}
    return {
        "table": name, "period": period, "start": t0,
        "minutes": [{"minute": m, **{k: round(sums[k][m], 3) for k in cols}} for m in range(minutes)],
        "throttled_keys": {m: sorted(set(v)) for m, v in sorted(keys.items(), key=lambda kv: int(kv[0]))},
        **({"throttle_reasons": reasons} if reasons else {}),
    }  # fmt: skip


# --- the command ------------------------------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="dynemu scenario from-aws",
                                description="Build a replay scenario from an incident's AWS CLI outputs.")  # fmt: skip
    p.add_argument("--table", required=True, metavar="DESCRIBE.json", help="aws dynamodb describe-table output")
    p.add_argument("--metrics", required=True, action="append", metavar="M.json",
                   help="aws cloudwatch get-metric-data or get-metric-statistics output (repeatable)")  # fmt: skip
    p.add_argument("--queries", action="append", metavar="Q.json",
                   help="the --metric-data-queries file the get-metric-data outputs were asked with "
                        "(it says which results are a GSI's)")  # fmt: skip
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
    print(f"scenario: {args.out} ({len(built['evidence']['minutes'])} minutes of evidence)")
    return 0
