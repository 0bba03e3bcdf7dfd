"""Vector index maintenance: the table's write observer, the rebuild on open, the backfill.

Which items enter an index ("Data synchronization between tables and vector indexes",
"Troubleshooting vector indexes"):

* an item without the vector attribute is not indexed (nor, when the search schema has a
  HASH attribute, one without that attribute): the write succeeds and the item is skipped;
* a vector attribute that is not a List of Numbers, has another dimension count than the
  index, or holds a number outside float32's finite range refuses the write
  (ValidationException); an attribute the write leaves as it was is not checked again (an
  item written before the index existed is skipped by the backfill instead);
* a search-schema attribute of another type than its AttributeDefinitions entry refuses the
  write as an index key of the wrong type does;
* removing the vector attribute, or the item, removes its entry.

Vectors are stored at float32. An entry's size (IndexSizeBytes) is the DynamoDB size of
the projected item without its vector, plus the vector attribute's name and 4 bytes per
dimension; VectorWriteRequestBytes of a write is the size of the entry it puts, or of the
one it removes ("Monitoring vector index capacity": it "scales with the size of the data
replicated to the index"; a write that changes no indexed attribute costs nothing).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from typing import Any

from dynemu import errors
from dynemu.engine import values
from dynemu.engine.schema import Item
from dynemu.engine.table import Mutation, Table, decode_stored
from dynemu.engine.vectors import spec as spec_
from dynemu.engine.vectors.spec import VectorIndexSpec
from dynemu.storage import keyspace
from dynemu.storage.base import WriteBatch, delete_range

F32_MAX = 3.4028234663852886e38
BACKFILL_STEP = 1000


def canonical(v: dict[str, Any] | None) -> Any:
    """A search-schema value as compared by ``=``: numbers by value."""
    if v is None or len(v) != 1:
        return None
    t, raw = next(iter(v.items()))
    if t == "N":
        try:
            return ("N", Decimal(raw))
        except InvalidOperation:
            return None
    return (t, raw) if t in ("S", "B") else None


@dataclass(slots=True)
class Entry:
    vector: bytes  # float32 bytes
    filters: dict[str, Any]
    item: Item  # the projected item (what a search returns)
    size: int


class VectorIndex:
    """A vector index of a loaded table: its spec, storage prefix and matrix."""

    __slots__ = ("spec", "prefix", "matrix", "item_count", "size_bytes", "cursor", "_projected", "_filters")

    def __init__(self, spec: VectorIndexSpec, table_id: int, key_names: tuple[str, ...]) -> None:
        from dynemu.engine.vectors.matrix import VectorMatrix  # numpy: only once a vector index exists

        self.spec = spec
        self.prefix = spec_.entry_prefix(table_id, spec.index_id)
        self._filters = spec.schema_names
        self.matrix = VectorMatrix(spec.dimensions, spec.distance, self._filters)
        self.item_count = 0
        self.size_bytes = 0
        self.cursor: bytes | None = None  # while backfilling: items above this key are not indexed yet
        keep = (*key_names, *self._filters)
        if spec.projection_type == "ALL":
            self._projected: frozenset[str] | None = None
        else:
            self._projected = frozenset((*keep, *spec.non_key))

    @property
    def name(self) -> str:
        return self.spec.name

    def vector_of(self, item: Item, strict: bool) -> bytes | None:
        """The float32 bytes of ``item``'s vector; None when it has none, or (not ``strict``)
        an invalid one; ``strict``: an invalid one refuses the write."""
        s = self.spec
        v = item.get(s.attribute)
        if v is None:
            return None
        elements = v.get("L") if len(v) == 1 else None
        if elements is None:
            if not strict:
                return None
            raise errors.validation(errors.msg_vector_invalid_type(s.attribute, s.name, next(iter(v), "?")))
        if len(elements) != s.dimensions:
            if not strict:
                return None
            raise errors.validation(errors.msg_vector_wrong_dimensions(s.attribute, s.name, len(elements), s.dimensions))
        from dynemu.engine.vectors.matrix import pack, parse

        numbers = parse(elements)
        if numbers is None:
            if not strict:
                return None
            i, e = next((i, e) for i, e in enumerate(elements) if finite_f32(e) is None)
            actual = next(iter(e), "?") if isinstance(e, dict) else "?"
            raise errors.validation(errors.msg_vector_invalid_element(s.attribute, s.name, i, actual))
        return pack(numbers)

    def entry_of(self, item: Item, strict: bool, old: Item | None = None) -> Entry | None:
        s = self.spec
        if strict and old is not None and old.get(s.attribute) == item.get(s.attribute):
            strict = False  # unchanged since it was accepted (or skipped)
        vector = self.vector_of(item, strict)
        filters: dict[str, Any] = {}
        for name, kind, type_ in s.search_schema:
            v = item.get(name)
            if v is None:
                if kind == "HASH":
                    return None
                continue
            actual = next(iter(v))
            if actual != type_:
                if strict or old is None or old.get(name) != v:
                    raise errors.validation(errors.msg_search_schema_type(name, type_, actual, s.name))
                return None
            filters[name] = canonical(v)
        if vector is None:
            return None
        if self._projected is None:
            projected = item
        else:
            projected = {k: v for k, v in item.items() if k in self._projected}
        rest = {k: v for k, v in projected.items() if k != s.attribute}
        size = values.item_size(rest) + len(s.attribute.encode("utf-8")) + 4 * s.dimensions
        return Entry(vector, filters, projected, size)

    def put(self, key: bytes, e: Entry) -> None:
        self.matrix.put(key, e.vector, e.filters)

    def clear(self) -> None:
        from dynemu.engine.vectors.matrix import VectorMatrix

        self.matrix = VectorMatrix(self.spec.dimensions, self.spec.distance, self._filters)
        self.item_count = self.size_bytes = 0


def finite_f32(e: Any) -> float | None:
    if not isinstance(e, dict) or len(e) != 1 or "N" not in e:
        return None
    try:
        x = float(e["N"])
    except (TypeError, ValueError):
        return None
    return x if math.isfinite(x) and abs(x) <= F32_MAX else None


@dataclass(slots=True)
class VectorWrite:
    """What one mutation does to one vector index."""

    index: VectorIndex
    key: bytes  # the item's hashed key (the entry key's suffix)
    new: Entry | None
    old_size: int  # the removed or replaced entry's size; 0 when there was none
    had: bool  # whether the item had an entry

    @property
    def request_bytes(self) -> int:
        """VectorWriteRequestBytes of this write."""
        return self.new.size if self.new is not None else self.old_size


class VectorMaintainer:
    """The write observer of a table with vector indexes."""

    __slots__ = ("table", "indexes", "by_name", "_batch", "_staged")

    def __init__(self, table: Table, specs: list[VectorIndexSpec]) -> None:
        self.table = table
        self.indexes: list[VectorIndex] = []
        self.by_name: dict[str, VectorIndex] = {}
        self._batch: WriteBatch | None = None
        self._staged: list[VectorWrite] = []
        for s in specs:
            self.add(s)

    def add(self, s: VectorIndexSpec) -> VectorIndex:
        vix = VectorIndex(s, self.table.spec.table_id, self.table.spec.key_names)
        self.indexes.append(vix)
        self.by_name[s.name] = vix
        return vix

    def remove(self, name: str) -> VectorIndex | None:
        vix = self.by_name.pop(name, None)
        if vix is not None:
            self.indexes.remove(vix)
            vix.cursor = None
        return vix

    def billed_size(self, item: Item, size: int) -> int:
        """``item``'s size as a write bills it: a valid vector of an index's attribute at 4
        bytes per dimension, not by its numbers' text (issue 36: a six-dimension vector is
        24 bytes, whatever numbers it holds; docs/vectors.md, "Capacity")."""
        seen: set[str] = set()
        for vix in self.indexes:
            s = vix.spec
            v = item.get(s.attribute)
            if v is None or s.attribute in seen:
                continue
            seen.add(s.attribute)
            if vix.vector_of(item, False) is not None:
                size += 4 * s.dimensions - values.value_size(v)
        return size

    def on_plan(self, m: Mutation) -> None:
        old_b = self.billed_size(m.old, m.old_size) if m.old_size else 0  # type: ignore[arg-type]
        new_b = self.billed_size(m.new, m.new_size) if m.new is not None else 0
        if (old_b, new_b) != (m.old_size, m.new_size):
            if m.derived is None:
                m.derived = {}
            m.derived["billed"] = (old_b, new_b)
        key = keyspace.hashed_part(m.key)
        writes: list[VectorWrite] = []
        for vix in self.indexes:
            if vix.cursor is not None and m.key > vix.cursor:
                continue  # not backfilled yet: the backfill indexes the item as it is then
            had = key in vix.matrix
            old = m.old if had or m.new is not None else None
            new = vix.entry_of(m.new, True, old) if m.new is not None else None
            if new is None and not had:
                continue
            old_entry = vix.entry_of(old, False) if had and old is not None else None
            if new is not None and old_entry is not None and new.vector == old_entry.vector \
                    and new.item == old_entry.item:
                continue  # nothing the index holds changed
            writes.append(VectorWrite(vix, key, new, old_entry.size if old_entry is not None else 0, had))
        if writes:
            if m.derived is None:
                m.derived = {}
            m.derived["vectors"] = writes

    def on_commit(self, m: Mutation, batch: WriteBatch, now: float) -> None:
        writes: list[VectorWrite] | None = (m.derived or {}).get("vectors")
        if not writes:
            return
        if self._batch is not batch:  # the batch's first: forget a refused batch's writes
            self._batch = batch
            self._staged = []
        for w in writes:
            ek = w.index.prefix + w.key
            if w.new is None:
                batch.delete(ek)
            else:
                batch.put(ek, spec_.encode_entry(w.new.size, w.new.vector, w.index.spec.dimensions, w.new.item))
            self._staged.append(w)

    def after_commit(self, batch: WriteBatch) -> None:
        if self._batch is not batch:
            return
        self._batch = None
        for w in self._staged:
            vix = w.index
            if w.new is None:
                vix.matrix.remove(w.key)
            else:
                vix.put(w.key, w.new)
            vix.item_count += (w.new is not None) - w.had
            vix.size_bytes += (w.new.size if w.new is not None else 0) - w.old_size
        self._staged = []


def writes_of(m: Mutation) -> list[VectorWrite]:
    return (m.derived or {}).get("vectors") or []


# --- storage: rebuild, backfill, drop -----------------------------------------------------------


def rebuild(table: Table, vix: VectorIndex) -> None:
    """Fill ``vix``'s matrix from its stored entries (a namespace opening)."""
    vix.clear()
    n = len(vix.prefix)
    for key, raw in table.store.iterate(vix.prefix, keyspace.prefix_end(vix.prefix)):
        size, _ = spec_.entry_header(raw)
        item = spec_.entry_item(raw)
        filters = {name: canonical(item.get(name)) for name in vix.spec.schema_names if name in item}
        vix.matrix.put(key[n:], spec_.entry_vector(raw), filters)
        vix.item_count += 1
        vix.size_bytes += size
    vix.matrix.trim()


def drop_entries(table: Table, vix: VectorIndex) -> None:
    delete_range(table.store, vix.prefix, keyspace.prefix_end(vix.prefix))
    vix.clear()


class Backfill:
    """Indexes a table's existing items into a new vector index, ``BACKFILL_STEP`` at a time;
    writes in between keep the part already backfilled up to date (``VectorIndex.cursor``).
    Items DynamoDB would refuse now (an invalid vector) are skipped."""

    __slots__ = ("table", "index", "_end")

    def __init__(self, table: Table, index: VectorIndex) -> None:
        self.table = table
        self.index = index
        start = keyspace.items_prefix(table.spec.table_id)
        self._end = keyspace.prefix_end(start)
        index.cursor = start

    def step(self, limit: int = BACKFILL_STEP) -> bool:
        vix = self.index
        if vix.cursor is None:
            return True
        batch = WriteBatch()
        staged: list[tuple[bytes, Entry]] = []
        last = None
        n = 0
        for key, raw in self.table.store.iterate(vix.cursor + b"\x00", self._end):
            last = key
            n += 1
            item = decode_stored(raw)[0]
            try:
                e = vix.entry_of(item, False)
            except errors.DynamoError:
                e = None
            if e is not None:
                hk = keyspace.hashed_part(key)
                batch.put(vix.prefix + hk, spec_.encode_entry(e.size, e.vector, vix.spec.dimensions, e.item))
                staged.append((hk, e))
            if n >= limit:
                break
        if len(batch):
            self.table.store.write(batch)
        for hk, e in staged:
            vix.put(hk, e)
            vix.item_count += 1
            vix.size_bytes += e.size
        if last is None or n < limit:
            vix.cursor = None
            vix.spec.status, vix.spec.backfilling = "ACTIVE", False
            return True
        vix.cursor = last
        return False
