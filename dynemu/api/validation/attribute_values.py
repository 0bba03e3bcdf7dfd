"""The request validator's type pass of an AttributeValue, written by hand (the hot path:
Key, Item, ExpressionAttributeValues).

It only checks JSON types, as Coral's deserialiser does; DynamoDB's value rules are
``engine/values.py``'s. A map of AttributeValues (Key, Item, ExpressionAttributeValues)
becomes a ``values.MeasuredMap`` in the same walk (``values.measure_map``, which calls
``av_value`` for each value it cannot settle itself), so the engine checks and sizes only
the rest.
"""

from __future__ import annotations

import zlib
from typing import Any

import orjson

from dynemu.api.validation.overrides import JAVA_PACKAGE
from dynemu.api.validation.scalars import check_blob, check_boolean, check_string, mismatch
from dynemu.errors import (
    MSG_START_OF_STRUCTURE,
    MSG_UNEXPECTED_FIELD_TYPE,
    MSG_UNEXPECTED_VALUE_TYPE,
    MSG_UNRECOGNIZED_COLLECTION,
    serialization,
)

# The type pass recurses once per AttributeValue level; DynamoDB's own limit is 32 levels,
# checked with its message in engine/values.py after every other check of the request
# (``values.nesting_last``): this only bounds recursion well above it, leaving deeper levels
# to that check.
MAX_AV_DEPTH = 100

_AV_MEMBERS = frozenset(("S", "N", "B", "SS", "NS", "BS", "M", "L", "NULL", "BOOL"))
_AV_CLASS = f"{JAVA_PACKAGE['dynamodb']}.AttributeValue"
_AV_LIST_MSG = MSG_UNRECOGNIZED_COLLECTION.format(f"class {_AV_CLASS}")
_AV_MAP_MSG = MSG_UNRECOGNIZED_COLLECTION.format(f"java.util.Map<java.lang.String, {_AV_CLASS}>")


def av(v: Any, depth: int, field: bool) -> Any:
    """Type-check one AttributeValue (not its semantics: engine/values.py owns those)."""
    if type(v) is not dict:
        raise serialization(_AV_LIST_MSG if type(v) is list else MSG_UNEXPECTED_FIELD_TYPE if field else MSG_UNEXPECTED_VALUE_TYPE)
    clean = True
    for k, x in v.items():
        if x is None:
            clean = False
        elif k == "S" or k == "N":
            if type(x) is not str:
                raise mismatch(x, "String")
        elif k == "M":
            if type(x) is not dict:
                raise serialization(_AV_MAP_MSG if type(x) is list else MSG_UNEXPECTED_FIELD_TYPE)
            if depth >= MAX_AV_DEPTH:
                continue
            for mk, mv in x.items():
                if mv is not None:
                    nv = av(mv, depth + 1, False)
                    if nv is not mv:
                        x[mk] = nv
        elif k == "L":
            if type(x) is not list:
                raise serialization(MSG_START_OF_STRUCTURE if type(x) is dict else MSG_UNEXPECTED_FIELD_TYPE)
            if depth >= MAX_AV_DEPTH:
                continue
            for i, e in enumerate(x):
                if e is not None:
                    ne = av(e, depth + 1, False)
                    if ne is not e:
                        x[i] = ne
        elif k == "B":
            check_blob(x)
        elif k == "BOOL" or k == "NULL":
            if type(x) is not bool:
                v[k] = check_boolean(x)
        elif k == "SS" or k == "NS" or k == "BS":
            if type(x) is not list:
                raise serialization(MSG_START_OF_STRUCTURE if type(x) is dict else MSG_UNEXPECTED_FIELD_TYPE)
            elem = check_blob if k == "BS" else check_string
            for e in x:
                if e is not None:
                    elem(e)
        else:
            clean = False  # unknown member: Coral drops it
    if clean:
        return v
    return {k: x for k, x in v.items() if x is not None and k in _AV_MEMBERS}


def av_value(v: Any) -> Any:
    return av(v, 1, False)


def av_field(v: Any) -> Any:
    return av(v, 1, True)


def av_hash(v: Any) -> str:
    try:
        data = orjson.dumps(v, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        try:
            data = repr(v).encode()
        except RecursionError:  # nested past what repr walks (the nesting rule refuses it later)
            data = b"AttributeValue"
    return format(zlib.crc32(data), "x")
