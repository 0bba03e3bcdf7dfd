"""An eviction that meets a running compaction does not stall the event loop (issue 38): the
evicted namespace's store closes on a worker thread (storage/closing.py), not on the loop
that serves every connection, and reopening it waits for that close.

This is a latency bound, which the issue asks for: the loop's worst stall stays under 50 ms
while the evicted store's compaction slice takes far longer. A loaded 2-core machine may
delay one run, so the measurement is tried up to three times and the best one is kept.
"""

from __future__ import annotations

import asyncio
import os
import random
import time
from pathlib import Path

import pytest

pytest.importorskip("plyvel")

from dynemu.engine.clock import RealClock  # noqa: E402
from dynemu.engine.namespaces import Namespaces  # noqa: E402
from dynemu.storage import compaction  # noqa: E402
from dynemu.storage.base import WriteBatch  # noqa: E402

STALL_LIMIT = 0.050
TICK = 0.002


def _fill(namespaces: Namespaces, name: str, mb: int) -> None:
    """``mb`` MB of random keys written straight to the namespace's store: several levels,
    which its background compaction then rewrites into one."""
    store = namespaces.get(name, "AKID").store
    rng = random.Random(38)
    for _ in range(mb * 1024 // 100):  # batches of 100 KB
        batch = WriteBatch()
        for _ in range(100):
            batch.put(b"\x7fsoak%012d" % rng.randrange(10**12), os.urandom(1000))
        store.write(batch)


async def _worst_stall_while_evicting(namespaces: Namespaces, busy: str, other: str) -> tuple[float, bool]:
    """The loop's worst lateness (a 2 ms ticker) around evicting ``busy`` by opening ``other``;
    and whether ``busy``'s store was still compacting when it was evicted."""
    worst = 0.0
    running = True

    async def ticker() -> None:
        nonlocal worst
        last = time.perf_counter()
        while running:
            await asyncio.sleep(TICK)
            now = time.perf_counter()
            worst = max(worst, now - last - TICK)
            last = now

    task = asyncio.get_running_loop().create_task(ticker())
    await asyncio.sleep(0.05)
    store = namespaces.databases[busy].store
    compacting = store.busy
    namespaces.get(other, "AKID")  # on the loop, as a request's eviction is
    await asyncio.sleep(0.2)
    running = False
    await task
    return worst, compacting


def _attempt(tmp_path: Path) -> tuple[float, bool, float]:
    namespaces = Namespaces(data_dir=str(tmp_path), clock=RealClock(), max_open=1)
    try:
        _fill(namespaces, "busy", 40)
        store = namespaces.databases["busy"].store
        deadline = time.monotonic() + 60
        while not store.busy and time.monotonic() < deadline:  # its compaction starts after a quiet spell
            time.sleep(0.005)
        worst, compacting = asyncio.run(_worst_stall_while_evicting(namespaces, "busy", "other"))
        t0 = time.perf_counter()
        again = namespaces.get("busy", "AKID")  # the reopen waits for the close, then serves
        reopen = time.perf_counter() - t0
        assert again.store.get(b"\x7fnot-there") is None
        return worst, compacting, reopen
    finally:
        namespaces.close()


def test_an_eviction_during_a_compaction_does_not_stall_the_loop(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(compaction, "SLICE_BYTES", 1 << 30)  # one slice: the whole store, which takes a while
    results = []
    for attempt in range(3):
        worst, compacting, reopen = _attempt(tmp_path / str(attempt))
        assert compacting, "the compaction ended before the eviction: the test measured nothing"
        results.append((worst, reopen))
        if worst < STALL_LIMIT:
            break
    best = min(w for w, _ in results)
    assert best < STALL_LIMIT, f"worst loop stalls {results}"
