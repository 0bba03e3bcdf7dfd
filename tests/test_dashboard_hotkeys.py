"""Exact hot keys: per-key consumed units and throttles over a stated window, counted for
every request (engine/capacity/contributors.py), over HTTP on a private virtual-clock server
with dynemu's default capacity model."""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator
from typing import Any

import orjson
import pytest
from botocore.exceptions import ClientError

from dynemu.api.admin.app import NAMESPACES
from dynemu.engine.capacity.contributors import SpaceSaving
from dynemu.testing import DynemuServer
from tests.conftest import make_client


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, Any, Any]]:
    server = DynemuServer(clock="virtual")
    url = server.start()
    try:
        yield url, make_client(url), server.app[NAMESPACES].clock
    finally:
        server.stop()


def admin(url: str, path: str) -> Any:
    with urllib.request.urlopen(url + path, timeout=30) as r:
        return orjson.loads(r.read())


def page(url: str, path: str) -> str:
    with urllib.request.urlopen(url + path, timeout=30) as r:
        return r.read().decode()


def test_hot_key_counts_every_request_not_a_sample(served: tuple[str, Any, Any]) -> None:
    url, ddb, clock = served
    ddb.create_table(
        TableName="hk_exact",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        ProvisionedThroughput={"ReadCapacityUnits": 100, "WriteCapacityUnits": 900},
    )
    for _ in range(10):  # 90 writes a second: 60 on the hot key, 3 on each of ten others
        for i in range(60):
            ddb.put_item(TableName="hk_exact", Item={"pk": {"S": "hot"}, "n": {"N": str(i)}})
        for k in range(10):
            for i in range(3):
                ddb.put_item(TableName="hk_exact", Item={"pk": {"S": f"k{k}"}, "n": {"N": str(i)}})
        clock.advance(1)
    data = admin(url, "/_dynemu/tables/hk_exact/partitions")
    assert len(data["partitions"]) == 1  # 900 requests in one partition: far past any 256-sample ring
    hot = data["hot_keys"]
    assert hot["window"]["minutes"] == 5
    rows = hot["by_consumed_units"]
    assert rows[0] == {"key": {"S": "hot"}, "units": 600.0}
    assert [r["units"] for r in rows[1:]] == [30.0] * 9  # the top 10 of 11 keys
    assert hot["by_consumed_units_bound"] == 0.0  # nothing was dropped: every figure is exact
    assert hot["items_by_consumed_units"][0] == {"key": {"S": "hot"}, "units": 600.0}
    body = page(url, "/_dynemu/tables/hk_exact")
    assert '<span class="mono">hot</span> 600</li>' in body
    assert "over the last 5 minutes" in body and "Space-Saving" in body
    # ten minutes later the 5-minute window is empty; the whole run still has every request
    clock.advance(600)
    assert admin(url, "/_dynemu/tables/hk_exact/partitions")["hot_keys"]["by_consumed_units"] == []
    whole = admin(url, "/_dynemu/tables/hk_exact/partitions?window=all")["hot_keys"]
    assert whole["window"]["minutes"] is None
    assert whole["by_consumed_units"][0]["units"] == 600.0
    assert sum(r["units"] for r in whole["by_consumed_units"]) == 600.0 + 9 * 30.0


def test_gsi_hot_keys_are_grouped_by_index_key(served: tuple[str, Any, Any]) -> None:
    url, ddb, clock = served
    ddb.create_table(
        TableName="hk_gsi",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "status", "AttributeType": "S"},
        ],
        ProvisionedThroughput={"ReadCapacityUnits": 100, "WriteCapacityUnits": 900},
        GlobalSecondaryIndexes=[
            {
                "IndexName": "byStatus",
                "KeySchema": [{"AttributeName": "status", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
                "ProvisionedThroughput": {"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
            }
        ],
    )
    admitted = refused = 0
    for i in range(800):  # far beyond what a 1 WCU index holds in an instant: the index throttles
        try:
            ddb.put_item(TableName="hk_gsi", Item={"pk": {"S": f"item{i}"}, "status": {"S": f"s{i % 4}"}})
            admitted += 1
        except ClientError as e:
            assert e.response["Error"]["Code"] == "ProvisionedThroughputExceededException"
            refused += 1
    assert admitted and refused
    hot = admin(url, "/_dynemu/tables/hk_gsi/partitions?index=byStatus&window=all")["hot_keys"]
    units = hot["by_consumed_units"]
    assert sorted(r["key"]["S"] for r in units) == ["s0", "s1", "s2", "s3"]  # one row per index key
    assert sum(r["units"] for r in units) == admitted  # one write unit each on the index
    throttles = hot["by_throttles"]
    assert len({r["key"]["S"] for r in throttles}) == len(throttles)
    assert sum(r["throttles"] for r in throttles) == refused
    assert all("error" not in r for r in units + throttles)  # exact
    body = page(url, "/_dynemu/tables/hk_gsi")
    section = body[body.index("hk_gsi / index byStatus") :]
    hot_html = section[section.index("partition keys by consumed units") :]
    hot_html = hot_html[: hot_html.index("</ol>")]
    assert hot_html.count("<li>") == 4


def test_space_saving_keeps_the_heavy_hitters_with_a_stated_bound() -> None:
    counter = SpaceSaving(8)
    stream = [b"hot"] * 500 + [b"k%d" % (i % 100) for i in range(1000)]
    keys = [key if i % 3 else b"hot" for i, key in enumerate(stream * 2)]
    for key in keys:
        counter.add(key, 1.0)
    true = {k: keys.count(k) for k in set(keys)}
    top = counter.top(1)[0]
    assert top[0] == b"hot"
    assert len(counter.counts) < 16  # bounded: at most twice the capacity between prunes
    assert counter.bound() > 0  # keys were dropped: the page states the bound
    for key, count in counter.counts.items():  # every listed figure brackets the true one
        assert true[key] <= count <= true[key] + counter.errors.get(key, 0.0)
    for key in set(true) - set(counter.counts):  # an unlisted key never had more than the bound
        assert true[key] <= counter.bound()


def test_space_saving_is_exact_until_it_drops_a_key() -> None:
    counter = SpaceSaving(4)
    for i in range(7):  # seven keys: below twice the capacity, nothing dropped
        counter.add(b"k%d" % i, float(i + 1))
    assert counter.bound() == 0.0 and not counter.errors
    assert counter.counts == {b"k%d" % i: float(i + 1) for i in range(7)}
    counter.add(b"k7", 8.0)  # the eighth: the four smallest go, the largest of them is the floor
    assert sorted(counter.counts) == [b"k4", b"k5", b"k6", b"k7"] and counter.bound() == 4.0
    counter.add(b"k0", 1.0)  # it may have been dropped with up to 4: counted from there
    assert counter.counts[b"k0"] == 5.0 and counter.errors[b"k0"] == 4.0


def test_space_saving_breaks_ties_by_key() -> None:
    counter = SpaceSaving(2)
    for key in (b"d", b"b", b"c", b"a"):  # four equal counts: the two smallest keys stay
        counter.add(key, 1.0)
    assert sorted(counter.counts) == [b"a", b"b"] and counter.bound() == 1.0


def test_window_parameter_is_checked(served: tuple[str, Any, Any]) -> None:
    url, ddb, _ = served
    ddb.create_table(
        TableName="hk_window",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
    )
    for bad in ("0", "11", "soon"):
        with pytest.raises(urllib.error.HTTPError) as e:
            admin(url, f"/_dynemu/tables/hk_window/partitions?window={bad}")
        assert e.value.code == 400
        assert orjson.loads(e.value.read()) == {"error": "window must be a number of minutes from 1 to 10, or all"}
