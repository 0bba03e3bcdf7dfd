"""The key layout of one namespace's store (see DESIGN.md, "Storage layout").

All integers are fixed-width big-endian, so byte order is numeric order and no separator
is needed after them; ``enc`` is ``encoding.encode_key_value`` (self-delimiting), ``h`` is
``encoding.hash8`` of the encoded partition key::

    m/t/<table name utf-8>                          table metadata
    m/c/<counter name utf-8>                        sequences (e.g. the next table id)
    t/<tid:4><h(pk):8><enc pk><enc sk>              base items (sk absent: hash-only table)
    i/<tid:4><iid:4><h(ipk):8><enc ipk><enc isk><enc pk><enc sk>   index entries
    s/<tid:4><shard:8><seq:8>                       stream records
    x/<tid:4><expiry:8, sign-flipped><enc pk><enc sk>   TTL entries, by expiry time

Items in hash order make Scan follow DynamoDB's hash order and a partition key a
contiguous range; within one partition key, items follow sort-key order, so Query is
one range scan forwards or backwards. Index entries end with the full table key, so
equal index keys never collide.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from dynemu.storage.encoding import Value, decode_key_value, encode_key_value, encode_prefix, hash8

META_PREFIX = b"m/"
META_TABLES_PREFIX = b"m/t/"
META_COUNTERS_PREFIX = b"m/c/"
ITEMS = b"t/"
INDEXES = b"i/"
STREAMS = b"s/"
TTL = b"x/"

_U32 = struct.Struct(">I")
_U64 = struct.Struct(">Q")
_I64_MIN = -(1 << 63)
_I64_MAX = (1 << 63) - 1


def prefix_end(prefix: bytes) -> bytes:
    """The smallest key greater than every key that starts with ``prefix`` (``b""`` if
    there is none, i.e. the prefix is all 0xFF; callers treat that as "no upper bound")."""
    p = prefix.rstrip(b"\xff")
    if not p:
        return b""
    return p[:-1] + bytes((p[-1] + 1,))


# --- metadata ------------------------------------------------------------------------------


def meta_table_key(name: str) -> bytes:
    return META_TABLES_PREFIX + name.encode("utf-8")


def meta_counter_key(name: str) -> bytes:
    return META_COUNTERS_PREFIX + name.encode("utf-8")


def table_name_from_meta_key(key: bytes) -> str:
    return key[len(META_TABLES_PREFIX) :].decode("utf-8")


# --- items ---------------------------------------------------------------------------------


def items_prefix(table_id: int) -> bytes:
    return ITEMS + _U32.pack(table_id)


def _hashed(pk: Value) -> bytes:
    enc = encode_key_value(pk)
    return hash8(enc) + enc


def partition_prefix(table_id: int, pk: Value) -> bytes:
    """Every item of partition key ``pk`` (and no other) has a key starting with this."""
    return ITEMS + _U32.pack(table_id) + _hashed(pk)


def item_key(table_id: int, pk: Value, sk: Value | None) -> bytes:
    key = ITEMS + _U32.pack(table_id) + _hashed(pk)
    return key if sk is None else key + encode_key_value(sk)


def decode_item_key(
    key: bytes, table_id: int, pk_type: str, sk_type: str | None
) -> tuple[Value, Value | None]:
    """Inverse of ``item_key`` (``table_id`` only fixes the prefix length)."""
    pk, pos = decode_key_value(pk_type, key, len(ITEMS) + 4 + 8)
    if sk_type is None:
        return pk, None
    return pk, decode_key_value(sk_type, key, pos)[0]


def key_hash(key: bytes) -> bytes:
    """The 8-byte partition hash of an item key (what partition boundaries split on)."""
    start = len(ITEMS) + 4
    return key[start : start + 8]


# --- sort-key conditions -------------------------------------------------------------------

_OPS = {
    "=": "EQ", "EQ": "EQ",
    "<": "LT", "LT": "LT",
    "<=": "LE", "LE": "LE",
    ">": "GT", "GT": "GT",
    ">=": "GE", "GE": "GE",
    "BETWEEN": "BETWEEN",
    "begins_with": "BEGINS_WITH", "BEGINS_WITH": "BEGINS_WITH",
}  # fmt: skip


def condition_range(prefix: bytes, op: str, values: Sequence[Value]) -> tuple[bytes, bytes]:
    """``[start, stop)`` of the keys ``prefix + enc(sk) + ...`` whose ``sk`` satisfies
    ``sk <op> values``; ``op`` is a key-condition operator (``=``, ``<``, ``<=``, ``>``,
    ``>=``, ``BETWEEN``, ``begins_with``) or its ComparisonOperator name. Works for item
    keys and index entries alike (anything after the sort key is covered)."""
    kind = _OPS.get(op)
    if kind is None:
        raise ValueError(f"not a sort-key operator: {op!r}")
    end = prefix_end(prefix)
    if kind == "BEGINS_WITH":
        p = prefix + encode_prefix(values[0])
        return p, prefix_end(p)
    e = prefix + encode_key_value(values[0])
    if kind == "EQ":
        return e, prefix_end(e)
    if kind == "LT":
        return prefix, e
    if kind == "LE":
        return prefix, prefix_end(e)
    if kind == "GT":
        return prefix_end(e), end
    if kind == "GE":
        return e, end
    return e, prefix_end(prefix + encode_key_value(values[1]))  # BETWEEN, inclusive


def sort_key_range(table_id: int, pk: Value, op: str, values: Sequence[Value]) -> tuple[bytes, bytes]:
    """Key range of the items of partition ``pk`` whose sort key satisfies the condition
    (what Query scans). A BETWEEN whose bounds are reversed gives an empty range."""
    return condition_range(partition_prefix(table_id, pk), op, values)


# --- index entries -------------------------------------------------------------------------


def index_prefix(table_id: int, index_id: int) -> bytes:
    return INDEXES + _U32.pack(table_id) + _U32.pack(index_id)


def index_partition_prefix(table_id: int, index_id: int, ipk: Value) -> bytes:
    return index_prefix(table_id, index_id) + _hashed(ipk)


def index_entry_key(
    table_id: int, index_id: int, ipk: Value, isk: Value | None, pk: Value, sk: Value | None
) -> bytes:
    key = index_prefix(table_id, index_id) + _hashed(ipk)
    if isk is not None:
        key += encode_key_value(isk)
    key += encode_key_value(pk)
    return key if sk is None else key + encode_key_value(sk)


def decode_index_entry_key(
    key: bytes, ipk_type: str, isk_type: str | None, pk_type: str, sk_type: str | None
) -> tuple[Value, Value | None, Value, Value | None]:
    """Inverse of ``index_entry_key``: ``(ipk, isk, pk, sk)``."""
    ipk, pos = decode_key_value(ipk_type, key, len(INDEXES) + 8 + 8)
    isk = sk = None
    if isk_type is not None:
        isk, pos = decode_key_value(isk_type, key, pos)
    pk, pos = decode_key_value(pk_type, key, pos)
    if sk_type is not None:
        sk = decode_key_value(sk_type, key, pos)[0]
    return ipk, isk, pk, sk


# --- streams -------------------------------------------------------------------------------


def stream_prefix(table_id: int, shard_id: int | None = None) -> bytes:
    p = STREAMS + _U32.pack(table_id)
    return p if shard_id is None else p + _U64.pack(shard_id)


def stream_key(table_id: int, shard_id: int, seq: int) -> bytes:
    return STREAMS + _U32.pack(table_id) + _U64.pack(shard_id) + _U64.pack(seq)


def decode_stream_key(key: bytes) -> tuple[int, int, int]:
    """``(table_id, shard_id, seq)`` of a stream record key."""
    n = len(STREAMS)
    return _U32.unpack_from(key, n)[0], _U64.unpack_from(key, n + 4)[0], _U64.unpack_from(key, n + 12)[0]


# --- TTL -----------------------------------------------------------------------------------


def ttl_prefix(table_id: int) -> bytes:
    return TTL + _U32.pack(table_id)


def _expiry_bytes(expiry: int) -> bytes:
    # Signed, clamped to int64 and sign-flipped so that byte order is numeric order.
    return _U64.pack(min(max(expiry, _I64_MIN), _I64_MAX) + (1 << 63))


def ttl_key(table_id: int, expiry: int, pk: Value, sk: Value | None) -> bytes:
    key = TTL + _U32.pack(table_id) + _expiry_bytes(expiry) + encode_key_value(pk)
    return key if sk is None else key + encode_key_value(sk)


def ttl_until(table_id: int, expiry: int) -> bytes:
    """Stop key of the TTL entries expiring at or before ``expiry``."""
    return TTL + _U32.pack(table_id) + _expiry_bytes(expiry + 1)


def decode_ttl_key(key: bytes, pk_type: str, sk_type: str | None) -> tuple[int, Value, Value | None]:
    """``(expiry, pk, sk)`` of a TTL entry."""
    start = len(TTL) + 4
    expiry = _U64.unpack_from(key, start)[0] - (1 << 63)
    pk, pos = decode_key_value(pk_type, key, start + 8)
    sk = decode_key_value(sk_type, key, pos)[0] if sk_type is not None else None
    return expiry, pk, sk
