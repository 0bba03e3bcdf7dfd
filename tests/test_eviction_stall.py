"""An eviction that meets a running compaction does not stall the event loop (issue 38): the
evicted namespace's store closes on a worker thread (storage/closing.py), not on the loop
that serves every connection, and reopening it waits for that close. Opening a namespace's
store does not stall it either: the store opens on a worker thread (storage/opening.py) while
the request waits (``OpenPending``, as the HTTP front end waits), requests for the same
namespace share one open, and an open of a store still closing waits for the close.

This is a latency bound, which the issue asks for: the loop's worst stall stays under 50 ms
while the evicted store's compaction slice takes far longer (a close on the loop stalls it
for all of that), and while stores that replay megabytes of log open (an open on the loop
stalls it for each). The stall is a 2 ms ticker's lateness, less the time the loop's thread
waited for a core meanwhile (its run-queue delay, /proc/self/task/<tid>/schedstat): on a
2-core machine shared with other jobs that wait is the machine's, and reaches 100 ms at any
moment. What stays is the time the thread was kept from running by this process (a join, a
lock, the GIL held by another thread) or ran something else. The measurement is also tried
up to three times, and the best one is kept.

The eviction must meet the compaction: its one slice is held from its start until the test
has evicted the store and seen its close still under way (``HeldSlice``), then runs. Without
the hold the slice lasted about 0.2 s, and a test thread held up that long between seeing the
compaction start and evicting the store found it over ("the test measured nothing").
"""

from __future__ import annotations

import asyncio
import os
import random
import shutil
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("plyvel")

from dynemu.engine.clock import RealClock  # noqa: E402
from dynemu.engine.namespace import Namespace  # noqa: E402
from dynemu.engine.namespaces import Namespaces, OpenPending  # noqa: E402
from dynemu.storage import compaction  # noqa: E402
from dynemu.storage.base import WriteBatch  # noqa: E402
from tests.test_storage_compaction import due_once  # noqa: E402

STALL_LIMIT = 0.050
TICK = 0.002
HOLD = 5.0  # seconds a held slice waits at most: a close on the loop stalls it that long


class HeldSlice:
    """A plyvel DB whose first compact_range (the compactor's slice) says it has started, then
    waits for ``go`` (HOLD seconds at most) before it compacts."""

    def __init__(self, db: object) -> None:
        self.db, self.entered, self.go = db, threading.Event(), threading.Event()

    def __getattr__(self, name: str) -> object:
        return getattr(self.db, name)

    def compact_range(self, **bounds: bytes) -> None:
        if not self.entered.is_set():
            self.entered.set()
            self.go.wait(HOLD)
        self.db.compact_range(**bounds)  # type: ignore[attr-defined]


def _fill(namespaces: Namespaces, name: str, mb: int) -> None:
    """``mb`` MB of random keys written straight to the namespace's store: several levels,
    which its background compaction then rewrites into one."""
    store = namespaces.for_request(name, "AKID").store
    rng = random.Random(38)
    for _ in range(mb * 1024 // 100):  # batches of 100 KB
        batch = WriteBatch()
        for _ in range(100):
            batch.put(b"\x7fsoak%012d" % rng.randrange(10**12), os.urandom(1000))
        store.write(batch)


async def _request(namespaces: Namespaces, name: str, waited: list[object] | None = None) -> Namespace:
    """A request's namespace as the HTTP front end gets it: asked again once an open off the
    loop is done (the futures waited for are added to ``waited``)."""
    while True:
        try:
            return namespaces.for_request(name, "AKID")
        except OpenPending as opening:
            if waited is not None:
                waited.append(opening.future)
            await asyncio.wait([asyncio.wrap_future(opening.future)])


def _run_delay(path: str) -> float:
    """Seconds the thread has waited on a run queue (schedstat's second field, ns)."""
    with open(path) as f:
        return int(f.read().split()[1]) / 1e9


class Ticker:
    """The loop's worst lateness while it runs: a 2 ms ticker, less its thread's run-queue wait."""

    def __init__(self) -> None:
        self.worst = 0.0
        self._running = True
        self._task = asyncio.get_running_loop().create_task(self._tick())

    async def _tick(self) -> None:
        schedstat = f"/proc/self/task/{threading.get_native_id()}/schedstat"
        last, waited = time.perf_counter(), _run_delay(schedstat)
        while self._running:
            await asyncio.sleep(TICK)
            now, now_waited = time.perf_counter(), _run_delay(schedstat)
            self.worst = max(self.worst, now - last - TICK - (now_waited - waited))
            last, waited = now, now_waited

    async def stop(self) -> float:
        await asyncio.sleep(0.05)
        self._running = False
        await self._task
        return self.worst


async def _worst_stall_while_evicting(namespaces: Namespaces, busy: str, other: str,
                                      held: HeldSlice) -> tuple[float, bool, float, bool]:
    """The loop's worst lateness from just before evicting ``busy`` (by opening ``other``)
    until a request for ``busy``, made at once, is served: its store closed, then opened
    again, both off the loop (its compaction slice let go once the close is seen under way).
    Whether that store was still compacting when it was evicted, how long the close and
    reopen took, and whether the reopen began while the close was still under way."""
    ticker = Ticker()
    await asyncio.sleep(0.05)
    store = namespaces.databases[busy].store
    compacting = store.busy
    t0 = time.perf_counter()
    namespaces.for_request(other, "AKID")  # on the loop, as a request's eviction is
    raced = namespaces.closing(busy)
    held.go.set()  # the slice runs now; the close waits for it, off the loop
    again = await _request(namespaces, busy)  # its open waits for the close, off the loop
    closed = time.perf_counter() - t0
    assert store.closed and again.store is not store and again.store.get(b"\x7fnot-there") is None
    return await ticker.stop(), compacting, closed, raced


def _attempt(tmp_path: Path) -> tuple[float, bool, float, bool]:
    namespaces = Namespaces(data_dir=str(tmp_path), clock=RealClock(), max_open=1)
    try:
        os.mkdir(tmp_path / "busy")  # a store on disk, opened as one (not by its first write)
        store = namespaces.for_request("busy", "AKID").store
        held = store._db = HeldSlice(store._db)  # type: ignore[attr-defined]
        filled = due_once(store)  # a run after the fill, whatever LevelDB's own compactions left
        _fill(namespaces, "busy", 40)
        filled.set()
        namespaces.open_off_loop = True  # as the HTTP front end sets it
        assert held.entered.wait(60), "no compaction started"  # after a quiet spell
        return asyncio.run(_worst_stall_while_evicting(namespaces, "busy", "other", held))
    finally:
        namespaces.close()


def test_an_eviction_during_a_compaction_does_not_stall_the_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compaction, "SLICE_BYTES", 1 << 30)  # one slice: the whole store, which takes a while
    results = []  # (worst stall, the evicted store's close and reopen), seconds
    for attempt in range(3):
        worst, compacting, closed, raced = _attempt(tmp_path / str(attempt))
        assert compacting, "the compaction ended before the eviction: the test measured nothing"
        assert raced, "the close ended before the reopen began: the test measured nothing"
        results.append((worst, closed))
        if worst < STALL_LIMIT:
            break
    best = min(w for w, _ in results)
    assert best < STALL_LIMIT, f"worst loop stalls {results}"


def _crashed_stores(data_dir: Path, names: list[str], mb: int) -> None:
    """Stores as a crash leaves them: ``mb`` MB of writes each in LevelDB's log only (kept by
    a memory table larger than the 4 MB the server opens it with), which opening replays into
    table files and syncs."""
    import plyvel

    live = data_dir / ".live"
    for n, name in enumerate(names):
        db = plyvel.DB(str(live), create_if_missing=True, write_buffer_size=64 << 20)
        with db.write_batch() as batch:
            for i in range(mb * 1024):
                batch.put(b"\x7fopen%08d" % i, b"%04d" % n + os.urandom(996))
        shutil.copytree(live, data_dir / name)  # copied while open: the log not yet replayed
        db.close()
        shutil.rmtree(live)


async def _worst_stall_while_opening(namespaces: Namespaces, names: list[str]) -> tuple[float, list[set[int]]]:
    """The loop's worst lateness while three requests at once for each of ``names`` (in turn)
    get their namespace; for each, the opens its requests waited for."""
    ticker = Ticker()
    shared = []
    for n, name in enumerate(names):
        waited: list[object] = []
        got = await asyncio.gather(*(_request(namespaces, name, waited) for _ in range(3)))
        assert got[0] is got[1] is got[2] is namespaces.databases[name]
        assert got[0].store.get(b"\x7fopen%08d" % 7)[:4] == b"%04d" % n  # the log, replayed
        shared.append({id(f) for f in waited})
    return await ticker.stop(), shared


def test_opening_namespaces_does_not_stall_the_loop(tmp_path: Path) -> None:
    names = [f"open-{n}" for n in range(6)]
    results = []  # worst stalls, seconds
    for attempt in range(3):
        data_dir = tmp_path / str(attempt)
        namespaces = Namespaces(data_dir=str(data_dir), clock=RealClock(), max_open=2)
        try:
            _crashed_stores(data_dir, names, 16)  # after the start, which opens the stores on disk
            namespaces.open_off_loop = True
            worst, shared = asyncio.run(_worst_stall_while_opening(namespaces, names))
        finally:
            namespaces.close()
        assert all(len(s) == 1 for s in shared), f"requests for one namespace shared one open: {shared}"
        results.append(worst)
        if worst < STALL_LIMIT:
            break
    assert min(results) < STALL_LIMIT, f"worst loop stalls {results}"
