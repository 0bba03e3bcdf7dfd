"""What a replay prints (a per-partition summary) and writes (``report.html``: the
dashboard's charts over the whole timeline, and the admitted and throttled counts).

Times are seconds from the start of the scenario, so the same scenario gives the same
report byte for byte (the wall-clock duration is printed, not written).
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

from dynemu.api.admin import dashboard_html as html
from dynemu.replay import replication_report
from dynemu.replay.runner import Outcome, Resource


def _elapsed(start: float, clock: bool = True) -> html.XLabel:
    """Ticks as the time into the run and, with ``clock``, below it the UTC clock time."""

    def label(x: float) -> str:
        d = int(round(x - start))
        sign = "-" if d < 0 else ""
        d = abs(d)
        return (
            f"{sign}{d // 3600}:{d // 60 % 60:02d}:{d % 60:02d}"
            if d >= 3600
            else f"{sign}{d // 60}:{d % 60:02d}"
        ) + ("\n" + html.utc_clock(x) if clock else "")

    return label


def _full_history(r: Resource, t0: int, t1: int) -> list[dict[str, Any]]:
    """Every second of the run (seconds without a record: nothing consumed or throttled)."""
    out, last = [], None
    for t in range(t0, t1):
        rec = r.history.get(t)
        if rec is None:
            base = last or {
                "alloc_read": 0.0,
                "alloc_write": 0.0,
                "burst_read": 0.0,
                "burst_write": 0.0,
                "burst_low_read": 0.0,
                "burst_low_write": 0.0,
                "partitions": 0,
            }
            rec = {**base, "t": t, "read": 0.0, "write": 0.0, "throttles": {}, "throttled_requests": 0,
                   "parts": {}}  # fmt: skip
        out.append(rec)
        last = rec
    return out


def resource_view(out: Outcome, r: Resource) -> dict[str, Any] | None:
    if not r.final:
        return None
    t0 = int(out.start)
    t1 = t0 + out.scenario.duration
    return {
        "label": r.label if r.index is None else f"{r.table} / index {r.index}",
        "anchor": r.table if r.index is None else f"{r.table}-index-{r.index}",
        "anchor_prefix": f"{r.table}-",
        "summary": r.final["summary"],
        "partitions": _run_average(r, out.scenario.duration),
        "hot_keys": r.final["hot_keys"],
        "history": _full_history(r, t0, t1),
        "splits": r.splits,
        "events": r.events,
        "x_range": (t0, t1),
        "x_label": _elapsed(out.start),
        "origin": t0,
        "consumed_over": "average over the run",
        "minute_base": t0,  # minutes from the start: the same scenario, the same report
        "markers": [(t0 + s, f"phase: {name}") for s, name in out.phases if s],
        "index_history": {} if r.index is not None else {
            o.index: _full_history(o, t0, t1)
            for o in out.resources
            if o.table == r.table and o.index is not None and o.final
        },
        "no_minute_note": f"the run lasted {out.scenario.duration} s: no complete minute",
        "index_throttles": {} if r.index is not None else {
            o.index: o.final["summary"]["throttles"]
            for o in out.resources
            if o.table == r.table and o.index is not None and o.final and o.final["summary"]["throttles"]
        },
    }


def _run_average(r: Resource, duration: int) -> list[dict[str, Any]]:
    """The final partitions with their consumption averaged over the whole run: the figure
    the printed summary shows (the admin view's is the last minute's)."""
    used = _consumed_per_partition(r, duration)
    return [
        {**p, "consumed_read_per_second": used.get(p["start"], (0.0, 0.0))[0],
         "consumed_write_per_second": used.get(p["start"], (0.0, 0.0))[1]}
        for p in r.final["partitions"]
    ]  # fmt: skip


def _counts(out: Outcome) -> str:
    rows = []
    for key in sorted(out.sent):
        table, op = key
        rows.append(
            f"<tr><td>{escape(table)}</td><td>{op}</td><td>{out.sent[key]:,}</td>"
            f"<td>{out.admitted[key]:,}</td><td>{out.throttled[key]:,}</td></tr>"
        )
    reasons = "".join(
        f"<tr><td>{escape(k)}</td><td>{v:,}</td></tr>" for k, v in sorted(out.reasons().items())
    )
    return (
        '<div class="row"><div><h3>requests (batched items counted one by one)</h3><table class="counts">'
        "<tr><th>table</th><th>operation</th><th>sent</th><th>admitted</th><th>throttled</th></tr>"
        f"{''.join(rows)}</table></div><div><h3>throttled, by reason (ThrottlingReasons)</h3>"
        f"{'<table>' + reasons + '</table>' if reasons else '<p>none</p>'}</div></div>"
    )


def render(out: Outcome) -> str:
    sc = out.scenario
    phases = "".join(
        f"<li>{escape(_elapsed(0, clock=False)(s))} {escape(name)} ({p.duration} s)</li>"
        for (s, name), p in zip(out.phases, sc.phases, strict=True)
    )
    sections = [resource_section for r in out.resources if (resource_section := _section(out, r))]
    body = (
        f"<h1>replay · {escape(sc.name)}</h1>"
        f'<p class="figures">model {escape(out.model or sc.model)} · seed {sc.seed} · {sc.duration} s of traffic</p>'
        + (f'<p class="look-for"><b>What to look for:</b> {escape(sc.look_for)}</p>' if sc.look_for else "")
        + f"<h3>phases</h3><ol>{phases}</ol>{_counts(out)}<div id=content>{''.join(sections)}{replication_report.section(out)}</div>"
    )
    head = f"<style>{html.static_text('dashboard.css')}</style>"
    return html.page(f"replay · {sc.name}", body, head)


def _section(out: Outcome, r: Resource) -> str:
    view = resource_view(out, r)
    return html.resource_section(view) if view is not None else ""


def write(out: Outcome, directory: str | Path) -> Path:
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    path = d / "report.html"
    path.write_text(render(out), encoding="utf-8")
    return path


def _consumed_per_partition(r: Resource, duration: int) -> dict[str, tuple[float, float]]:
    """Average units per second each partition (by its start) consumed over the run."""
    sums: dict[str, list[float]] = {}
    for rec in r.history.values():
        for start, (read, write, *_) in rec["parts"].items():
            acc = sums.setdefault(start, [0.0, 0.0])
            acc[0] += read
            acc[1] += write
    return {k: (v[0] / max(1, duration), v[1] / max(1, duration)) for k, v in sums.items()}


def summary_text(out: Outcome) -> str:
    """The per-partition summary printed at the end of a replay."""
    lines = [
        f"replay: {out.scenario.name} ({out.scenario.duration} s of traffic, model {out.model or out.scenario.model})"
    ]
    for key in sorted(out.sent):
        lines.append(
            f"  {key[0]} {key[1]}: {out.sent[key]:,} sent, {out.admitted[key]:,} admitted, "
            f"{out.throttled[key]:,} throttled"
        )
    for r in out.resources:
        if not r.final:
            lines.append(f"\n{r.label}: no traffic")
            continue
        s = r.final["summary"]
        lines.append(
            f"\n{r.label}: {s['partitions']} partitions, {html.throughput_text(s)}, splits {len(r.splits)}"
        )
        lines.append(
            f"  {'#':>3} {'key range (hash)':<36} {'items':>8} {'size':>10} {'alloc R/W':>13} "
            f"{'used R/W per s':>15}  throttles"
        )
        used = _consumed_per_partition(r, out.scenario.duration)
        for p in r.final["partitions"]:
            thr = ", ".join(f"{k} {v}" for k, v in sorted(p["throttles"].items())) or "-"
            alloc = f"{html.fmt_units(p['allocated_read'])}/{html.fmt_units(p['allocated_write'])}"
            rate = used.get(p["start"], (0.0, 0.0))
            lines.append(
                f"  {p['index']:>3} {html._range(p):<36} {p['item_count']:>8,} "
                f"{html.fmt_size(p['size_bytes']):>10} {alloc:>13} {f'{rate[0]:.1f}/{rate[1]:.1f}':>15}  {thr}"
            )
    lines += replication_report.summary_lines(out)  # global tables: what each region saw, when
    return "\n".join(lines)
