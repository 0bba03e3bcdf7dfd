"""The wire protocol, driven with raw HTTP where boto3 would hide the server's answer."""

from __future__ import annotations

import gzip
import http.client
import json
import zlib
from typing import Any
from urllib.parse import urlparse

import pytest

AUTH = "AWS4-HMAC-SHA256 Credential=AKIDTEST/20250101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x"


def raw(
    url: str,
    body: bytes | str | None,
    target: str | None = "DynamoDB_20120810.ListTables",
    method: str = "POST",
    content_type: str = "application/x-amz-json-1.0",
    auth: str | None = AUTH,
    extra: dict[str, str] | None = None,
) -> tuple[int, dict[str, str], bytes]:
    u = urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    headers = {"Content-Type": content_type}
    if target is not None:
        headers["X-Amz-Target"] = target
    if auth is not None:
        headers["Authorization"] = auth
    headers.update(extra or {})
    if isinstance(body, str):
        body = body.encode()
    conn.request(method, "/", body=body, headers=headers)
    resp = conn.getresponse()
    data = resp.read()
    out = resp.status, {k.lower(): v for k, v in resp.getheaders()}, data
    conn.close()
    return out


def error(data: bytes) -> tuple[str, str | None]:
    body = json.loads(data)
    return body["__type"], body.get("message")


def test_success_headers(server_url: str) -> None:
    status, headers, data = raw(server_url, "{}")
    assert status == 200
    assert headers["content-type"] == "application/x-amz-json-1.0"
    assert len(headers["x-amzn-requestid"]) == 52
    assert int(headers["x-amz-crc32"]) == zlib.crc32(data)
    assert "TableNames" in json.loads(data)


def test_health_check_names_the_host_used(server_url: str) -> None:
    status, _, data = raw(server_url, None, method="GET", target=None)
    host = urlparse(server_url).netloc
    assert status == 200 and data == f"healthy: {host} ".encode()
    status, _, data = raw(server_url, None, method="GET", target=None, extra={"Host": "dynamodb.eu-west-1.amazonaws.com"})
    assert data == b"healthy: dynamodb.eu-west-1.amazonaws.com "


def test_not_json(server_url: str) -> None:
    status, _, data = raw(server_url, "{not json")
    assert status == 400
    assert json.loads(data) == {"__type": "com.amazon.coral.service#SerializationException"}


def test_serialization_exception_says_message_with_a_capital_m(server_url: str) -> None:
    status, _, data = raw(server_url, '{"TableName": 5, "Key": {}}', target="DynamoDB_20120810.GetItem")
    assert status == 400
    assert json.loads(data) == {
        "__type": "com.amazon.coral.service#SerializationException",
        "Message": "NUMBER_VALUE cannot be converted to String",
    }
    status, _, data = raw(server_url, json.dumps({"Limit": 0}))
    assert "message" in json.loads(data) and "Message" not in json.loads(data)


def test_empty_body(server_url: str) -> None:
    status, _, data = raw(server_url, b"")
    assert status == 400 and error(data)[0] == "com.amazon.coral.service#SerializationException"


def test_unknown_operation(server_url: str) -> None:
    for target in ("DynamoDB_20120810.Frobnicate", "Nope.ListTables", "", "ListTables"):
        status, _, data = raw(server_url, "{}", target=target)
        assert status == 400
        assert error(data)[0] == "com.amazon.coral.service#UnknownOperationException"


@pytest.mark.parametrize("body", ["{}", "{not json", "", "null", "[]", '{"TableName": 5}'])
def test_missing_authentication_whatever_the_body(server_url: str, body: str) -> None:
    # The Authorization header is checked before the body is parsed (issue 12).
    status, _, data = raw(server_url, body, auth=None)
    assert status == 400
    assert error(data) == (
        "com.amazon.coral.service#MissingAuthenticationTokenException",
        "Request is missing Authentication Token",
    )


def test_wrong_content_type(server_url: str) -> None:
    status, _, data = raw(server_url, "{}", content_type="text/plain")
    assert status == 404 and data.startswith(b"<UnknownOperationException/>")


def test_validation_namespace(server_url: str) -> None:
    status, _, data = raw(server_url, json.dumps({"Limit": 0}))
    assert status == 400
    t, msg = error(data)
    assert t == "com.amazon.coral.validate#ValidationException"
    assert msg == (
        "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: "
        "Member must have value greater than or equal to 1"
    )


def test_service_error_namespace(server_url: str) -> None:
    status, _, data = raw(server_url, json.dumps({"TableName": "missing"}), target="DynamoDB_20120810.DescribeTable")
    assert status == 400
    assert error(data) == (
        "com.amazonaws.dynamodb.v20120810#ResourceNotFoundException",
        "Requested resource not found: Table: missing not found",
    )


def test_gzip_request_and_response(server_url: str, ddb: Any) -> None:
    for i in range(60):
        ddb.create_table(
            TableName=f"gzip-{i:03d}-" + "x" * 100, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
        )
    try:
        status, headers, data = raw(
            server_url, gzip.compress(b"{}"), extra={"Content-Encoding": "gzip", "Accept-Encoding": "gzip"}
        )
        assert status == 200
        assert headers["content-encoding"] == "gzip"
        assert int(headers["x-amz-crc32"]) == zlib.crc32(data)
        assert len(json.loads(gzip.decompress(data))["TableNames"]) >= 60
    finally:
        for i in range(60):
            ddb.delete_table(TableName=f"gzip-{i:03d}-" + "x" * 100)


def test_body_over_16_mb(server_url: str) -> None:
    status, _, _ = raw(server_url, b"{" + b" " * (16 * 1024 * 1024 + 10) + b"}")
    assert status == 413


def test_gzip_bomb_is_refused(server_url: str) -> None:
    bomb = gzip.compress(b"{" + b" " * (17 * 1024 * 1024) + b"}")
    status, _, _ = raw(server_url, bomb, extra={"Content-Encoding": "gzip"})
    assert status == 413


@pytest.mark.parametrize(
    "body",
    [
        "[]", "1", '"x"', "null", "true",
        '{"TableName": 5, "Key": {"pk": {"S": "a"}}}',
        '{"TableName": "t", "Key": []}',
        '{"TableName": "t", "Key": {"pk": {"S": 1}}}',
        '{"TableName": "t", "Key": {"pk": {"L": {}}}}',
        '{"TableName": "t", "Key": {"pk": {}}}',
        '{"TableName": "t", "Key": {"pk": {"S": "a", "N": "1"}}}',
        '{"TableName": "t", "Key": {"pk": null}}',
        '{"TableName": "t", "Key": {"pk": {"S": "a"}}, "Unknown": {"x": [1, 2]}}',
        '{"TableName": "t", "Key": {"pk": {"N": "not a number"}}}',
        '{"TableName": "t", "Key": {"pk": {"B": "***"}}}',
    ],
)
def test_bad_bodies_never_500(server_url: str, body: str) -> None:
    status, _, data = raw(server_url, body, target="DynamoDB_20120810.GetItem")
    assert status == 400, data
    assert "__type" in json.loads(data)


def test_deep_nesting_never_500(server_url: str, table: str) -> None:
    value = '{"L": [' * 5000 + '{"S": "x"}' + "]}" * 5000
    body = '{"TableName": "' + table + '", "Item": {"pk": {"S": "deep"}, "v": ' + value + "}}"
    status, _, data = raw(server_url, body, target="DynamoDB_20120810.PutItem")
    assert status == 400, data


def test_cors_on_by_default_with_star(server_url: str) -> None:
    _, headers, _ = raw(server_url, "{}", extra={"Origin": "http://example.test"})
    assert headers["access-control-allow-origin"] == "*"


def test_cors_can_be_narrowed_and_switched_off() -> None:
    from dynemu.testing import DynemuServer

    with DynemuServer(cors="http://app.test") as url:
        _, headers, _ = raw(url, "{}", extra={"Origin": "http://app.test"})
        assert headers["access-control-allow-origin"] == "http://app.test"
        _, headers, _ = raw(url, "{}", extra={"Origin": "http://evil.test"})
        assert "access-control-allow-origin" not in headers
    with DynemuServer(cors="off") as url:
        _, headers, _ = raw(url, "{}", extra={"Origin": "http://example.test"})
        assert "access-control-allow-origin" not in headers
        status, _, _ = raw(url, None, method="OPTIONS", target=None, extra={"Origin": "http://x"})
        assert status == 405


def test_cors_preflight() -> None:
    from dynemu.testing import DynemuServer

    with DynemuServer(cors="*") as url:
        _, headers, _ = raw(url, "{}", extra={"Origin": "http://example.test"})
        assert headers["access-control-allow-origin"] == "*"
        status, headers, _ = raw(
            url, None, method="OPTIONS", target=None,
            extra={"Origin": "http://x", "Access-Control-Request-Method": "POST",
                   "Access-Control-Request-Headers": "x-amz-target,content-type"},
        )
        assert status == 200
        assert headers["access-control-allow-headers"] == "x-amz-target,content-type"


@pytest.mark.parametrize("body", ["null", "123", '"x"', "true"])
@pytest.mark.parametrize("target", ["ListTables", "DescribeLimits", "GetItem"])
def test_a_body_that_is_not_an_object_is_refused(server_url: str, target: str, body: str) -> None:
    status, _, data = raw(server_url, body, target=f"DynamoDB_20120810.{target}")
    assert status == 400, data
    assert json.loads(data) == {
        "__type": "com.amazon.coral.service#SerializationException",
        "Message": "Unexpected field type",
    }


def test_nulls_inside_values_never_500(server_url: str, table: str) -> None:
    for item in ('{"pk": {"S": "n"}, "l": {"L": [null]}}', '{"pk": {"S": "n"}, "m": {"M": {"a": null}}}',
                 '{"pk": {"S": "n"}, "x": null}', '{"pk": {"S": "n"}, "s": {"SS": [null]}}'):
        status, _, data = raw(server_url, '{"TableName": "' + table + '", "Item": ' + item + "}",
                              target="DynamoDB_20120810.PutItem")
        assert status in (200, 400), data
