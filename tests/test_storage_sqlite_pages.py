"""The SQLite store's page size and map (issue 29): a new database has pages of 8 KB, so an
item of 1-2 KB stays on its page instead of spilling into an overflow page; reads go through
a map of the file; a database made with SQLite's default 4 KB pages still opens and works."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from dynemu.storage import sqlite
from dynemu.storage.base import SQLITE_FILENAME, WriteBatch


def _fill(store: sqlite.SQLiteStore, rows: int, value: bytes) -> None:
    for first in range(0, rows, 100):
        batch = WriteBatch()
        for i in range(first, min(rows, first + 100)):
            batch.put(b"t/%08d" % (i * 7919 % rows), value)
        store.write(batch)


def _pragma(path: Path, name: str) -> int:
    with sqlite3.connect(path / SQLITE_FILENAME) as conn:
        return int(conn.execute(f"PRAGMA {name}").fetchone()[0])


def test_a_new_database_keeps_rows_of_a_kilobyte_on_their_pages(tmp_path: Path) -> None:
    store = sqlite.SQLiteStore(tmp_path)
    value = os.urandom(1500)
    _fill(store, 2000, value)
    assert store.get(b"t/%08d" % 1234) == value
    store.close()
    assert _pragma(tmp_path, "page_size") == sqlite.PAGE_SIZE == 8192
    # 2000 rows of 1.5 KB: about 3 MB on 8 KB pages; an overflow page per row took 2 pages of 4 KB each.
    pages = _pragma(tmp_path, "page_count")
    assert pages * 8192 < 2000 * 2300


def test_reads_go_through_a_map(tmp_path: Path) -> None:
    store = sqlite.SQLiteStore(tmp_path)
    _fill(store, 10, b"v")
    conn = store._main()
    options = {row[0] for row in conn.execute("PRAGMA compile_options")}
    if "MAX_MMAP_SIZE=0" not in options:
        assert int(conn.execute("PRAGMA mmap_size").fetchone()[0]) > 0
    snap = store.snapshot()  # a reader connection, which maps the file too
    assert snap.get(b"t/%08d" % 3) == b"v"
    snap.close()
    store.close()


def test_a_database_with_4_kb_pages_still_opens(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / SQLITE_FILENAME) as conn:  # as an earlier dynemu made it
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE TABLE kv (k BLOB PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID")
        conn.execute("INSERT INTO kv VALUES (?, ?)", (b"old", b"value"))
    assert _pragma(tmp_path, "page_size") == 4096
    store = sqlite.SQLiteStore(tmp_path)
    assert store.get(b"old") == b"value"
    _fill(store, 300, b"x" * 1500)
    assert store.get(b"t/%08d" % 299) == b"x" * 1500
    store.close()
    assert _pragma(tmp_path, "page_size") == 4096  # kept: a page size changes only on a new database
