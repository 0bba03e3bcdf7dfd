"""Admission state of one table or one GSI: its buckets, partitions and throttles.

One :class:`ThroughputState` per table and per GSI. Amounts are capacity units (floats;
every charge is a multiple of 0.5), times epoch seconds from the engine's clock; buckets
are ``buckets.Bucket`` and the model-specific parts live in ``policies.py``.

**Admission.** A request is admitted when every bucket it touches holds a positive
balance; its actual units are then debited from all of them. A bucket spends its
one-second allocation first and its burst savings next (docs/capacity.md, "Token
buckets"), so a request costing more than one second of a partition's share
(a 100 KB write on a 5 WCU table) draws on burst; the balance goes negative only when the
savings are spent too, and that debt is repaid by refills before the next request is
admitted -- DynamoDB likewise charges what it read or wrote after admitting a request.
The partition ceiling adds a spike allowance (``buckets.CeilingBucket``): 3 s of the
ceiling, saved from capacity left unused, that covers the part of a charge beyond the
balance, so a large request (a 3 MB transaction) leaves its partitions at zero rather
than seconds in debt; sustained overload spends the allowance and is held to the ceiling.
On an on-demand table whose access is spread evenly, the part a partition's own allowance
cannot cover is taken from its siblings' (``_spread_cover``): random keys crowding a third
of a burst onto one of four partitions do not leave it refusing (issue 39).
Every bucket starts full, with its burst allowance: new tables, and partitions made by a
split or a throughput increase (issue 10). A throttled request debits nothing.
``throttling=False`` keeps every bucket, debit and metric but admits everything (balances
are then floored at ``-cap`` so the admin view stays readable): DynamoDB Local's
behaviour.

**Buckets a request touches** (``kind`` = read or write):

* the table bucket: rate = provisioned units (on-demand: ``min(per-table quota,
  OnDemandThroughput max)``, the quota 40,000 as ``limits.TABLE_MAX_CAPACITY``), holding 300 s of it in ``burst``/``adaptive``/``gac``, 1 s in
  ``uniform`` and on-demand. The policy says whether it refuses requests on its own; it
  always tells a hot partition (``KeyRangeThroughputExceeded``) from a saturated table
  (``ProvisionedThroughputExceeded``);
* the partition ceiling, one bucket for reads and writes together: a partition (and so
  an item) serves 3,000 RCU *or* 1,000 WCU per second, "or a linear combination of the
  two" (bp-partition-key-design.html; docs/capacity.md, "Partitions"), so a
  read costs a third of a write and ``RCU/3000 + WCU/1000 <= 1``. It holds
  ``ceiling_seconds`` (3 s) of that rate: a partition briefly absorbs a spike above its
  per-second ceiling ("DynamoDB will sometimes allow you to achieve limited bursting
  above your provisioned throughput for a short period of time", the DynamoDB team on
  the AWS forums) while sustained traffic above it throttles within seconds;
* the partition share (provisioned ``uniform``/``burst``/``adaptive``): rate = table
  units / partitions (docs/capacity.md, "Partitions": the even split, and its
  "throughput dilation" after splits and decreases), holding 1 s (``uniform``) or 300 s.

**On-demand** tables (any model) start with 4 partitions (12,000 RRU / 4,000 WRU,
warm-throughput.html) and serve up to double their previous peak at once
(on-demand-capacity-mode.html; "if you exceed double your previous traffic's peak within
30 minutes, then you might experience throttling", on-demand-table-throttling-dynamodb
knowledge-center article): the partitions grow to carry twice the highest per-second
consumption seen once that second is ``on_demand_scale_after`` (60 s) old -- the time the
table takes to scale. The peak is one second's *combined* consumption, ``RCU/3000 +
WCU/1000`` of the same second. Traffic beyond it is throttled by the partition ceilings until then.

Reasons follow ThrottlingReason's ResourceType+OperationType+LimitType form
(API_ThrottlingReason.html), e.g. ``TableReadKeyRangeThroughputExceeded``. A refusal is a
:class:`ThrottleDecision`; provisioned tables answer ProvisionedThroughputExceededException,
on-demand ones ThrottlingException (their messages, quoted from real responses, are in the catalogue of ``dynemu.errors``).
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any, NamedTuple

from dynemu.engine.capacity.buckets import Bucket, CeilingBucket, RateRing
from dynemu.engine.capacity.contributors import Contributors
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
from dynemu.engine.capacity.policies import MODELS, Policy, policy_for
from dynemu.engine.cloudwatch.requests import RequestCounters
from dynemu.engine.limits import TABLE_MAX_CAPACITY
from dynemu.errors import (
    MSG_THROTTLED_INDEX,
    MSG_THROTTLED_ON_DEMAND,
    MSG_THROTTLED_TABLE,
    PROVISIONED_THROUGHPUT_EXCEEDED,
    THROTTLING,
)

READ, WRITE = 0, 1
_OPS = ("Read", "Write")
KEY_RANGE = "KeyRangeThroughputExceeded"
PROVISIONED = "ProvisionedThroughputExceeded"
ACCOUNT_LIMIT = "AccountLimitExceeded"
MAX_ON_DEMAND = "MaxOnDemandThroughputExceeded"

@dataclass(slots=True)
class CapacityConfig:
    """Settings shared by every table of a server (``--capacity-model``, ``--throttling``,
    ``--partition-size``); every constant of the model is here so tests can shrink it."""

    model: str = "gac"
    throttling: bool = True
    partition_size: int = DEFAULT_PARTITION_SIZE
    burst_seconds: float = 300.0  # savings a bucket keeps (burst-adaptive-capacity.html)
    ceiling_seconds: float = 3.0  # seconds of the partition ceiling its bucket holds
    on_demand_scale_after: float = 60.0  # a new on-demand peak counts as "previous" after this
    partition_read_max: float = PARTITION_READ_MAX
    partition_write_max: float = PARTITION_WRITE_MAX
    table_quota_read: float = float(TABLE_MAX_CAPACITY)  # DescribeLimits TableMaxReadCapacityUnits
    table_quota_write: float = float(TABLE_MAX_CAPACITY)
    adaptive_after: float = 300.0  # sustained throttling before adaptive capacity steps in
    adaptive_gap: float = 5.0  # a pause longer than this ends a throttling streak
    heat_threshold: float = 0.8  # share of the partition ceiling that counts as hot
    heat_after: float = 60.0  # seconds hot before a split for heat
    heat_window: int = 10  # seconds averaged for the heat test and for returning boosts
    metrics_window: int = 60  # seconds kept for "consumed per second recently"

    def __post_init__(self) -> None:
        if self.model not in MODELS:
            raise ValueError(f"unknown capacity model {self.model!r}; expected one of {', '.join(MODELS)}")


class PartitionBuckets:
    """Buckets, recent consumption and throttle counts of one partition."""

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

    def __init__(self, ceiling: float, ceiling_cap: float, now: float, window: int) -> None:
        # one bucket for reads and writes, in write units (a read unit costs a third), with
        # a spike allowance as large as the ceiling's own savings
        self.ceil = CeilingBucket(ceiling, ceiling_cap, now, ceiling_cap)
        self.share = [Bucket(0.0, 0.0, now), Bucket(0.0, 0.0, now)]
        self.boost = [0.0, 0.0]
        self.consumed = [RateRing(window), RateRing(window)]
        self.throttles: dict[str, int] = {}
        self.streak_start = self.streak_last = float("-inf")
        self.adapt_at = [float("-inf"), float("-inf")]
        self.hot_since: float | None = None



class ThrottleDecision(NamedTuple):  # immutable: built at import for a fifth of a frozen dataclass's cost
    """Why a request was throttled: one ThrottlingReason of the error's answer."""

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
        return THROTTLING if self.on_demand else PROVISIONED_THROUGHPUT_EXCEEDED

    @property
    def message(self) -> str:
        if self.on_demand:
            return MSG_THROTTLED_ON_DEMAND
        return MSG_THROTTLED_INDEX if self.resource_kind == "Index" else MSG_THROTTLED_TABLE

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
        sort_key: bool = True,
    ) -> None:
        self.cfg, self.arn, self.index_name = cfg, arn, index_name
        self.policy: Policy = policy_for(cfg.model)
        self.kind = "Index" if index_name is not None else "Table"
        self.on_demand = on_demand
        self.prov = [float(rcu), float(wcu)]
        self.od_max: list[float | None] = [max_read, max_write]
        self.ceilings = (float(cfg.partition_read_max), float(cfg.partition_write_max))
        # a read unit's share of the combined ceiling, in write units (3,000 RCU = 1,000 WCU)
        self._weight = (self.ceilings[WRITE] / self.ceilings[READ], 1.0)
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
        for part in pmap.parts:
            part.buckets = self._new_buckets(now)
        self.created = now
        self.table_buckets = [Bucket(0.0, 0.0, now), Bucket(0.0, 0.0, now)]
        self.consumed = [RateRing(cfg.metrics_window), RateRing(cfg.metrics_window)]
        self.consumed_total = [0.0, 0.0]
        self.throttle_counts: dict[str, int] = {}  # throttle events by reason: one per refused item
        # CloudWatch's ThrottledRequests (a table's; its GSIs' stays 0): requests refused as a
        # whole, counted by the executors (TableCapacity.admit, throttled_requests)
        self.throttled_requests = 0
        # CloudWatch's TimeToLiveDeletedItemCount (a table's): items the TTL sweeper deleted
        # (engine/lifecycle.py)
        self.ttl_deleted = 0
        # on-demand: the previous peak, (reads, writes) of the busiest second, and the
        # busier seconds not yet old enough to count: (second, (reads, writes), load)
        self.peak = [0.0, 0.0]
        self._pending: deque[tuple[int, tuple[float, float], float]] = deque()
        self._peak_scan = int(now)
        self._next_maint = now + 1.0
        self.version = 0  # bumped whenever the partition map changes (persist it then)
        self._configure(now, fill=True)
        self.history = CapacityHistory(now)  # dashboard/replay: per-second, bounded, off the request path
        # a table's per-operation CloudWatch metrics (engine/cloudwatch/requests.py); a GSI has none
        self.requests = RequestCounters(now) if index_name is None else None
        # exact hot keys (dashboard, Contributor Insights); ``sort_key`` False: a table whose
        # items are its partition keys, counted once
        self.contributors = Contributors(now, items_apart=sort_key)

    def _new_buckets(self, now: float) -> PartitionBuckets:
        rate = self.ceilings[WRITE]
        return PartitionBuckets(rate, rate * self.cfg.ceiling_seconds, now, self.cfg.metrics_window)

    # configuration ----------------------------------------------------------------------

    @property
    def uses_share(self) -> bool:
        return self._uses_share

    def base_share(self, k: int) -> float:
        """A partition's even share of the table's throughput, at most its ceiling."""
        return min(self.prov[k] / len(self.pmap), self.ceilings[k])

    def _configure(self, now: float, fill: bool = False) -> None:
        """Rates and capacities after a change; ``fill`` starts every bucket with its
        burst allowance (a new table, a throughput increase)."""
        cfg, pol = self.cfg, self.policy
        self._uses_share = pol.uses_share and not self.on_demand
        self._enforce_table = self.on_demand or pol.enforce_table
        self._limits = [PROVISIONED, PROVISIONED]
        for k, quota in ((READ, cfg.table_quota_read), (WRITE, cfg.table_quota_write)):
            if self.on_demand:
                cap = self.od_max[k]
                rate = quota if cap is None else min(cap, quota)
                self._limits[k] = MAX_ON_DEMAND if cap is not None and cap < quota else ACCOUNT_LIMIT
                self.table_buckets[k].reset(rate, rate, now, fill=fill)
            else:
                self.table_buckets[k].reset(self.prov[k], self.prov[k] * pol.table_seconds(cfg), now, fill=fill)
        seconds = pol.share_seconds(cfg)
        for part in self.pmap.parts:
            buckets: PartitionBuckets = part.buckets
            for k in (READ, WRITE):
                buckets.boost[k] = 0.0
                base = self.base_share(k) if self._uses_share else 0.0
                buckets.share[k].reset(base, base * seconds, now, fill=fill)

    def set_provisioned(self, rcu: float, wcu: float, now: float) -> None:
        """UpdateTable to (or within) provisioned mode: raising past what the partitions
        carry doubles them; lowering never removes any (throughput dilation). An increase
        starts the buckets with their burst allowance."""
        raised = self.on_demand or rcu > self.prov[READ] or wcu > self.prov[WRITE]
        self.on_demand = False
        self.prov = [float(rcu), float(wcu)]
        self._ensure_count(partitions_for_throughput(rcu, wcu), now)
        self._configure(now, fill=raised)

    def set_on_demand(
        self, now: float, max_read: float | None = None, max_write: float | None = None
    ) -> None:
        """Switch to (or stay in) on-demand with OnDemandThroughput caps (None: no cap)."""
        switched = not self.on_demand
        self.on_demand = True
        self.od_max = [max_read, max_write]
        self._ensure_count(initial_partition_count(on_demand=True), now)
        self._configure(now, fill=switched)

    def set_warm(self, read_per_second: float, write_per_second: float, now: float) -> None:
        """WarmThroughput: pre-split so the partitions sustain the given rates."""
        self._ensure_count(partitions_for_warm(read_per_second, write_per_second), now)

    def warm_throughput(self) -> tuple[int, int]:
        """(reads, writes) per second the current partitions sustain, for DescribeTable."""
        n = len(self.pmap)
        return int(n * self.ceilings[READ]), int(n * self.ceilings[WRITE])

    # the request path -------------------------------------------------------------------

    def partition_for(self, key: bytes) -> int:
        return self.pmap.find(key)

    def _check_kind(self, buckets: PartitionBuckets, k: int, now: float) -> str | None:
        t = self.table_buckets[k].level(now)
        if self._enforce_table and t <= 0.0:
            return self._limits[k]
        if buckets.ceil.level(now) <= 0.0:
            return KEY_RANGE
        if self._uses_share and buckets.share[k].level(now) <= 0.0:
            return PROVISIONED if t <= 0.0 else KEY_RANGE
        return None

    def check(self, p: int, read: float, write: float, now: float) -> ThrottleDecision | None:
        """Would a request charging ``read``/``write`` units to partition ``p`` be admitted?"""
        if not self.cfg.throttling:
            return None
        buckets: PartitionBuckets = self.pmap.parts[p].buckets
        if read > 0:
            limit = self._check_kind(buckets, READ, now)
            if limit is not None:
                return self._decision(READ, limit, p)
        if write > 0:
            limit = self._check_kind(buckets, WRITE, now)
            if limit is not None:
                return self._decision(WRITE, limit, p)
        return None

    def _decision(self, k: int, limit: str, p: int) -> ThrottleDecision:
        op = _OPS[k]
        return ThrottleDecision(
            f"{self.kind}{op}{limit}", self.arn, self.kind, op, limit, self.index_name, self.on_demand, p
        )

    def debit(self, p: int, read: float, write: float, now: float, key: bytes | None = None) -> None:
        part = self.pmap.parts[p]
        buckets: PartitionBuckets = part.buckets
        if read > 0:
            self._debit_kind(buckets, READ, read, now)
        if write > 0:
            self._debit_kind(buckets, WRITE, write, now)
        if key is not None:
            part.record(key, read, write)
            self.contributors.consumed(key, read + write, now)

    def _debit_kind(self, buckets: PartitionBuckets, k: int, units: float, now: float) -> None:
        clamp = not self.cfg.throttling
        self.table_buckets[k].take(units, now, clamp)
        ceil = buckets.ceil
        ceil.take(units * self._weight[k], now, clamp)
        if self._uses_share:
            buckets.share[k].take(units, now, clamp)
        buckets.consumed[k].add(now, units)
        self.consumed[k].add(now, units)
        self.consumed_total[k] += units
        if ceil.tokens < 0.0 and self.on_demand:
            self._spread_cover(buckets, now)

    def _spread(self, buckets: PartitionBuckets, now: float) -> bool:
        """On-demand access spread evenly over the table: this partition carried at most
        twice its even share of the table's consumption of this second and the one before."""
        if not self.on_demand or len(self.pmap.parts) < 2:
            return False
        w = self._weight
        mine = buckets.consumed[READ].recent(now) * w[READ] + buckets.consumed[WRITE].recent(now) * w[WRITE]
        table = self.consumed[READ].recent(now) * w[READ] + self.consumed[WRITE].recent(now) * w[WRITE]
        return mine * len(self.pmap.parts) <= 2.0 * table

    def _spread_cover(self, buckets: PartitionBuckets, now: float) -> None:
        """On-demand: while the table's access is spread evenly (``_spread``), the debt a
        charge left on a partition whose balance and own spike allowance were spent is
        covered by the spike allowances of the table's other partitions ("The overall table
        won't be throttled if the table access is distributed evenly across partitions and
        the table doesn't exceed twice its previous peak traffic",
        pre-warming-on-demand-capacity-mode.html; docs/capacity.md, "Token buckets"). Keys
        spread at random over four partitions never land evenly: one partition takes a third
        of a burst that its siblings' unused allowances cover. A hot key is not spread (it
        alone loads its partition) and keeps only its own allowance."""
        if not self._spread(buckets, now):
            return
        ceil = buckets.ceil
        for part in self.pmap.parts:
            other = part.buckets.ceil
            if other is ceil:
                continue
            other.level(now)  # its allowance refills from what it left unused
            take = min(other.spare, -ceil.tokens)
            if take > 0.0:
                other.spare -= take
                ceil.tokens += take
                if ceil.tokens >= 0.0:
                    return

    def record_throttle(self, d: ThrottleDecision, now: float, key: bytes | None = None) -> None:
        part = self.pmap.parts[d.partition]
        buckets: PartitionBuckets = part.buckets
        buckets.throttles[d.reason] = buckets.throttles.get(d.reason, 0) + 1
        self.throttle_counts[d.reason] = self.throttle_counts.get(d.reason, 0) + 1
        if now - buckets.streak_last > self.cfg.adaptive_gap:
            buckets.streak_start = now
        buckets.streak_last = now
        if key is not None:
            part.record_throttle(key)
            self.contributors.throttled(key, now)
        self.policy.on_throttle(self, d.partition, READ if d.operation == "Read" else WRITE, now)

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

    # maintenance: on-demand peaks, the policy's own ------------------------------------

    def maintain(self, now: float) -> None:
        """Run what is due (at most once per clock second): on-demand partitions grow
        behind the peak, then the policy's maintenance (boosts settle, splits for heat)."""
        self._next_maint = int(now) + 1.0
        if self.on_demand:
            self._track_peaks(now)
            # double the previous peak: that second's reads and writes shared the partitions
            needed = 2 * self.peak_load
            self._ensure_count(int(-(-needed // 1)), now)
        self.policy.maintain(self, now)
        self.history.sync(self, now)
        if self.requests is not None:  # the clock's tick of the per-operation counters
            self.requests.tick(now)
            self.requests.seen = self.throttled_requests  # a refusal no counted operation made

    @property
    def peak_load(self) -> float:
        """The previous peak in partition ceilings: ``RCU / 3000 + WCU / 1000`` of its second."""
        return self.peak[READ] / self.ceilings[READ] + self.peak[WRITE] / self.ceilings[WRITE]

    def _track_peaks(self, now: float) -> None:
        """The previous peak is the busiest single second of *combined* consumption, a
        write unit weighing as much of the partitions as three read units ("4,000 write
        request units or 12,000 read request units, or a linear combination of both",
        warm-throughput.html), never the busiest read second plus the busiest write second.
        A second becomes the previous peak once it is ``on_demand_scale_after`` old: the
        time the table takes to scale behind it."""
        after = self.cfg.on_demand_scale_after
        seconds: dict[int, list[float]] = {}
        for k in (READ, WRITE):
            for sec, units in self.consumed[k].completed(now, self._peak_scan):
                seconds.setdefault(sec, [0.0, 0.0])[k] += units
        pending = self._pending
        best = self.peak_load
        for sec in sorted(seconds):
            r, w = seconds[sec]
            load = r / self.ceilings[READ] + w / self.ceilings[WRITE]
            if load > best and (not pending or pending[-1][2] < load):
                pending.append((sec, (r, w), load))
        while pending and pending[0][0] + 1 + after <= now:
            _, (r, w), load = pending.popleft()
            if load > self.peak_load:
                self.peak = [r, w]
        self._peak_scan = int(now)

    # splits -----------------------------------------------------------------------------

    def _after_split(self, now: float, children: list[int]) -> None:
        """Configure after splits; the partitions a split made (``children``, both halves)
        start with their burst allowance: a full ceiling and a full share."""
        for part in self.pmap.parts:
            if part.buckets is None:
                part.buckets = self._new_buckets(now)
        self.version += 1
        self._configure(now)
        for i in children:
            buckets: PartitionBuckets = self.pmap.parts[i].buckets
            buckets.ceil.fill()
            for k in (READ, WRITE):
                buckets.share[k].tokens = buckets.share[k].cap

    def _ensure_count(self, needed: int, now: float) -> None:
        if self.pmap.ensure_count(needed):
            self._after_split(now, list(range(len(self.pmap))))

    def split(
        self, p: int, at: bytes, now: float, lower_size: int | None = None, lower_count: int | None = None
    ) -> int:
        """Split partition ``p`` at key ``at``; ``lower_*`` are the lower child's exact
        size and item count when known (size splits read them from storage)."""
        new = self.pmap.split(p, at, lower_size, lower_count)
        self._after_split(now, [p, new])
        return new

    def note_write(self, p: int, size_delta: int, count_delta: int = 0) -> bool:
        """Track stored size; True when partition ``p`` should split for size."""
        return self.pmap.note_write(p, size_delta, count_delta)

    # admin ------------------------------------------------------------------------------

    def allocation(self, k: int) -> float:
        """One partition's allocation of kind ``k`` per second: its share of the table
        where shares apply; under a table-level bucket (gac, on-demand) the table's rate
        spread evenly over the partitions, at most the ceiling (a 400 WCU table of 4
        partitions: 100 each)."""
        if self._uses_share:
            return self.base_share(k)
        return min(self.ceilings[k], self.table_buckets[k].rate / len(self.pmap))

    def most(self, k: int) -> float:
        """The most one partition may consume per second: its allocation where shares
        cap it, else the table's rate, never beyond the partition ceiling."""
        if self._uses_share:
            return self.base_share(k)
        return min(self.ceilings[k], self.table_buckets[k].rate)

    def describe_partitions(self, now: float) -> list[dict[str, Any]]:
        window = self.cfg.metrics_window
        rows = []
        for i, part in enumerate(self.pmap.parts):
            buckets: PartitionBuckets = part.buckets
            row = self.pmap.describe(i)
            ceiling_left = buckets.ceil.level(now) / buckets.ceil.rate if buckets.ceil.rate else 0.0
            for k, name in ((READ, "read"), (WRITE, "write")):
                share = buckets.share[k]
                row[f"allocated_{name}"] = self.allocation(k) + buckets.boost[k]
                row[f"max_{name}"] = self.most(k) + buckets.boost[k]
                row[f"ceiling_{name}"] = self.ceilings[k]
                row[f"bucket_{name}"] = share.level(now) if self._uses_share else ceiling_left * self.ceilings[k]
                row[f"burst_{name}"] = share.burst(now) if self._uses_share else 0.0
                row[f"boost_{name}"] = buckets.boost[k]
                row[f"consumed_{name}_per_second"] = buckets.consumed[k].rate(now, window, covered=True)
            row["spike_allowance_seconds"] = buckets.ceil.spare / buckets.ceil.rate if buckets.ceil.rate else 0.0
            row["throttles"] = dict(buckets.throttles)
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
            "table_rate": [self.table_buckets[k].rate for k in (READ, WRITE)],
            "table_bucket": [self.table_buckets[k].level(now) for k in (READ, WRITE)],
            "consumed_total": list(self.consumed_total),
            "on_demand_peak": list(self.peak),  # (reads, writes) of the busiest combined second
            "on_demand_peak_read_equivalent": self.peak_load * self.ceilings[READ],
            "warm_throughput": list(self.warm_throughput()),
            "throttles": dict(self.throttle_counts),
            "throttled_requests": self.throttled_requests,
        }
