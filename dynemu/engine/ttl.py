"""Time to Live: a table's settings and its expiry-ordered index (a write observer).

Deleting what expired is ``engine/lifecycle.py``'s. Rules implemented (developer guide "Time
to Live (TTL)", API_UpdateTimeToLive; docs/rules.md, "Time to Live"; live behaviour recorded
by ack-api-quirks DDB-TABLE-143..146):

* UpdateTimeToLive enables TTL on one attribute or disables it. Re-enabling is refused
  ("TimeToLive is already enabled"), as is disabling a disabled table; another attribute
  while TTL is active (enable or disable) is "TimeToLive is active on a different
  AttributeName: current AttributeName is <name>" - disable first. These content checks
  come before the cooldown: a second change within the hour after the previous one is
  "Time to live has been modified multiple times within a fixed interval" (the documented
  hour; the live service was measured at ~31 minutes in 2026).
* An item is eligible when the attribute is a top-level Number of epoch seconds in the
  past, and not more than five years in the past; anything else is ignored. Expired items
  stay readable until the sweeper deletes them.
* The sweeper (``engine/lifecycle.py``) deletes through the write executor
  (``Namespace.execute``, ``on_throttle="service"``), so indexes, streams and counters follow;
  it consumes no capacity, and the stream record is marked as the service's (userIdentity
  Service / dynamodb.amazonaws.com).
* The index (``keyspace.ttl_key``: table id, expiry, key) is kept by a write observer in
  the item's batch, so a sweep costs what has expired, not the table size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import orjson

from dynemu import errors
from dynemu.engine import limits
from dynemu.engine.schema import Item
from dynemu.engine.table import Mutation, Table, decode_stored
from dynemu.storage import keyspace
from dynemu.storage.base import WriteBatch, delete_range

COOLDOWN_SECONDS = limits.DEFAULT.ttl_change_seconds  # "Any additional UpdateTimeToLive calls ... during this one hour"
TRANSITION_SECONDS = 0.0  # ENABLING/DISABLING; the live service shows the settled state at once
MAX_AGE_SECONDS = 5 * 365 * 86400  # expiry more than five years in the past: never deleted
_CHUNK = 10_000  # index entries per storage batch when building or dropping the index

TTL_DELETE = "ttl"  # ``Mutation.derived`` key of a sweeper delete (never charged capacity)



def _meta_key(table_id: int) -> bytes:
    return keyspace.ttl_meta_key(table_id)


@dataclass(slots=True)
class TTLState:
    """A table's TTL settings: the attribute, whether TTL is on, and when it last changed."""

    attribute: str | None = None
    enabled: bool = False
    changed_at: float | None = None

    def status(self, now: float) -> str:
        if self.changed_at is not None and now - self.changed_at < TRANSITION_SECONDS:
            return "ENABLING" if self.enabled else "DISABLING"
        return "ENABLED" if self.enabled else "DISABLED"


def expiry_of(item: Item | None, attribute: str) -> int | None:
    """The index position of an item: its TTL attribute rounded up to whole seconds, when it
    is a top-level Number (other types are ignored, as by the service)."""
    if item is None:
        return None
    v = item.get(attribute)
    if v is None:
        return None
    n = v.get("N")
    if n is None:
        return None
    f = float(n)
    if math.isinf(f) or math.isnan(f):
        return None
    return math.ceil(f)


def is_expired(item: Item | None, attribute: str, now: float) -> bool:
    """Eligible for deletion: epoch seconds in the past, not more than five years back."""
    if item is None:
        return False
    v = item.get(attribute)
    n = v.get("N") if v is not None else None
    if n is None:
        return False
    f = float(n)
    return now - MAX_AGE_SECONDS <= f <= now


def entry_expiry(key: bytes) -> int:
    """The expiry an index entry's key records."""
    return keyspace.decode_ttl_expiry(key)


def is_ttl_delete(m: Mutation) -> bool:
    """True for a sweeper delete: such writes consume no capacity."""
    return bool(m.derived and m.derived.get(TTL_DELETE))


# --- the index, kept by a write observer ----------------------------------------------------------


class TTLIndex:
    """Write observer keeping ``x/<table id><expiry><key>`` -> item key for one table."""

    __slots__ = ("table", "state", "_hash", "_range")

    def __init__(self, table: Table, state: TTLState) -> None:
        self.table = table
        self.state = state
        self._hash = table.spec.hash_key.name
        self._range = table.spec.range_key.name if table.spec.range_key else None

    def entry_key(self, item: Item, expiry: int) -> bytes:
        sk = item[self._range] if self._range is not None else None
        return keyspace.ttl_key(self.table.spec.table_id, expiry, item[self._hash], sk)

    def on_plan(self, m: Mutation) -> None:
        return None

    def on_commit(self, m: Mutation, batch: WriteBatch, now: float) -> None:
        state = self.state
        if not state.enabled:
            return
        attr = state.attribute
        assert attr is not None
        before = expiry_of(m.old, attr)
        after = expiry_of(m.new, attr)
        if before == after:
            return
        if before is not None:
            batch.delete(self.entry_key(m.old, before))  # type: ignore[arg-type]
        if after is not None:
            batch.put(self.entry_key(m.new, after), m.key)  # type: ignore[arg-type]

    def after_commit(self, batch: WriteBatch) -> None:
        return None  # storage only: nothing in memory follows

    # building and dropping ---------------------------------------------------------------

    def build(self, batch: WriteBatch) -> WriteBatch:
        """Index every existing item (TTL being enabled); returns the batch to finish with."""
        attr = self.state.attribute
        assert attr is not None
        store = self.table.store
        prefix = keyspace.items_prefix(self.table.spec.table_id)
        for key, raw in store.iterate(prefix, keyspace.prefix_end(prefix)):
            item = decode_stored(raw)[0]
            e = expiry_of(item, attr)
            if e is not None:
                batch.put(self.entry_key(item, e), key)
                if len(batch) >= _CHUNK:
                    store.write(batch)
                    batch = WriteBatch()
        return batch

    def drop(self, batch: WriteBatch) -> None:
        """Delete every index entry; ``batch`` (e.g. the new settings) is written first."""
        store = self.table.store
        prefix = keyspace.ttl_prefix(self.table.spec.table_id)
        store.write(batch)
        delete_range(store, prefix, keyspace.prefix_end(prefix), _CHUNK)


def index_of(table: Table) -> TTLIndex | None:
    """The table's TTL index, once its settings were loaded or first changed."""
    idx: TTLIndex | None = table.ttl
    return idx


def attach(table: Table) -> TTLIndex:
    """Give ``table`` its TTL settings and index observer (idempotent; loads the settings)."""
    idx = index_of(table)
    if idx is None:
        raw = table.store.get(_meta_key(table.spec.table_id))
        state = TTLState(**orjson.loads(raw)) if raw is not None else TTLState()
        idx = table.ttl = TTLIndex(table, state)
    return idx


def load(table: Table) -> None:
    """Attach a loaded table that has TTL settings (``Namespace._attach``); other tables are
    attached by their first UpdateTimeToLive."""
    if table.store.get(_meta_key(table.spec.table_id)) is not None:
        attach(table)


def _state_record(state: TTLState) -> bytes:
    return orjson.dumps({"attribute": state.attribute, "enabled": state.enabled, "changed_at": state.changed_at})


# --- UpdateTimeToLive / DescribeTimeToLive ------------------------------------------------------------


def update(table: Table, attribute: str, enabled: bool, now: float, cooldown: float = COOLDOWN_SECONDS) -> None:
    """Apply an UpdateTimeToLive, with the service's checks in its order; ``cooldown``: the
    seconds between two changes (engine.limits, one hour by default)."""
    idx = attach(table)
    state = idx.state
    if state.enabled and state.attribute != attribute:
        raise errors.validation(errors.MSG_OTHER_ATTRIBUTE.format(state.attribute))
    if enabled and state.enabled:
        raise errors.validation(errors.MSG_ALREADY_ENABLED)
    if not enabled and not state.enabled:
        raise errors.validation(errors.MSG_ALREADY_DISABLED)
    limits.check_ttl_change(state.changed_at, now, cooldown)
    new = TTLState(attribute if enabled else None, enabled, now)
    key = _meta_key(table.spec.table_id)
    if enabled:
        idx.state = TTLState(attribute, True, now)
        batch = idx.build(WriteBatch())
        batch.put(key, _state_record(new))  # settings last: a crash leaves TTL disabled
        table.store.write(batch)
    else:
        batch = WriteBatch()
        batch.put(key, _state_record(new))
        idx.state = new
        idx.drop(batch)


def describe(table: Table) -> TTLState:
    return attach(table).state


def on_table_deleted(table: Table) -> None:
    """DeleteTable: forget the settings and the index entries."""
    idx = index_of(table)
    batch = WriteBatch()
    batch.delete(_meta_key(table.spec.table_id))
    if idx is None:
        idx = TTLIndex(table, TTLState())
    idx.drop(batch)
