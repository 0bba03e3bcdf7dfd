"""HTTP/1.x for the DynamoDB API: an asyncio protocol whose requests are framed by httptools
(llhttp, the parser of Node.js).

llhttp frames every request: Content-Length and chunked bodies, keep-alive, pipelining,
HTTP/1.0, and malformed input (answered 400, the connection closed). This module adds what
HTTP leaves to the server: a Host is required (HTTP/1.1), a body over 16 MB gets 413,
``Expect: 100-continue`` gets its interim answer, and a request not complete within
--request-timeout of its first byte gets 408 and the connection is closed (a slow head as a
slow body). A keep-alive connection idle for 37.5-75 s is closed.

``POST /`` (the DynamoDB JSON protocol), ``GET /`` (the health check) and ``OPTIONS /`` (CORS
preflight, unless CORS is off) are answered by the dispatcher as soon as they are complete
(the engine is synchronous), in order; a request whose namespace must first be opened (its
store on disk) waits for that open, done off the loop (``engine/namespaces.py``), and is then
answered, later requests on the connection after it. Any other request (the admin API and dashboard under
/_dynemu/, other paths and methods) is passed, framed, to the aiohttp application
(``admin_app.create_app``, built the first time a request needs it) over an in-memory link,
and its answer is relayed; later requests on the connection wait for it.
"""

from __future__ import annotations

import asyncio
import errno
import functools
import logging
import socket
import time
from collections import deque
from collections.abc import Callable
from http import HTTPStatus
from typing import TYPE_CHECKING, Any

import httptools

from dynemu.api.admin.link import AdminLink
from dynemu.api.protocol import (
    MAX_BODY_BYTES,
    ApiDispatcher,
    Headers,
    Reply,
    Request,
    new_headers,
    new_request,
)
from dynemu.engine.namespaces import OpenPending

if TYPE_CHECKING:
    from aiohttp import web

    from dynemu.api.service import Service

log = logging.getLogger("dynemu")

LINE_LIMIT = 8190  # bytes of a URL (414 past it) or of a header value (400), as aiohttp's limits
HEAD_LIMIT = 64 * 1024  # bytes of a request head still incomplete: more is refused (400)
KEEPALIVE_SECONDS = 75.0  # an idle keep-alive connection is closed after 37.5-75 s, as aiohttp does after 75
WRITE_BATCH = 256 * 1024  # pipelined answers are written together up to this many bytes
ACCEPT_RETRY_SECONDS = 1.0  # out of file descriptors (EMFILE, ...): stop accepting this long, as asyncio does
# accept() failures that say nothing about the listener: the client went away, try the next one
_ACCEPT_SKIP = frozenset((errno.ECONNABORTED, errno.EPROTO, errno.EPERM))
# Header names as clients send them, lower-cased in advance (a table, not a cache: any other
# name is decoded and lower-cased; llhttp has checked it is a token).
_NAMES = {name.encode(): name.lower() for name in (
    "Host", "User-Agent", "Accept", "Accept-Encoding", "Content-Type", "Content-Length", "Content-Encoding",
    "X-Amz-Target", "X-Amz-Date", "X-Amz-Security-Token", "X-Amz-Content-Sha256", "Authorization",
    "amz-sdk-invocation-id", "amz-sdk-request", "Connection", "Origin", "Referer", "Accept-Language",
    "X-Amz-User-Agent", "X-Amzn-Trace-Id", "Keep-Alive", "Expect", "Transfer-Encoding",
)}
_NAMES.update({name.lower(): lower for name, lower in list(_NAMES.items())})
_ANSWERED = frozenset(("POST", "GET", "OPTIONS"))  # on "/": the dispatcher's (OPTIONS with CORS on)
RPC_V2 = b"/service/"  # CloudWatch's RPC v2 CBOR paths: /service/<service>/operation/<Op>
_CONTINUE = b"HTTP/1.1 100 Continue\r\n\r\n"

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_date = [0, ""]
_CRLF = "\r\n"
# Every answer names its server, as the service's do ("Server: Server").
SERVER = "Server: Server\r\n"
CLOSE = "Connection: close\r\n\r\n"
KEEP_ALIVE = "Connection: keep-alive\r\n\r\n"  # to a client that asked for it (HTTP/1.0 must)
PERSIST = _CRLF  # HTTP/1.1: persistent unless said otherwise


def http_date() -> str:
    """The Date header's value, formatted once a second."""
    now = int(time.time())
    if now != _date[0]:
        t = time.gmtime(now)
        _date[0] = now
        _date[1] = (f"{_DAYS[t.tm_wday]}, {t.tm_mday:02d} {_MONTHS[t.tm_mon]} {t.tm_year} "
                    f"{t.tm_hour:02d}:{t.tm_min:02d}:{t.tm_sec:02d} GMT")
    return _date[1]


_STATUS_LINES = {s.value: f"HTTP/1.1 {s.value} {s.phrase}\r\n" for s in HTTPStatus}


def status_line(status: int) -> str:
    return _STATUS_LINES.get(status) or f"HTTP/1.1 {status} \r\n"


def render(reply: Reply, tail: str) -> bytes:
    """The bytes of an HTTP/1.1 response; ``tail`` ends the head (CLOSE, KEEP_ALIVE, PERSIST)."""
    status, headers, body = reply
    fields = "\r\n".join(map(": ".join, headers))  # "name: value" lines
    text = (f"{status_line(status)}{fields}{_CRLF if headers else ''}Content-Length: {len(body)}\r\n"
            f"Date: {http_date()}\r\n{SERVER}{tail}")
    return text.encode("utf-8", "surrogateescape") + body


class Outbox:
    """The connections with answers to write at the end of the loop's turn, written then back
    to back. A connection answers its requests as soon as they are complete, but writes at
    the end of the turn, after every connection read in that turn has been answered: a client
    waiting on several connections is then woken once for the answers of one turn, rather
    than once per answer, each wake-up costing the writing side kernel time (on loopback the
    write delivers to the reader and wakes it). One call of ``schedule`` per turn."""

    __slots__ = ("_due", "_schedule")

    def __init__(self, schedule: Callable[[Callable[[], None]], object]) -> None:
        self._due: list[Connection] = []
        self._schedule = schedule  # the loop's call_soon: runs after this turn's reads

    def add(self, conn: Connection) -> None:
        if not self._due:
            self._schedule(self._flush)
        self._due.append(conn)

    def _flush(self) -> None:
        due, self._due = self._due, []
        for conn in due:
            try:
                conn.flush()
            except Exception:  # a bug: the other connections' answers are still written
                log.exception("HTTP connection failed; closing it")
                conn.abort()


class Refused(Exception):
    """A request answered with ``status`` and the connection closed (raised inside llhttp's
    callbacks, which stops the parse)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


# A parsed request waiting for its answer: (answer or None for aiohttp's, request, head tail,
# the request as bytes for aiohttp); or an interim 100 Continue: (None, None, "", _CONTINUE).
Pending = tuple[Callable[[Request], Reply] | None, Request | None, str, bytes]


class Connection(asyncio.Protocol):
    """One client connection: llhttp frames, the dispatcher (or aiohttp) answers."""

    def __init__(self, listener: HttpListener) -> None:
        self._listener = listener
        dispatcher = listener.dispatcher
        self._routes: dict[str, Callable[[Request], Reply]] = {"POST": dispatcher.handle, "GET": dispatcher.health}
        self._rpc_v2 = dispatcher.rpc_v2
        if dispatcher.cors is not None:
            self._routes["OPTIONS"] = dispatcher.preflight
        self._timeout = dispatcher.timeout
        self._parser = httptools.HttpRequestParser(self)
        self._transport: asyncio.Transport | None = None
        self._pending: deque[Pending] = deque()  # complete requests, in order, not yet answered
        self._out: list[bytes] = []  # answered, written at the end of the loop's turn (Outbox)
        self._timer: asyncio.TimerHandle | None = None
        self._paused = False  # the client does not read its answers: stop answering
        self._link: AdminLink | None = None  # to the aiohttp application, once needed
        self._relaying = False  # an answer of aiohttp's is under way: later ones wait
        self._opening = False  # the next request waits for its namespace's open (off the loop)
        self._held = False  # reading paused while requests wait for one of aiohttp's answers
        self._closing = False  # answered for the last time: what comes in is dropped
        self.active = True  # something was received since the last idle sweep
        # the request being parsed
        self._in_message = False
        self._in_head = False
        self._head_size = 0  # bytes received while the head was incomplete
        self._url = b""
        self._headers: Headers = new_headers()
        self._repeats: list[tuple[str, str]] | None = None
        self._body: bytes | bytearray = b""
        self._expect = False

    # --- the transport ----------------------------------------------------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._transport = transport  # type: ignore[assignment]
        self._listener.connections.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        self._listener.connections.discard(self)
        self._stop_timer()
        self._transport = None
        if self._link is not None:
            self._link.lost()
            self._link = None

    def eof_received(self) -> bool:
        return False  # close once what was answered is written

    def close(self) -> None:
        if self._transport is not None:
            self.flush()
            self._transport.close()

    def abort(self) -> None:
        """Drop what is unwritten and the connection (after a bug of this module)."""
        self._out.clear()
        if self._transport is not None:
            self._transport.abort()

    def _send(self, data: bytes) -> None:
        """Write ``data`` at the end of the loop's turn (``Outbox``), after what came before it."""
        if not self._out:
            self._listener.outbox.add(self)
        self._out.append(data)

    def flush(self) -> None:
        """Write what ``_send`` holds, now."""
        out = self._out
        if out:
            data = out[0] if len(out) == 1 else b"".join(out)
            out.clear()  # the same list each turn: nothing made per answer
            if self._transport is not None:
                self._transport.write(data)

    def pause_writing(self) -> None:
        self._paused = True
        if self._transport is not None:
            self._transport.pause_reading()

    def resume_writing(self) -> None:
        self._paused = False
        if self._transport is not None and not self._transport.is_closing():
            self._answer_pending()
            if not self._held:
                self._transport.resume_reading()

    def idle(self) -> bool:
        """Nothing received since the last sweep, and no request under way."""
        return not (self.active or self._in_message or self._pending or self._relaying or self._opening)

    def data_received(self, data: bytes) -> None:
        self.active = True
        if self._closing:
            return
        try:
            self._parser.feed_data(data)
        except httptools.HttpParserUpgrade as upgrade:  # not supported: the request is answered as HTTP/1.1
            self.data_received(data[upgrade.args[0]:])
            return
        except httptools.HttpParserCallbackError as exc:
            cause = exc.__context__
            if not isinstance(cause, Refused):
                log.error("HTTP front end failed; closing the connection", exc_info=cause)
            self._refuse(cause.status if isinstance(cause, Refused) else 500)
            return
        except httptools.HttpParserError:  # malformed (llhttp's verdict)
            self._refuse(400)
            return
        if self._in_head:  # the head goes on: llhttp keeps what it has read
            self._head_size += len(data)
            if self._head_size > HEAD_LIMIT:
                self._refuse(400)
                return
        if self._pending:
            self._answer_pending()
        if self._expect:  # a head that waits for 100 Continue before its body
            self._expect_continue()
        if self._in_message:
            if self._timer is None:
                self._timer = asyncio.get_running_loop().call_later(self._timeout, self._stalled)
        elif self._timer is not None:
            self._stop_timer()

    # --- llhttp's callbacks -----------------------------------------------------------------------

    def on_message_begin(self) -> None:
        self._in_message = self._in_head = True

    def on_url(self, url: bytes) -> None:
        self._url += url
        if len(self._url) > LINE_LIMIT:
            raise Refused(414)

    def on_header(self, name: bytes, value: bytes) -> None:
        lower = _NAMES.get(name) or name.decode("latin-1").lower()
        headers = self._headers
        if len(value) > LINE_LIMIT:
            raise Refused(400)
        # As aiohttp reads them: UTF-8, undecodable bytes kept as surrogate escapes.
        if lower not in headers:
            headers[lower] = value.decode("utf-8", "surrogateescape")
        else:
            if lower == "host":
                raise Refused(400)  # RFC 9112 3.2
            if self._repeats is None:
                self._repeats = []
            self._repeats.append((lower, value.decode("utf-8", "surrogateescape")))

    def on_headers_complete(self) -> None:
        self._in_head = False
        self._head_size = 0
        headers = self._headers
        headers.more = self._repeats
        length = headers.get("content-length")
        if length is not None and int(length) > MAX_BODY_BYTES:  # llhttp has checked its digits
            raise Refused(413)
        if "host" not in headers and self._parser.get_http_version() != "1.0":
            raise Refused(400)  # RFC 9112 3.2
        expect = headers.get("expect")
        if expect is not None and self._parser.get_http_version() == "1.1":
            if expect.lower() != "100-continue":
                raise Refused(417)
            self._expect = True

    def on_body(self, body: bytes) -> None:
        got = self._body
        if not got:
            self._body = body
            return
        if len(got) + len(body) > MAX_BODY_BYTES:  # chunked: no Content-Length to check first
            raise Refused(413)
        if isinstance(got, bytes):
            got = self._body = bytearray(got)
        got += body

    def on_message_complete(self) -> None:
        parser, headers = self._parser, self._headers
        method = parser.get_method().decode()
        url = self._url
        body = self._body
        if type(body) is bytearray:
            body = bytes(body)
        if parser.should_keep_alive():  # an HTTP/1.0 client asked with Connection: keep-alive
            tail = KEEP_ALIVE if "connection" in headers else PERSIST
        else:
            tail = CLOSE
        path = "/"
        if url == b"/" or url.startswith(b"/?"):
            answer = self._routes.get(method)
        elif method == "POST" and url.startswith(RPC_V2):  # CloudWatch's CBOR protocol (api/cloudwatch_wire.py)
            answer, path = self._rpc_v2, url.decode("utf-8", "surrogateescape")
        else:
            answer = None
        query = url[2:].decode("utf-8", "surrogateescape") if answer is not None and path == "/" and len(url) > 1 else ""
        request = new_request((method, path, query, headers, headers.get("host", ""), body))  # type: ignore[arg-type]
        forward = b"" if answer is not None else self._as_bytes(method, url, body)
        self._pending.append((answer, request, tail, forward))
        self._in_message = self._expect = False
        self._url, self._headers, self._repeats, self._body = b"", new_headers(), None, b""
        if self._timer is not None:
            self._stop_timer()

    def _as_bytes(self, method: str, url: bytes, body: bytes) -> bytes:
        """A request for aiohttp, framed by Content-Length (the body is whole)."""
        version = self._parser.get_http_version()
        lines = [f"{method} {url.decode('latin-1')} HTTP/{version}"]
        for name, value in self._headers.pairs:
            if name not in ("content-length", "transfer-encoding", "expect"):
                lines.append(f"{name}: {value}")
        lines.append(f"content-length: {len(body)}\r\n\r\n")
        return "\r\n".join(lines).encode("utf-8", "surrogateescape") + body

    # --- answers ----------------------------------------------------------------------------------

    def _expect_continue(self) -> None:
        self._expect = False
        if self._pending or self._relaying:
            self._pending.append((None, None, "", _CONTINUE))
        elif self._transport is not None:
            self._send(_CONTINUE)

    def _answer_pending(self) -> None:
        """Answer the complete requests in order, until one is aiohttp's or the client stops
        reading; while some wait, read no more."""
        transport, pending = self._transport, self._pending
        if transport is None:
            return
        try:
            self._answer_in_order(pending)
        except Exception:  # a bug of this module: never a hang
            log.exception("HTTP connection failed; closing it")
            self.abort()
            return
        if pending:
            if not self._held:
                self._held = True
                transport.pause_reading()  # until aiohttp has answered
        elif self._held:
            self._held = False
            if not self._paused:
                transport.resume_reading()

    def _answer_in_order(self, pending: deque[Pending]) -> None:
        size = 0
        while pending and not self._paused and not self._relaying and not self._opening:
            answer, request, tail, data = pending.popleft()
            if request is None:
                self._send(data)  # 100 Continue
                continue
            if answer is None:
                self._relay(data, request.method == "HEAD", tail is CLOSE)
                continue
            try:
                reply = answer(request)  # never raises: errors are answers
            except OpenPending as opening:  # answered again once its namespace is open
                pending.appendleft((answer, request, tail, data))
                self._wait_for(opening)
                break
            data = render(reply, tail)
            self._send(data)
            if tail is CLOSE:
                pending.clear()
                self._finish()
                return
            size += len(data)
            if size >= WRITE_BATCH:  # pipelined answers: written now (which may pause the loop)
                self.flush()
                size = 0

    def _wait_for(self, opening: OpenPending) -> None:
        self._opening = True
        done = asyncio.wrap_future(opening.future)
        done.add_done_callback(functools.partial(self._opened, opening))

    def _opened(self, opening: OpenPending, done: asyncio.Future[Any]) -> None:
        """The namespace's open is done: answer the request again (which installs the namespace,
        or answers why it failed to open); with the client gone, install it all the same."""
        if not done.cancelled():
            done.exception()  # retrieved: the request's answer reports it
        self._opening = False
        if self._transport is None:
            opening.settle()
        else:
            self._answer_pending()

    def _finish(self) -> None:
        """The last answer is written: stop reading requests, and close (at once when all
        is read, else once the client stops sending or --request-timeout has passed: a
        client still sending would otherwise get a reset instead of the answer)."""
        transport = self._transport
        self._closing = True
        self._stop_timer()
        if transport is None:
            return
        self.flush()
        if transport.can_write_eof():
            transport.write_eof()
            transport.resume_reading()
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self._timeout, transport.close)
        else:
            transport.close()

    def _refuse(self, status: int) -> None:
        """Answer what was complete before, then ``status``, and close."""
        self._answer_pending()
        self._pending.clear()
        if self._transport is not None and not self._closing:
            self._send(render(Reply(status, [], b""), CLOSE))
            self._finish()

    def _stop_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _stalled(self) -> None:
        """The request did not come whole within --request-timeout of its first byte (a slow
        head, or a slow body): 408, and the connection closed, while other connections carry
        on."""
        self._timer = None
        if self._transport is not None and not self._closing:
            log.info("dropped a client that sent no whole request within %ss", self._timeout)
            self._refuse(408)

    # --- requests for aiohttp ---------------------------------------------------------------------

    def _relay(self, data: bytes, head_only: bool, close: bool) -> None:
        self._relaying = True
        if self._link is None:
            self._link = AdminLink(self)
        self._listener.relay(self._link, data, head_only, close)

    def relayed(self, close: bool) -> None:
        """aiohttp's answer is written: carry on with the next request, or close."""
        self._relaying = False
        if self._transport is None:
            return
        if close:
            self._pending.clear()
            self._finish()
        else:
            self._answer_pending()

    def write(self, data: bytes) -> None:
        """aiohttp's answer (AdminLink), written after the answers before it."""
        if self._transport is not None:
            self._send(data)

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default if self._transport is None else self._transport.get_extra_info(name, default)


class HttpListener:
    """Serves one Service on a listening socket. ``await start(sock)``, then ``await stop()``:
    closes every connection, the aiohttp application if it was built, then the service."""

    def __init__(self, service: Service) -> None:
        self.service = service
        self.dispatcher: ApiDispatcher = service.dispatcher
        self.connections: set[Connection] = set()
        self._sock: socket.socket | None = None  # listening; accepted by _accept_ready
        self._runner: web.AppRunner | None = None
        self._aiohttp: asyncio.Task[None] | None = None
        self._waiting: set[asyncio.Task[Any]] = set()
        self._sweeper: asyncio.TimerHandle | None = None
        self.outbox: Outbox

    async def start(self, sock: socket.socket) -> None:
        await self.service.start()
        self.service.namespaces.open_off_loop = True  # a connection waits for its namespace's open
        loop = asyncio.get_running_loop()
        self.outbox = Outbox(loop.call_soon)
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
            task = loop.create_task(loop.connect_accepted_socket(lambda: Connection(self), conn))
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

    def relay(self, link: AdminLink, data: bytes, head_only: bool, close: bool) -> None:
        """Pass one request to the aiohttp application (built the first time)."""
        if self._runner is not None and self._runner.server is not None:
            link.send(self._runner.server, data, head_only, close)
            return
        task = asyncio.get_running_loop().create_task(self._relay_later(link, data, head_only, close))
        self._waiting.add(task)
        task.add_done_callback(self._waiting.discard)

    async def _relay_later(self, link: AdminLink, data: bytes, head_only: bool, close: bool) -> None:
        if self._aiohttp is None:
            self._aiohttp = asyncio.get_running_loop().create_task(self._start_aiohttp())
        try:
            await asyncio.shield(self._aiohttp)
        except BaseException:
            link.lost()
            raise
        self.relay(link, data, head_only, close)

    async def _start_aiohttp(self) -> None:
        from aiohttp import web

        from dynemu.api.admin.app import create_app

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
