"""Items into a table from files: the one reader of ImportTable, ``dynemu import`` and
``--init`` (docs/import-export.md).

Every line is parsed by its format's codec, checked by the value rules PutItem applies
(``values.validate_item_sized``, the 400 KB rule, the table's key schema) and written through
the one write executor with the ``service`` policy: no capacity is consumed ("Importing data
... does not consume write capacity", S3DataImport.HowItWorks). A bad line is counted and
reported (``on_error``: file, line, field and why), never dropped silently and never the end
of the import ("ImportTable ... ErrorCount"; the service logs each to CloudWatch Logs). Two
lines with the same key: the later one wins.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import IO, Any

from dynemu import errors
from dynemu.engine import values
from dynemu.engine.exports import codecs, layout
from dynemu.engine.table import Table
from dynemu.engine.writes import Write

_CHUNK = 512  # writes per executor call (one storage batch)
MAX_LOGGED_ERRORS = 10_000  # UNSURE: the service logs at most this many errors per import


@dataclass
class Counts:
    """ImportSummary's counters (API_ImportTableDescription)."""

    processed: int = 0  # ProcessedItemCount: lines read
    imported: int = 0  # ImportedItemCount
    errors: int = 0  # ErrorCount
    size: int = 0  # ProcessedSizeBytes: bytes of the lines read (uncompressed)


@dataclass
class LineError:
    file: str
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}"
        return f"{where}: {self.field}: {self.message}" if self.field else f"{where}: {self.message}"


ErrorSink = Callable[[LineError], None]
Progress = Callable[[Counts], None]


@dataclass
class Source:
    """What to read: the files (by key), how to open one, their format and options."""

    keys: list[str]
    opener: Callable[[str], IO[bytes]]
    fmt: str = "DYNAMODB_JSON"
    compression: str | None = None  # None: guessed per file (the command line)
    delimiter: str = ","
    header: list[str] | None = None


def records(source: Source, key_types: dict[str, str], counts: Counts,
            on_error: ErrorSink) -> Iterator[tuple[str, int, codecs.Record]]:
    """(file, line, record) of every good line; bad ones go to ``on_error``."""
    parse = codecs.read_ion if source.fmt == "ION" else codecs.read_json
    for key in source.keys:
        with source.opener(key) as raw:
            lines = layout.open_lines(raw, source.compression, key)
            if source.fmt == "CSV":
                yield from _csv(key, lines, source, key_types, counts, on_error)
                continue
            for n, line in enumerate(lines, 1):
                if len(line) < 3 and not line.strip():  # a blank line (no copy of the others)
                    continue
                counts.processed += 1
                counts.size += len(line) + 1  # its newline (or the end of the file) counted too
                try:
                    yield key, n, parse(line)
                except codecs.RecordError as e:
                    counts.errors += 1
                    on_error(LineError(key, n, e.field, str(e)))


def _csv(key: str, lines: Iterator[bytes], source: Source, key_types: dict[str, str], counts: Counts,
         on_error: ErrorSink) -> Iterator[tuple[str, int, codecs.Record]]:
    text = (line.decode("utf-8") + "\n" for line in lines)  # a quoted cell may hold a newline
    for n, got in codecs.csv_items(text, source.delimiter, source.header, key_types):
        counts.processed += 1
        if isinstance(got, codecs.RecordError):
            counts.errors += 1
            on_error(LineError(key, n, got.field, str(got)))
        else:
            counts.size += sum(len(k) + len(next(iter(v.values()))) for k, v in (got[0] or {}).items())
            yield key, n, got


def load(db: Any, table: Table, source: Source, counts: Counts, on_error: ErrorSink,
         progress: Progress | None = None) -> None:
    """Write every good record of ``source`` into ``table`` (puts, and an incremental export's
    deletes); ``counts`` follows, and ``progress`` sees it after every chunk."""
    for _ in steps(db, table, source, counts, on_error):
        if progress is not None:
            progress(counts)
    if progress is not None:
        progress(counts)


def steps(db: Any, table: Table, source: Source, counts: Counts, on_error: ErrorSink) -> Iterator[None]:
    """``load`` a chunk (one executor call) per ``next``: ImportTable runs these steps on the
    server's event loop, which answers other requests between two of them.

    The bulk load's policy of the one write executor: ``service`` writes (no capacity, as on
    DynamoDB), many items per storage batch, and, into a table that was empty when the load
    began (every caller creates it: ImportTable, ``dynemu import``, ``--init``), no old-image
    read for a key the load has not put before (``Write.fresh``; ``_Seen`` tells). A key
    repeated within a chunk first writes the chunk, so that the later line's plan reads the
    earlier one's item: it wins, and the counters and the GSI entries follow."""
    key_types = {a.name: a.type for a in table.spec.attribute_definitions if a.name in table.spec.key_names}
    seen = _Seen() if table.item_count == 0 else None
    pending: list[tuple[Write, str, int]] = []
    keys: set[bytes] = set()  # of the pending writes
    for key, n, (item, record_keys) in records(source, key_types, counts, on_error):
        try:
            w = _write(table, item, record_keys)
        except errors.DynamoError as e:
            counts.errors += 1
            on_error(LineError(key, n, _field(e.message, table), e.message))
            continue
        if w.key in keys:
            _flush(db, pending, counts, on_error, table, seen)
            pending = []
            keys.clear()
        pending.append((w, key, n))
        keys.add(w.key)
        if len(pending) >= _CHUNK:
            _flush(db, pending, counts, on_error, table, seen)
            pending = []
            keys.clear()
            yield
    if pending:
        _flush(db, pending, counts, on_error, table, seen)


_EXACT = 16_384  # keys kept as they are (a small load allocates no filter, nor imports numpy)
_SEEN_BITS = 1 << 26  # then 8 MB: at 1 M keys, 1 in 1,000 puts reads an old image it need not read
_SEEN_MASK = _SEEN_BITS - 1


class _Seen:
    """The keys a load has put: the first ``_EXACT`` as a set, then as a Bloom filter of a
    fixed size (memory stays flat whatever the number of items), tested and set a chunk at a
    time with numpy. ``first(keys)`` tells of each key whether it was surely not put before
    (then its plan may skip the old image); a false "maybe" only costs that read."""

    __slots__ = ("keys", "bits", "masks")

    def __init__(self) -> None:
        self.keys: set[bytes] | None = set()
        self.bits: Any = None  # numpy uint8 array of _SEEN_BITS bits
        self.masks: Any = None  # numpy uint8 array: 1 << n for n in 0..7

    def first(self, keys: list[bytes]) -> list[bool]:
        """Of distinct ``keys`` (one chunk's), whether each is surely new; all are put now."""
        known = self.keys
        if known is None:
            return self._filter(keys)
        new = [k not in known for k in keys]
        known.update(keys)
        if len(known) >= _EXACT:
            import numpy  # only for a load this large

            self.keys, self.bits = None, numpy.zeros(_SEEN_BITS >> 3, dtype=numpy.uint8)
            self.masks = numpy.array([1 << n for n in range(8)], dtype=numpy.uint8)
            self._filter(list(known))
        return new

    def _filter(self, keys: list[bytes]) -> list[bool]:
        """Two bits of each key's hash: tested (against the earlier chunks), then set."""
        import numpy

        h = numpy.fromiter(map(hash, keys), dtype=numpy.int64, count=len(keys)).view(numpy.uint64)
        bits, masks = self.bits, self.masks
        a, b = h & _SEEN_MASK, (h >> 32) & _SEEN_MASK
        ia, ma, ib, mb = a >> 3, masks[a & 7], b >> 3, masks[b & 7]
        new = ((bits[ia] & ma) == 0) | ((bits[ib] & mb) == 0)
        numpy.bitwise_or.at(bits, ia, ma)
        numpy.bitwise_or.at(bits, ib, mb)
        return new.tolist()  # type: ignore[no-any-return]


def _write(table: Table, item: dict[str, Any] | None, keys: dict[str, Any] | None) -> Write:
    if item is None:
        assert keys is not None
        return Write.delete(table, values.validate_item(keys))
    checked, size = values.validate_item_sized(item)
    values.check_item_size(size)
    return Write.put(table, checked, size=size)


def _field(message: str, table: Table) -> str:
    """The attribute a message names, when it names one of the table's keys."""
    for name in table.spec.key_names:
        if name in message:
            return name
    return "Item"


def _flush(db: Any, pending: list[tuple[Write, str, int]], counts: Counts, on_error: ErrorSink,
           table: Table, seen: _Seen | None) -> None:
    """One executor call, one storage batch (its keys distinct). A write its plan refuses (an
    index key of the wrong type) is left out by the ``service`` policy (``WriteResult.failed``):
    it is counted and reported with the error its plan raises. Any other error (the store's)
    stops the load."""
    if seen is not None:
        puts = [w for w, _, _ in pending if w.kind == "Put"]
        for w, new in zip(puts, seen.first([w.key for w in puts]), strict=True):
            w.fresh = new
    result = db.execute([w for w, _, _ in pending], on_throttle="service")
    counts.imported += sum(1 for w in result.done if w.kind == "Put")
    if not result.failed:
        return
    failed = {id(w) for w in result.failed}
    for w, key, n in pending:
        if id(w) in failed:
            counts.errors += 1
            try:
                w.plan()  # again, for its error (the policy keeps none)
                message = "refused by the write executor"  # a refusal without an error: none today
            except errors.DynamoError as e:
                message = e.message
            on_error(LineError(key, n, _field(message, table), message))
