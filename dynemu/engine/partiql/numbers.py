"""Numbers in PartiQL statements and parameters, as DynamoDB's PartiQL converts them.

A number is read as a Java BigDecimal first: an exponent or a scale beyond a 32-bit integer
is no number (a literal: the tokenizer's lexical error; a parameter: "The parameter cannot be
converted to a numeric value: <text>"). Its magnitude is then checked against DynamoDB's
range with 32-bit arithmetic, so ``1e2147483647``, whose magnitude wraps past the largest
integer, is answered as an underflow (issue 36, quoting the service). A literal's error ends
with " under root" and the path inside the literal (``root[1]``, ``root.x``).
"""

from __future__ import annotations

import re
from typing import Any

from dynemu import errors
from dynemu.engine import values as V

_INT32 = 2**31


# a number with an exponent (the shape DynamoDB's grammar accepts)
_EXPONENT_FORM = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)[eE][+-]?[0-9]+")


def _java_magnitude(text: str) -> int | None:
    """BigDecimal's precision minus its scale; None: no BigDecimal (exponent or scale beyond
    a 32-bit integer)."""
    mantissa, _, exponent = text.lstrip("+-").lower().partition("e")
    whole, _, fraction = mantissa.partition(".")
    if len(exponent.lstrip("+-")) > 12:
        return None
    exp = int(exponent)
    scale = len(fraction) - exp
    if not -_INT32 <= exp < _INT32 or not -_INT32 <= scale < _INT32:
        return None
    return max(len((whole + fraction).lstrip("0")), 1) - scale


def checked_number(text: str) -> str:
    """``text`` as DynamoDB's PartiQL converts it: its canonical form, or its error."""
    if _EXPONENT_FORM.fullmatch(text) is not None:
        magnitude = _java_magnitude(text)
        if magnitude is None:
            raise errors.validation(f"{errors.MSG_NOT_A_NUMBER}: {text}")
        if magnitude >= _INT32:  # wraps to a negative 32-bit magnitude: an underflow
            raise errors.validation(errors.MSG_UNDERFLOW)
    return V.normalize_number(text)


def literal_number(text: str, negative: bool, path: str) -> str:
    """A number literal of a statement; its range errors name ``path``."""
    try:
        return checked_number("-" + text if negative else text)
    except errors.DynamoError as e:
        raise errors.validation(f"{e.message} under {path}") from None


def check_parameter_numbers(value: Any) -> None:
    """Every number inside a parameter, in order, by the rule above (the rest of the value is
    checked by the value rules afterwards)."""
    stack = [value]
    while stack:
        v = stack.pop()
        if not isinstance(v, dict) or len(v) != 1:
            continue
        ((t, x),) = v.items()
        if t == "N" and isinstance(x, str):
            checked_number(x)
        elif t == "NS" and isinstance(x, list):
            for n in x:
                if isinstance(n, str):
                    checked_number(n)
        elif t == "L" and isinstance(x, list):
            stack.extend(reversed(x))
        elif t == "M" and isinstance(x, dict):
            stack.extend(reversed(list(x.values())))
