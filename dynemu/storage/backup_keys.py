"""The key layout of backups, point-in-time recovery and resource policies, beside ``keyspace``'s (whose
conventions it follows: fixed-width big-endian integers, ``hashed`` is an item key without
its table prefix, ``keyspace.hashed_part``)::

    m/b/<bid:8>                              an on-demand (or system) backup's record
    b/<bid:8><hashed>                        the backup's items, as stored (size + JSON)
    m/p/<tid:4>                              a table's point-in-time recovery record
    p/b/<tid:4><hashed>                      the table's items as of its earliest restorable time
    p/l/<tid:4><time us:8><seq:4>            one change after that: <len:2><hashed><stored item, or nothing>
    m/r/<tid:4>                              a restored table's RestoreSummary
    m/e/<arn>, m/j/<arn>                     an export's, an import's description

Backup and history keys carry no table id of a live table's items, so they outlive the
table (a backup, or the history of a deleted table restorable within its window).
"""

from __future__ import annotations

import struct

from dynemu.storage import keyspace

BACKUP_META_PREFIX = keyspace.META_PREFIX + b"b/"
BACKUP_ITEMS = b"b/"
PITR_META_PREFIX = keyspace.META_PREFIX + b"p/"
PITR_BASE = b"p/b/"
PITR_LOG = b"p/l/"
RESTORE_META_PREFIX = keyspace.META_PREFIX + b"r/"

_U16 = struct.Struct(">H")
_U32 = struct.Struct(">I")
_U64 = struct.Struct(">Q")
_LOG_AT = len(PITR_LOG) + 4


def backup_meta_key(backup_id: int) -> bytes:
    return BACKUP_META_PREFIX + _U64.pack(backup_id)


def backup_items_prefix(backup_id: int) -> bytes:
    return BACKUP_ITEMS + _U64.pack(backup_id)


def pitr_meta_key(table_id: int) -> bytes:
    return PITR_META_PREFIX + _U32.pack(table_id)


def restore_meta_key(table_id: int) -> bytes:
    return RESTORE_META_PREFIX + _U32.pack(table_id)


def pitr_base_prefix(table_id: int) -> bytes:
    return PITR_BASE + _U32.pack(table_id)


def pitr_log_prefix(table_id: int) -> bytes:
    return PITR_LOG + _U32.pack(table_id)


def pitr_log_key(table_id: int, time_us: int, seq: int) -> bytes:
    return PITR_LOG + _U32.pack(table_id) + _U64.pack(max(0, time_us)) + _U32.pack(seq & 0xFFFFFFFF)


def pitr_log_until(table_id: int, time_us: int) -> bytes:
    """The first log key after every change at or before ``time_us``."""
    return PITR_LOG + _U32.pack(table_id) + _U64.pack(max(0, time_us + 1))


def pitr_log_position(key: bytes) -> tuple[int, int]:
    """(time us, seq) of a log key."""
    return _U64.unpack_from(key, _LOG_AT)[0], _U32.unpack_from(key, _LOG_AT + 8)[0]


def pitr_log_value(hashed: bytes, stored: bytes | None) -> bytes:
    return _U16.pack(len(hashed)) + hashed + (stored or b"")


def pitr_log_entry(value: bytes) -> tuple[bytes, bytes | None]:
    """(hashed key, stored item or None for a delete) of a log value."""
    n = _U16.unpack_from(value)[0]
    rest = value[2 + n :]
    return value[2 : 2 + n], (rest or None)


def item_key(table_id: int, hashed: bytes) -> bytes:
    """The item key of ``hashed`` in table ``table_id``."""
    return keyspace.items_prefix(table_id) + hashed


# Resource-based policies (engine/resource_policies.py), by the ARN of a table or a stream:
#     m/y/<arn utf-8>                        the policy document and its revision id
POLICY_META_PREFIX = keyspace.META_PREFIX + b"y/"


def policy_key(arn: str) -> bytes:
    return POLICY_META_PREFIX + arn.encode("utf-8")


# Exports and imports (engine/exports/jobs.py), by their ARN:
#     m/e/<arn utf-8>                        an export's description
#     m/j/<arn utf-8>                        an import's description
EXPORT_META_PREFIX = keyspace.META_PREFIX + b"e/"
IMPORT_META_PREFIX = keyspace.META_PREFIX + b"j/"


def job_key(prefix: bytes, arn: str) -> bytes:
    return prefix + arn.encode("utf-8")


# A table ``dynemu import``, ``--init`` or a test's seeding is filling (engine/exports/recovery.py):
#     m/f/<table name utf-8>                 the table's id (TableId), until it is filled
FILLING_META_PREFIX = keyspace.META_PREFIX + b"f/"


def filling_key(table_name: str) -> bytes:
    return FILLING_META_PREFIX + table_name.encode("utf-8")
