"""dynemu/cache.py: the one bounded cache type and its decorator form."""

from __future__ import annotations

from dynemu.cache import BoundedCache, memoized


def test_bounded_cache_drops_the_least_recently_used() -> None:
    cache: BoundedCache[int] = BoundedCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1  # "a" is now the most recent
    cache.put("c", 3)
    assert "b" not in cache and cache.get("a") == 1 and cache.get("c") == 3
    assert len(cache) == 2 and cache.hits == 3 and cache.misses == 0


def test_memoized_remembers_results_within_its_bound() -> None:
    calls: list[tuple[object, ...]] = []

    @memoized(2)
    def size(s: str) -> int:
        calls.append((s,))
        return len(s)

    @memoized(2)
    def add(a: int, b: int) -> int:
        calls.append((a, b))
        return a + b

    assert [size("ab"), size("ab"), size("xyz"), size("ab"), size("q"), size("ab")] == [2, 2, 3, 2, 1, 2]
    assert calls == [("ab",), ("xyz",), ("q",)]  # "ab" was used last: "xyz" went out
    assert len(size.cache) == 2  # type: ignore[attr-defined]
    assert size.__name__ == "size"
    calls.clear()
    assert [add(1, 2), add(1, 2), add(2, 1)] == [3, 3, 3]
    assert calls == [(1, 2), (2, 1)]


def test_memoized_forgets_none_and_exceptions() -> None:
    calls = []

    @memoized(8)
    def maybe(n: int) -> int | None:
        calls.append(n)
        if n < 0:
            raise ValueError(n)
        return n or None

    assert maybe(0) is None and maybe(0) is None
    for _ in range(2):
        try:
            maybe(-1)
        except ValueError:
            pass
    assert calls == [0, 0, -1, -1]
