"""How close a replay came to the evidence it was built from (a scenario with ``evidence``:
``dynemu scenario from-aws``): per minute, production's consumed units and throttle events
beside the reproduction's, counted as CloudWatch counts them (api/admin/cloudwatch_view.py,
the table's figures: its GSIs' are their own), and the throttled keys.

``summary(out)`` is ``DIR/summary.json``::

    {"table": ..., "minutes": [{"minute": N, "evidence": {...four...}, "reproduction": {...}}],
     "max_consumed_error": x, "throttle_minutes_agree": bool, "throttle_minutes": {...},
     "throttled_keys": {"evidence": {minute: [key]}, "reproduction": {minute: [key]}},
     "throttle_reasons": {"evidence": {metric: events}, "reproduction": {metric: events}},
     "gsis": {INDEX: {"minutes": [...], "max_consumed_error": x, ...}}}

The throttled keys are per minute on both sides: production's from a most-throttled-keys
report (``--throttled-insights``), the reproduction's from its own Contributor Insights.
``max_consumed_error`` is the largest relative error of consumed read or write units over the
minutes where production consumed them; ``throttle_minutes_agree`` is whether the minutes that
had throttle events are the same. ``throttle_reasons`` sets the table's throttle events by
reason over the evidence's minutes (ReadKeyRangeThroughputThrottleEvents, ...) beside the
reproduction's, for the reason metrics the evidence has: a hot partition's throttles are
KeyRangeThroughput, a table short of throughput's ProvisionedThroughput, and ``--check`` wants the
same reasons to have events on both sides. ``"gsis"`` holds the same comparison for each GSI the evidence
has metrics of (``{INDEX: {"minutes", "max_consumed_error", "throttle_minutes_agree",
"throttle_minutes"}}``), each from the GSI's own figures (its GlobalSecondaryIndexName
dimension); ``--check`` holds them to the same 10 %.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

import orjson

from dynemu.api.admin.cloudwatch_view import per_minute
from dynemu.engine.cloudwatch.metrics import THROTTLE_REASON_METRICS
from dynemu.replay.runner import Outcome

FIELDS = ("consumed_read", "consumed_write", "read_throttle_events", "write_throttle_events")
TOLERANCE = 0.10  # --check: consumed within 10 % per minute


def _side_by_side(rows: list[dict[str, Any]], seen: dict[int, list[float]], start: int) -> dict[str, Any]:
    """Production's minutes ``rows`` beside the reproduction's (``seen``: per_minute's)."""
    minutes, worst = [], 0.0
    for row in rows:
        m = row["minute"]
        got = seen.get(start + m * 60, [0.0, 0.0, 0.0, 0.0])
        rep = {k: round(v, 3) for k, v in zip(FIELDS, got, strict=True)}
        evd = {k: row[k] for k in FIELDS}
        for k in ("consumed_read", "consumed_write"):
            if evd[k] > 0:
                worst = max(worst, abs(rep[k] - evd[k]) / evd[k])
        minutes.append({"minute": m, "evidence": evd, "reproduction": rep})
    thr = {name: sorted(m["minute"] for m in minutes if m[name]["read_throttle_events"] + m[name]["write_throttle_events"] > 0)
           for name in ("evidence", "reproduction")}  # fmt: skip
    return {"minutes": minutes, "max_consumed_error": round(worst, 4),
            "throttle_minutes_agree": thr["evidence"] == thr["reproduction"], "throttle_minutes": thr}  # fmt: skip


def _reasons(history: dict[int, dict[str, Any]], evidence: dict[str, float], start: int, end: int) -> dict[str, Any]:
    """The throttle events by reason production had (``evidence``) and the reproduction's in
    ``[start, end)``, for the reason metrics the evidence has."""
    window = [h for t, h in sorted(history.items()) if start <= t < end]
    got = {m.name: round(sum(m.value(h) for h in window), 3) for m in THROTTLE_REASON_METRICS if m.name in evidence}
    return {"evidence": dict(evidence), "reproduction": got}


def summary(out: Outcome) -> dict[str, Any] | None:
    ev = out.scenario.evidence
    if ev is None:
        return None
    start = int(out.start) + int(ev.get("offset", 0))  # minute 0 of the evidence
    history = {r.index: r.history for r in out.resources if r.table == ev["table"]}
    table = _side_by_side(ev["minutes"], per_minute((history[None][t] for t in sorted(history[None])), start), start)
    keys = {str(m): out.throttled_keys[start + m * 60]
            for m in range(len(table["minutes"])) if start + m * 60 in out.throttled_keys}  # fmt: skip
    gsis = {}
    for ix, rows in sorted(ev.get("gsis", {}).items()):  # a GSI's own figures, as its CloudWatch dimension has them
        h = history.get(ix, {})
        gsis[ix] = _side_by_side(rows, per_minute((h[t] for t in sorted(h)), start), start)
    end = start + 60 * len(table["minutes"])
    return {
        "table": ev["table"],
        **table,
        "throttled_keys": {"evidence": ev.get("throttled_keys", {}), "reproduction": keys},
        "throttle_reasons": _reasons(history[None], ev.get("throttle_reasons", {}), start, end),
        "gsis": gsis,
    }


def _problems(s: dict[str, Any], what: str) -> list[str]:
    problems = []
    if s["max_consumed_error"] > TOLERANCE:
        bad = [m["minute"] for m in s["minutes"]
               if any(m["evidence"][k] > 0 and abs(m["reproduction"][k] - m["evidence"][k]) / m["evidence"][k] > TOLERANCE
                      for k in ("consumed_read", "consumed_write"))]  # fmt: skip
        problems.append(f"{what}consumed units off by {s['max_consumed_error']:.1%} (over {TOLERANCE:.0%}) in minutes {bad}")
    if not s["throttle_minutes_agree"]:
        ev, rep = set(s["throttle_minutes"]["evidence"]), set(s["throttle_minutes"]["reproduction"])
        problems.append(f"{what}throttled minutes differ: only in production {sorted(ev - rep)}, "
                        f"only in the reproduction {sorted(rep - ev)}")  # fmt: skip
    return problems


def _with_events(side: dict[str, float]) -> list[str]:
    return sorted(name for name, n in side.items() if n > 0)


def check(s: dict[str, Any]) -> list[str]:
    """Why ``--check`` fails (empty: it passes): the table's minutes, its throttle reasons, then
    each GSI's minutes."""
    problems = _problems(s, "")
    reasons = s["throttle_reasons"]
    ev, rep = _with_events(reasons["evidence"]), _with_events(reasons["reproduction"])
    if ev != rep:
        problems.append(f"throttle reasons differ: production {ev or 'none'}, reproduction {rep or 'none'}")
    for ix, g in s.get("gsis", {}).items():
        problems += _problems(g, f"GSI {ix}: ")
    return problems


def _text_block(title: str, s: dict[str, Any]) -> list[str]:
    lines = [title, f"  {'min':>4} {'RCU prod':>10} {'RCU repro':>10} {'WCU prod':>10} {'WCU repro':>10} "
                    f"{'thr prod':>9} {'thr repro':>9}"]  # fmt: skip
    for m in s["minutes"]:
        e, r = m["evidence"], m["reproduction"]
        lines.append(
            f"  {m['minute']:>4} {e['consumed_read']:>10,.1f} {r['consumed_read']:>10,.1f} {e['consumed_write']:>10,.1f} "
            f"{r['consumed_write']:>10,.1f} {e['read_throttle_events'] + e['write_throttle_events']:>9,.0f} "
            f"{r['read_throttle_events'] + r['write_throttle_events']:>9,.0f}"
        )
    lines.append(f"  max consumed error {s['max_consumed_error']:.1%}; throttled minutes "
                 f"{'agree' if s['throttle_minutes_agree'] else 'differ'}")  # fmt: skip
    return lines


def _reason_line(s: dict[str, Any]) -> list[str]:
    reasons = s["throttle_reasons"]
    if not reasons["evidence"]:
        return []
    pairs = ", ".join(f"{name} {n:,.0f} / {reasons['reproduction'].get(name, 0):,.0f}"
                      for name, n in sorted(reasons["evidence"].items()))  # fmt: skip
    return [f"  throttle events by reason, production / reproduction: {pairs}"]


def text(s: dict[str, Any]) -> str:
    lines = _text_block(f"evidence vs reproduction, table {s['table']} (per minute; consumed units, throttle events)", s)
    lines += _reason_line(s)
    for ix, g in s.get("gsis", {}).items():
        lines += _text_block(f"evidence vs reproduction, GSI {ix} of {s['table']} (its own dimension)", g)
    return "\n".join(lines)


def _html_block(title: str, s: dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><td>{m['minute']}</td>" + "".join(
            f"<td>{m['evidence'][k]:,.1f}</td><td>{m['reproduction'][k]:,.1f}</td>" for k in FIELDS) + "</tr>"
        for m in s["minutes"]
    )  # fmt: skip
    head = "".join(f"<th>{k} prod</th><th>{k} repro</th>" for k in FIELDS)
    return (
        f"<h2>{escape(title)}</h2>"
        f"<p>max consumed error {s['max_consumed_error']:.1%} · throttled minutes "
        f"{'agree' if s['throttle_minutes_agree'] else 'differ'}: production {s['throttle_minutes']['evidence']}, "
        f"reproduction {s['throttle_minutes']['reproduction']}</p>"
        f"<table border=1><tr><th>minute</th>{head}</tr>{rows}</table>"
    )


def html(s: dict[str, Any], notes: list[str]) -> str:
    """The evidence section of the report (a page of its own: DIR/evidence.html)."""
    keys = s["throttled_keys"]
    ev_keys = "".join(f"<li>minute {escape(str(m))}: {escape(', '.join(v))}</li>" for m, v in keys["evidence"].items())
    rep_keys = "".join(f"<li>minute {escape(m)}: {escape(', '.join(v))}</li>" for m, v in keys["reproduction"].items())
    gsis = "".join(_html_block(f"GSI {ix}", g) for ix, g in s.get("gsis", {}).items())
    return (
        f"<!doctype html><meta charset=utf-8><title>evidence · {escape(s['table'])}</title>"
        f"<h1>production vs reproduction · {escape(s['table'])}</h1>"
        + _html_block(f"table {s['table']}", s)
        + "".join(f"<p>{escape(line.strip())}</p>" for line in _reason_line(s)) + gsis
        + f"<h3>throttled keys</h3><p>production (Contributor Insights)</p><ul>{ev_keys or '<li>no report given</li>'}</ul>"
        f"<p>reproduction</p><ul>{rep_keys or '<li>none</li>'}</ul>"
        f"<h3>assumptions</h3><ul>{''.join(f'<li>{escape(n)}</li>' for n in notes)}</ul>"
    )


def write(s: dict[str, Any], notes: list[str], directory: str | Path) -> Path:
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    (d / "summary.json").write_bytes(orjson.dumps(s, option=orjson.OPT_INDENT_2) + b"\n")
    (d / "evidence.html").write_text(html(s, notes), encoding="utf-8")
    return d / "summary.json"
