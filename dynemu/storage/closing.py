"""Stores closed off the event loop.

Closing a LevelDB store stops its background compaction, which finishes the slice it is
compacting first (up to ``compaction.SLICE_BYTES`` of tables, seconds on a large store), and
LevelDB's own close waits for its compaction thread too. A namespace evicted on a request's
path (``engine/namespaces.py``) must not hold every connection for that long, so its store
is closed here, on a worker thread. Opening the same store again waits for that close (LevelDB
locks its directory until then); opening any other store does not.

After each close the C heap's free pages are given back to the system (glibc's
``malloc_trim``, where the C library has it): a LevelDB store's memory table, block cache and
compaction buffers are freed by its close, across the allocator's per-thread arenas (its
compaction thread, the workers that open and close it), and without the trim those arenas
keep the freed pages, so the server's memory grew with namespace churn (the soak,
bench/README.md).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from dynemu.storage.base import Store

log = logging.getLogger("dynemu.storage")

WORKERS = 4  # stores closed at once: one slow close (a compaction's slice) does not queue the others


_trim: list[Callable[[int], int] | None] = []  # glibc's malloc_trim, once looked up (None: none)


def release_free_memory() -> None:
    """Return the C heap's free pages to the system, where the C library can (glibc)."""
    if not _trim:
        import ctypes  # on the first close only

        try:
            _trim.append(ctypes.CDLL(None).malloc_trim)
        except (AttributeError, OSError):  # not glibc
            _trim.append(None)
    trim = _trim[0]
    if trim is not None:
        trim(0)


class Closer:
    """Closes stores on worker threads; ``on_error(key, error)`` hears of a store that failed
    to close (called on the worker)."""

    def __init__(self, on_error: Callable[[str, BaseException], None]) -> None:
        self._on_error = on_error
        self._lock = threading.Lock()
        self._pending: dict[str, Future[None]] = {}  # key -> its close, until done
        self._pool: ThreadPoolExecutor | None = None  # made at the first close

    def close(self, key: str, store: Store) -> None:
        """Close ``store`` (known as ``key``) on a worker thread, without waiting."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="dynemu-close")
            future = self._pool.submit(self._close, key, store)
            self._pending[key] = future
        future.add_done_callback(lambda f: self._done(key, f))

    def _close(self, key: str, store: Store) -> None:
        try:
            store.close()
        except Exception as e:  # noqa: BLE001 - reported to the owner, and the worker goes on
            self._on_error(key, e)
        release_free_memory()

    def _done(self, key: str, future: Future[None]) -> None:
        with self._lock:
            if self._pending.get(key) is future:
                del self._pending[key]

    def pending(self, key: str) -> bool:
        with self._lock:
            return key in self._pending

    def wait(self, key: str) -> None:
        """Return once the store known as ``key`` is closed (at once when none is closing)."""
        with self._lock:
            future = self._pending.get(key)
        if future is not None:
            future.result()

    def drain(self) -> None:
        """Wait for every close under way, and stop the workers (made again if needed)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
