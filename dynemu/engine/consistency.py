"""An optional replication-lag model for eventually consistent reads (off by default).

DynamoDB answers an eventually consistent read from any replica, which "might not reflect
the results of a recently completed write" (developer guide, "Read consistency"); replicas
converge "usually within one second"; global secondary indexes are updated asynchronously
(docs/rules.md, "Consistency"). With ``--eventual-lag-ms N`` an eventually consistent read (GetItem,
Query, Scan, BatchGetItem) of an item written within the last N ms of clock time returns,
with probability ``--stale-read-probability`` (0.5 by default), the item as it was before
that write (absent if the write created it). Strongly consistent reads never see stale
data. GSIs show a change only once the lag has passed (``index_image``).

A write observer remembers, per item key, the time of its latest write and the image
before it, for ``lag`` seconds only. The random draws come from one seeded generator per
table, so a test replays the same stale reads every run.
"""

from __future__ import annotations

import random
from collections import OrderedDict
from collections.abc import Callable, Iterable
from typing import Any, NamedTuple

from dynemu.engine.schema import Item
from dynemu.engine.table import Mutation, Table
from dynemu.storage import keyspace
from dynemu.storage.base import WriteBatch

DEFAULT_PROBABILITY = 0.5


class ConsistencyConfig(NamedTuple):  # immutable: built at import for a fifth of a frozen dataclass's cost
    """The stale-read model's settings (--stale-reads): lag, probability and seed."""

    lag_ms: float = 0.0
    probability: float = DEFAULT_PROBABILITY
    seed: int = 0

    @property
    def enabled(self) -> bool:
        return self.lag_ms > 0

    @classmethod
    def from_settings(cls, settings: Any) -> ConsistencyConfig:
        """From ``--eventual-lag-ms``, ``--stale-read-probability`` (default 0.5 when a lag is
        set) and ``--seed`` if the settings have them."""
        lag = float(getattr(settings, "eventual_lag_ms", 0) or 0)
        p = getattr(settings, "stale_read_probability", None)
        seed = int(getattr(settings, "seed", 0) or 0)
        return cls(lag, DEFAULT_PROBABILITY if p is None else float(p), seed)


class RecentWrites:
    """Write observer: ``key -> (time of the latest write, image before it)`` for the keys
    written within the lag, oldest first."""

    __slots__ = ("lag", "probability", "rng", "recent", "_batch", "_staged")

    def __init__(self, cfg: ConsistencyConfig, table_id: int) -> None:
        self.lag = cfg.lag_ms / 1000.0
        self.probability = cfg.probability
        self.rng = random.Random(cfg.seed * 1_000_003 + table_id)
        self.recent: OrderedDict[bytes, tuple[float, Item | None]] = OrderedDict()
        self._batch: WriteBatch | None = None  # the batch being committed, and its writes
        self._staged: list[tuple[bytes, float, Item | None]] = []

    def forget_before(self, now: float) -> None:
        recent = self.recent
        horizon = now - self.lag
        while recent:
            key, (at, _) = next(iter(recent.items()))
            if at > horizon:
                return
            del recent[key]

    def on_plan(self, m: Mutation) -> None:
        return None

    def on_commit(self, m: Mutation, batch: WriteBatch, now: float) -> None:
        if self._batch is not batch:  # the batch's first: forget a refused batch's writes
            self._batch = batch
            self._staged.clear()
        self._staged.append((m.key, now, m.old))

    def after_commit(self, batch: WriteBatch) -> None:
        """``batch`` was written: its writes become recent."""
        if self._batch is not batch:
            return
        self._batch = None
        recent = self.recent
        staged = self._staged
        self.forget_before(staged[-1][1])
        for key, now, old in staged:
            if key in recent:
                del recent[key]
            recent[key] = (now, old)
        staged.clear()

    def lagging(self, key: bytes, now: float) -> tuple[bool, Item | None]:
        entry = self.recent.get(key)
        if entry is None or now - entry[0] >= self.lag:
            return False, None
        return True, entry[1]


def _observer(table: Table) -> RecentWrites | None:
    obs: RecentWrites | None = table.recent
    return obs


def attach(table: Table, cfg: ConsistencyConfig) -> None:
    """Give ``table`` the lag model when ``cfg`` enables it (idempotent)."""
    if cfg.enabled and table.recent is None:
        table.recent = RecentWrites(cfg, table.spec.table_id)


def stale_item(table: Table, key: bytes, item: Item | None, now: float) -> Item | None:
    """What an eventually consistent read of storage key ``key`` returns, given the current
    ``item``: the image before a write made within the lag, with the configured probability."""
    obs = _observer(table)
    if obs is None or not obs.recent:
        return item
    lagging, before = obs.lagging(key, now)
    if not lagging or obs.rng.random() >= obs.probability:
        return item
    return before


def stale_items(table: Table, items: Iterable[Item], now: float) -> list[Item]:
    """``stale_item`` over the items of a Query or Scan page (an item created within the lag
    may vanish; one deleted within it is not brought back)."""
    obs = _observer(table)
    if obs is None or not obs.recent:
        return list(items)
    out = []
    for item in items:
        seen = stale_item(table, table.key_for_item(item), item, now)
        if seen is not None:
            out.append(seen)
    return out


def index_image(table: Table, key: bytes, item: Item | None, now: float) -> Item | None:
    """The base item a GSI shows for ``key``: the image before a write made within the lag
    (GSIs are updated asynchronously; no probability), else the current one."""
    obs = _observer(table)
    if obs is None:
        return item
    lagging, before = obs.lagging(key, now)
    return before if lagging else item


def pending_writes(table: Table, now: float) -> dict[bytes, Item | None]:
    """Keys written within the lag and their images before the write: what a GSI read must
    still show (and the current images it must not show yet)."""
    obs = _observer(table)
    if obs is None:
        return {}
    obs.forget_before(now)
    return {k: before for k, (_, before) in obs.recent.items()}


def lagging_index_page(
    table: Table,
    ix: Any,
    entries: list[Item],
    start: bytes,
    stop: bytes,
    *,
    reverse: bool,
    keep: Callable[[Item], bool] | None,
    now: float,
) -> list[Item]:
    """A GSI page as the index shows it while writes within the lag have not reached it
    (GSIs are updated asynchronously, GSI.md): entries of items written within the lag are
    hidden, and the entry of each such item's image from before the write is shown instead
    when it falls in ``[start, stop)`` and passes the filter. Approximate at page edges."""
    pending = pending_writes(table, now)
    if not pending:
        return entries
    keyed: list[tuple[bytes, Item]] = []
    for entry in entries:
        table_key = table.key_for_item(entry)
        if table_key in pending:
            continue  # the index does not show this write yet
        ek = ix.entry_key(entry, keyspace.table_key_of(table_key))
        keyed.append((ek if ek is not None else b"", entry))
    for table_key, before in pending.items():
        if before is None or not table_key.startswith(keyspace.items_prefix(table.spec.table_id)):
            continue
        ek = ix.entry_key(before, keyspace.table_key_of(table_key))
        if ek is None or not (start <= ek < stop) or (keep is not None and not keep(before)):
            continue
        keyed.append((ek, ix.project(before, 0)[0]))
    keyed.sort(key=lambda pair: pair[0], reverse=reverse)
    return [entry for _, entry in keyed]
