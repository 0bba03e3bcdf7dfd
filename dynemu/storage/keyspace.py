"""The key layout of one namespace's store (docs/rules.md, "Storage layout").

All integers are fixed-width big-endian, so byte order is numeric order and no separator
is needed after them; ``enc`` is ``encoding.encode_key_value`` (self-delimiting), ``h`` is
``encoding.hash8`` of the encoded partition key::

    m/t/<table name utf-8>                          table metadata
    m/c/<counter name utf-8>                        sequences (e.g. the next table id)
    t/<tid:4><h(pk):8><enc pk><enc sk>              base items (sk absent: hash-only table)
    i/<tid:4><iid:4><h(ipk):8><enc ipk><enc isk><enc pk><enc sk>   index entries
    s/<tid:4><shard:8><seq:8>                       stream records
    x/<tid:4><expiry:8, sign-flipped><enc pk><enc sk>   TTL entries, by expiry time
    m/s/<tid:4>, m/x/<tid:4>                        a table's stream and TTL settings
    m/c/item-collections/<tid>/<h(pk)><enc pk>      item collection sizes (tables with an LSI)
    m/c/partitions/<tid>, m/c/capacity-model/<tid>  a table's partition map, its capacity model's record (JSON)
    r/t/<token utf-8>                               a TransactWriteItems ClientRequestToken's record
    r/x/<expiry us:8, sign-flipped><token utf-8>    the same tokens, by expiry time (pruning)

A multi-attribute index key (up to 4 HASH and 4 RANGE attributes) is the concatenation of
its components' encodings, hashed together: ``h(enc ipk1 enc ipk2 ...)``. Nothing outside
this module slices or assembles key bytes: it has an encoder and a decoder for each part.

Items in hash order make Scan follow DynamoDB's hash order and a partition key a
contiguous range; within one partition key, items follow sort-key order, so Query is
one range scan forwards or backwards. Index entries end with the full table key, so
equal index keys never collide.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from dynemu.storage.encoding import (
    Value,
    decode_key_value,
    encode_key_value,
    encode_prefix,
    hash8,
    hashed_string,
)

META_PREFIX = b"m/"
META_TABLES_PREFIX = b"m/t/"
META_COUNTERS_PREFIX = b"m/c/"
ITEMS = b"t/"
INDEXES = b"i/"
STREAMS = b"s/"
TTL = b"x/"
TOKENS = b"r/"
TOKEN_RECORDS = TOKENS + b"t/"
TOKEN_EXPIRIES = TOKENS + b"x/"

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


# The namespace's Application Auto Scaling targets and policies (engine/autoscaling/targets.py).
AUTOSCALING_KEY = meta_counter_key("application-autoscaling")


def table_name_from_meta_key(key: bytes) -> str:
    return key[len(META_TABLES_PREFIX) :].decode("utf-8")


# Per-table settings records: m/s/<tid:4> a table's streams, m/x/<tid:4> its TTL settings.
STREAM_META_PREFIX = META_PREFIX + b"s/"
TTL_META_PREFIX = META_PREFIX + b"x/"


def stream_meta_key(table_id: int) -> bytes:
    return STREAM_META_PREFIX + _U32.pack(table_id)


def ttl_meta_key(table_id: int) -> bytes:
    return TTL_META_PREFIX + _U32.pack(table_id)


def table_id_of_meta_key(key: bytes) -> int:
    """The table id of a ``stream_meta_key`` or ``ttl_meta_key``."""
    return _U32.unpack_from(key, len(STREAM_META_PREFIX))[0]


def item_collection_key(table_id: int, partition_prefix_: bytes) -> bytes:
    """The size counter of the item collection whose items start with ``partition_prefix_``
    (``partition_prefix``): tables with an LSI."""
    return meta_counter_key(f"item-collections/{table_id}/") + hashed_part(partition_prefix_)


def item_collections_prefix(table_id: int) -> bytes:
    return meta_counter_key(f"item-collections/{table_id}/")


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


def item_key_s(prefix: bytes, pk: str) -> bytes:
    """``item_key_in`` of a hash-only table whose partition key is the S value ``pk``."""
    return prefix + hashed_string(pk)


def item_key_in(prefix: bytes, pk: Value, sk: Value | None = None) -> bytes:
    """``item_key`` under a table's ``items_prefix`` (which its table keeps)."""
    enc = encode_key_value(pk)
    if sk is None:
        return prefix + hash8(enc) + enc
    return prefix + hash8(enc) + enc + encode_key_value(sk)


def item_key_for(table_id: int, table_key: bytes, pk: Value) -> bytes:
    """The item key of encoded table key ``table_key`` whose partition key is ``pk``."""
    return ITEMS + _U32.pack(table_id) + hash8(encode_key_value(pk)) + table_key


def decode_item_key(
    key: bytes, table_id: int, pk_type: str, sk_type: str | None
) -> tuple[Value, Value | None]:
    """Inverse of ``item_key`` (``table_id`` only fixes the prefix length)."""
    pk, pos = decode_key_value(pk_type, key, len(ITEMS) + 4 + 8)
    if sk_type is None:
        return pk, None
    return pk, decode_key_value(sk_type, key, pos)[0]


_HASH_AT = len(ITEMS) + 4  # where h(pk) starts in an item key
_TABLE_KEY_AT = _HASH_AT + 8  # where the encoded table key (enc pk, enc sk) starts


def encode_table_key(pk: Value, sk: Value | None) -> bytes:
    """The encoded table key ``<enc pk><enc sk>`` that ends an item key and every index
    entry key of the item."""
    enc = encode_key_value(pk)
    return enc if sk is None else enc + encode_key_value(sk)


def table_key_of(item_key_: bytes) -> bytes:
    """The encoded table key of an item key (what follows ``h(pk)``)."""
    return item_key_[_TABLE_KEY_AT:]


def hashed_part(item_key_: bytes) -> bytes:
    """An item key without its table prefix: ``<h(pk)><enc pk><enc sk>`` (what partition
    maps and item collections are keyed on). Also accepts a partition prefix."""
    return item_key_[_HASH_AT:]


def partition_value_of(hashed: bytes, pk_type: str) -> Value:
    """The partition key value of a ``hashed_part`` (``<h(pk)><enc pk>...``)."""
    value, _ = decode_key_value(pk_type, hashed, _TABLE_KEY_AT - _HASH_AT)
    return value


def encode_values(values: Sequence[Value]) -> bytes:
    """The concatenated encodings of key values (a multi-attribute key's components)."""
    return b"".join(encode_key_value(v) for v in values)


_HASH_SPACE = 1 << 64


def segment_range(prefix: bytes, segment: int, total: int) -> tuple[bytes, bytes]:
    """The range of parallel-scan segment ``segment`` of ``total`` under ``prefix`` (a
    table's items or an index's entries, both ``<prefix><h:8>...``): an equal share of the
    hash space, so that the segments together cover every key exactly once."""
    lo = segment * _HASH_SPACE // total
    start = prefix + lo.to_bytes(8, "big")
    if segment == total - 1:
        return start, prefix_end(prefix)
    hi = (segment + 1) * _HASH_SPACE // total
    return start, prefix + hi.to_bytes(8, "big")


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


def index_hashed_part(entry_key: bytes) -> bytes:
    """An index entry key without its index prefix: ``<h(ipk)><enc ipk>...`` (what a GSI's
    partition map is keyed on). Also accepts a partition prefix or range bound."""
    return entry_key[len(INDEXES) + 8 :]


def table_indexes_prefix(table_id: int) -> bytes:
    """Every index entry of every index of a table starts with this."""
    return INDEXES + _U32.pack(table_id)


def _values(v: Value | Sequence[Value] | None) -> Sequence[Value]:
    """One key value, or the components of a multi-attribute key, as a sequence."""
    if v is None:
        return ()
    return (v,) if isinstance(v, dict) else v


def index_partition_at(prefix: bytes, ipk: Value | Sequence[Value]) -> bytes:
    """Every entry of index partition ``ipk`` under index prefix ``prefix``: ``h(ipk)`` is
    the hash of the concatenated encodings of a multi-attribute key's components."""
    enc = b"".join(encode_key_value(v) for v in _values(ipk))
    return prefix + hash8(enc) + enc


def index_partition_prefix(table_id: int, index_id: int, ipk: Value | Sequence[Value]) -> bytes:
    return index_partition_at(index_prefix(table_id, index_id), ipk)


def index_entry_at(
    prefix: bytes, ipk: Value | Sequence[Value], isk: Value | Sequence[Value] | None, table_key: bytes
) -> bytes:
    """The entry key under index prefix ``prefix`` of index key ``(ipk, isk)`` (one value
    or a multi-attribute key's components) and encoded table key ``table_key``."""
    key = index_partition_at(prefix, ipk)
    for v in _values(isk):
        key += encode_key_value(v)
    return key + table_key


def index_entry_key(
    table_id: int,
    index_id: int,
    ipk: Value | Sequence[Value],
    isk: Value | Sequence[Value] | None,
    pk: Value,
    sk: Value | None,
) -> bytes:
    return index_entry_at(index_prefix(table_id, index_id), ipk, isk, encode_table_key(pk, sk))


def decode_index_entry(
    key: bytes, ipk_types: Sequence[str], isk_types: Sequence[str], pk_type: str, sk_type: str | None
) -> tuple[tuple[Value, ...], tuple[Value, ...], Value, Value | None]:
    """Inverse of ``index_entry_at`` for any key shape: ``(ipk values, isk values, pk, sk)``."""
    pos = len(INDEXES) + 8 + 8
    ipk: list[Value] = []
    isk: list[Value] = []
    for types, out in ((ipk_types, ipk), (isk_types, isk)):
        for t in types:
            v, pos = decode_key_value(t, key, pos)
            out.append(v)
    pk, pos = decode_key_value(pk_type, key, pos)
    sk = decode_key_value(sk_type, key, pos)[0] if sk_type is not None else None
    return tuple(ipk), tuple(isk), pk, sk


def decode_index_entry_key(
    key: bytes, ipk_type: str, isk_type: str | None, pk_type: str, sk_type: str | None
) -> tuple[Value, Value | None, Value, Value | None]:
    """Inverse of ``index_entry_key`` for a single-attribute index key: ``(ipk, isk, pk, sk)``."""
    ipk, isk, pk, sk = decode_index_entry(key, (ipk_type,), (isk_type,) if isk_type else (), pk_type, sk_type)
    return ipk[0], isk[0] if isk else None, pk, sk


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


def decode_ttl_expiry(key: bytes) -> int:
    """The expiry (epoch seconds) of a TTL entry."""
    return _U64.unpack_from(key, len(TTL) + 4)[0] - (1 << 63)


def decode_ttl_key(key: bytes, pk_type: str, sk_type: str | None) -> tuple[int, Value, Value | None]:
    """``(expiry, pk, sk)`` of a TTL entry."""
    expiry = decode_ttl_expiry(key)
    pk, pos = decode_key_value(pk_type, key, len(TTL) + 4 + 8)
    sk = decode_key_value(sk_type, key, pos)[0] if sk_type is not None else None
    return expiry, pk, sk


# --- ClientRequestTokens -------------------------------------------------------------------


def token_key(token: str) -> bytes:
    """The record of a TransactWriteItems ClientRequestToken (1 to 36 characters)."""
    return TOKEN_RECORDS + token.encode("utf-8", "surrogatepass")


def _micros(seconds: float) -> bytes:
    return _expiry_bytes(int(seconds * 1_000_000))


def token_expiry_key(expires: float, token: str) -> bytes:
    """The entry of ``token`` in the by-expiry order of the token records."""
    return TOKEN_EXPIRIES + _micros(expires) + token.encode("utf-8", "surrogatepass")


def token_expiries_until(now: float) -> bytes:
    """Stop key of the token expiry entries whose expiry (to the microsecond) is at or before ``now``."""
    return TOKEN_EXPIRIES + _expiry_bytes(int(now * 1_000_000) + 1)


def decode_token_expiry_key(key: bytes) -> str:
    """The token of a ``token_expiry_key``."""
    return key[len(TOKEN_EXPIRIES) + 8 :].decode("utf-8", "surrogatepass")
