"""A table: its spec, its statistics, and the read and write paths for its items.

Every mutation of an item (Put, Update, Delete, batch and transaction items, PartiQL and
TTL deletes) is planned here as a ``Mutation`` by the one ``Table.plan`` — read the old
image, check the condition, compute the new image, the 400 KB rule — for the write
executor (``engine.writes``), and committed by ``Namespace.commit`` in one storage write
batch together with the table's counters.
"""

from __future__ import annotations

import operator
import struct
from collections.abc import Callable
from typing import Any, Protocol

import orjson

from dynemu import errors
from dynemu.engine import values
from dynemu.engine.schema import MAX_HASH_KEY_BYTES, Item, TableSpec, key_of_item, key_of_request
from dynemu.storage import keyspace
from dynemu.storage.base import Store, WriteBatch

_SIZE = struct.Struct(">I")


def counts_key_of(table_id: int) -> bytes:
    """Where a table's item count and size are stored (``Namespace.commit`` keeps them)."""
    return keyspace.meta_counter_key(f"counts/{table_id}")


def encode_stored(item: Item, size: int) -> bytes:
    """A stored item: its DynamoDB size (4 bytes) then the item as JSON."""
    return _SIZE.pack(size) + orjson.dumps(item)


def decode_stored(raw: bytes) -> tuple[Item, int]:
    return orjson.loads(memoryview(raw)[4:]), _SIZE.unpack_from(raw)[0]


def stored_size(raw: bytes) -> int:
    return _SIZE.unpack_from(raw)[0]


Condition = Callable[[Item | None], bool]


class WriteObserver(Protocol):
    """Something derived from item changes that must be written in the same storage batch:
    index entries, stream records, TTL entries.

    ``Table.plan`` calls ``on_plan`` once the new image is known: it may refuse the write
    (raise DynamoError, e.g. an index key of the wrong type), and it may attach what it
    derives to ``m.derived[<its name>]`` for later stages (capacity, commit).
    ``Namespace.commit`` calls ``on_commit`` for every changed mutation, in request order,
    before the batch is written: it adds storage operations to ``batch`` and changes nothing
    in memory; what memory must learn from the write (counters, sequence numbers, partition
    sizes) it stages for ``batch``. Once ``batch`` is written, ``Namespace.commit`` calls
    ``after_commit(batch)`` of every observer of every table the batch changed, which applies
    what it staged for that batch (nothing, when it staged nothing for it). When the write
    raises (a full disk), ``after_commit`` is not called, and what was staged is dropped by
    the next batch: memory keeps agreeing with the store."""

    def on_plan(self, m: Mutation) -> None: ...

    def on_commit(self, m: Mutation, batch: WriteBatch, now: float) -> None: ...

    def after_commit(self, batch: WriteBatch) -> None: ...


class Mutation:
    """One planned item change; ``new`` is None for a delete. ``old`` is decoded from the
    stored bytes when first read (a PutItem without a condition or ALL_OLD never needs it;
    ``existed`` says whether there was one)."""

    __slots__ = ("table", "key", "_old", "_raw", "old_size", "new", "new_size", "derived", "existed")

    def __init__(
        self,
        table: Table,
        key: bytes,
        old: Item | None,
        old_size: int,
        new: Item | None,
        new_size: int,
        derived: dict[str, Any] | None = None,
        raw: bytes | None = None,
    ) -> None:
        self.table = table
        self.key = key
        self._old = old
        self._raw = raw  # the stored old image, not decoded yet
        self.old_size = old_size
        self.new = new
        self.new_size = new_size
        self.derived = derived  # what write observers computed at plan time
        self.existed = old is not None or raw is not None  # was there an item before

    @property
    def old(self) -> Item | None:
        if self._raw is not None:
            self._old, self._raw = decode_stored(self._raw)[0], None
        return self._old

    @property
    def changed(self) -> bool:
        return self.existed or self.new is not None


def _attachment(slot: str) -> Any:
    """A property of Table over ``slot``: read as the plain attribute (``attrgetter``, in C:
    every write reads them), set through ``Table._attached``, which rebuilds the observers."""

    def attach(table: Table, value: Any) -> None:
        setattr(table, slot, value)
        table._attached()

    return property(operator.attrgetter(slot), attach)


class Table:
    """A table and what is attached to it. The attachments are set up in one place,
    ``Namespace._attach`` (streams and TTL also when enabled later), and are the table's
    write observers in a fixed order: ``observers``."""

    __slots__ = ("spec", "store", "item_count", "size_bytes", "capacity", "_indexes", "_stream", "_ttl", "_recent",
                 "_history", "_vectors", "_id", "_prefix", "observers", "planners", "counts_key")

    def __init__(self, spec: TableSpec, store: Store, item_count: int = 0, size_bytes: int = 0) -> None:
        self.spec = spec
        self.store = store
        self.item_count = item_count
        self.size_bytes = size_bytes
        # TableCapacity (engine.capacity.admission): partitions, throughput. A plain attribute
        # (every request reads it); whoever sets it calls ``_attached`` (Namespace._attach).
        self.capacity: Any = None
        self._indexes: Any = None  # IndexMaintainer (engine.indexes): secondary indexes, item collections
        self._stream: Any = None  # StreamWriter (engine.streams), while the table has a stream
        self._ttl: Any = None  # TTLIndex (engine.ttl), once TTL was ever set on the table
        self._recent: Any = None  # RecentWrites (engine.consistency), when the stale-read model is on
        self._history: Any = None  # ChangeHistory (engine.pitr), while point-in-time recovery is on
        self._vectors: Any = None  # VectorMaintainer (engine.vectors), while the table has a vector index
        self._id = spec.table_id
        self._prefix = keyspace.items_prefix(spec.table_id)
        self.counts_key = counts_key_of(spec.table_id)  # its item count and size (Namespace.commit)
        # The write observers, in this order: partition sizes and splits, index entries,
        # stream records, TTL entries, the stale-read model's recent writes. Kept current by
        # the attachments' setters (every write reads them). ``observers`` see every commit;
        # ``planners`` are those whose ``on_plan`` does something (the index maintenance,
        # while the table has an index or its spec changed since the maintenance last
        # looked: ``IndexMaintainer.sync`` calls ``_attached`` again).
        self.observers: tuple[WriteObserver, ...] = ()
        self.planners: tuple[WriteObserver, ...] = ()

    def _attached(self) -> None:
        ix = self._indexes
        if ix is not None and not ix.indexes and ix.current_spec() is self.spec:
            ix = None  # no index: nothing to plan or commit (engine.indexes)
        vx = self._vectors
        self.observers = tuple(
            o for o in (self.capacity, ix, vx, self._stream, self._ttl, self._recent, self._history) if o is not None
        )
        self.planners = tuple(o for o in (ix, vx) if o is not None)

    # The attachments, each kept in its slot; setting one rebuilds ``observers`` (``_attachment``).
    indexes = _attachment("_indexes")
    stream = _attachment("_stream")
    ttl = _attachment("_ttl")
    recent = _attachment("_recent")
    history = _attachment("_history")
    vectors = _attachment("_vectors")

    @property
    def name(self) -> str:
        return self.spec.name

    # --- keys -------------------------------------------------------------------------------

    def key_for_request(self, key: Item) -> bytes:
        if len(key) == 1:
            k = self._plain_hash_key(key)
            if k is not None:
                return k
        pk, sk = key_of_request(self.spec, key)
        return keyspace.item_key_in(self._prefix, pk, sk)

    def key_for_item(self, item: Item) -> bytes:
        k = self._plain_hash_key(item)
        if k is not None:
            return k
        pk, sk = key_of_item(self.spec, item)
        return keyspace.item_key_in(self._prefix, pk, sk)

    def _plain_hash_key(self, item: Item) -> bytes | None:
        """The storage key of an item of a table without a sort key when its partition key
        passes every key rule of ``schema.key_of_item`` / ``key_of_request`` at a glance: a
        non-empty S of at most 512 characters (so at most 2048 UTF-8 bytes), or an N of at
        most 2048; None sends the item through those rules (their errors)."""
        spec = self.spec
        if spec.range_key is not None:
            return None
        h = spec.hash_key
        v = item.get(h.name)
        if type(v) is not dict or len(v) != 1:
            return None
        raw = v.get(h.type)
        if type(raw) is not str:
            return None
        if h.type == "S":
            return keyspace.item_key_s(self._prefix, raw) if 0 < len(raw) <= MAX_HASH_KEY_BYTES // 4 else None
        if h.type == "N" and len(raw) <= MAX_HASH_KEY_BYTES:
            return keyspace.item_key_in(self._prefix, v)
        return None

    def key_attributes(self, item: Item) -> Item:
        return {name: item[name] for name in self.spec.key_names if name in item}

    # --- reads ------------------------------------------------------------------------------

    def read(self, key: bytes) -> tuple[Item | None, int]:
        raw = self.store.get(key)
        if raw is None:
            return None, 0
        return decode_stored(raw)

    def read_stored(self, key: bytes) -> tuple[orjson.Fragment | None, int]:
        """``read`` without decoding: the item's stored JSON as an ``orjson.Fragment``, which
        an answer embeds as it is (an item returned whole is never parsed)."""
        raw = self.store.get(key)
        if raw is None:
            return None, 0
        return orjson.Fragment(raw[4:]), _SIZE.unpack_from(raw)[0]

    # --- the write path -----------------------------------------------------------------------

    def check(
        self, key: bytes, condition: Condition | None, *, return_item_on_failure: bool = False,
        before: Callable[[Item | None], None] | None = None,
    ) -> tuple[Item | None, int]:
        """The stored item at ``key`` and its size, once ``condition`` holds for it; else
        ConditionalCheckFailedException, carrying the item when asked
        (ReturnValuesOnConditionCheckFailure ALL_OLD) and it exists. The condition step of
        ``plan``, and all of a transaction's ConditionCheck. ``before`` sees the stored item
        ahead of the condition (UpdateItem's size charge, ``expressions.update_charge``)."""
        raw = self.store.get(key)
        old, old_size = decode_stored(raw) if raw is not None else (None, 0)
        if before is not None:
            before(old)
        if condition is not None and not condition(old):
            raise errors.conditional_check_failed(old if return_item_on_failure and old is not None else None)
        return old, old_size

    def plan(
        self,
        key: bytes,
        image: Item | None,
        update: Change | None = None,
        condition: Condition | None = None,
        *,
        return_item_on_failure: bool = False,
        size: int | None = None,
        before: Callable[[Item | None], None] | None = None,
        absent: bool = False,
    ) -> Mutation:
        """The one plan of an item write: read the old image, check ``condition``, compute
        the new image and its size, apply the 400 KB rule (``values.check_item_size``, to
        every new image), then let the planners derive index changes (they may refuse).

        Without ``update``, ``image`` is the new image whatever was stored (a Put; None: a
        Delete), so with no condition either the old image is only sized, and decoded if
        something asks for it (``Mutation.old``); ``size`` is ``image``'s size when
        ``values`` already measured it (``validate_item_sized``), else it is measured here.
        With ``update``, ``image`` is the key attributes and the new image is
        ``update.new_item(old, image)``, sized by ``update.resize``; ``before`` sees the
        stored item ahead of the condition (UpdateItem's size charge, checked before the
        finished item's: docs/rules.md, "Item size by surface"). Raises
        ConditionalCheckFailedException (with the old item when asked) or
        ValidationException. ``absent``: the caller proved that nothing is stored at ``key``
        (a Put without a condition: ``Write.fresh``), so the old image is not read."""
        if update is None and condition is None and before is None:
            raw = None if absent else self.store.get(key)
            old, old_size = None, _SIZE.unpack_from(raw)[0] if raw is not None else 0
        else:
            raw = None
            old, old_size = self.check(key, condition, return_item_on_failure=return_item_on_failure, before=before)
        if update is None:
            new = image
            if new is None:
                size = 0
            else:
                if size is None:
                    size = values.item_size(new)
                values.check_item_size(size)
        else:
            new = update.new_item(old, image)  # type: ignore[arg-type]
            size = 0 if new is None else update.resize(old, old_size, new)
            # the finished item too: UpdateItem's charge (``before``) is checked first, ahead of
            # the condition, but no item past 400 KB is ever stored (ServiceQuotas.html#limits-items)
            values.check_item_size(size, errors.MSG_UPDATE_SIZE)
        m = Mutation(self, key, old, old_size, new, size, raw=raw)
        for observer in self.planners:
            observer.on_plan(m)
        return m


class Change(Protocol):
    """How an update computes its new image from the old one (engine.expressions.Update,
    LegacyUpdate, ``KEEP_OR_CREATE``)."""

    def new_item(self, old: Item | None, key: Item) -> Item | None: ...

    def resize(self, old: Item | None, old_size: int, new: Item) -> int: ...


class _KeepOrCreate:
    """UpdateItem without an update: the item as it is, or, when there is none, a new item
    with only its key (the service creates it)."""

    __slots__ = ()

    def new_item(self, old: Item | None, key: Item) -> Item | None:
        return dict(old) if old is not None else dict(key)

    def resize(self, old: Item | None, old_size: int, new: Item) -> int:
        return old_size if old is not None else values.item_size(new)


KEEP_OR_CREATE = _KeepOrCreate()
