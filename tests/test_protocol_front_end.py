"""The pieces the HTTP connections hand to the dispatcher, in-process: the Headers a request
carries and the response bytes. What the server answers over sockets is in test_http.py."""

from __future__ import annotations

from dynemu.api import http
from dynemu.api.protocol import Headers, Reply


def test_headers_read_repeated_names_and_only_lower_case_keys() -> None:
    headers = Headers([("Host", "a"), ("Accept-Encoding", "br"), ("accept-encoding", "gzip"), ("X-B", "1")])
    assert headers.repeated and headers.getall("Accept-Encoding") == ["br", "gzip"] == headers.getall("accept-encoding")
    assert headers.getall("x-b") == ["1"] and headers.getall("x-c") == []
    assert headers.get("accept-encoding") == "br" and "host" in headers and "Host" not in headers
    assert headers.pairs == [("host", "a"), ("accept-encoding", "br"), ("x-b", "1"), ("accept-encoding", "gzip")]
    single = Headers([("Host", "a"), ("X-B", "1")])
    assert not single.repeated and single.getall("X-B") == ["1"]
    assert Headers([("X-B", "1"), ("x-b", "2")]) == {"x-b": "1"} and Headers([("X-B", "1"), ("x-b", "2")]).repeated


def test_a_response_says_its_length_and_how_the_connection_goes_on() -> None:
    data = http.render(Reply(200, [("Content-Type", "text/plain")], b"ok"), http.PERSIST)
    head, _, body = data.partition(b"\r\n\r\n")
    lines = head.split(b"\r\n")
    assert lines[0] == b"HTTP/1.1 200 OK" and b"Content-Type: text/plain" in lines
    assert b"Content-Length: 2" in lines and body == b"ok" and not any(x.startswith(b"Connection") for x in lines)
    assert b"\r\nConnection: close\r\n\r\n" in http.render(Reply(408, [], b""), http.CLOSE)
    assert b"\r\nConnection: keep-alive\r\n\r\n" in http.render(Reply(200, [], b""), http.KEEP_ALIVE)
    assert http.render(Reply(599, [], b""), http.CLOSE).startswith(b"HTTP/1.1 599 \r\n")  # an unnamed status
