"""The request validator's AttributeValue checks, written by hand (the hot path: Key, Item,
ExpressionAttributeValues), and the quick checks of the common members of a request.

The type pass (``av``, ``av_map``) only checks JSON types, as Coral's deserialiser does;
DynamoDB's value rules are ``engine/values.py``'s. ``av_map`` also applies those rules, and
sizes the attribute, where they cannot fail, so the engine only visits the rest
(``values.CheckedItem``).

A *quick* check (``Quick``) answers, for one member of a request, "this value passes the
type pass and every constraint as it is" (it returns the value, or the CheckedItem the type
pass makes of a map), or a ``Failed``: then the whole request takes the general path, which
reports the service's errors in the service's order (a map's CheckedItem replaces the map
first, exactly as the type pass would, so the general path sees what it would have made). A quick check may raise only what the
type pass raises for that value: members are visited in the body's order, as the type pass
visits them, and every member before it passed, so the general path would raise the same.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable
from typing import Any

import orjson

from dynemu.api.validation_overrides import JAVA_PACKAGE
from dynemu.api.validation_scalars import (
    MSG_FIELD_TYPE,
    MSG_STRUCT_START,
    MSG_VALUE_TYPE,
    check_blob,
    check_boolean,
    check_string,
    mismatch,
)
from dynemu.engine.values import MAX_DIGITS, CheckedItem, presized
from dynemu.errors import serialization, validation

# The type pass recurses once per AttributeValue level; DynamoDB's own limit is 32 levels
# (checked with its message in engine/values.py), this only bounds recursion well above it.
MAX_AV_DEPTH = 100
MSG_NESTING = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"

_AV_MEMBERS = frozenset(("S", "N", "B", "SS", "NS", "BS", "M", "L", "NULL", "BOOL"))
_AV_CLASS = f"{JAVA_PACKAGE['dynamodb']}.AttributeValue"
_AV_LIST_MSG = f"Unrecognized collection type class {_AV_CLASS}"
_AV_MAP_MSG = f"Unrecognized collection type java.util.Map<java.lang.String, {_AV_CLASS}>"



class Failed:
    """A quick check's "take the general path"; ``value``: what the type pass makes of the
    member (a CheckedItem), kept so that the general path does not walk it again."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


FAIL = Failed(None)
Quick = Callable[[Any], Any]  # value -> the value to keep, or a Failed


def av(v: Any, depth: int, field: bool) -> Any:
    """Type-check one AttributeValue (not its semantics: engine/values.py owns those)."""
    if type(v) is not dict:
        raise serialization(_AV_LIST_MSG if type(v) is list else MSG_FIELD_TYPE if field else MSG_VALUE_TYPE)
    clean = True
    for k, x in v.items():
        if x is None:
            clean = False
        elif k == "S" or k == "N":
            if type(x) is not str:
                raise mismatch(x, "String")
        elif k == "M":
            if type(x) is not dict:
                raise serialization(_AV_MAP_MSG if type(x) is list else MSG_FIELD_TYPE)
            if depth >= MAX_AV_DEPTH:
                raise validation(MSG_NESTING)
            for mk, mv in x.items():
                if mv is not None:
                    nv = av(mv, depth + 1, False)
                    if nv is not mv:
                        x[mk] = nv
        elif k == "L":
            if type(x) is not list:
                raise serialization(MSG_STRUCT_START if type(x) is dict else MSG_FIELD_TYPE)
            if depth >= MAX_AV_DEPTH:
                raise validation(MSG_NESTING)
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
                raise serialization(MSG_STRUCT_START if type(x) is dict else MSG_FIELD_TYPE)
            elem = check_blob if k == "BS" else check_string
            for e in x:
                if e is not None:
                    elem(e)
        else:
            clean = False  # unknown member: Coral drops it
    if clean:
        return v
    return {k: x for k, x in v.items() if x is not None and k in _AV_MEMBERS}


def av_map(v: dict[str, Any]) -> CheckedItem:
    """The type pass of a map of AttributeValues (Key, Item, ExpressionAttributeValues) and,
    in the same walk, DynamoDB's value rules and size where they cannot fail: an ``S``, a
    canonical ``N``, a ``BOOL``, a ``NULL`` true, a string set of distinct strings (the
    type pass leaves these unchanged). The engine's ``validate_item`` then checks only the
    other attributes (``values.CheckedItem``)."""
    out = CheckedItem(v)
    if len(v) == 1:  # a key, a value: joining one name costs more than taking it
        (names,) = v
    else:
        names = "".join(v)  # every name counts, pending or not
    size = len(names) if names.isascii() else utf8_len(names)
    pending: list[str] = []
    for k, x in v.items():
        # x.get first: cheaper than unpacking x.items() for the commonest members, S and N
        if type(x) is dict and k:  # an empty name is pending: refused there
            y = x.get("S")
            if y is not None:
                if type(y) is str and len(x) == 1:
                    size += len(y) if y.isascii() else utf8_len(y)
                    continue
            else:
                y = x.get("N")
                if y is not None:
                    if type(y) is str and len(x) == 1 and len(y) <= MAX_DIGITS:
                        n = presized(y)
                        if n >= 0:
                            size += n
                            continue
                elif len(x) == 1:
                    ((t, y),) = x.items()
                    if t == "BOOL":
                        if type(y) is bool:
                            size += 1
                            continue
                    elif t == "SS":
                        n = _string_set_size(y)
                        if n >= 0:
                            size += n
                            continue
                    elif t == "NULL" and y is True:
                        size += 1
                        continue
        pending.append(k)
        if x is not None:
            nx = av(x, 1, False)
            if nx is not x:
                out[k] = nx
    out.size = size
    out.pending = pending
    return out


def _string_set_size(y: Any) -> int:
    """Size of ``{"SS": y}`` when it breaks no rule (a non-empty list of distinct strings:
    ``values._check_set``), else -1."""
    if type(y) is not list or not y:
        return -1
    try:
        joined = "".join(y)  # only strings join
    except TypeError:
        return -1
    if len(set(y)) != len(y):
        return -1
    return len(joined) if joined.isascii() else utf8_len(joined)


def utf8_len(s: str) -> int:
    return len(s.encode("utf-8", "surrogatepass"))


def av_value(v: Any) -> Any:
    return av(v, 1, False)


def av_field(v: Any) -> Any:
    return av(v, 1, True)


def av_hash(v: Any) -> str:
    try:
        data = orjson.dumps(v, option=orjson.OPT_SORT_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        data = repr(v).encode()
    return format(zlib.crc32(data), "x")


# --- quick checks of whole members ---------------------------------------------------------


def quick_av_map(names_max: int | None) -> Quick:
    """A map of AttributeValues whose names have at most ``names_max`` UTF-16 units each
    (None: no limit) and no null value."""

    def quick(v: Any) -> Any:
        if type(v) is not dict:
            return FAIL
        out = av_map(v)
        # the size counts every name's UTF-8 bytes, never fewer than its UTF-16 units
        if names_max is not None and out.size > names_max:
            return Failed(out)
        for k in out.pending:
            if v[k] is None:
                return Failed(out)
        return out

    return quick


def quick_string_map(key_ok: Callable[[Any], bool] | None, value_ok: Callable[[Any], bool] | None) -> Quick:
    """A map of strings (ExpressionAttributeNames) whose keys and values pass their checks."""

    def quick(v: Any) -> Any:
        if type(v) is not dict:
            return FAIL
        for k, x in v.items():
            if type(x) is not str or (value_ok is not None and not value_ok(x)):
                return FAIL
            if key_ok is not None and not key_ok(k):
                return FAIL
        return v

    return quick


def quick_scalar(kind: type, ok: Callable[[Any], bool] | None) -> Quick:
    """A boolean or an integer (``kind``) that needs no coercion and passes ``ok``."""

    def quick(v: Any) -> Any:
        if type(v) is not kind or (ok is not None and not ok(v)):
            return FAIL
        return v

    return quick
