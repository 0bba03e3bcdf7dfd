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


# The codings a response may be compressed with, in the order preferred on a tie that the
# request's list does not decide (``*``). Any other name (``br``, ``zstd``, ``compress``,
# ``x-gzip``, a quoted or malformed one) is skipped.
CODINGS = ("gzip", "deflate")


def _quality(params: str) -> float:
    """An entry's quality as the service reads it (issue 44): the value after the first
    ``q=`` in the entry's parameters, trimmed; none: 1; unparsable: 1; clamped to [0, 1]
    (above 1 is 1, below 0 is 0: refused). UNSURE: the issue's text says a negative quality
    counts as 1, but its row ``deflate;q=-0.5,gzip;q=0.2`` answers gzip, which only a
    refused deflate gives; the row is followed."""
    i = params.find("q=")
    if i < 0:
        return 1.0
    value = params[i + 2 :].split(";", 1)[0].strip()
    try:
        q = float(value)
    except ValueError:
        return 1.0
    if q != q:  # nan
        return 1.0
    return max(0.0, min(1.0, q))


def choose_coding(accept_encoding: str) -> str | None:
    """The coding a response is compressed with, from the request's first ``Accept-Encoding``
    header, as DynamoDB chooses (issue 44's table): names case-insensitive and trimmed,
    empty and unknown entries skipped, ``identity`` ignored; the highest quality wins, a
    quality of 0 refusing its coding; on a tie a coding named in the list beats one only
    ``*`` stands for, then the first named wins, then gzip before deflate; ``*`` stands for
    the codings the list does not name; an entry repeated counts at its highest quality.
    None: no compression."""
    named: dict[str, tuple[float, int]] = {}  # coding -> (highest quality, first position)
    star: float | None = None
    for position, entry in enumerate(accept_encoding.split(",")):
        name, _, params = entry.partition(";")
        name = name.strip().lower()
        if name == "*":
            star = _quality(params) if star is None else star
        elif name in CODINGS:
            q = _quality(params)
            best = named.get(name)
            if best is None or q > best[0]:
                named[name] = (q, best[1] if best is not None else position)
    options = [(q, 1, -position, -CODINGS.index(name), name) for name, (q, position) in named.items() if q > 0]
    if star is not None and star > 0:
        options += [(star, 0, 0, -CODINGS.index(name), name) for name in CODINGS if name not in named]
    return max(options)[4] if options else None


@memoized(256)
def choose_coding_of(accept_encoding: str) -> str | None:
    """``choose_coding``, remembered for the Accept-Encoding values clients repeat (identity,
    None, is computed each time: memoized keeps no None)."""
    return choose_coding(accept_encoding)


def encode_body(body: bytes, coding: str) -> bytes:
    if coding == "deflate":
        return zlib.compress(body, 1)
    import gzip  # only for an answer to a client that accepts gzip

    return gzip.compress(body, 1, mtime=0)
