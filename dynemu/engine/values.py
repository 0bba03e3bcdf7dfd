"""Attribute values in DynamoDB JSON form: validation, sizes, numbers, comparison.

An attribute value is kept exactly as it travels on the wire, a one-member dict such as
``{"S": "x"}``, ``{"N": "12.5"}``, ``{"B": "<base64>"}``, ``{"L": [...]}``, ``{"M": {...}}``,
``{"SS": [...]}``; an item is ``dict[str, Value]``. Keeping the wire form avoids a
conversion on every request. Numbers stay strings, normalised to DynamoDB's canonical
form when stored (``format_number(parse_number(s))``); arithmetic uses a 38-digit
``decimal`` context.

CONTRACT (implemented by this module; other modules code against these names):

    Value = dict[str, Any]; Item = dict[str, Value]
    TYPES = ("S","N","B","BOOL","NULL","M","L","SS","NS","BS")
    parse_number(s: str) -> Decimal        # ValidationException with DynamoDB's messages
    format_number(d: Decimal) -> str       # canonical output form ("1.50" -> "1.5", "1E+2" -> "100")
    add_numbers(a: str, b: str) -> str     # 38-digit arithmetic, overflow/underflow errors
    subtract_numbers(a: str, b: str) -> str
    value_type(v: Value) -> str            # "S", "N", ...
    values_equal(a: Value, b: Value) -> bool   # numbers by value, sets unordered, deep for L/M
    compare_values(a: Value, b: Value) -> int | None   # S, N, B only; None if types differ / not ordered
    value_size(v: Value) -> int            # bytes as DynamoDB counts them (without the name)
    item_size(item: Item) -> int           # names + values
    check_item_size(size: int, message)    # the 400 KB rule (MAX_ITEM_BYTES), its one home
    decode_binary(v: str) -> bytes         # base64 from the wire (SerializationException if invalid)
    validate_value(v: Any, *, path) -> Value      # shape + rules; returns normalised value
    validate_item(item: Any) -> Item              # every attribute; raises DynamoDB's errors
    contains(container: Value, operand: Value) -> bool   # the `contains` function's semantics
    value_length(v: Value) -> int | None    # the `size` function: S in UTF-16 units, B bytes, sets/L/M count

Extra helpers: ``normalize_number(s) -> str`` (validate + canonical form, no copy when the
string is already canonical) and the ``MSG_*`` message constants.

Messages are bare (no ``One or more parameter values were invalid:`` prefix) unless DynamoDB
adds one. The value rules' errors are request checks (``errors.request_check``): PutItem,
UpdateItem and DeleteItem answer them in the "1 validation error detected: " envelope, every
layer (item, key, condition, filter or update value) with the same message; only a value that
is no AttributeValue at all keeps ``ExpressionAttributeValues contains invalid value: <msg>
for key <key>``, added by its caller (docs/rules.md, "The validation envelope").
Sources for every rule: the header of tests/test_values.py.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from contextvars import ContextVar
from decimal import Context, Decimal
from typing import Any, TypeVar

from dynemu import errors
from dynemu.cache import memoized
from dynemu.errors import DynamoError

Value = dict[str, Any]
Item = dict[str, Value]
T = TypeVar("T")

TYPES = ("S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS")
_TYPE_SET = frozenset(TYPES)

MAX_DIGITS = 38  # significant digits of a Number
MAX_ADJUSTED_EXPONENT = 125  # 9.99..9E+125 is the largest magnitude
MIN_ADJUSTED_EXPONENT = -130  # 1E-130 is the smallest non-zero magnitude
MAX_NESTING = 32  # a top-level attribute value is level 1; deeper than 32 is rejected


# The numeric grammar DynamoDB accepts (Java BigDecimal's, ASCII digits only): optional sign,
# digits with an optional point, optional exponent. No spaces, no Infinity/NaN, no hex.
_NUMBER_RE = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
# What format_number produces; a match of <= 38 characters is also within every limit.
_CANONICAL_RE = re.compile(r"0|-?(?:[1-9][0-9]*(?:\.[0-9]*[1-9])?|0\.[0-9]*[1-9])")
_JAVA_INT = 2**31  # BigDecimal's exponent is a Java int
# Exact for any two valid numbers (their sum spans at most ~295 digits).
_EXACT = Context(prec=400, Emax=999_999, Emin=-999_999)

_B64_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
_B64_INDEX = {c: i for i, c in enumerate(_B64_ALPHABET)}
_B64_BAD_CHAR = re.compile(r"[^A-Za-z0-9+/=]|=[^=]")


# --- numbers ---------------------------------------------------------------------------------


def _check_range(d: Decimal) -> None:
    """DynamoDB's order of checks: overflow, underflow, then precision (dynalite, probed
    against the service; the service answers overflow for a 39-digit sum above 1E+126)."""
    _, digits, exp = d.as_tuple()
    n = len(digits)
    if n == 1 and digits[0] == 0:
        return
    adjusted = exp + n - 1
    if adjusted > MAX_ADJUSTED_EXPONENT:
        raise errors.request_check(errors.MSG_OVERFLOW)
    if adjusted < MIN_ADJUSTED_EXPONENT:
        raise errors.request_check(errors.MSG_UNDERFLOW)
    if n > MAX_DIGITS:
        while digits[n - 1] == 0:  # trailing zeros are not significant
            n -= 1
        if n > MAX_DIGITS:
            raise errors.request_check(errors.MSG_PRECISION)


def parse_number(s: str) -> Decimal:
    """A Number from its wire string, checked against DynamoDB's grammar and limits."""
    if not isinstance(s, str):
        raise _shape_error(s, "String")
    if _NUMBER_RE.fullmatch(s) is None:  # "" too: "...numeric value: " (the current wording)
        raise errors.request_check(errors.msg_not_a_number(s))
    e = max(s.find("e"), s.find("E"))
    if e >= 0 and len(s) - e > 10:
        exponent = int(s[e + 1 :])
        if not -_JAVA_INT <= exponent < _JAVA_INT:
            # An exponent past a 32-bit integer is out of range, whatever the digits, a zero's
            # too (issue 36, observed against the service): overflow above, underflow below.
            # Python's Decimal would raise instead.
            raise errors.request_check(errors.MSG_OVERFLOW if exponent > 0 else errors.MSG_UNDERFLOW)
    d = Decimal(s)
    _check_range(d)
    return d


def format_number(d: Decimal) -> str:
    """DynamoDB's output form: no exponent, no leading/trailing zeros, no ``-0``
    (``1E+2`` -> ``100``, ``0042.1200`` -> ``42.12``, ``1E125`` -> 126 digits)."""
    if not d:
        return "0"
    sign, digits, exp = d.as_tuple()
    n = len(digits)
    while digits[n - 1] == 0:
        n -= 1
        exp += 1
    coef = "".join(map(str, digits[:n]))
    if exp >= 0:
        text = coef + "0" * exp
    else:
        point = n + exp
        text = coef[:point] + "." + coef[point:] if point > 0 else "0." + "0" * -point + coef
    return "-" + text if sign else text


def normalize_number(s: str) -> str:
    """Validate a number string and return its canonical form (``s`` itself if canonical)."""
    if type(s) is str and len(s) <= MAX_DIGITS:
        if _CANONICAL_RE.fullmatch(s) is not None:
            return s
        plain = _plain_canonical(s)
        if plain is not None:
            return plain
    return format_number(parse_number(s))


# A number without an exponent ("12.50", "+007", "-0.0", ".5", "5."): at most MAX_DIGITS
# characters are within every limit (38 digits, magnitudes 1E-37..1E+38), so its canonical
# form is its digits without leading and trailing zeros (format_number's, without Decimal).
_PLAIN_RE = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?")


def _plain_canonical(s: str) -> str | None:
    """The canonical form of a plain decimal of at most MAX_DIGITS characters, else None."""
    m = _PLAIN_RE.fullmatch(s)
    if m is None:
        return None
    sign, whole, frac = m.groups()
    if not whole and not frac:  # "", "+", ".", "-."
        return None
    whole = whole.lstrip("0")
    frac = frac.rstrip("0") if frac else ""
    if not whole and not frac:
        return "0"  # no negative zero
    text = f"{whole or '0'}.{frac}" if frac else whole
    return "-" + text if sign == "-" else text


def _arith_result(d: Decimal) -> str:
    # The result of SET a = a + :v / ADD is held to the same limits as a stored number, and is
    # never rounded: a result whose integer part alone needs more than 38 digits (1E+50 + 1)
    # is refused as an overflow, as the service answers (issue 24, observed against it); one
    # with more than 38 digits in all (1E+37 + 1E-10) keeps the precision error.
    _, digits, exp = d.as_tuple()
    if len(digits) > MAX_DIGITS and exp + len(digits) > MAX_DIGITS:  # over 38 digits before the point
        if len(d.normalize(_EXACT).as_tuple()[1]) > MAX_DIGITS:  # not only trailing zeros (2E+50 is exact)
            raise errors.validation(errors.MSG_OVERFLOW)
    _check_range(d)
    return format_number(d)


# Canonical integers of at most 18 digits: their sum or difference is exact in int and far
# within DynamoDB's limits, and str() of it is its canonical form (counters: ADD n :one).
_SMALL_INT_RE = re.compile(r"-?[1-9][0-9]{0,17}|0")


def _small_ints(a: object, b: object) -> bool:
    return (
        type(a) is str and type(b) is str
        and _SMALL_INT_RE.fullmatch(a) is not None and _SMALL_INT_RE.fullmatch(b) is not None
    )  # fmt: skip


def add_numbers(a: str, b: str) -> str:
    if _small_ints(a, b):
        return str(int(a) + int(b))
    return _arith_result(_EXACT.add(parse_number(a), parse_number(b)))


def subtract_numbers(a: str, b: str) -> str:
    if _small_ints(a, b):
        return str(int(a) - int(b))
    return _arith_result(_EXACT.subtract(parse_number(a), parse_number(b)))


# --- binary ----------------------------------------------------------------------------------


def _blob_error(v: str, detail: str) -> DynamoError:
    return errors.serialization(f"'{v}' can not be converted to a Blob: {detail}")


def _check_base64(v: str) -> None:
    """Strict base64 as DynamoDB's front end reads it (messages as probed by dynalite)."""
    if len(v) % 4:
        raise _blob_error(v, f"Base64 encoded length is expected a multiple of 4 bytes but found: {len(v)}")
    bad = _B64_BAD_CHAR.search(v)
    if bad is not None:
        raise _blob_error(v, f"Invalid Base64 character: '{bad.group()[0]}'")
    if v.endswith("="):  # unused bits of the last data character must be zero
        pad = 2 if v.endswith("==") else 1
        bits = _B64_INDEX.get(v[-1 - pad])
        if bits is None or bits & (0x0F if pad == 2 else 0x03):
            raise _blob_error(v, "Invalid last non-pad Base64 character dectected")  # sic


def decode_binary(v: str) -> bytes:
    """Bytes of a ``B``/``BS`` member (SerializationException if not strict base64)."""
    if not isinstance(v, str):
        raise _shape_error(v, "Blob")
    _check_base64(v)
    return base64.b64decode(v)


def _binary_length(v: str) -> int:
    return len(v) // 4 * 3 - (2 if v.endswith("==") else 1 if v.endswith("=") else 0)


# --- validation ------------------------------------------------------------------------------


def _shape_error(x: Any, expected: str) -> DynamoError:
    """A wrong JSON type inside a value. The api layer's shape check normally answers first;
    these mirror the service's deserializer wording as far as it is reported."""
    if isinstance(x, dict):
        return errors.serialization(errors.MSG_START_OF_STRUCTURE + ".")  # this path says it with a period
    if isinstance(x, list):
        return errors.serialization(errors.MSG_START_OF_LIST)
    if isinstance(x, bool):
        return errors.serialization(f"{'TRUE' if x else 'FALSE'}_VALUE cannot be converted to {expected}")
    if isinstance(x, int | float):
        return errors.serialization(f"NUMBER_VALUE cannot be converted to {expected}")
    if x is None:  # a null where an AttributeValue belongs
        return errors.validation(errors.MSG_EMPTY_VALUE)
    if expected in ("List", "Map"):
        return errors.serialization(f"Expected {expected.lower()} or null")
    if expected == "Boolean":
        return errors.serialization(f"'{str(x).upper()}' can not be converted to an Boolean")
    return errors.serialization("Expected null")


def _str_list(x: Any, member: str) -> list[str]:
    if not isinstance(x, list):
        raise _shape_error(x, "List")
    for m in x:
        if not isinstance(m, str):
            raise _shape_error(m, member)
    return x


def _check_member(t: str, x: Any, level: int) -> Any:
    """Validate one type member of an AttributeValue; return it normalised (same object if unchanged)."""
    if t == "S":
        if not isinstance(x, str):
            raise _shape_error(x, "String")
        return x
    if t == "N":
        return normalize_number(x)
    if t == "M":
        if not isinstance(x, dict):
            raise _shape_error(x, "Map")
        new_map: dict[str, Any] | None = None
        for name, member in x.items():
            nv = _validate(member, level + 1)
            if nv is not member and new_map is None:
                new_map = dict(x)
            if new_map is not None:
                new_map[name] = nv
        return x if new_map is None else new_map
    if t == "L":
        if not isinstance(x, list):
            raise _shape_error(x, "List")
        new_list: list[Any] | None = None
        for i, member in enumerate(x):
            nv = _validate(member, level + 1)
            if nv is not member and new_list is None:
                new_list = x[:i]
            if new_list is not None:
                new_list.append(nv)
        return x if new_list is None else new_list
    if t == "B":
        if not isinstance(x, str):
            raise _shape_error(x, "Blob")
        _check_base64(x)
        return x
    if t in ("BOOL", "NULL"):
        if not isinstance(x, bool):
            raise _shape_error(x, "Boolean")
        if t == "NULL" and not x:
            raise errors.invalid_request_parameter(errors.MSG_NULL_FALSE)
        return x
    return _check_set(t, x)


def ordered_set(t: str, members: list[str]) -> list[str]:
    """The members of a set in the order DynamoDB returns them: sorted, as a key of the
    member's type is ordered (API reference, Query, ScanIndexForward: strings by UTF-8
    bytes, numbers by value, binaries as unsigned bytes). ``members`` itself when already
    in order. The one home of the set order (docs/rules.md, "Sets"): every set that enters
    the engine from a request (``_check_set``, ``measure_map``) or an update's union
    (``expressions.update.set_union``) passes here, so what is stored, returned and streamed
    is in order."""
    if t == "SS":  # code point order is UTF-8 byte order
        ordered = sorted(members)
    elif t == "NS":
        ordered = sorted(members, key=parse_number)
    else:
        ordered = sorted(members, key=base64.b64decode)
    return members if ordered == members else ordered


def _check_set(t: str, x: Any) -> list[str]:
    if t == "SS":
        _str_list(x, "String")
        if not x:
            raise errors.invalid_request_parameter(errors.MSG_EMPTY_SS)
        if len(set(x)) != len(x):
            raise errors.invalid_request_parameter(errors.msg_set_duplicates(x))
        return ordered_set(t, x)
    if t == "NS":
        _str_list(x, "String")
        if not x:
            raise errors.invalid_request_parameter(errors.MSG_EMPTY_NS)
        normal = [normalize_number(m) for m in x]
        if len(set(normal)) != len(normal):  # "1" and "1.0" are the same number
            raise errors.request_check(errors.MSG_NS_DUPLICATES)
        return ordered_set(t, x if all(a is b for a, b in zip(normal, x, strict=True)) else normal)
    _str_list(x, "Blob")  # BS
    if not x:
        raise errors.invalid_request_parameter(errors.MSG_EMPTY_BS)
    for m in x:
        _check_base64(m)
    if len(set(x)) != len(x):  # strict base64 is 1:1 with bytes
        raise errors.invalid_request_parameter(errors.msg_set_duplicates(x, "BS"))
    return ordered_set(t, x)


def _validate(v: Any, level: int) -> Value:
    # Recursion is bounded: a value nested deeper than MAX_NESTING is refused before descending
    # (or, while ``nesting_last`` looks for another error, kept as it is, unchecked).
    if level > MAX_NESTING:
        if _NESTING_SET_ASIDE.get():
            return _SET_ASIDE  # the request is refused anyway: what follows sees a flat value
        raise errors.validation(errors.MSG_NESTING)
    if not isinstance(v, dict):
        raise _shape_error(v, "Structure")
    if len(v) == 1:  # the common case, no allocation when nothing changes
        ((t, x),) = v.items()
        if t in _TYPE_SET and x is not None:
            nx = _check_member(t, x, level)
            return v if nx is x else {t: nx}
    # Unknown members and nulls are ignored, as the service's deserializer does.
    members = [(t, x) for t, x in v.items() if t in _TYPE_SET and x is not None]
    if not members:
        raise errors.validation(errors.MSG_EMPTY_VALUE)
    checked = [(t, _check_member(t, x, level)) for t, x in members]  # each member first, then the count
    if len(checked) > 1:
        raise errors.validation(errors.MSG_MULTI_VALUE)
    return dict(checked)


# True while ``nesting_last`` runs a request's checks again with the nesting rule set aside;
# a level past the limit then stands for this value, so no later step walks the deep rest.
_NESTING_SET_ASIDE: ContextVar[bool] = ContextVar("nesting_set_aside", default=False)
_SET_ASIDE: Value = {"NULL": True}


def nesting_last(checks: Callable[[], T]) -> T:
    """Run a request's checks (those before its table is looked up) in DynamoDB's order for
    nesting: a value nested past 32 levels is refused only when no other check of the request
    fails (issue 36; docs/rules.md, "The validation envelope"). Only a request that breaks the
    nesting rule has its checks run twice: the second time each level past the limit stands
    for a NULL, so the first other error is raised, else the nesting error."""
    try:
        return checks()
    except DynamoError as e:
        if e.message != errors.MSG_NESTING:
            raise
        nesting = e
    token = _NESTING_SET_ASIDE.set(True)
    try:
        checks()
    finally:
        _NESTING_SET_ASIDE.reset(token)
    raise nesting


def nested_too_deep(v: Any, level: int = 1) -> bool:
    """Whether the AttributeValue ``v`` nests past MAX_NESTING levels (shape not checked)."""
    if level > MAX_NESTING:
        return True
    if type(v) is not dict:
        return False
    m = v.get("M")
    if type(m) is dict:
        return any(nested_too_deep(x, level + 1) for x in m.values())
    lst = v.get("L")
    if type(lst) is list:
        return any(nested_too_deep(x, level + 1) for x in lst)
    return False


def validate_value(v: Any, *, path: str = "") -> Value:
    """Check one AttributeValue (shape, types, sets, numbers, nesting) and return it normalised.

    ``path`` names where the value came from, for the caller's diagnostics; DynamoDB's own
    messages for attribute values do not name it."""
    return _validate(v, 1)


class MeasuredMap(dict):  # type: ignore[type-arg]
    """A map of attribute values (an item, a key, ExpressionAttributeValues) as the request
    validator hands it on (``measure_map``): ``size`` is the DynamoDB size of every name and
    of every value that already passed the value rules as it is; ``unchecked`` names the
    values those rules have yet to see. ``validate_item``, ``validate_item_sized`` and
    ``validate_values`` check only those, so an item is walked once per request. Never
    stored: those functions return a plain dict."""

    __slots__ = ("size", "unchecked")

    size: int
    unchecked: list[str]



def measure_map(v: dict[str, Any], type_check: Callable[[Any], Any] | None = None) -> MeasuredMap:
    """``v`` as a MeasuredMap: a value that passes the value rules exactly as it is (an
    ``S``, a canonical ``N``, a ``BOOL``, a ``NULL`` true, a string set of distinct strings)
    is measured and done; each other one (and every value of an empty name, refused later)
    is left unchecked, after ``type_check`` (the request validator's JSON type pass, which
    returns the value to keep). The one walk of a request's item: keep it inline."""
    out = MeasuredMap(v)
    if len(v) == 1:  # a key, a value: joining one name costs more than taking it
        (names,) = v
    else:
        names = "".join(v)  # every name counts, checked or not
    size = len(names) if names.isascii() else _utf8_len(names)
    unchecked: list[str] = []
    for k, x in v.items():
        # x.get first: cheaper than unpacking x.items() for the commonest members, S and N
        if type(x) is dict and k:
            y = x.get("S")
            if y is not None:
                if type(y) is str and len(x) == 1:
                    size += len(y) if y.isascii() else _utf8_len(y)
                    continue
            else:
                y = x.get("N")
                if y is not None:
                    if type(y) is str and len(x) == 1 and len(y) <= MAX_DIGITS:
                        n = _canonical_size(y)
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
                            ordered = ordered_set(t, y)
                            if ordered is not y:
                                out[k] = {"SS": ordered}
                            continue
                    elif t == "NULL" and y is True:
                        size += 1
                        continue
        unchecked.append(k)
        if type_check is not None and x is not None:
            nx = type_check(x)
            if nx is not x:
                out[k] = nx
    out.size = size
    out.unchecked = unchecked
    return out


def _string_set_size(y: Any) -> int:
    """Size of ``{"SS": y}`` when it breaks no rule (a non-empty list of distinct strings:
    ``_check_set``), else -1."""
    if type(y) is not list or not y:
        return -1
    try:
        joined = "".join(y)  # only strings join
    except TypeError:
        return -1
    if len(set(y)) != len(y):
        return -1
    return len(joined) if joined.isascii() else _utf8_len(joined)


def _finish_measured(item: MeasuredMap) -> tuple[Item, int]:
    """``validate_item_sized`` of a MeasuredMap: the value rules of the unchecked attributes
    only (the others passed them, so the first error is the same)."""
    size = item.size
    out = dict(item)
    for name in item.unchecked:
        if not name:
            raise errors.validation(errors.MSG_EMPTY_NAME)
        v = item[name]
        nv = _validate(v, 1)
        size += value_size(nv)  # the name is counted already
        if nv is not v:
            out[name] = nv
    return out, size


def validate_values(values: Any) -> Item:
    """ExpressionAttributeValues: every value checked and normalised (``validate_value``),
    a MeasuredMap's unchecked ones only; a new dict when any changed."""
    if type(values) is MeasuredMap:
        if not values.unchecked:
            return values
        out = dict(values)
        for key in values.unchecked:
            out[key] = _validate(values[key], 1)
        return out
    return {key: _validate(value, 1) for key, value in values.items()}


def validate_item(item: Any) -> Item:
    """Check every attribute of an item (or key); return it normalised, the same dict if unchanged."""
    if type(item) is MeasuredMap:
        return dict(item) if not item.unchecked else _finish_measured(item)[0]
    if not isinstance(item, dict):
        raise _shape_error(item, "Map")
    out: Item | None = None
    for name, v in item.items():
        if not name:
            raise errors.validation(errors.MSG_EMPTY_NAME)
        nv = _validate(v, 1)
        if nv is not v and out is None:
            out = dict(item)
        if out is not None:
            out[name] = nv
    return item if out is None else out


def validate_item_sized(item: Any) -> tuple[Item, int]:
    """``validate_item`` and ``item_size`` in one pass over the attributes (PutItem's):
    ``measure_map`` sizes what needs no other check, the value rules see the rest."""
    if type(item) is not MeasuredMap:
        if not isinstance(item, dict):
            raise _shape_error(item, "Map")
        item = measure_map(item)
    return _finish_measured(item)


# --- types, sizes ----------------------------------------------------------------------------


def value_type(v: Value) -> str:
    for t in v:
        return t
    raise ValueError("empty AttributeValue")


def _utf8_len(s: str) -> int:
    return len(s) if s.isascii() else len(s.encode("utf-8", "surrogatepass"))


@memoized(8192)  # counters and flags repeat
def _number_size(s: str) -> int:
    """Bytes of a stored number: base-100 digits (a pair per byte, aligned on the decimal
    point) + 1 exponent byte + 1 if negative; zero is 1 byte. dynalite's probed rule, which
    also fits all 23 literals measured at the 400 KB gate (eu-west-2, 2026)."""
    if _CANONICAL_RE.fullmatch(s) is None:
        s = format_number(parse_number(s))
    return _canonical_digits_size(s)


@memoized(8192)  # counters, flags and prices repeat
def _canonical_size(s: str) -> int:
    """``_number_size`` of ``s`` when it is a number in canonical form, else -1 (``measure_map``:
    only strings of at most MAX_DIGITS characters, longer ones are never canonical here). One
    cache and one match per number: a number seen once (an import's counter) pays no more."""
    return _canonical_digits_size(s) if _CANONICAL_RE.fullmatch(s) is not None else -1


def _canonical_digits_size(s: str) -> int:
    """``_number_size`` of a number in canonical form."""
    if s == "0":
        return 1
    neg = s[0] == "-"
    if neg:
        s = s[1:]
    dot = s.find(".")
    if dot < 0:  # integer: trailing zeros are not digits
        d, e = len(s.rstrip("0")), len(s) - 1
    elif dot == 1 and s[0] == "0":  # pure fraction: leading zeros are not digits
        frac = s[2:]
        d = len(frac.lstrip("0"))
        e = d - len(frac) - 1
    else:  # canonical: no leading or trailing zeros around the point
        d, e = len(s) - 1, dot - 1
    return 1 + (d + 1) // 2 + (1 if d % 2 == 0 and e % 2 == 0 else 0) + neg


number_size = _number_size  # the size of an N value's string (memoized)


def value_size(v: Value) -> int:
    """Size as DynamoDB counts it, without the attribute name (developer guide, item sizes):
    S UTF-8 bytes, B raw bytes, N see _number_size, BOOL/NULL 1, sets the sum of their members,
    L/M 3 bytes + 1 per element + the elements (a map element includes its name)."""
    ((t, x),) = v.items()
    if t == "S":
        return len(x) if x.isascii() else len(x.encode("utf-8", "surrogatepass"))
    if t == "N":
        return _number_size(x)
    if t == "M":
        return 3 + item_size(x) + len(x)
    size = 0
    if t == "L":
        for e in x:
            size += value_size(e)
        return 3 + len(x) + size
    if t == "B":
        return _binary_length(x)
    if t == "SS":
        for m in x:
            size += _utf8_len(m)
    elif t == "NS":
        for m in x:
            size += _number_size(m)
    elif t == "BS":
        for m in x:
            size += _binary_length(m)
    else:  # BOOL, NULL
        return 1
    return size


def item_size(item: Item) -> int:
    """Item size: UTF-8 bytes of every name + its value's size."""
    size = 0
    for name, v in item.items():
        size += (len(name) if name.isascii() else _utf8_len(name)) + value_size(v)
    return size


# DynamoDB's maximum item size, 400 KB including attribute names ("Service, account, and
# table quotas": Item size).
MAX_ITEM_BYTES = 400 * 1024


def check_item_size(size: int, message: str = errors.MSG_ITEM_SIZE) -> None:
    """The 400 KB rule, the one place it is applied: ValidationException when an item of
    ``size`` bytes (``item_size``) is too large. The engine applies it to every new image
    it plans (``Table.plan``); the api calls it early where the service reports it before
    other errors (PutItem before the table lookup). ``message``: ``errors.MSG_UPDATE_SIZE``
    for an update."""
    if size > MAX_ITEM_BYTES:
        raise errors.validation(message)


# --- comparison ------------------------------------------------------------------------------


def _cmp(a: Any, b: Any) -> int:
    return (a > b) - (a < b)


def compare_values(a: Value, b: Value) -> int | None:
    """-1/0/1 for two values of the same ordered type: S by UTF-8 bytes (= code point order),
    N by value, B by unsigned bytes; None for different or unordered types."""
    ((ta, xa),) = a.items()
    ((tb, xb),) = b.items()
    if ta != tb:
        return None
    if ta == "S":
        return _cmp(xa, xb)
    if ta == "N":
        return 0 if xa == xb else _cmp(Decimal(xa), Decimal(xb))
    if ta == "B":
        return 0 if xa == xb else _cmp(decode_binary(xa), decode_binary(xb))
    return None


def _num_set(xs: list[str]) -> set[Decimal]:
    return {Decimal(m) for m in xs}


def values_equal(a: Value, b: Value) -> bool:
    """DynamoDB equality: same type, numbers by value, sets unordered, L/M element-wise."""
    ((ta, xa),) = a.items()
    ((tb, xb),) = b.items()
    if ta != tb:
        return False
    if xa is xb:
        return True
    if ta in ("S", "BOOL", "NULL"):
        return xa == xb
    if ta == "N":
        return xa == xb or Decimal(xa) == Decimal(xb)
    if ta == "B":
        return xa == xb or decode_binary(xa) == decode_binary(xb)
    if len(xa) != len(xb):
        return False
    if ta == "L":
        return all(values_equal(p, q) for p, q in zip(xa, xb, strict=True))
    if ta == "M":
        return all(k in xb and values_equal(e, xb[k]) for k, e in xa.items())
    if ta == "SS":
        return set(xa) == set(xb)
    if ta == "NS":
        return set(xa) == set(xb) or _num_set(xa) == _num_set(xb)
    return set(xa) == set(xb) or {decode_binary(m) for m in xa} == {decode_binary(m) for m in xb}  # BS


def contains(container: Value, operand: Value) -> bool:
    """The ``contains(path, operand)`` function: a substring of an S, sub-bytes of a B, a member
    of a set of the operand's type, or an element of a list equal to the operand."""
    ((tc, xc),) = container.items()
    ((to, xo),) = operand.items()
    if tc == "L":
        return any(values_equal(e, operand) for e in xc)
    if tc == "S" or tc == "SS":
        return to == "S" and xo in xc
    if tc == "NS":
        return to == "N" and (xo in xc or Decimal(xo) in _num_set(xc))
    if tc == "B":
        return to == "B" and decode_binary(xo) in decode_binary(xc)
    if tc == "BS":
        return to == "B" and (xo in xc or decode_binary(xo) in {decode_binary(m) for m in xc})
    return False


def value_length(v: Value) -> int | None:
    """The ``size(path)`` function: an S's length in UTF-16 code units (the service counts
    "é𝄞" as 3), a B's bytes, the element count of a set, L or M; None for N, BOOL, NULL."""
    ((t, x),) = v.items()
    if t == "S":
        return len(x) if x.isascii() else len(x.encode("utf-16-le", "surrogatepass")) // 2
    if t == "B":
        return _binary_length(x)
    if t in ("SS", "NS", "BS", "L", "M"):
        return len(x)
    return None
