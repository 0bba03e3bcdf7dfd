"""A namespace: one store and the tables in it, and the commit of planned mutations.

``Namespace.commit`` is the only place item changes reach storage: every planned
``Mutation`` of a request (one for PutItem, up to 100 for a transaction) is written in one
atomic write batch together with the counters of the tables it touches, so DescribeTable's
ItemCount and TableSizeBytes are exact and survive a restart without a scan.
"""

from __future__ import annotations

import struct
import uuid
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import orjson

from dynemu import errors
from dynemu.engine import consistency, indexes, limits, streams, transient, ttl, vectors
from dynemu.engine import writes as writes_
from dynemu.engine.capacity.admission import TableCapacity
from dynemu.engine.capacity.throughput import CapacityConfig
from dynemu.engine.clock import Cancellable, Clock
from dynemu.engine.consistency import ConsistencyConfig
from dynemu.engine.schema import TableSpec
from dynemu.engine.table import Mutation, Table, counts_key_of, encode_stored
from dynemu.engine.tokens import Tokens
from dynemu.storage import keyspace
from dynemu.storage.base import Store, WriteBatch, delete_range

if TYPE_CHECKING:
    from dynemu.engine.global_tables.replication import RegionLink

ACCOUNT_ID = "000000000000"
_COUNTS = struct.Struct(">qq")
_TABLE_ID_COUNTER = "table-id"


class Namespace:
    """The tables of one namespace (a region, or region and access key)."""

    def __init__(
        self,
        store: Store,
        clock: Clock,
        capacity: CapacityConfig | None = None,
        *,
        consistency: ConsistencyConfig | None = None,
        item_collection_limit: int = indexes.ITEM_COLLECTION_LIMIT,
        account_limits: limits.AccountLimits = limits.DEFAULT,
    ) -> None:
        self.store = store
        self.clock = clock
        self.now = clock.now
        self.capacity_config = capacity or CapacityConfig()
        self.consistency = consistency or ConsistencyConfig()
        self.item_collection_limit = item_collection_limit
        self.limits = account_limits  # tables, simultaneous operations, backups, quotas (engine.limits)
        self.control_plane = limits.ControlPlane(account_limits)  # rated control-plane calls
        # tables CREATING, UPDATING or DELETING under --transient-delays (engine.transient)
        self.transient = transient.Statuses(account_limits.transient_delays, clock.now, self._drop_named)
        self.tables: dict[str, Table] = {}
        # throttle events of the tables (and their GSIs) deleted since start, by reason: a
        # counter never goes down (the Prometheus view's table="" series)
        self.deleted_throttles: dict[str, int] = {}
        self.tokens = Tokens(store)  # TransactWriteItems' ClientRequestTokens, in the store (engine.tokens)
        self.streams = streams.StreamCatalog(store)  # every retained stream (engine.streams)
        # Called with every table created after start-up, once it is attached.
        self.table_hooks: list[Callable[[Table], None]] = []
        # Global tables (engine.replication): the server's Replication, and this namespace's
        # RegionLink once it holds a replica (the write executor calls it; None: no replica).
        self.replication: Any = None
        self.replicated: RegionLink | None = None
        # auto scaling's Scaler once started (engine.autoscaling.scaler, which imports this module)
        self.scaler: Any = None
        # What this namespace registered elsewhere (clock callbacks, timers): ``close``
        # cancels each, so nothing outside keeps a closed namespace alive or running.
        self._owned: list[Cancellable] = []
        self.closed = False
        # work running a step per turn of the event loop (engine.steps): not evicted meanwhile
        self.steps_running = 0
        # CloudWatch's UserErrors of this namespace (engine.cloudwatch.user_errors), kept by
        # Namespaces across closes; None when made outside it
        self.user_errors: Any = None
        self._load()
        # On a virtual clock, time moves only when advanced: run what is then due.
        self.own(clock.on_advance(self._on_advance))

    def _on_advance(self, now: float) -> None:
        for table in self.tables.values():
            table.capacity.state.maintain(now)

    def _attach(self, table: Table) -> Table:
        """Give a loaded or new table what is attached to it (the one place): its capacity
        state, its indexes, its stream writer and TTL index when it has them, and the
        stale-read model when it is on."""
        table.capacity = TableCapacity(table.spec, self.capacity_config, self.store, self.now(), table.size_bytes)
        table._attached()  # the capacity observes every commit (partition sizes and splits)
        indexes.attach(table, self.save_spec, self.item_collection_limit)
        vectors.attach(table)  # vector indexes, when the table has any (engine.vectors)
        streams.bind(self.streams, table)
        ttl.load(table)
        consistency.attach(table, self.consistency)
        from dynemu.engine import pitr  # with backups, imported once a table exists

        pitr.load(table)  # the change history of a table with point-in-time recovery on
        return table

    def own(self, handle: Cancellable) -> None:
        """Keep ``handle`` (a clock subscription, a timer) until ``close`` cancels it; one
        registered after the close is cancelled at once."""
        if self.closed:
            handle.cancel()
        else:
            self._owned.append(handle)

    def release(self) -> None:
        """Cancel everything this namespace registered and drop its links: the scaler, the
        global tables' RegionLink (the server's Replication keeps the backlog itself, and
        relinks the namespace when it opens again). Idempotent."""
        self.closed = True
        owned, self._owned = self._owned, []
        for handle in owned:
            handle.cancel()
        self.scaler = None
        self.replicated = None

    def close(self, close_store: Callable[[Store], None] | None = None) -> list[str]:
        """Release what the namespace registered (``release``), save what is cheaper to keep
        than to rebuild (each table's partition sizes: without them the next start measures
        every item), then close the store whether or not that save could be written (a full
        disk): here, or through ``close_store`` (the server closes stores on a thread of
        their own: closing a LevelDB store waits for its compaction). Returns what could not
        be saved, one line each: none of it is data, which every commit has already written.
        Raises only when the store itself fails to close here."""
        self.release()
        if self.store.closed:
            return []
        unsaved = self.save()
        if close_store is None:
            self.store.close()
        else:
            close_store(self.store)
        return unsaved

    def save(self) -> list[str]:
        """Write what ``close`` saves besides the items (each table's partition sizes), so
        that the store alone holds the namespace (a snapshot copies it, engine/state.py).
        Returns what could not be saved, one line each."""
        unsaved = []
        try:
            batch = WriteBatch()
            for table in self.tables.values():
                table.capacity.persist(batch)
            if len(batch):
                self.store.write(batch)
        except Exception as e:  # noqa: BLE001 - reported, and the store is closed all the same
            reason = e.message if isinstance(e, errors.DynamoError) else f"{type(e).__name__}: {e}"
            unsaved.append(f"partition sizes, which the next start measures from the items ({reason})")
        return unsaved

    # --- catalog ------------------------------------------------------------------------------

    def _load(self) -> None:
        start = keyspace.META_TABLES_PREFIX
        for _key, raw in self.store.iterate(start, keyspace.prefix_end(start)):
            spec = TableSpec.from_record(orjson.loads(raw))
            counts = self.store.get(counts_key_of(spec.table_id))
            count, size = _COUNTS.unpack(counts) if counts else (0, 0)
            self.tables[spec.name] = self._attach(Table(spec, self.store, count, size))

    def _next_table_id(self) -> int:
        key = keyspace.meta_counter_key(_TABLE_ID_COUNTER)
        raw = self.store.get(key)
        return (int(raw) if raw else 0) + 1

    def new_spec_ids(self, name: str, region: str) -> tuple[int, str, str]:
        """A fresh table id, ARN and table UUID; ids are never reused."""
        table_id = self._next_table_id()
        arn = f"arn:aws:dynamodb:{region}:{ACCOUNT_ID}:table/{name}"
        return table_id, arn, str(uuid.uuid4())

    def get(self, name: str, *, control_plane: bool = False) -> Table:
        """The table called ``name`` (or whose ARN is ``name``), else ResourceNotFoundException:
        "Requested resource not found" for data-plane operations, with ": Table: <name> not
        found" appended for the control plane (DescribeTable, UpdateTable, DeleteTable)."""
        table = self.tables.get(name)
        if table is None:
            if name.startswith("arn:"):
                table = self.tables.get(name.rpartition("table/")[2])
                if table is not None and table.spec.arn == name:
                    return self._settled(table, name, control_plane) if self.transient.tables else table
            raise errors.table_not_found(name) if control_plane else errors.resource_not_found()
        return self._settled(table, name, control_plane) if self.transient.tables else table

    def _settled(self, table: Table, name: str, control_plane: bool) -> Table:
        """``get`` of a table that may be in a transient status (engine.transient): one that
        is CREATING or DELETING is not there for the data plane; one whose deletion has run
        its time is gone."""
        status = self.transient.status(table.spec.name)
        if status is None and self.tables.get(table.spec.name) is not table:
            raise errors.table_not_found(name) if control_plane else errors.resource_not_found()
        if status in ("CREATING", "DELETING") and not control_plane:
            raise errors.resource_not_found()
        return table

    def lookup(self, name: str) -> Table | None:
        try:
            return self.get(name)
        except errors.DynamoError:
            return None

    def add_table(self, spec: TableSpec) -> Table:
        if spec.name in self.tables:
            raise errors.resource_in_use(errors.msg_table_exists(spec.name))
        limits.check_new_table(self.limits, self.tables.values())  # CreateTable and restores
        limits.check_account_throughput(self.limits, self.tables.values(), spec)
        batch = WriteBatch()
        batch.put(keyspace.meta_counter_key(_TABLE_ID_COUNTER), str(spec.table_id).encode())
        batch.put(keyspace.meta_table_key(spec.name), orjson.dumps(spec.to_record()))
        batch.put(counts_key_of(spec.table_id), _COUNTS.pack(0, 0))
        self.store.write(batch)
        table = self._attach(Table(spec, self.store))
        self.tables[spec.name] = table
        for hook in self.table_hooks:
            hook(table)
        return table

    def save_spec(self, table: Table) -> None:
        """Persist a changed spec, and let the capacity model follow it."""
        table.capacity.spec = table.spec
        table.capacity.reconfigure(self.now())
        table.capacity.sync_indexes(indexes.all_indexes(table), self.now())
        batch = WriteBatch()
        batch.put(keyspace.meta_table_key(table.spec.name), orjson.dumps(table.spec.to_record()))
        version = table.capacity.persist_if_changed(batch)
        self.store.write(batch)
        table.capacity.saved(version)

    def _drop_named(self, name: str) -> None:
        """Drop table ``name`` if it is still there (a DELETING status that has run its time)."""
        table = self.tables.get(name)
        if table is not None:
            self.drop_table(table)

    def drop_table(self, table: Table) -> None:
        """Remove a table and its items. Table ids are never reused, so the item range can be
        deleted after the metadata in bounded batches."""
        batch = WriteBatch()
        batch.delete(keyspace.meta_table_key(table.spec.name))
        batch.delete(counts_key_of(table.spec.table_id))
        table.capacity.drop(batch)
        self.store.write(batch)
        del self.tables[table.spec.name]
        for state in (table.capacity.state, *table.capacity.index_states.values()):
            for reason, n in state.throttle_counts.items():
                self.deleted_throttles[reason] = self.deleted_throttles.get(reason, 0) + n
        indexes.drop_table_data(table)
        vectors.drop_table_data(table)
        prefix = keyspace.items_prefix(table.spec.table_id)
        delete_range(self.store, prefix, keyspace.prefix_end(prefix))

    # --- the write executor -------------------------------------------------------------------

    def execute(
        self,
        writes: list[writes_.Write],
        *,
        on_throttle: writes_.OnThrottle = "raise",
        consumed: bool = False,
        token: tuple[str, bytes] | None = None,
    ) -> writes_.WriteResult:
        """Run item writes through the one write executor, ``dynemu.engine.writes.execute``."""
        return writes_.execute(self, writes, on_throttle=on_throttle, consumed=consumed, token=token)

    # --- the single commit of item changes ---------------------------------------------------------

    def commit(self, mutations: Iterable[Mutation], now: float | None = None, batch: WriteBatch | None = None) -> None:
        """Write every changed mutation, what its table's observers derive from it (index
        entries, stream records, TTL entries) and the counters of the tables it touches, in
        one atomic storage write. ``now``: the request's time (default: the clock's);
        ``batch``: extra operations to write in the same storage write (the durability of
        transaction tokens), written even when no item changed.

        Memory follows the store: nothing in memory changes until the batch is written (a
        refused write, e.g. a full disk, leaves no trace): the tables' counters move after
        ``store.write``, and so do the observers' own (``WriteObserver.after_commit``)."""
        if batch is None:
            batch = WriteBatch()
        if now is None:
            now = self.now()
        ops = batch.ops
        first: Table | None = None  # the table of the first change, and its counters' deltas
        dc = ds = 0
        more: dict[Table, list[int]] | None = None  # other tables' (a transaction across tables)
        for m in mutations:
            new = m.new
            if m.existed:
                count, size = -1, -m.old_size
                if new is None:
                    ops.append((m.key, None))
            elif new is None:
                continue  # nothing changed
            else:
                count = size = 0
            if new is not None:
                ops.append((m.key, encode_stored(new, m.new_size)))
                count += 1
                size += m.new_size
            t = m.table
            if t is first or first is None:
                first = t
                dc += count
                ds += size
            else:
                if more is None:
                    more = {}
                d = more.setdefault(t, [0, 0])
                d[0] += count
                d[1] += size
            for observer in t.observers:
                observer.on_commit(m, batch, now)
        if first is not None:
            ops.append((first.counts_key, _COUNTS.pack(first.item_count + dc, first.size_bytes + ds)))
            if more is not None:
                for t, (c, s) in more.items():
                    ops.append((t.counts_key, _COUNTS.pack(t.item_count + c, t.size_bytes + s)))
        elif not ops:
            return
        self.store.write(batch)
        if first is not None:
            first.item_count += dc
            first.size_bytes += ds
            for observer in first.observers:
                observer.after_commit(batch)
            if more is not None:
                for t, (c, s) in more.items():
                    t.item_count += c
                    t.size_bytes += s
                    for observer in t.observers:
                        observer.after_commit(batch)
