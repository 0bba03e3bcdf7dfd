"""The GSIs of ``dynemu scenario from-aws`` (replay/from_aws.py): what each GSI's evidence (the
metrics with dimensions TableName + GlobalSecondaryIndexName) becomes in the scenario.

* **Writes.** A GSI consumes write units only for the table's writes that put, change or
  remove its entry; an item without the GSI's key attributes is not in it (GSI.md, "Provisioned
  throughput considerations for global secondary indexes", writes; a sparse index). From-aws
  reproduces the GSI's writes as table writes of new items, on keys of their own, that carry
  the GSI's key attributes: each is one index write of ``ceil(entry size / 1 KB)`` units (the
  item's for an ALL projection, 1 for KEYS_ONLY and INCLUDE: an entry of keys). Each second,
  ``consumed WCU / units + write throttle events`` of the table's writes do; the others carry
  no key attribute of the GSI. A GSI's write throttle events are table writes the GSI refused
  (a write is admitted only when every GSI it changes has capacity: docs/capacity.md, "Global
  secondary indexes"; GSI.md, "Throttling considerations"): they count in the table's demand.
* **Reads.** A GSI's read consumption becomes Queries of the GSI (``"op": "query"``), one key
  value each, eventually consistent (GSI reads always are), each finding one entry written
  before the evidence starts: ``consumed RCU / units + read throttle events`` a second, units
  ``ceil(entry size / 4 KB) / 2``.
* **Throughput.** Its ProvisionedRead/WriteCapacityUnits series, as the table's
  (from_aws._updates); the OnlineIndex* metrics (a GSI being built) are not reproduced
  (evidence.py).
* **Evidence.** Its per-minute consumption and throttle events, for ``dynemu replay --report``
  to set beside the reproduction's (``evidence["gsis"]``).

Key values: new table keys ``g<minute + 2>-<n>`` (``g1-<n>``: the entries the queries find),
GSI key values uniform over the GSI's ItemCount values (``g<n>``), the queried entries'
``v9<n>``: apart, also as numbers, from the table's ``k<n>`` keys.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

QUERY_KEYS = 2000  # entries at most that the queries find
PRELOAD_SECONDS = 120  # those entries are written in this long at most (within the GSI's throughput)
GSI_METRICS = ("ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits", "ReadThrottleEvents", "WriteThrottleEvents")
COLUMNS = ("consumed_read", "consumed_write", "read_throttle_events", "write_throttle_events")


@dataclass
class Gsi:
    spec: dict[str, Any]  # the scenario's GSI ({"name", "hash", "range", "read", "write", "projection"})
    attrs: list[list[str]]  # its key attributes that are not the table's: what puts a write in it
    unit_w: int  # write units of one new entry
    unit_r: float  # read units of a query that finds one entry
    values: int  # distinct GSI key values the writes use
    per: dict[str, list[float] | None] = field(default_factory=dict)  # GSI_METRICS per second
    demand_w: list[float] = field(default_factory=list)  # writes a second that put an entry in it
    queries: list[float] = field(default_factory=list)  # queries a second
    query_keys: int = 0  # entries written before the evidence for the queries

    @property
    def name(self) -> str:
        return str(self.spec["name"])


def indexes(table: dict[str, Any], described: dict[str, Any], per_second: Any, size: int, wcu: int, rcu: float,
            n_keys: int, notes: list[str]) -> list[Gsi]:  # fmt: skip
    """The GSIs of ``table`` with their evidence (``per_second(metric, index)``: from_aws's)."""
    table_keys = {table["hash"][0]} | ({table["range"][0]} if table.get("range") else set())
    counts = {g["IndexName"]: g.get("ItemCount") for g in described.get("GlobalSecondaryIndexes") or ()}
    out = []
    for spec in table.get("gsis", ()):
        keys = [spec["hash"]] + ([spec["range"]] if spec.get("range") else [])
        all_ = spec.get("projection") == "ALL"
        g = Gsi(spec, [k for k in keys if k[0] not in table_keys], wcu if all_ else 1, rcu if all_ else 0.5,
                max(1, int(counts.get(spec["name"]) or n_keys)))  # fmt: skip
        g.per = {m: per_second(m, g.name) for m in GSI_METRICS}
        out.append(g)
        _notes(g, notes)
    return out


def _notes(g: Gsi, notes: list[str]) -> None:
    what = "its entry is the item" if g.unit_w > 1 or g.spec.get("projection") == "ALL" else "an entry of keys"
    if not g.attrs:
        notes.append(f"GSI {g.name}: its key attributes are the table's: every table write puts an entry in it")
    elif g.per["ConsumedWriteCapacityUnits"] is None:
        notes.append(f"GSI {g.name}: no ConsumedWriteCapacityUnits of it in the evidence: every table write "
                     "(but the hot keys') carries its key attributes")  # fmt: skip
    else:
        notes.append(f"GSI {g.name}: its write consumption comes from table writes of new items, on keys of their own, "
                     f"that carry its key attributes: one index write of {g.unit_w} WCU each ({what}); each second "
                     f"its consumed WCU / {g.unit_w} + its write throttle events of the table's writes do, the others "
                     "carry none of its key attributes (a sparse index); overwrites and index key changes (two index "
                     "writes) are not reproduced")  # fmt: skip
    if g.attrs:
        notes.append(f"GSI {g.name}: its key values are uniform over {g.values:,} values (its ItemCount, or the "
                     "table's): the evidence does not give the GSI's key distribution")  # fmt: skip
    if g.per["WriteThrottleEvents"] is not None:
        notes.append(f"GSI {g.name}: its write throttle events are table writes it refused (a throttled GSI "
                     "throttles the table's writes): they count in the table's write demand")  # fmt: skip


def refused(gsis: list[Gsi], seconds: int) -> list[float]:
    """Per second, the table writes its GSIs refused (their write throttle events: the TableName
    dimension leaves a GSI's out, metrics-dimensions.html, WriteThrottleEvents)."""
    # UNSURE: a write refused by two GSIs at once is one event on each (DynamoDB counts an event per
    # index write): summed here, it counts as two writes. dynemu refuses at the first GSI.
    out = [0.0] * seconds
    for g in gsis:
        for i, v in enumerate(g.per["WriteThrottleEvents"] or ()):
            out[i] += v
    return out


def layers(gsis: list[Gsi], write_rate: list[float], hot: list[float], notes: list[str]
           ) -> tuple[list[float], list[tuple[list[Gsi], list[float]]]]:  # fmt: skip
    """(writes a second that reach no GSI, [(GSIs, new-item writes a second that reach them)]).

    Each GSI's writes are ``demand_w``; where several GSIs take writes, a write reaches the GSIs
    of its layer (the busiest first): GSI ``i`` gets the writes of the layers from ``i`` on. In a
    minute, the writes that reach a GSI are at most the writes that are not the hot keys'
    (``hot``: writes a minute): the hot keys' writes reach none."""
    seconds = len(write_rate)
    controlled = [g for g in gsis if g.attrs]
    for g in controlled:
        cw, ev = g.per["ConsumedWriteCapacityUnits"], g.per["WriteThrottleEvents"]
        g.demand_w = list(write_rate) if cw is None else [
            cw[i] / g.unit_w + (ev[i] if ev else 0.0) for i in range(seconds)]  # fmt: skip
    if not controlled:
        return list(write_rate), []
    order = sorted(controlled, key=lambda g: (-sum(g.demand_w), g.name))
    top = list(order[0].demand_w)  # the writes that reach a GSI
    short = []
    for m in range(seconds // 60):
        span = range(m * 60, m * 60 + 60)
        room = sum(write_rate[i] for i in span) - hot[m]
        want = sum(top[i] for i in span)
        if want > room + 1e-6:
            short.append(m)
            f = max(0.0, room) / want
            for i in span:
                top[i] *= f
    for i in range(seconds):
        top[i] = min(top[i], write_rate[i])
    cum = [[min([top[i]] + [g.demand_w[i] for g in order[1 : j + 1]]) for i in range(seconds)]
           for j in range(len(order))]  # fmt: skip
    out = []
    for j in range(len(order)):
        nxt = cum[j + 1] if j + 1 < len(order) else [0.0] * seconds
        rate = [max(0.0, a - b) for a, b in zip(cum[j], nxt, strict=True)]
        if any(rate):
            out.append((order[: j + 1], rate))
    plain = [max(0.0, write_rate[i] - top[i]) for i in range(seconds)]
    if short:
        notes.append(f"GSI {order[0].name}: in minutes {short} the GSI's writes are more than the table's writes "
                     "besides the hot keys': its write consumption there is short in the reproduction")  # fmt: skip
    return plain, out


def write_ops(table: dict[str, Any], layer_rates: list[tuple[list[Gsi], list[float]]], m: int, period: int,
              size: int) -> list[dict[str, Any]]:  # fmt: skip
    """Minute ``m``'s writes of new items that reach GSIs, one operation per layer."""
    ops = []
    for gsis, rate in layer_rates:
        values = _series(rate, m, period)
        if not any(values):
            continue
        attrs = {a[0]: {"distribution": "uniform", "keys": g.values, "prefix": "g"} for g in gsis for a in g.attrs}
        ops.append({"table": table["name"], "op": "write", "series": values, "series_period": period,
                    "keys": {"distribution": "increasing", "prefix": f"g{m + 2}-"}, "attributes": attrs,
                    "item_size": size})  # fmt: skip
    return ops


def plan_queries(gsis: list[Gsi], table: dict[str, Any], notes: list[str]) -> None:
    """Each GSI's queries a second, and how many entries they find (written before the evidence,
    within the GSI's write throughput)."""
    for g in gsis:
        cr, ev = g.per["ConsumedReadCapacityUnits"], g.per["ReadThrottleEvents"]
        if cr is None and ev is None:
            continue
        n = len(cr or ev or ())
        g.queries = [(cr[i] if cr else 0.0) / g.unit_r + (ev[i] if ev else 0.0) for i in range(n)]
        capacity = g.spec.get("write", 0) if table["billing"] == "PROVISIONED" else 4000
        g.query_keys = max(1, min(QUERY_KEYS, g.values, int(capacity * 0.5 / g.unit_w) * PRELOAD_SECONDS))
        notes.append(f"GSI {g.name}: its reads are Queries of one key value each, eventually consistent (GSI reads "
                     f"always are), each finding one entry ({g.unit_r:g} RCU): its consumed RCU / {g.unit_r:g} + its "
                     f"read throttle events a second, uniform over {g.query_keys:,} entries written before the "
                     "evidence")  # fmt: skip


def query_ops(gsis: list[Gsi], table: dict[str, Any], m: int, period: int) -> list[dict[str, Any]]:
    ops = []
    for g in gsis:
        values = _series(g.queries, m, period) if g.queries else []
        if any(values):
            ops.append({"table": table["name"], "op": "query", "index": g.name, "series": values,
                        "series_period": period, "keys": _query_values(g, table)})  # fmt: skip
    return ops


def _query_values(g: Gsi, table: dict[str, Any]) -> dict[str, Any]:
    """The GSI hash key values of the entries written for the queries."""
    hash_name = g.spec["hash"][0]
    if hash_name == table["hash"][0]:
        prefix = "g1-"
    elif table.get("range") and hash_name == table["range"][0]:
        prefix = "k"  # the sort key's values (increasing from 0 in the preload)
    else:
        prefix = "v9"
    return {"distribution": "uniform", "keys": g.query_keys, "prefix": prefix}


def preload_op(gsis: list[Gsi], table: dict[str, Any], size: int) -> tuple[dict[str, Any], int, int] | None:
    """The writes of the entries the queries find: (operation without its rate, count, the
    least seconds they take within the GSIs' write throughput), or None."""
    read = [g for g in gsis if g.query_keys]
    if not read:
        return None
    count = max(g.query_keys for g in read)
    seconds = 1
    attrs: dict[str, Any] = {}
    for g in read:
        capacity = g.spec.get("write", 0) if table["billing"] == "PROVISIONED" else 4000
        seconds = max(seconds, math.ceil(count / max(1, int(capacity * 0.5 / g.unit_w))))
        for a in g.attrs:
            attrs[a[0]] = {"distribution": "sequential", "keys": count, "prefix": "v9"}
    op = {"table": table["name"], "op": "write", "item_size": size, "attributes": attrs,
          "keys": {"distribution": "sequential", "keys": count, "prefix": "g1-"}}  # fmt: skip
    return op, count, seconds


def _series(rate: list[float], m: int, period: int) -> list[float]:
    return [round(sum(rate[i : i + period]) / period, 6) for i in range(m * 60, m * 60 + 60, period)]


def evidence(gsis: list[Gsi], minutes: int) -> dict[str, list[dict[str, Any]]]:
    """Each GSI's measured minutes (the GSIs the evidence has metrics of)."""
    out = {}
    for g in gsis:
        if all(g.per[k] is None for k in GSI_METRICS):
            continue
        sums = {c: [sum((g.per[k] or [0.0] * minutes * 60)[m * 60 : m * 60 + 60]) for m in range(minutes)]
                for c, k in zip(COLUMNS, GSI_METRICS, strict=True)}  # fmt: skip
        out[g.name] = [{"minute": m, **{c: round(sums[c][m], 3) for c in COLUMNS}} for m in range(minutes)]
    return out
