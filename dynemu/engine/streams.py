"""DynamoDB Streams: a change log per table, shards that follow partitions, 24 h retention.

Rules implemented (developer guide "Change data capture for DynamoDB Streams" and the
DynamoDB Streams API reference; docs/rules.md, "Streams"):

* A stream is enabled with a view type (KEYS_ONLY, NEW_IMAGE, OLD_IMAGE,
  NEW_AND_OLD_IMAGES) that cannot change; every enable creates a new stream (new ARN and
  label, the label being the enable time); a disabled stream stays readable for 24 hours
  (also after DeleteTable) and ListStreams keeps listing it meanwhile.
* Each item change appears exactly once, in order per item; a write that changes nothing
  (a Put of an identical item) and a failed condition write nothing. Records are written by
  a ``WriteObserver`` into the same storage batch as the item, so a crash can neither lose
  nor invent one.
* One open shard per partition of the table (``table.capacity.state.pmap``). When the map
  changes (a split), the parent shard closes (EndingSequenceNumber) and children open with
  ParentShardId; it is noticed lazily, on the next record or DescribeStream. Sequence
  numbers are per table, so they increase within every shard.
* Records older than 24 hours of clock time are trimmed (``maintain``, and lazily on read).

Storage: records under ``keyspace.stream_key(table id, shard number, sequence)``, each an
8-byte creation time followed by a JSON array; the streams of one table id (current and
retained old ones) under ``m/s/<table id>``.
"""

from __future__ import annotations

import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from hashlib import blake2b
from typing import Any, NamedTuple

import orjson

from dynemu import errors
from dynemu.engine import values
from dynemu.engine.schema import Item
from dynemu.engine.table import Mutation, Table
from dynemu.storage import keyspace
from dynemu.storage.base import Store, WriteBatch

RETENTION_SECONDS = 24 * 3600.0
ITERATOR_LIFETIME = 15 * 60.0  # "A shard iterator expires 15 minutes after it is returned"
MAX_READ_BYTES = 1024 * 1024  # GetRecords: "a maximum of 1 MB of data or 1000 stream records"
MAX_READ_RECORDS = 1000
VIEW_TYPES = ("KEYS_ONLY", "NEW_IMAGE", "OLD_IMAGE", "NEW_AND_OLD_IMAGES")
_NEW_VIEWS = frozenset(("NEW_IMAGE", "NEW_AND_OLD_IMAGES"))
_OLD_VIEWS = frozenset(("OLD_IMAGE", "NEW_AND_OLD_IMAGES"))
EVENTS = ("INSERT", "MODIFY", "REMOVE")
SEQUENCE_BASE = 10**20  # wire sequence numbers have 21 to 40 digits (SequenceNumber shape)

# ``Mutation.derived`` key marking a change made by the service itself (TTL deletes): its
# record carries userIdentity {Type: Service, PrincipalId: dynamodb.amazonaws.com}.
SERVICE_CHANGE = "service"

_CHUNK = 10_000  # deletions per storage batch when trimming or purging
_TIME = struct.Struct(">d")

def meta_key(table_id: int) -> bytes:
    return keyspace.stream_meta_key(table_id)


def stream_not_found(arn: str) -> errors.DynamoError:
    return errors.resource_not_found(errors.msg_stream_not_found(arn))


def trimmed() -> errors.DynamoError:
    return errors.DynamoError("TrimmedDataAccessException", errors.MSG_TRIMMED)


def same_item(a: Item, b: Item) -> bool:
    """True when two images are equal by DynamoDB's rules (numbers by value, sets unordered)."""
    if a == b:
        return True
    if a.keys() != b.keys():
        return False
    return all(values.values_equal(v, b[k]) for k, v in a.items())


# --- the model -----------------------------------------------------------------------------------


@dataclass(slots=True)
class Shard:
    """One shard of a stream: the key range of the partition it follows and its records' sequence range."""

    num: int  # storage id (keyspace.stream_key)
    shard_id: str  # wire id, "shardId-<20 digits>-<8 hex>"
    parent_id: str | None
    start: bytes  # key-suffix range [start, end) of the partition it follows
    end: bytes | None
    first_seq: int
    last_seq: int | None = None  # set when closed
    closed_at: float | None = None
    trimmed: int = 0  # highest sequence number removed by retention
    written: int = 0  # highest sequence number written (memory; recomputed at load)

    @property
    def is_open(self) -> bool:
        return self.last_seq is None

    def to_row(self) -> list[Any]:
        return [self.num, self.shard_id, self.parent_id, self.start.hex(),
                None if self.end is None else self.end.hex(), self.first_seq, self.last_seq,
                self.closed_at, self.trimmed]  # fmt: skip

    @classmethod
    def from_row(cls, r: list[Any]) -> Shard:
        return cls(r[0], r[1], r[2], bytes.fromhex(r[3]), None if r[4] is None else bytes.fromhex(r[4]),
                   r[5], r[6], r[7], r[8])  # fmt: skip


@dataclass(slots=True)
class Stream:
    """One stream of a table: from its enable to 24 hours after its disable."""

    arn: str
    label: str
    view_type: str
    created: float
    disabled_at: float | None = None
    shards: list[Shard] = field(default_factory=list)

    @property
    def enabled(self) -> bool:
        return self.disabled_at is None

    @property
    def status(self) -> str:
        return "ENABLED" if self.disabled_at is None else "DISABLED"

    def shard(self, shard_id: str) -> Shard | None:
        for s in self.shards:
            if s.shard_id == shard_id:
                return s
        return None

    def shard_by_num(self, num: int) -> Shard | None:
        for s in self.shards:
            if s.num == num:
                return s
        return None


class Record(NamedTuple):
    """One stream record as read back: ``event`` is INSERT, MODIFY or REMOVE."""

    seq: int
    event: str
    created: float
    keys: Item
    new: Item | None
    old: Item | None
    size: int
    service: bool


class TableStreams:
    """The streams of one table id (the current one and retained old ones)."""

    def __init__(self, store: Store, table_id: int, name: str, arn: str, key_schema: list[list[str]]) -> None:
        self.store = store
        self.table_id = table_id
        self.table_name = name
        self.table_arn = arn
        self.key_schema = key_schema  # [[attribute name, HASH|RANGE], ...]
        self.region = arn.split(":")[3] if arn.count(":") >= 3 else ""
        self.streams: list[Stream] = []
        self.seq = 0  # last sequence number used
        self.next_shard = 1
        self.shard_clock = 0  # last number used in a shard id (unique, increasing)
        self.latest: tuple[str, str] | None = None  # LatestStreamArn and -Label
        self.deleted = False  # the table was deleted; kept until its streams expire
        self.table: Table | None = None
        self.throughput: Any = None  # a ThroughputState overriding the table's own (tests)
        self.active: Stream | None = None
        self.open: list[Shard] = []  # open shards of the active stream, by key range
        self._pmap: Any = None
        self._version = -1
        # The metadata changed in memory (shards followed a partition split) and is not yet
        # written: the next commit writes it in its batch (``StreamWriter``).
        self.unsaved = False

    # persistence ---------------------------------------------------------------------------

    def to_record(self) -> bytes:
        return orjson.dumps({
            "table": self.table_name, "arn": self.table_arn, "keys": self.key_schema, "seq": self.seq,
            "next": self.next_shard, "clock": self.shard_clock, "latest": self.latest, "deleted": self.deleted,
            "streams": [{"arn": s.arn, "label": s.label, "view": s.view_type, "created": s.created,
                         "disabled": s.disabled_at, "shards": [h.to_row() for h in s.shards]}
                        for s in self.streams],
        })  # fmt: skip

    @classmethod
    def from_record(cls, store: Store, table_id: int, raw: bytes) -> TableStreams:
        r = orjson.loads(raw)
        ts = cls(store, table_id, r["table"], r["arn"], r["keys"])
        ts.seq, ts.next_shard, ts.shard_clock, ts.deleted = r["seq"], r["next"], r["clock"], r["deleted"]
        ts.latest = tuple(r["latest"]) if r["latest"] else None  # type: ignore[assignment]
        for s in r["streams"]:
            shards = [Shard.from_row(h) for h in s["shards"]]
            ts.streams.append(Stream(s["arn"], s["label"], s["view"], s["created"], s["disabled"], shards))
        ts._index()
        # The sequence counter is not written with every record: recover it from the newest
        # record of each open shard (records and metadata share their write batches).
        for shard in ts.open:
            last = next(store.iterate(*_shard_range(table_id, shard.num), reverse=True), None)
            if last is not None:
                shard.written = keyspace.decode_stream_key(last[0])[2]
                ts.seq = max(ts.seq, shard.written)
        return ts

    def save(self, batch: WriteBatch | None = None) -> None:
        if batch is not None:
            batch.put(meta_key(self.table_id), self.to_record())
            return
        own = WriteBatch()
        own.put(meta_key(self.table_id), self.to_record())
        self.store.write(own)
        self.unsaved = False

    def _index(self) -> None:
        last = self.streams[-1] if self.streams else None
        self.active = last if last is not None and last.enabled else None
        self.open = sorted((s for s in self.active.shards if s.is_open), key=lambda s: s.start) if self.active else []
        self._pmap, self._version = None, -1

    # shards ------------------------------------------------------------------------------

    def _throughput(self) -> Any:
        if self.throughput is not None:
            return self.throughput
        table = self.table
        if table is None:
            return None
        tp = getattr(table, "throughput", None)
        if tp is None:
            cap = getattr(table, "capacity", None)
            tp = getattr(cap, "state", None)
        return tp

    def _partition_starts(self) -> list[bytes]:
        tp = self._throughput()
        return [b""] if tp is None else list(tp.pmap.starts)

    def shard_for(self, suffix: bytes, now: float) -> Shard:
        """The open shard of the partition holding item-key suffix ``suffix``, after
        following any change of the partition map (a change made before the commit asking:
        the shards' metadata is then ``unsaved``, for the commit's batch)."""
        tp = self._throughput()
        if tp is None:
            if len(self.open) != 1 or self.open[0].end is not None:
                self.unsaved |= self._reconcile([b""], now)
            return self.open[0]
        pmap = tp.pmap
        if pmap is not self._pmap or tp.version != self._version:
            self.unsaved |= self._reconcile(list(pmap.starts), now)
            self._pmap, self._version = pmap, tp.version
        return self.open[pmap.find(suffix)]

    def sync(self, now: float) -> None:
        """Follow the partition map now (DescribeStream): splits close shards and open children."""
        if self.active is not None and (self.table is not None or self.throughput is not None):
            tp = self._throughput()
            if self._reconcile(self._partition_starts(), now):
                self.save()
            if tp is not None:
                self._pmap, self._version = tp.pmap, tp.version

    def _reconcile(self, starts: list[bytes], now: float) -> bool:
        """Close the open shards whose ranges are gone and open children; True when the
        metadata changed (the caller saves it)."""
        ranges = [(s, starts[i + 1] if i + 1 < len(starts) else None) for i, s in enumerate(starts)]
        if [(s.start, s.end) for s in self.open] == ranges:
            return False
        stream = self.active
        assert stream is not None
        old = self.open
        keep = {(s.start, s.end): s for s in old}
        survivors = {r: keep.pop(r) for r in ranges if r in keep}
        for s in keep.values():
            self._close(s, now)
        new_open = []
        for start, end in ranges:
            s = survivors.get((start, end))
            if s is None:
                parent = next((p for p in old if p.start <= start and (p.end is None or start < p.end)), None)
                s = self._new_shard(stream, start, end, parent.shard_id if parent else None, now)
            new_open.append(s)
        self.open = new_open
        return True

    def _new_shard(self, stream: Stream, start: bytes, end: bytes | None, parent: str | None, now: float) -> Shard:
        num = self.next_shard
        self.next_shard += 1
        self.shard_clock = max(int(now * 1000), self.shard_clock + 1)
        tag = blake2b(f"{stream.arn}#{num}".encode(), digest_size=4).hexdigest()
        shard = Shard(num, f"shardId-{self.shard_clock:020d}-{tag}", parent, start, end, self.seq + 1)
        stream.shards.append(shard)
        return shard

    def _close(self, shard: Shard, now: float) -> None:
        if shard.written >= shard.first_seq:
            shard.last_seq = shard.written
        else:  # an empty shard: its range is its first number alone, never used elsewhere
            shard.last_seq = shard.first_seq
            self.seq = max(self.seq, shard.first_seq)
        shard.closed_at = now

    # enable / disable ----------------------------------------------------------------------

    def enable(self, view_type: str, now: float) -> Stream:
        label = _label(now)
        labels = {s.label for s in self.streams}
        while label in labels:  # two enables within one millisecond (a virtual clock)
            now += 0.001
            label = _label(now)
        stream = Stream(f"{self.table_arn}/stream/{label}", label, view_type, now)
        self.streams.append(stream)
        self.latest = (stream.arn, label)
        self.active, self.open = stream, []
        self._pmap, self._version = None, -1
        for start, end in _ranges(self._partition_starts()):
            self.open.append(self._new_shard(stream, start, end, None, now))
        self.save()
        return stream

    def disable(self, now: float) -> None:
        stream = self.active
        if stream is None:
            return
        for s in self.open:
            self._close(s, now)
        stream.disabled_at = now
        self.active, self.open = None, []
        self.save()

    # retention ----------------------------------------------------------------------------

    def trim(self, shard: Shard, now: float) -> None:
        """Delete the shard's records older than 24 hours (they are gone from then on)."""
        horizon = now - RETENTION_SECONDS
        batch = WriteBatch()
        for key, raw in self.store.iterate(*_shard_range(self.table_id, shard.num)):
            if _TIME.unpack_from(raw)[0] >= horizon:
                break
            batch.delete(key)
            shard.trimmed = keyspace.decode_stream_key(key)[2]
            if len(batch) >= _CHUNK:
                batch.put(meta_key(self.table_id), self.to_record())
                self.store.write(batch)
                batch = WriteBatch()
        if len(batch):
            batch.put(meta_key(self.table_id), self.to_record())
            self.store.write(batch)

    def maintain(self, now: float) -> bool:
        """Trim every shard, forget shards and streams past retention; False once nothing
        of this table id is left."""
        horizon = now - RETENTION_SECONDS
        changed = False
        for stream in list(self.streams):
            if stream.disabled_at is not None and stream.disabled_at <= horizon:
                for s in stream.shards:
                    self._purge(s)
                self.streams.remove(stream)
                changed = True
                continue
            for s in list(stream.shards):
                self.trim(s, now)
                if s.closed_at is not None and s.closed_at <= horizon:
                    self._purge(s)
                    stream.shards.remove(s)
                    changed = True
        if self.deleted and not self.streams:
            batch = WriteBatch()
            batch.delete(meta_key(self.table_id))
            self.store.write(batch)
            return False
        if changed:
            self.save()
        return True

    def _purge(self, shard: Shard) -> None:
        batch = WriteBatch()
        for key, _ in self.store.iterate(*_shard_range(self.table_id, shard.num)):
            batch.delete(key)
            if len(batch) >= _CHUNK:
                self.store.write(batch)
                batch = WriteBatch()
        if len(batch):
            self.store.write(batch)

    # reading -----------------------------------------------------------------------------

    def position(self, shard: Shard, kind: str, seq: int | None, now: float) -> int:
        """The first sequence number a new iterator of ``kind`` reads (GetShardIterator)."""
        self.trim(shard, now)
        if kind == "TRIM_HORIZON":
            return max(shard.first_seq, shard.trimmed + 1)
        if kind == "LATEST":
            return shard.last_seq + 1 if shard.last_seq is not None else self.seq + 1
        if kind == "AT_TIMESTAMP":
            raise ValueError("AT_TIMESTAMP: use position_at_time")
        assert seq is not None
        pos = seq if kind == "AT_SEQUENCE_NUMBER" else seq + 1
        if shard.trimmed and pos <= shard.trimmed:
            raise trimmed()
        return pos

    def position_at_time(self, shard: Shard, at: float, now: float) -> int:
        """AT_TIMESTAMP (API_streams_GetShardIterator, ``Timestamp``): the first record whose
        ApproximateCreationDateTime is at or after ``at``, the oldest untrimmed record when
        ``at`` is older than the trim horizon, else just after the shard's last record."""
        start = self.position(shard, "TRIM_HORIZON", None, now)
        at_ms = round(at * 1000)  # "Unix epoch date with precision in milliseconds"
        stop = _shard_range(self.table_id, shard.num)[1]
        for key, raw in self.store.iterate(keyspace.stream_key(self.table_id, shard.num, start), stop):
            rec = decode_record(keyspace.decode_stream_key(key)[2], raw)
            if int(rec.created * 1000) >= at_ms:
                return rec.seq
        return self.position(shard, "LATEST", None, now)

    def read(self, shard: Shard, pos: int, limit: int, now: float) -> tuple[list[Record], int | None]:
        """Records from sequence ``pos`` on (at most ``limit`` records or 1 MB) and the next
        position, None once a closed shard is exhausted."""
        self.trim(shard, now)
        if shard.trimmed and pos <= shard.trimmed:
            raise trimmed()
        out: list[Record] = []
        total = 0
        nxt = pos
        more = False  # stopped by the limit or the size, not by the end of the shard
        stop = _shard_range(self.table_id, shard.num)[1]
        for key, raw in self.store.iterate(keyspace.stream_key(self.table_id, shard.num, pos), stop):
            if more:
                break
            rec = decode_record(keyspace.decode_stream_key(key)[2], raw)
            out.append(rec)
            nxt = rec.seq + 1
            total += rec.size
            more = len(out) >= limit or total >= MAX_READ_BYTES
        else:
            more = False
        if shard.last_seq is not None and (not more or nxt > shard.last_seq):
            return out, None  # a closed shard read to its end
        return out, nxt


def _label(now: float) -> str:
    """A stream label: the enable time, ISO 8601 to the millisecond (e.g. 2015-05-20T20:51:10.252)."""
    return datetime.fromtimestamp(now, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3]


def _ranges(starts: list[bytes]) -> Iterator[tuple[bytes, bytes | None]]:
    for i, s in enumerate(starts):
        yield s, (starts[i + 1] if i + 1 < len(starts) else None)


def _shard_range(table_id: int, num: int) -> tuple[bytes, bytes]:
    prefix = keyspace.stream_prefix(table_id, num)
    return prefix, keyspace.prefix_end(prefix)


def encode_record(now: float, event: int, keys: Item, new: Item | None, old: Item | None, size: int,
                  service: bool) -> bytes:  # fmt: skip
    return _TIME.pack(now) + orjson.dumps((event, keys, new, old, size, 1 if service else 0))


def decode_record(seq: int, raw: bytes) -> Record:
    event, keys, new, old, size, service = orjson.loads(memoryview(raw)[8:])
    return Record(seq, EVENTS[event], _TIME.unpack_from(raw)[0], keys, new, old, size, bool(service))


# --- the write observer --------------------------------------------------------------------------


class StreamWriter:
    """Writes one record per changed item into the commit's storage batch; the sequence
    numbers it used become the stream's once the batch is written (``after_commit``)."""

    __slots__ = ("ts", "_batch", "_seq", "_staged")

    def __init__(self, ts: TableStreams) -> None:
        self.ts = ts
        self._batch: WriteBatch | None = None  # the batch being committed
        self._seq = 0  # the last sequence number it used
        self._staged: list[tuple[Shard, int]] = []  # (shard, sequence number) of its records

    def on_plan(self, m: Mutation) -> None:
        return None

    def on_commit(self, m: Mutation, batch: WriteBatch, now: float) -> None:
        ts = self.ts
        stream = ts.active
        if stream is None:
            return
        old, new = m.old, m.new
        if old is not None and new is not None and same_item(old, new):
            return  # "If a write does not change the item, no stream record is written"
        shard = ts.shard_for(keyspace.hashed_part(m.key), now)
        if self._batch is not batch:  # the batch's first record: forget a refused batch's numbers
            self._batch, self._seq = batch, ts.seq
            self._staged.clear()
        if ts.unsaved:
            ts.save(batch)
        self._seq += 1
        self._staged.append((shard, self._seq))
        keys = m.table.key_attributes(new if new is not None else old)  # type: ignore[arg-type]
        size = values.item_size(keys)
        view = stream.view_type
        new_image = old_image = None
        if new is not None and view in _NEW_VIEWS:
            new_image, size = new, size + m.new_size
        if old is not None and view in _OLD_VIEWS:
            old_image, size = old, size + m.old_size
        event = 0 if old is None else (2 if new is None else 1)
        service = bool(m.derived and m.derived.get(SERVICE_CHANGE))
        batch.put(keyspace.stream_key(ts.table_id, shard.num, self._seq),
                  encode_record(now, event, keys, new_image, old_image, size, service))  # fmt: skip

    def after_commit(self, batch: WriteBatch) -> None:
        """``batch`` was written: its records' numbers are used, its metadata saved."""
        if self._batch is not batch:
            return
        self._batch = None
        ts = self.ts
        ts.seq = self._seq
        ts.unsaved = False
        for shard, seq in self._staged:
            shard.written = seq
        self._staged.clear()


# --- the catalog of one database ---------------------------------------------------------------------


class StreamCatalog:
    """Every retained stream of one namespace, by table id."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.tables: dict[int, TableStreams] = {}
        start = keyspace.STREAM_META_PREFIX
        for key, raw in store.iterate(start, keyspace.prefix_end(start)):
            tid = keyspace.table_id_of_meta_key(key)
            self.tables[tid] = TableStreams.from_record(store, tid, raw)

    def for_table(self, table: Table) -> TableStreams:
        spec = table.spec
        ts = self.tables.get(spec.table_id)
        if ts is None:
            keys = [[name, kind] for name, kind, _ in spec.key_schema]
            ts = self.tables[spec.table_id] = TableStreams(self.store, spec.table_id, spec.name, spec.arn, keys)
        ts.table = table
        return ts

    def find(self, arn: str) -> tuple[TableStreams, Stream] | None:
        for ts in self.tables.values():
            for stream in ts.streams:
                if stream.arn == arn:
                    return ts, stream
        return None

    def streams(self, table_name: str | None = None) -> list[tuple[TableStreams, Stream]]:
        """Retained streams, by table name then creation; of one table name when given."""
        out = [(ts, s) for ts in self.tables.values() for s in ts.streams
               if table_name is None or ts.table_name == table_name]  # fmt: skip
        out.sort(key=lambda e: (e[0].table_name, e[1].label, e[1].arn))
        return out

    def maintain(self, now: float) -> None:
        for tid, ts in list(self.tables.items()):
            if not ts.maintain(now):
                del self.tables[tid]


def bind(cat: StreamCatalog, table: Table) -> None:
    """Give a loaded table that has a live stream its writer (``Namespace._attach``)."""
    ts = cat.tables.get(table.spec.table_id)
    if ts is not None and not ts.deleted:
        ts.table = table
        if table.stream is None:
            table.stream = StreamWriter(ts)


# --- what the control plane calls ------------------------------------------------------------------


def validate_spec(spec: dict[str, Any], *, creating: bool) -> tuple[bool, str | None]:
    """Check a StreamSpecification (CreateTable when ``creating``, else UpdateTable) and
    return ``(enabled, view_type)``. StreamEnabled itself is required by the request shape."""
    enabled = bool(spec.get("StreamEnabled"))
    view = spec.get("StreamViewType")
    if enabled and view is None:
        raise errors.validation(errors.MSG_STREAM_CREATE_NEEDS_TYPE if creating else errors.MSG_STREAM_ENABLED_NEEDS_TYPE)
    if not enabled and view is not None:
        raise errors.validation(errors.MSG_STREAM_CREATE_NO_TYPE if creating else errors.MSG_STREAM_DISABLED_NO_TYPE)
    return enabled, view


def attach(cat: StreamCatalog, table: Table, *, throughput: Any = None) -> TableStreams:
    """Give ``table`` its stream writer (idempotent); ``cat`` is its namespace's catalog
    (``Namespace.streams``); ``throughput`` overrides the table's own partition map (tests)."""
    ts = cat.for_table(table)
    if throughput is not None:
        ts.throughput = throughput
        ts._pmap, ts._version = None, -1
    if table.stream is None:
        table.stream = StreamWriter(ts)
    return ts


def enable(cat: StreamCatalog, table: Table, view_type: str, now: float) -> Stream:
    """Start a new stream (CreateTable / UpdateTable StreamEnabled=true)."""
    if view_type not in VIEW_TYPES:
        raise ValueError(f"unknown StreamViewType {view_type!r}")
    ts = attach(cat, table)
    if ts.active is not None:
        raise errors.validation(errors.msg_stream_already_enabled(table.name))
    return ts.enable(view_type, now)


def disable(cat: StreamCatalog, table: Table, now: float) -> None:
    """Disable the current stream (UpdateTable StreamEnabled=false); it stays readable 24 h."""
    ts = attach(cat, table)
    if ts.active is None:
        raise errors.validation(errors.msg_no_stream_to_disable(table.name))
    ts.disable(now)


def update(cat: StreamCatalog, table: Table, spec: dict[str, Any], now: float) -> None:
    """UpdateTable's StreamSpecification: validate, then enable or disable."""
    enabled, view = validate_spec(spec, creating=False)
    if enabled:
        enable(cat, table, view, now)  # type: ignore[arg-type]
    else:
        disable(cat, table, now)


def on_table_deleted(cat: StreamCatalog, table: Table, now: float) -> None:
    """DeleteTable: the stream goes DISABLED and is deleted 24 hours later."""
    ts = cat.tables.get(table.spec.table_id)
    if ts is None:
        return
    ts.disable(now)
    ts.deleted = True
    ts.table = None
    ts.save()


def of_table(table: Table) -> TableStreams | None:
    """The streams of ``table`` (through its writer, which ``enable`` and ``bind`` give
    every streamed table); None for a table never streamed."""
    writer: StreamWriter | None = table.stream
    return writer.ts if writer is not None else None
