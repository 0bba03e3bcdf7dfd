"""Issue 24, the wire (items 22-26): compressed requests and responses, CORS's exposed headers,
the Server header, and the texts of invalid base64. Raw HTTP throughout: boto3 neither
compresses nor sends invalid base64, and hides the headers."""

from __future__ import annotations

import gzip
import http.client
import json
import socket
import zlib
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import pytest

from dynemu.testing import DynemuServer
from tests.conftest import make_client
from tests.test_protocol import AUTH

SER = "com.amazon.coral.service#SerializationException"
INTERNAL = {"__type": "com.amazonaws.dynamodb.v20120810#InternalServerError", "message": "Internal server error"}
TABLE = "wire24"


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with DynemuServer() as u:
        ddb = make_client(u)
        ddb.create_table(TableName=TABLE, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         BillingMode="PAY_PER_REQUEST")
        yield u


def post(url: str, op: str, body: bytes | dict[str, Any], headers: list[tuple[str, str]] | None = None,
         ) -> tuple[int, dict[str, str], bytes]:
    """One request with exactly these headers (http.client adds no Accept-Encoding)."""
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    u = urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    conn.putrequest("POST", "/", skip_accept_encoding=True)
    for name, value in [("Content-Type", "application/x-amz-json-1.0"), ("X-Amz-Target", f"DynamoDB_20120810.{op}"),
                        ("Authorization", AUTH), ("Content-Length", str(len(data))), *(headers or [])]:
        conn.putheader(name, value)
    conn.endheaders(data)
    resp = conn.getresponse()
    out = resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    conn.close()
    return out


def _item(url: str, pk: str) -> dict[str, Any]:
    status, _, data = post(url, "GetItem", {"TableName": TABLE, "Key": {"pk": {"S": pk}}, "ConsistentRead": True})
    assert status == 200, data
    return json.loads(data)


# --- 22. compressed requests ---------------------------------------------------------------------


def _put(pk: str) -> bytes:
    return json.dumps({"TableName": TABLE, "Item": {"pk": {"S": pk}, "v": {"S": "x" * 50}}}).encode()


@pytest.mark.parametrize(("coding", "broken"), [
    ("gzip", lambda b: gzip.compress(b)[:-8]),  # truncated
    ("gzip", lambda b: b""),  # empty
    ("gzip", lambda b: b),  # not compressed at all
    ("gzip", lambda b: gzip.compress(b)[:10] + b"\xff" * 20 + gzip.compress(b)[30:]),  # corrupt
    ("deflate", lambda b: zlib.compress(b)[:-5]),
    ("deflate", lambda b: b"\x00\x01broken"),
])
def test_a_broken_compressed_body_is_500_and_not_applied(url: str, coding: str, broken: Any) -> None:
    pk = f"broken-{coding}-{len(broken(b'abcd'))}"
    status, _, data = post(url, "PutItem", broken(_put(pk)), [("Content-Encoding", coding)])
    assert status == 500, data
    assert json.loads(data) == INTERNAL
    assert _item(url, pk) == {}


def test_concatenated_gzip_members_are_one_body(url: str) -> None:
    body = _put("members")
    status, _, data = post(url, "PutItem", gzip.compress(body[:20]) + gzip.compress(body[20:]),
                           [("Content-Encoding", "gzip")])
    assert status == 200, data
    assert _item(url, "members")["Item"]["v"] == {"S": "x" * 50}


@pytest.mark.parametrize("coding", ["br", "zstd", "compress"])
def test_an_unsupported_coding_is_refused_and_not_applied(url: str, coding: str) -> None:
    status, _, data = post(url, "PutItem", _put(f"coding-{coding}"), [("Content-Encoding", coding)])
    assert status == 400, data
    assert json.loads(data) == {"__type": SER}
    assert _item(url, f"coding-{coding}") == {}


# --- 23. compressed responses --------------------------------------------------------------------


def _sized(url: str, size: int) -> str:
    """The key of an item whose GetItem answer is exactly ``size`` bytes uncompressed."""
    pk = f"sized-{size}"
    base = len(json.dumps({"Item": {"pk": {"S": pk}, "v": {"S": ""}}}, separators=(",", ":")))
    status, _, data = post(url, "PutItem", {"TableName": TABLE, "Item": {"pk": {"S": pk}, "v": {"S": "v" * (size - base)}}})
    assert status == 200, data
    status, headers, data = post(url, "GetItem", {"TableName": TABLE, "Key": {"pk": {"S": pk}}})
    assert len(data) == size and "content-encoding" not in headers
    return pk


def _get(url: str, pk: str, accept: list[str]) -> tuple[str | None, bytes]:
    status, headers, data = post(url, "GetItem", {"TableName": TABLE, "Key": {"pk": {"S": pk}}},
                                 [("Accept-Encoding", a) for a in accept])
    assert status == 200
    assert int(headers["x-amz-crc32"]) == zlib.crc32(data)  # of the bytes sent
    coding = headers.get("content-encoding")
    if coding == "gzip":
        data = gzip.decompress(data)
    elif coding == "deflate":
        data = zlib.decompress(data)
    return coding, data


def test_only_bodies_over_4_kb_are_compressed(url: str) -> None:
    at, over = _sized(url, 4096), _sized(url, 4097)
    assert _get(url, at, ["gzip"])[0] is None
    coding, data = _get(url, over, ["gzip"])
    assert coding == "gzip" and len(data) == 4097


@pytest.mark.parametrize(("accept", "coding"), [
    (["gzip"], "gzip"),
    (["deflate"], "deflate"),
    (["gzip;q=0.3, deflate;q=0.9"], "deflate"),
    (["gzip;q=0"], None),
    (["gzip;q=0, deflate;q=0"], None),
    (["identity"], None),
    (["gzip;q=0.5, identity"], "gzip"),  # identity is ignored (issue 44)
    (["identity;q=0.2, gzip"], "gzip"),
    (["identity", "gzip;q=0.8"], None),  # repeated header: the first counts (issue 44)
    (["gzip;q=0.1", "deflate;q=0.5"], "gzip"),
    (["*;q=0"], None),
    (["br"], None),
])
def test_accept_encoding_q_values_identity_and_repeats(url: str, accept: list[str], coding: str | None) -> None:
    pk = _sized(url, 6000)
    got, data = _get(url, pk, accept)
    assert got == coding
    assert len(data) == 6000


def test_nothing_is_compressed_unless_asked(url: str) -> None:
    pk = _sized(url, 20000)
    assert _get(url, pk, [])[0] is None


# --- 24, 25. CORS's exposed headers, the Server header -------------------------------------------

EXPOSED = "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date,x-amz-crc32"


def test_cors_answers_expose_the_headers_sdks_read(url: str) -> None:
    for op, body in (("ListTables", {}), ("DescribeTable", {"TableName": "missing"})):
        _, headers, _ = post(url, op, body, [("Origin", "http://app.test")])
        assert headers["access-control-allow-origin"] == "*"
        assert headers["access-control-expose-headers"] == EXPOSED
    _, headers, _ = post(url, "ListTables", {})
    assert "access-control-expose-headers" not in headers  # not a CORS request


def _raw(url: str, data: bytes) -> tuple[int, dict[str, str]]:
    u = urlparse(url)
    with socket.create_connection((u.hostname, u.port), timeout=30) as s:
        s.sendall(data)
        got = b""
        while b"\r\n\r\n" not in got:
            chunk = s.recv(65536)
            assert chunk
            got += chunk
    lines = got.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return int(lines[0].split()[1]), headers


@pytest.mark.parametrize(("request_bytes", "status"), [
    (b"GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", 200),  # health check
    (b"OPTIONS / HTTP/1.1\r\nHost: h\r\nOrigin: http://a.test\r\nConnection: close\r\n\r\n", 200),  # preflight
    (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}", 404),
    (b"NOT HTTP AT ALL\r\n\r\n", 400),  # refused by the framing
    (b"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999\r\n\r\n", 413),
])
def test_every_answer_names_its_server(url: str, request_bytes: bytes, status: int) -> None:
    got, headers = _raw(url, request_bytes)
    assert got == status
    assert headers["server"] == "Server"


def test_api_answers_name_their_server(url: str) -> None:
    for op, body, status in (("ListTables", {}, 200), ("DescribeTable", {"TableName": "missing"}, 400)):
        got, headers, _ = post(url, op, body)
        assert got == status and headers["server"] == "Server"


# --- 26. invalid base64 ----------------------------------------------------------------------------


def _blob(value: str, detail: str) -> str:
    return f"'{value}' can not be converted to a Blob: {detail}"


LENGTH = "Base64 encoded length is expected a multiple of 4 bytes but found: {}"
LAST = "Invalid last non-pad Base64 character dectected"  # sic, the service's spelling


@pytest.mark.parametrize(("value", "detail"), [
    ("YWJjZA=", LENGTH.format(7)),
    ("abc", LENGTH.format(3)),
    ("ab!=", "Invalid Base64 character: '!'"),
    ("YQ=a", "Invalid Base64 character: '='"),
    ("YR==", LAST),
    ("YWJ=", LAST),
    ("====", LAST),
])
@pytest.mark.parametrize("where", ["B", "BS", "key", "value"])
def test_invalid_base64_gets_the_services_text(url: str, value: str, detail: str, where: str) -> None:
    if where == "B":
        op, body = "PutItem", {"TableName": TABLE, "Item": {"pk": {"S": "b64"}, "a": {"B": value}}}
    elif where == "BS":
        op, body = "PutItem", {"TableName": TABLE, "Item": {"pk": {"S": "b64"}, "a": {"BS": ["QQ==", value]}}}
    elif where == "key":
        op, body = "GetItem", {"TableName": TABLE, "Key": {"pk": {"B": value}}}
    else:
        op, body = "UpdateItem", {"TableName": TABLE, "Key": {"pk": {"S": "b64"}}, "UpdateExpression": "SET a = :v",
                                  "ExpressionAttributeValues": {":v": {"B": value}}}
    status, _, data = post(url, op, body)
    assert status == 400
    assert json.loads(data) == {"__type": SER, "Message": _blob(value, detail)}
    assert _item(url, "b64") == {}
