"""A store that does not exist until its first write.

A namespace that is only read (ListTables, DescribeTable in a region never used) must leave
no trace on disk: its store reads as empty until a write batch arrives, and that first write
opens (creates) the real store, which then serves everything. Whoever holds the store object
(tables, stream catalogue, token records) keeps a valid reference across the switch.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from dynemu.storage.base import Snapshot, Store, WriteBatch


class _Empty(Snapshot):
    def get(self, key: bytes) -> bytes | None:
        return None

    def iterate(self, start: bytes, stop: bytes, *, reverse: bool = False) -> Iterator[tuple[bytes, bytes]]:
        return iter(())


_EMPTY = _Empty()


class LazyStore(Store):
    """Reads as empty until the first ``write``, which opens the store ``opener`` makes.
    From then on the store's own methods are bound on this object, so a read or a write
    costs what it costs on the store itself."""

    def __init__(self, opener: Callable[[], Store]) -> None:
        self._opener = opener
        self._inner: Store | None = None
        self.closed = False

    @property
    def opened(self) -> bool:
        return self._inner is not None

    def get(self, key: bytes) -> bytes | None:
        return None

    def iterate(self, start: bytes, stop: bytes, *, reverse: bool = False) -> Iterator[tuple[bytes, bytes]]:
        return iter(())

    def read_values(self, start: bytes, stop: bytes, *, reverse: bool = False,
                    limit: int | None = None) -> Iterable[bytes]:
        return ()

    def write(self, batch: WriteBatch) -> None:
        inner = self._inner = self._opener()
        # Instance attributes shadow the methods above: no extra call once the store exists.
        self.get = inner.get  # type: ignore[method-assign]
        self.iterate = inner.iterate  # type: ignore[method-assign]
        self.read_values = inner.read_values  # type: ignore[method-assign]
        self.write = inner.write  # type: ignore[method-assign]
        inner.write(batch)

    def snapshot(self) -> Snapshot:
        return _EMPTY if self._inner is None else self._inner.snapshot()

    def close(self) -> None:
        self.closed = True
        if self._inner is not None:
            self._inner.close()

    @property
    def busy(self) -> bool:
        return self._inner is not None and self._inner.busy

    def __getattr__(self, name: str) -> Any:
        """What a particular store offers besides the interface (its path, its settings),
        once it exists."""
        inner = self.__dict__.get("_inner")
        if inner is None:
            raise AttributeError(name)
        return getattr(inner, name)
