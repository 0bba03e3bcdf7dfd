"""The key layout of global tables' replication backlog (``engine/global_tables/replication.py``).

Integers are fixed-width big-endian, so byte order is numeric order::

    q/b/<epoch:4><n:8>                  a change committed here, not yet applied in every
                                        other replica (written in the commit's own batch)
    q/a/<table utf-8>\\x00<region utf-8>  in a replica's store: the position (epoch, n) of
                                        the last change applied here from that region
    m/c/replication-epoch               the epoch counter, one step each time a region's
                                        store starts holding replicas

A position is ``<epoch:4><n:8>``: ``n`` counts the changes of one epoch, and a new epoch
begins each time a namespace with replicas is opened, so positions only grow, restart
after restart, and compare as bytes.
"""

from __future__ import annotations

import struct

from dynemu.storage.keyspace import meta_counter_key, prefix_end

BACKLOG = b"q/b/"
APPLIED = b"q/a/"
EPOCH_KEY = meta_counter_key("replication-epoch")
_POSITION = struct.Struct(">IQ")
NO_POSITION = b""  # before every position


def position(epoch: int, n: int) -> bytes:
    return _POSITION.pack(epoch, n)


def backlog_key(pos: bytes) -> bytes:
    return BACKLOG + pos


def backlog_range() -> tuple[bytes, bytes]:
    return BACKLOG, prefix_end(BACKLOG)


def position_of(key: bytes) -> bytes:
    """The position of a backlog key."""
    return key[len(BACKLOG):]


def applied_key(table: str, origin: str) -> bytes:
    return APPLIED + table.encode("utf-8") + b"\x00" + origin.encode("utf-8")


def applied_range(table: str) -> tuple[bytes, bytes]:
    """Every position a replica of ``table`` keeps (table names hold no NUL)."""
    prefix = APPLIED + table.encode("utf-8") + b"\x00"
    return prefix, prefix_end(prefix)
