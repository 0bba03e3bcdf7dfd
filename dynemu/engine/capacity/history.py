"""A bounded per-second history of one table's or GSI's capacity, for the dashboard and the
replay report: consumed and allocated units, burst balance, throttles by reason, per-partition
activity, and the splits as they happen.

It stays off the request path: :meth:`CapacityHistory.sync` runs from
``ThroughputState.maintain`` (at most once per clock second, and only when traffic arrives)
and from readers. It copies the completed seconds the partitions' consumption rings hold
(they keep ``metrics_window`` seconds, so nothing is lost between two syncs) and the throttle
counters' growth since the previous sync, which it books on the last completed second. It
keeps the last ``seconds`` (600 by default) and the last 100 splits; memory is bounded by
``seconds`` x active partitions. Each completed second also feeds ``retention``
(engine/capacity/retention.py): CloudWatch's 3 hours per second and 15 days per minute, packed.
Reading bucket balances does not refill the buckets (the model's state is never touched).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from dynemu.engine.capacity.retention import Retention

HISTORY_SECONDS = 600
MAX_SPLITS = 100
MAX_EVENTS = 200
_KIND = ("read", "write")
_UNIT = ("RCU", "WCU")


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
    "throttled_requests", "ttl_deleted", "parts": {start_hex: [read, write, throttles, read
    limit, write limit]}}`` (``throttles`` are throttle events, one per refused item or GSI
    write; ``throttled_requests`` the requests refused as a whole, CloudWatch's
    ThrottledRequests, and ``ttl_deleted`` the items the TTL sweeper deleted, CloudWatch's
    TimeToLiveDeletedItemCount, both non-zero on a table's records only; ``parts`` lists only partitions with activity that
    second; a limit is what the partition may consume per second under the model: its share
    plus any adaptive boost where shares apply, else its ceiling or the table's rate;
    ``burst_low_*`` is the partition with the least burst left). ``events`` are the model's
    own moments, marked on the charts: burst exhausted, adaptive capacity raised or returned,
    splits, on-demand growth."""

    __slots__ = (
        "seconds",
        "records",
        "splits",
        "events",
        "_next",
        "_version",
        "_starts",
        "_throttles",
        "_requests",
        "_ttl_deleted",
        "_part_throttles",
        "_boosts",
        "_bursting",
        "retention",
    )

    def __init__(self, now: float, seconds: int = HISTORY_SECONDS) -> None:
        self.seconds = seconds
        self.records: deque[dict[str, Any]] = deque(maxlen=seconds)
        self.splits: deque[dict[str, Any]] = deque(maxlen=MAX_SPLITS)
        self.events: deque[dict[str, Any]] = deque(maxlen=MAX_EVENTS)
        self._boosts: dict[tuple[bytes, int], float] = {}  # adaptive boosts last seen
        self._bursting: dict[tuple[bytes, int], bool] = {}  # had burst savings last second
        self._next = int(now)  # the first second not yet recorded
        self._version = -1
        self._starts: list[bytes] = []
        self._throttles: dict[str, int] = {}
        self._requests = 0  # state.throttled_requests at the previous sync
        self._ttl_deleted = 0  # state.ttl_deleted at the previous sync
        self._part_throttles: dict[bytes, int] = {}
        self.retention = Retention(now)  # CloudWatch's longer tail: 3 hours per second, 15 days per minute

    def sync(self, state: Any, now: float) -> None:
        """Record every completed second up to ``now`` (the current one stays open)."""
        current = int(now)
        if state.version != self._version:
            self._note_split(state, current)
        if current <= self._next:
            return
        first = max(self._next, current - self.seconds)
        retention = self.retention
        for second in range(first, current):
            rec = self._record(state, second, last=second == current - 1)
            self.records.append(rec)
            retention.add(rec)
        retention.covered(current)
        self._next = current

    def _note_split(self, state: Any, current: int) -> None:
        starts = list(state.pmap.starts)
        if self._version >= 0 and len(starts) != len(self._starts):
            new = sorted(set(starts) - set(self._starts))
            self.splits.append(
                {"t": current, "from": len(self._starts), "to": len(starts), "new": [s.hex() for s in new]}
            )
            text = (
                f"on-demand scaled to {len(starts)} partitions"
                if state.on_demand
                else f"split: {len(self._starts)} → {len(starts)} partitions"
            )
            self.events.append({"t": current, "kind": "split", "text": text})
        self._version, self._starts = state.version, starts

    def _record(self, state: Any, second: int, last: bool) -> dict[str, Any]:
        at = second + 1.0  # balances at the end of the second
        uses_share = state.uses_share
        parts: dict[str, list[float]] = {}
        burst = [0.0, 0.0]
        low = [float("inf"), float("inf")]  # the partition with the least burst left
        read = write = 0.0
        for i, part in enumerate(state.pmap.parts):
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
                parts[part.start.hex()] = [r, w, thr, *limits(state, buckets)]
            if uses_share:
                for k in (0, 1):
                    share = buckets.share[k]
                    b = max(0.0, _level(share, at) - share.rate)
                    burst[k] += b
                    low[k] = min(low[k], b)
                    if last:
                        self._note_model(state, i, part.start, k, b, buckets.boost[k], second)
        if not uses_share:  # one table-level bucket holds the savings (gac, on-demand)
            for k in (0, 1):
                table = state.table_buckets[k]
                burst[k] = low[k] = max(0.0, _level(table, at) - table.rate) if table.cap > table.rate else 0.0
                if last and table.cap > table.rate:
                    self._note_burst((b"", k), burst[k], second, f"table bucket exhausted ({_KIND[k]})")
        throttles: dict[str, int] = {}
        requests = ttl_deleted = 0
        if last:
            requests = state.throttled_requests - self._requests
            self._requests = state.throttled_requests
            ttl_deleted = state.ttl_deleted - self._ttl_deleted
            self._ttl_deleted = state.ttl_deleted
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
            "throttled_requests": requests,
            "ttl_deleted": ttl_deleted,
            "parts": parts,
        }

    def _note_burst(self, key: tuple[bytes, int], balance: float, second: int, text: str) -> None:
        had = self._bursting.get(key, True)
        now = balance > 0.5  # under half a unit: spent
        if had and not now:
            self.events.append({"t": second, "kind": "burst", "text": text})
        self._bursting[key] = now

    def _note_model(self, state: Any, i: int, start: bytes, k: int, burst: float, boost: float, second: int) -> None:
        """Events of one partition: its burst savings running out, adaptive capacity raising
        its allocation (or returning it)."""
        if state.policy.share_seconds(state.cfg) > 1.0:  # a model that keeps burst savings
            self._note_burst((start, k), burst, second, f"burst exhausted on #{i} ({_KIND[k]})")
        before = self._boosts.get((start, k), 0.0)
        if boost != before:
            if boost > before:
                text = f"adaptive raised #{i} to {state.base_share(k) + boost:,.0f} {_UNIT[k]}"
            else:
                text = f"adaptive boost of #{i} returned"
            self.events.append({"t": second, "kind": "adaptive", "text": text})
            self._boosts[(start, k)] = boost

    def since(self, t0: float = 0) -> list[dict[str, Any]]:
        return [r for r in self.records if r["t"] >= t0]


def limits(state: Any, buckets: Any) -> tuple[float, float]:
    """What one partition may consume per second under the model (read, write): its share
    plus its adaptive boost where shares apply, else the lower of its ceiling and the table's
    rate (gac, on-demand)."""
    if state.uses_share:
        return state.base_share(0) + buckets.boost[0], state.base_share(1) + buckets.boost[1]
    return state.most(0), state.most(1)


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
