"""The replication-lag model: stale eventually consistent reads within the lag, never
after it, never for strongly consistent reads; GSI images; determinism."""

from __future__ import annotations

from typing import Any

from dynemu.engine import consistency
from dynemu.engine.consistency import ConsistencyConfig
from dynemu.testing import DynemuServer
from tests.conftest import make_client
from tests.test_streams_engine import new_db, new_table, put


def _setup(lag_ms: float = 1000, p: float = 1.0, seed: int = 7) -> tuple[Any, Any, bytes]:
    db = new_db()
    table = new_table(db)
    consistency.attach(table, ConsistencyConfig(lag_ms, p, seed))
    key = table.key_for_request({"pk": {"S": "a"}})
    return db, table, key


def test_off_by_default() -> None:
    cfg = ConsistencyConfig.from_settings(object())
    assert not cfg.enabled
    db = new_db()
    table = new_table(db)
    consistency.attach(table, cfg)
    assert not any(isinstance(o, consistency.RecentWrites) for o in table.observers)
    item = {"pk": {"S": "a"}}
    assert consistency.stale_item(table, table.key_for_item(item), item, db.now()) is item


def test_stale_within_the_lag_only() -> None:
    db, table, key = _setup(lag_ms=1000, p=1.0)
    put(db, table, {"pk": {"S": "a"}, "v": {"N": "1"}})
    db.clock.advance(5)
    put(db, table, {"pk": {"S": "a"}, "v": {"N": "2"}})
    current = table.read(key)[0]
    assert consistency.stale_item(table, key, current, db.now()) == {"pk": {"S": "a"}, "v": {"N": "1"}}
    db.clock.advance(0.5)
    assert consistency.stale_item(table, key, current, db.now())["v"] == {"N": "1"}
    db.clock.advance(0.5)  # the lag has passed: every replica has the write
    assert consistency.stale_item(table, key, current, db.now()) is current


def test_a_new_item_may_be_missing_and_a_page_may_lose_it() -> None:
    db, table, key = _setup(lag_ms=500, p=1.0)
    put(db, table, {"pk": {"S": "a"}})
    assert consistency.stale_item(table, key, table.read(key)[0], db.now()) is None
    page = [{"pk": {"S": "a"}}, {"pk": {"S": "b"}}]
    db.clock.advance(10)
    put(db, table, {"pk": {"S": "b"}, "v": {"N": "1"}})
    assert consistency.stale_items(table, page, db.now()) == [{"pk": {"S": "a"}}]


def test_probability_and_determinism() -> None:
    def draws(seed: int) -> list[bool]:
        db, table, key = _setup(lag_ms=10_000, p=0.5, seed=seed)
        put(db, table, {"pk": {"S": "a"}, "v": {"N": "1"}})
        put(db, table, {"pk": {"S": "a"}, "v": {"N": "2"}})
        current = table.read(key)[0]
        return [consistency.stale_item(table, key, current, db.now()) is not current for _ in range(400)]

    first = draws(3)
    assert first == draws(3)  # the same seed replays the same stale reads
    assert 120 < sum(first) < 280
    assert first != draws(4)
    db, table, key = _setup(lag_ms=10_000, p=0.0)
    put(db, table, {"pk": {"S": "a"}})
    current = table.read(key)[0]
    assert all(consistency.stale_item(table, key, current, db.now()) is current for _ in range(50))


def test_gsi_view_lags_without_chance() -> None:
    db, table, key = _setup(lag_ms=1000, p=0.0)
    put(db, table, {"pk": {"S": "a"}, "g": {"S": "old"}})
    db.clock.advance(2)
    put(db, table, {"pk": {"S": "a"}, "g": {"S": "new"}})
    current = table.read(key)[0]
    assert consistency.index_image(table, key, current, db.now()) == {"pk": {"S": "a"}, "g": {"S": "old"}}
    assert consistency.pending_writes(table, db.now()) == {key: {"pk": {"S": "a"}, "g": {"S": "old"}}}
    db.clock.advance(1)
    assert consistency.index_image(table, key, current, db.now()) is current
    assert consistency.pending_writes(table, db.now()) == {}


def test_memory_is_bounded_by_the_lag() -> None:
    db, table, _ = _setup(lag_ms=100, p=1.0)
    obs = next(o for o in table.observers if isinstance(o, consistency.RecentWrites))
    for i in range(100):
        put(db, table, {"pk": {"S": f"k{i}"}})
        db.clock.advance(0.05)
    assert len(obs.recent) <= 3


def test_stale_reads_through_boto3() -> None:
    with DynemuServer(clock="virtual", throttling=False, eventual_lag_ms=60_000, stale_read_probability=1.0) as url:
        d = make_client(url)
        d.create_table(TableName="lagged", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                       BillingMode="PAY_PER_REQUEST")  # fmt: skip
        d.put_item(TableName="lagged", Item={"pk": {"S": "a"}, "v": {"N": "1"}})
        for _ in range(5):  # strongly consistent reads never see stale data
            assert d.get_item(TableName="lagged", Key={"pk": {"S": "a"}}, ConsistentRead=True)["Item"]["v"] == {"N": "1"}
        assert "Item" not in d.get_item(TableName="lagged", Key={"pk": {"S": "a"}})
        assert d.scan(TableName="lagged")["Items"] == []
        assert d.scan(TableName="lagged", ConsistentRead=True)["Count"] == 1


def test_gsi_shows_writes_only_after_the_lag() -> None:
    with DynemuServer(clock="virtual", throttling=False, eventual_lag_ms=60_000, stale_read_probability=0.0) as url:
        d = make_client(url)
        d.create_table(
            TableName="lagged-gsi", BillingMode="PAY_PER_REQUEST",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexes=[{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                     "Projection": {"ProjectionType": "ALL"}}],
        )

        def in_index(g: str) -> list[str]:
            out = d.query(TableName="lagged-gsi", IndexName="by-g", KeyConditionExpression="g = :g",
                          ExpressionAttributeValues={":g": {"S": g}})
            return [i["pk"]["S"] for i in out["Items"]]

        def advance(seconds: float) -> None:
            import json
            import urllib.request

            req = urllib.request.Request(url + "/_dynemu/clock", data=json.dumps({"advance": seconds}).encode(),
                                         method="POST", headers={"Content-Type": "application/json"})
            urllib.request.urlopen(req).read()

        d.put_item(TableName="lagged-gsi", Item={"pk": {"S": "a"}, "g": {"S": "x"}})
        # The table read (probability 0: never stale) sees it; the GSI does not yet.
        assert d.get_item(TableName="lagged-gsi", Key={"pk": {"S": "a"}})["Item"]["g"] == {"S": "x"}
        assert in_index("x") == []
        advance(61)
        assert in_index("x") == ["a"]
        d.update_item(TableName="lagged-gsi", Key={"pk": {"S": "a"}}, UpdateExpression="SET g = :y",
                      ExpressionAttributeValues={":y": {"S": "y"}})
        assert in_index("x") == ["a"] and in_index("y") == []  # the old entry, until the lag passes
        advance(61)
        assert in_index("x") == [] and in_index("y") == ["a"]
