"""The durable side of the replication backlog (``engine/global_tables/replication.py``).

Each change a region commits to a global table is also written, in the commit's own storage
batch, as one backlog entry in that region's store (``storage/replication_keys.py``): the
table, the item's key and new image, the version and due time, and the regions it goes to.
A replica records, in the batch of each replicated write it commits, the position of the
change it applied (per table and origin region). So after a restart, an entry is pending for
exactly the regions whose recorded position is behind it: every change is applied once, and
none is lost between its commit and its application ("Multi-Region eventual consistency":
a replica that was unavailable receives, when it is back, what it had not yet replicated).

Entries are deleted once applied everywhere and older than anything still pending (last
writer wins compares a pending change with the versions of later writes, which the entries
still kept give back after a restart).
"""

from __future__ import annotations

from typing import Any

import orjson

from dynemu.storage import replication_keys as keys
from dynemu.storage.base import Store, WriteBatch


def next_epoch(store: Store) -> int:
    """Start a new epoch of positions in ``store`` (once per opening of a namespace that
    holds replicas): positions then keep growing across restarts."""
    raw = store.get(keys.EPOCH_KEY)
    epoch = (int(raw) if raw else 0) + 1
    batch = WriteBatch()
    batch.put(keys.EPOCH_KEY, str(epoch).encode())
    store.write(batch)
    return epoch


def encode(table: str, version: tuple[float, str], key: Any, image: Any, due: float, targets: list[str]) -> bytes:
    return orjson.dumps({"t": table, "v": version, "k": key, "i": image, "d": due, "r": targets})


def decode(raw: bytes) -> dict[str, Any]:
    """``t`` table, ``v`` [commit time, region], ``k`` key, ``i`` image (None: a delete),
    ``d`` due time, ``r`` target regions."""
    entry: dict[str, Any] = orjson.loads(raw)
    return entry


def applied(store: Store, table: str, origin: str) -> bytes:
    """The position of the last change from ``origin`` applied to ``table`` in ``store``."""
    return store.get(keys.applied_key(table, origin)) or keys.NO_POSITION


def record_applied(batch: WriteBatch, table: str, origin: str, pos: bytes) -> None:
    batch.put(keys.applied_key(table, origin), pos)
