"""The fast HTTP/1.1 front end: an asyncio.Protocol that answers the DynamoDB API itself.

It parses requests with bytes operations and answers the common ones at once, in
``data_received`` (the engine is synchronous): ``POST /`` (the DynamoDB JSON protocol),
``GET /`` (the health check) and ``OPTIONS /`` (CORS preflight, unless CORS is off).
Keep-alive and pipelining are kept in order; a body that is late by --request-timeout gets 408
and the connection is closed.

Anything else is handed, with the bytes not yet answered, to the aiohttp application
(``server.create_app``, built and aiohttp imported the first time a connection needs it),
which then owns that connection for good: other paths (the admin API and dashboard under
/_dynemu/), other methods, HTTP/1.0, ``Transfer-Encoding``, ``Expect``, ``Upgrade``, a request
line or header that is malformed or longer than aiohttp's 8190-byte limits, a missing or
repeated Host or Content-Length, a body over 16 MB. So unusual HTTP is answered exactly as
aiohttp answers it.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import re
import socket
import time
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

from dynemu.api.protocol import MAX_BODY_BYTES, Headers, Protocol, Reply, Request, new_headers

if TYPE_CHECKING:
    from aiohttp import web

    from dynemu.api.service import Service

log = logging.getLogger("dynemu")

HEAD_LIMIT = 8190  # aiohttp's max_line_size and max_field_size: a longer head is aiohttp's
KEEPALIVE_SECONDS = 75.0  # an idle keep-alive connection is closed after 37.5-75 s, as aiohttp does after 75
WRITE_BATCH = 256 * 1024  # pipelined answers are written together up to this many bytes
ACCEPT_RETRY_SECONDS = 1.0  # out of file descriptors (EMFILE, ...): stop accepting this long, as asyncio does
# accept() failures that say nothing about the listener: the client went away, try the next one
_ACCEPT_SKIP = frozenset((errno.ECONNABORTED, errno.EPROTO, errno.EPERM))
_REQUEST_LINE = re.compile(rb"(GET|POST|OPTIONS) /(?:\?([!$-~]*))? HTTP/1\.1\r\n")
# A header name is a token; a value holds HTAB, visible ASCII and obs-text (RFC 9110 5.5);
# after decoding, obs-text is any character from U+0080 (surrogate escapes included).
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_ALLOWED = b"\t" + bytes(range(0x20, 0x7F)) + bytes(range(0x80, 0x100))  # and CRLF between lines
# The names clients send, lower-cased in advance (any other name is checked as a token).
_KNOWN = {name: name.lower() for name in (
    "Host", "User-Agent", "Accept", "Accept-Encoding", "Content-Type", "Content-Length", "Content-Encoding",
    "X-Amz-Target", "X-Amz-Date", "X-Amz-Security-Token", "X-Amz-Content-Sha256", "Authorization",
    "amz-sdk-invocation-id", "amz-sdk-request", "Connection", "Origin", "Referer", "Accept-Language",
    "X-Amz-User-Agent", "X-Amzn-Trace-Id", "Keep-Alive",
)}
_KNOWN.update({name.lower(): name.lower() for name in list(_KNOWN)})
_ONCE = frozenset(("host", "content-length", "connection"))  # repeated: aiohttp decides
_POST_LINE = b"POST / HTTP/1.1\r\n"
# Header lines already checked and split: most of a client's lines repeat from one request to
# the next (a hit costs a hash and a lookup instead of a partition, a strip and the checks).
# Bounded (cleared when full); lines unique per request by design are not kept.
_LINES: dict[str, tuple[str, str, tuple[str, str]]] = {}
LINE_CACHE_SIZE = 1024
LINE_CACHE_WIDTH = 256  # longer lines are not kept
_UNIQUE = frozenset(("authorization", "amz-sdk-invocation-id", "x-amzn-trace-id", "x-amz-date", "date"))

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_date = [0, ""]
_status_lines: dict[int, str] = {}
_CRLF = "\r\n"
_CLOSE = "Connection: close\r\n\r\n"


def http_date() -> str:
    """The Date header's value, formatted once a second."""
    now = int(time.time())
    if now != _date[0]:
        t = time.gmtime(now)
        _date[0] = now
        _date[1] = (f"{_DAYS[t.tm_wday]}, {t.tm_mday:02d} {_MONTHS[t.tm_mon]} {t.tm_year} "
                    f"{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d} GMT")
    return _date[1]


def _status_line(status: int) -> str:
    try:
        phrase = HTTPStatus(status).phrase
    except ValueError:
        phrase = ""
    line = _status_lines[status] = f"HTTP/1.1 {status} {phrase}\r\n"
    return line


def render(reply: Reply, close: bool) -> bytes:
    """The bytes of an HTTP/1.1 response."""
    status, headers, body = reply
    line = _status_lines.get(status) or _status_line(status)
    fields = "\r\n".join(map(": ".join, headers))  # "name: value" lines
    text = (f"{line}{fields}{_CRLF if headers else ''}Content-Length: {len(body)}\r\nDate: {http_date()}\r\n"
            f"{_CLOSE if close else _CRLF}")
    return text.encode("utf-8", "surrogateescape") + body


class Head:
    """A parsed request head that the front end answers itself."""

    __slots__ = ("method", "query", "headers", "host", "length", "close")

    def __init__(self, method: str, query: str, headers: Headers, host: str, length: int, close: bool) -> None:
        self.method = method
        self.query = query
        self.headers = headers
        self.host = host
        self.length = length
        self.close = close


def _line(line: str) -> tuple[str, str, tuple[str, str]] | None:
    """A header line: (lower-case name, value, (name, value)), or None for a line aiohttp must
    answer (no colon, a name that is not a token, a control character)."""
    name, sep, value = line.partition(":")
    lower = _KNOWN.get(name)
    if lower is None or not sep:
        if not (sep and name.isascii() and _TOKEN.fullmatch(name)):
            return None  # no colon, or a name that is not a token (obs-fold, spaces)
        lower = name.lower()
    if line.encode("utf-8", "surrogateescape").translate(None, _ALLOWED):
        return None  # a control character (NUL, a bare CR or LF, ...)
    value = value.strip(" \t")
    entry = (lower, value, (name, value))
    if lower not in _UNIQUE and len(line) <= LINE_CACHE_WIDTH:
        if len(_LINES) >= LINE_CACHE_SIZE:
            _LINES.clear()
        _LINES[line] = entry
    return entry


def parse_head(head: bytes) -> Head | None:
    """The request line and headers (``head`` ends with the last header's CRLF), or None for
    a request to hand to aiohttp."""
    if head.startswith(_POST_LINE):
        method, query, start = "POST", "", len(_POST_LINE)
    else:
        m = _REQUEST_LINE.match(head)  # its characters are all visible ASCII
        if m is None:
            return None
        method, raw_query, start = m.group(1).decode(), m.group(2), m.end()
        query = raw_query.decode() if raw_query else ""
    first = new_headers()
    pairs: list[tuple[str, str]] = []
    append = pairs.append
    seen = _LINES.get
    # As aiohttp: header bytes are UTF-8, undecodable bytes kept as surrogate escapes.
    for line in head[start:-2].decode("utf-8", "surrogateescape").split("\r\n"):
        entry = seen(line)
        if entry is None:
            entry = _line(line)
            if entry is None:
                return None
        lower, value, pair = entry
        append(pair)
        if lower not in first:
            first[lower] = value
        elif lower in _ONCE:
            return None
    first.pairs = pairs
    first.repeated = len(first) != len(pairs)
    host = first.get("host")
    if host is None or "transfer-encoding" in first or "expect" in first or "upgrade" in first:
        return None
    length = 0
    text = first.get("content-length")
    if text is not None:
        if not (text.isdigit() and text.isascii()):
            return None
        length = int(text)
        if length > MAX_BODY_BYTES:  # aiohttp reads up to its limit and answers 413
            return None
    close = False
    connection = first.get("connection")
    if connection is not None:
        tokens = [t.strip().lower() for t in connection.split(",")]
        if "upgrade" in tokens:
            return None
        close = "close" in tokens
    return Head(method, query, first, host, length, close)


class FastHTTP(asyncio.Protocol):
    """One client connection, until it closes or is handed to aiohttp."""

    def __init__(self, server: HttpServer) -> None:
        self._server = server
        self._protocol = server.protocol
        self._cors = server.protocol.cors is not None
        self._transport: asyncio.Transport | None = None
        self._buf = bytearray()  # bytes received and not yet answered
        self._head: Head | None = None  # parsed, its body not all here yet
        self._timer: asyncio.TimerHandle | None = None
        self._paused = False  # the client does not read its answers: stop answering
        self.active = True  # something was received since the last idle sweep

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]
        self._server.connections.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self._server.connections.discard(self)
        self._stop_timer()
        self._transport = None

    def close(self) -> None:
        if self._transport is not None:
            self._transport.close()

    def pause_writing(self) -> None:
        self._paused = True
        if self._transport is not None:
            self._transport.pause_reading()

    def resume_writing(self) -> None:
        self._paused = False
        if self._transport is not None and not self._transport.is_closing():
            self._transport.resume_reading()
            if self._buf:
                self._process(self._buf)

    def idle(self) -> bool:
        """Nothing received since the last sweep, and no request under way."""
        return not self.active and not self._buf and self._head is None

    def data_received(self, data: bytes) -> None:
        self.active = True
        buf = self._buf
        if buf:
            buf += data
            self._process(buf)
        else:
            self._process(data)

    def _process(self, data: bytes | bytearray) -> None:
        """Answer every complete request in ``data``, in order; keep the rest."""
        transport = self._transport
        if transport is None:
            return
        pos, n = 0, len(data)
        out: list[bytes] = []
        size = 0
        head = self._head
        try:
            while not self._paused:
                if head is None:
                    if pos >= n:
                        break
                    end = data.find(b"\r\n\r\n", pos)
                    if end < 0 and n - pos <= HEAD_LIMIT:
                        break  # the rest of the head is yet to come
                    if 0 <= end and end - pos <= HEAD_LIMIT:
                        head = parse_head(bytes(data[pos : end + 2]))
                    if head is None or (head.method == "OPTIONS" and not self._cors):
                        self._hand_off(data, pos, out)
                        return
                    pos = end + 4
                if n - pos < head.length:
                    break  # the body is yet to come
                body = bytes(data[pos : pos + head.length]) if head.length else b""
                pos += head.length
                answer = self._answer(head, body)
                if head.close:
                    out.append(answer)
                    transport.write(b"".join(out))
                    transport.close()
                    self._head = None
                    self._stop_timer()
                    return
                head = None
                out.append(answer)
                size += len(answer)
                if size >= WRITE_BATCH:
                    transport.write(b"".join(out))
                    out.clear()
                    size = 0
        except Exception:  # a bug of the front end: never a hang
            log.exception("HTTP front end failed; closing the connection")
            transport.abort()
            return
        if out:
            transport.write(out[0] if len(out) == 1 else b"".join(out))
        self._head = head
        self._keep(data, pos)
        if head is None:
            self._stop_timer()
        elif self._timer is None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self._protocol.timeout, self._stalled)

    def _keep(self, data: bytes | bytearray, pos: int) -> None:
        if data is self._buf:
            del self._buf[:pos]
        elif pos < len(data):
            self._buf += memoryview(data)[pos:]

    def _answer(self, head: Head, body: bytes) -> bytes:
        request = Request(head.method, "/", head.query, head.headers, head.host, body)
        protocol = self._protocol
        if head.method == "POST":
            reply = protocol.handle(request)
        elif head.method == "GET":
            reply = protocol.health(request)
        else:
            reply = protocol.preflight(request)
        return render(reply, head.close)

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _stalled(self) -> None:
        """The body did not come within --request-timeout: 408, and the connection closed,
        while other connections carry on."""
        self._timer = None
        if self._transport is not None:
            log.info("dropped a client that sent no body within %ss", self._protocol.timeout)
            self._transport.write(render(Reply(408, [], b""), close=True))
            self._transport.close()

    def _hand_off(self, data: bytes | bytearray, pos: int, out: list[bytes]) -> None:
        transport = self._transport
        assert transport is not None
        if out:
            transport.write(b"".join(out))
        rest = bytes(data[pos:])
        self._buf = bytearray()
        self._head = None
        self._stop_timer()
        self._transport = None
        self._server.hand_off(self, transport, rest)


class HttpServer:
    """Serves one Service on a listening socket: the fast front end first, aiohttp when a
    connection needs it. ``await start(sock)``, then ``await stop()``: closes every
    connection, the aiohttp application if it was built, then the service."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.protocol: Protocol = service.protocol
        self.connections: set[FastHTTP] = set()
        self._sock: socket.socket | None = None  # listening; accepted by _accept_ready
        self._runner: web.AppRunner | None = None
        self._aiohttp: asyncio.Task[None] | None = None
        self._waiting: set[asyncio.Task[None]] = set()
        self._sweeper: asyncio.TimerHandle | None = None

    async def start(self, sock: socket.socket) -> None:
        await self.service.start()
        loop = asyncio.get_running_loop()
        sock.setblocking(False)
        self._sock = sock
        loop.add_reader(sock.fileno(), self._accept_ready)
        self._sweeper = loop.call_later(KEEPALIVE_SECONDS / 2, self._sweep)

    def _accept_ready(self) -> None:
        """Accept every pending connection at once. (uvloop's create_server accepts one per
        turn of the loop: with 64 busy keep-alive connections, the last client waited
        seconds for its first answer.)"""
        sock, loop = self._sock, asyncio.get_running_loop()
        while sock is not None:
            try:
                conn, _ = sock.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in _ACCEPT_SKIP:
                    continue
                # EMFILE, ENFILE, ENOBUFS, ENOMEM: pause rather than spin on a ready socket
                log.warning("cannot accept connections (%s); retrying in %.0f s", exc, ACCEPT_RETRY_SECONDS)
                loop.remove_reader(sock.fileno())
                loop.call_later(ACCEPT_RETRY_SECONDS, self._resume_accepting)
                return
            conn.setblocking(False)
            if conn.family in (socket.AF_INET, socket.AF_INET6):
                conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            task = loop.create_task(loop.connect_accepted_socket(lambda: FastHTTP(self), conn))
            self._waiting.add(task)
            task.add_done_callback(self._connected)

    def _connected(self, task: asyncio.Task[Any]) -> None:
        self._waiting.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("dropped an accepted connection: %s", task.exception())

    def _resume_accepting(self) -> None:
        if self._sock is not None:
            asyncio.get_running_loop().add_reader(self._sock.fileno(), self._accept_ready)

    def _sweep(self) -> None:
        """Close the keep-alive connections idle since the last sweep (a flag per connection:
        no clock read per request)."""
        for conn in list(self.connections):
            if conn.idle():
                conn.close()
            conn.active = False
        self._sweeper = asyncio.get_running_loop().call_later(KEEPALIVE_SECONDS / 2, self._sweep)

    def hand_off(self, conn: FastHTTP, transport: asyncio.Transport, data: bytes) -> None:
        """The aiohttp application takes over ``transport``, ``data`` first."""
        self.connections.discard(conn)
        if self._runner is not None:
            self._attach(transport, data)
            return
        transport.pause_reading()  # until the application is ready
        task = asyncio.get_running_loop().create_task(self._attach_later(transport, data))
        self._waiting.add(task)
        task.add_done_callback(self._waiting.discard)

    async def _attach_later(self, transport: asyncio.Transport, data: bytes) -> None:
        if self._aiohttp is None:
            self._aiohttp = asyncio.get_running_loop().create_task(self._start_aiohttp())
        try:
            await asyncio.shield(self._aiohttp)
        except BaseException:
            transport.abort()
            raise
        if not transport.is_closing():
            transport.resume_reading()
            self._attach(transport, data)

    def _attach(self, transport: asyncio.Transport, data: bytes) -> None:
        assert self._runner is not None and self._runner.server is not None
        handler = self._runner.server()
        transport.set_protocol(handler)
        handler.connection_made(transport)
        if data:
            handler.data_received(data)

    async def _start_aiohttp(self) -> None:
        from aiohttp import web

        from dynemu.api.server import create_app

        app = create_app(self.service.settings, self.service)
        runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await runner.setup()
        self._runner = runner

    async def stop(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            self._sweeper = None
        sock, self._sock = self._sock, None
        if sock is not None:
            asyncio.get_running_loop().remove_reader(sock.fileno())
            sock.close()
        for conn in list(self.connections):
            conn.close()
        for task in list(self._waiting):
            task.cancel()
        if self._aiohttp is not None:
            try:
                await self._aiohttp
            except Exception:
                log.exception("the aiohttp application failed to start")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        await self.service.close()

    @property
    def sockets(self) -> Any:
        return (self._sock,) if self._sock is not None else ()
