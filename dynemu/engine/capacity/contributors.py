"""Exact per-key consumption and throttle counts of one table or GSI, in bounded memory.

Every admitted request's consumed units and every throttle is counted against its key,
twice: by partition key (the first 8 bytes of a key suffix, ``h(pk)``, stand for the
partition key; a GSI's suffix starts with ``h(index pk)``, so a GSI's keys are grouped by
index key) and by item (the whole suffix: partition and sort key; a GSI entry's suffix
ends with the table key, which readers drop when they group by index key).

Counting uses weighted Space-Saving (Metwally, Agrawal and El Abbadi, 2005, "Efficient
computation of frequent and top-k elements in data streams") with its evictions done in
batches: a counter holds at most ``2 * capacity`` keys; on reaching that it keeps the
``capacity`` largest and drops the rest, and ``floor`` becomes the largest count dropped so
far. A key that arrives while not held starts at ``floor``, which is also its ``error``.
Hence, as with one eviction at a time,

* a key's figure is exact when its error is 0 (always, while nothing was dropped), and never
  more than ``error`` too high otherwise;
* a key that is not listed has a true figure of at most ``floor`` (``bound``).

A new key costs a dictionary insert; the sort of a batch, spread over the ``capacity`` keys
that filled it, costs less than a heap's two operations per new key.

One set of counters per clock minute (the minutes of the last ``keep`` minutes are kept)
serves "the last N minutes" and Contributor Insights' per-minute top-N series; each
completed minute is folded into run-long counters (``whole``), which serve "the whole run",
and, while Contributor Insights is on, its top keys are archived for a day (``archive``:
the older minutes of a rule report, bounded by ``ARCHIVE_MINUTES`` x 4 x ``ARCHIVE_TOP`` rows).
Per request it is two dictionary updates; the minute's roll costs O(capacity log capacity).
"""

from __future__ import annotations

import heapq
from collections import deque
from typing import Any

from dynemu.storage import keyspace

KEY_HASH = 8  # bytes of h(pk) that open every key suffix
MINUTE_CAPACITY = 512  # keys per counter and minute
WHOLE_CAPACITY = 2048  # keys per run-long counter
KEEP_MINUTES = 10  # minutes kept (the dashboard shows 5)
KINDS = ("pk_units", "pk_throttles", "item_units", "item_throttles", "pk_requests", "item_requests")
PK_KINDS = ("pk_units", "pk_throttles", "pk_requests")
ITEM_KINDS = ("item_units", "item_throttles", "item_requests")
# Contributor Insights' longer tail: each completed minute's top keys of the counters its rules
# report, for a day (engine/insights.py); at most ARCHIVE_MINUTES x 4 x ARCHIVE_TOP rows.
ARCHIVE_KINDS = ("pk_requests", "pk_throttles", "item_requests", "item_throttles")
# UNSURE: CloudWatch's API reference gives no retention for Contributor Insights' data; a day of
# minutes covers an incident's hours within a bound
ARCHIVE_MINUTES = 24 * 60
ARCHIVE_TOP = 10  # the default MaxContributorCount of a report


class SpaceSaving:
    """Weighted Space-Saving (see the module doc): ``counts[key]`` over-estimates the key's
    total by at most ``errors[key]``; ``bound()`` is the most an unlisted key can have."""

    __slots__ = ("capacity", "counts", "errors", "samples", "floor")

    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.counts: dict[bytes, float] = {}
        self.errors: dict[bytes, float] = {}
        self.samples: dict[bytes, bytes] = {}  # a whole key suffix seen under each key (to name it)
        self.floor = 0.0  # the largest count dropped so far

    def add(self, key: bytes, weight: float, error: float = 0.0, sample: bytes | None = None) -> None:
        counts = self.counts
        v = counts.get(key)
        if v is not None:
            counts[key] = v + weight
            if error:
                self.errors[key] = self.errors.get(key, 0.0) + error
            return
        floor = self.floor
        if floor:  # the key may have been dropped with up to ``floor``
            weight += floor
            error += floor
        counts[key] = weight
        if error:
            self.errors[key] = error
        if sample is not None:
            self.samples[key] = sample
        if len(counts) >= 2 * self.capacity:
            self.prune()

    def prune(self) -> None:
        """Keep the ``capacity`` largest counts (ties: the smaller key), drop the others."""
        counts, keep = self.counts, self.capacity
        if len(counts) <= keep:
            return
        ranked = sorted(counts.values(), reverse=True)
        cut = ranked[keep - 1]  # the smallest count kept
        self.floor = max(self.floor, ranked[keep])  # the largest count dropped
        dropped = [key for key, v in counts.items() if v < cut]
        ties = [key for key, v in counts.items() if v == cut]
        room = keep - (len(counts) - len(dropped) - len(ties))  # ties that stay
        if room < len(ties):
            ties.sort()
            dropped.extend(ties[room:])
        errors, samples = self.errors, self.samples
        for key in dropped:
            del counts[key]
            errors.pop(key, None)
            samples.pop(key, None)

    def bound(self) -> float:
        """The most any key not listed can have consumed (0 while nothing was dropped)."""
        return self.floor

    def merge(self, other: SpaceSaving) -> None:
        """Fold ``other`` in (its errors carried over; the result keeps the Space-Saving bounds)."""
        for key in sorted(other.counts):  # a fixed order: the same stream gives the same result
            self.add(key, other.counts[key], other.errors.get(key, 0.0), other.samples.get(key))

    def top(self, n: int) -> list[tuple[bytes, float, float]]:
        """``(key, count, error)`` of the ``n`` largest counts (ties in key order)."""
        rows = heapq.nsmallest(n, self.counts.items(), key=_rank)
        return [(k, v, self.errors.get(k, 0.0)) for k, v in rows]


def _rank(row: tuple[bytes, float]) -> tuple[float, bytes]:
    return -row[1], row[0]


def _counters(capacity: int, items_apart: bool = True) -> dict[str, SpaceSaving]:
    """A counter per kind; without ``items_apart`` (a table without a sort key, whose item is
    its partition key) each item kind is its partition key kind's counter."""
    counters = {kind: SpaceSaving(capacity) for kind in (KINDS if items_apart else PK_KINDS)}
    if not items_apart:
        for pk_kind, item_kind in zip(PK_KINDS, ITEM_KINDS, strict=True):
            counters[item_kind] = counters[pk_kind]
    return counters


class Contributors:
    """Per-key consumed units and throttles of one table or GSI (see the module doc)."""

    __slots__ = ("minute", "current", "minutes", "whole", "keep", "capacity", "since", "insights",
                 "count_requests", "_until", "_pk_units", "_item_units", "archive", "items_apart", "_kinds")

    def __init__(
        self, now: float, keep: int = KEEP_MINUTES, capacity: int = MINUTE_CAPACITY, items_apart: bool = True
    ) -> None:
        # ``items_apart`` False: a table without a sort key, whose items are its partition keys,
        # counted once, each by its whole key suffix (the item kinds read the partition key
        # counters; a suffix names its key, so no sample is kept)
        self.items_apart = items_apart
        self._kinds = KINDS if items_apart else PK_KINDS
        self.keep = keep
        self.capacity = capacity
        self.since = now  # counting began (the "whole run" starts here)
        self.minute = int(now // 60)
        self._until = (self.minute + 1) * 60.0  # the open minute ends here
        self.current = _counters(capacity, items_apart)
        self._open_units()
        self.minutes: dict[int, dict[str, SpaceSaving]] = {}  # completed minutes, the last ``keep``
        self.whole = _counters(WHOLE_CAPACITY, items_apart)
        self.insights: Any = None  # Contributor Insights' setting (engine/insights.py)
        self.count_requests = False  # requests per key too (Contributor Insights' "accessed")
        # with Contributor Insights on: (minute start, {kind: ((whole key suffix, count), ...)})
        self.archive: deque[tuple[int, dict[str, tuple[tuple[bytes, float], ...]]]] = deque(maxlen=ARCHIVE_MINUTES)

    def _roll(self, minute: int) -> None:
        done = self.current
        if any(c.counts for c in done.values()):
            for c in done.values():  # a kept minute holds ``capacity`` keys at most
                c.prune()
            self.minutes[self.minute] = done
            for kind in self._kinds:
                self.whole[kind].merge(done[kind])
            if self.insights is not None and self.insights.enabled:  # O(capacity), as the merges above
                self.archive.append((self.minute * 60, {
                    kind: tuple((done[kind].samples.get(k, k), v) for k, v, _ in done[kind].top(ARCHIVE_TOP))
                    for kind in ARCHIVE_KINDS if kind in self._kinds and done[kind].counts
                }))  # fmt: skip
        self.current = _counters(self.capacity, self.items_apart)
        self._open_units()
        self.minute = minute
        self._until = (minute + 1) * 60.0
        for m in [m for m in self.minutes if m <= minute - self.keep]:
            del self.minutes[m]

    def _open_units(self) -> None:
        """The open minute's consumed-units counts, read directly on the request path."""
        c = self.current
        self._pk_units = c["pk_units"].counts
        self._item_units = c["item_units"].counts if self.items_apart else None

    # the request path: one call per debit and per throttle ----------------------------------

    def consumed(self, key: bytes, units: float, now: float) -> None:
        if now >= self._until:
            self._roll(int(now // 60))
        # a clock that moved back counts in the open minute; a key already held costs two
        # dictionary updates (SpaceSaving.add only for a new key)
        counts = self._item_units
        if counts is None:  # a table without a sort key: its key suffix is its partition key
            counts = self._pk_units
            v = counts.get(key)
            if v is not None:
                counts[key] = v + units
            else:
                self.current["pk_units"].add(key, units)
            if self.count_requests:
                self.current["pk_requests"].add(key, 1.0)
            return
        pk = key[:KEY_HASH]
        v = counts.get(key)
        if v is not None:
            counts[key] = v + units
        else:
            self.current["item_units"].add(key, units)
        counts = self._pk_units
        v = counts.get(pk)
        if v is not None:
            counts[pk] = v + units
        else:
            self.current["pk_units"].add(pk, units, sample=key)
        if self.count_requests:
            c = self.current
            c["pk_requests"].add(pk, 1.0, sample=key)
            c["item_requests"].add(key, 1.0)

    def throttled(self, key: bytes, now: float) -> None:
        if now >= self._until:
            self._roll(int(now // 60))
        c = self.current
        if not self.items_apart:  # a table without a sort key: its key suffix is its partition key
            c["pk_throttles"].add(key, 1.0)
            if self.count_requests:  # a throttled request was an access too
                c["pk_requests"].add(key, 1.0)
            return
        pk = key[:KEY_HASH]
        c["pk_throttles"].add(pk, 1.0, sample=key)
        c["item_throttles"].add(key, 1.0)
        if self.count_requests:
            c["pk_requests"].add(pk, 1.0, sample=key)
            c["item_requests"].add(key, 1.0)

    # readers ---------------------------------------------------------------------------------

    def sync(self, now: float) -> None:
        """Close the minutes that ended before ``now``."""
        if now >= self._until:
            self._roll(int(now // 60))

    def window(self, now: float, minutes: int | None) -> tuple[dict[str, SpaceSaving], float]:
        """The counters of the last ``minutes`` clock minutes (the current one included), or
        of the whole run (``None``), and the first second they cover."""
        self.sync(now)
        if minutes is None:
            out = _counters(WHOLE_CAPACITY, self.items_apart)
            for kind in self._kinds:
                out[kind].merge(self.whole[kind])
                out[kind].merge(self.current[kind])
            return out, self.since
        first = self.minute - minutes + 1
        out = _counters(self.capacity * minutes, self.items_apart)
        for m in sorted(self.minutes):
            if m >= first:
                for kind in self._kinds:
                    out[kind].merge(self.minutes[m][kind])
        for kind in self._kinds:
            out[kind].merge(self.current[kind])
        return out, max(self.since, first * 60.0)

    def per_minute(self, now: float) -> list[tuple[int, dict[str, SpaceSaving]]]:
        """``(minute start, counters)`` of the kept minutes and the open one, oldest first."""
        self.sync(now)
        rows = sorted(self.minutes.items())
        rows.append((self.minute, self.current))
        return [(m * 60, c) for m, c in rows]


def describe(counter: SpaceSaving, n: int, name: Any, field: str) -> dict[str, Any]:
    """The top ``n`` of ``counter`` as ``{"rows": [{"key", field[, "error"]}], "bound"}``,
    ``name(suffix)`` naming each key (from a whole key suffix seen under it); rows that name the same key are added up (a GSI's
    items grouped by index key)."""
    merged: dict[str, dict[str, Any]] = {}
    for key, value, error in counter.top(max(n * 4, n)):
        label = name(counter.samples.get(key, key))
        row = merged.setdefault(repr(label), {"key": label, field: 0.0, "error": 0.0})
        row[field] += value
        row["error"] += error
    rows = sorted(merged.values(), key=lambda r: (-r[field], repr(r["key"])))[:n]
    for r in rows:  # "error" only where a figure may be over: an exact row is {"key", field}
        r[field] = round(r[field], 1) if field == "units" else int(r[field])
        error = round(r.pop("error"), 1)
        if error:
            r["error"] = error
    return {"rows": rows, "bound": round(counter.bound(), 1)}


def key_namer(spec: Any, index: str | None = None, item: bool = False) -> Any:
    """``suffix -> key value`` for a table (``index`` None) or one of its GSIs: the partition
    key, or with ``item`` ``{"partition": pk, "sort": sk}`` (a GSI's: the index keys; a key
    of several attributes is a list of values)."""
    if index is None:
        hk = (spec.hash_key.type,)
        rk = (spec.range_key.type,) if spec.range_key is not None else ()
    else:
        ix = next((i for i in spec.indexes if i.name == index), None)
        if ix is None:
            return lambda suffix: suffix.hex()
        hk = tuple(a.type for a in ix.hash_keys)
        rk = tuple(a.type for a in ix.range_keys)

    def values(types: tuple[str, ...], suffix: bytes, pos: int) -> tuple[Any, int]:
        out = []
        for t in types:
            v, pos = keyspace.decode_key_value(t, suffix, pos)
            out.append(v)
        return (out[0] if len(out) == 1 else out), pos

    def name(suffix: bytes) -> Any:
        try:
            pk, pos = values(hk, suffix, KEY_HASH)
        except Exception:  # a key too short to decode: show its bytes
            return suffix.hex()
        if not item or not rk:
            return pk
        try:
            sk = values(rk, suffix, pos)[0]
        except Exception:  # a Query's partition prefix: the whole item collection
            return {"partition": pk, "sort": None}
        return {"partition": pk, "sort": sk}

    return name


def _index_sort(spec: Any, index: str) -> bool:
    ix = next((i for i in spec.indexes if i.name == index), None)
    return ix is not None and bool(ix.range_keys)


def hot_keys(
    c: Contributors, spec: Any, index: str | None, now: float, minutes: int | None, n: int = 10
) -> dict[str, Any]:
    """The hottest keys of a table or GSI over the last ``minutes`` minutes (``None``: the
    whole run): by partition key (a GSI's: by index key) and by item, by consumed units and
    by throttles, each row with its Space-Saving ``error`` and each list with its ``bound``."""
    counters, since = c.window(now, minutes)
    pk, it = key_namer(spec, index), key_namer(spec, index, item=True)
    out: dict[str, Any] = {
        "window": {"minutes": minutes, "since": since, "until": now},
        # without a sort key an item is its partition key: the item lists repeat the others
        "has_sort": bool(spec.range_key is not None if index is None else _index_sort(spec, index)),
        "keys_per_counter": c.capacity if minutes is not None else WHOLE_CAPACITY,
    }
    for field, name, kind, label in (
        ("by_consumed_units", pk, "pk_units", "units"),
        ("by_throttles", pk, "pk_throttles", "throttles"),
        ("items_by_consumed_units", it, "item_units", "units"),
        ("items_by_throttles", it, "item_throttles", "throttles"),
    ):
        d = describe(counters[kind], n, name, label)
        out[field] = d["rows"]
        out[f"{field}_bound"] = d["bound"]
    return out
