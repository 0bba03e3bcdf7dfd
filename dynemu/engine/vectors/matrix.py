"""One vector index in memory: a contiguous float32 matrix and the exact top-K search.

numpy is imported here, and this module only once a table has a vector index (start-up
never imports it: tests/test_startup.py).

Rows are kept dense: a removed row is filled with the last one, so the matrix is always
``data[:n]``; its capacity grows by half as it fills, and a rebuild trims it. Beside it:
each row's key (the item's hashed storage key, ``keyspace.hashed_part``), each row's norm,
and per search-schema attribute a column of int32 codes of the rows' values (each distinct
value gets a code, -1 for none), so that a filter's ``=`` is one comparison of a column.

Scores ("SearchVectors", API reference), computed at float32:
  COSINE       1 - cos(q, v), 0 (same direction) .. 2 (opposite), smallest first;
  EUCLIDEAN    |q - v|, smallest first;
  DOT_PRODUCT  q . v, largest first.
A zero vector has no direction: its COSINE score is 1 (cos taken as 0).

The search is exact: the k rows of best score among the rows the filter keeps. Ties are
broken by the row's key (the items' storage order), so an answer is deterministic;
DynamoDB's search is approximate, and an application must not depend on the order of
equal scores.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

_START = 16
_BLOCK = 4096  # rows per block of a EUCLIDEAN search


class VectorMatrix:
    """The vectors of one index; ``columns[name][row]``: the code of the row's value of a
    search-schema attribute (``codes[name]``: value -> code), -1 when the item lacks it."""

    __slots__ = ("dims", "distance", "data", "norms", "n", "keys", "rows", "columns", "codes")

    def __init__(self, dims: int, distance: str, filter_names: Sequence[str]) -> None:
        self.dims = dims
        self.distance = distance
        self.data = np.empty((_START, dims), dtype=np.float32)
        self.norms = np.empty(_START, dtype=np.float32)
        self.n = 0
        self.keys: list[bytes] = []
        self.rows: dict[bytes, int] = {}
        self.columns: dict[str, np.ndarray] = {name: np.empty(_START, dtype=np.int32) for name in filter_names}
        self.codes: dict[str, dict[Any, int]] = {name: {} for name in filter_names}

    @property
    def nbytes(self) -> int:
        return int(self.data.nbytes + self.norms.nbytes)

    def _grow(self) -> None:
        self._resize(self.data.shape[0] * 3 // 2)

    def trim(self) -> None:
        """Release the unused rows beyond a sixteenth of headroom (after a rebuild)."""
        if self.data.shape[0] > self.n + self.n // 16 + _START:
            self._resize(self.n + self.n // 16 + _START)

    def _resize(self, cap: int) -> None:
        data = np.empty((cap, self.dims), dtype=np.float32)
        data[: self.n] = self.data[: self.n]
        norms = np.empty(cap, dtype=np.float32)
        norms[: self.n] = self.norms[: self.n]
        self.data, self.norms = data, norms
        for name, column in self.columns.items():
            wider = np.empty(cap, dtype=np.int32)
            wider[: self.n] = column[: self.n]
            self.columns[name] = wider

    def put(self, key: bytes, vector: bytes | memoryview, filters: dict[str, Any]) -> None:
        """Add or replace the row of ``key``: ``vector`` is ``dims`` little-endian float32."""
        v = np.frombuffer(vector, dtype="<f4", count=self.dims)
        row = self.rows.get(key)
        if row is None:
            if self.n == self.data.shape[0]:
                self._grow()
            row = self.n
            self.n += 1
            self.rows[key] = row
            self.keys.append(key)
        for name, column in self.columns.items():
            value = filters.get(name)
            if value is None:
                column[row] = -1
            else:
                codes = self.codes[name]
                column[row] = codes.setdefault(value, len(codes))
        self.data[row] = v
        self.norms[row] = np.linalg.norm(self.data[row])

    def remove(self, key: bytes) -> None:
        row = self.rows.pop(key, None)
        if row is None:
            return
        last = self.n - 1
        if row != last:
            moved = self.keys[last]
            self.data[row] = self.data[last]
            self.norms[row] = self.norms[last]
            self.keys[row] = moved
            self.rows[moved] = row
            for column in self.columns.values():
                column[row] = column[last]
        self.keys.pop()
        self.n = last

    def __contains__(self, key: bytes) -> bool:
        return key in self.rows

    def mask_equal(self, name: str, value: Any) -> np.ndarray:
        code = self.codes[name].get(value)
        if code is None:
            return np.zeros(self.n, dtype=bool)
        return self.columns[name][: self.n] == code

    def mask_where(self, name: str, test: Callable[[Any], bool]) -> np.ndarray:
        """The rows whose value of ``name`` passes ``test``: it is called once per distinct
        value (``codes``, in code order) and once with None (the rows without the attribute)."""
        known = list(self.codes[name])
        lut = np.fromiter((test(v) for v in [*known, None]), dtype=bool, count=len(known) + 1)
        return lut[self.columns[name][: self.n]]  # code -1 reads the last entry: None's

    def scores(self, query: np.ndarray, rows: np.ndarray | None = None) -> np.ndarray:
        """The score of every row (or of ``rows``) against ``query`` (float32)."""
        data = self.data[: self.n] if rows is None else self.data[rows]
        norms = self.norms[: self.n] if rows is None else self.norms[rows]
        count = data.shape[0]
        if self.distance == "EUCLIDEAN":  # |v - q| itself, a block at a time (no n x dims temporary)
            out = np.empty(count, dtype=np.float32)
            for start in range(0, count, _BLOCK):
                diff = data[start : start + _BLOCK] - query
                out[start : start + _BLOCK] = np.sqrt(np.einsum("ij,ij->i", diff, diff))
            return out
        dots = data @ query
        if self.distance == "DOT_PRODUCT":
            return dots
        denom = norms * np.float32(np.linalg.norm(query))
        with np.errstate(divide="ignore", invalid="ignore"):
            cos = np.where(denom > 0, dots / denom, np.float32(0))
        return (np.float32(1) - cos).astype(np.float32)

    def top(self, query: np.ndarray, k: int, keep: np.ndarray | None) -> list[tuple[bytes, float]]:
        """The ``k`` best rows as ``(key, score)``, best first, among those ``keep`` marks."""
        if self.n == 0:
            return []
        candidates = np.arange(self.n) if keep is None else np.nonzero(keep)[0]
        if candidates.size == 0:
            return []
        # a filter keeping few rows: score those alone (a copy of them costs less than all)
        scores = self.scores(query, candidates) if candidates.size * 2 < self.n else self.scores(query)[candidates]
        order = -scores if self.distance == "DOT_PRODUCT" else scores
        if candidates.size > k:
            # every row at least as good as the k-th, so that ties at the edge are all seen
            kth = np.partition(order, k - 1)[k - 1]
            pick = order <= kth
            candidates, order = candidates[pick], order[pick]
            scores = scores[pick]
        keys = self.keys
        ranked = sorted(zip(order.tolist(), candidates.tolist(), scores.tolist(), strict=True),
                        key=lambda p: (p[0], keys[p[1]]))
        return [(keys[row], float(score)) for _, row, score in ranked[:k]]


F32_MAX = float(np.finfo(np.float32).max)


def parse(elements: Sequence[Any]) -> np.ndarray | None:
    """A List's elements as float64 when every one is an N whose value is finite and within
    float32's range; else None (the caller finds the offending element for its message)."""
    try:
        numbers = np.array([e["N"] for e in elements], dtype=np.float64)
    except (KeyError, TypeError, ValueError):
        return None
    if numbers.size and not (np.isfinite(numbers).all() and np.abs(numbers).max() <= F32_MAX):
        return None
    return numbers


def pack(values: np.ndarray) -> bytes:
    """Numbers as little-endian float32 bytes (the precision the index stores)."""
    return values.astype("<f4").tobytes()


def as_query(values: np.ndarray) -> np.ndarray:
    return values.astype(np.float32)
