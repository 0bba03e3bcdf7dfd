"""Contributor Insights on the dashboard: each enabled rule's report as a per-minute time
series of its top contributors, as CloudWatch graphs them (engine/insights.py)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from html import escape
from typing import Any

from dynemu.api.admin.charts import PALETTE, line_chart

SERIES = 6  # contributors drawn per report: the largest over the minutes shown


def _floor(row: dict[str, Any]) -> float:
    """What the key certainly had: Space-Saving's count less its possible error."""
    return row["count"] - row.get("error", 0.0)


def report_chart(
    report: dict[str, Any], x_label: Callable[[float], str], key_text: Callable[[Any], str], until: float | None = None
) -> str:
    """One rule's report: a line per contributor, one point per clock minute. Each point is
    the key's guaranteed count (exact unless keys were dropped that minute); a contributor
    with any approximate minute is marked "at least" in the legend."""
    # complete minutes only (before ``until``): the minute under way would read as a drop
    minutes: Sequence[dict[str, Any]] = [m for m in report["minutes"] if until is None or m["t"] + 60 <= until]
    totals: dict[str, float] = {}
    names: dict[str, str] = {}
    approximate: set[str] = set()
    for m in minutes:
        for row in m["top"]:
            k = repr(row["key"])
            totals[k] = totals.get(k, 0.0) + _floor(row)
            names[k] = key_text(row["key"])
            if row.get("error"):
                approximate.add(k)
    top = sorted(totals, key=lambda k: (-totals[k], k))[:SERIES]
    series = []
    for i, k in enumerate(top):
        pts = [(m["t"], next((_floor(r) for r in m["top"] if repr(r["key"]) == k), 0)) for m in minutes]
        name = f"{names[k]} (at least)" if k in approximate else names[k]
        series.append((name, PALETTE[i % len(PALETTE)], pts))
    x0 = minutes[0]["t"] if minutes else 0
    x1 = (minutes[-1]["t"] if minutes else 0) + 60
    # the rule's name (long: it holds the table's name and a time) is in the section's text
    note = "" if series else "no complete minute yet" if report["minutes"] else "no contributors yet"
    return line_chart(f"{report['title']} per minute", series, (x0, x1), x_label, step=True, note=note)


def section(
    ins: dict[str, Any] | None, x_label: Callable[[float], str], key_text: Callable[[Any], str],
    until: float | None = None,
) -> str:
    """The Contributor Insights block of a table's or GSI's section ("" when it was never enabled)."""
    if not ins or ins.get("status") == "DISABLED":
        return ""
    head = (
        f'<h3>Contributor Insights</h3><p class="note">status {escape(ins["status"])}'
        + (f" · mode {escape(ins['mode'])}" if ins.get("mode") else "")
        + " · the top contributors of each clock minute, counted from every request: exact unless a"
        " key is marked \u201cat least\u201d, where more keys were seen in a minute than are kept and the"
        " chart draws the count the key certainly had (the same figures, with each count's possible"
        " error, as JSON: <span class=\"mono\">/_dynemu/tables/&lt;name&gt;/contributor-insights</span>)</p>"
    )
    charts = "".join(report_chart(r, x_label, key_text, until) for r in ins.get("reports", ()))
    rules = " · ".join(f'<span class="mono">{escape(r["rule"])}</span>' for r in ins.get("reports", ()))
    return f'{head}<p class="note">rules: {rules}</p><div class="charts">{charts}</div>'
