"""Vector index capacity under dynemu's default capacity model, on a virtual clock
(developer guide, "Monitoring vector index capacity"): a write's vector index units are
debited with the item's, after the item's one admission, so a table whose index copies a
large item runs out sooner; SearchVectors is admitted like a read and throttles with the
read's ThrottlingReasons."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from dynemu.testing import DynemuServer
from tests.test_throttling import ON_DEMAND_MESSAGE, Virtual, arn
from tests.test_vectors import qv, vec, vector_index

KB = 1024


def _create(v: Virtual, name: str, projection: str | None) -> str:
    extra: dict[str, Any] = {}
    if projection is not None:
        extra["VectorIndexes"] = [vector_index(projection=projection)]
    return v.create(name, **extra)


def _put(v: Virtual, table: str, pk: str, n: int = 0, kb: int = 300) -> ClientError | None:
    """Item ``pk`` of about ``kb`` KB with a 3-dimension vector, its ``n``-th version (each
    version changes what the index holds); the error if throttled."""
    item = {"pk": {"S": pk}, "emb": vec(1, 0, 0), "blob": {"S": f"{n:04}" + "x" * (kb * KB - 64)}}
    try:
        v.ddb.put_item(TableName=table, Item=item)
    except ClientError as err:
        return err
    return None


def _admitted(v: Virtual, table: str, n: int = 20) -> tuple[int, ClientError]:
    for i in range(n):
        err = _put(v, table, "hot", i)
        if err is not None:
            return i, err
    raise AssertionError("expected a throttle")


def test_vector_index_units_are_debited_with_the_item_write() -> None:
    """One key's partition serves 3,000 write units at once (its 3 s of ceiling): ten 300 KB
    writes without a vector index, or with one that keeps only keys, five when the index
    copies the whole item (300 units for the item, about 300 more for its entry)."""
    with DynemuServer(clock="virtual", throttling=True) as url:
        v = Virtual(url)
        counts = {}
        for projection in (None, "KEYS_ONLY", "ALL"):
            t = _create(v, f"vw-{projection}", projection)
            counts[projection], err = _admitted(v, t)
            assert err.response["Error"]["Code"] == "ThrottlingException"
            assert err.response["Error"]["Message"] == ON_DEMAND_MESSAGE
            assert err.response["throttlingReasons"] == [
                {"reason": "TableWriteKeyRangeThroughputExceeded", "resource": arn(v, t)}
            ]
        assert counts == {None: 10, "KEYS_ONLY": 10, "ALL": 5}
        # what the response reports: the item's units as CapacityUnits, the entry apart
        v.advance(10)
        out = v.ddb.put_item(TableName="vw-ALL", Item={"pk": {"S": "k"}, "emb": vec(1, 0, 0)},
                             ReturnConsumedCapacity="INDEXES")
        cc = out["ConsumedCapacity"]
        assert cc["CapacityUnits"] == 1.0
        assert cc["VectorIndexes"]["emb-idx"]["VectorWriteRequestBytes"] > 0


def test_search_vectors_is_admitted_and_throttled_like_a_read() -> None:
    """Each search of the 100 items of ~300 KB examines their entries: about 30 MB of
    VectorSearchRequestBytes, debited as eventually consistent 4 KB read units (~3,750) on
    the partition where the table starts; its 9,000 units of ceiling (3 s) and its allowance
    serve three such searches at once, then a throttle with the read's reason."""
    with DynemuServer(clock="virtual", throttling=True) as url:
        v = Virtual(url)
        t = _create(v, "vec-search", "ALL")
        for i in range(100):
            assert _put(v, t, f"k{i:03}") is None
            v.advance(1)
        v.advance(60)
        search = dict(TableName=t, IndexName="emb-idx", SearchVector=qv(1, 0, 0), TopK=100,
                      ProjectionExpression="pk", ReturnConsumedCapacity="TOTAL")
        served = 0
        err = None
        for _ in range(20):
            try:
                out = v.ddb.search_vectors(**search)
            except ClientError as e:
                err = e
                break
            assert len(out["SearchResults"]) == 100
            assert out["ConsumedCapacity"]["VectorSearchRequestBytes"] > 30_000_000
            served += 1
        assert err is not None and served == 3  # 3,750 units each: 9,000 of ceiling, then its allowance
        assert err.response["Error"]["Code"] == "ThrottlingException"
        assert err.response["Error"]["Message"] == ON_DEMAND_MESSAGE
        assert err.response["throttlingReasons"] == [
            {"reason": "TableReadKeyRangeThroughputExceeded", "resource": arn(v, t)}
        ]
        v.advance(10)  # refilled: served again
        assert len(v.ddb.search_vectors(**search)["SearchResults"]) == 100
