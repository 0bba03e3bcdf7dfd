"""The partition map of a table or GSI: contiguous ranges of its key space, and splits.

Items are stored under ``<prefix><h(pk)><pk><sk>`` with ``h`` a fixed 8-byte hash
(docs/rules.md, "Storage layout"), so a partition is a contiguous range of the key *suffix*
``<h(pk)><pk><sk>`` and a split is a metadata change. A partition is identified by its
start: ``starts[0] == b""`` and partition ``i`` holds suffixes ``starts[i] <= k <
starts[i+1]``; lookup is a bisect, O(log n). Boundaries are byte strings: usually 8-byte
hash values, longer when a split for heat cut an item collection at a sort key.

Rules implemented here (docs/capacity.md, "Partitions", "Admission at the table" and
"On-demand tables"):

* Initial count ``max(ceil(size / partition size), ceil(RCU / 3000 + WCU / 1000))``, at
  least 1 (the 2017 developer guide's formula, GuidelinesForTables.md); an on-demand
  table starts warm for 12,000 reads / 4,000 writes per second (warm-throughput.html),
  i.e. 4 partitions; WarmThroughput pre-splits to ``ceil(max(R / 3000, W / 1000))``.
* A partition serves at most 3,000 RCU and 1,000 WCU (bp-partition-key-design.html).
* Raising throughput beyond what the partitions carry **doubles** the count; a full
  partition splits in two; partitions never merge.
* Split for heat at the key where the observed consumption is balanced; never inside one
  partition key's items when the table has an LSI (item collections cannot span
  partitions, LSI.md), and not at all when a single key carries the load.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from typing import Any

HASH_BYTES = 8
HASH_SPACE = 1 << (8 * HASH_BYTES)
DEFAULT_PARTITION_SIZE = 10 * 1024**3
PARTITION_READ_MAX = 3000
PARTITION_WRITE_MAX = 1000
ON_DEMAND_WARM_READ = 12000
ON_DEMAND_WARM_WRITE = 4000
HEAT_SAMPLES = 256  # recent (key, units) samples kept per partition for split decisions
THROTTLED_KEYS = 4096  # distinct keys whose throttles a partition counts
READ_WEIGHT = PARTITION_WRITE_MAX / PARTITION_READ_MAX  # RCU/3000 + WCU/1000 <= 1


def _ceil_div(a: float, b: float) -> int:
    return int(-(-a // b))


def partitions_for_throughput(rcu: float, wcu: float) -> int:
    """``ceil(RCU / 3000 + WCU / 1000)``, at least 1, computed exactly as ``(RCU + 3 WCU) / 3000``."""
    return max(1, _ceil_div(rcu + 3 * wcu, PARTITION_READ_MAX))


def partitions_for_size(size_bytes: int, partition_size: int = DEFAULT_PARTITION_SIZE) -> int:
    return max(1, _ceil_div(size_bytes, partition_size))


def partitions_for_warm(read_per_second: float, write_per_second: float) -> int:
    """Partitions needed to sustain the given warm throughput (each read *or* write side)."""
    return max(
        1, _ceil_div(read_per_second, PARTITION_READ_MAX), _ceil_div(write_per_second, PARTITION_WRITE_MAX)
    )


def initial_partition_count(
    *,
    rcu: float = 0,
    wcu: float = 0,
    on_demand: bool = False,
    size_bytes: int = 0,
    partition_size: int = DEFAULT_PARTITION_SIZE,
    warm_read: float = 0,
    warm_write: float = 0,
) -> int:
    if on_demand:
        base = partitions_for_warm(ON_DEMAND_WARM_READ, ON_DEMAND_WARM_WRITE)
    else:
        base = partitions_for_throughput(rcu, wcu)
    return max(
        base, partitions_for_size(size_bytes, partition_size), partitions_for_warm(warm_read, warm_write)
    )


def _hash_int(boundary: bytes) -> int:
    """The 8-byte hash prefix of a boundary as an integer (short boundaries zero-padded)."""
    return int.from_bytes(boundary[:HASH_BYTES].ljust(HASH_BYTES, b"\0"), "big")


class Partition:
    """One key range: its start, exact stored size and item count, a ring of recent
    ``(key, read units, write units)`` accesses (O(1) per request) used to pick a split
    key and report the hottest keys, and throttle counts per key. ``buckets`` is the
    throughput module's per-partition state (``throughput.PartitionBuckets``)."""

    __slots__ = ("start", "size_bytes", "item_count", "keys", "units", "pos", "throttled", "buckets")

    def __init__(self, start: bytes, size_bytes: int = 0, item_count: int = 0) -> None:
        self.start = start
        self.size_bytes = size_bytes
        self.item_count = item_count
        self.keys: list[bytes | None] | None = None
        self.units: list[tuple[float, float]] | None = None
        self.pos = 0
        self.throttled: dict[bytes, int] | None = None
        self.buckets: Any = None

    def record(self, key: bytes, read: float, write: float) -> None:
        keys = self.keys
        if keys is None:
            keys = self.keys = [None] * HEAT_SAMPLES
            self.units = [(0.0, 0.0)] * HEAT_SAMPLES
        i = self.pos
        keys[i] = key
        self.units[i] = (read, write)  # type: ignore[index]
        self.pos = (i + 1) % HEAT_SAMPLES

    def record_throttle(self, key: bytes) -> None:
        """Count a throttle of ``key``: exact for every key while at most
        ``THROTTLED_KEYS`` distinct keys are tracked; past that the least throttled
        key makes room."""
        counts = self.throttled
        if counts is None:
            counts = self.throttled = {}
        if key not in counts and len(counts) >= THROTTLED_KEYS:
            del counts[min(counts, key=counts.__getitem__)]
        counts[key] = counts.get(key, 0) + 1

    def samples(self) -> list[tuple[bytes, float]]:
        """``(key, weight)`` of the recent accesses, weighted by their share of the
        partition ceiling (a read unit is a third of a write unit)."""
        if self.keys is None or self.units is None:
            return []
        return [(k, r * READ_WEIGHT + w) for k, (r, w) in zip(self.keys, self.units, strict=True) if k is not None]

    def hot_keys(self, limit: int = 10) -> tuple[list[tuple[bytes, float]], list[tuple[bytes, int]]]:
        """Hottest keys: by consumed units (reads plus writes) in the recent sample, and
        by throttle count."""
        by_units: dict[bytes, float] = {}
        if self.keys is not None and self.units is not None:
            for k, (r, w) in zip(self.keys, self.units, strict=True):
                if k is not None:
                    by_units[k] = by_units.get(k, 0.0) + r + w
        top_u = sorted(by_units.items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        top_t = sorted((self.throttled or {}).items(), key=lambda kv: (-kv[1], kv[0]))[:limit]
        return top_u, top_t

    def _keep_samples(self, lo: bytes, hi: bytes | None) -> None:
        """Drop samples outside ``[lo, hi)`` (after a split)."""

        def inside(k: bytes | None) -> bool:
            return k is not None and k >= lo and (hi is None or k < hi)

        if self.keys is not None and self.units is not None:
            kept = [(k, u) for k, u in zip(self.keys, self.units, strict=True) if inside(k)]
            self.keys = [k for k, _ in kept] + [None] * (HEAT_SAMPLES - len(kept))
            self.units = [u for _, u in kept] + [(0.0, 0.0)] * (HEAT_SAMPLES - len(kept))
            self.pos = len(kept) % HEAT_SAMPLES
        if self.throttled is not None:
            self.throttled = {k: n for k, n in self.throttled.items() if inside(k)}


class PartitionMap:
    """Contiguous ranges of a key space; only ever split, never merged."""

    __slots__ = ("starts", "parts", "lsi", "partition_size", "measure")

    def __init__(
        self, count: int = 1, *, lsi: bool = False, partition_size: int = DEFAULT_PARTITION_SIZE
    ) -> None:
        count = max(1, count)
        # even ranges of the 8-byte hash space: partition i starts at i * 2**64 // count
        self.starts = [b""] + [(i * HASH_SPACE // count).to_bytes(HASH_BYTES, "big") for i in range(1, count)]
        self.parts = [Partition(s) for s in self.starts]
        self.lsi = lsi
        self.partition_size = partition_size
        # (start, end) -> exact (size, item count) of a key range, read from storage; set
        # by the table's capacity so every split gives its children their real contents
        self.measure: Callable[[bytes, bytes | None], tuple[int, int]] | None = None

    # persistence ------------------------------------------------------------------------

    def snapshot(self) -> list[tuple[bytes, int, int]]:
        """``(start, size_bytes, item_count)`` per partition, to store in metadata."""
        return [(p.start, p.size_bytes, p.item_count) for p in self.parts]

    @classmethod
    def from_snapshot(
        cls,
        rows: list[tuple[bytes, int, int]],
        *,
        lsi: bool = False,
        partition_size: int = DEFAULT_PARTITION_SIZE,
    ) -> PartitionMap:
        pm = cls(1, lsi=lsi, partition_size=partition_size)
        rows = sorted(rows) or [(b"", 0, 0)]
        if rows[0][0] != b"":
            raise ValueError("the first partition must start at the beginning of the key space")
        pm.starts = [r[0] for r in rows]
        pm.parts = [Partition(s, size, count) for s, size, count in rows]
        return pm

    # lookup -----------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self.starts)

    def find(self, key: bytes) -> int:
        """Index of the partition holding key suffix ``key`` (``<h(pk)><pk><sk>``)."""
        return bisect_right(self.starts, key) - 1

    def bounds(self, i: int) -> tuple[bytes, bytes | None]:
        """``[start, end)`` of partition ``i``; ``end`` is ``None`` for the last one."""
        return self.starts[i], (self.starts[i + 1] if i + 1 < len(self.starts) else None)

    # sizes ------------------------------------------------------------------------------

    def note_write(self, i: int, size_delta: int, count_delta: int = 0) -> bool:
        """Account a write's change of stored bytes/items; True when the partition has
        outgrown the partition size and should split."""
        part = self.parts[i]
        part.size_bytes += size_delta
        part.item_count += count_delta
        return part.size_bytes > self.partition_size

    # splits -----------------------------------------------------------------------------

    def hash_midpoint(self, i: int) -> bytes | None:
        """The 8-byte hash halfway through partition ``i``'s range, or ``None`` when the
        range holds a single hash value (it can then only split at a longer key)."""
        start, end = self.bounds(i)
        lo = _hash_int(start)
        hi = HASH_SPACE if end is None else _hash_int(end) + (1 if len(end) > HASH_BYTES else 0)
        mid = (lo + hi) // 2
        if mid >= HASH_SPACE:
            return None
        at = mid.to_bytes(HASH_BYTES, "big")
        if at <= start or (end is not None and at >= end):
            return None
        return at

    def split(self, i: int, at: bytes, lower_size: int | None = None, lower_count: int | None = None) -> int:
        """Split partition ``i`` at key ``at`` (the upper part starts there); returns the new
        partition's index (``i + 1``). With an LSI the boundary is cut to the hash prefix,
        so one partition key's items stay together. The children's sizes and counts are
        ``lower_*`` when given, else measured (``measure``), else halves."""
        if self.lsi and len(at) > HASH_BYTES:
            at = at[:HASH_BYTES]
        start, end = self.bounds(i)
        if not (at > start and (end is None or at < end)):
            raise ValueError("split key outside the partition")
        part = self.parts[i]
        if lower_size is None and lower_count is None and self.measure is not None:
            up_size, up_count = self.measure(at, end)
            lower_size, lower_count = part.size_bytes - up_size, part.item_count - up_count
        low_size = part.size_bytes // 2 if lower_size is None else lower_size
        low_count = part.item_count // 2 if lower_count is None else lower_count
        upper = Partition(at, part.size_bytes - low_size, part.item_count - low_count)
        part.size_bytes, part.item_count = low_size, low_count
        if part.keys is not None or part.throttled is not None:
            upper.keys = list(part.keys) if part.keys is not None else None
            upper.units = list(part.units) if part.units is not None else None
            upper.throttled = dict(part.throttled) if part.throttled is not None else None
            part._keep_samples(start, at)
            upper._keep_samples(at, end)
        self.starts.insert(i + 1, at)
        self.parts.insert(i + 1, upper)
        return i + 1

    def split_all(self) -> int:
        """Double the partition count where possible: every partition splits at its hash
        midpoint. Returns how many splits happened."""
        done = 0
        for i in range(len(self.starts) - 1, -1, -1):
            at = self.hash_midpoint(i)
            if at is not None:
                self.split(i, at)
                done += 1
        return done

    def ensure_count(self, needed: int) -> bool:
        """Double the count until it reaches ``needed`` (throughput increases, on-demand
        peaks, warm throughput); True if anything split."""
        changed = False
        while len(self.starts) < needed:
            if not self.split_all():
                break
            changed = True
        return changed

    def balanced_split_key(self, i: int) -> bytes | None:
        """The key that splits partition ``i``'s recent consumption most evenly, or
        ``None`` when one key (one partition key with an LSI) carries it all."""
        weights: dict[bytes, float] = {}
        for key, units in self.parts[i].samples():
            k = key[:HASH_BYTES] if self.lsi else key
            weights[k] = weights.get(k, 0.0) + units
        if len(weights) < 2:
            return None
        keys = sorted(weights)
        total = sum(weights.values())
        best, best_gap, left = None, None, 0.0
        for j in range(1, len(keys)):
            left += weights[keys[j - 1]]
            gap = abs(total - 2 * left)
            if best_gap is None or gap < best_gap:
                best, best_gap = keys[j], gap
        start, end = self.bounds(i)
        if best is None or best <= start or (end is not None and best >= end):
            return None
        return best

    # admin ------------------------------------------------------------------------------

    def describe(self, i: int) -> dict[str, Any]:
        start, end = self.bounds(i)
        part = self.parts[i]
        return {
            "index": i,
            "start": start.hex(),
            "end": end.hex() if end is not None else None,
            "item_count": part.item_count,
            "size_bytes": part.size_bytes,
        }
