"""dynemu.engine.values: numbers, validation messages, sizes, comparison.

Sources:
* Messages and check order: architect/dynalite validations/index.js (probed against the service);
  DynamoDB Local's ErrorFactory (decompiled); reports of the real service: "The parameter cannot be
  converted to a numeric value: NaN" (jovotech/jovo-framework#197), bare overflow message
  (aws/aws-cdk#13669, ExtendDB/extenddb#94 for SET n = n + :v), nesting message (nubo-db/dynoxide#110).
* Number grammar: leading "+" accepted, whitespace rejected (nubo-db/dynoxide#109, #113).
* Canonical output: plain decimal ("0042.1200" -> "42.12", "1E125" -> 126 digits), boto/boto3#2500.
* Sizes: developer guide "DynamoDB item sizes and formats" (23-byte example); number sizes measured at
  the 400 KB gate in eu-west-2 (nubo-db/dynamodb-conformance src/item-size.ts, 23 literals).
* size() of a string counts UTF-16 code units: "é𝄞" is 3 (ExtendDB/extenddb#60).
"""

from __future__ import annotations

import base64
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dynemu.engine import values as V
from dynemu.errors import CORAL_NS, VALIDATE_NS, DynamoError

PREFIX = "One or more parameter values were invalid: "
NAN = "The parameter cannot be converted to a numeric value"
OVER = "Number overflow. Attempting to store a number with magnitude larger than supported range"
UNDER = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
DIGITS = "Attempting to store more than 38 significant digits in a Number"
NEST = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
MAX = "9.9999999999999999999999999999999999999E+125"


def b64(raw: bytes) -> str:
    return base64.b64encode(raw).decode()


def raises(fn: Any, *args: Any) -> DynamoError:
    with pytest.raises(DynamoError) as info:
        fn(*args)
    return info.value


def assert_validation(fn: Any, arg: Any, message: str) -> None:
    err = raises(fn, arg)
    assert (err.type_name, err.namespace, err.message) == ("ValidationException", VALIDATE_NS, message)


def assert_serialization(fn: Any, arg: Any, message: str) -> None:
    err = raises(fn, arg)
    assert (err.type_name, err.namespace, err.message) == ("SerializationException", CORAL_NS, message)


def nested(depth: int, leaf: dict[str, Any]) -> dict[str, Any]:
    """``depth`` map wrappers around ``leaf`` (built iteratively: depth may be huge)."""
    v = leaf
    for _ in range(depth):
        v = {"M": {"x": v}}
    return v


# --- numbers ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("0", "0"), ("-0", "0"), ("0.000", "0"), ("+0", "0"), ("0e5", "0"), ("1.50", "1.5"), ("1E+2", "100"),
        ("1e2", "100"), ("1.5E+3", "1500"), ("+5", "5"), ("+1.5", "1.5"), ("+1e2", "100"), ("-7", "-7"),
        ("0.00100", "0.001"), ("0042.1200", "42.12"), ("00042", "42"), ("1.", "1"), (".5", "0.5"),
        ("-.5", "-0.5"), ("1.0", "1"), ("1E125", "1" + "0" * 125), ("1E-100", "0." + "0" * 99 + "1"),
        ("1E-130", "0." + "0" * 129 + "1"), ("-1E-130", "-0." + "0" * 129 + "1"),
        (MAX, "99999999999999999999999999999999999999" + "0" * 88),
        ("12345678901234567890123456789012345678", "12345678901234567890123456789012345678"),
        ("1" + "0" * 60, "1" + "0" * 60), ("1.2345678901234567890123456789012345678000000", "1.2345678901234567890123456789012345678"),
        ("-123.4500e-2", "-1.2345"),
    ],
)  # fmt: skip
def test_canonical_numbers(text: str, canonical: str) -> None:
    assert V.format_number(V.parse_number(text)) == canonical
    assert V.normalize_number(text) == canonical


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", f"{NAN}: "), ("abc", f"{NAN}: abc"), ("1e", f"{NAN}: 1e"), (" 1", f"{NAN}:  1"), ("1 ", f"{NAN}: 1 "),
        ("Infinity", f"{NAN}: Infinity"), ("-Infinity", f"{NAN}: -Infinity"), ("NaN", f"{NAN}: NaN"),
        ("nan", f"{NAN}: nan"), (".", f"{NAN}: ."), ("-", f"{NAN}: -"), ("+", f"{NAN}: +"), ("e5", f"{NAN}: e5"),
        ("1.2.3", f"{NAN}: 1.2.3"), ("1+2", f"{NAN}: 1+2"), ("0x10", f"{NAN}: 0x10"), ("1_000", f"{NAN}: 1_000"),
        ("١", f"{NAN}: ١"), ("1\n", f"{NAN}: 1\n"), ("--1", f"{NAN}: --1"), ("1e+", f"{NAN}: 1e+"),
        ("1e126", OVER), ("-1e126", OVER), ("10" + "0" * 125, OVER), ("1e-131", UNDER), ("-1e-131", UNDER),
        ("123456789012345678901234567890123456789", DIGITS), ("-1.23456789012345678901234567890123456789", DIGITS),
        ("1" * 39 + "e-200", UNDER),  # magnitude is checked before precision
        ("1" * 39 + "e200", OVER),
        ("1e999999", OVER), ("1e2147483647", OVER), ("1e-2147483648", UNDER),
        # an exponent past a 32-bit integer overflows or underflows, a zero's too (issue 36;
        # issue 17 had "cannot be converted", the older answer)
        ("1e+99999999999999999999", OVER), ("-1E-99999999999999999999", UNDER),
        ("0e99999999999999999999", OVER), ("0e-99999999999999999999", UNDER),
        ("1e2147483648", OVER), ("1e99999999999", OVER), ("1e-99999999999", UNDER), ("1e-2147483649", UNDER),
    ],
)  # fmt: skip
def test_invalid_numbers(text: str, message: str) -> None:
    assert_validation(V.parse_number, text, message)
    assert_validation(V.normalize_number, text, message)


def test_normalize_number_returns_canonical_input_itself() -> None:
    s = "".join(["12", ".5"])  # a fresh object
    assert V.normalize_number(s) is s


@pytest.mark.parametrize(
    ("a", "b", "total", "difference"),
    [
        ("1", "2", "3", "-1"), ("0.3", "0.1", "0.4", "0.2"), ("1.5", "1.5", "3", "0"), ("-0", "0", "0", "0"),
        ("100000000000000000000.00000001", "1", "100000000000000000001.00000001", "99999999999999999999.00000001"),
        ("1E+125", "1E+125", "2" + "0" * 125, "0"), ("1E-130", "1E-130", "0." + "0" * 129 + "2", "0"),
        ("1.5E+3", "+2", "1502", "1498"),
    ],
)  # fmt: skip
def test_arithmetic(a: str, b: str, total: str, difference: str) -> None:
    assert V.add_numbers(a, b) == total
    assert V.subtract_numbers(a, b) == difference


@pytest.mark.parametrize(
    ("fn", "a", "b", "message"),
    [
        (V.add_numbers, MAX, "1E+125", OVER),  # as the service answers (ExtendDB#94)
        (V.subtract_numbers, "-" + MAX, "1E+125", OVER),
        (V.add_numbers, MAX, "1E+88", OVER),
        (V.subtract_numbers, "1E-130", "9E-131", UNDER),
        (V.add_numbers, "1E+37", "1E-10", DIGITS),
        (V.add_numbers, "12345678901234567890123456789012345678", "0.1", DIGITS),
        (V.add_numbers, "abc", "1", f"{NAN}: abc"),
        (V.subtract_numbers, "1", "", f"{NAN}: "),
    ],
)
def test_arithmetic_errors(fn: Any, a: str, b: str, message: str) -> None:
    err = raises(fn, a, b)
    assert (err.type_name, err.message) == ("ValidationException", message)


numbers = st.decimals(allow_nan=False, allow_infinity=False, places=None).filter(
    lambda d: d == 0 or -130 <= d.adjusted() <= 125
)
number_texts = st.one_of(
    st.from_regex(r"[+-]?(0|[1-9][0-9]{0,20})(\.[0-9]{0,16})?([eE][+-]?[0-9]{1,2})?", fullmatch=True),
    numbers.map(str),
)


def _significant(d: Decimal) -> int:
    return len(d.normalize(V._EXACT).as_tuple().digits) if d else 0


@settings(max_examples=500)
@given(number_texts)
def test_format_is_idempotent_and_value_preserving(text: str) -> None:
    d = Decimal(text)
    if _significant(d) > 38 or (d and not -130 <= d.adjusted() <= 125):
        with pytest.raises(DynamoError):
            V.parse_number(text)
        return
    out = V.format_number(V.parse_number(text))
    assert Decimal(out) == d
    assert V.format_number(V.parse_number(out)) == out
    assert V.normalize_number(out) == out and V.normalize_number(text) == out
    assert "e" not in out.lower() and out != "-0"


@settings(max_examples=500)
@given(number_texts, number_texts)
def test_compare_and_equal_agree_with_decimal(x: str, y: str) -> None:
    try:
        a, b = {"N": V.normalize_number(x)}, {"N": V.normalize_number(y)}
    except DynamoError:
        return
    dx, dy = Decimal(x), Decimal(y)
    assert V.compare_values(a, b) == (dx > dy) - (dx < dy)
    assert V.compare_values({"N": x}, {"N": y}) == (dx > dy) - (dx < dy)  # also on raw input
    assert V.values_equal(a, b) == (dx == dy)


@settings(max_examples=300)
@given(number_texts, number_texts)
def test_add_agrees_with_exact_decimal(x: str, y: str) -> None:
    try:
        V.parse_number(x), V.parse_number(y)
    except DynamoError:
        return
    exact = V._EXACT.add(Decimal(x), Decimal(y))
    try:
        out = V.add_numbers(x, y)
    except DynamoError as err:
        assert err.message in (OVER, UNDER, DIGITS)
        return
    assert Decimal(out) == exact and V.normalize_number(out) == out


# --- validation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({}, "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"),
        ({"S": None}, "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"),
        ({"X": "y"}, "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"),
        (None, "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"),
        ({"S": "a", "N": "1"}, "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"),
        ({"S": "a", "N": "b"}, f"{NAN}: b"),  # each member is checked before the count
        ({"NULL": False}, PREFIX + "Null attribute value types must have the value of true"),
        ({"SS": []}, PREFIX + "An string set  may not be empty"),
        ({"NS": []}, PREFIX + "An number set  may not be empty"),
        ({"BS": []}, PREFIX + "Binary sets should not be empty"),
        ({"SS": ["a", "a"]}, PREFIX + 'Input collection ["a", "a"] contains duplicates.'),
        ({"SS": ["0", "1", "0"]}, PREFIX + 'Input collection ["0", "1", "0"] contains duplicates.'),
        ({"BS": ["Yg==", "Yg=="]}, PREFIX + 'Input collection ["Yg==","Yg=="]of type BS contains duplicates.'),
        ({"NS": ["1", "1"]}, "Input collection contains duplicates"),
        ({"NS": ["1", "1.0"]}, "Input collection contains duplicates"),
        ({"NS": ["1", ""]}, f"{NAN}: "),
        ({"NS": ["1", "b"]}, f"{NAN}: b"),
        ({"NS": ["1e126"]}, OVER),
        ({"N": ""}, f"{NAN}: "),
        ({"N": "12345678901234567890123456789012345678901"}, DIGITS),
        ({"L": [{"N": "x"}]}, f"{NAN}: x"),
        ({"M": {"a": {"NULL": False}}}, PREFIX + "Null attribute value types must have the value of true"),
        ({"L": [{}]}, "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"),
        (nested(32, {"S": "x"}), NEST),
        (nested(31, {"L": [{"S": "x"}]}), NEST),
        (nested(32, {"M": {}}), NEST),
    ],
)  # fmt: skip
def test_invalid_values(value: Any, message: str) -> None:
    assert_validation(V.validate_value, value, message)
    assert_validation(V.validate_item, {"a": value}, message)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"B": "YQ="}, "'YQ=' can not be converted to a Blob: Base64 encoded length is expected a multiple of 4 bytes but found: 3"),
        ({"B": "Y Q="}, "'Y Q=' can not be converted to a Blob: Invalid Base64 character: ' '"),
        ({"B": "YQ=a"}, "'YQ=a' can not be converted to a Blob: Invalid Base64 character: '='"),
        ({"B": "YR=="}, "'YR==' can not be converted to a Blob: Invalid last non-pad Base64 character dectected"),
        ({"B": "YWJ="}, "'YWJ=' can not be converted to a Blob: Invalid last non-pad Base64 character dectected"),
        ({"B": "===="}, "'====' can not be converted to a Blob: Invalid last non-pad Base64 character dectected"),
        ({"BS": ["YQ==", "*AAA"]}, "'*AAA' can not be converted to a Blob: Invalid Base64 character: '*'"),
        ({"S": 5}, "NUMBER_VALUE cannot be converted to String"),
        ({"N": 5}, "NUMBER_VALUE cannot be converted to String"),
        ({"SS": ["a", 1.5]}, "NUMBER_VALUE cannot be converted to String"),
        ({"S": {}}, "Start of structure or map found where not expected."),
        ({"S": []}, "Start of list found where not expected"),
        ({"L": {}}, "Start of structure or map found where not expected."),
        ({"M": []}, "Start of list found where not expected"),
        ({"L": "x"}, "Expected list or null"),
        ({"M": "x"}, "Expected map or null"),
        ({"L": ["x"]}, "Expected null"),
        ({"BOOL": "maybe"}, "'MAYBE' can not be converted to an Boolean"),
    ],
)  # fmt: skip
def test_malformed_values_are_serialization_errors(value: Any, message: str) -> None:
    assert_serialization(V.validate_value, value, message)


def test_nesting_limit_is_32_levels() -> None:
    ok = nested(31, {"S": "x"})  # 31 map-wraps above a scalar: accepted by the service
    assert V.validate_value(ok) is ok
    deep_list = {"L": [{"S": "x"}]}
    for _ in range(30):
        deep_list = {"L": [deep_list]}
    assert V.validate_value(deep_list) is deep_list
    assert V.validate_value(nested(31, {"M": {}})) is not None


def test_very_deep_values_do_not_recurse_unboundedly() -> None:
    assert_validation(V.validate_value, nested(100_000, {"S": "x"}), NEST)


@pytest.mark.parametrize(
    "value",
    [
        {"S": ""}, {"S": "héllo"}, {"N": "-12.5"}, {"B": ""}, {"B": b64(b"\x00\xff")}, {"BOOL": False},
        {"NULL": True}, {"L": []}, {"M": {}}, {"SS": ["", "a"]}, {"BS": ["", "YQ=="]}, {"NS": ["1", "2"]},
        {"L": [{"S": "a"}, {"M": {"b": {"NS": ["0.5"]}}}]},
    ],
)  # fmt: skip
def test_valid_canonical_values_are_returned_without_copy(value: dict[str, Any]) -> None:
    assert V.validate_value(value, path="Item.a") is value
    item = {"a": value, "b": {"S": "x"}}
    assert V.validate_item(item) is item


def test_normalisation_copies_only_what_changes() -> None:
    inner = {"S": "keep"}
    item = {
        "n": {"N": "1.50"},
        "ns": {"NS": ["1E+2", "3"]},
        "l": {"L": [inner, {"N": "+0"}]},
        "m": {"M": {"k": {"N": "0042.1200"}, "same": inner}},
        "odd": {"S": "x", "X": 1},  # unknown members are dropped
        "s": inner,
    }
    out = V.validate_item(item)
    assert out == {
        "n": {"N": "1.5"},
        "ns": {"NS": ["3", "100"]},  # numbers in order (values.ordered_set)
        "l": {"L": [inner, {"N": "0"}]},
        "m": {"M": {"k": {"N": "42.12"}, "same": inner}},
        "odd": {"S": "x"},
        "s": inner,
    }
    assert out["s"] is inner and out["l"]["L"][0] is inner and out["m"]["M"]["same"] is inner
    assert item["n"] == {"N": "1.50"} and item["ns"] == {"NS": ["1E+2", "3"]}  # input untouched


def test_validate_item_requires_a_map() -> None:
    assert_serialization(V.validate_item, [], "Start of list found where not expected")
    assert_serialization(V.validate_item, "x", "Expected map or null")


# --- binary ----------------------------------------------------------------------------------


@pytest.mark.parametrize("raw", [b"", b"a", b"ab", b"abc", b"\x00\xff\x80", bytes(range(256))])
def test_decode_binary(raw: bytes) -> None:
    assert V.decode_binary(b64(raw)) == raw


def test_decode_binary_rejects_non_canonical() -> None:
    assert_serialization(
        V.decode_binary,
        "YR==",
        "'YR==' can not be converted to a Blob: Invalid last non-pad Base64 character dectected",
    )


# --- sizes -----------------------------------------------------------------------------------

# Measured against the real service at the 400 KB gate (eu-west-2, 2026-08-18).
CAPTURED_NUMBER_BYTES = [
    ("0", 1), ("1", 2), ("12", 2), ("123", 3), ("1234", 3), ("12345678901234567890123456789012345678", 20),
    ("0042", 2), ("100", 2), ("1010", 3), ("0.0000001", 2), ("1E125", 2), ("1E-100", 2), ("1.5", 3), ("15", 2),
    ("1.2", 3), ("1.200", 3), ("1.234", 4), ("3.14159", 5), ("123456", 4), ("100.5", 4), ("0.15", 2),
    ("-42", 3), ("-0", 1),
]  # fmt: skip


@pytest.mark.parametrize(("literal", "size"), CAPTURED_NUMBER_BYTES)
def test_number_sizes_match_the_service(literal: str, size: int) -> None:
    assert V.value_size({"N": literal}) == size
    assert V.value_size({"N": V.normalize_number(literal)}) == size


@pytest.mark.parametrize(
    ("item", "size"),
    [
        ({"shirt-color": {"S": "R"}, "shirt-size": {"S": "M"}}, 23),  # developer guide example
        ({"a": {"S": "é"}}, 3),
        ({"é": {"S": ""}}, 2),
        ({"a": {"B": b64(b"abcd")}}, 5),
        ({"a": {"B": ""}}, 1),
        ({"a": {"BOOL": True}, "b": {"NULL": True}}, 4),
        ({"a": {"L": []}}, 4),
        ({"a": {"M": {}}}, 4),
        ({"a": {"L": [{"S": "xy"}, {"N": "1"}]}}, 1 + 3 + (1 + 2) + (1 + 2)),
        ({"a": {"M": {"k": {"S": "xy"}}}}, 1 + 3 + 1 + 1 + 2),
        ({"a": {"SS": ["x", "yz"]}}, 1 + 3),
        ({"a": {"NS": ["1", "-42"]}}, 1 + 2 + 3),
        ({"a": {"BS": [b64(b"ab"), b64(b"c")]}}, 1 + 3),
        ({"id": {"N": "123"}, "name": {"S": "Joe"}}, 2 + 3 + 4 + 3),
    ],
)  # fmt: skip
def test_item_sizes(item: dict[str, Any], size: int) -> None:
    assert V.item_size(item) == size


# --- comparison and functions ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ({"S": "a"}, {"S": "b"}, -1), ({"S": "b"}, {"S": "a"}, 1), ({"S": "a"}, {"S": "a"}, 0),
        ({"S": "Z"}, {"S": "a"}, -1), ({"S": "\uffff"}, {"S": "\U00010000"}, -1),  # UTF-8 byte order
        ({"N": "10"}, {"N": "9"}, 1), ({"N": "-1"}, {"N": "0.5"}, -1), ({"N": "1.0"}, {"N": "1"}, 0),
        ({"B": b64(b"\x80")}, {"B": b64(b"\x7f")}, 1), ({"B": b64(b"a")}, {"B": b64(b"ab")}, -1),
        ({"S": "1"}, {"N": "1"}, None), ({"BOOL": True}, {"BOOL": False}, None), ({"L": []}, {"L": []}, None),
        ({"SS": ["a"]}, {"SS": ["a"]}, None), ({"NULL": True}, {"NULL": True}, None),
    ],
)  # fmt: skip
def test_compare_values(a: dict[str, Any], b: dict[str, Any], expected: int | None) -> None:
    assert V.compare_values(a, b) == expected


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ({"S": "a"}, {"S": "a"}, True), ({"S": "a"}, {"SS": ["a"]}, False), ({"N": "1"}, {"N": "1.00"}, True),
        ({"N": "1"}, {"S": "1"}, False), ({"BOOL": True}, {"BOOL": True}, True), ({"BOOL": True}, {"BOOL": False}, False),
        ({"NULL": True}, {"NULL": True}, True), ({"B": "YQ=="}, {"B": "YQ=="}, True), ({"B": "YQ=="}, {"B": "Yg=="}, False),
        ({"SS": ["a", "b"]}, {"SS": ["b", "a"]}, True), ({"SS": ["a"]}, {"SS": ["a", "b"]}, False),
        ({"NS": ["1", "2"]}, {"NS": ["2.0", "1"]}, True), ({"NS": ["1"]}, {"NS": ["2"]}, False),
        ({"BS": ["YQ==", "Yg=="]}, {"BS": ["Yg==", "YQ=="]}, True),
        ({"L": [{"N": "1"}, {"S": "x"}]}, {"L": [{"N": "1.0"}, {"S": "x"}]}, True),
        ({"L": [{"N": "1"}, {"S": "x"}]}, {"L": [{"S": "x"}, {"N": "1"}]}, False),
        ({"L": [{"N": "1"}]}, {"L": [{"N": "1"}, {"N": "1"}]}, False),
        ({"M": {"a": {"N": "1"}, "b": {"L": []}}}, {"M": {"b": {"L": []}, "a": {"N": "1.0"}}}, True),
        ({"M": {"a": {"N": "1"}}}, {"M": {"b": {"N": "1"}}}, False),
        ({"M": {}}, {"L": []}, False),
    ],
)  # fmt: skip
def test_values_equal(a: dict[str, Any], b: dict[str, Any], expected: bool) -> None:
    assert V.values_equal(a, b) is expected
    assert V.values_equal(b, a) is expected


@pytest.mark.parametrize(
    ("container", "operand", "expected"),
    [
        ({"S": "hello"}, {"S": "ell"}, True), ({"S": "hello"}, {"S": ""}, True), ({"S": "hello"}, {"S": "x"}, False),
        ({"S": "123"}, {"N": "2"}, False),
        ({"B": b64(b"\x00abc")}, {"B": b64(b"ab")}, True), ({"B": b64(b"abc")}, {"B": b64(b"ca")}, False),
        ({"SS": ["a", "bc"]}, {"S": "bc"}, True), ({"SS": ["abc"]}, {"S": "b"}, False),
        ({"NS": ["1", "2.5"]}, {"N": "2.50"}, True), ({"NS": ["1"]}, {"N": "2"}, False), ({"NS": ["1"]}, {"S": "1"}, False),
        ({"BS": [b64(b"a"), b64(b"b")]}, {"B": b64(b"b")}, True), ({"BS": [b64(b"ab")]}, {"B": b64(b"a")}, False),
        ({"L": [{"S": "a"}, {"N": "1"}]}, {"N": "1.0"}, True), ({"L": [{"S": "abc"}]}, {"S": "b"}, False),
        ({"L": [{"M": {"k": {"S": "v"}}}]}, {"M": {"k": {"S": "v"}}}, True),
        ({"M": {"a": {"S": "a"}}}, {"S": "a"}, False), ({"N": "12"}, {"N": "1"}, False), ({"BOOL": True}, {"BOOL": True}, False),
    ],
)  # fmt: skip
def test_contains(container: dict[str, Any], operand: dict[str, Any], expected: bool) -> None:
    assert V.contains(container, operand) is expected


@pytest.mark.parametrize(
    ("value", "length"),
    [
        ({"S": ""}, 0), ({"S": "abc"}, 3), ({"S": "é𝄞"}, 3), ({"S": "日本"}, 2), ({"B": b64(b"abcd")}, 4),
        ({"B": ""}, 0), ({"SS": ["a", "b"]}, 2), ({"NS": ["1"]}, 1), ({"BS": ["YQ=="]}, 1), ({"L": [{"S": "a"}] * 3}, 3),
        ({"M": {"a": {"S": "x"}, "b": {"S": "y"}}}, 2), ({"N": "123"}, None), ({"BOOL": True}, None), ({"NULL": True}, None),
    ],
)  # fmt: skip
def test_value_length(value: dict[str, Any], length: int | None) -> None:
    assert V.value_length(value) == length


def test_value_type() -> None:
    assert [V.value_type({t: None}) for t in V.TYPES] == list(V.TYPES)
    assert V.value_type({"SS": ["a"]}) == "SS"


SIZED_EXAMPLES: list[dict[str, Any]] = [
    {},
    {"shirt-color": {"S": "R"}, "shirt-size": {"S": "M"}},
    {"pk": {"S": "é𝄞"}, "n": {"N": "0012.50"}, "neg": {"N": "-1E+3"}, "b": {"B": "AAE="}},
    {"ñame": {"S": ""}, "l": {"L": [{"S": "x"}, {"N": "1"}, {"M": {"k": {"BOOL": True}}}]}, "z": {"NULL": True}},
    {"ss": {"SS": ["a", "bé"]}, "ns": {"NS": ["1", "2.50"]}, "bs": {"BS": ["AQ==", "Ag=="]}},
    {"m": {"M": {"deep": {"M": {"n": {"N": "100"}}}}}, "s": {"S": "plain"}},
]


@pytest.mark.parametrize("item", SIZED_EXAMPLES)
def test_validate_item_sized_agrees_with_the_two_passes(item: dict[str, Any]) -> None:
    checked = V.validate_item(item)
    assert V.validate_item_sized(item) == (checked, V.item_size(checked))


@pytest.mark.parametrize("bad", [{"a": {"S": 5}}, {"a": {}}, {"a": {"S": "x", "N": "1"}}, {"a": {"SS": []}}, []])
def test_validate_item_sized_refuses_what_validate_item_refuses(bad: Any) -> None:
    with pytest.raises(DynamoError) as one:
        V.validate_item(bad)
    with pytest.raises(DynamoError) as other:
        V.validate_item_sized(bad)
    assert (one.value.type_name, one.value.message) == (other.value.type_name, other.value.message)
