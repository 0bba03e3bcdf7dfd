"""The storage contract (dynemu/storage/base.py), run against every backend."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dynemu.storage.base import Store, WriteBatch
from dynemu.storage.memory import MemoryStore
from dynemu.storage.sqlite import SQLiteStore


@pytest.fixture(params=["memory", "leveldb", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    s: Store
    if request.param == "memory":
        s = MemoryStore()
    elif request.param == "sqlite":
        s = SQLiteStore(tmp_path / "db")
    else:
        s = _leveldb(tmp_path / "db")
    yield s
    s.close()


def _leveldb(path: Path) -> Store:
    pytest.importorskip("plyvel")  # optional off Linux x86-64
    from dynemu.storage.leveldb import LevelDBStore

    return LevelDBStore(path)


def put(store: Store, *pairs: tuple[bytes, bytes]) -> None:
    batch = WriteBatch()
    for k, v in pairs:
        batch.put(k, v)
    store.write(batch)


def delete(store: Store, *keys: bytes) -> None:
    batch = WriteBatch()
    for k in keys:
        batch.delete(k)
    store.write(batch)


def keys(it: Iterator[tuple[bytes, bytes]]) -> list[bytes]:
    return [k for k, _ in it]


def test_get_put_delete(store: Store) -> None:
    assert store.get(b"a") is None
    put(store, (b"a", b"1"))
    assert store.get(b"a") == b"1"
    put(store, (b"a", b"2"))
    assert store.get(b"a") == b"2"
    put(store, (b"e", b""))
    assert store.get(b"e") == b""
    delete(store, b"a", b"missing")
    assert store.get(b"a") is None
    assert keys(store.iterate(b"", b"\xff")) == [b"e"]


def test_batch_applies_in_order_later_wins(store: Store) -> None:
    batch = WriteBatch()
    batch.put(b"k", b"1")
    batch.delete(b"k")
    batch.put(b"j", b"1")
    batch.put(b"j", b"2")
    batch.put(b"d", b"x")
    batch.delete(b"d")
    batch.put(b"d", b"y")
    assert len(batch) == 7
    store.write(batch)
    assert list(store.iterate(b"", b"\xff")) == [(b"d", b"y"), (b"j", b"2")]


def test_batch_is_atomic(store: Store) -> None:
    put(store, (b"a", b"old"))
    batch = WriteBatch()
    batch.put(b"a", b"new")
    batch.put(b"b", b"new")
    batch.ops.append((b"c", "not bytes"))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        store.write(batch)
    assert store.get(b"a") == b"old"
    assert store.get(b"b") is None


def test_byte_order(store: Store) -> None:
    ks = [
        b"\x00",
        b"\x00\x00",
        b"\x01",
        b"a",
        b"a\x00",
        b"a\xff",
        b"ab",
        b"b",
        b"\x7f",
        b"\x80",
        b"\xff",
        b"\xff\xff",
    ]
    put(store, *[(k, k) for k in reversed(ks)])
    assert keys(store.iterate(b"", b"\xff\xff\xff")) == sorted(ks)
    assert keys(store.iterate(b"", b"\xff\xff\xff", reverse=True)) == sorted(ks, reverse=True)


@pytest.mark.parametrize("reverse", [False, True])
def test_range_bounds(store: Store, reverse: bool) -> None:
    put(store, *[(bytes([c]), bytes([c])) for c in b"abcdef"])
    expect = [b"b", b"c", b"d"]
    if reverse:
        expect.reverse()
    # start inclusive, stop exclusive, whether or not the bounds exist
    assert keys(store.iterate(b"b", b"e", reverse=reverse)) == expect
    assert keys(store.iterate(b"a\x01", b"d\x00", reverse=reverse)) == expect
    assert keys(store.iterate(b"c", b"c", reverse=reverse)) == []
    assert keys(store.iterate(b"e", b"b", reverse=reverse)) == []
    assert keys(store.iterate(b"x", b"z", reverse=reverse)) == []
    assert len(keys(store.iterate(b"", b"z", reverse=reverse))) == 6


@pytest.mark.parametrize("reverse", [False, True])
def test_iteration_tolerates_writes(store: Store, reverse: bool) -> None:
    put(store, *[(b"k%02d" % i, b"v") for i in range(20)])
    it = store.iterate(b"k", b"l", reverse=reverse)
    seen = [next(it)[0], next(it)[0]]
    # delete everything, overwrite and insert while the iterator is open
    delete(store, *[b"k%02d" % i for i in range(0, 20, 2)])
    put(store, (b"k05", b"changed"), (b"k055", b"new"), (b"k\x00", b"new"), (b"k99", b"new"))
    rest = list(it)
    all_keys = [b"k%02d" % i for i in range(20)]
    if reverse:
        all_keys.reverse()
    # the iterator sees the store as it was when it was opened
    assert seen + [k for k, _ in rest] == all_keys
    assert all(v == b"v" for _, v in rest)
    assert store.get(b"k05") == b"changed"
    assert keys(store.iterate(b"k", b"l"))[:2] == [b"k\x00", b"k01"]


def test_iterate_then_delete_all_in_loop(store: Store) -> None:
    put(store, *[(b"%03d" % i, b"v") for i in range(50)])
    for k, _ in store.iterate(b"", b"\xff"):
        delete(store, k)
    assert keys(store.iterate(b"", b"\xff")) == []


def test_snapshot_isolation(store: Store) -> None:
    put(store, (b"a", b"1"), (b"b", b"1"))
    snap = store.snapshot()
    snap2 = store.snapshot()
    it = snap.iterate(b"", b"\xff")
    put(store, (b"a", b"2"), (b"c", b"2"))
    delete(store, b"b")
    snap3 = store.snapshot()
    put(store, (b"d", b"3"))
    for s in (snap, snap2):
        assert s.get(b"a") == b"1" and s.get(b"b") == b"1" and s.get(b"c") is None
        assert list(s.iterate(b"", b"\xff")) == [(b"a", b"1"), (b"b", b"1")]
        assert list(s.iterate(b"", b"\xff", reverse=True)) == [(b"b", b"1"), (b"a", b"1")]
    assert list(it) == [(b"a", b"1"), (b"b", b"1")]
    assert list(snap3.iterate(b"", b"\xff")) == [(b"a", b"2"), (b"c", b"2")]
    assert store.get(b"d") == b"3" and snap3.get(b"d") is None
    for s in (snap, snap2, snap3):
        s.close()
    put(store, (b"e", b"4"))
    assert keys(store.iterate(b"", b"\xff")) == [b"a", b"c", b"d", b"e"]


def test_snapshot_without_later_writes(store: Store) -> None:
    put(store, (b"a", b"1"))
    snap = store.snapshot()
    assert list(snap.iterate(b"", b"\xff")) == [(b"a", b"1")]
    snap.close()


def test_many_keys_random_order(store: Store) -> None:
    import random

    rng = random.Random(7)
    model: dict[bytes, bytes] = {}
    for _ in range(30):
        batch = WriteBatch()
        for _ in range(40):
            k = bytes(rng.randrange(4) for _ in range(rng.randrange(1, 5)))
            if rng.random() < 0.3:
                batch.delete(k)
                model.pop(k, None)
            else:
                v = bytes([rng.randrange(256)])
                batch.put(k, v)
                model[k] = v
        store.write(batch)
    assert list(store.iterate(b"", b"\xff")) == sorted(model.items())
    lo, hi = b"\x01\x02", b"\x03"
    expect = [kv for kv in sorted(model.items()) if lo <= kv[0] < hi]
    assert list(store.iterate(lo, hi)) == expect
    assert list(store.iterate(lo, hi, reverse=True)) == expect[::-1]


@pytest.mark.parametrize("kind", [_leveldb, SQLiteStore])
def test_persists_across_reopen(tmp_path: Path, kind: Callable[[Path], Store]) -> None:
    path = tmp_path / "db"
    s: Store = kind(path)
    put(s, (b"a", b"1"), (b"b", b"2"))
    delete(s, b"b")
    s.close()
    s.close()  # idempotent
    s = kind(path)
    assert s.get(b"a") == b"1" and s.get(b"b") is None
    assert list(s.iterate(b"", b"\xff")) == [(b"a", b"1")]
    s.close()


def test_memory_store_closed_raises() -> None:
    s = MemoryStore()
    put(s, (b"a", b"1"))
    s.close()
    with pytest.raises(RuntimeError):
        s.get(b"a")
    with pytest.raises(RuntimeError):
        put(s, (b"b", b"1"))


def test_sqlite_store_closed_raises(tmp_path: Path) -> None:
    s = SQLiteStore(tmp_path / "db")
    put(s, (b"a", b"1"))
    it = s.iterate(b"", b"\xff")
    s.close()
    assert list(it) == [(b"a", b"1")]  # an open iterator keeps its snapshot
    with pytest.raises(RuntimeError):
        s.get(b"a")
    with pytest.raises(RuntimeError):
        put(s, (b"b", b"1"))


def test_sqlite_many_open_readers(tmp_path: Path) -> None:
    """More iterators and snapshots open at once than the pool keeps: each reads its moment."""
    s = SQLiteStore(tmp_path / "db")
    views = []
    for i in range(10):
        put(s, (b"k%d" % i, b"v"))
        views.append((i, s.snapshot(), s.iterate(b"", b"\xff")))
    for i, snap, it in views:
        assert len(list(it)) == i + 1
        assert len(list(snap.iterate(b"", b"\xff"))) == i + 1
        snap.close()
    s.close()


def test_store_kinds_refuse_each_others_directories(tmp_path: Path) -> None:
    from dynemu.storage.select import StoreOpenError, open_store

    open_store("sqlite", str(tmp_path / "lite")).close()
    with pytest.raises(StoreOpenError, match="--store sqlite"):
        open_store("leveldb", str(tmp_path / "lite"))
    pytest.importorskip("plyvel")
    open_store("leveldb", str(tmp_path / "level")).close()
    with pytest.raises(StoreOpenError, match="--store leveldb"):
        open_store("sqlite", str(tmp_path / "level"))


@pytest.mark.parametrize("reverse", [False, True])
def test_read_values_is_iterate_without_keys(store: Store, reverse: bool) -> None:
    put(store, *[(bytes([65 + i]), bytes([97 + i])) for i in range(10)])
    for start, stop in ((b"A", b"K"), (b"C", b"G"), (b"C", b"C"), (b"G", b"C"), (b"", b"\xff"), (b"Z", b"\xff")):
        expected = [v for _, v in store.iterate(start, stop, reverse=reverse)]
        assert list(store.read_values(start, stop, reverse=reverse)) == expected
        for limit in (1, 3, 10, 20):
            values = store.read_values(start, stop, reverse=reverse, limit=limit)
            assert isinstance(values, list) and values == expected[:limit]
    put(store, (b"B", b"new"))  # nothing held open: later writes are seen
    assert store.read_values(b"B", b"C", limit=1) == [b"new"]
