"""What-if: the same traffic under other settings, side by side
(``dynemu replay SCENARIO --variant NAME=CHANGE ... --report DIR``).

A variant is ``NAME=CHANGE[,CHANGE...]``; each change applies to every table of the scenario:

* ``on-demand``: PAY_PER_REQUEST (its throughput changes over time are dropped);
* ``read=N`` / ``write=N``: provisioned throughput, held for the whole run;
* ``warm=N`` or ``warm=R/W``: the table created with that warm throughput (units per second);
* ``shards=N``: write sharding, a random ``#0``..``#N-1`` suffix on the hot (named) keys, or
  on every key written where the scenario names none;
* ``gsi:INDEX:read=N`` / ``gsi:INDEX:write=N``: a GSI's provisioned throughput;
* ``model=NAME``: dynemu's capacity model.

Each variant, and the scenario as it is ("as-is"), replays on a private server on a virtual
clock. The report (``DIR/variants.json``, ``DIR/variants.html``) has a column per variant:
throttled requests per minute (items refused, as CloudWatch's throttle events count them),
the throttled partitions and keys, the consumed units, and the cost of the run under
DynamoDB's published prices (``PRICES``, an assumption the report states). Figures are
relative to the start of the run: the same bytes on every run.
"""

from __future__ import annotations

import copy
from html import escape
from pathlib import Path
from typing import Any

import orjson

from dynemu.api.admin.cloudwatch_view import per_minute
from dynemu.engine.capacity.policies import MODELS
from dynemu.replay.runner import Outcome, key_text
from dynemu.replay.scenario import Scenario, ScenarioError

BASELINE = "as-is"
# DynamoDB Standard table class, us-east-1 (aws.amazon.com/dynamodb/pricing/on-demand/ and
# .../provisioned/, after the November 2024 on-demand reduction).
PRICES = {
    "on_demand_write_per_million": 0.625,
    "on_demand_read_per_million": 0.125,
    "provisioned_wcu_hour": 0.00065,
    "provisioned_rcu_hour": 0.00013,
}
PRICE_NOTE = (
    "cost: DynamoDB Standard table class in us-east-1 at published prices: on-demand $0.625 per million write "
    "request units and $0.125 per million read request units; provisioned $0.00065 per WCU-hour and $0.00013 per "
    "RCU-hour, charged for the run's duration (no storage, free tier, reserved capacity or warm-throughput charge)"
)


def parse(text: str) -> tuple[str, list[tuple[str, str]]]:
    """``NAME=CHANGE[,CHANGE...]`` -> (name, [(what, value)])."""
    name, sep, rest = text.partition("=")
    if not sep or not name or not rest:
        raise ScenarioError(f"--variant {text}: expected NAME=CHANGE (e.g. od=on-demand, big=write=4000)")
    if name == BASELINE:
        raise ScenarioError(f"--variant {text}: {BASELINE!r} names the scenario as it is; choose another name")
    changes = []
    for part in rest.split(","):
        what, _, value = part.partition("=")
        if what == "on-demand" and not value:
            changes.append((what, ""))
            continue
        ok = (
            (what in ("read", "write", "shards") and value.isdigit() and int(value) > 0)
            or (what == "warm" and all(v.isdigit() and int(v) > 0 for v in value.split("/")) and value.count("/") <= 1)
            or (what == "model" and value in MODELS)
            or (what.startswith("gsi:") and what.count(":") == 2 and what.rsplit(":", 1)[1] in ("read", "write")
                and value.isdigit() and int(value) > 0)
        )  # fmt: skip
        if not ok:
            raise ScenarioError(
                f"--variant {text}: cannot read {part!r} (on-demand, read=N, write=N, warm=N or warm=R/W, shards=N, "
                f"gsi:INDEX:read=N, gsi:INDEX:write=N, model={'|'.join(MODELS)})"
            )
        changes.append((what, value))
    return name, changes


def apply(sc: Scenario, changes: list[tuple[str, str]]) -> Scenario:
    """A copy of ``sc`` with the changes made."""
    out = copy.deepcopy(sc)
    for what, value in changes:
        if what == "model":
            out.model = value
        elif what == "shards":  # the named (hot) keys' operations, or where none names keys every write
            ops = [o for p in out.phases for o in p.operations]
            named = [o for o in ops if o.keys.weights]
            for o in named or [o for o in ops if o.op == "write"]:
                o.key_shards = int(value)
        for t in out.tables:
            if what == "on-demand":
                t.billing, t.create = "PAY_PER_REQUEST", None
                _drop_updates(out, t.name, None, all_indexes=True)
            elif what in ("read", "write"):
                if t.billing != "PROVISIONED":
                    t.billing = "PROVISIONED"
                    t.read, t.write = t.read or 1, t.write or 1
                setattr(t, what, int(value))
                t.create = None
                _drop_updates(out, t.name, None)
            elif what == "warm":
                r, _, w = value.partition("/")
                t.warm = (int(r), int(w or r))
            elif what.startswith("gsi:"):
                _, index, kind = what.split(":")
                g = next((g for g in t.gsis if g.name == index), None)
                if g is None:
                    raise ScenarioError(f"--variant: table {t.name!r} has no GSI {index!r}")
                setattr(g, kind, int(value))
                _drop_updates(out, t.name, index)
    return out


def _drop_updates(sc: Scenario, table: str, index: str | None, all_indexes: bool = False) -> None:
    for p in sc.phases:
        p.update = [u for u in p.update
                    if not (u.get("table") == table and (all_indexes or u.get("index") == index))]  # fmt: skip


# --- the figures of one run ----------------------------------------------------------------------------


def figures(out: Outcome) -> dict[str, Any]:
    offset = int((out.scenario.evidence or {}).get("offset", 0))  # what came before the evidence is left out
    start, duration = int(out.start) + offset, out.scenario.duration - offset
    minutes = max(1, -(-duration // 60))
    throttled = [0] * minutes
    consumed = {"read": 0.0, "write": 0.0}
    cost_units = {"read": 0.0, "write": 0.0, "rcu_seconds": 0.0, "wcu_seconds": 0.0}
    partitions, keys = [], set()
    for r in out.resources:
        records = [r.history[t] for t in sorted(r.history) if start <= t < start + duration]
        for m, v in per_minute(records, start).items():
            i = (m - start) // 60
            if 0 <= i < minutes:
                throttled[i] += int(v[2] + v[3])
        on_demand = next((t.billing == "PAY_PER_REQUEST" for t in out.scenario.tables if t.name == r.table), False)
        for rec in records:
            consumed["read"] += rec["read"]
            consumed["write"] += rec["write"]
            if not on_demand:
                cost_units["rcu_seconds"] += rec["alloc_read"]
                cost_units["wcu_seconds"] += rec["alloc_write"]
        if on_demand:
            cost_units["read"] += sum(rec["read"] for rec in records)
            cost_units["write"] += sum(rec["write"] for rec in records)
        if r.final:
            partitions += [f"{r.label} #{p['index']}" for p in r.final["partitions"] if p["throttles"]]
            keys |= {f"{r.label}: {key_text(k['key'])}" for k in r.final["hot_keys"].get("by_throttles", ())}
    cost = (
        cost_units["write"] / 1e6 * PRICES["on_demand_write_per_million"]
        + cost_units["read"] / 1e6 * PRICES["on_demand_read_per_million"]
        + cost_units["wcu_seconds"] / 3600 * PRICES["provisioned_wcu_hour"]
        + cost_units["rcu_seconds"] / 3600 * PRICES["provisioned_rcu_hour"]
    )
    return {
        "model": out.model,
        "throttled_per_minute": throttled,
        "throttled": sum(throttled),
        "consumed_read": round(consumed["read"], 1),
        "consumed_write": round(consumed["write"], 1),
        "throttled_partitions": sorted(partitions),
        "throttled_keys": sorted(keys),
        "cost_usd": round(cost, 6),
    }


# --- the report ----------------------------------------------------------------------------------------


def report(runs: list[tuple[str, str, dict[str, Any]]], sc: Scenario) -> dict[str, Any]:
    """``runs``: (name, the change as given, figures)."""
    return {
        "scenario": sc.name,
        "duration_seconds": sc.duration - int((sc.evidence or {}).get("offset", 0)),
        "assumptions": [PRICE_NOTE, *sc.notes],
        "variants": [{"name": n, "change": c, **f} for n, c, f in runs],
    }


def text(rep: dict[str, Any]) -> str:
    cols = rep["variants"]
    width = max(12, *(len(v["name"]) + 2 for v in cols))
    lines = ["what-if: " + rep["scenario"], f"  {'':<22}" + "".join(f"{v['name']:>{width}}" for v in cols)]
    for label, key, fmt in (("throttled requests", "throttled", "{:,}"), ("consumed RCU", "consumed_read", "{:,.0f}"),
                            ("consumed WCU", "consumed_write", "{:,.0f}"), ("cost (USD)", "cost_usd", "{:,.4f}")):  # fmt: skip
        lines.append(f"  {label:<22}" + "".join(f"{fmt.format(v[key]):>{width}}" for v in cols))
    lines.append(f"  {'throttled partitions':<22}" + "".join(f"{len(v['throttled_partitions']):>{width}}" for v in cols))
    return "\n".join(lines)


def html(rep: dict[str, Any]) -> str:
    cols = rep["variants"]
    head = "".join(f"<th>{escape(v['name'])}<br><small>{escape(v['change'])}</small></th>" for v in cols)

    def row(label: str, cells: list[str]) -> str:
        return f"<tr><th>{escape(label)}</th>{''.join(f'<td>{c}</td>' for c in cells)}</tr>"

    rows = [
        row("capacity model", [escape(v["model"]) for v in cols]),
        row("throttled requests", [f"{v['throttled']:,}" for v in cols]),
        row("consumed RCU", [f"{v['consumed_read']:,.1f}" for v in cols]),
        row("consumed WCU", [f"{v['consumed_write']:,.1f}" for v in cols]),
        row("cost (USD)", [f"{v['cost_usd']:,.4f}" for v in cols]),
        row("throttled partitions", [escape(", ".join(v["throttled_partitions"])) or "none" for v in cols]),
        row("throttled keys", [escape(", ".join(v["throttled_keys"])) or "none" for v in cols]),
    ]
    minutes = len(cols[0]["throttled_per_minute"]) if cols else 0
    rows += [row(f"throttled, minute {m}", [f"{v['throttled_per_minute'][m]:,}" for v in cols]) for m in range(minutes)]
    notes = "".join(f"<li>{escape(n)}</li>" for n in rep["assumptions"])
    return (
        f"<!doctype html><meta charset=utf-8><title>what-if · {escape(rep['scenario'])}</title>"
        f"<h1>what-if · {escape(rep['scenario'])}</h1><p>{rep['duration_seconds']:,} s of the same traffic "
        f"under each variant</p><table border=1><tr><th></th>{head}</tr>{''.join(rows)}</table>"
        f"<h3>assumptions</h3><ul>{notes}</ul>"
    )


def write(rep: dict[str, Any], directory: str | Path) -> Path:
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    (d / "variants.json").write_bytes(orjson.dumps(rep, option=orjson.OPT_INDENT_2) + b"\n")
    path = d / "variants.html"
    path.write_text(html(rep), encoding="utf-8")
    return path
