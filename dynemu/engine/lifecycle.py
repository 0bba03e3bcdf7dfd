"""What runs with time rather than with a request: TTL sweeps, stream retention and the
maintenance of every open namespace.

A ``Lifecycle`` belongs to one server (its ``Namespaces``). The server starts it with its
event loop and stops it when it shuts down; everything else happens here:

* On a virtual clock a pass runs after every advance (``Clock.on_advance``), so a test that
  moves time sees what is due at once and the same result every run.
* On a real or scaled clock a pass runs every ``interval`` seconds of clock time
  (``--ttl-interval``), scheduled as a timer on the event loop. A pass is synchronous and
  runs between two requests, like a request does; a failing pass is a bug: it is logged with
  its traceback and the next one still runs.

A pass deletes expired items (developer guide "Time to Live (TTL)"; the index it reads is
``engine/ttl.py``'s write observer) and trims stream records older than 24 hours
(``engine/streams.py``). TTL deletes go through the write executor as the service's writes:
no capacity is consumed, and their stream records name the service as the user identity.
"""

from __future__ import annotations

import asyncio
import logging
import math

from dynemu import errors
from dynemu.engine import streams, ttl
from dynemu.engine.clock import Subscription
from dynemu.engine.namespace import Namespace
from dynemu.engine.namespaces import Namespaces
from dynemu.engine.schema import Item
from dynemu.engine.table import Table
from dynemu.engine.writes import Write
from dynemu.storage import keyspace
from dynemu.storage.base import WriteBatch

SWEEP_LIMIT = 10_000  # items deleted per table per sweep
_COMMIT_EVERY = 100  # deletes per write through the executor
_MIN_PERIOD = 0.05  # real seconds between two passes, at least

log = logging.getLogger("dynemu")


def sweep(db: Namespace, now: float, limit: int = SWEEP_LIMIT) -> int:
    """Delete the expired items of every TTL-enabled table of ``db``; returns how many."""
    deleted = 0
    for table in list(db.tables.values()):
        idx = ttl.index_of(table)
        if idx is not None and idx.state.enabled:
            deleted += _sweep_table(db, table, idx, now, limit)
    return deleted


def _drop_too_old(table: Table, oldest: int) -> None:
    """Forget index entries more than five years past: such items are never eligible again."""
    tid = table.spec.table_id
    too_old = WriteBatch()
    for key, _ in table.store.iterate(keyspace.ttl_prefix(tid), keyspace.ttl_until(tid, oldest - 1)):
        too_old.delete(key)
    if len(too_old):
        table.store.write(too_old)


def _sweep_table(db: Namespace, table: Table, idx: ttl.TTLIndex, now: float, limit: int) -> int:
    attr = idx.state.attribute
    assert attr is not None
    tid = table.spec.table_id
    oldest = math.floor(now - ttl.MAX_AGE_SECONDS)
    _drop_too_old(table, oldest)

    def still_expired(old: Item | None) -> bool:
        return ttl.is_expired(old, attr, now)

    entries = []
    for key, item_key in table.store.iterate(keyspace.ttl_until(tid, oldest - 1), keyspace.ttl_until(tid, math.floor(now))):
        entries.append((key, item_key))
        if len(entries) >= limit:
            break
    stale = WriteBatch()
    deleted = 0
    marks = {ttl.TTL_DELETE: True, streams.SERVICE_CHANGE: True}
    for at in range(0, len(entries), _COMMIT_EVERY):
        chunk = entries[at : at + _COMMIT_EVERY]
        writes = [Write("Delete", table, item_key, {}, condition=still_expired, marks=marks) for _, item_key in chunk]
        result = db.execute(writes, on_throttle="service")  # the one write path; no capacity consumed
        deleted += len(result.done)
        table.capacity.state.ttl_deleted += len(result.done)  # TimeToLiveDeletedItemCount
        failed = {id(w) for w in result.failed}
        for (key, item_key), w in zip(chunk, writes, strict=True):
            if id(w) in failed:
                item = table.read(item_key)[0]
                if ttl.expiry_of(item, attr) != ttl.entry_expiry(key):
                    stale.delete(key)  # the item changed or is gone: the entry is stale
    if len(stale):
        table.store.write(stale)
    return deleted


class Lifecycle:
    """TTL sweeps and stream retention for every open namespace of one server."""

    def __init__(self, namespaces: Namespaces, interval: float) -> None:
        self.namespaces = namespaces
        self.interval = interval  # clock seconds between two passes (real and scaled clocks)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._advance: Subscription | None = None  # on a virtual clock, once started

    def run(self, now: float | None = None) -> int:
        """One pass over every open namespace; returns the number of items TTL deleted."""
        if now is None:
            now = self.namespaces.clock.now()
        from dynemu.engine import pitr  # with backups: not needed before the first pass

        deleted = 0
        for db in list(self.namespaces.databases.values()):
            deleted += sweep(db, now)
            db.streams.maintain(now)
            pitr.maintain(db.store, now)  # history older than each PITR window; expired system backups
        return deleted

    def start(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Begin: after every advance of a virtual clock, else on a timer of ``loop`` (the
        running loop when None)."""
        clock = self.namespaces.clock
        if clock.mode == "virtual":
            if self._advance is None:
                self._advance = clock.on_advance(self.run)
            return
        if self._timer is None:
            self._loop = asyncio.get_running_loop() if loop is None else loop
            self._schedule()

    @property
    def follows_advances(self) -> bool:
        """True once started on a virtual clock: a pass runs after every advance."""
        return self._advance is not None

    def stop(self) -> None:
        """No pass runs after this returns (a running one is never interrupted: passes are
        synchronous)."""
        if self._advance is not None:
            self._advance.cancel()
            self._advance = None
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._loop = None

    def real_seconds(self) -> float:
        """The real time between two passes: ``interval`` clock seconds."""
        return max(_MIN_PERIOD, self.interval / self.namespaces.clock.scale)

    def _schedule(self) -> None:
        assert self._loop is not None
        self._timer = self._loop.call_later(self.real_seconds(), self._tick)

    def _tick(self) -> None:
        try:
            self.run()
        except errors.DiskFull:  # the store logged the episode once; sweeping resumes with space
            pass
        except Exception:  # a bug: log it and keep sweeping (never swallow it silently)
            log.exception("TTL sweep / stream retention failed")
        if self._timer is not None:  # not stopped meanwhile
            self._schedule()
