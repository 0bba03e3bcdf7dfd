"""Admission control: token buckets per table/GSI and per partition, the capacity models.

One :class:`ThroughputState` per table and per GSI. All amounts are capacity units
(floats; every charge is a multiple of 0.5) and all times epoch seconds from the clock.

**The token-bucket rule.** A bucket has a ``rate`` (units/s) and a capacity ``cap``; it
refills lazily, ``tokens = min(cap, tokens + rate * elapsed)``, whenever it is looked at
(no timers). A request is **admitted when every bucket it touches has a positive
balance** (``tokens > 0``); its **actual units are then debited** from all of them, so a
balance can go **negative by at most one request's cost** -- DynamoDB likewise charges
the real size of what it read or wrote after admitting the request (a 400 KB write on a
1 WCU table succeeds and the debt is repaid by later refills). Buckets start with one
second's worth of tokens. A throttled request debits nothing. ``throttling=False`` keeps
every bucket, debit and metric but admits everything (balances are then floored at
``-cap`` so the admin view stays readable).

**Buckets a request touches** (``kind`` = read or write):

* the table-level bucket: rate = provisioned units (on-demand: ``min(per-table quota
  40,000, OnDemandThroughput max)``); cap = 300 s of it in ``burst``/``adaptive``/``gac``,
  1 s in ``uniform`` and on-demand. It is *enforced* in ``adaptive``, ``gac`` and on
  on-demand tables; in ``uniform``/``burst`` it only tells a hot partition
  (``KeyRangeThroughputExceeded``) from a saturated table (``ProvisionedThroughputExceeded``);
* the partition ceiling: 3,000 RCU / 1,000 WCU per second, cap 1 s, in every model
  (bp-partition-key-design.html);
* the partition share, provisioned ``uniform``/``burst``/``adaptive`` only: rate =
  table units / partitions (the seeds' even split; "throughput dilation" after splits
  and decreases), cap 1 s (``uniform``) or 300 s (``burst``, ``adaptive``:
  burst-adaptive-capacity.html, "up to 5 minutes of unused capacity").

``adaptive``: a partition throttled continuously for ``adaptive_after`` seconds gets the
table's unused capacity (provisioned minus the other partitions' recent consumption) as a
boost, up to its ceiling, until its consumption falls clearly (10 %) under its share.
``gac``: a partition whose consumption stays above ``heat_threshold`` of its ceiling for
``heat_after`` seconds splits at its balanced key (split for heat). On-demand tables
(any model) start with 4 partitions (12,000 RRU / 4,000 WRU) and double them once a peak
has stood for 30 minutes, so traffic beyond twice the previous peak within 30 minutes is
throttled by the partition ceilings (HowItWorks.ReadWriteCapacityMode.md).

Reasons follow ThrottlingReason's ResourceType+OperationType+LimitType form
(API_ThrottlingReason.html), e.g. ``TableReadKeyRangeThroughputExceeded``. A refusal is a
:class:`ThrottleDecision`; provisioned tables answer ProvisionedThroughputExceededException,
on-demand ones ThrottlingException (the messages below are quoted from real responses).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from dynemu.engine.capacity.history import CapacityHistory
from dynemu.engine.capacity.partitions import (
    DEFAULT_PARTITION_SIZE,
    PARTITION_READ_MAX,
    PARTITION_WRITE_MAX,
    PartitionMap,
    initial_partition_count,
    partitions_for_throughput,
    partitions_for_warm,
)

MODELS = ("uniform", "burst", "adaptive", "gac")
READ, WRITE = 0, 1
_OPS = ("Read", "Write")
KEY_RANGE = "KeyRangeThroughputExceeded"
PROVISIONED = "ProvisionedThroughputExceeded"
ACCOUNT_LIMIT = "AccountLimitExceeded"
MAX_ON_DEMAND = "MaxOnDemandThroughputExceeded"

# ProvisionedThroughputExceededException messages as the service returns them (quoted in
# mifi/dynamodump#20, source-cooperative/source.coop#12; grailbio/reflow#101 for GSIs).
TABLE_MESSAGE = (
    "The level of configured provisioned throughput for the table was exceeded. "
    "Consider increasing your provisioning level with the UpdateTable API."
)
INDEX_MESSAGE = (
    "The level of configured provisioned throughput for one or more global secondary indexes of the "
    "table was exceeded. Consider increasing your provisioning level for the under-provisioned global "
    "secondary indexes with the UpdateTable API"
)
# ThrottlingException an on-demand table returns (praetorian-inc/chariot-ui#684,
# cowinapi/developer.cowin#151).
ON_DEMAND_MESSAGE = (
    "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling "
    "your table or index so please try again shortly. If exceptions persist, check if you have a hot key: "
    "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html"
)


@dataclass(slots=True)
class CapacityConfig:
    """Settings shared by every table of a server (``--capacity-model``, ``--throttling``,
    ``--partition-size``); every constant of the model is here so tests can shrink it."""

    model: str = "gac"
    throttling: bool = True
    partition_size: int = DEFAULT_PARTITION_SIZE
    burst_seconds: float = 300.0
    partition_read_max: float = PARTITION_READ_MAX
    partition_write_max: float = PARTITION_WRITE_MAX
    table_quota_read: float = 40000.0  # DescribeLimits TableMaxReadCapacityUnits
    table_quota_write: float = 40000.0
    on_demand_peak_window: float = 1800.0  # "2x the previous peak within 30 minutes"
    adaptive_after: float = 300.0  # sustained throttling before adaptive capacity steps in
    adaptive_gap: float = 5.0  # a pause longer than this ends a throttling streak
    heat_threshold: float = 0.8  # share of the partition ceiling that counts as hot
    heat_after: float = 60.0  # seconds hot before a split for heat
    heat_window: int = 10  # seconds averaged for the heat test and for returning boosts
    metrics_window: int = 60  # seconds kept for "consumed per second recently"

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"unknown capacity model {self.model!r}; expected one of {', '.join(MODELS)}")


class Bucket:
    __slots__ = ("rate", "cap", "tokens", "stamp")

    def __init__(self, rate: float, cap: float, now: float, tokens: float | None = None) -> None:
        self.rate, self.cap, self.stamp = rate, cap, now
        self.tokens = min(cap, rate) if tokens is None else tokens

    def level(self, now: float) -> float:
        """Refill from the elapsed time and return the balance."""
        dt = now - self.stamp
        if dt > 0:
            t = self.tokens + dt * self.rate
            self.tokens = self.cap if t > self.cap else t
            self.stamp = now
        return self.tokens

    def take(self, units: float, now: float, clamp: bool = False) -> None:
        """Refill, then debit ``units``; ``clamp`` keeps the balance >= ``-cap``."""
        dt = now - self.stamp
        if dt > 0:
            t = self.tokens + dt * self.rate
            self.tokens = self.cap if t > self.cap else t
            self.stamp = now
        t = self.tokens - units
        if clamp and t < -self.cap:
            t = -self.cap
        self.tokens = t

    def reset(self, rate: float, cap: float, now: float) -> None:
        self.level(now)
        self.rate, self.cap = rate, cap
        if self.tokens > cap:
            self.tokens = cap


class RateRing:
    """Units consumed per whole second over the last ``size`` seconds; O(1) per add."""

    __slots__ = ("secs", "vals", "size")

    def __init__(self, window: int) -> None:
        self.size = size = window + 1  # the current second plus ``window`` completed ones
        self.secs = [-1] * size
        self.vals = [0.0] * size

    def add(self, now: float, units: float) -> None:
        s = int(now)
        i = s % self.size
        if self.secs[i] != s:
            self.secs[i] = s
            self.vals[i] = 0.0
        self.vals[i] += units

    def completed(self, now: float, since: int) -> Iterable[tuple[int, float]]:
        """``(second, units)`` of whole seconds in ``[since, now)`` still held."""
        s = int(now)
        return ((t, v) for t, v in zip(self.secs, self.vals, strict=True) if since <= t < s)

    def rate(self, now: float, window: int) -> float:
        """Average units/s over the last ``window`` completed seconds."""
        window = min(window, self.size - 1)
        return sum(v for _, v in self.completed(now, int(now) - window)) / window


class PartitionLoad:
    """Buckets, recent consumption and throttle counts of one partition (read, write)."""

    __slots__ = (
        "ceil",
        "share",
        "boost",
        "consumed",
        "throttles",
        "streak_start",
        "streak_last",
        "adapt_at",
        "hot_since",
    )

    def __init__(self, ceilings: tuple[float, float], now: float, window: int) -> None:
        self.ceil = [Bucket(c, c, now) for c in ceilings]
        self.share = [Bucket(0.0, 0.0, now) for _ in ceilings]
        self.boost = [0.0, 0.0]
        self.consumed = [RateRing(window), RateRing(window)]
        self.throttles: dict[str, int] = {}
        self.streak_start = self.streak_last = float("-inf")
        self.adapt_at = [float("-inf"), float("-inf")]
        self.hot_since: float | None = None

    def fork(self, now: float) -> PartitionLoad:
        """The load of a new upper half after a split: ceilings as they are, the parent's
        saved share tokens halved between the two."""
        child = PartitionLoad((self.ceil[0].rate, self.ceil[1].rate), now, self.consumed[0].size - 1)
        for k in (READ, WRITE):
            child.ceil[k].tokens = self.ceil[k].level(now)
            half = self.share[k].level(now) / 2
            self.share[k].tokens = child.share[k].tokens = half
        self.hot_since = None
        return child


@dataclass(frozen=True, slots=True)
class ThrottleDecision:
    reason: str  # ThrottlingReason.reason, e.g. "IndexWriteProvisionedThroughputExceeded"
    resource: str  # ThrottlingReason.resource: the table or index ARN
    resource_kind: str  # "Table" or "Index"
    operation: str  # "Read" or "Write"
    limit: str  # KeyRangeThroughputExceeded | ProvisionedThroughputExceeded | ...
    index_name: str | None
    on_demand: bool
    partition: int

    @property
    def error_type(self) -> str:
        return "ThrottlingException" if self.on_demand else "ProvisionedThroughputExceededException"

    @property
    def message(self) -> str:
        if self.on_demand:
            return ON_DEMAND_MESSAGE
        return INDEX_MESSAGE if self.resource_kind == "Index" else TABLE_MESSAGE

    def throttling_reasons(self) -> list[dict[str, str]]:
        return [{"reason": self.reason, "resource": self.resource}]


class ThroughputState:
    """Admission state of one table or one GSI (``index_name`` set)."""

    def __init__(
        self,
        cfg: CapacityConfig,
        *,
        arn: str,
        now: float,
        index_name: str | None = None,
        on_demand: bool = False,
        rcu: float = 0,
        wcu: float = 0,
        max_read: float | None = None,
        max_write: float | None = None,
        pmap: PartitionMap | None = None,
        size_bytes: int = 0,
        warm_read: float = 0,
        warm_write: float = 0,
        lsi: bool = False,
    ) -> None:
        self.cfg, self.arn, self.index_name = cfg, arn, index_name
        self.kind = "Index" if index_name is not None else "Table"
        self.on_demand = on_demand
        self.prov = [float(rcu), float(wcu)]
        self.od_max: list[float | None] = [max_read, max_write]
        if pmap is None:
            count = initial_partition_count(
                rcu=rcu,
                wcu=wcu,
                on_demand=on_demand,
                size_bytes=size_bytes,
                partition_size=cfg.partition_size,
                warm_read=warm_read,
                warm_write=warm_write,
            )
            pmap = PartitionMap(count, lsi=lsi, partition_size=cfg.partition_size)
        self.pmap = pmap
        ceilings = (cfg.partition_read_max, cfg.partition_write_max)
        for part in pmap.parts:
            part.load = PartitionLoad(ceilings, now, cfg.metrics_window)
        self.table = [Bucket(0.0, 0.0, now), Bucket(0.0, 0.0, now)]
        self.consumed = [RateRing(cfg.metrics_window), RateRing(cfg.metrics_window)]
        self.consumed_total = [0.0, 0.0]
        self.throttle_counts: dict[str, int] = {}
        self.peak = [0.0, 0.0]  # on-demand peaks that have stood for the peak window
        self._pending: list[deque[tuple[int, float]]] = [deque(), deque()]
        self._peak_scan = int(now)
        self._next_maint = now + 1.0
        self.version = 0  # bumped whenever the partition map changes (persist it then)
        self._configure(now, first=True)
        self.history = CapacityHistory(now)  # dashboard/replay: per-second, bounded, off the request path

    # configuration ----------------------------------------------------------------------

    def _configure(self, now: float, first: bool = False) -> None:
        cfg = self.cfg
        self._uses_share = not self.on_demand and cfg.model != "gac"
        self._enforce_table = self.on_demand or cfg.model in ("adaptive", "gac")
        self._burst = 1.0 if cfg.model == "uniform" else cfg.burst_seconds
        self._limits = [PROVISIONED, PROVISIONED]
        for k, quota in ((READ, cfg.table_quota_read), (WRITE, cfg.table_quota_write)):
            if self.on_demand:
                cap = self.od_max[k]
                rate = quota if cap is None else min(cap, quota)
                self._limits[k] = MAX_ON_DEMAND if cap is not None and cap < quota else ACCOUNT_LIMIT
                self.table[k].reset(rate, rate, now)
            else:
                self.table[k].reset(self.prov[k], self.prov[k] * self._burst, now)
            if first:
                self.table[k].tokens = min(self.table[k].cap, self.table[k].rate)
        n = len(self.pmap)
        for part in self.pmap.parts:
            load: PartitionLoad = part.load
            for k in (READ, WRITE):
                ceiling = load.ceil[k].rate
                load.boost[k] = 0.0
                base = min(self.prov[k] / n, ceiling) if self._uses_share else 0.0
                load.share[k].reset(base, base * self._burst, now)
                if first:
                    load.share[k].tokens = base

    def set_provisioned(self, rcu: float, wcu: float, now: float) -> None:
        """UpdateTable to (or within) provisioned mode: raising past what the partitions
        carry doubles them; lowering never removes any (throughput dilation)."""
        self.on_demand = False
        self.prov = [float(rcu), float(wcu)]
        self._ensure_count(partitions_for_throughput(rcu, wcu), now)
        self._configure(now)

    def set_on_demand(
        self, now: float, max_read: float | None = None, max_write: float | None = None
    ) -> None:
        """Switch to (or stay in) on-demand with OnDemandThroughput caps (None: no cap)."""
        self.on_demand = True
        self.od_max = [max_read, max_write]
        self._ensure_count(initial_partition_count(on_demand=True), now)
        self._configure(now)

    def set_warm(self, read_per_second: float, write_per_second: float, now: float) -> None:
        """WarmThroughput: pre-split so the partitions sustain the given rates."""
        self._ensure_count(partitions_for_warm(read_per_second, write_per_second), now)

    def warm_throughput(self) -> tuple[int, int]:
        """(reads, writes) per second the current partitions sustain, for DescribeTable."""
        n = len(self.pmap)
        return int(n * self.cfg.partition_read_max), int(n * self.cfg.partition_write_max)

    # the request path -------------------------------------------------------------------

    def partition_for(self, key: bytes) -> int:
        return self.pmap.find(key)

    def _check_kind(self, load: PartitionLoad, k: int, now: float) -> str | None:
        t = self.table[k].level(now)
        if self._enforce_table and t <= 0.0:
            return self._limits[k]
        if load.ceil[k].level(now) <= 0.0:
            return KEY_RANGE
        if self._uses_share and load.share[k].level(now) <= 0.0:
            return PROVISIONED if t <= 0.0 else KEY_RANGE
        return None

    def check(self, p: int, read: float, write: float, now: float) -> ThrottleDecision | None:
        """Would a request charging ``read``/``write`` units to partition ``p`` be admitted?"""
        if not self.cfg.throttling:
            return None
        load: PartitionLoad = self.pmap.parts[p].load
        for k, units in ((READ, read), (WRITE, write)):
            if units > 0:
                limit = self._check_kind(load, k, now)
                if limit is not None:
                    return ThrottleDecision(
                        f"{self.kind}{_OPS[k]}{limit}",
                        self.arn,
                        self.kind,
                        _OPS[k],
                        limit,
                        self.index_name,
                        self.on_demand,
                        p,
                    )
        return None

    def debit(self, p: int, read: float, write: float, now: float, key: bytes | None = None) -> None:
        part = self.pmap.parts[p]
        load: PartitionLoad = part.load
        if read > 0:
            self._debit_kind(load, READ, read, now)
        if write > 0:
            self._debit_kind(load, WRITE, write, now)
        if key is not None:
            part.record(key, read + 3 * write)  # weight by share of the partition ceiling

    def _debit_kind(self, load: PartitionLoad, k: int, units: float, now: float) -> None:
        clamp = not self.cfg.throttling
        self.table[k].take(units, now, clamp)
        load.ceil[k].take(units, now, clamp)
        if self._uses_share:
            load.share[k].take(units, now, clamp)
        load.consumed[k].add(now, units)
        self.consumed[k].add(now, units)
        self.consumed_total[k] += units

    def record_throttle(self, d: ThrottleDecision, now: float, key: bytes | None = None) -> None:
        part = self.pmap.parts[d.partition]
        load: PartitionLoad = part.load
        load.throttles[d.reason] = load.throttles.get(d.reason, 0) + 1
        self.throttle_counts[d.reason] = self.throttle_counts.get(d.reason, 0) + 1
        if now - load.streak_last > self.cfg.adaptive_gap:
            load.streak_start = now
        load.streak_last = now
        if key is not None:
            part.record_throttle(key)
        if self.cfg.model == "adaptive" and self._uses_share:
            self._adapt(d.partition, READ if d.operation == "Read" else WRITE, now)

    def admit(
        self, p: int, read: float, write: float, now: float, key: bytes | None = None
    ) -> ThrottleDecision | None:
        """Check, then debit or record the throttle; maintenance runs afterwards, so the
        caller's partition index stays valid for the request."""
        decision = self.check(p, read, write, now)
        if decision is None:
            self.debit(p, read, write, now, key)
        else:
            self.record_throttle(decision, now, key)
        if now >= self._next_maint:
            self.maintain(now)
        return decision

    # adaptive capacity ------------------------------------------------------------------

    def _adapt(self, p: int, k: int, now: float) -> None:
        load: PartitionLoad = self.pmap.parts[p].load
        if now - load.streak_start < self.cfg.adaptive_after or now < load.adapt_at[k]:
            return
        load.adapt_at[k] = now + 1.0
        base = min(self.prov[k] / len(self.pmap), load.ceil[k].rate)
        window = self.cfg.metrics_window
        others = sum(q.load.consumed[k].rate(now, window) for i, q in enumerate(self.pmap.parts) if i != p)
        boost = max(0.0, min(self.prov[k] - others - base, load.ceil[k].rate - base))
        if boost > load.boost[k]:
            load.boost[k] = boost
            load.share[k].reset(base + boost, base * self._burst, now)

    def _settle_boosts(self, now: float) -> None:
        """Give a boost back once the partition's recent consumption is clearly (10 %)
        under its own share again."""
        n, window = len(self.pmap), self.cfg.heat_window
        for part in self.pmap.parts:
            load: PartitionLoad = part.load
            for k in (READ, WRITE):
                base = min(self.prov[k] / n, load.ceil[k].rate)
                if load.boost[k] > 0 and load.consumed[k].rate(now, window) < 0.9 * base:
                    load.boost[k] = 0.0
                    load.share[k].reset(base, base * self._burst, now)

    # maintenance: on-demand peaks, splits for heat --------------------------------------

    def maintain(self, now: float) -> None:
        """Run what is due (at most once per clock second): adaptive boosts settle,
        on-demand partitions double behind a peak, gac splits hot partitions."""
        self._next_maint = int(now) + 1.0
        if self.cfg.model == "adaptive" and self._uses_share:
            self._settle_boosts(now)
        if self.on_demand:
            self._track_peaks(now)
            ceilings = (self.cfg.partition_read_max, self.cfg.partition_write_max)
            needed = max(-(-2 * self.peak[k] // ceilings[k]) for k in (READ, WRITE))
            self._ensure_count(int(needed), now)
        if self.cfg.model == "gac":
            self._split_for_heat(now)
        self.history.sync(self, now)

    def _track_peaks(self, now: float) -> None:
        window = self.cfg.on_demand_peak_window
        for k in (READ, WRITE):
            pending = self._pending[k]
            for sec, units in sorted(self.consumed[k].completed(now, self._peak_scan)):
                if units > self.peak[k] and (not pending or pending[-1][1] < units):
                    pending.append((sec, units))
            while pending and pending[0][0] + window <= now:
                self.peak[k] = max(self.peak[k], pending.popleft()[1])
        self._peak_scan = int(now)

    def _split_for_heat(self, now: float) -> None:
        cfg = self.cfg
        for i in range(len(self.pmap) - 1, -1, -1):
            load: PartitionLoad = self.pmap.parts[i].load
            util = sum(load.consumed[k].rate(now, cfg.heat_window) / load.ceil[k].rate for k in (READ, WRITE))
            if util < cfg.heat_threshold:
                load.hot_since = None
            elif load.hot_since is None:
                load.hot_since = now
            elif now - load.hot_since >= cfg.heat_after:
                at = self.pmap.balanced_split_key(i)
                load.hot_since = None
                if at is not None:
                    self.split(i, at, now)

    # splits -----------------------------------------------------------------------------

    def _after_split(self, now: float) -> None:
        parts = self.pmap.parts
        for i, part in enumerate(parts):
            if part.load is None:
                part.load = parts[i - 1].load.fork(now)
        self.version += 1
        self._configure(now)

    def _ensure_count(self, needed: int, now: float) -> None:
        if self.pmap.ensure_count(needed):
            self._after_split(now)

    def split(
        self, p: int, at: bytes, now: float, lower_size: int | None = None, lower_count: int | None = None
    ) -> int:
        """Split partition ``p`` at key ``at`` (size splits pick the key from storage)."""
        new = self.pmap.split(p, at, lower_size, lower_count)
        self._after_split(now)
        return new

    def note_write(self, p: int, size_delta: int, count_delta: int = 0) -> bool:
        """Track stored size; True when partition ``p`` should split for size."""
        return self.pmap.note_write(p, size_delta, count_delta)

    # admin ------------------------------------------------------------------------------

    def describe_partitions(self, now: float) -> list[dict[str, Any]]:
        window = self.cfg.metrics_window
        rows = []
        for i, part in enumerate(self.pmap.parts):
            load: PartitionLoad = part.load
            row = self.pmap.describe(i)
            for k, name in ((READ, "read"), (WRITE, "write")):
                share = load.share[k]
                row[f"allocated_{name}"] = (
                    share.rate if self._uses_share else min(load.ceil[k].rate, self.table[k].rate)
                )
                row[f"ceiling_{name}"] = load.ceil[k].rate
                row[f"bucket_{name}"] = share.level(now) if self._uses_share else load.ceil[k].level(now)
                row[f"burst_{name}"] = max(0.0, share.level(now) - share.rate) if self._uses_share else 0.0
                row[f"boost_{name}"] = load.boost[k]
                row[f"consumed_{name}_per_second"] = load.consumed[k].rate(now, window)
            row["throttles"] = dict(load.throttles)
            rows.append(row)
        return rows

    def hot_keys(self, limit: int = 10) -> dict[str, list[tuple[bytes, float]]]:
        """Hottest keys of the recent samples, by consumed units and by throttles."""
        units: dict[bytes, float] = {}
        throttles: dict[bytes, float] = {}
        for part in self.pmap.parts:
            top_u, top_t = part.hot_keys(limit)
            for key, v in top_u:
                units[key] = units.get(key, 0.0) + v
            for key, n in top_t:
                throttles[key] = throttles.get(key, 0) + n

        def top(d: dict[bytes, float]) -> list[tuple[bytes, float]]:
            return sorted(d.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]

        return {"by_units": top(units), "by_throttles": top(throttles)}

    def summary(self, now: float) -> dict[str, Any]:
        return {
            "resource": self.arn,
            "index": self.index_name,
            "model": self.cfg.model,
            "mode": "PAY_PER_REQUEST" if self.on_demand else "PROVISIONED",
            "partitions": len(self.pmap),
            "table_rate": [self.table[k].rate for k in (READ, WRITE)],
            "table_bucket": [self.table[k].level(now) for k in (READ, WRITE)],
            "consumed_total": list(self.consumed_total),
            "on_demand_peak": list(self.peak),
            "warm_throughput": list(self.warm_throughput()),
            "throttles": dict(self.throttle_counts),
        }


@dataclass(slots=True)
class Charge:
    """One resource/partition a multi-part request touches (a write and its GSIs, the
    items of a transaction)."""

    state: ThroughputState
    partition: int
    read: float = 0.0
    write: float = 0.0
    key: bytes | None = None


def admit(
    state: ThroughputState,
    partition: int,
    read_units: float,
    write_units: float,
    now: float,
    key: bytes | None = None,
) -> ThrottleDecision | None:
    return state.admit(partition, read_units, write_units, now, key)


def admit_all(charges: list[Charge], now: float) -> ThrottleDecision | None:
    """All or nothing: every charge is checked first; the first refusal is recorded and
    returned (nothing is debited), otherwise every charge is debited."""
    for c in charges:
        decision = c.state.check(c.partition, c.read, c.write, now)
        if decision is not None:
            c.state.record_throttle(decision, now, c.key)
            break
    else:
        decision = None
        for c in charges:
            c.state.debit(c.partition, c.read, c.write, now, c.key)
    for state in {id(c.state): c.state for c in charges}.values():
        if now >= state._next_maint:
            state.maintain(now)
    return decision
