"""``LevelDBStore``: the default, persistent store, over plyvel.

LevelDB's default bytewise comparator is kept: a Python comparator would be slow and
aborts the process if it raises. Iterators read LevelDB's implicit snapshot, so writes
made while one is open are not seen by it, as the interface requires.

A full disk. A write that fails for lack of space may leave a torn record at the end of
LevelDB's log, and LevelDB goes on appending after it: a later write is acknowledged, but the
next open stops reading the log at the torn record and loses it (tried on a full tmpfs). A
failed flush of the memory table also makes every later write fail (LevelDB's background
error is sticky). So after such a failure this store writes nothing more through that handle:
the next write first checks that the disk has room to replay the log, then closes the plyvel
DB and opens it again (the replay keeps everything up to the torn record, which was never
acknowledged), all inside this object, so the namespace's ``store`` stays valid for every
user. Until there is room, writes raise ``errors.DiskFull`` and reads go on through the open
handle. Reopening closes the iterators and snapshots open on the old handle.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any

import plyvel

from dynemu.storage.base import DiskFullEpisode, Snapshot, Store, WriteBatch, out_of_space
from dynemu.storage.compaction import Compactor, decode_owed, encode_owed

# How many table files LevelDB's table cache holds (--leveldb-open-files). A table out of the
# cache is opened again by the next read that needs it (its index and filter blocks read
# again): with fewer entries than table files, every random read and every write (a write
# reads the old image) paid that, and the cost of a request grew with the table (issue 29,
# bench/README.md). So by default every table file stays cached: LevelDB's ceiling is 50,000
# (10 of them its own), 200 GB of MAX_FILE_SIZE tables. File handles stay bounded all the
# same: LevelDB maps its first 1000 tables and closes their handles (the mapped pages are
# file-backed, the page cache's to drop, not the server's memory), and of the tables it reads
# with pread it keeps at most a fifth of RLIMIT_NOFILE open, reopening the others per read.
OPEN_FILES = 50_000 - 10
# The size LevelDB writes table files up to (its default is 2 MB). Larger tables put more of
# a large store under LevelDB's 1000 maps; a table read with pread keeps its index and
# filter blocks on the heap instead (about 1 % of its size).
MAX_FILE_SIZE = 4 * 1024 * 1024
# No block compression. Snappy ran on every block each compaction rewrote (a third of the
# server's CPU while loading 1 KB items, even where its output was thrown away as not
# smaller), so the cost of a write grew with the levels a table has; and a compressed block
# is copied out of the map and decompressed by every read it misses LevelDB's 8 MB block
# cache, i.e. most random reads of a large table. Uncompressed blocks are read in place.
# Stores written with compression stay readable (each block records its own).
COMPRESSION = None
# A key range no dynemu key falls in (keys start with a keyspace prefix, never 0xff...).
_NO_KEY = b"\xff" * 32
# What the background compaction still owes when the store closes (storage/compaction.py), in
# a file of the store's directory beside LevelDB's own (which LevelDB leaves alone), not a key:
# the store's keys are the namespace's. Lost, it costs only the compaction.
OWED_FILE = "dynemu-compaction-owed"
# Room a reopen needs besides the log it replays into a table file (a new MANIFEST, a new log).
REOPEN_MARGIN = 1024 * 1024


class LevelDBSnapshot(Snapshot):
    def __init__(self, snap: Any) -> None:
        self._snap = snap

    def get(self, key: bytes) -> bytes | None:
        return self._snap.get(key)

    def iterate(self, start: bytes, stop: bytes, *, reverse: bool = False) -> Iterator[tuple[bytes, bytes]]:
        if stop <= start:
            return iter(())
        return self._snap.iterator(start=start, stop=stop, reverse=reverse)

    def close(self) -> None:
        self._snap.close()


class LevelDBStore(Store):
    """A store in the LevelDB directory ``path`` (created if missing).

    ``sync=True`` makes every write batch wait for fsync (survives an OS crash); the
    default survives a crash of the process, which is what a local server needs.
    """

    def __init__(
        self, path: str | os.PathLike[str], *, sync: bool = False, open_files: int = OPEN_FILES, **options: Any
    ) -> None:
        options.setdefault("bloom_filter_bits", 10)
        options.setdefault("compression", COMPRESSION)
        # ``open_files`` (--leveldb-open-files) bounds the table cache (see OPEN_FILES); a
        # smaller one bounds file handles and maps, and costs a reopen per cache miss.
        options.setdefault("max_open_files", open_files + 10)
        options.setdefault("max_file_size", MAX_FILE_SIZE)
        self.path = os.fspath(path)
        self._sync = sync
        self._options = options
        self._db: Any = plyvel.DB(self.path, create_if_missing=True, **options)
        self._closed = False
        self._refused = False  # a write failed for lack of space: reopen before the next one
        self._full = DiskFullEpisode(self.path)
        # Bytes of keys and values written, and the thread that compacts the store once a
        # burst of them ends (storage/compaction.py); ``_handle`` is held while it compacts,
        # so the DB is never closed under it.
        self.written = 0
        self.writing = False
        self._handle = threading.Lock()
        self.compactor = Compactor(self, decode_owed(self._read_owed()))  # what the last close left

    def get(self, key: bytes) -> bytes | None:
        return self._db.get(key)

    def iterate(self, start: bytes, stop: bytes, *, reverse: bool = False) -> Iterator[tuple[bytes, bytes]]:
        if stop <= start:
            return iter(())
        return self._db.iterator(start=start, stop=stop, reverse=reverse)

    def read_values(self, start: bytes, stop: bytes, *, reverse: bool = False,
                    limit: int | None = None) -> Iterable[bytes]:
        if stop <= start:
            return [] if limit is not None else ()
        values = self._db.iterator(start=start, stop=stop, reverse=reverse, include_key=False)
        if limit is None:
            return values  # type: ignore[no-any-return]
        with values:
            return list(islice(values, limit))

    def write(self, batch: WriteBatch) -> None:
        if self._refused:
            self._reopen()
        wb = self._db.write_batch(sync=self._sync)
        size = 0
        for key, value in batch.ops:
            if value is None:
                wb.delete(key)
                size += len(key)
            else:
                wb.put(key, value)
                size += len(key) + len(value)
        self.writing = True  # a write LevelDB stalls is no end of a burst
        try:
            wb.write()  # one LevelDB batch: applied atomically
        except plyvel.IOError as e:
            if not out_of_space(e):
                raise
            self._refused = True
            raise self._full.refused() from None
        finally:
            self.writing = False
        self.written += size
        if self._full.full:
            self._full.resumed()

    # --- the background compaction (storage/compaction.py) ---------------------------------

    def _compactable(self) -> bool:
        """Not closed, and no failed write to recover from (see the module's docstring)."""
        return not (self._closed or self._refused or self._full.full or isinstance(self._db, _Reopening))

    def tree(self) -> tuple[bytes | None, bytes | None, bytes] | None:
        """The first and last keys (None when empty) and LevelDB's listing of its tables;
        None when the store cannot be compacted now."""
        with self._handle:
            if not self._compactable():
                return None
            with self._db.iterator(include_value=False) as it:
                first = next(it, None)
            with self._db.iterator(reverse=True, include_value=False) as it:
                last = next(it, None)
            return first, last, self._db.get_property(b"leveldb.sstables") or b""

    def tables_per_level(self) -> list[int]:
        """How many table files each of LevelDB's 7 levels holds ([] when the store cannot be
        compacted now)."""
        with self._handle:
            if not self._compactable():
                return []
            prop = self._db.get_property
            return [int(prop(b"leveldb.num-files-at-level%d" % n) or 0) for n in range(7)]

    def compact_slice(self, start: bytes, stop: bytes) -> bool:
        """Compact the keys ``start..stop`` (both included) on the calling thread, the GIL
        released: False when the store cannot be compacted now."""
        with self._handle:
            if not self._compactable():
                return False
            self._db.compact_range(start=start, stop=stop)
            return True

    # --- a full disk ----------------------------------------------------------------------

    def _room_to_reopen(self) -> bool:
        """Whether the disk has room for what opening the store writes: a table file of the
        logs it replays, a new MANIFEST and a new log."""
        needed = REOPEN_MARGIN
        with os.scandir(self.path) as entries:
            for entry in entries:
                if entry.name.endswith(".log") or entry.name.startswith("MANIFEST-"):
                    needed += entry.stat().st_size
        return shutil.disk_usage(self.path).free >= needed

    def _reopen(self) -> None:
        """Close the plyvel DB and open it again (see the module's docstring), or raise
        DiskFull while the disk has no room for it."""
        if not self._room_to_reopen():
            raise self._full.refused()
        with self._handle:  # not under a compaction
            self._db.close()
            self._db = _Reopening(self)  # until the open succeeds: each use tries it again
        self._revive()

    def _revive(self) -> Any:
        """Open the plyvel DB again (a reopen, or a use after a reopen that failed): the DB, or
        DiskFull while the disk has no room for the open."""
        try:
            db = plyvel.DB(self.path, create_if_missing=True, **self._options)
        except plyvel.IOError as e:
            if not out_of_space(e):
                raise
            raise self._full.refused() from None
        self._db = db
        self._refused = False
        return db

    def snapshot(self) -> LevelDBSnapshot:
        return LevelDBSnapshot(self._db.snapshot())

    def close(self) -> None:
        """Stop the compaction (waiting for the slice under way), save what it still owes
        (for the next open's), write the memory table out and close. The memory table is
        otherwise rebuilt from the log by the next open, which writes it out then (tens of ms
        for a few MB)."""
        self._closed = True
        self.compactor.close()  # waits for the slice it compacts, if any
        db = self._db
        if not isinstance(db, _Reopening) and not db.closed:
            if not (self._refused or self._full.full):
                self._save_owed()
                try:  # LevelDB's CompactRange writes the memory table out first, whatever the range
                    db.compact_range(start=_NO_KEY, stop=_NO_KEY)
                except plyvel.Error:
                    pass  # the next open replays the log, as it would have
            db.close()

    def _read_owed(self) -> bytes | None:
        try:
            with open(os.path.join(self.path, OWED_FILE), "rb") as f:
                return f.read()
        except OSError:
            return None

    def _save_owed(self) -> None:
        """Write what the compactor (stopped) owes for the next open's, or remove an old record."""
        path = os.path.join(self.path, OWED_FILE)
        owed = self.compactor.owed()
        try:
            if owed != (0, None):
                with open(path, "wb") as f:
                    f.write(encode_owed(owed))
            elif os.path.exists(path):
                os.remove(path)
        except OSError:
            pass  # the next open does not compact until its own writes call for it

    @property
    def closed(self) -> bool:
        return self._closed

    @property
    def busy(self) -> bool:
        return self.compactor.busy


class _Reopening:
    """Stands for the plyvel DB of a store between closing it and opening it again: each use
    tries the open (``LevelDBStore._revive``), and raises DiskFull until it succeeds."""

    closed = False

    def __init__(self, store: LevelDBStore) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store._revive(), name)

    def close(self) -> None:
        pass

