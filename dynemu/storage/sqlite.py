"""``SQLiteStore``: the persistent store where plyvel cannot be installed (standard library only).

One table of (key BLOB PRIMARY KEY, value BLOB) WITHOUT ROWID: SQLite compares BLOBs with
memcmp, shorter first on a common prefix, which is LevelDB's bytewise order. The database
runs in WAL mode, so readers on their own connections see a consistent snapshot while the
store is written: an iterator or a snapshot takes a reader connection from a small pool,
opens a read transaction on it, and gives it back when closed (or exhausted). Writes go
through the main connection, one transaction per batch; ``synchronous=NORMAL`` in WAL mode
survives a crash of the process, as LevelDB without sync does.

A full disk: a batch refused with SQLITE_FULL is rolled back whole (SQLite may already have
rolled it back itself) and raises ``errors.DiskFull``; nothing is sticky, so the next write
succeeds once there is room, and readers are not affected.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator

from dynemu.storage.base import SQLITE_FILENAME as FILENAME
from dynemu.storage.base import DiskFullEpisode, Snapshot, Store, WriteBatch, out_of_space

_POOL_SIZE = 4  # idle reader connections kept open
# The page size of a new database (SQLite's default is 4096). A row longer than about a
# quarter of a page spills into an overflow page of its own: at 4096 an item of 1 KB took two
# pages, 4 times its size on disk, and two page reads per get (bench/README.md, issue 29).
# At 8192 a row stays on its page up to about 2 KB.
PAGE_SIZE = 8192
# Reads through a map of the file instead of read() into SQLite's 2 MB page cache, which a
# large table misses on most random reads. The pages are file-backed (the page cache's);
# SQLite caps this at its compile-time limit (2 GB by default) and reads the rest as before.
MMAP_SIZE = 1 << 40


def _connect(path: str) -> sqlite3.Connection:
    # isolation_level=None: transactions are begun and ended here, explicitly.
    conn = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute(f"PRAGMA mmap_size={MMAP_SIZE}")
    return conn


def _range_sql(reverse: bool) -> str:
    return f"SELECT k, v FROM kv WHERE k >= ? AND k < ? ORDER BY k {'DESC' if reverse else 'ASC'}"


def _rows(cursor: sqlite3.Cursor, release: object) -> Iterator[tuple[bytes, bytes]]:
    try:
        while True:
            batch = cursor.fetchmany(256)
            if not batch:
                return
            yield from batch
    finally:
        cursor.close()
        if callable(release):
            release()


class SQLiteSnapshot(Snapshot):
    def __init__(self, store: SQLiteStore) -> None:
        self._store = store
        self._conn: sqlite3.Connection | None = store._reader()
        # The snapshot is taken by the first read of the transaction: do it now.
        self._conn.execute("SELECT 1 FROM kv LIMIT 1").fetchall()

    def _live(self) -> sqlite3.Connection:
        if self._conn is None:
            raise RuntimeError("snapshot is closed")
        return self._conn

    def get(self, key: bytes) -> bytes | None:
        row = self._live().execute("SELECT v FROM kv WHERE k = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def iterate(self, start: bytes, stop: bytes, *, reverse: bool = False) -> Iterator[tuple[bytes, bytes]]:
        if stop <= start:
            return iter(())
        return _rows(self._live().execute(_range_sql(reverse), (start, stop)), None)

    def close(self) -> None:
        if self._conn is not None:
            self._store._release(self._conn)
            self._conn = None


class SQLiteStore(Store):
    """A store in the directory ``path`` (created if missing), in the file ``dynemu.sqlite3``."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        os.makedirs(self.path, exist_ok=True)
        self._file = os.path.join(self.path, FILENAME)
        self._db: sqlite3.Connection | None = _connect(self._file)
        self._db.execute(f"PRAGMA page_size={PAGE_SIZE}")  # a new database only: before WAL, before a table
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS kv (k BLOB PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID")
        self._idle: list[sqlite3.Connection] = []
        self._full = DiskFullEpisode(self.path)

    def _main(self) -> sqlite3.Connection:
        if self._db is None:
            raise RuntimeError("store is closed")
        return self._db

    def _reader(self) -> sqlite3.Connection:
        self._main()
        conn = self._idle.pop() if self._idle else _connect(self._file)
        conn.execute("BEGIN")
        return conn

    def _release(self, conn: sqlite3.Connection) -> None:
        try:
            conn.execute("COMMIT")
        except sqlite3.Error:
            pass
        if self._db is not None and len(self._idle) < _POOL_SIZE:
            self._idle.append(conn)
        else:
            conn.close()

    def get(self, key: bytes) -> bytes | None:
        row = self._main().execute("SELECT v FROM kv WHERE k = ?", (key,)).fetchone()
        return None if row is None else row[0]

    def iterate(self, start: bytes, stop: bytes, *, reverse: bool = False) -> Iterator[tuple[bytes, bytes]]:
        """Reads the store as it is now, whatever is written while the iterator is open."""
        if stop <= start:
            return iter(())
        conn = self._reader()
        try:
            cursor = conn.execute(_range_sql(reverse), (start, stop))  # takes the snapshot
        except BaseException:
            self._release(conn)
            raise
        return _rows(cursor, lambda: self._release(conn))

    def write(self, batch: WriteBatch) -> None:
        final: dict[bytes, bytes | None] = {}
        for key, value in batch.ops:  # validate first: a batch applies entirely or not at all
            if type(key) is not bytes or (value is not None and type(value) is not bytes):
                raise TypeError("keys and values must be bytes")
            final[key] = value  # later operations on the same key win
        db = self._main()
        try:
            db.execute("BEGIN IMMEDIATE")
            db.executemany("DELETE FROM kv WHERE k = ?", [(k,) for k, v in final.items() if v is None])
            db.executemany(
                "INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)", [(k, v) for k, v in final.items() if v is not None]
            )
            db.execute("COMMIT")
        except BaseException as e:
            if db.in_transaction:  # SQLite rolls back by itself on some errors (SQLITE_FULL among them)
                db.execute("ROLLBACK")
            if isinstance(e, sqlite3.Error) and out_of_space(e):
                raise self._full.refused() from None
            raise
        if self._full.full:
            self._full.resumed()

    def snapshot(self) -> SQLiteSnapshot:
        self._main()
        return SQLiteSnapshot(self)

    def close(self) -> None:
        if self._db is None:
            return
        for conn in self._idle:
            conn.close()
        self._idle.clear()
        self._db.close()
        self._db = None

    @property
    def closed(self) -> bool:
        return self._db is None
