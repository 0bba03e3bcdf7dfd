"""Where a key lives: the partition of a table or GSI that holds a key, and a partition
boundary named by the key it falls at.

A partition map is keyed on the key suffix ``<h(pk)><enc pk><enc sk>`` (storage/keyspace.py),
so a boundary is a hash, plus a partition key and sort key where a split fell inside one
partition key's items (a split for heat, partitions.py: ``balanced_split_key``). The admin API
shows boundaries whole and answers "which partition holds key K" from here.
"""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.engine.capacity.contributors import KEY_HASH, key_namer
from dynemu.engine.schema import TableSpec, check_request_key_value
from dynemu.storage import keyspace


def boundary(spec: TableSpec, index: str | None, hex_suffix: str | None) -> dict[str, Any] | None:
    """``{"hash": <16 hex digits>}``, with ``"partition"`` (and ``"sort"``) where the boundary
    lies inside a key; None for the end of the key space."""
    if hex_suffix is None:
        return None
    raw = bytes.fromhex(hex_suffix)
    out: dict[str, Any] = {"hash": raw[:KEY_HASH].hex().ljust(2 * KEY_HASH, "0")}
    if len(raw) > KEY_HASH:
        named = key_namer(spec, index, item=True)(raw)
        if isinstance(named, dict) and set(named) == {"partition", "sort"}:  # a table with a sort key
            out["partition"] = named["partition"]
            if named.get("sort") is not None:
                out["sort"] = named["sort"]
        elif not isinstance(named, str) or named != raw.hex():
            out["partition"] = named
    return out


def key_suffix(spec: TableSpec, index: str | None, key: dict[str, Any]) -> bytes:
    """The map key of ``key``: the table's key attributes, or GSI ``index``'s (a partition
    key alone finds the partition of that key's first item). ValidationException as
    GetItem's for a key that does not fit the schema."""
    if index is None:
        hash_attrs = (spec.hash_key,)
        range_attrs = (spec.range_key,) if spec.range_key is not None else ()
    else:
        ix = next(i for i in spec.indexes if i.name == index)
        hash_attrs, range_attrs = ix.hash_keys, ix.range_keys
    if not isinstance(key, dict) or set(key) - {a.name for a in (*hash_attrs, *range_attrs)}:
        raise errors.validation(errors.MSG_SCHEMA)
    values = []
    for attr in (*hash_attrs, *range_attrs):
        v = key.get(attr.name)
        if v is None and attr in range_attrs:
            break
        check_request_key_value(attr, v, attr in hash_attrs)
        values.append(v)
    pk = values[: len(hash_attrs)]
    rest = values[len(hash_attrs) :]
    prefix = keyspace.index_partition_at(b"", pk if len(pk) > 1 else pk[0])
    return prefix + keyspace.encode_values(rest)


def partition_of(state: Any, spec: TableSpec, index: str | None, key: dict[str, Any]) -> int:
    """The index of the partition of ``state`` (a table's or GSI's) that holds ``key``."""
    return state.pmap.find(key_suffix(spec, index, key))


def describe_partitions(state: Any, spec: TableSpec, index: str | None, now: float) -> list[dict[str, Any]]:
    """The partitions view of ``state`` (throughput.py: ``describe_partitions``) with each
    boundary whole, as ``start_key`` / ``end_key`` (``boundary``)."""
    parts = state.describe_partitions(now)
    for p in parts:
        p["start_key"] = boundary(spec, index, p["start"])
        p["end_key"] = boundary(spec, index, p["end"])
    return parts
