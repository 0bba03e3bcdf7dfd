"""Coral's JSON deserialiser for scalar members: the SerializationException a type mismatch
gets, and the coercions Coral applies (``"true"`` -> ``True``, ``2.7`` -> ``2``, base64 blobs).
Part of the request-shape validation in ``validation.py``."""

from __future__ import annotations

import binascii
import math
from collections.abc import Callable
from typing import Any

from dynemu.errors import (
    MSG_BASE64_CHARACTER,
    MSG_BASE64_LAST,
    MSG_BASE64_LENGTH,
    MSG_NOT_A_BLOB,
    MSG_NOT_BASE64,
    MSG_NOT_CONVERTIBLE,
    MSG_START_OF_STRUCTURE,
    MSG_UNEXPECTED_FIELD_TYPE,
    MSG_UNEXPECTED_TOKEN,
    MSG_UNRECOGNIZED_COLLECTION,
    DynamoError,
    serialization,
)

Checker = Callable[[Any], Any]  # type pass: returns the (possibly coerced) value

NUMBER_TARGETS = {
    "integer": "Integer",
    "long": "Long",
    "double": "Double",
    "float": "Double",
    "timestamp": "Date",
}
_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
_BOOL_WORDS = {"TRUE": True, "1": True, "YES": True, "FALSE": False, "0": False, "NO": False}
JAVA_SCALAR = {  # botocore type -> the Java class Coral names in messages
    "string": "java.lang.String", "boolean": "java.lang.Boolean", "integer": "java.lang.Integer",
    "long": "java.lang.Long", "double": "java.lang.Double", "float": "java.lang.Float",
    "blob": "java.nio.ByteBuffer", "timestamp": "java.util.Date",
}  # fmt: skip


def mismatch(v: Any, target: str) -> DynamoError:
    """A JSON value of the wrong kind where a scalar (String, Boolean, Integer, ...) belongs."""
    t = type(v)
    if t is bool:
        return serialization(MSG_NOT_CONVERTIBLE.format("TRUE_VALUE" if v else "FALSE_VALUE", target))
    if t is int:
        return serialization(MSG_NOT_CONVERTIBLE.format("NUMBER_VALUE", target))
    if t is float:
        return serialization(MSG_NOT_CONVERTIBLE.format("DECIMAL_VALUE", target))
    if t is str:
        return serialization(
            MSG_UNEXPECTED_TOKEN if target == "Boolean" else MSG_NOT_CONVERTIBLE.format("STRING_VALUE", target)
        )
    if t is list:
        java = "java.util.Date" if target == "Date" else f"java.lang.{target}"
        return serialization(MSG_UNRECOGNIZED_COLLECTION.format(f"class {java}"))
    if t is dict:
        return serialization(MSG_START_OF_STRUCTURE)
    return serialization(MSG_UNEXPECTED_FIELD_TYPE)


def check_string(v: Any) -> Any:
    if type(v) is str:
        return v
    raise mismatch(v, "String")


def check_boolean(v: Any) -> Any:
    if type(v) is bool:
        return v
    if type(v) is str and v.upper() in _BOOL_WORDS:  # Coral accepts true/false/1/0/yes/no
        return _BOOL_WORDS[v.upper()]
    raise mismatch(v, "Boolean")


def number_checker(target: str) -> Checker:
    """Integer and Long (Coral truncates a fraction), Double, and timestamps (epoch seconds in
    JSON 1.0: "Date" in its messages is a guess)."""
    truncate = target in ("Integer", "Long")

    def check(v: Any) -> Any:
        if type(v) is int:
            return v
        if type(v) is float and math.isfinite(v):
            return int(v) if truncate else v
        raise mismatch(v, target)

    return check


def check_blob(v: Any) -> Any:
    if type(v) is str:
        _check_base64(v)
        return v
    if type(v) is bool or type(v) is int or type(v) is float:
        raise serialization(MSG_NOT_BASE64)
    if type(v) is list:
        raise serialization(MSG_UNRECOGNIZED_COLLECTION.format("class java.nio.ByteBuffer"))
    if type(v) is dict:
        raise serialization(MSG_START_OF_STRUCTURE)
    raise serialization(MSG_UNEXPECTED_FIELD_TYPE)


def _not_a_blob(s: str, detail: str) -> DynamoError:
    return serialization(MSG_NOT_A_BLOB.format(value=s, detail=detail))


def _check_base64(s: str) -> None:
    """Coral's strict base64: length a multiple of 4, alphabet, canonical last character."""
    if len(s) % 4:
        raise _not_a_blob(s, MSG_BASE64_LENGTH.format(len(s)))
    try:
        raw = binascii.a2b_base64(s, strict_mode=True)
    except (binascii.Error, ValueError):
        body = s.rstrip("=")
        for c in body:
            if c not in _B64_CHARS:
                raise _not_a_blob(s, MSG_BASE64_CHARACTER.format(c)) from None
        raise _not_a_blob(s, MSG_BASE64_LAST) from None
    if binascii.b2a_base64(raw, newline=False).decode("ascii") != s:
        raise _not_a_blob(s, MSG_BASE64_LAST)
