"""Replication between the replicas of a global table: a write observer and a clock-driven applier.

A replica is an ordinary table in another region's namespace (``engine/global_tables/membership.py``
keeps who belongs to which global table). Every write reaches this module through the one
write executor (``engine/writes.py: execute``), before and after its commit
(``RegionLink.check`` and ``RegionLink.written``):

* A write made in a region (any operation, a transaction's items, a TTL delete) is
  enqueued for every other replica as a ``Change``: the item's key and its new image (None
  for a delete), with the commit's time and region as its version. The change is also
  written to the region's store in the commit's own batch, and each replica records in
  its own commit the position of the change it applied (``engine/global_tables/backlog.py``):
  a restart loses no change and applies none twice.
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
otherwise on a timer of the event loop at the next change's due time. The backlog is
reloaded when a namespace holding replicas opens (``Replication.reload``).
"""

from __future__ import annotations

import asyncio
import bisect
import logging
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from dynemu import errors
from dynemu.engine.clock import Clock, Subscription
from dynemu.engine.global_tables import backlog as replication_log
from dynemu.engine.schema import Item
from dynemu.engine.table import Mutation, Table
from dynemu.engine.writes import Write
from dynemu.storage import replication_keys as keys
from dynemu.storage.base import Store, WriteBatch


class Namespace(Protocol):
    """What replication needs of a region's namespace (``engine.namespace.Namespace``, which
    imports this module: named by its shape, not imported)."""

    store: Store
    tables: dict[str, Table]

    def execute(self, writes: list[Write], *, on_throttle: Any = ...) -> Any: ...

log = logging.getLogger("dynemu.engine.global_tables.replication")

REPLICATED = "replicated"  # Mutation.derived mark of a replicated write: its version, or None (backfill)
_RETRY_SECONDS = 0.1  # clock seconds before a throttled backlog is tried again on a real clock
_OPEN_TRIES = 3  # waits for namespaces opened off the loop before the applier opens them itself
Version = tuple[float, str]  # (commit time, region): compared as a tuple, LWW then the region name


def key_id(table: Table, image: Item) -> bytes:
    """An item's identity across regions (storage keys embed each region's table id). Kept (in
    ``versions``, up to thousands): copied, since orjson's own bytes hold a 4 KB buffer each."""
    return bytes(memoryview(orjson.dumps({n: image[n] for n in table.spec.key_names}, option=orjson.OPT_SORT_KEYS)))


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
    pos: bytes = b""  # its position in the origin's backlog (storage/replication_keys.py)
    targets: tuple[str, ...] = ()  # every region it goes to (pending or applied)


class RegionLink:
    """What one namespace's write executor calls: ``db.replicated`` of a namespace that holds
    at least one replica."""

    __slots__ = ("replication", "region", "tables", "store", "_epoch", "_n", "_staged")

    def __init__(self, replication: Replication, region: str, store: Store) -> None:
        self.replication = replication
        self.region = region
        self.tables: dict[str, Any] = {}  # table name -> GlobalTable, for the replicas held here
        self.store = store
        self._epoch: int | None = None  # started on the first change (replication_log.next_epoch)
        self._n = 0
        self._staged: list[Change] = []  # the changes of the commit under way

    def _next_position(self) -> bytes:
        if self._epoch is None:
            self._epoch = replication_log.next_epoch(self.store)
        self._n += 1
        return keys.position(self._epoch, self._n)

    def refuse_transaction(self, tables: Any) -> None:
        """A transaction (TransactGetItems, a PartiQL read transaction) on an MRSC table is
        refused ("Multi-Region strong consistency": transactions are not supported)."""
        for t in tables:
            group = self.tables.get(t.name)
            if group is not None and group.consistency == "STRONG":
                raise errors.validation(errors.MSG_MRSC_TRANSACTIONS)

    def check(self, mutations: list[Mutation], policy: str, now: float, batch: WriteBatch | None) -> WriteBatch | None:
        """Before the commit: MRSC refuses transactions and conflicting writes. Returns the
        commit's batch with what it must write too: each local change's backlog entry, and
        each replicated write's position (``replication_log``)."""
        rep = self.replication
        staged: list[Change] = []
        for m in mutations:
            group = self.tables.get(m.table.name)
            if group is None:
                continue
            d = m.derived
            if d is not None and REPLICATED in d:  # a replicated write (None: the backfill's)
                c = d[REPLICATED]
                if c is not None and m.changed:
                    batch = batch if batch is not None else WriteBatch()
                    replication_log.record_applied(batch, group.name, c.origin, c.pos)
                continue
            image = m.new if m.new is not None else m.old
            if image is None:
                continue
            kid = key_id(m.table, image)
            strong = group.consistency == "STRONG"
            if strong:
                if policy == "cancel":
                    raise errors.validation(errors.MSG_MRSC_TRANSACTIONS)
                v = rep.versions.get((self.region, m.table.name, kid))
                if v is not None and v[1] != self.region and now - v[0] < rep.window:
                    group.refused += 1  # a refusal, not a conflict resolved: a client's retries count again
                    raise errors.replicated_write_conflict()
            targets = [r for r in group.replicas if r != self.region]
            if not targets or not m.changed:
                continue
            key = {n: image[n] for n in m.table.spec.key_names}
            c = Change(group, self.region, (now, self.region), key, kid, m.new,
                       now if strong else now + rep.lag, list(targets), self._next_position(), tuple(targets))  # fmt: skip
            batch = batch if batch is not None else WriteBatch()
            batch.put(keys.backlog_key(c.pos), replication_log.encode(group.name, c.version, key, m.new, c.due, targets))
            staged.append(c)
        self._staged = staged
        return batch

    def written(self, mutations: list[Mutation], now: float) -> None:
        """After the commit: record each item's version here, and enqueue the local changes."""
        rep = self.replication
        for m in mutations:
            d = m.derived
            if d is not None and d.get(REPLICATED) is not None and m.changed:
                c = d[REPLICATED]  # a replicated write: its origin's version
                rep.versions[(self.region, c.group.name, c.kid)] = c.version
        staged, self._staged = self._staged, []
        strong = False
        for c in staged:
            rep.versions[(self.region, c.group.name, c.kid)] = c.version
            rep.enqueue(c)
            strong = strong or c.group.consistency == "STRONG"
        if strong:
            rep.run(now)  # synchronous replication: every replica has it before the answer


class Replication:
    """Every global table of one server, and the backlog between its regions."""

    def __init__(self, open_namespace: Callable[[str, str], Any], clock: Clock, lag_ms: float, window_ms: float,
                 open_later: Callable[[set[tuple[str, str]]], Any] | None = None) -> None:  # fmt: skip
        self.open_namespace = open_namespace  # (region, access key) -> Namespace
        # (region, access key) pairs -> (the opens off the loop to wait for, then what to call)
        # or None (engine.namespaces.Namespaces.open_later)
        self.open_later = open_later
        self.clock = clock
        self.lag = lag_ms / 1000.0
        self.window = window_ms / 1000.0
        self.groups: dict[tuple[str, str], Any] = {}  # (scope, table name) -> GlobalTable
        self.queue: deque[Change] = deque()  # pending, in due order
        self.done: list[Change] = []  # applied everywhere, their backlog entries not deleted yet
        self.known: set[tuple[str, str, bytes]] = set()  # (access key, origin, position) of both
        self.versions: dict[tuple[str, str, bytes], Version] = {}  # (region, table, key) -> last write
        self.applied: dict[tuple[str, str, str], int] = {}  # (table, from, to) -> changes applied
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timer_at = float("inf")
        self._advance: Subscription | None = clock.on_advance(self.run) if clock.mode == "virtual" else None

    def forget(self) -> None:
        """State control replaced namespaces (engine/state.py): every global table and the
        backlog are forgotten; the namespaces that open next join again from their stores."""
        self.groups.clear()
        self.queue.clear()
        self.done.clear()
        self.known.clear()
        self.versions.clear()
        self.applied.clear()

    # --- the backlog ----------------------------------------------------------------------

    def enqueue(self, change: Change) -> None:
        q = self.queue
        if not q or q[-1].due <= change.due:
            q.append(change)
        else:  # an MRSC change (due now) before MREC ones still waiting out the lag
            q.insert(bisect.bisect_right(q, change.due, key=_due), change)
        self.known.add((change.group.access_key, change.origin, change.pos))
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

    def include(self, group: Any, source: str, region: str) -> None:
        """A replica in ``region`` was just backfilled from ``source``: the changes still on
        their way to ``source`` go to it too (and durably so), and it starts with the item
        versions ``source`` has, so last writer wins holds there as well."""
        for (r, t, kid), v in list(self.versions.items()):
            if r == source and t == group.name:
                self.versions[(region, t, kid)] = v
        batches: dict[str, WriteBatch] = {}
        for c in self.queue:
            if c.group is group and c.origin != region and source in c.pending and region not in c.pending:
                c.pending.append(region)
                c.targets = (*c.targets, region)
                entry = replication_log.encode(group.name, c.version, c.key, c.image, c.due, list(c.targets))
                batches.setdefault(c.origin, WriteBatch()).put(keys.backlog_key(c.pos), entry)
        for origin, batch in batches.items():
            self.open_namespace(origin, group.access_key).store.write(batch)

    def reload(self, db: Namespace, link: RegionLink) -> None:
        """A namespace holding replicas opened: its backlog entries come back, pending for
        each region whose recorded position is behind them, and the item versions they
        carry (so last writer wins holds across the restart)."""
        stale = WriteBatch()
        for k, raw in db.store.iterate(*keys.backlog_range()):
            e = replication_log.decode(raw)
            group = link.tables.get(e["t"])
            pos = keys.position_of(k)
            if group is None:  # no longer a global table here
                stale.delete(k)
                continue
            if (group.access_key, link.region, pos) in self.known:
                continue  # still in memory (the namespace was closed and reopened)
            table = db.tables[group.name]
            version: Version = (e["v"][0], e["v"][1])
            kid = key_id(table, e["k"])
            targets = [r for r in e["r"] if r in group.replicas and r != link.region]
            pending = [r for r in targets if self._position(r, group, link.region) < pos]
            c = Change(group, link.region, version, e["k"], kid, e["i"], e["d"], pending, pos, tuple(targets))
            for r in [link.region, *(r for r in targets if r not in pending)]:
                vk = (r, group.name, kid)
                if vk not in self.versions or self.versions[vk] < version:
                    self.versions[vk] = version
            self.known.add((group.access_key, link.region, pos))
            if pending:
                self.enqueue(c)
            else:
                self.done.append(c)
        if len(stale):
            db.store.write(stale)

    def _position(self, region: str, group: Any, origin: str) -> bytes:
        db = self.open_namespace(region, group.access_key)
        return replication_log.applied(db.store, group.name, origin)

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
            (kept if c.pending else self.done).append(c)
        self.queue.extendleft(reversed(kept))
        self._truncate()
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
            return self._passed(db, c)
        marks = {REPLICATED: c}  # the replica's commit records c's position (RegionLink.check)
        if c.image is None:
            w = Write.delete(table, c.key, marks=marks)
        else:
            w = Write.put(table, c.image, marks=marks)
        try:
            result = db.execute([w], on_throttle="unprocess")
        except errors.DynamoError as e:
            if e.type_name in errors.THROTTLE_ERRORS:
                return None
            log.warning("replication of %s to %s dropped: %s", group.name, region, e)
            return self._passed(db, c)
        if result.unprocessed:
            return None
        if w.mutation is None or not w.mutation.changed:  # nothing committed (a delete of nothing)
            self._passed(db, c)
        key = (group.name, c.origin, region)
        self.applied[key] = self.applied.get(key, 0) + 1
        return 1

    def _passed(self, db: Namespace, c: Change) -> int:
        """A change that writes nothing in ``db`` is applied all the same: its position."""
        batch = WriteBatch()
        replication_log.record_applied(batch, c.group.name, c.origin, c.pos)
        db.store.write(batch)
        return 0

    def _truncate(self) -> None:
        """Delete the backlog entries applied everywhere and older than any change still
        pending (a pending MREC change was committed ``lag`` before it is due)."""
        if not self.done:
            return
        floor = (self.queue[0].due - self.lag, "") if self.queue else None
        gone: dict[tuple[str, str], WriteBatch] = {}
        kept = []
        for c in self.done:
            if floor is not None and c.version >= floor:
                kept.append(c)
                continue
            scope = (c.origin, c.group.access_key)
            gone.setdefault(scope, WriteBatch()).delete(keys.backlog_key(c.pos))
            self.known.discard((c.group.access_key, c.origin, c.pos))
        self.done = kept
        for (origin, access_key), batch in gone.items():
            self.open_namespace(origin, access_key).store.write(batch)

    def _prune(self, now: float) -> None:
        """Forget versions no pending or future change can contend with."""
        if len(self.versions) < 4096:
            return
        cutoff = min(self.queue[0].version[0] if self.queue else now, now - self.window)
        self.versions = {k: v for k, v in self.versions.items() if v[0] >= cutoff}

    # --- the timer (real and scaled clocks) -------------------------------------------------------

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """The server's loop is running: on a real clock, resume what a restart reloaded."""
        self._loop = loop
        if self.clock.mode != "virtual" and self.queue:
            self._schedule(self.queue[0].due)

    def _schedule(self, due: float) -> None:
        if due >= self._timer_at and self._timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            if self._loop is None:
                return  # no loop (engine unit tests): ``run`` is called by whoever drives the clock
            loop = self._loop
        if self._timer is not None:
            self._timer.cancel()
        delay = max(0.0, (due - self.clock.now()) / self.clock.scale)
        self._loop, self._timer_at = loop, due
        self._timer = loop.call_later(delay, self._tick)

    def _tick(self) -> None:
        self._timer, self._timer_at = None, float("inf")
        self._apply_due(0)

    def _apply_due(self, tries: int) -> None:
        # One reading of the clock for both steps: a change that fell due between them would
        # be applied without its namespace opened off the loop (the timer may fire a moment
        # early on the wall clock, which is not the loop's monotonic one).
        now = self.clock.now()
        try:
            if not self._opening(tries, now):
                self.run(now)
        except Exception:  # a bug: logged, and the next write schedules the applier again
            log.exception("replication failed")

    def _opening(self, tries: int, now: float) -> bool:
        """Whether the namespaces the changes now due write in are being opened off the loop
        (a store's open syncs files): the applier looks again once they are open (requests
        may have evicted another meanwhile), and after ``_OPEN_TRIES`` looks opens the rest
        itself."""
        if self.open_later is None or tries >= _OPEN_TRIES:
            return False
        needed = set()
        for c in self.queue:
            if c.due > now:
                break
            needed.update((region, c.group.access_key) for region in (*c.pending, c.origin))
        opening = self.open_later(needed)
        if opening is None:
            return False
        futures, settle = opening
        opened = asyncio.gather(*(asyncio.wrap_future(f) for f in futures), return_exceptions=True)
        opened.add_done_callback(lambda _: self._opened(settle, tries + 1))
        return True

    def _opened(self, settle: Callable[[], None], tries: int) -> None:
        """The opens are done: install the namespaces (a failed one is left to the synchronous
        open to report), and apply."""
        try:
            settle()
        except Exception:  # a bug: logged, and the applier opens what it needs itself
            log.exception("replication failed")
        self._apply_due(tries)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer, self._timer_at = None, float("inf")
        if self._advance is not None:
            self._advance.cancel()
            self._advance = None


def _due(c: Change) -> float:
    return c.due
