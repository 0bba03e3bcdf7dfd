"""A bounded per-second history of one table's or GSI's capacity, for the dashboard and the
replay report: consumed and allocated units, burst balance, throttles by reason, per-partition
activity, and the splits as they happen.

It stays off the request path: :meth:`CapacityHistory.sync` runs from
``ThroughputState.maintain`` (at most once per clock second, and only when traffic arrives)
and from readers. It copies the completed seconds the partitions' consumption rings hold
(they keep ``metrics_window`` seconds, so nothing is lost between two syncs) and the throttle
counters' growth since the previous sync, which it books on the last completed second. It
keeps the last ``seconds`` (600 by default) and the last 100 splits; memory is bounded by
``seconds`` x active partitions. Reading bucket balances does not refill the buckets (the
model's state is never touched).
"""

from __future__ import annotations

from collections import deque
from typing import Any

HISTORY_SECONDS = 600
MAX_SPLITS = 100


def _level(bucket: Any, t: float) -> float:
    """A token bucket's balance at ``t`` without refilling it (the lazy refill rule)."""
    dt = t - bucket.stamp
    if dt <= 0:
        return bucket.tokens
    return min(bucket.cap, bucket.tokens + dt * bucket.rate)


def _units(ring: Any, second: int) -> float:
    i = second % ring.size
    return ring.vals[i] if ring.secs[i] == second else 0.0


class CapacityHistory:
    """Per-second records ``{"t", "read", "write", "alloc_read", "alloc_write", "burst_read",
    "burst_write", "burst_low_read", "burst_low_write", "partitions", "throttles": {reason: n},
    "parts": {start_hex: [read, write, throttles]}}`` (``parts`` lists only partitions with
    activity that second; ``burst_low_*`` is the partition with the least burst left)."""

    __slots__ = (
        "seconds",
        "records",
        "splits",
        "_next",
        "_version",
        "_starts",
        "_throttles",
        "_part_throttles",
    )

    def __init__(self, now: float, seconds: int = HISTORY_SECONDS) -> None:
        self.seconds = seconds
        self.records: deque[dict[str, Any]] = deque(maxlen=seconds)
        self.splits: deque[dict[str, Any]] = deque(maxlen=MAX_SPLITS)
        self._next = int(now)  # the first second not yet recorded
        self._version = -1
        self._starts: list[bytes] = []
        self._throttles: dict[str, int] = {}
        self._part_throttles: dict[bytes, int] = {}

    def sync(self, state: Any, now: float) -> None:
        """Record every completed second up to ``now`` (the current one stays open)."""
        current = int(now)
        if state.version != self._version:
            self._note_split(state, current)
        if current <= self._next:
            return
        first = max(self._next, current - self.seconds)
        for second in range(first, current):
            self.records.append(self._record(state, second, last=second == current - 1))
        self._next = current

    def _note_split(self, state: Any, current: int) -> None:
        starts = list(state.pmap.starts)
        if self._version >= 0 and len(starts) != len(self._starts):
            new = sorted(set(starts) - set(self._starts))
            self.splits.append(
                {"t": current, "from": len(self._starts), "to": len(starts), "new": [s.hex() for s in new]}
            )
        self._version, self._starts = state.version, starts

    def _record(self, state: Any, second: int, last: bool) -> dict[str, Any]:
        at = second + 1.0  # balances at the end of the second
        uses_share = state.uses_share
        parts: dict[str, list[float]] = {}
        burst = [0.0, 0.0]
        low = [float("inf"), float("inf")]  # the partition with the least burst left
        read = write = 0.0
        for part in state.pmap.parts:
            buckets = part.buckets
            r, w = _units(buckets.consumed[0], second), _units(buckets.consumed[1], second)
            read += r
            write += w
            thr = 0
            if last:  # throttles since the previous sync are booked on the last second
                total = sum(buckets.throttles.values())
                thr = total - self._part_throttles.get(part.start, 0)
                self._part_throttles[part.start] = total
            if r or w or thr:
                parts[part.start.hex()] = [r, w, thr]
            if uses_share:
                for k in (0, 1):
                    share = buckets.share[k]
                    b = max(0.0, _level(share, at) - share.rate)
                    burst[k] += b
                    low[k] = min(low[k], b)
        if not uses_share:  # one table-level bucket holds the savings (gac, on-demand)
            for k in (0, 1):
                table = state.table_buckets[k]
                burst[k] = low[k] = max(0.0, _level(table, at) - table.rate) if table.cap > table.rate else 0.0
        throttles: dict[str, int] = {}
        if last:
            for reason, n in state.throttle_counts.items():
                d = n - self._throttles.get(reason, 0)
                if d:
                    throttles[reason] = d
            self._throttles = dict(state.throttle_counts)
        alloc = allocated(state)
        return {
            "t": second,
            "read": read,
            "write": write,
            "alloc_read": alloc[0],
            "alloc_write": alloc[1],
            "burst_read": burst[0],
            "burst_write": burst[1],
            "burst_low_read": low[0],
            "burst_low_write": low[1],
            "partitions": len(state.pmap),
            "throttles": throttles,
            "parts": parts,
        }

    def since(self, t0: float = 0) -> list[dict[str, Any]]:
        return [r for r in self.records if r["t"] >= t0]


def allocated(state: Any) -> tuple[float, float]:
    """Units per second the table or GSI may consume: its provisioned rate, or on on-demand
    tables what its partitions sustain (capped by the table's limit)."""
    n = len(state.pmap)
    out = []
    for k in (0, 1):
        rate = state.table_buckets[k].rate
        if state.on_demand:
            rate = min(rate, n * state.ceilings[k])
        out.append(rate)
    return out[0], out[1]
