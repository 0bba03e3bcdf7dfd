"""CloudWatch-equivalent per-minute metrics of a table or GSI, from its per-second history
(engine/capacity/history.py), counted as CloudWatch counts them (metrics-dimensions.html,
TroubleshootingThrottling-cloudwatch.html):

* ConsumedReadCapacityUnits / ConsumedWriteCapacityUnits: the units consumed in the minute;
* ReadThrottleEvents / WriteThrottleEvents: one per throttled event -- each item of a batch,
  and each of the table's or one GSI's refusals, on the resource that refused it (the
  table's figures leave its GSIs out, as CloudWatch's TableName dimension does);
* ThrottledRequests (the table only): exact, as the executors count it when they decide a
  request (the history's ``throttled_requests``): one per request refused as a whole, however
  many of its events were refused -- a single-item request refused by the table or by one of
  its GSIs, a transaction cancelled by a throttle, a BatchGetItem or BatchWriteItem only when
  every item in it was refused (a partly refused batch adds throttle events only).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from dynemu.api.admin.charts import PALETTE, line_chart
from dynemu.engine.cloudwatch.metrics import METRICS

MINUTE_METRICS = ("ConsumedReadCapacityUnits", "ConsumedWriteCapacityUnits", "ReadThrottleEvents", "WriteThrottleEvents")


def per_minute(history: Iterable[dict[str, Any]], base: int = 0) -> dict[int, list[float]]:
    """``{minute start: [consumed RCU, consumed WCU, read throttle events, write throttle events]}``,
    minutes counted from ``base`` (clock minutes by default; a replay's start, so that the
    same scenario gives the same minutes)."""
    out: dict[int, list[float]] = {}
    values = [METRICS[name].value for name in MINUTE_METRICS]  # one home: engine/cloudwatch/metrics.py
    for h in history:
        m = base + (int(h["t"]) - base) // 60 * 60
        acc = out.setdefault(m, [0.0, 0.0, 0.0, 0.0])
        for i, value in enumerate(values):
            acc[i] += value(h)
    return out


def throttled_requests(history: Iterable[dict[str, Any]], base: int = 0) -> dict[int, int]:
    """ThrottledRequests per minute (minutes as ``per_minute`` counts them)."""
    out: dict[int, int] = {}
    for h in history:
        n = h.get("throttled_requests", 0)
        if n:
            m = base + (int(h["t"]) - base) // 60 * 60
            out[m] = out.get(m, 0) + n
    return out


def chart(view: dict[str, Any], x_label: Callable[[float], str], markers: Sequence[tuple[float, str]]) -> str:
    """Per-minute bars (drawn as steps) of what CloudWatch would show for this resource: two
    panels, consumed units and throttles, each on its own axis (a few hundred throttle events
    would vanish beside tens of thousands of units)."""
    x0, x1 = view["x_range"]
    # complete minutes only: a minute still under way (or cut by the end of a replay) would
    # read as a drop in traffic
    minutes = {m: v for m, v in per_minute(view["history"], view.get("minute_base", 0)).items() if m + 60 <= x1}
    if not minutes:
        note = view.get("no_minute_note", "no complete minute yet")
        return line_chart(
            "CloudWatch per minute (Sum)", [], view["x_range"], x_label, css="chart minutes", note=note,
        )  # fmt: skip
    ts = sorted(minutes)
    units = [
        ("ConsumedReadCapacityUnits", PALETTE[0], [(t, minutes[t][0]) for t in ts]),
        ("ConsumedWriteCapacityUnits", PALETTE[2], [(t, minutes[t][1]) for t in ts]),
    ]
    throttles = [
        ("ReadThrottleEvents", PALETTE[5], [(t, minutes[t][2]) for t in ts]),
        ("WriteThrottleEvents", PALETTE[1], [(t, minutes[t][3]) for t in ts]),
    ]
    if view["summary"].get("index") is None:  # the table's (its requests refused by a GSI too)
        requests = throttled_requests(view["history"], view.get("minute_base", 0))
        throttles.append(("ThrottledRequests", PALETTE[4], [(t, float(requests.get(t, 0))) for t in ts]))
    end = ts[-1] + 60  # the last minute's step ends where the minute (or the chart) does
    x_range = (min(x0, ts[0]), x1)
    return "".join(
        line_chart(
            title, [(n, c, [*pts, (end, pts[-1][1])]) for n, c, pts in series], x_range, x_label, markers,
            step=True, origin=view.get("origin"), css="chart minutes",
        )  # fmt: skip
        for title, series in (
            ("CloudWatch per minute (Sum, complete minutes): consumed capacity units", units),
            ("CloudWatch per minute (Sum, complete minutes): throttle events and throttled requests", throttles),
        )
    )
