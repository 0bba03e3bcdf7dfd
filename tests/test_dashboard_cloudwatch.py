"""CloudWatch's ThrottledRequests as the service counts it (metrics-dimensions.html): one per
request refused as a whole, a GSI's refusal included, and a BatchGetItem or BatchWriteItem
only when every item in it was refused; throttle events one per refused item. Over HTTP on
a private server with a virtual clock and dynemu's default capacity model."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

from dynemu.testing import DynemuServer
from tests.conftest import make_client

PTEE = "ProvisionedThroughputExceededException"


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, Any]]:
    s = DynemuServer(clock="virtual")
    url = s.start()
    try:
        yield url, make_client(url)
    finally:
        s.stop()


def _get(url: str, path: str) -> dict[str, Any]:
    with urllib.request.urlopen(url + path, timeout=30) as r:
        return json.loads(r.read())


def _advance(url: str, seconds: float) -> None:
    req = urllib.request.Request(
        url + "/_dynemu/clock", data=json.dumps({"advance": seconds}).encode(),
        headers={"Content-Type": "application/json"}, method="POST",
    )  # fmt: skip
    with urllib.request.urlopen(req, timeout=30) as r:
        assert r.status == 200


def _counts(url: str, table: str, index: str | None = None) -> tuple[int, int, int]:
    """(ThrottledRequests, read throttle events, write throttle events) so far."""
    q = f"?index={index}" if index else ""
    s = _get(url, f"/_dynemu/tables/{table}/partitions{q}")["summary"]
    thr = s["throttles"]
    reads = sum(n for k, n in thr.items() if "Read" in k)
    return s["throttled_requests"], reads, sum(thr.values()) - reads


def _history_counts(url: str, table: str, index: str | None = None) -> tuple[int, int]:
    """(ThrottledRequests, throttle events) summed over the per-second history JSON."""
    q = f"?index={index}" if index else ""
    secs = _get(url, f"/_dynemu/tables/{table}/history{q}")["seconds"]
    return sum(s["throttled_requests"] for s in secs), sum(sum(s["throttles"].values()) for s in secs)


def _table(ddb: Any, name: str, rcu: int, wcu: int, gsi_wcu: int | None = None) -> None:
    attrs = [{"AttributeName": "pk", "AttributeType": "S"}]
    extra: dict[str, Any] = {}
    if gsi_wcu is not None:
        attrs.append({"AttributeName": "g", "AttributeType": "S"})
        extra["GlobalSecondaryIndexes"] = [{
            "IndexName": "byG", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
            "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": gsi_wcu},
        }]  # fmt: skip
    ddb.create_table(
        TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}], AttributeDefinitions=attrs,
        ProvisionedThroughput={"ReadCapacityUnits": rcu, "WriteCapacityUnits": wcu}, **extra,
    )  # fmt: skip


def _puts(name: str, start: int, n: int = 25) -> dict[str, Any]:
    return {name: [{"PutRequest": {"Item": {"pk": {"S": f"k{i}"}, "g": {"S": f"g{i % 4}"}}}}
                   for i in range(start, start + n)]}  # fmt: skip


def _drain_writes(ddb: Any, name: str) -> int:
    """Batches of writes until one is refused as a whole (the burst spent); the next key."""
    for b in range(40):
        try:
            ddb.batch_write_item(RequestItems=_puts(name, b * 25))
        except ClientError as e:
            assert e.response["Error"]["Code"] == PTEE
            return (b + 1) * 25
    raise AssertionError("the table's write capacity was never spent")


def test_a_partly_refused_batch_write_adds_events_but_no_throttled_request(server: tuple[str, Any]) -> None:
    url, ddb = server
    _table(ddb, "cw_bw", 5, 1)
    nxt = _drain_writes(ddb, "cw_bw")
    _advance(url, 2.0)  # two units of write capacity back: a few items of the next batch pass
    requests, _, events = _counts(url, "cw_bw")
    out = ddb.batch_write_item(RequestItems=_puts("cw_bw", nxt))
    refused = len(out["UnprocessedItems"].get("cw_bw", []))
    assert 0 < refused < 25
    assert _counts(url, "cw_bw") == (requests, 0, events + refused)  # events only

    # the next batch, with no capacity left, is refused as a whole: exactly one request
    with pytest.raises(ClientError) as e:
        ddb.batch_write_item(RequestItems=_puts("cw_bw", nxt + 25))
    assert e.value.response["Error"]["Code"] == PTEE
    assert _counts(url, "cw_bw") == (requests + 1, 0, events + refused + 25)

    _advance(url, 1.0)  # the history books the counts on the completed second
    total = _counts(url, "cw_bw")
    assert _history_counts(url, "cw_bw") == (total[0], total[2])


def test_a_put_refused_by_a_gsi_is_a_throttled_request_of_the_table(server: tuple[str, Any]) -> None:
    url, ddb = server
    _table(ddb, "cw_gsi", 5, 1000, gsi_wcu=1)
    _drain_writes(ddb, "cw_gsi")  # the index's capacity is spent, not the table's
    table_before = _counts(url, "cw_gsi")
    index_before = _counts(url, "cw_gsi", "byG")
    with pytest.raises(ClientError) as e:
        ddb.put_item(TableName="cw_gsi", Item={"pk": {"S": "one-more"}, "g": {"S": "g0"}})
    assert e.value.response["Error"]["Code"] == PTEE
    reasons = [r["reason"] for r in e.value.response["ThrottlingReasons"]]
    assert reasons == ["IndexWriteProvisionedThroughputExceeded"]
    # one ThrottledRequests on the table; the event is the index's (the table's own are unchanged)
    assert _counts(url, "cw_gsi") == (table_before[0] + 1, table_before[1], table_before[2])
    assert _counts(url, "cw_gsi", "byG") == (0, index_before[1], index_before[2] + 1)

    _advance(url, 1.0)
    requests, _, table_events = _counts(url, "cw_gsi")
    assert requests >= 1 and table_events == 0
    assert _history_counts(url, "cw_gsi") == (requests, 0)
    assert _history_counts(url, "cw_gsi", "byG") == (0, _counts(url, "cw_gsi", "byG")[2])


def test_batch_get_counts_a_request_only_when_every_key_was_refused(server: tuple[str, Any]) -> None:
    url, ddb = server
    _table(ddb, "cw_bg", 1, 100)
    ddb.put_item(TableName="cw_bg", Item={"pk": {"S": "k0"}})
    keys = {"cw_bg": {"Keys": [{"pk": {"S": f"k{i}"}} for i in range(100)]}}
    for _ in range(20):  # spend the read burst (half a unit a key, eventually consistent)
        try:
            ddb.batch_get_item(RequestItems=keys)
        except ClientError as e:
            assert e.response["Error"]["Code"] == PTEE
            break
    else:
        raise AssertionError("the table's read capacity was never spent")
    _advance(url, 2.0)  # a few keys of the next batch pass
    requests, events, _ = _counts(url, "cw_bg")
    out = ddb.batch_get_item(RequestItems=keys)
    refused = len(out["UnprocessedKeys"].get("cw_bg", {}).get("Keys", []))
    assert 0 < refused < 100
    assert _counts(url, "cw_bg") == (requests, events + refused, 0)
    with pytest.raises(ClientError) as e:
        ddb.batch_get_item(RequestItems=keys)
    assert e.value.response["Error"]["Code"] == PTEE
    assert _counts(url, "cw_bg") == (requests + 1, events + refused + 100, 0)


def test_a_transaction_cancelled_by_throttles_is_one_throttled_request(server: tuple[str, Any]) -> None:
    url, ddb = server
    _table(ddb, "cw_tx", 5, 1)
    nxt = _drain_writes(ddb, "cw_tx")
    requests, _, events = _counts(url, "cw_tx")
    with pytest.raises(ClientError) as e:
        ddb.transact_write_items(TransactItems=[
            {"Put": {"TableName": "cw_tx", "Item": {"pk": {"S": f"k{nxt + i}"}}}} for i in range(2)
        ])  # fmt: skip
    assert e.value.response["Error"]["Code"] == "TransactionCanceledException"
    # both actions refused: two events, one request
    assert _counts(url, "cw_tx") == (requests + 1, 0, events + 2)
