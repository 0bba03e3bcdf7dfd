"""The longer, bounded tail of one table's or GSI's capacity history, for CloudWatch's API
(engine/cloudwatch/metrics.py): CloudWatch keeps data points with a period under 60 s for 3
hours and 1-minute data points for 15 days (API_GetMetricStatistics.html, "Amazon CloudWatch
retains metric data as follows"). dynemu keeps the same two tiers:

* per second, the last ``SECOND_KEEP`` seconds (3 hours);
* per minute, the last ``MINUTE_KEEP`` minutes (15 days), each minute rolled up as Sum,
  SampleCount, Minimum and Maximum of its per-second samples, so every statistic but the
  percentiles can still be answered at periods of 60 s and more.

Coarser data (CloudWatch's 5-minute points for 63 days, 1-hour points for 455 days) are not
kept: a query over older data gets no datapoints, as a query past CloudWatch's retention does.

Both tiers are sparse: a second (a minute) is stored only when something happened in it
(units consumed, a throttle, a change of the provisioned throughput). A second the history
covers but did not store was idle: readers give it 0 units consumed and the throughput then in
force (``gauges``, the changes of the provisioned throughput). Rows are packed in ``array``s of
floats in rings of a fixed number of rows, so the memory of one table or GSI is at most
``SECOND_KEEP`` x 17 + ``MINUTE_KEEP`` x 66 floats (about 1.5 MB + 11.4 MB, reached only by a
table active in every second and every minute of 3 hours and 15 days) plus ``MAX_GAUGES``
changes, however long the server runs; it lives on the table's capacity state and goes with it
when the table is deleted.

It is fed by ``CapacityHistory.sync`` (maintenance: at most once per clock second with traffic,
after each advance of a virtual clock, and before a read), never on the request path.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

SECOND_KEEP = 3 * 3600  # periods under a minute: 3 hours (API_GetMetricStatistics.html)
MINUTE_KEEP = 15 * 24 * 60  # 1-minute periods: 15 days
MAX_GAUGES = 4096  # changes of the provisioned throughput kept (the oldest known stands before them)
# per-second channels, in row order: (name, sparse: a sample only where the value is not 0)
# The limit types a ThrottlingReason ends with (API_ThrottlingReason.html), each counted per
# kind by a metric of its own ("CloudWatch throttling metrics": ReadKeyRangeThroughput-
# ThrottleEvents, ..., WriteAccountLimitThrottleEvents); channels "read:<limit>", "write:<limit>".
LIMITS = ("KeyRangeThroughputExceeded", "ProvisionedThroughputExceeded", "MaxOnDemandThroughputExceeded",
          "AccountLimitExceeded")  # fmt: skip
CHANNELS: tuple[tuple[str, bool], ...] = (
    ("read", False), ("write", False), ("alloc_read", False), ("alloc_write", False),
    ("read_throttles", True), ("write_throttles", True), ("throttled_requests", True),
    *((f"{kind}:{limit}", True) for kind in ("read", "write") for limit in LIMITS),
    ("ttl_deleted", True),
)  # fmt: skip
GAUGE = {"alloc_read": 0, "alloc_write": 1}  # the channels that hold the throughput in force
_N = len(CHANNELS)
MINUTE_WIDTH = 2 + 4 * _N  # minute start, seconds covered, then per channel: sum, count, min, max
Aggregate = tuple[int, float, float, float, float]  # (start, sum, sample count, minimum, maximum)


class Ring:
    """At most ``size`` rows of ``width`` floats, the oldest dropped first; the array grows
    with the rows, up to ``size`` of them."""

    __slots__ = ("width", "size", "data", "start", "count")

    def __init__(self, width: int, size: int) -> None:
        self.width, self.size = width, size
        self.data = array("d")
        self.start = 0
        self.count = 0

    def append(self, row: Sequence[float]) -> None:
        if self.count < self.size:
            i = self.start + self.count
            self.count += 1
        else:
            i = self.start
            self.start = (self.start + 1) % self.size
        at = i * self.width
        if at == len(self.data):
            self.data.extend(row)
        else:
            self.data[at : at + self.width] = array("d", row)

    def since(self, t0: float) -> list[array[float]]:
        """The rows whose first field is at least ``t0``, oldest first."""
        out = []
        w, data = self.width, self.data
        for k in range(self.count - 1, -1, -1):
            at = ((self.start + k) % self.size) * w
            if data[at] < t0:
                break
            out.append(data[at : at + w])
        out.reverse()
        return out

    @property
    def nbytes(self) -> int:
        return len(self.data) * self.data.itemsize


def _throttles(kind: str, limit: str = "") -> Any:
    """The throttle events of a kind ("Read", "Write") in one record, of one limit type or all."""

    def value(rec: dict[str, Any]) -> float:
        return float(sum(n for reason, n in rec["throttles"].items() if kind in reason and reason.endswith(limit)))

    return value


# each channel's value in one history record (throttle events by kind, as CloudWatch splits them)
EXTRACT: dict[str, Any] = {
    "read": lambda r: float(r["read"]), "write": lambda r: float(r["write"]),
    "alloc_read": lambda r: float(r["alloc_read"]), "alloc_write": lambda r: float(r["alloc_write"]),
    "read_throttles": _throttles("Read"), "write_throttles": _throttles("Write"),
    "throttled_requests": lambda r: float(r.get("throttled_requests", 0)),
    "ttl_deleted": lambda r: float(r.get("ttl_deleted", 0)),
    **{f"{kind.lower()}:{limit}": _throttles(kind, limit) for kind in ("Read", "Write") for limit in LIMITS},
}  # fmt: skip
_EXTRACTORS = tuple(EXTRACT[name] for name, _ in CHANNELS)
_EVENTS = tuple(i for i, (name, _) in enumerate(CHANNELS) if name not in GAUGE)  # a second's activity


def values(rec: dict[str, Any]) -> tuple[float, ...]:
    """One history record's channel values."""
    return tuple(f(rec) for f in _EXTRACTORS)


def _new_minute(m: int) -> list[float]:
    row = [float(m), 0.0]
    for _ in range(_N):
        row += [0.0, 0.0, float("inf"), float("-inf")]
    return row


class Retention:
    """The per-second and per-minute tiers of one table or GSI (see the module doc)."""

    __slots__ = ("born", "upto", "seconds", "minutes", "minute", "_open", "gauges", "_gauge_times")

    def __init__(self, now: float) -> None:
        self.born = int(now)  # the first second covered
        self.upto = int(now)  # the first second not yet covered
        self.seconds = Ring(1 + _N, SECOND_KEEP)
        self.minutes = Ring(MINUTE_WIDTH, MINUTE_KEEP)
        self.minute = -1  # the open minute's start
        self._open: list[float] | None = None
        self.gauges: deque[tuple[int, float, float]] = deque(maxlen=MAX_GAUGES)  # (second, read, write)
        self._gauge_times: list[int] | None = None  # bisect keys, made by readers

    # --- feeding (maintenance) -------------------------------------------------------------------

    def add(self, rec: dict[str, Any]) -> None:
        """One completed second of the history (seconds come in order; some may be skipped:
        those were idle)."""
        t = int(rec["t"])
        if t < self.upto:
            return
        v = values(rec)
        changed = not self.gauges or self.gauges[-1][1:] != (v[2], v[3])
        if changed:
            self.gauges.append((t, v[2], v[3]))
            self._gauge_times = None
        if changed or any(v[i] for i in _EVENTS):
            self.seconds.append((float(t), *v))
        m = t - t % 60
        if m != self.minute:
            self._close(t)
            self.minute, self._open = m, _new_minute(m)
        row = self._open
        assert row is not None
        row[1] += 1
        for i, x in enumerate(v):
            if x or not CHANNELS[i][1]:
                j = 2 + 4 * i
                row[j] += x
                row[j + 1] += 1
                if x < row[j + 2]:
                    row[j + 2] = x
                if x > row[j + 3]:
                    row[j + 3] = x
        self.upto = t + 1

    def covered(self, now: int) -> None:
        """Every second before ``now`` is known (those not added were idle)."""
        if now > self.upto:
            self._close(now)
            self.upto = now

    def _close(self, until: int) -> None:
        """Store the open minute if anything happened in it, its idle seconds filled in."""
        if self._open is None or until < self.minute + 60:
            return
        row = self._filled(self._open, min(until, self.minute + 60))
        self._open = None
        if _active(row):
            self.minutes.append(row)

    def _filled(self, row: list[float], until: int) -> list[float]:
        """A minute's row with the seconds it covers up to ``until`` that were not added
        counted as idle (0 consumed, the throughput then in force)."""
        m = int(row[0])
        idle = (min(until, m + 60) - max(m, self.born)) - int(row[1])
        if idle <= 0:
            return row
        out = list(row)
        out[1] += idle
        g = self.gauge(m + 59)
        for i, (name, sparse) in enumerate(CHANNELS):
            if sparse:
                continue
            x = g[GAUGE[name]] if name in GAUGE else 0.0
            j = 2 + 4 * i
            out[j] += x * idle
            out[j + 1] += idle
            out[j + 2] = min(out[j + 2], x)
            out[j + 3] = max(out[j + 3], x)
        return out

    # --- readers -------------------------------------------------------------------------------------

    def gauge(self, t: int) -> tuple[float, float]:
        """The provisioned (read, write) in force at second ``t`` (the oldest kept before it)."""
        if not self.gauges:
            return 0.0, 0.0
        if self._gauge_times is None:
            self._gauge_times = [g[0] for g in self.gauges]
        i = bisect_right(self._gauge_times, t) - 1
        g = self.gauges[max(i, 0)]
        return g[1], g[2]

    def second_floor(self) -> int:
        """The first second the per-second tier still answers for."""
        return max(self.born, self.upto - SECOND_KEEP)

    def minute_floor(self) -> int:
        return max(self.born - self.born % 60, self.upto - MINUTE_KEEP * 60)

    def per_second(self, channel: int, start: int, end: int) -> Iterator[Aggregate]:
        """One channel's per-second samples in [start, end) (of the kept seconds)."""
        lo, hi = max(start, self.second_floor()), min(end, self.upto)
        if lo >= hi:
            return
        stored = {int(r[0]): r[1 + channel] for r in self.seconds.since(lo) if r[0] < hi}
        name, sparse = CHANNELS[channel]
        if sparse:
            for t, x in stored.items():
                if x:
                    yield t, x, 1.0, x, x
            return
        k = GAUGE.get(name)
        for t in range(lo, hi):
            x = stored.get(t)
            if x is None:
                x = 0.0 if k is None else self.gauge(t)[k]
            yield t, x, 1.0, x, x

    def per_minute(self, channel: int, start: int, end: int) -> Iterator[Aggregate]:
        """One channel's per-minute roll-ups for the minutes that start in [start, end)."""
        lo = max(start, self.minute_floor())
        hi = min(end, self.upto)
        if lo >= hi:
            return
        lo += -lo % 60
        rows = {int(r[0]): r for r in self.minutes.since(lo) if r[0] < hi}
        if self._open is not None and lo <= self.minute < hi:
            rows[self.minute] = self._filled(self._open, self.upto)
        name, sparse = CHANNELS[channel]
        j = 2 + 4 * channel
        if sparse:
            for m, r in rows.items():
                if r[j + 1]:
                    yield m, r[j], r[j + 1], r[j + 2], r[j + 3]
            return
        k = GAUGE.get(name)
        for m in range(lo, hi, 60):
            r = rows.get(m)
            if r is not None:
                yield m, r[j], r[j + 1], r[j + 2], r[j + 3]
                continue
            n = float(min(self.upto, m + 60) - max(self.born, m))
            if n <= 0:
                continue
            x = 0.0 if k is None else self.gauge(m)[k]
            yield m, x * n, n, x, x

    @property
    def nbytes(self) -> int:
        return self.seconds.nbytes + self.minutes.nbytes


def _active(row: Sequence[float]) -> bool:
    """Whether a minute differs from an idle one (nothing consumed or throttled, one throughput)."""
    for i, (name, _) in enumerate(CHANNELS):
        j = 2 + 4 * i
        if name in GAUGE:
            if row[j + 1] and row[j + 2] != row[j + 3]:
                return True
        elif row[j]:
            return True
    return False
