"""HTML of the dashboard and of the replay report: one section per table or GSI with its
charts (allocated against consumed units, burst balance, throttles by reason, throttles per
partition over time), its partitions as key ranges, its hottest keys and its splits.

Everything is escaped here; the pages carry no script but the dashboard's own
``dashboard.js`` (refresh and the virtual-clock buttons), served from the package.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from html import escape
from importlib import resources
from typing import Any

from dynemu.api.admin import cloudwatch_view, insights_html
from dynemu.api.admin.charts import PALETTE, heat_strip, line_chart

XLabel = Callable[[float], str]
MAX_HEAT_ROWS = 40  # partitions drawn in a heat strip


def static_text(name: str) -> str:
    return resources.files("dynemu.api.admin").joinpath("static", name).read_text("utf-8")


def fmt_size(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if n < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GB"


def utc_clock(t: float) -> str:
    """``HH:MM:SS`` in UTC, the time CloudWatch's graphs use."""
    return time.strftime("%H:%M:%S", time.gmtime(t))


def fmt_units(v: float) -> str:
    return f"{v:,.1f}".rstrip("0").rstrip(".") if v != int(v) else f"{int(v):,}"


def _boundary(b: dict[str, Any] | None, first: bool) -> str:
    """A partition boundary whole: its hash, and the key where it falls inside one key."""
    if b is None:
        return "end"
    text = "0" if first and set(b["hash"]) == {"0"} and "partition" not in b else b["hash"]
    if "partition" in b:
        text += " · " + key_text({"partition": b["partition"], "sort": b.get("sort")})
    return text


def _range(p: dict[str, Any]) -> str:
    return f"{_boundary(p.get('start_key'), True)} – {_boundary(p.get('end_key'), False)}"


def page(title: str, body: str, head: str = "") -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title>"
        '<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">'
        f"{head}</head><body>{body}</body></html>"
    )


def throughput_text(summary: dict[str, Any]) -> str:
    if summary.get("mode") == "PAY_PER_REQUEST":
        return "on-demand"
    r, w = summary.get("table_rate", [0, 0])
    return f"{fmt_units(r)} RCU / {fmt_units(w)} WCU"


def _series(history: Sequence[dict[str, Any]], field: str) -> list[tuple[float, float]]:
    return [(h["t"], h[field]) for h in history]


def _throttles_by_reason(view: dict[str, Any], hist: Sequence[dict[str, Any]]) -> dict[str, dict[float, float]]:
    """``{reason: {second: count}}`` of a resource; a table's includes its writes refused by a
    GSI (``index_history``), which are refused requests of the table too, under the Index
    reason and the GSI's name (ThrottlingReasons, TroubleshootingThrottling.html)."""
    out: dict[str, dict[float, float]] = {}
    for h in hist:
        for r, n in h["throttles"].items():
            out.setdefault(r, {})[h["t"]] = n
    for index, ih in sorted(view.get("index_history", {}).items()):
        for h in ih:
            for r, n in h["throttles"].items():
                if r.startswith("IndexWrite"):
                    label = f"{r} ({index})"
                    out.setdefault(label, {})[h["t"]] = out.get(label, {}).get(h["t"], 0) + n
    return out


def _charts(view: dict[str, Any]) -> str:
    hist: list[dict[str, Any]] = view["history"]
    xr, xl = view["x_range"], view["x_label"]
    markers = list(view.get("markers", ()))
    if "events" in view:  # the model's moments: burst exhausted, adaptive raised, splits, on-demand growth
        markers += [(e["t"], e["text"]) for e in view["events"]]
    else:
        markers += [(s["t"], f"split: {s['from']} → {s['to']} partitions") for s in view.get("splits", ())]
    out = []
    for kind, unit in (("read", "RCU"), ("write", "WCU")):
        out.append(
            line_chart(
                f"{unit} per second: allocated vs consumed",
                [
                    (f"allocated {unit}", "#9ca3af", _series(hist, f"alloc_{kind}")),
                    (f"consumed {unit}", PALETTE[0] if kind == "read" else PALETTE[2], _series(hist, kind)),
                ],
                xr,
                xl,
                markers,
                step=False,
                origin=view.get("origin"),
                limit=f"allocated {unit}",
            )
        )
    out.append(_burst_chart(view, hist, markers))
    by_reason = _throttles_by_reason(view, hist)
    out.append(
        line_chart(
            "throttled requests per second, by reason",
            [
                (r, PALETTE[(i + 1) % len(PALETTE)], [(h["t"], by_reason[r].get(h["t"], 0)) for h in hist])
                for i, r in enumerate(sorted(by_reason))
            ]
            or [("none", "#9ca3af", [(h["t"], 0) for h in hist])],
            xr,
            xl,
            markers,
            origin=view.get("origin"),
        )
    )
    out.append(cloudwatch_view.chart(view, xl, markers))
    out += _partition_limit_charts(view, hist, markers)
    starts = [p["start"] for p in view["partitions"]]
    for title, pick, colour in (
        ("throttles per partition over time", lambda v: v[2], "220,38,38"),
        ("consumed units per partition over time", lambda v: v[0] + v[1], "37,99,235"),
    ):
        rows = []
        for i, start in enumerate(starts):
            vals = {h["t"]: pick(h["parts"][start]) for h in hist if start in h["parts"]}
            rows.append((f"#{i} {start[:8] or '0'}", vals))
        if len(rows) > MAX_HEAT_ROWS:  # the busiest ones, in key order
            busiest = sorted(range(len(rows)), key=lambda i: -sum(rows[i][1].values()))[:MAX_HEAT_ROWS]
            rows = [rows[i] for i in sorted(busiest)]
            title += f" (busiest {MAX_HEAT_ROWS} of {len(starts)} partitions)"
        unit = " throttles" if colour.startswith("220") else " units"
        out.append(heat_strip(title, rows, (int(xr[0]), int(xr[1])), xl, colour, origin=view.get("origin"), unit=unit))
    return '<div class="charts">' + "".join(out) + "</div>"


HOT_PARTITIONS = 2  # partitions drawn against their limit: the most throttled, else the busiest


def _partition_limit_charts(view: dict[str, Any], hist: Sequence[dict[str, Any]], markers: list[tuple[float, str]]) -> list[str]:
    """The hottest partitions' consumption against their limit under the model, with their
    throttled requests: where consumption meets the limit and requests are refused, the
    excess was throttled."""
    totals: dict[str, list[float]] = {}
    for h in hist:
        for start, v in h["parts"].items():
            acc = totals.setdefault(start, [0.0, 0.0, 0.0])
            acc[0] += v[0]
            acc[1] += v[1]
            acc[2] += v[2]
    order = sorted(totals, key=lambda st: (-totals[st][2], -(totals[st][0] + totals[st][1]), st))
    index = {p["start"]: p["index"] for p in view["partitions"]}
    out = []
    for start in order[:HOT_PARTITIONS]:
        if start not in index:  # a partition that has since split
            continue
        k = 1 if totals[start][1] * 3 >= totals[start][0] else 0  # write units weigh three read units
        unit = ("RCU", "WCU")[k]
        used, limit, thr = [], [], []
        last_limit = None
        for h in hist:
            v = h["parts"].get(start)
            if v is not None and len(v) > 3:
                last_limit = v[3 + k]
            used.append((h["t"], v[k] if v else 0.0))
            thr.append((h["t"], v[2] if v else 0.0))
            if last_limit is not None:
                limit.append((h["t"], last_limit))
        out.append(
            line_chart(
                f"partition #{index[start]} ({start[:8] or '0'}): {unit} per second against its limit",
                [
                    (f"limit under {view['summary'].get('model', '')}", "#9ca3af", limit),
                    (f"consumed {unit}", PALETTE[2] if k else PALETTE[0], used),
                    ("throttled requests", PALETTE[1], thr),
                ],
                view["x_range"], view["x_label"], markers, origin=view.get("origin"),
                limit=f"limit under {view['summary'].get('model', '')}",
            )  # fmt: skip
        )
    return out


def scope(summary: dict[str, Any]) -> str:
    """Where a model keeps its burst: ``"partitions"`` (share buckets: burst, adaptive),
    ``"table"`` (gac's table bucket), or ``"none"`` (uniform, on-demand)."""
    if summary.get("mode") == "PAY_PER_REQUEST" or summary.get("model") == "uniform":
        return "none"
    return "table" if summary.get("model") == "gac" else "partitions"


def _burst_chart(view: dict[str, Any], hist: Sequence[dict[str, Any]], markers: list[tuple[float, str]]) -> str:
    """Burst balance as the active model keeps it: per partition (the sum and the lowest),
    the table bucket (gac), or a note that the model keeps none."""
    where = scope(view["summary"])
    xr, xl, origin = view["x_range"], view["x_label"], view.get("origin")
    if where == "partitions":
        return line_chart(
            "burst balance (units saved above the allocated rate)",
            [
                ("read (all)", PALETTE[0], _series(hist, "burst_read")),
                ("write (all)", PALETTE[2], _series(hist, "burst_write")),
                ("read (lowest partition)", PALETTE[5], _series(hist, "burst_low_read")),
                ("write (lowest partition)", PALETTE[3], _series(hist, "burst_low_write")),
            ],
            xr, xl, markers, origin=origin,
        )  # fmt: skip
    if where == "table":
        return line_chart(
            "table bucket: units saved above the table's rate (gac keeps no per-partition burst)",
            [
                ("read (table bucket)", PALETTE[0], _series(hist, "burst_read")),
                ("write (table bucket)", PALETTE[2], _series(hist, "burst_write")),
            ],
            xr, xl, markers, origin=origin,
        )  # fmt: skip
    why = (
        "on-demand tables keep no burst: partitions are added behind the peak"
        if view["summary"].get("mode") == "PAY_PER_REQUEST"
        else "the uniform model keeps no burst: a partition may use only its share each second"
    )
    return line_chart(
        "burst balance",
        [("read", PALETTE[0], _series(hist, "burst_read")), ("write", PALETTE[2], _series(hist, "burst_write"))],
        xr, xl, markers, origin=origin, note=why,
    )  # fmt: skip


def _ru(a: float, b: float) -> str:
    return f"{fmt_units(round(a, 1))} / {fmt_units(round(b, 1))}"


LIMIT_NOTE = {
    "table": "Under gac a partition has no share of its own: it is limited by its ceiling (3,000 RCU and "
    "1,000 WCU per second) and by the table's bucket, which every request draws from. A partition may "
    "consume more than an even split of the table's throughput while the table bucket holds units.",
    "none": "On-demand: a partition is limited by its ceiling (3,000 RCU and 1,000 WCU per second) and the "
    "table by its on-demand limits; partitions are added behind the traffic's peak.",
}


def _partitions_table(parts: Sequence[dict[str, Any]], summary: dict[str, Any], over: str = "last minute") -> str:
    """The partitions, with the columns of what limits them under the active model: a share
    (allocated) and burst where the model keeps shares, else the ceiling and the table bucket."""
    shares = scope(summary) == "partitions" or (
        summary.get("model") == "uniform" and summary.get("mode") != "PAY_PER_REQUEST"
    )
    if shares:
        head = (
            "<tr><th>#</th><th>key range (hash)</th><th>items</th><th>size</th><th>allocated RCU/WCU per s</th>"
            f"<th>consumed RCU/WCU per s ({over})</th><th>balance R/W</th><th>burst R/W</th><th>throttles</th></tr>"
        )
    else:
        head = (
            "<tr><th>#</th><th>key range (hash)</th><th>items</th><th>size</th><th>ceiling RCU/WCU per s</th>"
            f"<th>may use RCU/WCU per s (ceiling, table rate)</th><th>consumed RCU/WCU per s ({over})</th>"
            "<th>ceiling balance R/W</th><th>throttles</th></tr>"
        )
    rows = []
    for p in parts:
        thr = ", ".join(f"{escape(k)}: {v:,}" for k, v in sorted(p.get("throttles", {}).items())) or "–"
        used = _ru(p["consumed_read_per_second"], p["consumed_write_per_second"])
        if shares:
            cols = (
                f"<td>{_ru(p['allocated_read'], p['allocated_write'])}</td><td>{used}</td>"
                f"<td>{_ru(p['bucket_read'], p['bucket_write'])}</td><td>{_ru(p['burst_read'], p['burst_write'])}</td>"
            )
        else:
            cols = (
                f"<td>{_ru(p['ceiling_read'], p['ceiling_write'])}</td><td>{_ru(p['max_read'], p['max_write'])}</td>"
                f"<td>{used}</td><td>{_ru(p['bucket_read'], p['bucket_write'])}</td>"
            )
        rows.append(
            f'<tr class="partition"><td>{p["index"]}</td><td class="mono">{escape(_range(p))}</td>'
            f"<td>{p['item_count']:,}</td><td>{fmt_size(p['size_bytes'])}</td>{cols}<td>{thr}</td></tr>"
        )
    note = "" if shares else f'<p class="note limits">{escape(LIMIT_NOTE[scope(summary)])}</p>'
    return f'{note}<table class="partitions">{head}{"".join(rows)}</table>'


def key_text(key: Any) -> str:
    """A key value as it reads: ``{"S": "abc"}`` is ``abc``, ``{"N": "5"}`` is ``5``; an item
    ``{"partition": pk, "sort": sk}`` is ``pk · sk``; a key of several attributes ``a + b``."""
    if isinstance(key, dict) and set(key) == {"partition", "sort"}:
        return key_text(key["partition"]) + ("" if key["sort"] is None else " · " + key_text(key["sort"]))
    if isinstance(key, list):
        return " + ".join(key_text(k) for k in key)
    if isinstance(key, dict) and len(key) == 1:
        return str(next(iter(key.values())))
    return str(key)


def _hot_list(rows: Sequence[dict[str, Any]], field: str, bound: float) -> str:
    lis = "".join(
        f'<li><span class="mono">{escape(key_text(r["key"]))}</span> {fmt_units(r[field])}'
        + (f' <span class="err">(at most {fmt_units(r["error"])} over)</span>' if r.get("error") else "")
        + "</li>"
        for r in rows
    )
    note = f'<p class="note">any key not listed: at most {fmt_units(bound)}</p>' if bound else ""
    return (f"<ol>{lis}</ol>" if lis else "<p>none</p>") + note


def window_text(hot: dict[str, Any], x_label: XLabel | None = None) -> str:
    w = hot.get("window") or {}
    if w.get("minutes") is None:
        return "over the whole run"
    start = x_label(w["since"]) if x_label is not None else ""
    return f"over the last {w['minutes']} minutes" + (f" (since {start})" if start else "")


def _hot_keys(hot: dict[str, Any], x_label: XLabel | None = None) -> str:
    """Exact per-key figures with the Space-Saving bound stated (engine/capacity/contributors.py)."""
    lists = []
    for field, title, value in (
        ("by_consumed_units", "partition keys by consumed units", "units"),
        ("by_throttles", "partition keys by throttles", "throttles"),
        ("items_by_consumed_units", "items by consumed units", "units"),
        ("items_by_throttles", "items by throttles", "throttles"),
    ):
        if field in hot and (field.startswith("by_") or hot.get("has_sort", True)):
            lists.append(
                f"<div><h4>{title}</h4>{_hot_list(hot[field], value, hot.get(field + '_bound', 0.0))}</div>"
            )
    k = hot.get("keys_per_counter")
    how = (
        f'<p class="note">Counted exactly for every request {escape(window_text(hot, x_label))}, '
        f"{k:,} keys per counter (Space-Saving): a figure is exact unless marked "
        "\"at most N over\", and a key not listed cannot have more than the stated bound.</p>"
        if k
        else ""
    )
    return f'<h3 class="hot-title">hottest keys</h3>{how}<div class="hot">{"".join(lists)}</div>'


def _splits(splits: Sequence[dict[str, Any]], xl: XLabel) -> str:
    if not splits:
        return "<p>no splits</p>"
    lis = "".join(
        f"<li>{escape(xl(s['t']))}: {s['from']} → {s['to']} partitions "
        f'(new: <span class="mono">{escape(", ".join(n[:16] for n in s["new"][:8]))}</span>)</li>'
        for s in splits
    )
    return f'<ul class="splits">{lis}</ul>'


def resource_section(view: dict[str, Any]) -> str:
    """A table's or GSI's section: figures, charts, partitions, throttles, keys, splits."""
    s = view["summary"]
    throttles = s.get("throttles", {})
    thr = "".join(f"<tr><td>{escape(k)}</td><td>{v:,}</td></tr>" for k, v in sorted(throttles.items()))
    for index, counts in sorted(view.get("index_throttles", {}).items()):
        # a write refused by a GSI is a throttled request of the table too (CloudWatch counts it
        # in the table's ThrottledRequests); the index's own section says which partition
        link = f'<a href="#{escape(view.get("anchor_prefix", ""))}index-{escape(index)}">index {escape(index)}</a>'
        thr += "".join(
            f"<tr><td>{escape(k)} (refused by {link})</td><td>{v:,}</td></tr>" for k, v in sorted(counts.items())
        )
    return (
        f'<section class="resource" id="{escape(view["anchor"])}"><h2>{escape(view["label"])}</h2>'
        f'<p class="figures">{escape(s.get("mode", ""))} · {escape(throughput_text(s))} · model '
        f"{escape(s.get('model', ''))} · {s.get('partitions', 0)} partitions · consumed "
        f"{fmt_units(round(s.get('consumed_total', [0, 0])[0], 1))} RCU / "
        f"{fmt_units(round(s.get('consumed_total', [0, 0])[1], 1))} WCU in all</p>"
        f"{_charts(view)}"
        f"<h3>partitions</h3>{_partitions_table(view['partitions'], s, view.get('consumed_over', 'last minute'))}"
        f'<div class="row"><div><h3>throttles by reason</h3>'
        f"{'<table>' + thr + '</table>' if thr else '<p>none</p>'}</div>"
        f"<div><h3>splits</h3>{_splits(view.get('splits', ()), view['x_label'])}</div></div>"
        f"{_hot_keys(view['hot_keys'], view['x_label'])}"
        f"{insights_html.section(view.get('insights'), view['x_label'], key_text, view['x_range'][1])}</section>"
    )


RESTART_NOTE = (
    "Throttle counts come from the per-second history, kept in memory: after a restart of dynemu "
    "they start again from zero (the tables, their items and their capacity settings are kept)."
)


def index_body(region: str, now_text: str, rows: Sequence[dict[str, Any]], clock: dict[str, Any], extra: str = "") -> str:
    trs = []
    for r in rows:
        thr = ", ".join(f"{escape(k)}: {v:,}" for k, v in sorted(r["recent_throttles"].items())) or "–"
        trs.append(
            f'<tr class="table-row"><td><a href="{escape(r["href"])}">{escape(r["name"])}</a></td>'
            f"<td>{escape(r['billing'])}</td><td>{escape(r['throughput'])}</td><td>{r['partitions']}</td>"
            f"<td>{r['items']:,}</td><td>{fmt_size(r['size'])}</td><td>{thr}</td></tr>"
        )
    table = (
        '<table class="tables"><tr><th>table</th><th>billing</th><th>throughput</th><th>partitions</th>'
        "<th>items</th><th>size</th><th>throttles, last 5 minutes</th></tr>" + "".join(trs) + "</table>"
        + f'<p class="note">{escape(RESTART_NOTE)}</p>'
        if trs
        else "<p>no tables in this namespace</p>"
    )
    return f"<h1>dynemu · {escape(region)}</h1>{clock_bar(clock, now_text)}<div id=content>{table}{extra}</div>"


def key_lookup(query: Any, key: str | None, answer: str) -> str:
    """A GET form asking which partition of the table holds a key (DynamoDB JSON)."""
    keep = "".join(
        f'<input type="hidden" name="{k}" value="{escape(query[k])}">' for k in ("region", "access_key") if k in query
    )
    shown = f' value="{escape(key)}"' if key is not None else ""
    out = f' <span class="lookup-answer">{escape(answer)}</span>' if answer else ""
    return (
        f'<form class="lookup" method="get">{keep}<label>which partition holds key '
        f'<input name="key" size="40" placeholder=\'{{"pk": {{"S": "user#1"}}}}\'{shown}></label>'
        f'<button type="submit">find</button>{out}</form>'
    )


def clock_bar(clock: dict[str, Any], now_text: str) -> str:
    """The clock line: its mode and time; with a virtual clock, buttons that advance it
    (through the admin API and its protections)."""
    controls = ""
    if clock.get("mode") == "virtual":
        buttons = "".join(
            f'<button type="button" data-advance="{s}">+{label}</button>'
            for s, label in ((1, "1 s"), (10, "10 s"), (60, "1 min"), (300, "5 min"))
        )
        controls = (
            f'<span class="advance">advance the virtual clock: {buttons}</span> '
            '<label>admin token <input id="token" type="password" size="10"></label> '
            '<span id="clock-status" class="error"></span>'
        )
    return (
        f'<p class="clock">clock: {escape(str(clock.get("mode")))} · now '
        f'<span class="clock-now">{escape(now_text)}</span> {controls} '
        '<label><input id="live" type="checkbox" checked> refresh every 3 s</label></p>'
    )
