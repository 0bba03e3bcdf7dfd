"""Issue 44's wire details, over raw HTTP: CORS on the preflight, response compression as
DynamoDB negotiates it (one table, the issue's rows), and the malformed-ARN message of the
tagging operations."""

from __future__ import annotations

import gzip
import json
import socket
import zlib
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import pytest

from dynemu.testing import DynemuServer
from tests.conftest import make_client
from tests.test_fidelity24b_wire import EXPOSED, post

TABLE = "wire44"
SIZE = 6000  # an answer over the 4 KB threshold


@pytest.fixture(scope="module")
def url() -> Iterator[str]:
    with DynemuServer() as u:
        ddb = make_client(u)
        ddb.create_table(TableName=TABLE, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                         BillingMode="PAY_PER_REQUEST")
        ddb.put_item(TableName=TABLE, Item={"pk": {"S": "big"}, "v": {"S": "v" * SIZE}})
        yield u


# --- CORS --------------------------------------------------------------------------------------


def _preflight(url: str, extra: bytes) -> dict[str, str]:
    u = urlparse(url)
    with socket.create_connection((u.hostname, u.port), timeout=30) as s:
        s.sendall(b"OPTIONS / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nOrigin: http://app.test\r\n" + extra
                  + b"\r\n")
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    head = data.split(b"\r\n\r\n", 1)[0].decode()
    status, *lines = head.split("\r\n")
    assert status.split()[1] == "200", status
    return {k.strip().lower(): v.strip() for k, v in (line.split(":", 1) for line in lines)}


def test_the_preflight_exposes_headers_and_echoes_what_was_asked(url: str) -> None:
    headers = _preflight(url, b"Access-Control-Request-Method: POST\r\n"
                              b"Access-Control-Request-Headers: x-amz-target,content-type\r\n")
    assert headers["access-control-allow-origin"] == "*"
    assert headers["access-control-expose-headers"] == EXPOSED
    assert headers["access-control-max-age"] == "172800"
    assert headers["access-control-allow-methods"] == "POST"
    assert headers["access-control-allow-headers"] == "x-amz-target,content-type"


def test_other_answers_expose_headers_without_max_age(url: str) -> None:
    _, headers, _ = post(url, "ListTables", {}, [("Origin", "http://app.test")])
    assert headers["access-control-expose-headers"] == EXPOSED
    assert "access-control-max-age" not in headers


# --- Accept-Encoding ------------------------------------------------------------------------------

# header values (several: several Accept-Encoding headers) -> the coding DynamoDB answers with
ROWS: list[tuple[list[str], str | None]] = [
    (["identity"], None), ([""], None), (["br"], None), (["zstd"], None), (["compress"], None), (["x-gzip"], None),
    (["gzip, deflate"], "gzip"), (["br, identity, deflate, gzip"], "deflate"),
    (["GZIP, identity"], "gzip"), (["dog, gzip ,, cat"], "gzip"),
    (["gzip;q=0.8, deflate;q=0.5"], "gzip"), (["br, gzip;q=0, deflate; q = 0.5 , identity;q=0"], "deflate"),
    (["gzip ;q=0"], None), (["identity;q=0"], None), (["*;q=0"], None),
    (["gzip;q=0.5,identity;q=0.8"], "gzip"), (["br,identity;q=0.5,gzip;q=0.0001"], "gzip"),
    (["*"], "gzip"), (["*, deflate;q=0.5"], "gzip"), (["*, deflate"], "deflate"), (["*, identity"], "gzip"),
    (["*, gzip;q=0.5"], "deflate"), (["*;q=0.5,identity"], "gzip"), (["br;q=0.8,identity;q=0.5,*;q=0"], None),
    (['"gzip"'], None), (["gzip br"], None), (["gzip:q=1"], None),
    (["deflate;q=0.5, gzip;q=31"], "gzip"), (["deflate;q=0.5, gzip;q=1;q=0.2"], "gzip"),
    (["gzip;q=0.x"], "gzip"), (["deflate;q=-0.5,gzip;q=0.2"], "gzip"),
    (["gzip;q= 0;q=1"], None), (["gzip;q =0;q=1"], "gzip"), (["gzip; q=0;q=1"], None), (["gzip;nq=0;q=1"], None),
    (["gzip;q=0, gzip;q=1, gzip;q=0"], "gzip"),
    (["identity", "gzip"], None), (["gzip", "identity"], "gzip"),
]  # fmt: skip


def test_responses_are_compressed_as_dynamodb_negotiates(url: str) -> None:
    body = {"TableName": TABLE, "Key": {"pk": {"S": "big"}}}
    plain: bytes | None = None
    for accept, expected in ROWS:
        status, headers, data = post(url, "GetItem", body, [("Accept-Encoding", a) for a in accept])
        assert status == 200
        got = headers.get("content-encoding")
        assert got == expected, (accept, got)
        assert int(headers["x-amz-crc32"]) == zlib.crc32(data)  # of the bytes sent
        if got == "gzip":
            data = gzip.decompress(data)
        elif got == "deflate":
            data = zlib.decompress(data)
        plain = plain or data
        assert data == plain and len(json.loads(data)["Item"]["v"]["S"]) == SIZE


# --- malformed ARNs -------------------------------------------------------------------------------


@pytest.mark.parametrize("operation", ["TagResource", "UntagResource", "ListTagsOfResource"])
@pytest.mark.parametrize("arn", ["notanarn", "table/x", "ARN:aws:dynamodb:us-east-1:000000000000:table/wire44"])
def test_an_arn_not_starting_arn_colon(url: str, operation: str, arn: str) -> None:
    body: dict[str, Any] = {"ResourceArn": arn}
    if operation == "TagResource":
        body["Tags"] = [{"Key": "k", "Value": "v"}]
    elif operation == "UntagResource":
        body["TagKeys"] = ["k"]
    status, _, data = post(url, operation, body)
    assert status == 400
    assert json.loads(data) == {
        "__type": "com.amazon.coral.validate#ValidationException",
        "message": f"One or more parameter values were invalid: ARNs must start with 'arn:': {arn}",
    }
