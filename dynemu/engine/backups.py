"""On-demand backups and the one restore of items into a new table ("Backing up and
restoring DynamoDB tables with DynamoDB: how it works").

A backup is a consistent snapshot taken in one step: its items are copied from a storage
snapshot (``Store.snapshot``) into keys of their own (``storage/backup_keys.py``), so the
backup outlives its table and later writes never change it. Taking it reads storage, not
the table's capacity: "Backups ... have no impact on table performance" (the same guide).

A restore creates the table (``Namespace.add_table``) and inserts every item through the
one write executor (``Namespace.execute``, policy ``service``: no capacity consumed), so
index entries, partition sizes and counters are derived exactly as for any write. The new
table starts as a new table of its size and throughput does: its partitions come from the
items it receives, and its burst is full. A restored table has no stream, TTL, tags or
point-in-time recovery (API_RestoreTableFromBackup: "You must manually set up ... Stream
settings, Time to Live (TTL) settings, Tags").
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, Protocol

import orjson

from dynemu import errors
from dynemu.engine import limits, streams, ttl
from dynemu.engine.schema import IndexSpec, TableSpec, Throughput
from dynemu.engine.table import Table, decode_stored, stored_size
from dynemu.engine.writes import Write, WriteResult
from dynemu.storage import backup_keys, keyspace
from dynemu.storage.base import Reader, Store, WriteBatch, delete_range

DAY = 86400.0
SYSTEM_BACKUP_DAYS = 35  # a deleted table's system backup is kept 35 days (PointInTimeRecovery.html)
_COPY_CHUNK = 1000  # keys per storage batch while copying
_RESTORE_CHUNK = 256  # writes per executor call (one commit each)
_BACKUP_ID_COUNTER = "backup-id"


class Namespace(Protocol):
    """What backups and restores need of a namespace (``engine.namespace.Namespace``)."""

    store: Store
    tables: dict[str, Table]
    limits: limits.AccountLimits
    control_plane: limits.ControlPlane

    def now(self) -> float: ...

    def new_spec_ids(self, name: str, region: str) -> tuple[int, str, str]: ...

    def add_table(self, spec: TableSpec) -> Table: ...

    def lookup(self, name: str) -> Table | None: ...

    def execute(self, writes: list[Write], *, on_throttle: Any = ...) -> WriteResult: ...


@dataclass
class Backup:
    """A backup's record: what DescribeBackup reports, and the source table's definition."""

    backup_id: int
    arn: str
    name: str
    created: float
    kind: str  # USER | SYSTEM
    source: dict[str, Any]  # the source table's TableSpec record
    size_bytes: int
    item_count: int
    expiry: float | None = None  # SYSTEM backups only
    features: dict[str, Any] = field(default_factory=dict)  # stream / ttl / sse of the source

    @property
    def spec(self) -> TableSpec:
        return TableSpec.from_record(self.source)

    def to_record(self) -> dict[str, Any]:
        return dict(vars(self))

    @classmethod
    def from_record(cls, r: dict[str, Any]) -> Backup:
        return cls(**r)


def _next_id(store: Store) -> int:
    raw = store.get(keyspace.meta_counter_key(_BACKUP_ID_COUNTER))
    return (int(raw) if raw else 0) + 1


def arn_of(table_arn: str, created: float, backup_id: int) -> str:
    """``<table arn>/backup/<epoch ms, 14 digits>-<8 hex>``, the service's form."""
    return f"{table_arn}/backup/{int(created * 1000):014d}-{backup_id:08x}"


def copy_items(store: Store, source: Reader, start: bytes, stop: bytes, target: bytes,
               last: WriteBatch | None = None) -> tuple[int, int]:
    """Copy ``[start, stop)`` of ``source`` (a snapshot) to keys ``target + <hashed part>`` in
    bounded batches; ``last`` is written with the final one. Returns (items, bytes)."""
    count = size = 0
    batch = WriteBatch()
    for key, raw in source.iterate(start, stop):
        batch.put(target + keyspace.hashed_part(key), raw)
        count += 1
        size += stored_size(raw)
        if len(batch) >= _COPY_CHUNK:
            store.write(batch)
            batch = WriteBatch()
    if last is not None:
        batch.ops.extend(last.ops)
    if len(batch):
        store.write(batch)
    return count, size


def create(db: Namespace, table: Table, name: str, features: dict[str, Any], kind: str = "USER") -> Backup:
    """Snapshot ``table`` into a new backup, in one step (the engine never awaits)."""
    store = db.store
    now = math.floor(db.now() * 1000) / 1000  # milliseconds, as the ARN and the API show it
    bid = _next_id(store)
    backup = Backup(bid, arn_of(table.spec.arn, now, bid), name, now, kind, table.spec.to_record(), 0, 0,
                    now + SYSTEM_BACKUP_DAYS * DAY if kind == "SYSTEM" else None, features)
    prefix = keyspace.items_prefix(table.spec.table_id)
    snap = store.snapshot()
    try:
        # the counter first: a copy cut short leaves items no record names, never a reused id
        counter = WriteBatch()
        counter.put(keyspace.meta_counter_key(_BACKUP_ID_COUNTER), str(bid).encode())
        store.write(counter)
        record = WriteBatch()
        backup.item_count, backup.size_bytes = table.item_count, table.size_bytes
        record.put(backup_keys.backup_meta_key(bid), orjson.dumps(backup.to_record()))
        copy_items(store, snap, prefix, keyspace.prefix_end(prefix), backup_keys.backup_items_prefix(bid), record)
    finally:
        snap.close()
    return backup


# --- the control-plane operations: each admitted first at its documented rate (limits.ControlPlane) ---


def source_table(db: Namespace, name: str) -> Table:
    """The table a backup operation names (or its ARN), else TableNotFoundException "Table
    not found: <name>" (as the service answers: hashicorp/terraform-provider-aws#26577)."""
    table = db.tables.get(name)
    if table is None:
        for candidate in db.tables.values():
            if candidate.spec.arn == name:
                return candidate
        raise errors.DynamoError("TableNotFoundException", errors.msg_backup_table_not_found(name))
    return table


def source_features(table: Table) -> dict[str, Any]:
    """SourceTableFeatureDetails kept with a backup: the stream and TTL settings it had."""
    out: dict[str, Any] = {}
    ts = streams.of_table(table)
    if ts is not None and ts.active is not None:
        out["StreamDescription"] = {"StreamEnabled": True, "StreamViewType": ts.active.view_type}
    state = ttl.describe(table)
    if state.enabled and state.attribute is not None:
        out["TimeToLiveDescription"] = {"TimeToLiveStatus": "ENABLED", "AttributeName": state.attribute}
    return out


def create_backup(db: Namespace, table_name: str, backup_name: str) -> Backup:
    """CreateBackup: admitted, the table, the account's backup limit, then the snapshot."""
    db.control_plane.admit("CreateBackup", db.now())
    table = source_table(db, table_name)
    limits.check_backups(db.limits, sum(1 for b in all_backups(db.store) if b.kind == "USER"))
    return create(db, table, backup_name, source_features(table))


def list_backups(db: Namespace) -> list[Backup]:
    """ListBackups: admitted, then every backup not past its expiry (unordered)."""
    db.control_plane.admit("ListBackups", db.now())
    expire(db.store, db.now())
    return list(all_backups(db.store))


def backup_to_restore(db: Namespace, arn: str) -> Backup:
    """RestoreTableFromBackup: admitted, then the backup (BackupNotFoundException)."""
    db.control_plane.admit("RestoreTableFromBackup", db.now())
    return find(db.store, arn)


def all_backups(store: Reader) -> Iterator[Backup]:
    start = backup_keys.BACKUP_META_PREFIX
    for _, raw in store.iterate(start, keyspace.prefix_end(start)):
        yield Backup.from_record(orjson.loads(raw))


def find(store: Reader, arn: str) -> Backup:
    """The backup whose ARN is ``arn``, else BackupNotFoundException."""
    tail = arn.rpartition("-")[2]
    try:
        bid = int(tail, 16) if "/backup/" in arn and len(tail) == 8 else None
    except ValueError:
        bid = None
    raw = store.get(backup_keys.backup_meta_key(bid)) if bid is not None else None
    if raw is not None:
        backup = Backup.from_record(orjson.loads(raw))
        if backup.arn == arn:
            return backup
    raise errors.backup_not_found(arn)


def delete(store: Store, backup: Backup) -> None:
    """The record first (the backup is gone for every reader), then its items."""
    batch = WriteBatch()
    batch.delete(backup_keys.backup_meta_key(backup.backup_id))
    store.write(batch)
    prefix = backup_keys.backup_items_prefix(backup.backup_id)
    delete_range(store, prefix, keyspace.prefix_end(prefix))


def expire(store: Store, now: float) -> None:
    """Drop system backups past their expiry."""
    for b in list(all_backups(store)):
        if b.expiry is not None and b.expiry <= now:
            delete(store, b)


# --- restores --------------------------------------------------------------------------------


def restored_spec(db: Namespace, source: TableSpec, target: str, region: str, *, billing_mode: str,
                  throughput: tuple[int, int], index_specs: list[IndexSpec],
                  on_demand: tuple[int, int] | None) -> TableSpec:
    """The new table's definition: the source's keys, the chosen indexes and billing."""
    table_id, arn, uuid = db.new_spec_ids(target, region)
    now = db.now()
    used = set(source.key_names)
    for s in index_specs:
        used.update(a.name for a in s.hash_keys + s.range_keys)
    odr, odw = on_demand if on_demand is not None else (source.on_demand_max_read, source.on_demand_max_write)
    return TableSpec(
        name=target, table_id=table_id, arn=arn, uuid=uuid, created=now,
        hash_key=source.hash_key, range_key=source.range_key,
        attribute_definitions=[a for a in source.attribute_definitions if a.name in used],
        billing_mode=billing_mode, throughput=Throughput(read=throughput[0], write=throughput[1]),
        billing_mode_updated=now if billing_mode == "PAY_PER_REQUEST" else None,
        billing_mode_explicit=True, table_class=source.table_class,
        on_demand_max_read=odr, on_demand_max_write=odw, indexes=index_specs,
    )  # fmt: skip


def restore(db: Namespace, spec: TableSpec, items: Iterable[bytes], summary: dict[str, Any]) -> Table:
    """Create the table of ``spec`` and insert ``items`` (stored values) through the write
    executor; ``summary`` is its RestoreSummary (and SSE), kept beside the table."""
    if spec.name in db.tables:
        raise errors.table_already_exists(spec.name)
    table = db.add_table(spec)
    record = WriteBatch()
    record.put(backup_keys.restore_meta_key(spec.table_id), orjson.dumps(summary))
    db.store.write(record)
    writes: list[Write] = []
    for raw in items:
        item, size = decode_stored(raw)
        writes.append(Write.put(table, item, size=size))
        if len(writes) >= _RESTORE_CHUNK:
            db.execute(writes, on_throttle="service")
            writes = []
    if writes:
        db.execute(writes, on_throttle="service")
    return table


def backup_items(store: Reader, backup: Backup) -> Iterator[bytes]:
    prefix = backup_keys.backup_items_prefix(backup.backup_id)
    for _, raw in store.iterate(prefix, keyspace.prefix_end(prefix)):
        yield raw


def restore_summary(table: Table) -> dict[str, Any] | None:
    """What a restored table's DescribeTable adds (RestoreSummary, SSEDescription), or None."""
    raw = table.store.get(backup_keys.restore_meta_key(table.spec.table_id))
    return orjson.loads(raw) if raw is not None else None


def forget_restore(batch: WriteBatch, table: Table) -> None:
    """A dropped table's RestoreSummary goes with it."""
    batch.delete(backup_keys.restore_meta_key(table.spec.table_id))
