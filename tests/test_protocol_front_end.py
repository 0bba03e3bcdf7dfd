"""The fast front end's own pieces, in-process: the request-head parser against the parser it
replaced (kept here as the reference), its cache of header lines, and the caches of the
protocol wrapper. What the server answers over sockets is in test_http1.py."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dynemu.api import http1
from dynemu.api.protocol import MAX_BODY_BYTES

# --- the reference: the head parser as it was before the line cache (verbatim) ----------------

_REQUEST_LINE = re.compile(rb"(GET|POST|OPTIONS) /(?:\?([!$-~]*))? HTTP/1\.1\r\n")
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_ALLOWED = b"\t" + bytes(range(0x20, 0x7F)) + bytes(range(0x80, 0x100))
_ONCE = frozenset(("host", "content-length", "connection"))


def reference_parse(head: bytes) -> tuple[Any, ...] | None:
    m = _REQUEST_LINE.match(head)
    if m is None or head.translate(None, _ALLOWED).replace(b"\r\n", b""):
        return None
    items: list[tuple[str, str]] = []
    first: dict[str, str] = {}
    for line in head[m.end() : -2].decode("utf-8", "surrogateescape").split("\r\n"):
        name, sep, value = line.partition(":")
        if not (sep and name.isascii() and _TOKEN.fullmatch(name)):
            return None
        lower = name.lower()
        value = value.strip(" \t")
        items.append((name, value))
        if lower not in first:
            first[lower] = value
        elif lower in _ONCE:
            return None
    host = first.get("host")
    if host is None or "transfer-encoding" in first or "expect" in first or "upgrade" in first:
        return None
    length = 0
    text = first.get("content-length")
    if text is not None:
        if not (text.isdigit() and text.isascii()):
            return None
        length = int(text)
        if length > MAX_BODY_BYTES:
            return None
    close = False
    connection = first.get("connection")
    if connection is not None:
        tokens = [t.strip().lower() for t in connection.split(",")]
        if "upgrade" in tokens:
            return None
        close = "close" in tokens
    query = m.group(2)
    return m.group(1).decode(), query.decode() if query else "", items, first, host, length, close


def parsed(head: bytes) -> tuple[Any, ...] | None:
    h = http1.parse_head(head)
    if h is None:
        return None
    return h.method, h.query, list(h.items), dict(h.first), h.host, h.length, h.close


def bare_cr_or_lf(head: bytes) -> bool:
    return head.count(b"\r") != head.count(b"\r\n") or head.count(b"\n") != head.count(b"\r\n")


def check(head: bytes) -> None:
    """The new parser answers as the reference, twice (the second time from its line cache);
    except that a bare CR or LF inside a line, which the reference's control check let
    through when a CR came before an LF, is now handed to aiohttp (which answers 400)."""
    expected = reference_parse(head)
    for _ in range(2):
        got = parsed(head)
        if bare_cr_or_lf(head):
            assert got is None
        else:
            assert got == expected


# --- generated heads --------------------------------------------------------------------------

# Mostly well-formed lines (so that most heads parse and their fields are compared), with
# every kind of fault now and then.
GOOD_NAMES = ["Host", "host", "HOST", "Content-Length", "content-length", "Connection", "X-Amz-Target",
              "Authorization", "Content-Type", "Accept-Encoding", "X-Amz-Date", "amz-sdk-invocation-id",
              "X-Custom_1", "x-a", "X-A"]
BAD_NAMES = ["Transfer-Encoding", "Expect", "Upgrade", "Bad Header", "", "Ho st", "Héllo", "a\tb", "x:y"]
GOOD_VALUES = ["x", "localhost:8000", " 12 ", "12", "0", "close", "Close ,x", "keep-alive", "\t a b \t", "",
               "  ", "\xe9", "\udcff", "a\tb", "AWS4-HMAC-SHA256 Credential=AKID/20250101/us-east-1/dynamodb/x"]
BAD_VALUES = ["-1", "١٢", "keep-alive, Upgrade", "a\x00b", "a\x7fb", "a\x0bb", "1\r2\n3", "a\rb", "a\nb",
              str(MAX_BODY_BYTES + 1)]
REQUEST_LINES = [b"POST / HTTP/1.1\r\n"] * 4 + [
    b"GET / HTTP/1.1\r\n", b"OPTIONS / HTTP/1.1\r\n", b"POST /?a=b&c HTTP/1.1\r\n", b"GET /?x\x00 HTTP/1.1\r\n",
    b"PUT / HTTP/1.1\r\n", b"POST / HTTP/1.0\r\n", b"POST /x HTTP/1.1\r\n", b"POST / HTTP/1.1 \r\n"]

line_st = st.tuples(
    st.sampled_from(GOOD_NAMES * 6 + BAD_NAMES),
    st.sampled_from([": "] * 6 + [":", ":\t", " : ", ""]),
    st.sampled_from(GOOD_VALUES * 6 + BAD_VALUES) | st.text(max_size=8),
)


def encode(text: str) -> bytes:
    return text.encode("utf-8", "surrogateescape")


@settings(max_examples=400)
@given(st.sampled_from(REQUEST_LINES), st.lists(line_st, max_size=6), st.booleans())
def test_the_parser_answers_as_the_reference(line: bytes, lines: list[tuple[str, str, str]], host: bool) -> None:
    head = line + (b"Host: h\r\n" if host else b"") + b"".join(encode(n + s + v) + b"\r\n" for n, s, v in lines)
    check(head)


@given(st.binary(max_size=60))
def test_arbitrary_bytes_in_a_header_line(data: bytes) -> None:
    check(b"POST / HTTP/1.1\r\nHost: x\r\nX-A: " + data + b"\r\nContent-Length: 2\r\n")
    check(b"POST / HTTP/1.1\r\nHost: x\r\n" + data + b"\r\n")


@pytest.mark.parametrize("head", [
    b"POST / HTTP/1.1\r\n",  # no header at all
    b"POST / HTTP/1.1\r\nHost: a\r\nHost: a\r\n",
    b"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\ncontent-length: 1\r\n",
    b"POST / HTTP/1.1\r\nHost: a\r\nConnection: close\r\nConnection: close\r\n",
    b"POST / HTTP/1.1\r\nHost: a\r\nX-A: 1\r\nx-a: 2\r\n",  # other names may repeat: the first is read
    b"POST / HTTP/1.1\r\nHost: a\r\nAccept-Encoding: br\r\nAccept-Encoding: gzip\r\n",
    b"POST / HTTP/1.1\r\nHost: a\r\nX-A: 1\r2\n3\r\n",
    b"GET /?q=1 HTTP/1.1\r\nHost: a\r\n",
    b"OPTIONS / HTTP/1.1\r\nhost:a\r\nOrigin: http://x\r\n",
])
def test_edge_heads(head: bytes) -> None:
    check(head)


def test_a_bare_cr_and_lf_in_one_value_are_handed_to_aiohttp() -> None:
    # The reference let this through (its check removed the "\r\n" the two left behind).
    assert http1.parse_head(b"POST / HTTP/1.1\r\nHost: a\r\nX-A: 1\r2\n3\r\n") is None


def test_the_line_cache_is_bounded_and_skips_unique_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(http1, "_LINES", {})
    monkeypatch.setattr(http1, "LINE_CACHE_SIZE", 4)
    for i in range(10):
        head = (f"POST / HTTP/1.1\r\nHost: h{i}\r\nAuthorization: a{i}\r\nX-Amz-Date: {i}\r\n"
                f"X-Long: {'v' * 300}\r\nContent-Length: {i}\r\n").encode()
        h = http1.parse_head(head)
        assert h is not None and h.host == f"h{i}" and h.length == i and h.first["authorization"] == f"a{i}"
        assert len(http1._LINES) <= 4
        assert not any(line.startswith(("Authorization", "X-Amz-Date", "X-Long")) for line in http1._LINES)
