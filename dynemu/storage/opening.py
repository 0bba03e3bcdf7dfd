"""Stores opened off the event loop.

Opening a LevelDB store replays its log into a table file and writes and syncs a new MANIFEST
and CURRENT (tens of ms each on a busy disk, bench/README.md). A namespace a request names that
is not open (``engine/namespaces.py``) is opened here, on a worker thread, while the event loop
serves every other connection; the request is answered once its store is open.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from dynemu.storage.base import Store

WORKERS = 2  # stores opened at once


class Opener:
    """Opens stores on worker threads (made at the first open)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pool: ThreadPoolExecutor | None = None

    def open(self, opener: Callable[[], Store]) -> Future[Store]:
        """``opener()`` run on a worker thread: its store, or its failure, in the future."""
        with self._lock:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(WORKERS, thread_name_prefix="dynemu-open")
            return self._pool.submit(opener)

    def drain(self) -> None:
        """Wait for the opens under way, and stop the workers (made again if needed)."""
        with self._lock:
            pool, self._pool = self._pool, None
        if pool is not None:
            pool.shutdown(wait=True)
