"""``LevelDBStore``: the default, persistent store, over plyvel.

LevelDB's default bytewise comparator is kept: a Python comparator would be slow and
aborts the process if it raises. Iterators read LevelDB's implicit snapshot, so writes
made while one is open are not seen by it, as the interface requires.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from itertools import islice
from typing import Any

import plyvel

from dynemu.storage.base import Snapshot, Store, WriteBatch

# Table files held open (and mapped); LevelDB's max_open_files is this plus the 10 files it
# keeps for itself, and it raises anything below 64 + 10 to that.
OPEN_FILES = 64
# The size LevelDB writes table files up to (its default is 2 MB): with OPEN_FILES, what can
# stay mapped is at most OPEN_FILES x MAX_FILE_SIZE (32 MB).
MAX_FILE_SIZE = 512 * 1024


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
        # LevelDB maps each table file it keeps open (up to ~1000 by default, 2 MB each), and
        # the pages a read or a compaction touched stay in RSS while the file is open: RSS
        # then grows with the data on disk. ``open_files`` (--leveldb-open-files) and the
        # file size bound it.
        options.setdefault("max_open_files", open_files + 10)
        options.setdefault("max_file_size", MAX_FILE_SIZE)
        self.path = os.fspath(path)
        self._sync = sync
        self._db = plyvel.DB(self.path, create_if_missing=True, **options)

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
        wb = self._db.write_batch(sync=self._sync)
        for key, value in batch.ops:
            if value is None:
                wb.delete(key)
            else:
                wb.put(key, value)
        wb.write()  # one LevelDB batch: applied atomically

    def snapshot(self) -> LevelDBSnapshot:
        return LevelDBSnapshot(self._db.snapshot())

    def close(self) -> None:
        if not self._db.closed:
            self._db.close()

    @property
    def closed(self) -> bool:
        return bool(self._db.closed)
