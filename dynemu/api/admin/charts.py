"""SVG charts drawn by dynemu itself (no library, no CDN): time-series lines and a
partition-by-time heat strip. Pure functions from numbers to SVG text, shared by the
dashboard and the replay report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from html import escape

Series = tuple[str, str, Sequence[tuple[float, float]]]  # (name, colour, [(x, y)])
PALETTE = ("#2563eb", "#dc2626", "#16a34a", "#d97706", "#7c3aed", "#0891b2", "#db2777", "#4b5563")
MAX_POINTS = 900


def _nice(v: float) -> float:
    """The top of an axis of four round steps (1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8 times a power of ten) >= v."""
    if v <= 0:
        return 1.0
    step = v / 4
    mag = 10.0 ** math.floor(math.log10(step))
    for m in (1, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10):
        if m * mag >= step:
            return 4 * m * mag
    return 40 * mag


def _fmt(v: float) -> str:
    """An axis or tooltip figure: 0.25 stays 0.25, 1500 is 1.5k."""
    if v >= 10000:
        return f"{v / 1000:.0f}k"
    if v >= 1000:
        return f"{v / 1000:.2f}".rstrip("0").rstrip(".") + "k"
    if v >= 10 or v == int(v):
        return f"{v:.0f}"
    return f"{v:.2f}".rstrip("0").rstrip(".")


# tick spacings in seconds: round times (10 s, 1 min, 5 min, ...)
_STEPS = (1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400)


def time_ticks(x0: float, x1: float, origin: float, most: int = 7) -> list[float]:
    """Ticks at round offsets from ``origin`` (the replay's start, the dashboard's "now")
    inside ``[x0, x1]``: at most ``most`` intervals."""
    span = max(1.0, x1 - x0)
    step = next((s for s in _STEPS if span / s <= most), _STEPS[-1])
    k = math.ceil((x0 - origin) / step)
    out = []
    while origin + k * step <= x1 + 1e-9:
        out.append(origin + k * step)
        k += 1
    return out


def _xlabels(ticks: Sequence[float], px: Callable[[float], float], y: float, x_label: Callable[[float], str],
             left: float, right: float) -> list[str]:
    """Tick labels; a label of two lines (``"-2:30\\n09:47:30"``: the time from now and the
    UTC clock time) is drawn as two rows, the second below ``y``."""
    out = []
    for x in ticks:
        p = px(x)
        anchor = " first" if p - left < 14 else " last" if right - p < 14 else ""
        first, _, second = x_label(x).partition("\n")
        rows = escape(first) + (f'<tspan x="{p:.1f}" dy="11">{escape(second)}</tspan>' if second else "")
        out.append(f'<text x="{p:.1f}" y="{y}" class="xlab{anchor}">{rows}</text>')
    return out


def label_rows(x_label: Callable[[float], str], x: float) -> int:
    """The extra height of two-line tick labels (0 or 11 px)."""
    return 11 if "\n" in x_label(x) else 0


MARKER_CHAR = 5.2  # px per character of a marker label (.mlab: 9 px)


def _markers(markers: Sequence[tuple[float, str]], x0: float, x1: float, px: Callable[[float], float],
             top: float, h: float, flip_at: float) -> list[str]:
    """Labelled vertical lines; each label beside its line on the side with room, moved down
    a row while it would overlap a label already placed."""
    out: list[str] = []
    placed: list[tuple[int, float, float]] = []  # (row, from, to) of each label drawn
    for x, label in sorted((m for m in markers if x0 <= m[0] <= x1), key=lambda m: (m[0], m[1])):
        short = (label.split(": ", 1)[-1] if label.startswith("phase: ") else label)[:44]
        p = px(x)
        right = p < flip_at
        extent = (p + 2, p + 2 + MARKER_CHAR * len(short)) if right else (p - 2 - MARKER_CHAR * len(short), p - 2)
        row = 0
        while any(r == row and a < extent[1] + 4 and extent[0] < b + 4 for r, a, b in placed):
            row += 1
        placed.append((row, *extent))
        y = top + 9 + 10 * row
        text = (
            f'<text x="{p + 2:.1f}" y="{y}" class="mlab">{escape(short)}</text>'
            if right
            else f'<text x="{p - 2:.1f}" y="{y}" class="mlab end">{escape(short)}</text>'
        )
        out.append(
            f'<line x1="{p:.1f}" x2="{p:.1f}" y1="{top}" y2="{top + h}" class="marker">'
            f"<title>{escape(label)}</title></line>{text}"
        )
    return out


def downsample(points: Sequence[tuple[float, float]], limit: int = MAX_POINTS) -> list[tuple[float, float]]:
    """At most ``limit`` points: means of consecutive runs (a long replay stays light)."""
    n = len(points)
    if n <= limit:
        return list(points)
    k = -(-n // limit)
    out = []
    for i in range(0, n, k):
        chunk = points[i : i + k]
        out.append((chunk[0][0], sum(y for _, y in chunk) / len(chunk)))
    return out


LEGEND_CHAR = 7.4  # px per character of an 11 px legend (a generous estimate: capitals are wide)


def _legend_rows(series: Sequence[Series], span: float) -> int:
    rows, x = 1, 0.0
    for name, _, _ in series:
        width = 20 + LEGEND_CHAR * len(name)
        if x and x + width > span:
            rows, x = rows + 1, 0.0
        x += width
    return rows


def _legend(series: Sequence[Series], x0: float, x1: float, top: float) -> list[str]:
    """The legend above the plot, wrapped into rows that never overlap."""
    out, lx, y = [], x0, top - 14 - 12 * (_legend_rows(series, x1 - x0) - 1)
    for name, colour, _ in series:
        width = 20 + LEGEND_CHAR * len(name)
        if lx > x0 and lx + width > x1:
            lx, y = x0, y + 12
        out.append(f'<rect x="{lx:.0f}" y="{y:.0f}" width="10" height="3" fill="{colour}"/>')
        out.append(f'<text x="{lx + 14:.0f}" y="{y + 5:.0f}" class="legend">{escape(name)}</text>')
        lx += width
    return out


FAR_ABOVE = 10  # a limit this many times the data's peak would flatten the data


def _fit_to_data(series: Sequence[Series], limit: str | None) -> list[Series]:
    """With ``limit`` (a series' name) far above every other series, the axis follows the
    data: the limit is drawn along the top and its legend says its value is off the scale."""
    series = list(series)
    if limit is None:
        return series
    peak = max((y for n, _, pts in series if n != limit for _, y in pts), default=0.0)
    top = max((y for n, _, pts in series if n == limit for _, y in pts), default=0.0)
    if peak <= 0 or top <= FAR_ABOVE * peak:
        return series
    cap = peak * 1.05
    return [
        (f"{n} {_fmt(top)} (off the scale)", c, [(x, min(y, cap)) for x, y in pts]) if n == limit else (n, c, pts)
        for n, c, pts in series
    ]


def line_chart(
    title: str,
    series: Sequence[Series],
    x_range: tuple[float, float],
    x_label: Callable[[float], str],
    markers: Sequence[tuple[float, str]] = (),
    width: int = 660,
    height: int = 210,
    step: bool = False,
    origin: float | None = None,
    note: str = "",
    css: str = "chart",
    limit: str | None = None,
) -> str:
    """Lines over a shared time axis, ticks at round times from ``origin``; ``markers`` are
    labelled vertical lines (splits, phases, model events) below the legend. ``step`` draws
    the lines as steps (allocated capacity changes at instants). The SVG scales to its box."""
    series = _fit_to_data(series, limit)
    rows = _legend_rows(series, width - 48 - 12)
    left, right, top, bottom = 48, 12, 28 + 12 * rows, 22 + label_rows(x_label, x_range[0])
    w, h = width - left - right, height - top - bottom
    x0, x1 = x_range
    span = (x1 - x0) or 1.0
    ymax = _nice(max((y for _, _, pts in series for _, y in pts), default=0.0) * 1.05)

    def px(x: float) -> float:
        return left + (x - x0) / span * w

    def py(y: float) -> float:
        return top + h - (y / ymax) * h

    out = [
        f'<svg class="{css}" role="img" aria-label="{escape(title)}" '
        f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">',
        f'<text x="{left}" y="14" class="title">{escape(title)}</text>',
    ]
    for i in range(5):
        y = ymax * i / 4
        out.append(f'<line x1="{left}" x2="{left + w}" y1="{py(y):.1f}" y2="{py(y):.1f}" class="grid"/>')
        out.append(f'<text x="{left - 4}" y="{py(y) + 4:.1f}" class="ylab">{_fmt(y)}</text>')
    ticks = time_ticks(x0, x1, x0 if origin is None else origin)
    out += _xlabels(ticks, px, height - 6 - label_rows(x_label, x0), x_label, left, left + w)
    out += _markers(markers, x0, x1, px, top, h, left + w * 0.6)
    for name, colour, pts in series:
        pts = downsample(pts)
        if not pts:
            continue
        coords = []
        for j, (x, y) in enumerate(pts):
            if step and j:
                coords.append(f"{px(x):.1f},{py(pts[j - 1][1]):.1f}")
            coords.append(f"{px(x):.1f},{py(y):.1f}")
        out.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="1.5" points="{" ".join(coords)}">'
            f"<title>{escape(name)}</title></polyline>"
        )
    out += _legend(series, left, left + w, top)
    if note:
        out.append(f'<text x="{left + w / 2:.1f}" y="{top + h / 2:.1f}" class="note-text">{escape(note)}</text>')
    out.append("</svg>")
    return "".join(out)


def heat_strip(
    title: str,
    rows: Sequence[tuple[str, dict[int, float]]],
    x_range: tuple[int, int],
    x_label: Callable[[float], str],
    colour: str = "220,38,38",
    width: int = 660,
    origin: float | None = None,
    unit: str = "",
) -> str:
    """One row per partition, one column per time slot, darker where the value is higher
    (e.g. throttled requests): "which partition, and when". A colour scale, top right,
    gives the value of the darkest cell (per second)."""
    left, right, top = 110, 12, 26
    row_h = 14
    x0, x1 = x_range
    slot = max(1, -(-(x1 - x0) // ((width - left - right) // 2)))  # seconds per column
    cols = max(1, -(-(x1 - x0) // slot))
    cw = (width - left - right) / cols
    height = top + row_h * max(1, len(rows)) + 22 + label_rows(x_label, x0)
    vmax = max((v for _, vals in rows for v in vals.values()), default=0.0)
    out = [
        f'<svg class="chart heat" role="img" aria-label="{escape(title)}" '
        f'viewBox="0 0 {width} {height}" xmlns="http://www.w3.org/2000/svg">',
        f'<text x="{left}" y="14" class="title">{escape(title)}</text>',
    ]
    label = f"{_fmt(vmax)}{unit} per s"
    sx = width - right - 112 - LEGEND_CHAR * len(label)  # the colour scale: 0 ... vmax per second
    out.append(f'<text x="{sx - 4:.0f}" y="14" class="ylab">0</text>')
    for i in range(10):
        out.append(
            f'<rect x="{sx + i * 10:.0f}" y="5" width="10" height="10" fill="rgba({colour},{0.15 + 0.85 * (i + 1) / 10:.2f})"/>'
        )
    out.append(f'<text x="{sx + 104:.0f}" y="14" class="legend">{escape(label)}</text>')
    for r, (label, vals) in enumerate(rows):
        y = top + r * row_h
        out.append(f'<text x="{left - 4}" y="{y + 11}" class="ylab">{escape(label)}</text>')
        out.append(
            f'<rect x="{left}" y="{y}" width="{width - left - right}" height="{row_h - 2}" class="lane"/>'
        )
        buckets: dict[int, float] = {}
        for t, v in vals.items():
            if x0 <= t < x1 and v:
                b = (t - x0) // slot
                buckets[b] = buckets.get(b, 0.0) + v
        for b, v in sorted(buckets.items()):
            alpha = 0.15 + 0.85 * min(1.0, v / (vmax * slot or 1))
            out.append(
                f'<rect x="{left + b * cw:.1f}" y="{y}" width="{max(cw, 1):.1f}" height="{row_h - 2}" '
                f'fill="rgba({colour},{alpha:.2f})"><title>{escape(label)} {escape(x_label(x0 + b * slot))}: '
                f"{_fmt(v)}</title></rect>"
            )

    def px(x: float) -> float:
        return left + (x - x0) / ((x1 - x0) or 1) * (width - left - right)

    ticks = time_ticks(x0, x1, x0 if origin is None else origin)
    out += _xlabels(ticks, px, height - 6 - label_rows(x_label, x0), x_label, left, width - right)
    if not rows:
        out.append(f'<text x="{left}" y="{top + 11}" class="legend">none</text>')
    out.append("</svg>")
    return "".join(out)
