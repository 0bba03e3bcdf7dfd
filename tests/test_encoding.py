"""Order-preserving key encoding (dynemu/storage/encoding.py) and the key layout."""

from __future__ import annotations

import base64
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dynemu.storage import keyspace
from dynemu.storage.encoding import (
    canonical_number,
    decode_key_value,
    encode_key_value,
    encode_prefix,
    hash8,
)

# --- strategies ----------------------------------------------------------------------------


@st.composite
def decimals(draw: st.DrawFn) -> Decimal:
    """Any number DynamoDB accepts: 0, or up to 38 significant digits with magnitude in
    1E-130 .. 9.99..E+125, either sign."""
    if draw(st.integers(0, 30)) == 0:
        return Decimal(0)
    nd = draw(st.integers(1, 38))
    coef = draw(st.integers(10 ** (nd - 1), 10**nd - 1))
    adjusted = draw(st.integers(-130, 125))  # exponent of the leading digit
    sign = draw(st.integers(0, 1))
    return Decimal((sign, tuple(map(int, str(coef))), adjusted - nd + 1))


@st.composite
def near_pairs(draw: st.DrawFn) -> tuple[Decimal, Decimal]:
    """Two numbers sharing leading digits, the hard cases for a digit encoding."""
    a = draw(decimals())
    sign, digits, exp = a.as_tuple()
    assert isinstance(exp, int)
    if not any(digits):
        return a, draw(decimals())
    cut = draw(st.integers(1, len(digits)))
    extra = draw(st.lists(st.integers(0, 9), max_size=38 - cut))
    b_digits = digits[:cut] + tuple(extra)
    b_exp = exp + len(digits) - len(b_digits)
    b = Decimal((draw(st.sampled_from([sign, sign, 1 - sign])), b_digits, b_exp))
    return a, b


def notations(d: Decimal) -> list[str]:
    """Several spellings DynamoDB accepts for one number."""
    sign, digits, exp = d.as_tuple()
    assert isinstance(exp, int)
    padded = Decimal((sign, digits + (0, 0), exp - 2))
    return [str(d), f"{d:f}", f"{d:E}", str(padded), f"{padded:e}"]


def n(d: Decimal | str) -> dict[str, str]:
    return {"N": str(d)}


def cmp(a: object, b: object) -> int:
    return (a > b) - (a < b)  # type: ignore[operator]


key_texts = st.text(st.characters(codec="utf-8"), min_size=1, max_size=20) | st.text("\x00\x01a", min_size=1)
key_bytes = st.binary(min_size=1, max_size=20) | st.lists(st.sampled_from([0, 1, 255]), min_size=1).map(bytes)


def s(text: str) -> dict[str, str]:
    return {"S": text}


def b(raw: bytes) -> dict[str, str]:
    return {"B": base64.b64encode(raw).decode()}


# --- numbers -------------------------------------------------------------------------------


@settings(max_examples=600)
@given(decimals(), decimals())
def test_number_order(x: Decimal, y: Decimal) -> None:
    assert cmp(encode_key_value(n(x)), encode_key_value(n(y))) == cmp(x, y)


@settings(max_examples=600)
@given(near_pairs())
def test_number_order_near(pair: tuple[Decimal, Decimal]) -> None:
    x, y = pair
    assert cmp(encode_key_value(n(x)), encode_key_value(n(y))) == cmp(x, y)


@settings(max_examples=300)
@given(decimals())
def test_number_round_trip_and_equal_spellings(x: Decimal) -> None:
    enc = encode_key_value(n(x))
    value, end = decode_key_value("N", enc + b"\x00\xff", 0)
    assert end == len(enc)
    text = value["N"]
    assert Decimal(text) == x
    assert "E" not in text and "e" not in text  # DynamoDB answers in plain notation
    assert not ("." in text and text.endswith("0")) and text != "-0"
    assert canonical_number(str(x)) == text
    for spelling in notations(x):
        assert encode_key_value(n(spelling)) == enc, spelling
    assert len(enc) <= 22  # tag + exponent + at most 20 base-100 digits


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("0", "0"), ("-0", "0"), ("0.000", "0"), ("00042", "42"), ("1.0", "1"), ("1.50", "1.5"),
        ("10E-1", "1"), ("1E+2", "100"), ("1.5E2", "150"), ("-12.5", "-12.5"), ("0.10", "0.1"),
        ("-0.001", "-0.001"), ("1E-130", "0." + "0" * 129 + "1"),
        ("9.9999999999999999999999999999999999999E+125", "9" * 38 + "0" * 88),
        ("1.00000000000000007629769841092E+50", "100000000000000007629769841092" + "0" * 21),
    ],
)  # fmt: skip
def test_canonical_numbers(text: str, canonical: str) -> None:
    assert canonical_number(text) == canonical
    assert decode_key_value("N", encode_key_value(n(text)))[0] == {"N": canonical}


def test_number_extremes_sort() -> None:
    ordered = [
        "-9.9999999999999999999999999999999999999E+125", "-1E+125", "-100", "-99.1", "-1.01", "-1",
        "-0.99", "-1E-130", "0", "1E-130", "0.01", "0.1", "0.9", "1", "1.0000000000000000000000000000000000001",
        "1.01", "1.1", "9", "10", "10.5", "99", "100", "1E+125", "9.9999999999999999999999999999999999999E+125",
    ]  # fmt: skip
    encs = [encode_key_value(n(t)) for t in ordered]
    assert encs == sorted(encs) and len(set(encs)) == len(encs)


def test_values_module_agrees_if_ready() -> None:
    values = pytest.importorskip("dynemu.engine.values")
    if not hasattr(values, "format_number") or not hasattr(values, "parse_number"):
        pytest.skip("dynemu.engine.values.format_number not written yet")
    for t in ["0", "-0", "1.50", "1E+2", "1E-130", "-12.5", "9.9999999999999999999999999999999999999E+125"]:
        assert values.format_number(values.parse_number(t)) == canonical_number(t)


# --- strings and binary ----------------------------------------------------------------------


@settings(max_examples=400)
@given(key_texts, key_texts)
def test_string_order_is_utf8_byte_order(x: str, y: str) -> None:
    ex, ey = encode_key_value(s(x)), encode_key_value(s(y))
    assert cmp(ex, ey) == cmp(x.encode(), y.encode())
    assert decode_key_value("S", ex + ey, 0) == (s(x), len(ex))
    assert decode_key_value("S", ex + ey, len(ex)) == (s(y), len(ex) + len(ey))


@settings(max_examples=400)
@given(key_bytes, key_bytes)
def test_binary_order_is_unsigned_byte_order(x: bytes, y: bytes) -> None:
    ex, ey = encode_key_value(b(x)), encode_key_value(b(y))
    assert cmp(ex, ey) == cmp(x, y)
    assert decode_key_value("B", ex + ey, 0) == (b(x), len(ex))


def test_string_examples() -> None:
    assert encode_key_value(s("a")) < encode_key_value(s("a\x00")) < encode_key_value(s("a\x01"))
    assert encode_key_value(s("a")) < encode_key_value(s("ab")) < encode_key_value(s("b"))
    assert encode_key_value(s("\uffff")) < encode_key_value(s("\U0001f600"))  # UTF-8, not UTF-16
    assert encode_key_value(s("a\x00b")) == b"a\x00\xffb\x00\x01"


@settings(max_examples=300)
@given(st.data())
def test_components_order_lexicographically(data: st.DataObject) -> None:
    """Self-delimiting: (pk, sk) pairs order by pk, then sk, for every type pair."""
    gens = {"S": key_texts.map(s), "B": key_bytes.map(b), "N": decimals().map(n)}
    tp, ts = data.draw(st.sampled_from("SBN")), data.draw(st.sampled_from("SBN"))

    def key(v: dict[str, str]) -> object:
        t, x = next(iter(v.items()))
        return Decimal(x) if t == "N" else base64.b64decode(x) if t == "B" else x.encode()

    pairs = data.draw(st.lists(st.tuples(gens[tp], gens[ts]), min_size=2, max_size=6))
    encoded = sorted(pairs, key=lambda p: encode_key_value(p[0]) + encode_key_value(p[1]))
    by_value = sorted(pairs, key=lambda p: (key(p[0]), key(p[1])))
    assert [(key(p), key(q)) for p, q in encoded] == [(key(p), key(q)) for p, q in by_value]
    for p, q in pairs:
        buf = encode_key_value(p) + encode_key_value(q)
        v1, pos = decode_key_value(tp, buf, 0)
        v2, end = decode_key_value(ts, buf, pos)
        assert end == len(buf) and key(v1) == key(p) and key(v2) == key(q)


@settings(max_examples=400)
@given(st.data())
def test_prefix_encoding_matches_begins_with(data: st.DataObject) -> None:
    kind = data.draw(st.sampled_from(["S", "B"]))
    if kind == "S":
        value, prefix = (
            data.draw(key_texts),
            data.draw(st.text(st.characters(codec="utf-8"), max_size=3) | st.text("\x00a", max_size=3)),
        )
        wrap, starts = s, value.startswith(prefix)
    else:
        value, prefix = (
            data.draw(key_bytes),
            data.draw(st.binary(max_size=3) | st.binary(max_size=2).map(lambda x: x + b"\x00")),
        )
        wrap, starts = b, value.startswith(prefix)
    p = encode_prefix(wrap(prefix))
    enc = encode_key_value(wrap(value))
    assert enc.startswith(p) == starts
    outer = b"P"  # ranges always sit under a partition prefix
    assert (outer + p <= outer + enc < keyspace.prefix_end(outer + p)) == starts


def test_number_has_no_prefix_encoding() -> None:
    with pytest.raises(ValueError):
        encode_prefix(n("1"))


def test_hash8_is_stable() -> None:
    # Fixed digests (BLAKE2b, 8 bytes): the hash decides where items live, it must never change.
    assert hash8(b"").hex() == "e4a6a0577479b2b4"
    assert hash8(encode_key_value(s("abc"))).hex() == "f41881c3593b677a"
    assert hash8(b"x") != hash8(b"y")


# --- keyspace ------------------------------------------------------------------------------


def test_prefix_end() -> None:
    assert keyspace.prefix_end(b"ab") == b"ac"
    assert keyspace.prefix_end(b"a\xff\xff") == b"b"
    assert keyspace.prefix_end(b"\xff") == b""


def test_item_keys_group_partitions_and_round_trip() -> None:
    pk, sks = s("user#1"), [n("-5"), n("0"), n("2.5"), n("10"), n("1E+3")]
    keys = [keyspace.item_key(7, pk, sk) for sk in sks]
    assert keys == sorted(keys)
    part = keyspace.partition_prefix(7, pk)
    assert all(k.startswith(part) for k in keys)
    assert keyspace.items_prefix(7) < part < keyspace.prefix_end(keyspace.items_prefix(7))
    assert not keyspace.item_key(7, s("user#10"), n("1")).startswith(part)
    for k, sk in zip(keys, sks, strict=True):
        assert keyspace.decode_item_key(k, 7, "S", "N") == (pk, {"N": canonical_number(sk["N"])})
    assert keyspace.decode_item_key(keyspace.item_key(7, b(b"\x00"), None), 7, "B", None) == (
        b(b"\x00"),
        None,
    )
    assert keyspace.items_prefix(1) < keyspace.items_prefix(256) < keyspace.items_prefix(2**32 - 1)


SKS = [s(x) for x in ["a", "a\x00", "ab", "abc", "abd", "ac", "b", "ba", "\x7f", "\u00e9"]]


@pytest.mark.parametrize(
    ("op", "args", "expect"),
    [
        ("=", ["ab"], {"ab"}),
        ("EQ", ["zz"], set()),
        ("<", ["ab"], {"a", "a\x00"}),
        ("<=", ["ab"], {"a", "a\x00", "ab"}),
        (">", ["abc"], {"abd", "ac", "b", "ba", "\x7f", "\u00e9"}),
        (">=", ["b"], {"b", "ba", "\x7f", "\u00e9"}),
        ("BETWEEN", ["a\x00", "abd"], {"a\x00", "ab", "abc", "abd"}),
        ("BETWEEN", ["b", "a"], set()),
        ("begins_with", ["ab"], {"ab", "abc", "abd"}),
        ("begins_with", ["a"], {"a", "a\x00", "ab", "abc", "abd", "ac"}),
        ("BEGINS_WITH", ["a\x00"], {"a\x00"}),
    ],
)
def test_sort_key_range(op: str, args: list[str], expect: set[str]) -> None:
    pk = n("42")
    keys = {keyspace.item_key(3, pk, sk): sk["S"] for sk in SKS}
    # neighbours that must never match: other tables, other partition keys
    others = [keyspace.item_key(2, pk, s("ab")), keyspace.item_key(4, pk, s("ab")),
              keyspace.item_key(3, n("43"), s("ab")), keyspace.item_key(3, n("4.2"), s("ab"))]  # fmt: skip
    start, stop = keyspace.sort_key_range(3, pk, op, [s(a) for a in args])
    assert {v for k, v in keys.items() if start <= k < stop} == expect
    assert not any(start <= k < stop for k in others)


def test_number_sort_key_range() -> None:
    pk = s("p")
    sks = ["-1E+10", "-1", "-0.5", "0", "0.5", "1", "1.5", "2", "1E+10"]
    keys = {keyspace.item_key(1, pk, n(x)): x for x in sks}

    def match(op: str, *args: str) -> list[str]:
        start, stop = keyspace.sort_key_range(1, pk, op, [n(a) for a in args])
        return [v for k, v in sorted(keys.items()) if start <= k < stop]

    assert match("<", "1") == ["-1E+10", "-1", "-0.5", "0", "0.5"]
    assert match("<=", "1.0") == ["-1E+10", "-1", "-0.5", "0", "0.5", "1"]
    assert match(">", "1") == ["1.5", "2", "1E+10"]
    assert match("BETWEEN", "-1", "1") == ["-1", "-0.5", "0", "0.5", "1"]
    with pytest.raises(ValueError):
        match("contains", "1")


def test_index_entries_order_by_index_key_then_table_key() -> None:
    e = [
        keyspace.index_entry_key(1, 2, s("g"), n("1"), s("a"), n("9")),
        keyspace.index_entry_key(1, 2, s("g"), n("1"), s("b"), n("0")),
        keyspace.index_entry_key(1, 2, s("g"), n("2"), s("a"), n("0")),
    ]
    assert e == sorted(e)
    part = keyspace.index_partition_prefix(1, 2, s("g"))
    prefix = keyspace.index_prefix(1, 2)
    assert all(k.startswith(part) and k.startswith(prefix) for k in e)
    assert keyspace.decode_index_entry_key(e[1], "S", "N", "S", "N") == (s("g"), n("1"), s("b"), n("0"))
    no_isk = keyspace.index_entry_key(1, 3, s("g"), None, s("a"), None)
    assert keyspace.decode_index_entry_key(no_isk, "S", None, "S", None) == (s("g"), None, s("a"), None)
    start, stop = keyspace.condition_range(part, "<=", [n("1")])
    assert [start <= k < stop for k in e] == [True, True, False]


def test_stream_and_ttl_keys() -> None:
    st_keys = [keyspace.stream_key(1, 0, 5), keyspace.stream_key(1, 0, 300), keyspace.stream_key(1, 1, 0)]
    assert st_keys == sorted(st_keys)
    assert keyspace.decode_stream_key(st_keys[1]) == (1, 0, 300)
    assert all(k.startswith(keyspace.stream_prefix(1)) for k in st_keys)
    ttl = [keyspace.ttl_key(1, t, s("a"), None) for t in (-5, 0, 1_700_000_000, 1_700_000_001, 2**70)]
    assert ttl == sorted(ttl)
    assert keyspace.decode_ttl_key(ttl[2], "S", None) == (1_700_000_000, s("a"), None)
    until = keyspace.ttl_until(1, 1_700_000_000)
    assert [keyspace.ttl_prefix(1) <= k < until for k in ttl] == [True, True, True, False, False]


def test_meta_keys() -> None:
    k = keyspace.meta_table_key("Table-1")
    assert k.startswith(keyspace.META_TABLES_PREFIX) and keyspace.table_name_from_meta_key(k) == "Table-1"
    assert keyspace.meta_counter_key("table_id").startswith(keyspace.META_PREFIX)
    assert not keyspace.meta_counter_key("x").startswith(keyspace.META_TABLES_PREFIX)
