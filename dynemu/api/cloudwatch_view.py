"""CloudWatch-equivalent per-minute metrics of a table or GSI, from its per-second history
(engine/capacity/history.py), counted as CloudWatch counts them (metrics-dimensions.html,
TroubleshootingThrottling-cloudwatch.html):

* ConsumedReadCapacityUnits / ConsumedWriteCapacityUnits: the units consumed in the minute;
* ReadThrottleEvents / WriteThrottleEvents: one per throttled event -- each item of a batch,
  and each of the table's or one GSI's refusals, on the resource that refused it (the
  table's figures leave its GSIs out, as CloudWatch's TableName dimension does);
* ThrottledRequests (the table only): one per refused request, its GSIs' refusals included
  (a write refused by an index is a throttled request of the table). dynemu counts each
  refused event as one request: exact for single-item requests; a batch whose items were
  only partly refused counts here, where CloudWatch counts a batch only when all of it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from dynemu.api.charts import PALETTE, line_chart


def per_minute(history: Iterable[dict[str, Any]], base: int = 0) -> dict[int, list[float]]:
    """``{minute start: [consumed RCU, consumed WCU, read throttle events, write throttle events]}``,
    minutes counted from ``base`` (clock minutes by default; a replay's start, so that the
    same scenario gives the same minutes)."""
    out: dict[int, list[float]] = {}
    for h in history:
        m = base + (int(h["t"]) - base) // 60 * 60
        acc = out.setdefault(m, [0.0, 0.0, 0.0, 0.0])
        acc[0] += h["read"]
        acc[1] += h["write"]
        for reason, n in h["throttles"].items():
            acc[2 if "Read" in reason else 3] += n
    return out


def index_refusals(views: Sequence[dict[str, Any]], base: int = 0) -> dict[int, float]:
    """Throttle events of a table's GSIs per minute (they are throttled requests of the table)."""
    out: dict[int, float] = {}
    for v in views:
        for m, acc in per_minute(v["history"], base).items():
            out[m] = out.get(m, 0.0) + acc[2] + acc[3]
    return out


def chart(view: dict[str, Any], x_label: Callable[[float], str], markers: Sequence[tuple[float, str]]) -> str:
    """Per-minute bars (drawn as steps) of what CloudWatch would show for this resource."""
    x0, x1 = view["x_range"]
    # complete minutes only: a minute still under way (or cut by the end of a replay) would
    # read as a drop in traffic
    minutes = {m: v for m, v in per_minute(view["history"], view.get("minute_base", 0)).items() if m + 60 <= x1}
    if not minutes:
        return line_chart(
            "CloudWatch per minute (Sum)", [], view["x_range"], x_label, css="chart minutes",
            note="no complete minute yet",
        )  # fmt: skip
    ts = sorted(minutes)
    series = [
        ("ConsumedReadCapacityUnits", PALETTE[0], [(t, minutes[t][0]) for t in ts]),
        ("ConsumedWriteCapacityUnits", PALETTE[2], [(t, minutes[t][1]) for t in ts]),
        ("ReadThrottleEvents", PALETTE[5], [(t, minutes[t][2]) for t in ts]),
        ("WriteThrottleEvents", PALETTE[1], [(t, minutes[t][3]) for t in ts]),
    ]
    if view.get("index_minutes") is not None:  # the table: its requests refused by a GSI too
        gsi = view["index_minutes"]
        series.append(
            ("ThrottledRequests", PALETTE[4], [(t, minutes[t][2] + minutes[t][3] + gsi.get(t, 0.0)) for t in ts])
        )
    end = ts[-1] + 60  # the last minute's step ends where the minute (or the chart) does
    series = [(n, c, [*pts, (end, pts[-1][1])]) for n, c, pts in series]
    return line_chart(
        "CloudWatch per minute (Sum, complete minutes): consumed units and throttle events",
        series, (min(x0, ts[0]), x1), x_label, markers, step=True, origin=view.get("origin"),
        css="chart minutes",
    )  # fmt: skip
