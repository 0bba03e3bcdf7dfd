"""Content codings of the wire: compressed request bodies in, compressed responses out.

DynamoDB accepts request bodies compressed with gzip or deflate (``Content-Encoding``;
"Compressing requests", AWS SDKs and Tools Reference Guide) and compresses a response over
4 KB when ``Accept-Encoding`` allows it. dynemu decodes request bodies itself so that an
unknown coding (``UnsupportedCoding``) or a body that is empty, truncated or corrupt
(``BadEncoding``) is refused instead of guessed at, and so a signature is checked over the
bytes the client sent. Concatenated gzip members are one body (RFC 1952, 2.2). Decoding is
bounded: more than ``limit`` bytes out is a 413.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable

from dynemu.cache import memoized

GZIP_NAMES = ("gzip", "x-gzip")
# Only a response body over this size is compressed, as the service does (smaller ones go
# out as they are, whatever Accept-Encoding says).
MIN_COMPRESS_BYTES = 4096


class BadEncoding(Exception):
    """The body claims a coding it is not in (empty, truncated or corrupt)."""


class UnsupportedCoding(Exception):
    """The body is in a content coding the service does not decode."""


class TooLarge(Exception):
    """The decoded body is larger than the limit."""


def _inflate(data: bytes, wbits: int, limit: int, members: bool = False) -> bytes:
    """``data`` decompressed; with ``members``, gzip members one after another are one body."""
    if not data:
        raise BadEncoding("empty compressed body")
    parts: list[bytes] = []
    size = 0
    while True:
        d = zlib.decompressobj(wbits)
        try:
            out = d.decompress(data, limit + 1 - size)
        except zlib.error as e:
            raise BadEncoding(str(e)) from None
        size += len(out)
        if size > limit:
            raise TooLarge()
        parts.append(out)
        if not d.eof:  # truncated
            raise BadEncoding("truncated data")
        data = d.unused_data
        if not data:
            return parts[0] if len(parts) == 1 else b"".join(parts)
        if not members:  # bytes after the end of the stream
            raise BadEncoding("trailing data")


def decode_body(data: bytes, content_encoding: str, limit: int) -> bytes:
    """The request body with its content codings undone, last applied first."""
    codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
    for coding in reversed(codings):
        if coding == "identity":
            continue
        if coding in GZIP_NAMES:
            data = _inflate(data, 16 + zlib.MAX_WBITS, limit, members=True)
        elif coding == "deflate":
            # HTTP's deflate is the zlib format; some clients send raw deflate.
            try:
                data = _inflate(data, zlib.MAX_WBITS, limit)
            except BadEncoding:
                data = _inflate(data, -zlib.MAX_WBITS, limit)
        else:
            raise UnsupportedCoding(coding)
    return data


def _qvalue(params: list[str]) -> float:
    for p in params:
        name, _, value = p.strip().partition("=")
        if name.strip().lower() == "q":
            try:
                return max(0.0, min(1.0, float(value)))
            except ValueError:
                return 0.0
    return 1.0


def choose_coding(accept_encoding: Iterable[str]) -> str | None:
    """The coding to answer with from every ``Accept-Encoding`` header (RFC 9110, 12.5.3):
    q-values honoured, ``q=0`` refusing a coding, gzip preferred on a tie, ``x-gzip`` answered
    as asked, ``*`` standing for the codings not named, and ``identity`` preferred when the
    client ranks it above every coding; None for identity."""
    named: dict[str, float] = {}
    star: float | None = None
    for header in accept_encoding:
        for item in header.split(","):
            name, *params = item.split(";")
            name = name.strip().lower()
            if name == "*":
                star = _qvalue(params)
            elif name in ("gzip", "x-gzip", "deflate", "identity"):
                named[name] = _qvalue(params)
    options: list[tuple[float, int, str]] = []
    gzip_name = "gzip" if "gzip" in named or "x-gzip" not in named else "x-gzip"
    for rank, name in ((2, gzip_name), (1, "deflate")):
        q = named.get(name, star)
        if q is not None and q > 0:
            options.append((q, rank, name))
    if not options:
        return None
    best = max(options)
    if named.get("identity", 0.0) > best[0]:  # identity explicitly preferred
        return None
    return best[2]


@memoized(256)
def choose_coding_of(accept_encoding: tuple[str, ...]) -> str | None:
    """``choose_coding``, remembered for the Accept-Encoding values clients repeat (identity,
    None, is computed each time: memoized keeps no None)."""
    return choose_coding(accept_encoding)


def encode_body(body: bytes, coding: str) -> bytes:
    if coding == "deflate":
        return zlib.compress(body, 1)
    import gzip  # only for an answer to a client that accepts gzip

    return gzip.compress(body, 1, mtime=0)
