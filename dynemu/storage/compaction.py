"""A LevelDB store's full compaction, run on its own thread once a burst of writes ends.

Why (issue 29, bench/README.md). A burst of writes leaves LevelDB's tree with its newest data
in the upper levels: with random keys, a read then consults one table per level. LevelDB 1.22
charges every read that consults more than one table to the first one (a Bloom filter that
rules a table out still counts), and after ``table size / 16 KB`` charges it compacts that
table into the next level. So after a large load, the reads that follow pay, spread over tens
of thousands of them, for rewriting the upper levels into the bottom one: at 1 M items of 1 KB
a GetItem cost 0.77 of its cost at 100k (22 % of the server's CPU in those compactions), and
0.95-0.97 once they were done. LevelDB has no option that turns them off.

What. When the store has had no write for ``QUIET`` seconds, nor one stalled in LevelDB
(waited on this thread's own event, never the engine's clock), a read may consult more than
one table (tables in level 0 besides another, or in two levels), and more than LevelDB's
memory table (``MIN_BURST``) was written since the last full compaction, this thread
compacts the whole key range, which leaves one level to read (a burst that LevelDB's own
compactions have left in one level already is settled without it: nothing is owed). That
rewrite costs what the reads would have had LevelDB do anyway: the tables a burst of random
keys leaves span the key range, so pushing them down rewrites the bottom level's tables
they overlap, whether LevelDB does it for charged reads or this thread does it at once (in a tree this thread has
compacted, the levels between are empty, so a table charged into them is cut to overlap
40 MB of the bottom each, and each of those is charged again). The range is compacted in
slices of about ``SLICE_BYTES`` of tables, so that a burst that starts meanwhile stops it at
the next slice (LevelDB runs its own compactions again; the next quiet period goes on from
that slice), and ``close`` waits for one slice at most.

plyvel's ``compact_range`` releases the GIL: the request path goes on while it runs. LevelDB
serves reads and writes concurrently with it; a write never waits for it unless 12 memory
tables' worth (48 MB) is written within one slice.
"""

from __future__ import annotations

import itertools
import logging
import re
import threading
from typing import Any, Protocol

log = logging.getLogger("dynemu.storage")

QUIET = 0.5  # seconds without a write that end a burst
# Bytes written since the last full compaction, at least: LevelDB's memory table (4 MB), so
# that a store written a little at a time (a few updates between reads) is left to LevelDB.
MIN_BURST = 4 * 1024 * 1024
SLICE_BYTES = 64 * 1024 * 1024  # of tables, per compact_range call

# One table in LevelDB's "leveldb.sstables" property: ` 12:4194304['<smallest>' @ 9 : 1 .. `.
_TABLE = re.compile(rb"^ \d+:(\d+)\['(.*)' @ \d+ : \d+ \.\. '", re.MULTILINE)
_ESCAPE = re.compile(rb"\\x([0-9a-f]{2})")


class Compactable(Protocol):
    """What the compactor needs of its store (LevelDBStore)."""

    path: str
    written: int  # bytes of keys and values written through the store, ever
    writing: bool  # a write is in LevelDB (which may stall it)

    def compact_slice(self, start: bytes, stop: bytes) -> bool: ...

    def tree(self) -> tuple[bytes | None, bytes | None, bytes] | None: ...

    def tables_per_level(self) -> list[int]: ...


def slices(first: bytes, last: bytes, sstables: bytes, size: int = SLICE_BYTES) -> list[tuple[bytes, bytes]]:
    """``[first, last]`` cut into inclusive ranges holding about ``size`` bytes of the tables
    listed in ``sstables``, at tables' smallest keys. A key misread from the listing (its
    escaping is not reversible for every key) only moves a cut: the ranges still cover
    ``[first, last]``."""
    tables = [(_ESCAPE.sub(_byte, m.group(2)), int(m.group(1))) for m in _TABLE.finditer(sstables)]
    cuts: list[bytes] = []
    filled = 0
    for smallest, n in sorted(tables):
        if filled >= size:
            cuts.append(smallest)
            filled = 0
        filled += n
    return list(itertools.pairwise([first, *sorted(c for c in set(cuts) if first < c < last), last]))


def encode_owed(owed: tuple[int, bytes | None]) -> bytes:
    written, resume = owed
    return b"%d\n" % written + (b"" if resume is None else b"\n" + resume)


def decode_owed(raw: bytes | None) -> tuple[int, bytes | None]:
    """``encode_owed``'s value; nothing owed for a missing or unreadable one."""
    if raw is None:
        return 0, None
    written, _, resume = raw.partition(b"\n")
    try:
        return max(0, int(written)), resume[1:] if resume else None
    except ValueError:
        return 0, None


def _byte(match: re.Match[bytes]) -> bytes:
    return bytes((int(match.group(1), 16),))


class Compactor:
    """The thread that compacts ``store`` after each burst of writes (see the module)."""

    def __init__(self, store: Compactable, owed: tuple[int, bytes | None] = (0, None)) -> None:
        """``owed``: what the store's previous compactor left undone (``owed``)."""
        self._store = store
        self._stop = threading.Event()
        # ``written`` when the last full compaction started (before this open, by what is owed)
        self._done_at = store.written - owed[0]
        self._resume: bytes | None = owed[1]  # where a stopped compaction goes on
        self.runs = 0  # full compactions finished
        self.stopped = 0  # full compactions stopped by a burst (or close) before their end
        self.ticks = 0  # quiet periods looked at (tests wait on these)
        self.busy = False  # compacting: ``close`` would wait for the slice under way
        self.changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name=f"dynemu-compaction {store.path}", daemon=True)
        self._thread.start()

    def due(self, written: int) -> bool:
        """A burst written since the last full compaction, and a read may consult two tables."""
        return written - self._done_at >= MIN_BURST and self._levels() == "several"

    def _levels(self) -> str:
        """"several" when a read may consult two tables (tables in level 0 besides another, or
        in two levels), "one" when not, "unknown" when the store cannot be compacted now."""
        tables = self._store.tables_per_level()
        if not tables:
            return "unknown"
        return "several" if tables[0] + sum(1 for n in tables[1:] if n) >= 2 else "one"

    def _run(self) -> None:
        seen = self._store.written
        while not self._stop.wait(QUIET):
            written = self._store.written
            if written == seen and not self._store.writing:
                self._quiet(written)
            seen = written
            with self.changed:
                self.ticks += 1
                self.changed.notify_all()

    def _quiet(self, written: int) -> None:
        """A quiet period: compact when due. A burst that LevelDB's own compactions have left
        in one level already is settled as a finished compaction would be (nothing owed)."""
        if written - self._done_at < MIN_BURST:
            return
        levels = self._levels()
        if levels == "one":
            self._done_at, self._resume = written, None
            return
        if levels == "unknown":
            return
        self.busy = True
        try:
            finished = self._compact(written)
        except Exception:  # never fatal: LevelDB's own compactions go on
            log.exception("background compaction of %s failed", self._store.path)
            finished = False
        finally:
            self.busy = False
        if finished:
            self._done_at = written
        with self.changed:
            self.runs += finished
            self.stopped += not finished

    def _compact(self, written: int) -> bool:
        """Compact the whole key range slice by slice, from where a stopped run left off:
        False if a write or ``close`` came first (or the store cannot be compacted now)."""
        tree = self._store.tree()
        if tree is None:
            return False
        first, last, sstables = tree
        if first is None or last is None:
            return True  # empty
        if self._resume is not None and first < self._resume <= last:
            first = self._resume
        for start, stop in slices(first, last, sstables, SLICE_BYTES):
            if self._stop.is_set() or self._store.written != written or self._store.writing:
                self._resume = start
                return False
            if not self._store.compact_slice(start, stop):
                self._resume = start
                return False
        self._resume = None
        return True

    def wait(self, predicate: Any, timeout: float = 120.0) -> bool:
        """Block until ``predicate(self)`` holds (tests), at most ``timeout`` seconds."""
        with self.changed:
            return self.changed.wait_for(lambda: predicate(self), timeout)

    def owed(self) -> tuple[int, bytes | None]:
        """The bytes written since the last full compaction started, and where a stopped one
        goes on (None: from the start): what the store's next open owes (read once closed)."""
        return max(0, self._store.written - self._done_at), self._resume

    def close(self) -> None:
        """Stop the thread, waiting for the slice it compacts (if any) to finish."""
        self._stop.set()
        if self._thread is not threading.current_thread():
            self._thread.join()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()
