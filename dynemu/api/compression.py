"""Content codings of the wire: compressed request bodies in, compressed responses out.

DynamoDB accepts request bodies compressed with gzip or deflate (``Content-Encoding``) and
compresses a large enough response when ``Accept-Encoding`` allows it. dynemu decodes request
bodies itself (aiohttp's automatic decoding is off) so that an unknown coding or a body that
is empty or truncated is refused instead of guessed at, and so a signature is checked over the
bytes the client sent. Decoding is bounded: more than ``limit`` bytes out is a 413.
"""

from __future__ import annotations

import gzip
import zlib
from collections.abc import Iterable

from dynemu.cache import memoized

GZIP_NAMES = ("gzip", "x-gzip")
# A response is compressed from this size on (small bodies gain nothing, as the service does).
MIN_COMPRESS_BYTES = 1024


class BadEncoding(Exception):
    """The body cannot be decoded (unknown coding, empty, truncated or corrupt)."""


class TooLarge(Exception):
    """The decoded body is larger than the limit."""


def _inflate(data: bytes, wbits: int, limit: int) -> bytes:
    if not data:
        raise BadEncoding("empty compressed body")
    d = zlib.decompressobj(wbits)
    try:
        out = d.decompress(data, limit + 1)
    except zlib.error as e:
        raise BadEncoding(str(e)) from None
    if len(out) > limit:
        raise TooLarge()
    if not d.eof or d.unused_data:  # truncated, or bytes after the end of the stream
        raise BadEncoding("truncated or trailing data")
    return out


def decode_body(data: bytes, content_encoding: str, limit: int) -> bytes:
    """The request body with its content codings undone, last applied first."""
    codings = [c.strip().lower() for c in content_encoding.split(",") if c.strip()]
    for coding in reversed(codings):
        if coding == "identity":
            continue
        if coding in GZIP_NAMES:
            data = _inflate(data, 16 + zlib.MAX_WBITS, limit)
        elif coding == "deflate":
            # HTTP's deflate is the zlib format; some clients send raw deflate.
            try:
                data = _inflate(data, zlib.MAX_WBITS, limit)
            except BadEncoding:
                data = _inflate(data, -zlib.MAX_WBITS, limit)
        else:
            raise BadEncoding(f"unsupported content coding {coding!r}")
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
    """The coding to answer with from every ``Accept-Encoding`` header: q-values honoured,
    gzip preferred on a tie, ``x-gzip`` answered as asked, ``*`` standing for the codings not
    named; None for identity."""
    named: dict[str, float] = {}
    star: float | None = None
    for header in accept_encoding:
        for item in header.split(","):
            name, *params = item.split(";")
            name = name.strip().lower()
            if name == "*":
                star = _qvalue(params)
            elif name in ("gzip", "x-gzip", "deflate"):
                named[name] = _qvalue(params)
    options: list[tuple[float, int, str]] = []
    gzip_name = "gzip" if "gzip" in named or "x-gzip" not in named else "x-gzip"
    for rank, name in ((2, gzip_name), (1, "deflate")):
        q = named.get(name, star)
        if q is not None and q > 0:
            options.append((q, rank, name))
    return max(options)[2] if options else None


@memoized(256)
def choose_coding_of(accept_encoding: tuple[str, ...]) -> str | None:
    """``choose_coding``, remembered for the Accept-Encoding values clients repeat (identity,
    None, is computed each time: memoized keeps no None)."""
    return choose_coding(accept_encoding)


def encode_body(body: bytes, coding: str) -> bytes:
    if coding == "deflate":
        return zlib.compress(body, 1)
    return gzip.compress(body, 1, mtime=0)
