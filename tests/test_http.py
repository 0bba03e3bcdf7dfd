"""HTTP over raw sockets: keep-alive, pipelining, split reads, chunked bodies, Expect,
HTTP/1.0, malformed heads, limits and time-outs, and the requests passed to aiohttp
(/_dynemu/, other paths and methods)."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import pytest

from dynemu.testing import DynemuServer
from tests.test_protocol import AUTH

TARGET = "DynamoDB_20120810."


def _serve(loop: str, request_timeout: float) -> Iterator[tuple[str, int]]:
    with DynemuServer(clock="virtual", request_timeout=request_timeout, event_loop=loop) as url:
        u = urlparse(url)
        assert u.hostname is not None and u.port is not None
        yield u.hostname, u.port


@pytest.fixture(scope="module", params=["auto", "asyncio"])
def addr(request: pytest.FixtureRequest) -> Iterator[tuple[str, int]]:
    """A server on uvloop (when installed) and one on asyncio's own loop. A request must come
    whole within --request-timeout of its first byte: a generous one here, since the tests
    that send a request in pieces, or 16 MB of it, would get 408 from a short one whenever a
    busy machine held this thread up that long."""
    yield from _serve(request.param, 120.0)


@pytest.fixture(scope="module", params=["auto", "asyncio"])
def hasty_addr(request: pytest.FixtureRequest) -> Iterator[tuple[str, int]]:
    """The same servers with --request-timeout 1, for the tests of that time-out."""
    yield from _serve(request.param, 1.0)


def request(op: str, body: bytes | str = b"{}", *, extra: str = "", length: bool = True) -> bytes:
    data = body.encode() if isinstance(body, str) else body
    head = (
        f"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n"
        f"X-Amz-Target: {TARGET}{op}\r\nAuthorization: {AUTH}\r\n{extra}"
    )
    if length:
        head += f"Content-Length: {len(data)}\r\n"
    return head.encode() + b"\r\n" + data


class Conn:
    """One client connection that reads whole responses (interim 1xx ones included)."""

    def __init__(self, addr: tuple[str, int]) -> None:
        self.sock = socket.create_connection(addr, timeout=30)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    def send(self, data: bytes) -> None:
        self.sock.sendall(data)

    def _fill(self) -> bool:
        chunk = self.sock.recv(65536)
        self.buf += chunk
        return bool(chunk)

    def response(self) -> tuple[int, dict[str, str], bytes]:
        while b"\r\n\r\n" not in self.buf:
            assert self._fill(), f"connection closed; got {self.buf!r}"
        head, self.buf = self.buf.split(b"\r\n\r\n", 1)
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            name, _, value = line.partition(":")
            headers[name.strip().lower()] = value.strip()
        length = int(headers.get("content-length", "0"))
        while len(self.buf) < length:
            assert self._fill(), "connection closed inside a body"
        body, self.buf = self.buf[:length], self.buf[length:]
        return status, headers, body

    def closed(self) -> bool:
        """The server closed the connection (and sent nothing more)."""
        return not self.buf and not self._fill()

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def conn(addr: tuple[str, int]) -> Iterator[Conn]:
    c = Conn(addr)
    yield c
    c.close()


@pytest.fixture
def hasty(hasty_addr: tuple[str, int]) -> Iterator[Conn]:
    """A connection to a server with --request-timeout 1."""
    c = Conn(hasty_addr)
    yield c
    c.close()


def as_json(body: bytes) -> Any:
    return json.loads(body)


def test_keep_alive_serves_many_requests_on_one_connection(conn: Conn) -> None:
    for _ in range(50):
        conn.send(request("ListTables"))
        status, headers, body = conn.response()
        assert status == 200 and "TableNames" in as_json(body)
        assert headers["content-type"] == "application/x-amz-json-1.0"
        assert "connection" not in headers


def test_pipelined_requests_are_answered_in_order(conn: Conn) -> None:
    conn.send(request("ListTables", '{"Limit": 1}') + request("DescribeTable", '{"TableName": "nope"}')
              + request("NoSuchOperation") + request("ListTables"))
    status, _, body = conn.response()
    assert status == 200 and "TableNames" in as_json(body)
    status, _, body = conn.response()
    assert status == 400 and as_json(body)["__type"].endswith("ResourceNotFoundException")
    status, _, body = conn.response()
    assert status == 400 and as_json(body)["__type"].endswith("UnknownOperationException")
    status, _, body = conn.response()
    assert status == 200


def test_a_body_split_over_several_segments(conn: Conn) -> None:
    data = request("ListTables", '{"Limit": 2, "ExclusiveStartTableName": "aaa"}')
    for i in range(0, len(data), 7):
        conn.send(data[i : i + 7])
        time.sleep(0.002)
    status, _, body = conn.response()
    assert status == 200 and "TableNames" in as_json(body)


def test_headers_split_mid_line(conn: Conn) -> None:
    data = request("ListTables")
    cut = data.index(b"X-Amz-Tar") + 5
    conn.send(data[:cut])
    time.sleep(0.05)
    conn.send(data[cut:])
    assert conn.response()[0] == 200


def test_a_post_without_content_length_has_an_empty_body(conn: Conn) -> None:
    conn.send(request("ListTables", b"", length=False))
    status, _, body = conn.response()
    assert status == 400 and as_json(body) == {"__type": "com.amazon.coral.service#SerializationException"}
    conn.send(request("ListTables"))  # the connection carries on
    assert conn.response()[0] == 200


def test_a_chunked_body_is_answered(conn: Conn) -> None:
    conn.send(request("ListTables"))  # first framed by Content-Length
    assert conn.response()[0] == 200
    body = b'{"Limit": 1}'
    chunked = b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body)
    conn.send(request("ListTables", chunked, extra="Transfer-Encoding: chunked\r\n", length=False))
    status, _, answer = conn.response()
    assert status == 200 and "TableNames" in as_json(answer)
    conn.send(request("ListTables"))  # and the connection carries on
    assert conn.response()[0] == 200


def test_expect_100_continue(conn: Conn) -> None:
    body = b'{"Limit": 1}'
    head, _, _ = request("ListTables", body, extra="Expect: 100-continue\r\n").partition(b"\r\n\r\n")
    conn.send(head + b"\r\n\r\n")
    status, _, _ = conn.response()
    assert status == 100
    conn.send(body)
    status, _, answer = conn.response()
    assert status == 200 and "TableNames" in as_json(answer)


def test_http_1_0(conn: Conn) -> None:
    conn.send(request("ListTables").replace(b"HTTP/1.1", b"HTTP/1.0", 1))
    status, _, body = conn.response()
    assert status == 200 and "TableNames" in as_json(body)


@pytest.mark.parametrize(
    "data",
    [
        b"NONSENSE\r\n\r\n",
        b"POST / HTTP/1.1 extra\r\nHost: x\r\n\r\n",
        b"POST / HTTP/1.1\r\nBad Header: x\r\nHost: x\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: x\r\nX: a\x00b\r\n\r\n",
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
        b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
        b"POST / HTTP/1.1\r\n\r\n",  # no Host
        b"POST / HTTP/1.1\r\nHost\r\n\r\n",  # a header line without a colon
        b"POST / HTTP/1.1\r\nHost: x\r\nX-Long: " + b"a" * 20000 + b"\r\n\r\n",  # a header block too large
    ],
)
def test_malformed_requests_get_400_not_a_hang(conn: Conn, data: bytes) -> None:
    conn.send(data)
    status, _, _ = conn.response()
    assert status == 400


def test_a_stalled_body_gets_408_and_the_connection_closes(hasty: Conn) -> None:
    data = request("ListTables", '{"Limit": 1}')
    hasty.send(data[:-3])
    status, headers, _ = hasty.response()
    assert status == 408 and headers["connection"] == "close"
    assert hasty.closed()


def test_a_body_over_16_mb_gets_413(conn: Conn) -> None:
    conn.send(request("ListTables", b" " * (16 * 1024 * 1024 + 10)))
    assert conn.response()[0] == 413


def test_the_admin_api_after_dynamodb_requests_on_one_connection(conn: Conn) -> None:
    conn.send(request("ListTables"))
    assert conn.response()[0] == 200
    conn.send(b"GET /_dynemu/clock HTTP/1.1\r\nHost: localhost\r\n\r\n")
    status, _, body = conn.response()
    assert status == 200 and "now" in as_json(body)
    conn.send(request("ListTables"))
    assert conn.response()[0] == 200
    conn.send(b"GET /_dynemu/ HTTP/1.1\r\nHost: localhost\r\n\r\n")
    status, headers, _ = conn.response()
    assert status == 200 and headers["content-type"].startswith("text/html")


def test_dynamodb_requests_after_the_admin_api_on_one_connection(conn: Conn) -> None:
    conn.send(b"GET /_dynemu/metrics HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert conn.response()[0] == 200
    for _ in range(3):
        conn.send(request("ListTables"))
        assert conn.response()[0] == 200


def test_health_check_names_the_host(conn: Conn) -> None:
    conn.send(b"GET / HTTP/1.1\r\nHost: example.test:1234\r\n\r\n")
    status, headers, body = conn.response()
    assert status == 200 and body == b"healthy: example.test:1234 "
    assert headers["content-type"] == "text/plain; charset=utf-8"


def test_cors_preflight(conn: Conn) -> None:
    conn.send(b"OPTIONS / HTTP/1.1\r\nHost: localhost\r\nOrigin: http://app.test\r\n"
              b"Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: x-amz-target\r\n\r\n")
    status, headers, _ = conn.response()
    assert status == 200 and headers["access-control-allow-origin"] == "*"
    assert headers["access-control-allow-methods"] == "POST"
    assert headers["access-control-allow-headers"] == "x-amz-target"


def test_repeated_accept_encoding_headers_are_all_read(conn: Conn) -> None:
    conn.send(request("ListTables", '{"Limit": 1}', extra="Accept-Encoding: br\r\nAccept-Encoding: gzip\r\n"))
    assert conn.response()[0] == 200  # a small answer is never compressed
    many = json.dumps({"ExclusiveStartTableName": "a" * 200}).encode()
    conn.send(request("NoSuchOperation", many, extra="Accept-Encoding: identity\r\nAccept-Encoding: gzip\r\n"))
    assert conn.response()[0] == 400


def test_connection_close_is_honoured(conn: Conn) -> None:
    conn.send(request("ListTables", extra="Connection: close\r\n") + request("ListTables"))
    status, headers, _ = conn.response()
    assert status == 200 and headers["connection"] == "close"
    assert conn.closed()


def test_other_paths_and_methods_are_aiohttps(conn: Conn) -> None:
    conn.send(b"GET /nowhere HTTP/1.1\r\nHost: localhost\r\n\r\n")
    assert conn.response()[0] == 404
    conn.send(b"PUT / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 0\r\n\r\n")
    assert conn.response()[0] == 405


def test_an_idle_keep_alive_connection_is_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    from dynemu.api import http

    # The sweep runs every KEEPALIVE_SECONDS / 2 and closes a connection idle since the last
    # one: the client must send its request within one sweep period of connecting, so not a
    # fraction of a second, which a busy machine can hold this thread up for.
    monkeypatch.setattr(http, "KEEPALIVE_SECONDS", 2.0)
    with DynemuServer() as url:
        u = urlparse(url)
        assert u.hostname is not None and u.port is not None
        c = Conn((u.hostname, u.port))
        c.send(request("ListTables"))
        assert c.response()[0] == 200
        assert c.closed()  # within a few sweeps; recv waits up to 30 s
        c.close()


def both_paths(addr: tuple[str, int], head: bytes) -> list[Any]:
    """The answers to ``head`` with a Content-Length body and with a chunked one, each on a
    new connection."""
    answers = []
    for framing in (b"Content-Length: 2\r\n\r\n{}", b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"):
        c = Conn(addr)
        c.send(head + framing)
        answers.append(c.response())
        c.close()
    return answers


@pytest.mark.parametrize("credential", [b"AK\xffID/20250101/us-east-1", b"AKID/20250101/us-\xc3\xa9ast-1"])
def test_header_bytes_beyond_ascii_are_read_whatever_the_framing(addr: tuple[str, int], credential: bytes) -> None:
    auth = b"AWS4-HMAC-SHA256 Credential=" + credential + b"/dynamodb/aws4_request, SignedHeaders=host, Signature=x"
    head = (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
            b"X-Amz-Target: DynamoDB_20120810.ListTables\r\nAuthorization: " + auth + b"\r\n")
    answers = [(status, body) for status, _, body in both_paths(addr, head)]
    assert answers[0] == answers[1] and answers[0][0] == 400


def test_a_bare_cr_and_lf_inside_a_value_get_400_whatever_the_framing(addr: tuple[str, int]) -> None:
    head = (b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
            b"X-Amz-Target: DynamoDB_20120810.ListTables\r\nAuthorization: " + AUTH.encode() + b"\r\nX-A: 1\r2\n3\r\n")
    answers = [(status, headers.get("content-type")) for status, headers, _ in both_paths(addr, head)]
    assert answers[0] == answers[1] and answers[0][0] == 400


def _with_credential(op: str, body: str, credential: str) -> bytes:
    auth = f"AWS4-HMAC-SHA256 Credential={credential}/dynamodb/aws4_request, SignedHeaders=host, Signature=x"
    return request(op, body).replace(AUTH.encode(), auth.encode())


def test_each_region_on_one_connection_gets_its_own_tables(conn: Conn) -> None:
    table = f"t{time.time_ns()}"
    create = json.dumps({"TableName": table, "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
                         "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}],
                         "BillingMode": "PAY_PER_REQUEST"})
    conn.send(_with_credential("CreateTable", create, "AKID/20250101/eu-west-3"))
    assert conn.response()[0] == 200
    for region, present in [("eu-west-3", True), ("ap-south-2", False), ("eu-west-3", True), ("ap-south-2", False)]:
        conn.send(_with_credential("ListTables", "{}", f"AKID/20250101/{region}"))
        status, _, body = conn.response()
        assert status == 200 and (table in as_json(body)["TableNames"]) is present


def test_a_bad_credential_after_good_ones_on_one_connection_gets_its_error(conn: Conn) -> None:
    region_error = {"__type": "com.amazon.coral.service#InvalidSignatureException",
                    "message": "Credential should be scoped to a valid region, not 'x_y'."}
    key_error = {"__type": "com.amazon.coral.service#UnrecognizedClientException",
                 "message": "The security token included in the request is invalid."}
    for _ in range(2):  # errors are answered every time, not remembered as a pass
        for credential, expected in [("AKID/20250101/us-east-1", None), ("AKID/20250101/x_y", region_error),
                                     ("AKID/20250101/us-west-2", None), ("A B/20250101/us-east-1", key_error),
                                     ("AKID2/20250101/us-east-1", None), ("A" * 129 + "/20250101/us-east-1", key_error)]:
            conn.send(_with_credential("ListTables", "{}", credential))
            status, _, body = conn.response()
            if expected is None:
                assert status == 200, body
            else:
                assert (status, as_json(body)) == (400, expected)


def test_each_access_key_on_one_connection_gets_its_own_tables() -> None:
    with DynemuServer(isolate_access_keys=True) as url:
        u = urlparse(url)
        assert u.hostname is not None and u.port is not None
        c = Conn((u.hostname, u.port))
        create = json.dumps({"TableName": "mine", "KeySchema": [{"AttributeName": "k", "KeyType": "HASH"}],
                             "AttributeDefinitions": [{"AttributeName": "k", "AttributeType": "S"}],
                             "BillingMode": "PAY_PER_REQUEST"})
        c.send(_with_credential("CreateTable", create, "AKIDONE/20250101/us-east-1"))
        assert c.response()[0] == 200
        for key, tables in [("AKIDONE", ["mine"]), ("AKIDTWO", []), ("AKIDONE", ["mine"]), ("AKIDTWO", [])]:
            c.send(_with_credential("ListTables", "{}", f"{key}/20250101/us-east-1"))
            status, _, body = c.response()
            assert status == 200 and as_json(body)["TableNames"] == tables
        c.close()


def test_many_credential_scopes_on_one_connection(conn: Conn) -> None:
    # More scopes than the protocol remembers: each still gets its own answer.
    for i in range(300):
        region = "x_y" if i % 7 == 0 else f"r{i}"
        conn.send(_with_credential("ListTables", "{}", f"AKID{i}/20250101/{region}"))
        status, _, _ = conn.response()
        assert status == (400 if i % 7 == 0 else 200)


# --- limits and time-outs ---------------------------------------------------------------------


def test_an_absurd_content_length_gets_400_and_the_connection_closes(conn: Conn) -> None:
    conn.send(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: " + b"9" * 5000 + b"\r\n\r\n{}")
    status, headers, _ = conn.response()
    assert status == 400 and headers["connection"] == "close"
    assert conn.closed()


def test_a_content_length_over_16_mb_gets_413_before_the_body(conn: Conn) -> None:
    conn.send(request("ListTables", b"", length=False).replace(
        b"\r\n\r\n", b"\r\nContent-Length: %d\r\n\r\n" % (16 * 1024 * 1024 + 1)))
    status, headers, _ = conn.response()
    assert status == 413 and headers["connection"] == "close"


def test_a_chunked_body_over_16_mb_gets_413(conn: Conn) -> None:
    chunk = b" " * (1024 * 1024)
    conn.send(request("ListTables", b"", extra="Transfer-Encoding: chunked\r\n", length=False))
    for _ in range(17):
        conn.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
    status, headers, _ = conn.response()
    assert status == 413 and headers["connection"] == "close"


def test_an_expected_body_over_16_mb_gets_413_instead_of_100(conn: Conn) -> None:
    conn.send(b"POST / HTTP/1.1\r\nHost: x\r\nExpect: 100-continue\r\nContent-Length: %d\r\n\r\n"
              % (16 * 1024 * 1024 + 1))
    assert conn.response()[0] == 413


def test_an_unknown_expectation_gets_417(conn: Conn) -> None:
    conn.send(b"POST / HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nContent-Length: 2\r\n\r\n{}")
    assert conn.response()[0] == 417


def test_an_endless_head_is_refused_before_it_fills_memory(conn: Conn) -> None:
    conn.send(b"POST / HTTP/1.1\r\nHost: x\r\n")
    try:
        for i in range(10_000):  # a megabyte of headers, and never the blank line
            conn.send(b"X-%d: %s\r\n" % (i, b"a" * 100))
    except OSError:  # refused and closed while the client still sends
        pass
    status, headers, _ = conn.response()
    assert status == 400 and headers["connection"] == "close"


@pytest.mark.parametrize(("where", "status"), [(b"URL", 414), (b"value", 400)])
def test_a_long_url_or_header_value_sent_in_pieces_is_refused(conn: Conn, where: bytes, status: int) -> None:
    long = b"a" * 100_000
    data = (b"GET /?" + long + b" HTTP/1.1\r\nHost: x\r\n\r\n" if where == b"URL"
            else b"POST / HTTP/1.1\r\nHost: x\r\nX-Long: " + long + b"\r\n\r\n")
    try:
        for i in range(0, len(data), 4096):
            conn.send(data[i : i + 4096])
    except OSError:  # refused and closed while the client still sends
        pass
    got, headers, _ = conn.response()
    assert got == status and headers["connection"] == "close"


@pytest.mark.parametrize("partial", [b"POST / HTTP/1.1\r\nHost: x\r\n", b"PO", b"GET /_dynemu/clock HTTP/1.1\r\n"])
def test_a_head_not_complete_within_the_request_timeout_closes_the_connection(hasty: Conn, partial: bytes) -> None:
    hasty.send(partial)  # slowloris: the rest of the head never comes (--request-timeout 1)
    status, headers, _ = hasty.response()
    assert status == 408 and headers["connection"] == "close"
    assert hasty.closed()


def test_a_head_trickled_byte_by_byte_is_still_cut_off(hasty: Conn) -> None:
    hasty.send(b"POST / HTTP/1.1\r\nHost: x\r\n")
    with pytest.raises(OSError):  # the server closes while the client still sends
        for _ in range(1000):
            hasty.send(b"X")
            time.sleep(0.01)
            hasty.sock.setblocking(False)
            try:
                if hasty._fill() is False:
                    raise ConnectionResetError("closed")
            except BlockingIOError:
                pass
            finally:
                hasty.sock.setblocking(True)
    assert b"408" in hasty.buf.split(b"\r\n", 1)[0]


# --- framing ----------------------------------------------------------------------------------


def test_a_chunked_body_in_many_segments_and_chunks(conn: Conn) -> None:
    body = b'{"Limit": 1, "ExclusiveStartTableName": "abc"}'
    conn.send(request("ListTables", b"", extra="Transfer-Encoding: chunked\r\n", length=False))
    for i in range(0, len(body), 5):
        conn.send(b"%x\r\n%s\r\n" % (len(body[i : i + 5]), body[i : i + 5]))
        time.sleep(0.002)
    conn.send(b"0\r\n\r\n")
    status, _, answer = conn.response()
    assert status == 200 and "TableNames" in as_json(answer)


def test_expect_100_continue_with_a_chunked_body(conn: Conn) -> None:
    body = b'{"Limit": 1}'
    conn.send(request("ListTables", b"", extra="Transfer-Encoding: chunked\r\nExpect: 100-continue\r\n", length=False))
    assert conn.response()[0] == 100
    conn.send(b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))
    status, _, answer = conn.response()
    assert status == 200 and "TableNames" in as_json(answer)


def test_expect_100_continue_with_the_body_already_sent_gets_only_the_answer(conn: Conn) -> None:
    conn.send(request("ListTables", '{"Limit": 1}', extra="Expect: 100-continue\r\n") + request("ListTables"))
    assert conn.response()[0] == 200
    assert conn.response()[0] == 200


def test_http_1_0_closes_unless_kept_alive(conn: Conn, addr: tuple[str, int]) -> None:
    conn.send(request("ListTables").replace(b"HTTP/1.1", b"HTTP/1.0", 1))
    status, headers, _ = conn.response()
    assert status == 200 and headers["connection"] == "close"
    assert conn.closed()
    kept = Conn(addr)
    for _ in range(2):
        kept.send(request("ListTables", extra="Connection: keep-alive\r\n").replace(b"HTTP/1.1", b"HTTP/1.0", 1))
        status, headers, _ = kept.response()
        assert status == 200 and headers["connection"] == "keep-alive"
    kept.close()


def test_http_1_0_needs_no_host(conn: Conn) -> None:
    conn.send(b"GET / HTTP/1.0\r\n\r\n")
    status, _, body = conn.response()
    assert status == 200 and body == b"healthy:  "


def test_pipelined_requests_of_every_framing_and_the_admin_api_are_answered_in_order(conn: Conn) -> None:
    body = b'{"Limit": 1}'
    chunked = request("ListTables", b"%x\r\n%s\r\n0\r\n\r\n" % (len(body), body),
                      extra="Transfer-Encoding: chunked\r\n", length=False)
    conn.send(request("ListTables") + b"GET /_dynemu/clock HTTP/1.1\r\nHost: localhost\r\n\r\n" + chunked
              + b"GET / HTTP/1.1\r\nHost: h\r\n\r\n" + b"GET /_dynemu/metrics HTTP/1.1\r\nHost: localhost\r\n\r\n"
              + request("DescribeTable", '{"TableName": "nope"}'))
    status, _, answer = conn.response()
    assert status == 200 and "TableNames" in as_json(answer)
    status, _, answer = conn.response()
    assert status == 200 and "now" in as_json(answer)
    status, _, answer = conn.response()
    assert status == 200 and "TableNames" in as_json(answer)
    assert conn.response()[2] == b"healthy: h "
    status, headers, _ = conn.response()
    assert status == 200 and headers["content-type"].startswith("text/plain")
    status, _, answer = conn.response()
    assert status == 400 and as_json(answer)["__type"].endswith("ResourceNotFoundException")


def test_the_admin_api_with_a_chunked_body_and_connection_close(conn: Conn) -> None:
    body = b'{"advance": 0}'
    conn.send(b"POST /_dynemu/clock HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
              b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n%x\r\n%s\r\n0\r\n\r\n" % (len(body), body))
    status, headers, _ = conn.response()
    assert status < 500 and headers["connection"] == "close"
    assert conn.closed()


def test_a_head_request_to_the_admin_api_then_more_requests(conn: Conn) -> None:
    conn.send(b"HEAD /_dynemu/clock HTTP/1.1\r\nHost: localhost\r\n\r\n")
    while b"\r\n\r\n" not in conn.buf:
        assert conn._fill()
    assert conn.buf.startswith(b"HTTP/1.1 200")
    conn.buf = b""  # a HEAD answer has no body, whatever its Content-Length says
    conn.send(request("ListTables"))
    assert conn.response()[0] == 200


def test_an_upgrade_request_is_answered_as_http_1_1(conn: Conn) -> None:
    conn.send(b"GET / HTTP/1.1\r\nHost: h\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n")
    assert conn.response()[0] == 200
    conn.send(request("ListTables"))
    assert conn.response()[0] == 200
