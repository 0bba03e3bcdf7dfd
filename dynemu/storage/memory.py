"""``MemoryStore``: the in-memory twin of the LevelDB store (``--in-memory``, fast tests).

State is a dict (point reads) plus a sorted list of its keys (range reads by bisection).
Two mechanisms keep readers consistent while the store is written, matching what a
LevelDB iterator or snapshot sees:

* an open iterator is a ``_Cursor`` registered with the store; before the next write
  mutates anything it copies the rest of its range (``detach``), so a partial Query
  costs nothing and a full Scan at most one copy of what is left to read;
* a snapshot shares the live dict and list until the next write, which then moves the
  store onto fresh copies and leaves the old ones to the snapshots (copy on write, one
  copy however many snapshots were taken).

Single-threaded use is assumed, as in the engine (one event-loop turn per request).
"""

from __future__ import annotations

import gc
import weakref
from bisect import bisect_left, insort
from collections.abc import Callable, Iterable, Iterator

from dynemu.storage.base import Snapshot, Store, WriteBatch

_BULK_DELETE = 64  # a batch longer than this removes its deleted keys in one pass
_COMPACT_MIN = 4096  # stores this small are not worth compacting
_SMALL_RANGE = 128  # read_values returns a range this short as a list at once


def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, which hands freed heap pages back to the OS (None elsewhere).
    Looked up in the running process first: ``find_library`` runs ``ldconfig`` in a
    subprocess, so it is only the fallback, and all of it waits for the first use."""
    import ctypes

    try:
        return ctypes.CDLL(None).malloc_trim  # type: ignore[no-any-return]
    except (OSError, AttributeError, TypeError):
        pass
    try:
        import ctypes.util

        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        return libc.malloc_trim  # type: ignore[no-any-return]
    except (OSError, AttributeError):
        return None


_TRIM: list[Callable[[int], int] | None] = []  # [] until first looked up


def release_freed_memory() -> None:
    """Return the memory Python has freed to the operating system, where the C library can."""
    gc.collect()
    if not _TRIM:
        _TRIM.append(_malloc_trim())
    if _TRIM[0] is not None:
        _TRIM[0](0)


class _ClosedData(dict[bytes, bytes]):
    """Stands in for the data of a closed store or snapshot: reading it is an error."""

    def get(self, key: bytes, default: bytes | None = None) -> bytes | None:
        raise RuntimeError("store or snapshot is closed")


class _Cursor:
    """Iterates ``keys[lo:hi]`` (reversed when ``step`` is -1) until detached, then a
    private list of the items it had not yet yielded."""

    __slots__ = ("_keys", "_data", "_i", "_lo", "_hi", "_step", "_rest", "__weakref__")

    def __init__(self, keys: list[bytes], data: dict[bytes, bytes], lo: int, hi: int, reverse: bool) -> None:
        self._keys = keys
        self._data = data
        self._lo = lo
        self._hi = hi
        self._step = -1 if reverse else 1
        self._i = hi - 1 if reverse else lo
        self._rest: Iterator[tuple[bytes, bytes]] | None = None

    def __iter__(self) -> _Cursor:
        return self

    def __next__(self) -> tuple[bytes, bytes]:
        if self._rest is not None:
            return next(self._rest)
        i = self._i
        if not self._lo <= i < self._hi:
            self._rest = iter(())
            raise StopIteration
        self._i = i + self._step
        key = self._keys[i]
        return key, self._data[key]

    def detach(self) -> None:
        """Copy the items not yet yielded, so that the store may change underneath."""
        if self._rest is not None:
            return
        keys, data, i = self._keys, self._data, self._i
        if self._step == 1:
            rest = [(k, data[k]) for k in keys[max(i, self._lo) : self._hi]]
        else:
            rest = (
                [(k, data[k]) for k in reversed(keys[self._lo : min(i + 1, self._hi)])]
                if i >= self._lo
                else []
            )
        self._rest = iter(rest)


def _cursor(keys: list[bytes], data: dict[bytes, bytes], start: bytes, stop: bytes, reverse: bool) -> _Cursor:
    lo = bisect_left(keys, start)
    hi = bisect_left(keys, stop, lo) if stop > start else lo
    return _Cursor(keys, data, lo, hi, reverse)


class MemorySnapshot(Snapshot):
    def __init__(self, store: MemoryStore) -> None:
        self._store: MemoryStore | None = store
        self._keys = store._keys
        self._data = store._data

    def get(self, key: bytes) -> bytes | None:
        return self._data.get(key)

    def iterate(self, start: bytes, stop: bytes, *, reverse: bool = False) -> Iterator[tuple[bytes, bytes]]:
        cur = _cursor(self._keys, self._data, start, stop, reverse)
        store = self._store
        if store is not None and store._keys is self._keys:
            store._cursors.add(cur)  # still sharing the live state: detach before writes
        return cur

    def close(self) -> None:
        if self._store is not None:
            self._store._snapshots.discard(self)
            self._store = None
        self._keys = []
        self._data = _ClosedData()


class MemoryStore(Store):
    def __init__(self) -> None:
        self._keys: list[bytes] = []
        self._data: dict[bytes, bytes] = {}
        self._cursors: weakref.WeakSet[_Cursor] = weakref.WeakSet()
        self._snapshots: weakref.WeakSet[MemorySnapshot] = weakref.WeakSet()
        self._closed = False
        self._peak = 0  # the most keys held since the last compaction

    def get(self, key: bytes) -> bytes | None:
        return self._data.get(key)

    def iterate(self, start: bytes, stop: bytes, *, reverse: bool = False) -> Iterator[tuple[bytes, bytes]]:
        if self._closed:
            raise RuntimeError("store is closed")
        cur = _cursor(self._keys, self._data, start, stop, reverse)
        self._cursors.add(cur)
        return cur

    def read_values(self, start: bytes, stop: bytes, *, reverse: bool = False,
                    limit: int | None = None) -> Iterable[bytes]:
        """Straight from the live key list (no cursor to detach): the caller is done before
        the next write."""
        if self._closed:
            raise RuntimeError("store is closed")
        keys, get = self._keys, self._data.__getitem__
        lo = bisect_left(keys, start)
        hi = bisect_left(keys, stop, lo) if stop > start else lo
        if limit is not None or hi - lo <= _SMALL_RANGE:
            if limit is None:
                limit = hi - lo
            if reverse:
                return [get(k) for k in keys[max(lo, hi - limit) : hi][::-1]]
            return [get(k) for k in keys[lo : min(hi, lo + limit)]]
        if reverse:
            return map(get, map(keys.__getitem__, range(hi - 1, lo - 1, -1)))
        # not islice(keys, lo, hi): that steps over the first lo keys one by one
        return map(get, map(keys.__getitem__, range(lo, hi)))

    def write(self, batch: WriteBatch) -> None:
        if self._closed:
            raise RuntimeError("store is closed")
        ops = batch.ops
        for key, value in ops:  # validate first: a batch applies entirely or not at all
            if type(key) is not bytes or (value is not None and type(value) is not bytes):
                raise TypeError("keys and values must be bytes")
        if self._cursors.data or self._snapshots.data:
            self._before_write()
        keys, data = self._keys, self._data
        gone: set[bytes] | None = None
        for key, value in ops:
            if value is None:
                if data.pop(key, None) is not None:
                    if gone is not None:
                        gone.add(key)
                    elif len(ops) > _BULK_DELETE:
                        gone = {key}  # many deletes: one pass over the key list at the end
                    else:
                        del keys[bisect_left(keys, key)]
            else:
                if gone is not None and key in gone:
                    gone.discard(key)
                elif key not in data:
                    insort(keys, key)
                data[key] = value
        if gone:
            keys[:] = [k for k in keys if k not in gone]
        n = len(data)
        if n > self._peak:
            self._peak = n
        elif n < self._peak // 2 and self._peak >= _COMPACT_MIN:
            self._compact()

    def _compact(self) -> None:
        """Give memory back once the store has shrunk to less than half its peak (a table
        deleted, say): a dict never shrinks its table by itself, and freed values stay with
        the C allocator until it is asked to return them."""
        self._data = dict(self._data)
        self._keys = list(self._keys)
        self._peak = len(self._data)
        release_freed_memory()

    def _before_write(self) -> None:
        # ``WeakSet.data`` holds a reference for every live member (and, briefly, dead ones):
        # an empty one means no cursor or snapshot, without ``WeakSet.__len__``'s Python call.
        if self._cursors.data:
            for cur in list(self._cursors):
                cur.detach()
            self._cursors.clear()
        if self._snapshots.data:
            # Snapshots keep the current objects; the store continues on copies.
            self._keys = list(self._keys)
            self._data = dict(self._data)
            for snap in self._snapshots:
                snap._store = None
            self._snapshots.clear()

    def snapshot(self) -> MemorySnapshot:
        if self._closed:
            raise RuntimeError("store is closed")
        snap = MemorySnapshot(self)
        self._snapshots.add(snap)
        return snap

    def close(self) -> None:
        self._before_write()
        self._closed = True
        self._keys = []
        self._data = _ClosedData()

    @property
    def closed(self) -> bool:
        return self._closed

    def __len__(self) -> int:
        return len(self._keys)

    def contents(self) -> tuple[list[bytes], dict[bytes, bytes]]:
        """A copy of every key and value (a snapshot of the whole store, engine/state.py):
        two container copies, the keys and values themselves shared (bytes never change)."""
        return list(self._keys), dict(self._data)

    @classmethod
    def from_contents(cls, contents: tuple[list[bytes], dict[bytes, bytes]]) -> MemoryStore:
        """A store holding a copy of ``contents`` (what ``contents()`` returned)."""
        store = cls()
        store._keys, store._data = list(contents[0]), dict(contents[1])
        store._peak = len(store._data)
        return store
