"""The admin API refuses what a web page could forge (issue 17), and its ?region= is checked."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest

from dynemu.testing import DynemuServer
from tests.test_protocol import raw as _raw


def call(url: str, path: str, body: bytes | None = None, **headers: str) -> tuple[int, Any]:
    import http.client
    from urllib.parse import urlparse

    u = urlparse(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    conn.request("POST" if body is not None else "GET", path, body=body, headers=headers)
    resp = conn.getresponse()
    data = resp.read()
    conn.close()
    try:
        return resp.status, json.loads(data)
    except ValueError:
        return resp.status, data


@pytest.fixture(scope="module")
def virtual() -> Iterator[tuple[str, Any]]:
    server = DynemuServer(clock="virtual", cors="*")
    url = server.start()
    try:
        yield url, server.app
    finally:
        server.stop()


def now(url: str) -> float:
    return call(url, "/_dynemu/clock")[1]["now"]


def test_a_text_plain_post_does_not_move_the_clock(virtual: tuple[str, Any]) -> None:
    url, _ = virtual
    before = now(url)
    status, body = call(url, "/_dynemu/clock", b'{"advance": 86400}', **{"Content-Type": "text/plain"})
    assert status == 415 and "application/json" in body["error"]
    status, body = call(url, "/_dynemu/clock", b'{"advance": 86400}')  # no content type at all
    assert status == 415
    assert now(url) == before
    status, body = call(url, "/_dynemu/clock", b'{"advance": 10}', **{"Content-Type": "application/json"})
    assert status == 200 and body["now"] == pytest.approx(before + 10)


def test_a_request_from_a_web_page_is_refused(virtual: tuple[str, Any]) -> None:
    url, _ = virtual
    before = now(url)
    headers = {"Content-Type": "application/json", "Origin": "http://evil.test"}
    status, body = call(url, "/_dynemu/clock", b'{"advance": 86400}', **headers)
    assert status == 403 and "Origin" in body["error"]
    status, _ = call(url, "/_dynemu/metrics", Origin="http://evil.test")
    assert status == 403
    assert now(url) == before
    # the DynamoDB API itself stays open to pages under the default --cors *
    status, headers_out, _ = _raw(url, "{}", extra={"Origin": "http://evil.test"})
    assert status == 200 and headers_out["access-control-allow-origin"] == "*"


def test_the_named_cors_origin_may_use_the_admin_api() -> None:
    with DynemuServer(clock="virtual", cors="http://app.test") as url:
        headers = {"Content-Type": "application/json", "Origin": "http://app.test"}
        assert call(url, "/_dynemu/clock", b'{"advance": 1}', **headers)[0] == 200
        headers["Origin"] = "http://other.test"
        assert call(url, "/_dynemu/clock", b'{"advance": 1}', **headers)[0] == 403


def test_the_dashboards_own_origin_may_use_the_admin_api() -> None:
    """The dashboard's clock buttons: a same-origin POST from a page dynemu served itself, by
    IP address or localhost; a DNS name could be a rebinding attack and stays refused."""
    from urllib.parse import urlparse

    with DynemuServer(clock="virtual") as url:
        port = urlparse(url).port
        json_type = {"Content-Type": "application/json"}
        for host in (f"127.0.0.1:{port}", f"localhost:{port}"):
            assert call(url, "/_dynemu/clock", b'{"advance": 1}', **json_type, Host=host,
                        Origin=f"http://{host}")[0] == 200
        assert call(url, "/_dynemu/clock", b'{"advance": 1}', **json_type, Host=f"rebind.test:{port}",
                    Origin=f"http://rebind.test:{port}")[0] == 403
        assert call(url, "/_dynemu/clock", b'{"advance": 1}', **json_type, Host=f"127.0.0.1:{port}",
                    Origin="http://127.0.0.1:1")[0] == 403


def test_admin_token() -> None:
    with DynemuServer(clock="virtual", admin_token="s3cret") as url:
        json_type = {"Content-Type": "application/json"}
        assert call(url, "/_dynemu/clock", b'{"advance": 1}', **json_type)[0] == 401
        assert call(url, "/_dynemu/clock")[0] == 200  # reads stay open, as the DynamoDB API is
        assert call(url, "/_dynemu/clock", b'{"advance": 1}', **json_type, Authorization="Bearer wrong")[0] == 401
        assert call(url, "/_dynemu/clock", b'{"advance": 1}', **json_type, Authorization="Bearer s3cret")[0] == 200
        assert call(url, "/_dynemu/clock", **{"X-Dynemu-Admin-Token": "s3cret"})[0] == 200
        assert call(url, "/_dynemu/tables/x/partitions?region=..", Authorization="Bearer s3cret")[0] == 400
        # the DynamoDB API does not need the admin token
        assert _raw(url, "{}")[0] == 200


@pytest.mark.parametrize("region", ["..", ".", "a" * 300, "../../tmp/x"])
def test_admin_region_is_checked(tmp_path: Any, region: str) -> None:
    data_dir = tmp_path / "data"
    with DynemuServer(data_dir=str(data_dir)) as url:
        status, body = call(url, f"/_dynemu/tables/t/partitions?region={region}")
        assert status == 400
        assert body == {"error": f"Credential should be scoped to a valid region, not "
                                 f"'{region if len(region) <= 64 else region[:64] + '...'}'."}
    assert [p.name for p in tmp_path.iterdir()] == ["data"]
    assert [p for p in data_dir.iterdir() if p.is_dir()] == []  # no namespace opened anywhere
