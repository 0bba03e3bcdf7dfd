"""Point-in-time recovery: a table's change history, its restorable window, and the items
as of any second in it ("Point-in-time recovery for DynamoDB"; API_RestoreTableToPointInTime).

While PITR is on, ``ChangeHistory`` (a write observer) adds one log entry per changed item
to the commit's own storage batch: the item's new image, or a delete. Enabling copies the
table's items from a storage snapshot into a base image; from then on the state as of time
T is the base, with the log's entries up to T applied. History older than the window
(``RecoveryPeriodInDays``, 1 to 35) is folded into the base and dropped (``maintain``, run
by the lifecycle task and before each restore), so the storage cost is one copy of the
table plus every change made within the window.

``LatestRestorableDateTime`` is five minutes before now ("typically 5 minutes before the
current time", API_PointInTimeRecoveryDescription). A table deleted with PITR on keeps its
history, restorable up to its deletion for the recovery period, and gets a SYSTEM backup
kept 35 days ("If you delete a table with point-in-time recovery enabled, a system backup
is automatically created").
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import orjson

from dynemu import errors
from dynemu.engine import backups
from dynemu.engine.backups import Namespace
from dynemu.engine.table import Mutation, Table, encode_stored
from dynemu.storage import backup_keys, keyspace
from dynemu.storage.base import Reader, Store, WriteBatch, delete_range

DAY = 86400.0
LATEST_LAG = 300.0  # "LatestRestorableDateTime is typically 5 minutes before the current time"
_FOLD_CHUNK = 1000


def _us(t: float) -> int:
    return int(round(t * 1_000_000))


@dataclass
class Recovery:
    """A table's PITR record (kept after the table is deleted, for its window)."""

    table_id: int
    since: float
    days: int
    spec: dict[str, Any]  # the table's TableSpec record
    deleted: float | None = None

    def window(self, now: float) -> tuple[float, float]:
        """(EarliestRestorableDateTime, LatestRestorableDateTime) at ``now``."""
        end = self.deleted if self.deleted is not None else now
        earliest = max(self.since, now - self.days * DAY)
        latest = end if self.deleted is not None else end - LATEST_LAG
        return earliest, max(earliest, latest)


def _save(batch: WriteBatch, r: Recovery) -> None:
    batch.put(backup_keys.pitr_meta_key(r.table_id), orjson.dumps(vars(r)))


def record_of(store: Reader, table_id: int) -> Recovery | None:
    raw = store.get(backup_keys.pitr_meta_key(table_id))
    return Recovery(**orjson.loads(raw)) if raw is not None else None


def all_records(store: Reader) -> Iterator[Recovery]:
    start = backup_keys.PITR_META_PREFIX
    for _, raw in store.iterate(start, keyspace.prefix_end(start)):
        yield Recovery(**orjson.loads(raw))


class ChangeHistory:
    """The write observer of a table with PITR on: one log entry per changed item, in the
    commit's batch. Its sequence number only makes keys unique within a microsecond (a gap
    left by a refused write is harmless)."""

    __slots__ = ("table_id", "seq")

    def __init__(self, table: Table) -> None:
        self.table_id = table.spec.table_id
        prefix = backup_keys.pitr_log_prefix(self.table_id)
        last = next(iter(table.store.iterate(prefix, keyspace.prefix_end(prefix), reverse=True)), None)
        self.seq = backup_keys.pitr_log_position(last[0])[1] if last is not None else 0

    def on_plan(self, m: Mutation) -> None:
        pass

    def on_commit(self, m: Mutation, batch: WriteBatch, now: float) -> None:
        self.seq += 1
        stored = encode_stored(m.new, m.new_size) if m.new is not None else None
        key = backup_keys.pitr_log_key(self.table_id, _us(now), self.seq)
        batch.put(key, backup_keys.pitr_log_value(keyspace.hashed_part(m.key), stored))

    def after_commit(self, batch: WriteBatch) -> None:
        pass


def load(table: Table) -> None:
    """Attach the history of a loaded table whose PITR is on (Namespace._attach)."""
    if table.spec.pitr_since is not None and table.store.get(backup_keys.pitr_meta_key(table.spec.table_id)):
        table.history = ChangeHistory(table)


def enable(db: Namespace, table: Table, days: int) -> None:
    """Start keeping the history: the base image from a snapshot, the record, the observer."""
    now = db.now()
    spec = table.spec
    if spec.pitr_since is not None:
        spec.pitr_days = days
        r = record_of(db.store, spec.table_id)
        if r is not None:
            r.days = days
            batch = WriteBatch()
            _save(batch, r)
            db.store.write(batch)
        return
    _drop_history(db.store, spec.table_id)  # whatever a former enabling left
    spec.pitr_since, spec.pitr_days = now, days
    record = WriteBatch()
    _save(record, Recovery(spec.table_id, now, days, spec.to_record()))
    prefix = keyspace.items_prefix(spec.table_id)
    snap = db.store.snapshot()
    try:
        backups.copy_items(db.store, snap, prefix, keyspace.prefix_end(prefix),
                           backup_keys.pitr_base_prefix(spec.table_id), record)
        table.history = ChangeHistory(table)  # no await since the snapshot: no write is missed
    finally:
        snap.close()


def disable(db: Namespace, table: Table) -> None:
    table.history = None
    table.spec.pitr_since = None
    _drop_history(db.store, table.spec.table_id)


def _drop_history(store: Store, table_id: int) -> None:
    batch = WriteBatch()
    batch.delete(backup_keys.pitr_meta_key(table_id))
    store.write(batch)
    for prefix in (backup_keys.pitr_base_prefix(table_id), backup_keys.pitr_log_prefix(table_id)):
        delete_range(store, prefix, keyspace.prefix_end(prefix))


def on_table_deleted(db: Namespace, table: Table, features: dict[str, Any]) -> None:
    """DeleteTable: a table with PITR on keeps its history for its window and gets a system
    backup; its RestoreSummary record goes."""
    batch = WriteBatch()
    backups.forget_restore(batch, table)
    db.store.write(batch)
    r = record_of(db.store, table.spec.table_id)
    if table.spec.pitr_since is None or r is None:
        return
    backups.create(db, table, f"{table.name}$DeletedTableBackup", features, kind="SYSTEM")
    r.deleted, r.spec = db.now(), table.spec.to_record()
    batch = WriteBatch()
    _save(batch, r)
    db.store.write(batch)


def maintain(store: Store, now: float) -> None:
    """Fold history older than each window into its base; forget deleted tables whose window
    has passed; expire system backups."""
    for r in list(all_records(store)):
        if r.deleted is not None and now - r.deleted > r.days * DAY:
            _drop_history(store, r.table_id)
            continue
        _fold(store, r.table_id, _us(r.window(now)[0]) - 1)
    backups.expire(store, now)


def _fold(store: Store, table_id: int, until_us: int) -> None:
    """Apply the log entries at or before ``until_us`` to the base, and drop them."""
    start = backup_keys.pitr_log_prefix(table_id)
    stop = backup_keys.pitr_log_until(table_id, until_us)
    base = backup_keys.pitr_base_prefix(table_id)
    while True:
        batch = WriteBatch()
        for key, value in store.iterate(start, stop):
            hashed, stored = backup_keys.pitr_log_entry(value)
            if stored is None:
                batch.delete(base + hashed)
            else:
                batch.put(base + hashed, stored)
            batch.delete(key)
            if len(batch) >= _FOLD_CHUNK:
                break
        if not len(batch):
            return
        store.write(batch)


def items_at(store: Reader, table_id: int, when: float) -> Iterator[bytes]:
    """The stored items of the table as of ``when``: the base, with the log applied up to it
    (only the last change of each item matters)."""
    changes: dict[bytes, bytes | None] = {}
    start = backup_keys.pitr_log_prefix(table_id)
    for _, value in store.iterate(start, backup_keys.pitr_log_until(table_id, _us(when))):
        hashed, stored = backup_keys.pitr_log_entry(value)
        changes[hashed] = stored
    base = backup_keys.pitr_base_prefix(table_id)
    for key, raw in store.iterate(base, keyspace.prefix_end(base)):
        if key[len(base) :] not in changes:
            yield raw
    for stored in changes.values():
        if stored is not None:
            yield stored


def source(db: Namespace, name: str | None, arn: str | None) -> Recovery:
    """The PITR record of the source table (a live one first, else a deleted one within its
    window), or SourceTableNotFoundException / PointInTimeRecoveryUnavailableException."""
    wanted = arn if arn is not None else name
    assert wanted is not None
    live = db.lookup(wanted)
    if live is not None:
        r = record_of(db.store, live.spec.table_id) if live.spec.pitr_since is not None else None
        if r is None:
            raise errors.pitr_unavailable(live.name)
        r.spec = live.spec.to_record()
        return r
    field = "arn" if arn is not None else "name"
    deleted = [r for r in all_records(db.store) if r.deleted is not None and r.spec[field] == wanted]
    if not deleted:
        raise errors.source_table_not_found(wanted)
    return max(deleted, key=lambda r: r.deleted or 0.0)
