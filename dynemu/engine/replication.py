"""Replication between the replicas of a global table: a write observer and a clock-driven applier.

A replica is an ordinary table in another region's namespace (``engine/global_tables.py``
keeps who belongs to which global table). Every write reaches this module through the one
write executor (``engine/writes.py: execute``), once committed (``RegionLink.written``):

* A write made in a region (any operation, a transaction's items, a TTL delete) is
  enqueued for every other replica as a ``Change``: the item's key and its new image (None
  for a delete), with the commit's time and region as its version.
* The applier (``Replication.run``) applies each change ``lag`` seconds after its commit
  (``--replication-lag-ms``, default 1000: the developer guide's "typically within one
  second", "Global tables: how it works"), through the same executor in the other region, as
  a Put of the whole item or a Delete. So a replicated write is charged to the replica's own
  capacity (replicated write units) and throttles like any write; a throttled change stays in
  the backlog and is retried in order. Each replicated write is its own commit: a
  transaction is atomic only in the region where it ran, and replicated item by item.
* Conflicts are last writer wins per item ("Multi-Region eventual consistency"): an
  incoming change applies only if its version (commit time, then region name) is newer than
  the version of the item's last write in that region. Equal times (a virtual clock makes
  them common) go to the lexicographically greater region name: dynemu's choice, the guide
  does not say. Each change lost this way counts as a conflict resolved.
* Multi-Region strong consistency: the change is applied to the other replicas at once,
  within the request (so a strongly consistent read anywhere sees it), and a write to an
  item another region wrote less than ``--mrsc-conflict-window-ms`` before is refused with
  ReplicatedWriteConflictException (the window stands for the time a synchronous
  replication is in flight; dynemu's choice). Transactions are refused on such tables.

Time only comes from the clock: on a virtual clock the applier runs after each advance,
otherwise on a timer of the event loop at the next change's due time. The backlog lives in
memory (a restart drops what was not yet applied).
"""

from __future__ import annotations

import asyncio
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from dynemu import errors
from dynemu.engine.cancellation import THROTTLE_ERRORS
from dynemu.engine.schema import Item
from dynemu.engine.table import Mutation, Table
from dynemu.engine.writes import Write

log = logging.getLogger("dynemu.engine.replication")

REPLICATED = "replicated"  # Mutation.derived mark of a replicated write: its version, or None (backfill)
_RETRY_SECONDS = 0.1  # clock seconds before a throttled backlog is tried again on a real clock
Version = tuple[float, str]  # (commit time, region): compared as a tuple, LWW then the region name


def key_id(table: Table, image: Item) -> bytes:
    """An item's identity across regions (storage keys embed each region's table id)."""
    return orjson.dumps({n: image[n] for n in table.spec.key_names}, option=orjson.OPT_SORT_KEYS)


@dataclass(slots=True)
class Change:
    """One committed item change on its way to the other replicas."""

    group: Any  # engine.global_tables.GlobalTable
    origin: str
    version: Version
    key: Item
    kid: bytes
    image: Item | None  # None: a delete
    due: float
    pending: list[str] = field(default_factory=list)  # regions not applied yet


class RegionLink:
    """What one namespace's write executor calls: ``db.replicated`` of a namespace that holds
    at least one replica."""

    __slots__ = ("replication", "region", "tables")

    def __init__(self, replication: Replication, region: str) -> None:
        self.replication = replication
        self.region = region
        self.tables: dict[str, Any] = {}  # table name -> GlobalTable, for the replicas held here

    def check(self, mutations: list[Mutation], policy: str, now: float) -> None:
        """Before the commit: MRSC refuses transactions and conflicting writes."""
        for m in mutations:
            group = self.tables.get(m.table.name)
            if group is None or group.consistency != "STRONG" or _mark(m) is not None:
                continue
            if policy == "cancel":
                raise errors.validation(errors.MSG_MRSC_TRANSACTIONS)
            image = m.new if m.new is not None else m.old
            if image is None:
                continue
            v = self.replication.versions.get((self.region, m.table.name, key_id(m.table, image)))
            if v is not None and v[1] != self.region and now - v[0] < self.replication.window:
                group.conflicts += 1
                raise errors.replicated_write_conflict()

    def written(self, mutations: list[Mutation], now: float) -> None:
        """After the commit: record each item's version here, and enqueue local writes."""
        rep = self.replication
        strong = False
        for m in mutations:
            group = self.tables.get(m.table.name)
            if group is None or not m.changed:
                continue
            image = m.new if m.new is not None else m.old
            if image is None:
                continue
            kid = key_id(m.table, image)
            mark = _mark(m)
            if mark is not None:  # a replicated write: its origin's version
                if mark[1]:
                    rep.versions[(self.region, m.table.name, kid)] = mark[1]
                continue
            version = (now, self.region)
            rep.versions[(self.region, m.table.name, kid)] = version
            targets = [r for r in group.replicas if r != self.region]
            if not targets:
                continue
            key = {n: image[n] for n in m.table.spec.key_names}
            strong = strong or group.consistency == "STRONG"
            due = now if group.consistency == "STRONG" else now + rep.lag
            rep.enqueue(Change(group, self.region, version, key, kid, m.new, due, targets))
        if strong:
            rep.run(now)  # synchronous replication: every replica has it before the answer


def _mark(m: Mutation) -> tuple[bool, Version | None] | None:
    """(True, version) for a replicated write; None for a local one."""
    d = m.derived
    if d is None or REPLICATED not in d:
        return None
    return True, d[REPLICATED]


class Replication:
    """Every global table of one server, and the backlog between its regions."""

    def __init__(self, open_namespace: Callable[[str, str], Any], clock: Any, lag_ms: float, window_ms: float) -> None:
        self.open_namespace = open_namespace  # (region, access key) -> Namespace
        self.clock = clock
        self.lag = lag_ms / 1000.0
        self.window = window_ms / 1000.0
        self.groups: dict[tuple[str, str], Any] = {}  # (scope, table name) -> GlobalTable
        self.queue: deque[Change] = deque()  # in due order (one lag for all)
        self.versions: dict[tuple[str, str, bytes], Version] = {}  # (region, table, key) -> last write
        self.applied: dict[tuple[str, str, str], int] = {}  # (table, from, to) -> changes applied
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = float("inf")
        if clock.mode == "virtual":
            clock.on_advance(self.run)

    # --- the backlog ----------------------------------------------------------------------

    def enqueue(self, change: Change) -> None:
        self.queue.append(change)
        if self.clock.mode != "virtual" and change.due > self.clock.now():
            self._schedule(change.due)

    def backlog(self, group: Any) -> dict[tuple[str, str], int]:
        """Changes not yet applied, per (from region, to region), of ``group``."""
        out: dict[tuple[str, str], int] = {}
        for c in self.queue:
            if c.group is group:
                for r in c.pending:
                    out[(c.origin, r)] = out.get((c.origin, r), 0) + 1
        return out

    def forget_region(self, group: Any, region: str) -> None:
        """A replica left: nothing more goes to it."""
        for c in self.queue:
            if c.group is group and region in c.pending:
                c.pending.remove(region)

    # --- the applier ----------------------------------------------------------------------

    def run(self, now: float | None = None) -> int:
        """Apply every change due by ``now``, in order; returns how many were applied."""
        if now is None:
            now = self.clock.now()
        applied = 0
        blocked: set[str] = set()  # regions throttled in this pass: later changes wait behind
        kept: list[Change] = []
        while self.queue and self.queue[0].due <= now:
            c = self.queue.popleft()
            for region in list(c.pending):
                if region in blocked:
                    continue
                done = self._apply(c, region, now)
                if done is None:
                    blocked.add(region)
                    continue
                c.pending.remove(region)
                applied += done
            if c.pending:
                kept.append(c)
        self.queue.extendleft(reversed(kept))
        self._prune(now)
        if self.clock.mode != "virtual" and self.queue:
            self._schedule(max(self.queue[0].due, now + _RETRY_SECONDS) if kept else self.queue[0].due)
        return applied

    def _apply(self, c: Change, region: str, now: float) -> int | None:
        """Apply ``c`` in ``region``: 1 applied, 0 lost to a newer write (or no replica any
        more), None throttled (stays in the backlog)."""
        group = c.group
        db = self.open_namespace(region, group.access_key)
        table = db.tables.get(group.name)
        if table is None:
            return 0
        current = self.versions.get((region, group.name, c.kid))
        if current is not None and current > c.version:
            group.conflicts += 1  # last writer wins: the item there is newer
            return 0
        marks = {REPLICATED: c.version}
        if c.image is None:
            w = Write.delete(table, c.key, marks=marks)
        else:
            w = Write.put(table, c.image, marks=marks)
        try:
            result = db.execute([w], on_throttle="unprocess")
        except errors.DynamoError as e:
            if e.type_name in THROTTLE_ERRORS:
                return None
            log.warning("replication of %s to %s dropped: %s", group.name, region, e)
            return 0
        if result.unprocessed:
            return None
        key = (group.name, c.origin, region)
        self.applied[key] = self.applied.get(key, 0) + 1
        return 1

    def _prune(self, now: float) -> None:
        """Forget versions no pending or future change can contend with."""
        if len(self.versions) < 4096:
            return
        cutoff = min(self.queue[0].version[0] if self.queue else now, now - self.window)
        self.versions = {k: v for k, v in self.versions.items() if v[0] >= cutoff}

    # --- the timer (real and scaled clocks) -------------------------------------------------------

    def _schedule(self, due: float) -> None:
        if due >= self._timer_at and self._timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (engine unit tests): ``run`` is called by whoever drives the clock
        if self._timer is not None:
            self._timer.cancel()
        scale = getattr(self.clock, "scale", 1.0)
        delay = max(0.0, (due - self.clock.now()) / scale)
        self._loop, self._timer_at = loop, due
        self._timer = loop.call_later(delay, self._tick)

    def _tick(self) -> None:
        self._timer, self._timer_at = None, float("inf")
        try:
            self.run()
        except Exception:  # a bug: logged, and the next write schedules the applier again
            log.exception("replication failed")

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._timer_at = None, float("inf")
        remove = getattr(self.clock, "remove_callback", None)
        if remove is not None and self.clock.mode == "virtual":
            remove(self.run)

