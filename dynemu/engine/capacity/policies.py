"""The capacity models, one policy class each (``--capacity-model``).

The models differ in which buckets a request must find tokens in and in what runs when a
partition is throttled or once per second (docs/capacity.md, "The four models", which
walks through the same four stages):

* :class:`Uniform` -- the table's throughput split evenly over its partitions
  (docs/capacity.md, "Partitions"), no burst.
* :class:`Burst` -- the same shares, each keeping up to 300 s of unused capacity
  (burst-adaptive-capacity.html, "DynamoDB currently retains up to five minutes (300
  seconds) of unused read and write capacity").
* :class:`Adaptive` -- burst, plus a partition throttled for longer than it could burst
  gets the table's unused throughput (docs/capacity.md, "Adaptive capacity"; the
  developer guide's 400 WCU example).
* :class:`Gac` -- global admission control: a table-level bucket gates every request and
  only the partition ceilings cap one partition; hot partitions split at the key that
  balances their consumption (docs/capacity.md, "Admission at the table (global
  admission control) and splits for heat"). The default.

On-demand tables (any model) have no shares: the table bucket (the per-table quota or
``OnDemandThroughput``) and the partition ceilings apply.
"""

from __future__ import annotations

from typing import ClassVar, Protocol

from dynemu.engine.capacity.partitions import PartitionMap

READ, WRITE = 0, 1


class ModelSettings(Protocol):
    """The settings a policy reads (``throughput.CapacityConfig``)."""

    @property
    def burst_seconds(self) -> float: ...
    @property
    def adaptive_after(self) -> float: ...
    @property
    def heat_threshold(self) -> float: ...
    @property
    def heat_after(self) -> float: ...
    @property
    def heat_window(self) -> int: ...
    @property
    def metrics_window(self) -> int: ...


class ModelState(Protocol):
    """What a policy reads and changes of the throughput state it is the policy of
    (``throughput.ThroughputState``)."""

    @property
    def cfg(self) -> ModelSettings: ...
    @property
    def pmap(self) -> PartitionMap: ...
    @property
    def prov(self) -> list[float]: ...
    @property
    def ceilings(self) -> tuple[float, float]: ...
    @property
    def uses_share(self) -> bool: ...

    def base_share(self, k: int) -> float: ...

    def split(
        self, p: int, at: bytes, now: float, lower_size: int | None = None, lower_count: int | None = None
    ) -> int: ...


class Policy:
    """What distinguishes one capacity model from another."""

    name: ClassVar[str] = ""
    uses_share: ClassVar[bool] = True  # per-partition share buckets (provisioned tables)
    enforce_table: ClassVar[bool] = False  # the table bucket refuses requests on its own

    def share_seconds(self, cfg: ModelSettings) -> float:
        """Seconds of its rate a share bucket holds: one, plus the burst savings."""
        return cfg.burst_seconds

    def table_seconds(self, cfg: ModelSettings) -> float:
        return cfg.burst_seconds

    def on_throttle(self, state: ModelState, p: int, k: int, now: float) -> None:
        """Called for every throttle of partition ``p`` (kind ``k``)."""

    def maintain(self, state: ModelState, now: float) -> None:
        """Called at most once per clock second."""


class Uniform(Policy):
    name = "uniform"

    def share_seconds(self, cfg: ModelSettings) -> float:
        return 1.0

    def table_seconds(self, cfg: ModelSettings) -> float:
        return 1.0


class Burst(Policy):
    name = "burst"


class Adaptive(Burst):
    """A partition throttled continuously for ``adaptive_after`` seconds gets the table's
    unused capacity (provisioned minus the other partitions' recent consumption) as a
    boost, up to its ceiling, until its consumption falls clearly (10 %) under its share."""

    name = "adaptive"
    enforce_table = True

    def on_throttle(self, state: ModelState, p: int, k: int, now: float) -> None:
        if not state.uses_share:
            return
        buckets = state.pmap.parts[p].buckets
        if now - buckets.streak_start < state.cfg.adaptive_after or now < buckets.adapt_at[k]:
            return
        buckets.adapt_at[k] = now + 1.0
        base = state.base_share(k)
        window = state.cfg.metrics_window
        others = sum(q.buckets.consumed[k].rate(now, window) for i, q in enumerate(state.pmap.parts) if i != p)
        ceiling = state.ceilings[k]
        boost = max(0.0, min(state.prov[k] - others - base, ceiling - base))
        if boost > buckets.boost[k]:
            buckets.boost[k] = boost
            buckets.share[k].reset(base + boost, base * self.share_seconds(state.cfg), now)

    def maintain(self, state: ModelState, now: float) -> None:
        """Give a boost back once the partition's recent consumption is clearly (10 %)
        under its own share again."""
        if not state.uses_share:
            return
        window = state.cfg.heat_window
        for part in state.pmap.parts:
            buckets = part.buckets
            for k in (READ, WRITE):
                base = state.base_share(k)
                if buckets.boost[k] > 0 and buckets.consumed[k].rate(now, window) < 0.9 * base:
                    buckets.boost[k] = 0.0
                    buckets.share[k].reset(base, base * self.share_seconds(state.cfg), now)


class Gac(Policy):
    """A partition whose consumption stays above ``heat_threshold`` of its ceiling for
    ``heat_after`` seconds splits at its balanced key (split for heat)."""

    name = "gac"
    uses_share = False
    enforce_table = True

    def maintain(self, state: ModelState, now: float) -> None:
        cfg = state.cfg
        for i in range(len(state.pmap) - 1, -1, -1):
            buckets = state.pmap.parts[i].buckets
            # reads and writes share the ceiling: RCU/3000 + WCU/1000 (bp-partition-key-design.html)
            util = sum(buckets.consumed[k].rate(now, cfg.heat_window) / state.ceilings[k] for k in (READ, WRITE))
            if util < cfg.heat_threshold:
                buckets.hot_since = None
            elif buckets.hot_since is None:
                buckets.hot_since = now
            elif now - buckets.hot_since >= cfg.heat_after:
                at = state.pmap.balanced_split_key(i)
                buckets.hot_since = None
                if at is not None:
                    state.split(i, at, now)


POLICIES: dict[str, type[Policy]] = {p.name: p for p in (Uniform, Burst, Adaptive, Gac)}
MODELS = tuple(POLICIES)


def policy_for(model: str) -> Policy:
    return POLICIES[model]()
