"""storage/lazy.py: a namespace's store exists only once something is written to it."""

from __future__ import annotations

import os
from pathlib import Path

from dynemu.storage.base import WriteBatch
from dynemu.storage.lazy import LazyStore
from dynemu.storage.select import open_store


def _lazy(path: Path, opened: list[str]) -> LazyStore:
    def opener() -> object:
        opened.append(str(path))
        return open_store("sqlite", str(path))

    return LazyStore(opener)  # type: ignore[arg-type]


def test_reads_create_nothing_and_answer_empty(tmp_path: Path) -> None:
    opened: list[str] = []
    store = _lazy(tmp_path / "ns", opened)
    assert store.get(b"k") is None
    assert list(store.iterate(b"", b"\xff")) == []
    assert list(store.read_values(b"", b"\xff", limit=3)) == []
    snap = store.snapshot()
    assert snap.get(b"k") is None
    snap.close()
    assert not store.opened and opened == []
    assert not os.path.exists(tmp_path / "ns")
    store.close()
    assert store.closed and opened == []


def test_the_first_write_creates_the_store_and_it_serves_from_then_on(tmp_path: Path) -> None:
    opened: list[str] = []
    store = _lazy(tmp_path / "ns", opened)
    batch = WriteBatch()
    batch.put(b"a", b"1")
    batch.put(b"b", b"2")
    store.write(batch)
    assert store.opened and opened == [str(tmp_path / "ns")]
    assert os.path.exists(tmp_path / "ns")
    assert store.get(b"a") == b"1"
    assert list(store.iterate(b"", b"\xff", reverse=True)) == [(b"b", b"2"), (b"a", b"1")]
    again = WriteBatch()
    again.delete(b"a")
    store.write(again)  # the same store: opened once
    assert opened == [str(tmp_path / "ns")]
    assert store.get(b"a") is None
    store.close()
    reopened = open_store("sqlite", str(tmp_path / "ns"))
    try:
        assert reopened.get(b"b") == b"2"  # what was written is on disk
    finally:
        reopened.close()
