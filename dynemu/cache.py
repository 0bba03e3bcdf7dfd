"""The one bounded cache type of dynemu (least recently used first out), and ``memoized``,
its decorator form for pure functions of hashable arguments.

Keys are whatever the cached form depends on (expression text, the request's
ExpressionAttributeNames, the keys of its ExpressionAttributeValues, ...); values must be
immutable or never mutated by their users, since every request with the same key shares
them. Only value-independent work belongs here: checks that read
``ExpressionAttributeValues`` still run on every request.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from functools import wraps
from typing import Generic, TypeVar

V = TypeVar("V")
_VARARGS = 0x04 | 0x08  # CO_VARARGS | CO_VARKEYWORDS (``inspect``'s flags)
R = TypeVar("R")


class BoundedCache(Generic[V]):
    """At most ``maxsize`` entries; a hit makes its entry the most recent, an insertion
    past the bound drops the least recent one. Safe to share between threads (in-process
    servers each run on their own): a race costs at most a miss or a late eviction."""

    __slots__ = ("maxsize", "_data", "hits", "misses")

    def __init__(self, maxsize: int) -> None:
        if maxsize < 1:
            raise ValueError("maxsize must be at least 1")
        self.maxsize = maxsize
        self._data: OrderedDict[Hashable, V] = OrderedDict()
        self.hits = 0
        self.misses = 0

    def get(self, key: Hashable) -> V | None:
        data = self._data
        value = data.get(key)
        if value is None:
            self.misses += 1
            return None
        try:
            data.move_to_end(key)
        except KeyError:  # evicted by another thread meanwhile
            pass
        self.hits += 1
        return value

    def put(self, key: Hashable, value: V) -> None:
        data = self._data
        data[key] = value
        try:
            data.move_to_end(key)
            while len(data) > self.maxsize:
                data.popitem(last=False)
        except KeyError:  # another thread changed it meanwhile
            pass

    def clear(self) -> None:
        self._data.clear()
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._data)

    def __contains__(self, key: Hashable) -> bool:
        return key in self._data


def memoized(maxsize: int) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """Remember a pure function's results by its (hashable) positional arguments in a
    ``BoundedCache`` of ``maxsize`` entries; ``fn.cache`` is that cache, keyed by the argument
    itself for a function of one argument, else by the tuple of arguments. A result of None is
    not remembered. A hit is two lookups in the cache's ordered dict, with no method of the
    cache in between (hot callers, such as the size of a number, pay about what
    ``functools.lru_cache`` costs); ``hits`` and ``misses`` are not counted here."""

    def decorate(fn: Callable[..., R]) -> Callable[..., R]:
        store: BoundedCache[R] = BoundedCache(maxsize)
        data = store._data
        get, recent, oldest_out = data.get, data.move_to_end, data.popitem
        code = getattr(fn, "__code__", None)
        one = code is not None and code.co_argcount == 1 and not code.co_flags & _VARARGS

        if one:

            def wrapper(arg: Hashable) -> R:
                value = get(arg)
                if value is not None:
                    try:
                        recent(arg)
                    except KeyError:  # evicted by another thread meanwhile
                        pass
                    return value
                value = fn(arg)
                if value is not None:
                    data[arg] = value  # a new key goes last: the most recent
                    if len(data) > maxsize:
                        try:
                            oldest_out(last=False)
                        except KeyError:  # emptied by another thread meanwhile
                            pass
                return value

        else:

            def wrapper(*args: Hashable) -> R:  # type: ignore[misc]
                value = get(args)
                if value is not None:
                    try:
                        recent(args)
                    except KeyError:
                        pass
                    return value
                value = fn(*args)
                if value is not None:
                    data[args] = value
                    if len(data) > maxsize:
                        try:
                            oldest_out(last=False)
                        except KeyError:
                            pass
                return value

        wrapper = wraps(fn)(wrapper)
        wrapper.cache = store  # type: ignore[attr-defined]
        return wrapper

    return decorate
