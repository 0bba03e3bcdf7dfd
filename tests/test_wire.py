"""The wire edges of issue 12 and 17: content codings, regions, signatures, stalled clients."""

from __future__ import annotations

import gzip
import json
import socket
import time
import zlib
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlparse

import botocore.auth
import botocore.awsrequest
import botocore.credentials
import pytest

from dynemu.config import SettingsError
from dynemu.testing import DynemuServer
from tests.conftest import make_client
from tests.test_protocol import raw

SER = "com.amazon.coral.service#SerializationException"
BIG = json.dumps({"ExclusiveStartTableName": "a" * 10}).encode()


def _body(data: bytes) -> dict[str, Any]:
    return json.loads(data)


# --- request content codings ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("coding", "encode"),
    [
        ("gzip", gzip.compress),
        ("x-gzip", gzip.compress),
        ("deflate", zlib.compress),
        ("deflate", lambda b: zlib.compress(b)[2:-4]),  # raw deflate, as some clients send
        ("identity", lambda b: b),
        ("gzip, identity", gzip.compress),
    ],
)
def test_compressed_request_bodies_are_decoded(server_url: str, coding: str, encode: Any) -> None:
    status, _, data = raw(server_url, encode(b'{"Limit": 1}'), extra={"Content-Encoding": coding})
    assert status == 200, data
    assert "TableNames" in _body(data)


@pytest.mark.parametrize("coding", ["br", "compress"])
def test_an_unknown_coding_is_refused_never_guessed_at(server_url: str, coding: str) -> None:
    status, _, data = raw(server_url, b'{"Limit": 1}', extra={"Content-Encoding": coding})
    assert status == 400, data
    assert _body(data) == {"__type": SER}


@pytest.mark.parametrize(
    ("coding", "body"),
    [
        ("gzip", b""),  # empty
        ("gzip", gzip.compress(b'{"Limit": 1}')[:-6]),  # truncated
        ("gzip", b'{"Limit": 1}'),  # not gzip at all
        ("deflate", b"\x00\x01garbage"),
        ("gzip", gzip.compress(b'{"Limit": 1}') + b"trailing"),
    ],
)
def test_a_body_not_in_its_coding_is_the_services_internal_error(server_url: str, coding: str, body: bytes) -> None:
    # issue 24: the service answers a body it cannot decode with 500 InternalServerError
    status, _, data = raw(server_url, body, extra={"Content-Encoding": coding})
    assert status == 500, data
    assert _body(data) == {"__type": "com.amazonaws.dynamodb.v20120810#InternalServerError",
                           "message": "Internal server error"}


# --- response compression ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def many_tables(server_url: str) -> Iterator[None]:
    ddb = make_client(server_url)
    names = [f"wire-{i:03d}-" + "y" * 120 for i in range(40)]  # over 4 KB: compressed
    for name in names:
        ddb.create_table(
            TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
        )
    yield
    for name in names:
        ddb.delete_table(TableName=name)


def _accept(url: str, *values: str) -> tuple[dict[str, str], bytes]:
    import http.client

    u = urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    conn.putrequest("POST", "/", skip_accept_encoding=True)
    for name, value in [
        ("Content-Type", "application/x-amz-json-1.0"),
        ("X-Amz-Target", "DynamoDB_20120810.ListTables"),
        ("Authorization", "AWS4-HMAC-SHA256 Credential=AKIDTEST/20250101/us-east-1/dynamodb/aws4_request, x"),
        ("Content-Length", "2"),
        *(("Accept-Encoding", v) for v in values),
    ]:
        conn.putheader(name, value)
    conn.endheaders(b"{}")
    resp = conn.getresponse()
    data = resp.read()
    headers = {k.lower(): v for k, v in resp.getheaders()}
    conn.close()
    assert resp.status == 200
    assert int(headers["x-amz-crc32"]) == zlib.crc32(data)  # of the bytes sent
    return headers, data


@pytest.mark.usefixtures("many_tables")
@pytest.mark.parametrize(
    ("accept", "coding"),
    [
        (["gzip"], "gzip"),
        (["x-gzip"], None),  # not a coding the service answers with (issue 44)
        (["deflate"], "deflate"),
        (["gzip;q=0.2, deflate;q=0.8"], "deflate"),
        (["deflate;q=0.5", "gzip"], "deflate"),  # several headers: the first counts (issue 44)
        (["gzip;q=0, deflate;q=0"], None),
        (["identity"], None),
        (["br"], None),
        (["*"], "gzip"),
        (["gzip;q=0", "*"], None),
        (["gzip;q=0, *"], "deflate"),
    ],
)
def test_responses_are_compressed_as_accept_encoding_asks(
    server_url: str, accept: list[str], coding: str | None
) -> None:
    headers, data = _accept(server_url, *accept)
    assert headers.get("content-encoding") == coding
    if coding in ("gzip", "x-gzip"):
        data = gzip.decompress(data)
    elif coding == "deflate":
        data = zlib.decompress(data)
    assert len(_body(data)["TableNames"]) >= 40


def test_small_responses_are_not_compressed(server_url: str) -> None:
    status, headers, data = raw(server_url, '{"Limit": 1}', extra={"Accept-Encoding": "gzip"})
    assert status == 200 and "content-encoding" not in headers


# --- regions -----------------------------------------------------------------------------------


def _auth(region: str, key: str = "AKIDTEST") -> str:
    return f"AWS4-HMAC-SHA256 Credential={key}/20260101/{region}/dynamodb/aws4_request, SignedHeaders=host, Signature=x"


@pytest.mark.parametrize("region", ["..", ".", "a" * 300, "x y", "-a", "é", "a_b", "a.b"])
def test_invalid_regions_are_refused(server_url: str, region: str) -> None:
    status, _, data = raw(server_url, "{}", auth=_auth(region))
    assert status == 400, data
    shown = region if len(region) <= 64 else region[:64] + "..."
    if not region.isascii():  # sent as Latin-1 bytes, quoted back as UTF-8 replacement characters
        shown = "\ufffd"
    assert _body(data) == {
        "__type": "com.amazon.coral.service#InvalidSignatureException",
        "message": f"Credential should be scoped to a valid region, not '{shown}'.",
    }


@pytest.mark.parametrize("key", ["", "a b", "é", "A" * 129])
def test_access_keys_no_account_could_have_are_unrecognized(server_url: str, key: str) -> None:
    status, _, data = raw(server_url, "{}", auth=_auth("us-east-1", key))
    assert (status, _body(data)) == (400, {
        "__type": "com.amazon.coral.service#UnrecognizedClientException",
        "message": "The security token included in the request is invalid.",
    })


# A namespace's directory is made by its first write (reads make none).
_CREATE = json.dumps({
    "TableName": "tab", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
    "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}], "BillingMode": "PAY_PER_REQUEST",
})
_CREATE_TARGET = "DynamoDB_20120810.CreateTable"


def test_odd_access_keys_get_digests_under_isolate_access_keys(tmp_path: Any) -> None:
    with DynemuServer(data_dir=str(tmp_path), isolate_access_keys=True) as url:
        for key in ("..", "AKID", ".", "A.B"):
            assert raw(url, _CREATE, target=_CREATE_TARGET, auth=_auth("local", key))[0] == 200
    names = sorted(p.name for p in tmp_path.iterdir() if p.is_dir())
    assert "AKID_local" in names and len(names) == 4
    assert all(n == "AKID_local" or (n.startswith("x") and n.endswith("_local")) for n in names)


def test_a_region_can_never_leave_the_data_directory(tmp_path: Any) -> None:
    data_dir = tmp_path / "data"
    with DynemuServer(data_dir=str(data_dir)) as url:
        for region in ("..", ".", "../../tmp/x", "a" * 300):
            status, _, _ = raw(url, "{}", target="DynamoDB_20120810.CreateTable", auth=_auth(region))
            assert status == 400
        for region in ("US-EAST-1", "local", "Local"):
            status, _, data = raw(url, _CREATE, target=_CREATE_TARGET, auth=_auth(region))
            assert status == 200, data
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]
    names = sorted(p.name for p in data_dir.iterdir() if p.is_dir())  # namespaces (not the lock file)
    assert "local" in names and len(names) == 3  # US-EAST-1 and Local get digests: no case collision
    assert all(n == "local" or (n.startswith("x") and len(n) == 25) for n in names)


# --- a stalled client -----------------------------------------------------------------------------


def test_a_stalled_client_is_dropped_without_affecting_others() -> None:
    with DynemuServer(request_timeout=1.0) as url:
        u = urlparse(url)
        stalled = socket.create_connection((u.hostname, u.port), timeout=60)
        stalled.sendall(
            b"POST / HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-amz-json-1.0\r\n"
            b"X-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 100\r\n\r\n{"
        )
        # Another client is served while the first one stalls.
        status, _, _ = raw(url, "{}")
        assert status == 200
        answer = b""
        while chunk := stalled.recv(65536):  # the server answers 408, then closes
            answer += chunk
        stalled.close()
        assert answer.startswith(b"HTTP/1.1 408")
        status, _, _ = raw(url, "{}")
        assert status == 200


# --- signature verification ---------------------------------------------------------------------

SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"


def _signed(url: str, body: bytes, key: str, secret: str, when: float | None = None) -> dict[str, str]:
    """Headers signed by botocore's own SigV4 signer (the reference)."""
    request = botocore.awsrequest.AWSRequest(
        method="POST", url=url + "/", data=body,
        headers={"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.ListTables"},
    )
    signer = botocore.auth.SigV4Auth(botocore.credentials.Credentials(key, secret), "dynamodb", "us-east-1")
    if when is not None:
        import datetime as dt
        from unittest import mock

        fixed = dt.datetime.fromtimestamp(when, dt.UTC).replace(tzinfo=None)
        with mock.patch("botocore.auth.get_current_datetime", return_value=fixed):
            signer.add_auth(request)
    else:
        signer.add_auth(request)
    return dict(request.headers.items())


@pytest.fixture(scope="module")
def verifying(tmp_path_factory: Any) -> Iterator[str]:
    path = tmp_path_factory.mktemp("creds") / "credentials"
    path.write_text(f"[default]\naws_access_key_id = AKIAEXAMPLE\naws_secret_access_key = {SECRET}\n")
    with DynemuServer(verify_signatures=True, credentials_file=str(path)) as url:
        yield url


def _post(url: str, headers: dict[str, str], body: bytes) -> tuple[int, dict[str, Any]]:
    status, _, data = raw(url, body, auth=None, extra=headers)
    return status, _body(data)


def test_a_valid_signature_is_accepted(verifying: str) -> None:
    body = b'{"Limit": 1}'
    status, data = _post(verifying, _signed(verifying, body, "AKIAEXAMPLE", SECRET), body)
    assert status == 200 and "TableNames" in data
    # and boto3 itself, with the right secret
    ddb = make_client(verifying, key="AKIAEXAMPLE")
    ddb._request_signer._credentials = botocore.credentials.Credentials("AKIAEXAMPLE", SECRET)
    assert "TableNames" in ddb.list_tables()


def test_an_unknown_access_key_is_unrecognized(verifying: str) -> None:
    body = b"{}"
    status, data = _post(verifying, _signed(verifying, body, "AKIAUNKNOWN", SECRET), body)
    assert (status, data) == (400, {
        "__type": "com.amazon.coral.service#UnrecognizedClientException",
        "message": "The security token included in the request is invalid.",
    })


def test_a_wrong_secret_or_a_changed_body_is_an_invalid_signature(verifying: str) -> None:
    body = b"{}"
    expected = {
        "__type": "com.amazon.coral.service#InvalidSignatureException",
        "message": "The request signature we calculated does not match the signature you provided. "
        "Check your AWS Secret Access Key and signing method. Consult the service documentation for details.",
    }
    assert _post(verifying, _signed(verifying, body, "AKIAEXAMPLE", "wrong"), body) == (400, expected)
    headers = _signed(verifying, body, "AKIAEXAMPLE", SECRET)
    assert _post(verifying, headers, b'{"Limit": 2}') == (400, expected)


def test_dates_too_old_or_too_far_ahead_are_refused(verifying: str) -> None:
    body = b"{}"
    old = time.time() - 3600
    status, data = _post(verifying, _signed(verifying, body, "AKIAEXAMPLE", SECRET, when=old), body)
    assert status == 400 and data["__type"] == "com.amazon.coral.service#InvalidSignatureException"
    signed = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(old))
    assert data["message"].startswith(f"Signature expired: {signed} is now earlier than ")
    assert data["message"].endswith(" - 15 min.)")
    ahead = time.time() + 3600
    status, data = _post(verifying, _signed(verifying, body, "AKIAEXAMPLE", SECRET, when=ahead), body)
    signed = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(ahead))
    assert data["message"].startswith(f"Signature not yet current: {signed} is still later than ")
    assert data["message"].endswith(" + 15 min.)")


def test_signatures_are_not_checked_by_default(server_url: str) -> None:
    status, _, _ = raw(server_url, "{}")  # Signature=x
    assert status == 200


# --- null inside containers, over HTTP (issue 17) ----------------------------------------------

NOT_NULL = "failed to satisfy constraint: Member must not be null"


@pytest.mark.parametrize(
    ("target", "body", "path"),
    [
        ("BatchGetItem", {"RequestItems": {"tab": None}}, "requestItems.tab.member"),
        ("BatchWriteItem", {"RequestItems": {"tab": None}}, "requestItems.tab.member"),
        ("BatchWriteItem", {"RequestItems": {"tab": [None]}}, "requestItems.tab.member.1.member"),
        ("TransactWriteItems", {"TransactItems": [None]}, "transactItems.1.member"),
        ("GetItem", {"TableName": "tab", "Key": {"pk": {"S": "a"}}, "ProjectionExpression": "#a",
                     "ExpressionAttributeNames": {"#a": None}}, "expressionAttributeNames.#a.member"),
    ],
)  # fmt: skip
def test_null_in_a_container_is_a_validation_error(server_url: str, target: str, body: Any, path: str) -> None:
    status, _, data = raw(server_url, json.dumps(body), target=f"DynamoDB_20120810.{target}")
    assert (status, _body(data)) == (400, {
        "__type": "com.amazon.coral.validate#ValidationException",
        "message": f"1 validation error detected: Value null at '{path}' {NOT_NULL}",
    })


def test_a_number_whose_exponent_overflows_gets_dynamodbs_number_error(server_url: str, table: str) -> None:
    body = {"TableName": table, "Item": {"pk": {"S": "n"}, "v": {"N": "1e+99999999999999999999"}}}
    status, _, data = raw(server_url, json.dumps(body), target="DynamoDB_20120810.PutItem")
    assert (status, _body(data)) == (400, {
        "__type": "com.amazon.coral.validate#ValidationException",
        # an exponent past a 32-bit integer overflows, in PutItem's envelope (issue 36)
        "message": "1 validation error detected: Number overflow. Attempting to store a number with magnitude "
                   "larger than supported range",
    })
    body["Item"]["v"] = {"N": "1e999999"}
    status, _, data = raw(server_url, json.dumps(body), target="DynamoDB_20120810.PutItem")
    assert _body(data)["message"] == (
        "1 validation error detected: Number overflow. Attempting to store a number with magnitude larger than "
        "supported range"
    )


def test_credentials_from_a_file_of_key_secret_lines_and_from_the_environment(tmp_path: Any) -> None:
    from dynemu.api import sigv4

    path = tmp_path / "keys"
    path.write_text("# local keys\nAKIAONE:secret-one\nAKIATWO : secret:two\n")
    creds = sigv4.load_credentials(str(path), {"AWS_ACCESS_KEY_ID": "AKIAENV", "AWS_SECRET_ACCESS_KEY": "env"})
    assert creds == {"AKIAONE": "secret-one", "AKIATWO": "secret:two", "AKIAENV": "env"}
    with pytest.raises(SettingsError, match="--verify-signatures needs credentials"):
        sigv4.credentials_for(None, {})


def test_an_incomplete_authorization_header() -> None:
    from dynemu.api import sigv4
    from dynemu.errors import DynamoError

    auth = "AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE/20260101/us-east-1/dynamodb/aws4_request"
    with pytest.raises(DynamoError) as info:
        sigv4.verify(auth, method="POST", path="/", query="", headers={"x-amz-date": ["20260101T000000Z"]},
                     body=b"{}", credentials={"AKIAEXAMPLE": SECRET})  # fmt: skip
    assert info.value.type_name == "IncompleteSignatureException"
    assert info.value.message == (
        "Authorization header requires 'Signature' parameter. Authorization header requires 'SignedHeaders' "
        f"parameter. Authorization={auth}"
    )


def test_a_bad_signature_after_a_good_one_with_the_same_scope_is_still_refused(verifying: str) -> None:
    # The credential scope's parse is remembered; the signature is checked on every request.
    body = b"{}"
    good = _signed(verifying, body, "AKIAEXAMPLE", SECRET)
    assert _post(verifying, good, body)[0] == 200
    bad = dict(good, Authorization=good["Authorization"][:-4] + "0000")
    status, data = _post(verifying, bad, body)
    assert (status, data["__type"]) == (400, "com.amazon.coral.service#InvalidSignatureException")
    assert _post(verifying, good, body)[0] == 200
    assert _post(verifying, _signed(verifying, body, "AKIAUNKNOWN", SECRET), body)[0] == 400
