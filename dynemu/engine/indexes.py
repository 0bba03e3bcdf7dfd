"""Local and global secondary indexes: definitions, projections, and their maintenance on
the single write path.

An index entry is the projection of an item, stored under
``i/<tid><iid><h(ipk)><ipk><isk><enc pk><enc sk>`` (docs/rules.md, "Storage layout") with the
same value format as a table item (``table.encode_stored``), so a Query on an index is one
range scan. A multi-attribute key (GSIs, up to 4 HASH + 4 RANGE attributes since November
2025) is the concatenation of its components' self-delimiting encodings.

Rules (developer guide LSI.md / GSI.md and "Service, account, and table quotas"):

* an item lacking any index key attribute is not in the index (sparse indexes); one whose
  index key attribute has another type is refused with a ValidationException;
* projections: KEYS_ONLY (table and index keys), INCLUDE (+ NonKeyAttributes), ALL;
* index writes (docs/rules.md, "Secondary index writes"; ``capacity.index_write_units_h``): a new entry costs a put, a
  removed one a delete, a moved key both, a change of projected attributes a put, anything
  else nothing; GSIs consume their own write units, LSIs the table's;
* tables with an LSI limit each item collection (the items of one partition key value plus
  their LSI entries) to 10 GB: ItemCollectionSizeLimitExceededException.

``IndexMaintainer`` is the tables' write observer: ``on_plan`` checks index keys, derives
the entry changes and attaches them as ``m.derived["indexes"]`` (a list of ``IndexWrite``),
``on_commit`` adds them to the mutation's storage batch with the index counters, which
follow in memory once the batch is written (``after_commit``).
"""

from __future__ import annotations

import math
import struct
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from dynemu import errors
from dynemu.engine import capacity, values
from dynemu.engine.schema import TYPE_NAMES, IndexSpec, Item, KeyAttr, TableSpec
from dynemu.engine.table import Mutation, Table, decode_stored, encode_stored
from dynemu.storage import keyspace
from dynemu.storage.base import WriteBatch, delete_range

MAX_LSI = 5
MAX_GSI = 20
MAX_KEY_ATTRIBUTES = 4  # per HASH and per RANGE part of a GSI key (multi-attribute keys)
MAX_PROJECTED_ATTRIBUTES = 100  # NonKeyAttributes summed over all indexes of a table
MAX_INDEX_HASH_BYTES = 2048
MAX_INDEX_RANGE_BYTES = 1024
# The item collection size limit of tables with an LSI (10 GB); the server may set another
# (Settings.item_collection_limit, given to the Namespace).
ITEM_COLLECTION_LIMIT = 10 * 1024**3
BACKFILL_STEP = 1000  # items indexed per backfill step

_COUNTS = struct.Struct(">qq")
_SIZE = struct.Struct(">q")


def _counter(name: str) -> bytes:
    return keyspace.meta_counter_key(name)


# --- definitions ----------------------------------------------------------------------------


# --- one index at run time ------------------------------------------------------------------


class Index:
    """An index of a loaded table: its spec, storage prefix, projection and counters."""

    __slots__ = ("spec", "name", "is_global", "prefix", "projected", "key_names", "lek_names",
                 "item_count", "size_bytes", "cursor", "counts_key", "_hash", "_range")

    def __init__(self, spec: IndexSpec, table_id: int, table_keys: tuple[str, ...], counts: tuple[int, int]):
        self.spec = spec
        self.name = spec.name
        self.is_global = spec.is_global
        self.prefix = keyspace.index_prefix(table_id, spec.index_id)
        self._hash = spec.hash_keys
        self._range = spec.range_keys
        self.key_names = tuple(a.name for a in spec.hash_keys + spec.range_keys)
        # LastEvaluatedKey of an index read: the index key and the table key
        self.lek_names = tuple(dict.fromkeys(self.key_names + table_keys))
        if spec.projection_type == "ALL":
            self.projected: frozenset[str] | None = None
        else:
            self.projected = frozenset(self.lek_names + spec.non_key_attributes)
        self.item_count, self.size_bytes = counts
        self.cursor: bytes | None = None  # while backfilling: items above this key are not indexed yet
        self.counts_key = _counter(f"index-counts/{table_id}/{spec.index_id}")

    @property
    def key_schema(self) -> list[tuple[str, str, str]]:
        return self.spec.key_schema

    def _key_values(self, attrs: tuple[KeyAttr, ...], item: Item) -> list[Any] | None:
        out = []
        for a in attrs:
            v = item.get(a.name)
            if v is None or a.type not in v:
                return None
            out.append(v)
        return out

    def entry_key(self, item: Item, table_key: bytes) -> bytes | None:
        """Storage key of ``item``'s entry (``table_key``: its encoded table key,
        ``keyspace.table_key_of``), or None when the item lacks an index key attribute or
        has one of another type."""
        ipk = self._key_values(self._hash, item)
        if ipk is None:
            return None
        isk = self._key_values(self._range, item)
        if isk is None:
            return None
        return keyspace.index_entry_at(self.prefix, ipk, isk, table_key)

    def partition_prefix(self, values_: tuple[Any, ...]) -> bytes:
        return keyspace.index_partition_at(self.prefix, values_)

    def project(self, item: Item, size: int) -> tuple[Item, int]:
        """The entry of ``item`` (of DynamoDB size ``size``) and the entry's size."""
        if self.projected is None:
            return item, size
        entry = {k: v for k, v in item.items() if k in self.projected}
        return entry, (size if len(entry) == len(item) else values.item_size(entry))

    def key_of(self, entry: Item) -> Item:
        return {n: entry[n] for n in self.lek_names if n in entry}

    def check_item(self, item: Item, old: Item | None) -> None:
        """Refuse index key attributes of the wrong type, empty or too long (attributes
        unchanged since ``old`` were accepted before and are not checked again)."""
        for attrs, limit in ((self._hash, MAX_INDEX_HASH_BYTES), (self._range, MAX_INDEX_RANGE_BYTES)):
            for a in attrs:
                v = item.get(a.name)
                if v is None or (old is not None and old.get(a.name) == v):
                    continue
                actual = next(iter(v))
                if actual != a.type:
                    raise errors.invalid_parameter(
                        errors.MSG_INDEX_KEY_TYPE.format(name=a.name, expected=a.type, actual=actual, index=self.name)
                    )
                if a.type == "N":
                    continue
                raw = v[a.type]
                if raw == "":
                    raise errors.validation(
                        errors.MSG_INDEX_KEY_EMPTY.format(type_name=TYPE_NAMES[a.type], index=self.name, name=a.name)
                    )
                size = len(raw.encode("utf-8")) if a.type == "S" else len(values.decode_binary(raw))
                if size > limit:
                    raise errors.invalid_parameter(
                        errors.MSG_INDEX_KEY_SIZE.format(name=a.name, size=size, limit=limit, index=self.name)
                    )


# --- the write observer ---------------------------------------------------------------------


@dataclass(slots=True)
class IndexWrite:
    """What one mutation does to one index. ``write_h``: the index write units, in
    half-units (GSIs charge them to the index, LSIs to the table)."""

    index: Index
    old_key: bytes | None
    new_key: bytes | None
    new_entry: Item | None
    old_size: int
    new_size: int
    write_h: int

    @property
    def name(self) -> str:
        return self.index.name

    @property
    def is_global(self) -> bool:
        return self.index.is_global


class IndexMaintainer:
    """Write observer keeping a table's indexes and item collection sizes in step."""

    __slots__ = ("table", "indexes", "by_name", "lsi", "collection_limit", "_spec", "_pending", "_pending_batch",
                 "_counts")

    def __init__(self, table: Table, collection_limit: int = ITEM_COLLECTION_LIMIT) -> None:
        self.table = table
        self.indexes: list[Index] = []
        self.by_name: dict[str, Index] = {}
        self.lsi = False
        self.collection_limit = collection_limit
        # What the batch being committed changes: item collection sizes (read back by its
        # later mutations) and index counters (index -> [item count, size], applied by
        # ``after_commit`` once the batch is written).
        self._pending_batch: WriteBatch | None = None
        self._pending: dict[bytes, int] = {}
        self._counts: dict[Index, list[int]] = {}
        self.sync()

    def sync(self) -> None:
        """Follow the table's spec (after CreateTable, UpdateTable, or a load). UpdateTable
        replaces ``table.spec`` by an edited copy; the indexes follow it on their next use."""
        spec = self._spec = self.table.spec
        old = {ix.spec.index_id: ix for ix in self.indexes}
        table_keys = spec.key_names
        fresh: list[Index] = []
        for s in spec.indexes:
            ix = old.get(s.index_id)
            if ix is None:
                raw = self.table.store.get(_counter(f"index-counts/{spec.table_id}/{s.index_id}"))
                ix = Index(s, spec.table_id, table_keys, _COUNTS.unpack(raw) if raw else (0, 0))
            else:
                ix.spec = s
            fresh.append(ix)
        self.indexes = fresh
        self.by_name = {ix.name: ix for ix in fresh}
        self.lsi = any(not ix.is_global for ix in fresh)
        if self.table.indexes is self:
            self.table._attached()  # a table without an index leaves this out of its writes

    def current_spec(self) -> TableSpec:
        """The spec the indexes were last synced to (``Table._attached``)."""
        return self._spec

    # --- plan ------------------------------------------------------------------------------

    def current(self) -> IndexMaintainer:
        if self._spec is not self.table.spec:
            self.sync()
        return self

    def on_plan(self, m: Mutation) -> None:
        if self._spec is not self.table.spec:
            self.sync()
        if not self.indexes:
            return
        old, new = m.old, m.new
        if new is not None:
            # dynalite's probes of the service: GSIs are checked last to first, then LSIs
            for ix in reversed(self.indexes):
                if ix.is_global:
                    ix.check_item(new, old)
            for ix in reversed(self.indexes):
                if not ix.is_global:
                    ix.check_item(new, old)
        suffix = keyspace.table_key_of(m.key)
        writes: list[IndexWrite] = []
        lsi_delta = 0
        for ix in self.indexes:
            if ix.cursor is not None and m.key > ix.cursor:
                continue  # not backfilled yet: the backfill will index the item as it is then
            ok = ix.entry_key(old, suffix) if old is not None else None
            nk = ix.entry_key(new, suffix) if new is not None else None
            if ok is None and nk is None:
                continue
            old_entry, old_size = ix.project(old, m.old_size) if ok is not None else (None, 0)  # type: ignore[arg-type]
            new_entry, new_size = ix.project(new, m.new_size) if nk is not None else (None, 0)  # type: ignore[arg-type]
            if ok == nk and old_entry == new_entry:
                continue  # only attributes outside the projection changed: nothing to write
            units = capacity.index_write_units_h(
                old_size if ok is not None else None,
                new_size if nk is not None else None,
                key_changed=ok != nk,
            )
            writes.append(IndexWrite(ix, ok, nk, new_entry, old_size, new_size, units))
            if not ix.is_global:
                lsi_delta += new_size - old_size
        if self.lsi:
            self._check_collection(m, lsi_delta)
        if writes:
            if m.derived is None:
                m.derived = {}
            m.derived["indexes"] = writes

    def _check_collection(self, m: Mutation, lsi_delta: int) -> None:
        """The 10 GB item collection limit of tables with an LSI: writes that would grow a
        collection past it fail; writes that shrink it are always allowed (LSI.md)."""
        if m.old is None and m.new is None:
            return
        delta = m.new_size - m.old_size + lsi_delta
        key = self.collection_key(m)
        if m.derived is None:
            m.derived = {}
        m.derived["item_collection"] = (key, delta)
        if delta > 0 and self.collection_size(key) + delta > self.collection_limit:
            raise errors.DynamoError("ItemCollectionSizeLimitExceededException", errors.MSG_COLLECTION_SIZE)

    def collection_key(self, m: Mutation) -> bytes:
        item = m.new if m.new is not None else m.old
        assert item is not None
        tid = self.table.spec.table_id
        return keyspace.item_collection_key(tid, keyspace.partition_prefix(tid, item[self.table.spec.hash_key.name]))

    def collection_size(self, key: bytes) -> int:
        raw = self.table.store.get(key)
        return _SIZE.unpack(raw)[0] if raw else 0

    # --- commit ----------------------------------------------------------------------------

    def on_commit(self, m: Mutation, batch: WriteBatch, now: float) -> None:
        derived = m.derived
        if derived is None:
            return
        if self._pending_batch is not batch:  # the batch's first: forget a refused batch's changes
            self._pending_batch = batch
            if self._pending:
                self._pending = {}
            if self._counts:
                self._counts = {}
        writes: list[IndexWrite] | None = derived.get("indexes")
        if writes:
            counts = self._counts
            for w in writes:
                ix = w.index
                if w.old_key is not None and w.old_key != w.new_key:
                    batch.delete(w.old_key)
                if w.new_key is not None:
                    batch.put(w.new_key, encode_stored(w.new_entry, w.new_size))  # type: ignore[arg-type]
                c = counts.get(ix)
                if c is None:
                    c = counts[ix] = [ix.item_count, ix.size_bytes]
                c[0] += (w.new_key is not None) - (w.old_key is not None)
                c[1] += w.new_size - w.old_size
                batch.put(ix.counts_key, _COUNTS.pack(c[0], c[1]))
        collection = derived.get("item_collection")
        if collection is not None and collection[1]:
            key, delta = collection
            size = self._pending.get(key)
            size = (self.collection_size(key) if size is None else size) + delta
            self._pending[key] = size
            if size > 0:
                batch.put(key, _SIZE.pack(size))
            else:
                batch.delete(key)

    def after_commit(self, batch: WriteBatch) -> None:
        """``batch`` was written: the indexes' counters take what it wrote."""
        if self._pending_batch is not batch:
            return
        self._pending_batch = None
        counts = self._counts
        if counts:
            for ix, (count, size) in counts.items():
                ix.item_count, ix.size_bytes = count, size
            counts.clear()
        if self._pending:
            self._pending.clear()


# --- tables and their indexes -----------------------------------------------------------------


def maintainer(table: Table) -> IndexMaintainer | None:
    m: IndexMaintainer | None = table.indexes
    return m.current() if m is not None else None


def attach(
    table: Table, save_spec: Callable[[Table], None], collection_limit: int = ITEM_COLLECTION_LIMIT
) -> IndexMaintainer:
    """Give a loaded or new table its index maintenance. An index that was being
    backfilled when the server stopped is rebuilt from scratch here."""
    m = table.indexes = IndexMaintainer(table, collection_limit)
    restarted = False
    for ix in m.indexes:
        if ix.spec.status == "CREATING":
            clear(table, ix)
            Backfill(table, ix).run()
            restarted = True
    if restarted:
        save_spec(table)
    return m


def sync(table: Table) -> IndexMaintainer:
    """Follow ``table.spec`` after UpdateTable replaced it."""
    m = maintainer(table)
    assert m is not None, "tables get their IndexMaintainer when loaded or created"
    m.sync()
    return m


def find(table: Table, name: str) -> Index | None:
    m = maintainer(table)
    return m.by_name.get(name) if m is not None else None


def all_indexes(table: Table) -> list[Index]:
    m = maintainer(table)
    return m.indexes if m is not None else []


def next_index_id(table: Table) -> int:
    """A fresh id for an index of ``table``; ids are never reused within a table, so a
    deleted index's entries can never be mistaken for a new one's."""
    key = _counter(f"index-id/{table.spec.table_id}")
    raw = table.store.get(key)
    used = max((s.index_id for s in table.spec.indexes), default=0)
    nid = max(int(raw) if raw else 0, used) + 1
    batch = WriteBatch()
    batch.put(key, str(nid).encode())
    table.store.write(batch)
    return nid


def clear(table: Table, ix: Index) -> None:
    """Remove every entry and the counters of ``ix`` (bounded batches)."""
    delete_range(table.store, ix.prefix, keyspace.prefix_end(ix.prefix))
    ix.item_count = ix.size_bytes = 0
    batch = WriteBatch()
    batch.delete(ix.counts_key)
    table.store.write(batch)


def drop_table_data(table: Table) -> None:
    """Remove the index entries, index counters and item collection sizes of a dropped table."""
    tid = table.spec.table_id
    for prefix in (
        keyspace.table_indexes_prefix(tid),
        _counter(f"index-counts/{tid}/"),
        keyspace.item_collections_prefix(tid),
        _counter(f"index-id/{tid}"),
    ):
        delete_range(table.store, prefix, keyspace.prefix_end(prefix))


# --- backfill of a new GSI ------------------------------------------------------------------


class Backfill:
    """Indexes a table's existing items into a new index, ``BACKFILL_STEP`` items at a time;
    writes in between keep the part already backfilled up to date (``Index.cursor``)."""

    __slots__ = ("table", "index", "_end")

    def __init__(self, table: Table, index: Index) -> None:
        self.table = table
        self.index = index
        start = keyspace.items_prefix(table.spec.table_id)
        self._end = keyspace.prefix_end(start)
        index.cursor = start  # every item key is above it: nothing indexed yet

    @property
    def done(self) -> bool:
        return self.index.cursor is None

    def step(self, limit: int = BACKFILL_STEP) -> bool:
        """Index the next ``limit`` items; True once the whole table is indexed."""
        ix = self.index
        if ix.cursor is None:
            return True
        maintainer(self.table)  # ix.spec: the table's current spec object
        batch = WriteBatch()
        n = 0
        last = None
        written: list[tuple[bytes, int, int]] = []  # (entry key suffix, size, 1) for the GSI's partitions
        for key, raw in self.table.store.iterate(ix.cursor + b"\x00", self._end):
            item, size = decode_stored(raw)
            last = key
            ek = ix.entry_key(item, keyspace.table_key_of(key))
            if ek is not None and _indexable(ix, item):
                entry, esize = ix.project(item, size)
                batch.put(ek, encode_stored(entry, esize))
                ix.item_count += 1
                ix.size_bytes += esize
                written.append((keyspace.index_hashed_part(ek), esize, 1))
            n += 1
            if n >= limit:
                break
        batch.put(ix.counts_key, _COUNTS.pack(ix.item_count, ix.size_bytes))
        self.table.store.write(batch)
        cap = getattr(self.table, "capacity", None)
        if written and ix.is_global and cap is not None:
            cap.index_entries_written(ix.name, written)
        if n < limit or last is None:
            ix.cursor = None
            ix.spec.status = "ACTIVE"
            return True
        ix.cursor = last
        return False

    def run(self) -> None:
        while not self.step():
            pass


def _indexable(ix: Index, item: Item) -> bool:
    """Backfill skips items whose index key values DynamoDB would refuse (index key
    violations, GSI.OnlineOps.ViolationDetection.md): empty or oversized values."""
    try:
        ix.check_item(item, None)
    except errors.DynamoError:
        return False
    return True


# --- capacity and item collections, for the operations ------------------------------------------


def writes_of(m: Mutation) -> list[IndexWrite]:
    """The index writes of a planned mutation (empty when it touches no index)."""
    return (m.derived or {}).get("indexes") or []


def charge(cc: capacity.ConsumedCapacity, m: Mutation) -> None:
    """Add the index write units of ``m`` to ``cc`` (index arms of ReturnConsumedCapacity
    INDEXES; the total of TOTAL)."""
    for w in writes_of(m):
        cc.add_index(w.name, is_global=w.is_global, write_h=w.write_h)


def gsi_write_units_h(m: Mutation) -> dict[str, int]:
    """Half-units each GSI must admit for ``m`` (GSI name -> units), for throttling."""
    out: dict[str, int] = {}
    for w in writes_of(m):
        if w.is_global:
            out[w.name] = out.get(w.name, 0) + w.write_h
    return out


def lsi_write_units_h(m: Mutation) -> int:
    """Half-units ``m`` costs the table for its LSIs (LSI writes consume the table's units)."""
    return sum(w.write_h for w in writes_of(m) if not w.is_global)


def item_collection(table: Table, m: Mutation) -> tuple[Item, int] | None:
    """After commit: ``(ItemCollectionKey, collection size in bytes)`` of ``m``'s partition
    key, or None when the table has no LSI (no ItemCollectionMetrics then)."""
    mt = maintainer(table)
    if mt is None or not mt.lsi:
        return None
    item = m.new if m.new is not None else m.old
    hk = table.spec.hash_key.name
    if item is None:  # a delete of a missing item: its key is all we know
        pk, _ = keyspace.decode_item_key(m.key, table.spec.table_id, table.spec.hash_key.type, None)
        return {hk: pk}, mt.collection_size(_collection_key_for(table, pk))
    return {hk: item[hk]}, mt.collection_size(mt.collection_key(m))


def _collection_key_for(table: Table, pk: Any) -> bytes:
    tid = table.spec.table_id
    return keyspace.item_collection_key(tid, keyspace.partition_prefix(tid, pk))


def size_estimate_gb(size: int) -> list[float]:
    """SizeEstimateRangeGB: whole gigabytes below and above the size ([0.0, 1.0] for a
    small collection, as the developer guide's example shows)."""
    low = math.floor(size / 1024**3)
    return [float(low), float(low + 1)]


def entries(table: Table, ix: Index) -> Iterator[tuple[bytes, Item]]:
    """Every entry of ``ix`` in storage order (tests and admin views)."""
    for key, raw in table.store.iterate(ix.prefix, keyspace.prefix_end(ix.prefix)):
        yield key, decode_stored(raw)[0]
