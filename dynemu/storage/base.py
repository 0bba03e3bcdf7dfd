"""The storage interface: ordered bytes -> bytes, atomic write batches, snapshots.

Three implementations pass the same tests: ``leveldb.LevelDBStore`` (plyvel, the default),
``sqlite.SQLiteStore`` (standard library, where plyvel is not installed) and
``memory.MemoryStore`` (``--in-memory`` and fast tests). Storage knows bytes only.
"""

from __future__ import annotations

import errno
import logging
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from itertools import islice

from dynemu import errors

log = logging.getLogger("dynemu.storage")

# The file of a SQLite namespace directory (storage/sqlite.py), which storage/select.py also
# looks for to refuse opening it as LevelDB (without importing sqlite3).
SQLITE_FILENAME = "dynemu.sqlite3"


class WriteBatch:
    """Puts and deletes applied atomically by ``Store.write``; later operations on the
    same key win, as in a LevelDB write batch."""

    __slots__ = ("ops",)

    def __init__(self) -> None:
        self.ops: list[tuple[bytes, bytes | None]] = []

    def put(self, key: bytes, value: bytes) -> None:
        self.ops.append((key, value))

    def delete(self, key: bytes) -> None:
        self.ops.append((key, None))

    def __len__(self) -> int:
        return len(self.ops)


class Reader(ABC):
    """Point and range reads; shared by stores and their snapshots."""

    @abstractmethod
    def get(self, key: bytes) -> bytes | None: ...

    @abstractmethod
    def iterate(
        self, start: bytes, stop: bytes, *, reverse: bool = False
    ) -> Iterator[tuple[bytes, bytes]]:
        """Yield ``(key, value)`` for ``start <= key < stop`` in byte order (descending when
        ``reverse``). The iterator must tolerate writes to the store while it is open
        (LevelDB iterators read an implicit snapshot; the memory store copies lazily)."""


    def read_values(self, start: bytes, stop: bytes, *, reverse: bool = False,
                    limit: int | None = None) -> Iterable[bytes]:
        """The values of ``iterate`` (at most ``limit`` of them, a list then), for a read
        that is done before the store is next written (one synchronous engine call), so
        implementations may skip what ``iterate`` does to tolerate writes."""
        pairs = self.iterate(start, stop, reverse=reverse)
        if limit is None:
            return (value for _, value in pairs)
        values = [value for _, value in islice(pairs, limit)]
        close = getattr(pairs, "close", None)
        if close is not None:
            close()  # an unfinished generator (SQLite) releases its connection now
        return values


class Snapshot(Reader):
    """A consistent read-only view of a store at one moment."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release resources; reading after close is undefined."""


class Store(Reader):
    @abstractmethod
    def write(self, batch: WriteBatch) -> None:
        """Apply every operation of ``batch`` atomically (and durably for LevelDB)."""

    @abstractmethod
    def snapshot(self) -> Snapshot: ...

    @abstractmethod
    def close(self) -> None: ...

    # Whether ``close`` was called (every store answers it: an attribute or a property).
    closed: bool

    @property
    def busy(self) -> bool:
        """Whether closing the store now would wait for work in the background (a LevelDB
        store's compaction, storage/compaction.py)."""
        return False


def delete_range(store: Store, start: bytes, stop: bytes, chunk: int = 10_000) -> None:
    """Delete every key in ``[start, stop)`` in batches of at most ``chunk`` deletions (a
    dropped table or index: its ids are never reused, so no new key lands in the range)."""
    while True:
        batch = WriteBatch()
        for key, _ in store.iterate(start, stop):
            batch.delete(key)
            if len(batch) >= chunk:
                break
        if not len(batch):
            return
        store.write(batch)


# --- a full disk ----------------------------------------------------------------------------

_SQLITE_FULL = 13  # sqlite3's SQLITE_FULL result code ("database or disk is full")
_FULL_TEXTS = ("no space left on device", "disk quota exceeded", "database or disk is full")


def out_of_space(e: BaseException) -> bool:
    """Whether a store's error says that its disk is full: ENOSPC or EDQUOT (OSError, and
    plyvel's IOError, whose message is LevelDB's bytes), or SQLite's SQLITE_FULL."""
    if isinstance(e, OSError) and e.errno in (errno.ENOSPC, errno.EDQUOT):
        return True
    if getattr(e, "sqlite_errorcode", None) == _SQLITE_FULL:
        return True
    text = " ".join(a.decode("utf-8", "replace") if isinstance(a, bytes) else str(a) for a in e.args).lower()
    return any(t in text for t in _FULL_TEXTS)


class DiskFullEpisode:
    """What a store says about its disk being full, once per episode: the first refused write
    logs one line (never a traceback per request) and every refused write raises
    ``errors.DiskFull`` (500 with a message saying where); the first write that succeeds
    afterwards logs that writes resumed."""

    __slots__ = ("path", "full")

    def __init__(self, path: str) -> None:
        self.path = path
        self.full = False

    def refused(self) -> errors.DiskFull:
        """The error of a write refused for lack of space (logged when the episode starts)."""
        err = errors.disk_full(self.path)
        if not self.full:
            self.full = True
            log.error("%s (writes are refused with InternalServerError until then)", err.message)
        return err

    def resumed(self) -> None:
        """A write succeeded: the episode, if any, is over."""
        if self.full:
            self.full = False
            log.warning("space is available again on the disk of %s: writes resumed", self.path)
