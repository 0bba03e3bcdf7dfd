"""A LevelDB store compacts itself on its own thread once a burst of writes ends (issue 29,
storage/compaction.py): the tree is left in one level, no write is lost, a write that comes
meanwhile stops the compaction, close() waits for the slice in progress, and a compaction a
close (a namespace's eviction) came before is run after the next open."""

from __future__ import annotations

import os
import random
import threading
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("plyvel")

from dynemu.engine.clock import RealClock  # noqa: E402
from dynemu.engine.namespaces import Namespaces  # noqa: E402
from dynemu.storage import compaction  # noqa: E402
from dynemu.storage.base import WriteBatch  # noqa: E402
from dynemu.storage.leveldb import LevelDBStore  # noqa: E402

# Small memory tables and table files, so that a few MB make several levels.
SMALL = {"write_buffer_size": 64 * 1024, "max_file_size": 64 * 1024}


@pytest.fixture
def quick(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compaction, "QUIET", 0.05)
    monkeypatch.setattr(compaction, "MIN_BURST", 256 * 1024)
    monkeypatch.setattr(compaction, "SLICE_BYTES", 512 * 1024)


def load(store: LevelDBStore, items: dict[bytes, bytes], count: int, seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(count // 25):
        batch = WriteBatch()
        for _ in range(25):
            key, value = b"k%09d" % rng.randrange(10**9), os.urandom(500)
            batch.put(key, value)
            items[key] = value
        store.write(batch)


def levels(store: LevelDBStore) -> list[int]:
    return [int(store._db.get_property(b"leveldb.num-files-at-level%d" % n)) for n in range(7)]


def assert_all_there(store: LevelDBStore, items: dict[bytes, bytes]) -> None:
    assert all(store.get(key) == value for key, value in items.items())
    assert sum(1 for _ in store.iterate(b"k", b"l")) == len(items)


def gate(store: LevelDBStore) -> threading.Event:
    """Hold ``store``'s compactor off (the store reads as one it cannot compact now) until the
    returned event is set: a pause of the loading thread longer than the quiet time does not
    start a compaction, nor settle a burst, before the load is over."""
    open_ = threading.Event()
    real = store.tables_per_level
    store.tables_per_level = lambda: real() if open_.is_set() else []  # type: ignore[method-assign]
    return open_


def due_once(store: LevelDBStore) -> threading.Event:
    """Until the returned event is set, ``store`` reads as one that cannot be compacted now (no
    run starts, nor is a burst settled, during a load); then as a tree of two levels, so that a
    run is due whatever LevelDB's own compactions left (they may leave a burst in one level,
    which a quiet period settles without a run). For the tests of what a run does."""
    ready = threading.Event()
    store.tables_per_level = lambda: [1, 1, 0, 0, 0, 0, 0] if ready.is_set() else []  # type: ignore[method-assign]
    return ready


def reaches_level_2(store: LevelDBStore) -> bool:
    """Wait until LevelDB has moved tables below level 1 (it does once level 1 passes 10 MB):
    a full compaction then leaves the tree in the level those are in, never in level 1, from
    which LevelDB would move some down again."""
    deadline = time.monotonic() + 120
    while not any(levels(store)[2:]):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_burst_is_compacted_into_one_level_once_it_ends(tmp_path: Path, quick: None) -> None:
    store = LevelDBStore(tmp_path / "db", **SMALL)
    items: dict[bytes, bytes] = {}
    loaded = gate(store)
    load(store, items, 24_000, seed=1)  # ~12 MB: level 1 holds 10 MB, so level 2 is used
    assert reaches_level_2(store)
    loaded.set()
    # Compacted, or settled: LevelDB's own compactions may have left it in one level first.
    assert store.compactor.wait(lambda c: c.owed() == (0, None))
    filled = [n for n, files in enumerate(levels(store)) if files]
    assert len(filled) == 1 and filled[0] >= 1  # one level to read, none of it in level 0
    assert_all_there(store, items)
    # A small burst above it: flushed to level 0 and compacted into level 1 by LevelDB, which
    # moves nothing further down while level 1 holds under 10 MB: two levels, only the
    # compactor makes them one.
    runs = store.compactor.runs
    loaded.clear()
    load(store, items, 2_000, seed=6)
    assert store.compactor.owed()[0] > compaction.MIN_BURST
    loaded.set()
    assert store.compactor.wait(lambda c: c.runs > runs and c.owed() == (0, None))
    assert [n for n, files in enumerate(levels(store)) if files] == filled
    assert_all_there(store, items)
    store.close()
    assert not store.compactor.alive


def test_small_writes_leave_the_store_alone(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compaction, "QUIET", 0.02)
    store = LevelDBStore(tmp_path / "db")
    items: dict[bytes, bytes] = {}
    load(store, items, 200, seed=2)  # 100 KB: under MIN_BURST, in LevelDB's memory table
    assert store.compactor.wait(lambda c: c.ticks >= 5)
    assert (store.compactor.runs, store.compactor.stopped) == (0, 0)
    assert store.compactor.due(store.written) is False
    assert_all_there(store, items)
    store.close()


def test_a_write_during_a_compaction_stops_it_and_is_kept(tmp_path: Path, quick: None) -> None:
    store = LevelDBStore(tmp_path / "db", **SMALL)
    items: dict[bytes, bytes] = {}
    loaded, entered, go = due_once(store), threading.Event(), threading.Event()
    real = store.compact_slice
    stopped_before = [0]

    def held(start: bytes, stop: bytes) -> bool:
        # Held: a slice of the run begun once the load was over, and not the run's last slice
        # (a stopped run goes on from where it stopped): the run has another slice to stop at.
        if loaded.is_set() and stop < last and not entered.is_set():
            stopped_before[0] = store.compactor.stopped  # the compactor waits in here meanwhile
            entered.set()
            go.wait()
        return real(start, stop)

    store.compact_slice = held  # type: ignore[method-assign]
    load(store, items, 24_000, seed=3)
    last = max(items)
    loaded.set()
    assert entered.wait(120)
    load(store, items, 500, seed=4)  # while the slice waits
    go.set()
    # stopped at its next slice, then run again to the end
    assert store.compactor.wait(lambda c: c.stopped > stopped_before[0] and c.runs >= 1)
    assert_all_there(store, items)
    store.close()


class SlowCompaction:
    """A plyvel DB whose compact_range says when it starts and when it has finished."""

    def __init__(self, db: Any) -> None:
        self.db, self.entered, self.finished = db, threading.Event(), threading.Event()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.db, name)

    def compact_range(self, **bounds: Any) -> None:
        self.entered.set()
        threading.Event().wait(0.3)  # a slice long enough for close() to come during it
        self.db.compact_range(**bounds)
        self.finished.set()


def test_close_waits_for_the_slice_in_progress(tmp_path: Path, quick: None) -> None:
    store = LevelDBStore(tmp_path / "db", **SMALL)
    slow = SlowCompaction(store._db)
    store._db = slow
    items: dict[bytes, bytes] = {}
    loaded = due_once(store)
    load(store, items, 8_000, seed=5)
    loaded.set()
    assert slow.entered.wait(120)
    store.close()
    assert slow.finished.is_set() and not store.compactor.alive and slow.db.closed
    again = LevelDBStore(tmp_path / "db")
    assert_all_there(again, items)
    again.close()


def test_slices_cut_the_whole_range_by_the_size_of_its_tables() -> None:
    listing = (
        b"--- level 0 ---\n 9:100['k5' @ 9 : 1 .. 'k6' @ 9 : 1]\n"
        b"--- level 1 ---\n 3:400['k2\\x00' @ 8 : 1 .. 'k2z' @ 8 : 1]\n"
        b"--- level 2 ---\n"
        b" 5:400['k1' @ 1 : 1 .. 'k2' @ 1 : 1]\n"
        b" 6:400['k3\\x00\\xff' @ 2 : 1 .. 'k4' @ 2 : 1]\n"
        b" 7:400['k5' it's' @ 3 : 1 .. 'k6' @ 3 : 1]\n"
        b" 8:400['k7' @ 4 : 1 .. 'k8' @ 4 : 1]\n"
        b"--- level 3 ---\n--- level 4 ---\n"
    )
    assert compaction.slices(b"k0", b"k9", listing, size=800) == [
        (b"k0", b"k3\x00\xff"),
        (b"k3\x00\xff", b"k7"),
        (b"k7", b"k9"),
    ]
    assert compaction.slices(b"k0", b"k9", listing, size=400) == [
        (b"k0", b"k2\x00"),
        (b"k2\x00", b"k3\x00\xff"),
        (b"k3\x00\xff", b"k5"),
        (b"k5", b"k7"),
        (b"k7", b"k9"),
    ]
    assert compaction.slices(b"k0", b"k9", listing, size=10**6) == [(b"k0", b"k9")]
    assert compaction.slices(b"k0", b"k9", b"", size=400) == [(b"k0", b"k9")]
    assert compaction.slices(b"k2z", b"k6", listing, size=400) == [
        (b"k2z", b"k3\x00\xff"),
        (b"k3\x00\xff", b"k5"),
        (b"k5", b"k6"),
    ]
    assert compaction.slices(b"k4", b"k4", listing, size=400) == [(b"k4", b"k4")]


def test_a_compaction_an_eviction_came_before_runs_after_the_next_open(
    tmp_path: Path, quick: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A namespace evicted right after a burst, before its quiet period (or in the middle of
    its compaction): what its compactor owed is saved by the close and run by the compactor
    of its next open; once run, nothing is owed any more."""
    namespaces = Namespaces(data_dir=str(tmp_path), clock=RealClock(), max_open=1)
    try:
        monkeypatch.setattr(compaction, "QUIET", 3600.0)  # no quiet period before the eviction
        (tmp_path / "busy").mkdir()  # a store on disk (not one created by its first write)
        store = namespaces.get("busy", "AKID").store
        assert isinstance(store, LevelDBStore)
        items: dict[bytes, bytes] = {}
        load(store, items, 24_000, seed=7)  # ~12 MB: several levels
        namespaces.get("other", "AKID")  # evicts "busy": its store closes on a worker
        namespaces.shut("busy")  # waits for that close
        assert store.closed and (store.compactor.runs, store.compactor.ticks) == (0, 0)
        assert store.compactor.owed()[0] > compaction.MIN_BURST
        monkeypatch.setattr(compaction, "QUIET", 0.05)
        tables_per_level = LevelDBStore.tables_per_level
        reopened = threading.Event()  # the reopened store's compactor held off until set
        monkeypatch.setattr(LevelDBStore, "tables_per_level",
                            lambda self: tables_per_level(self) if reopened.is_set() else [])
        again = namespaces.get("busy", "AKID").store  # reopened: nothing written since
        assert isinstance(again, LevelDBStore) and again.written == 0
        assert again.compactor.owed()[0] > compaction.MIN_BURST  # what the close saved
        assert reaches_level_2(again)
        reopened.set()
        # Compacted, or settled if LevelDB's own compactions (resumed by the open) came first.
        assert again.compactor.wait(lambda c: c.owed() == (0, None), timeout=60)
        assert len([n for n in levels(again) if n]) == 1
        assert_all_there(again, items)
        namespaces.shut("busy")
        monkeypatch.setattr(compaction, "QUIET", 3600.0)
        third = namespaces.get("busy", "AKID").store
        assert isinstance(third, LevelDBStore) and third.compactor.owed() == (0, None)  # nothing owed now
    finally:
        namespaces.close()


def test_what_is_owed_is_read_back_as_written() -> None:
    for owed in [(0, None), (5 << 20, None), (123, b"t/\x00\n\xff"), (1, b"")]:
        assert compaction.decode_owed(compaction.encode_owed(owed)) == owed
    assert compaction.decode_owed(None) == (0, None)
    assert compaction.decode_owed(b"garbage") == (0, None)
