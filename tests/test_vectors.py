"""Vector indexes over HTTP: DDL and DescribeTable, index maintenance, SearchVectors' scores,
order, filters and projections (developer guide, "Vector indexes")."""

from __future__ import annotations

import itertools
import math
import random
from typing import Any

import numpy as np
import pytest

from tests.helpers import assert_validation

_names = itertools.count()


def vec(*xs: float) -> dict[str, Any]:
    return {"L": [{"N": repr(float(x))} for x in xs]}


def qv(*xs: float) -> list[dict[str, Any]]:
    return vec(*xs)["L"]


def vector_index(name: str = "emb-idx", dims: int = 3, distance: str = "COSINE", projection: str = "ALL",
                 schema: list[tuple[str, str]] | None = None, attribute: str = "emb",
                 non_key: list[str] | None = None) -> dict[str, Any]:
    p: dict[str, Any] = {"ProjectionType": projection}
    if non_key:
        p["NonKeyAttributes"] = non_key
    ix: dict[str, Any] = {"IndexName": name, "VectorAttribute": {"AttributeName": attribute}, "Dimensions": dims,
                          "DistanceFunction": distance, "Projection": p}
    if schema:
        ix["SearchSchema"] = [{"AttributeName": n, "SearchSchemaElementType": k} for n, k in schema]
    return ix


def create(ddb: Any, *indexes: dict[str, Any], defs: list[tuple[str, str]] = (), plain: bool = False,
           **extra: Any) -> str:
    """A table ``pk`` (S) with the given vector indexes (by default one on ``emb``, 3
    dimensions, COSINE); ``plain``: none."""
    name = f"vectors-{next(_names)}"
    attrs = [{"AttributeName": "pk", "AttributeType": "S"}] + [
        {"AttributeName": n, "AttributeType": t} for n, t in defs
    ]
    kwargs: dict[str, Any] = {"BillingMode": "PAY_PER_REQUEST", **extra}
    if not indexes and not plain:
        indexes = (vector_index(),)
    if indexes:
        kwargs["VectorIndexes"] = list(indexes)
    ddb.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=attrs, **kwargs)
    return name


def search(ddb: Any, table: str, q: list[dict[str, Any]], k: int = 10, index: str = "emb-idx",
           **kw: Any) -> list[tuple[str, float]]:
    out = ddb.search_vectors(TableName=table, IndexName=index, SearchVector=q, TopK=k, **kw)
    return [(r["Item"]["pk"]["S"], r["Score"]) for r in out["SearchResults"]]


def f32(x: float) -> float:
    return float(np.float32(x))


# --- DDL and DescribeTable ---------------------------------------------------------------------------


def test_create_table_describes_the_index(ddb: Any) -> None:
    t = create(ddb, vector_index(schema=[("cat", "HASH"), ("color", "INLINE_FILTER")], projection="INCLUDE",
                                 non_key=["title"]), defs=[("cat", "S"), ("color", "S")])
    table = ddb.describe_table(TableName=t)["Table"]
    (ix,) = table["VectorIndexes"]
    assert ix == {
        "IndexName": "emb-idx",
        "VectorAttribute": {"AttributeName": "emb"},
        "Dimensions": 3,
        "DistanceFunction": "COSINE",
        "Projection": {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["title"]},
        "SearchSchema": [{"AttributeName": "cat", "SearchSchemaElementType": "HASH"},
                         {"AttributeName": "color", "SearchSchemaElementType": "INLINE_FILTER"}],
        "IndexStatus": "ACTIVE",
        "IndexSizeBytes": 0,
        "ItemCount": 0,
        "IndexArn": f"{table['TableArn']}/index/emb-idx",
    }
    assert {d["AttributeName"] for d in table["AttributeDefinitions"]} == {"pk", "cat", "color"}
    assert "GlobalSecondaryIndexes" not in table


def test_tables_without_vector_indexes_do_not_report_them(ddb: Any) -> None:
    assert "VectorIndexes" not in ddb.describe_table(TableName=create(ddb, plain=True))["Table"]


def test_item_count_and_size_are_exact(ddb: Any) -> None:
    t = create(ddb, vector_index(projection="KEYS_ONLY"))
    for i in range(3):
        ddb.put_item(TableName=t, Item={"pk": {"S": f"k{i}"}, "emb": vec(1, i, 0), "note": {"S": "xyz"}})
    ddb.put_item(TableName=t, Item={"pk": {"S": "none"}})  # no vector: not indexed
    (ix,) = ddb.describe_table(TableName=t)["Table"]["VectorIndexes"]
    # KEYS_ONLY entry: pk (2 + 2 bytes) + the vector attribute's name (3) + 4 bytes x 3 dimensions
    assert (ix["ItemCount"], ix["IndexSizeBytes"]) == (3, 3 * (4 + 3 + 12))
    ddb.delete_item(TableName=t, Key={"pk": {"S": "k0"}})
    ddb.update_item(TableName=t, Key={"pk": {"S": "k1"}}, UpdateExpression="REMOVE emb")
    (ix,) = ddb.describe_table(TableName=t)["Table"]["VectorIndexes"]
    assert (ix["ItemCount"], ix["IndexSizeBytes"]) == (1, 19)
    assert search(ddb, t, qv(1, 0, 0)) == [("k2", pytest.approx(1 - 1 / math.sqrt(5), abs=1e-6))]


def test_update_table_adds_and_backfills_then_deletes(ddb: Any) -> None:
    t = create(ddb, plain=True)
    for i in range(5):
        ddb.put_item(TableName=t, Item={"pk": {"S": f"k{i}"}, "emb": vec(i + 1, 1, 0)})
    ddb.put_item(TableName=t, Item={"pk": {"S": "short"}, "emb": vec(1, 1)})  # skipped by the backfill
    ddb.put_item(TableName=t, Item={"pk": {"S": "text"}, "emb": {"S": "not a vector"}})
    out = ddb.update_table(TableName=t, AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                           VectorIndexUpdates=[{"Create": vector_index(distance="EUCLIDEAN")}])
    (ix,) = out["TableDescription"]["VectorIndexes"]
    assert (ix["IndexStatus"], ix["Backfilling"]) == ("CREATING", True)
    assert out["TableDescription"]["TableStatus"] == "UPDATING"
    (ix,) = ddb.describe_table(TableName=t)["Table"]["VectorIndexes"]
    assert ix["IndexStatus"] == "ACTIVE" and "Backfilling" not in ix
    assert ix["ItemCount"] == 5
    assert search(ddb, t, qv(1, 1, 0), k=2) == [("k0", 0.0), ("k1", 1.0)]
    active = ix
    out = ddb.update_table(TableName=t, VectorIndexUpdates=[{"Delete": {"IndexName": "emb-idx"}}])
    # the response describes the index being deleted, as for a GSI (VectorIndexDescription)
    assert out["TableDescription"]["VectorIndexes"] == [{**active, "IndexStatus": "DELETING"}]
    assert out["TableDescription"]["TableStatus"] == "UPDATING"
    assert "VectorIndexes" not in ddb.describe_table(TableName=t)["Table"]
    ddb.put_item(TableName=t, Item={"pk": {"S": "after"}, "emb": vec(1)})  # no index: any value


# --- scores ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("distance", ["COSINE", "EUCLIDEAN", "DOT_PRODUCT"])
def test_scores_and_order_are_exact(ddb: Any, distance: str) -> None:
    rng = random.Random(7)
    t = create(ddb, vector_index(dims=8, distance=distance))
    vectors = {f"k{i:03}": [rng.uniform(-1, 1) for _ in range(8)] for i in range(150)}
    for pk, v in vectors.items():
        ddb.put_item(TableName=t, Item={"pk": {"S": pk}, "emb": vec(*v)})
    q = [rng.uniform(-1, 1) for _ in range(8)]
    qa = np.array(q, dtype=np.float64)
    expected = {}
    for pk, v in vectors.items():
        va = np.array(np.array(v, dtype=np.float32), dtype=np.float64)  # stored at f32
        qf = np.array(np.array(q, dtype=np.float32), dtype=np.float64)
        if distance == "COSINE":
            expected[pk] = 1 - float(va @ qf / (np.linalg.norm(va) * np.linalg.norm(qf)))
        elif distance == "EUCLIDEAN":
            expected[pk] = float(np.linalg.norm(va - qf))
        else:
            expected[pk] = float(va @ qf)
    del qa
    best = sorted(expected, key=lambda k: -expected[k] if distance == "DOT_PRODUCT" else expected[k])[:10]
    got = search(ddb, t, qv(*q), k=10, index="emb-idx")
    assert [pk for pk, _ in got] == best
    for pk, score in got:
        assert score == pytest.approx(expected[pk], abs=1e-5)
        assert score == f32(score)  # computed and reported at float32
    if distance == "COSINE":
        assert all(0 <= s <= 2 for _, s in got)


def test_cosine_range_and_values(ddb: Any) -> None:
    t = create(ddb)
    for pk, v in (("same", (2, 0, 0)), ("orth", (0, 5, 0)), ("opp", (-1, 0, 0)), ("zero", (0, 0, 0))):
        ddb.put_item(TableName=t, Item={"pk": {"S": pk}, "emb": vec(*v)})
    # a zero vector has no direction: scored as orthogonal (cos 0); ties by storage order
    got = search(ddb, t, qv(1, 0, 0))
    assert got[0] == ("same", 0.0) and got[-1] == ("opp", 2.0)
    assert sorted(got[1:3]) == [("orth", 1.0), ("zero", 1.0)]


def test_ties_break_the_same_way_every_time(ddb: Any) -> None:
    t = create(ddb, vector_index(distance="EUCLIDEAN"))
    for i in range(30):
        ddb.put_item(TableName=t, Item={"pk": {"S": f"k{i}"}, "emb": vec(1, 1, 1)})
    first = search(ddb, t, qv(0, 0, 0), k=7)
    assert all(s == f32(math.sqrt(3)) for _, s in first)
    for _ in range(3):
        assert search(ddb, t, qv(0, 0, 0), k=7) == first
    # the tie-break is the items' storage order: the order of a Scan
    scan = [i["pk"]["S"] for i in ddb.scan(TableName=t)["Items"]]
    assert [pk for pk, _ in first] == scan[:7]


def test_values_are_stored_at_f32(ddb: Any) -> None:
    t = create(ddb, vector_index(dims=1, distance="DOT_PRODUCT"))
    ddb.put_item(TableName=t, Item={"pk": {"S": "a"}, "emb": {"L": [{"N": "0.1"}]}})
    assert search(ddb, t, qv(1)) == [("a", f32(0.1))]
    # the item keeps the value as written
    assert ddb.get_item(TableName=t, Key={"pk": {"S": "a"}})["Item"]["emb"] == {"L": [{"N": "0.1"}]}


# --- which items enter the index ---------------------------------------------------------------------


def test_items_without_vector_or_hash_attribute_are_skipped(ddb: Any) -> None:
    t = create(ddb, vector_index(schema=[("cat", "HASH")]), defs=[("cat", "S")])
    ddb.put_item(TableName=t, Item={"pk": {"S": "novec"}, "cat": {"S": "a"}})
    ddb.put_item(TableName=t, Item={"pk": {"S": "nocat"}, "emb": vec(1, 0, 0)})
    ddb.put_item(TableName=t, Item={"pk": {"S": "both"}, "emb": vec(1, 0, 0), "cat": {"S": "a"}})
    cond = {"SearchConditionExpression": "cat = :c", "ExpressionAttributeValues": {":c": {"S": "a"}}}
    assert search(ddb, t, qv(1, 0, 0), **cond) == [("both", 0.0)]
    ddb.update_item(TableName=t, Key={"pk": {"S": "both"}}, UpdateExpression="REMOVE cat")
    assert search(ddb, t, qv(1, 0, 0), **cond) == []
    assert ddb.describe_table(TableName=t)["Table"]["VectorIndexes"][0]["ItemCount"] == 0


def test_invalid_vectors_refuse_the_write(ddb: Any) -> None:
    t = create(ddb)
    item = {"pk": {"S": "a"}}
    bad = "One or more parameter values were invalid: "
    assert_validation(bad + "Vector attribute emb has 2 dimensions but vector index emb-idx expects 3",
                      ddb.put_item, TableName=t, Item={**item, "emb": vec(1, 2)})
    for value, actual in (({"S": "x"}, "S"), ({"N": "1"}, "N"), ({"NS": ["1", "2", "3"]}, "NS")):
        assert_validation(bad + f"Invalid parameter type for vector attribute emb of vector index emb-idx: "
                          f"expected L of N, got {actual}", ddb.put_item, TableName=t, Item={**item, "emb": value})
    for elements, position, actual in (([{"N": "1"}, {"S": "2"}, {"N": "3"}], 1, "S"),
                                       ([{"N": "1e39"}, {"N": "0"}, {"N": "0"}], 0, "N")):
        assert_validation(bad + f"Invalid parameter type for vector attribute emb of vector index emb-idx: "
                          f"element [{position}] is {actual}, expected a finite N within the 32-bit float range",
                          ddb.put_item, TableName=t, Item={**item, "emb": {"L": elements}})
    assert_validation(bad + "Vector attribute emb has 4 dimensions but vector index emb-idx expects 3",
                      ddb.update_item, TableName=t, Key=item, UpdateExpression="SET emb = :v",
                      ExpressionAttributeValues={":v": vec(1, 2, 3, 4)})
    assert "Item" not in ddb.get_item(TableName=t, Key=item)


def test_search_schema_attribute_of_the_wrong_type_refuses_the_write(ddb: Any) -> None:
    t = create(ddb, vector_index(schema=[("color", "INLINE_FILTER")]), defs=[("color", "S")])
    assert_validation("One or more parameter values were invalid: Type mismatch for SearchSchema attribute color "
                      "Expected: S Actual: N IndexName: emb-idx",
                      ddb.put_item, TableName=t, Item={"pk": {"S": "a"}, "emb": vec(1, 0, 0), "color": {"N": "1"}})


def test_batch_and_transaction_writes_are_indexed(ddb: Any) -> None:
    t = create(ddb)
    ddb.batch_write_item(RequestItems={t: [{"PutRequest": {"Item": {"pk": {"S": f"b{i}"}, "emb": vec(1, i, 0)}}}
                                           for i in range(3)]})
    ddb.transact_write_items(TransactItems=[{"Put": {"TableName": t, "Item": {"pk": {"S": "tx"}, "emb": vec(0, 0, 1)}}}])
    assert ddb.describe_table(TableName=t)["Table"]["VectorIndexes"][0]["ItemCount"] == 4
    assert search(ddb, t, qv(0, 0, 1), k=1) == [("tx", 0.0)]


# --- filters and projections --------------------------------------------------------------------------


def filtered_table(ddb: Any) -> str:
    t = create(ddb, vector_index(distance="EUCLIDEAN", schema=[("cat", "HASH"), ("color", "INLINE_FILTER"),
                                                                ("size", "INLINE_FILTER")]),
               defs=[("cat", "S"), ("color", "S"), ("size", "N")])
    for i in range(40):
        ddb.put_item(TableName=t, Item={
            "pk": {"S": f"k{i:02}"}, "emb": vec(i, 0, 0), "cat": {"S": "near" if i < 20 else "far"},
            "color": {"S": ("red", "blue")[i % 2]}, "size": {"N": str(i % 3)}, "title": {"S": f"t{i}"},
        })
    return t


def test_filter_before_top_k(ddb: Any) -> None:
    t = filtered_table(ddb)
    got = search(ddb, t, qv(0, 0, 0), k=5, SearchConditionExpression="cat = :c AND color = :b",
                 ExpressionAttributeValues={":c": {"S": "far"}, ":b": {"S": "blue"}})
    assert got == [(f"k{i}", float(i)) for i in (21, 23, 25, 27, 29)]


def test_filter_numbers_by_value_and_or(ddb: Any) -> None:
    t = filtered_table(ddb)
    got = search(ddb, t, qv(0, 0, 0), k=4, SearchConditionExpression="#c = :c AND (#s = :s OR color = :r)",
                 ExpressionAttributeNames={"#c": "cat", "#s": "size"},
                 ExpressionAttributeValues={":c": {"S": "near"}, ":s": {"N": "2.0"}, ":r": {"S": "red"}})
    assert [pk for pk, _ in got] == ["k00", "k02", "k04", "k05"]


def test_projection_expression(ddb: Any) -> None:
    t = filtered_table(ddb)
    out = ddb.search_vectors(TableName=t, IndexName="emb-idx", SearchVector=qv(3, 0, 0), TopK=1,
                             SearchConditionExpression="cat = :c", ExpressionAttributeValues={":c": {"S": "near"}},
                             ProjectionExpression="title, #s", ExpressionAttributeNames={"#s": "size"})
    assert out["SearchResults"] == [{"Item": {"title": {"S": "t3"}, "size": {"N": "0"}}, "Score": 0.0}]


def test_keys_only_projection_returns_keys_and_schema_attributes(ddb: Any) -> None:
    t = create(ddb, vector_index(projection="KEYS_ONLY", schema=[("color", "INLINE_FILTER")]),
               defs=[("color", "S")])
    ddb.put_item(TableName=t, Item={"pk": {"S": "a"}, "emb": vec(1, 0, 0), "color": {"S": "red"}, "x": {"N": "1"}})
    out = ddb.search_vectors(TableName=t, IndexName="emb-idx", SearchVector=qv(1, 0, 0), TopK=1)
    assert out["SearchResults"] == [{"Item": {"pk": {"S": "a"}, "color": {"S": "red"}}, "Score": 0.0}]


def test_table_named_by_its_arn(ddb: Any) -> None:
    """SearchVectors' TableName is "the name or Amazon Resource Name (ARN) of the table"."""
    t = create(ddb)
    ddb.put_item(TableName=t, Item={"pk": {"S": "a"}, "emb": vec(1, 0, 0)})
    arn = ddb.describe_table(TableName=t)["Table"]["TableArn"]
    assert search(ddb, arn, qv(1, 0, 0)) == [("a", 0.0)]


def test_fewer_matches_than_top_k(ddb: Any) -> None:
    t = filtered_table(ddb)
    got = search(ddb, t, qv(0, 0, 0), k=100, SearchConditionExpression="cat = :c AND #s = :s", ExpressionAttributeNames={"#s": "size"},
                 ExpressionAttributeValues={":c": {"S": "near"}, ":s": {"N": "1"}})
    assert [pk for pk, _ in got] == [f"k{i:02}" for i in range(1, 20, 3)]


# --- capacity ------------------------------------------------------------------------------------------


def test_consumed_capacity_reports_vector_search_request_bytes(ddb: Any) -> None:
    t = create(ddb, vector_index(projection="KEYS_ONLY"))
    for i in range(7):
        ddb.put_item(TableName=t, Item={"pk": {"S": f"k{i}"}, "emb": vec(1, i, 0)})
    for rcc in ("TOTAL", "INDEXES"):
        out = ddb.search_vectors(TableName=t, IndexName="emb-idx", SearchVector=qv(1, 0, 0), TopK=2,
                                 ReturnConsumedCapacity=rcc)
        # 4 bytes x 3 dimensions x (1 + ceil(log2(7 + 1))) + two KEYS_ONLY entries of 19 bytes
        assert out["ConsumedCapacity"] == {"VectorSearchRequestBytes": float(12 * 4 + 2 * 19)}
    out = ddb.search_vectors(TableName=t, IndexName="emb-idx", SearchVector=qv(1, 0, 0), TopK=2)
    assert "ConsumedCapacity" not in out


def test_writes_report_vector_write_request_bytes(ddb: Any) -> None:
    """Under INDEXES a write reports the bytes it replicated to each vector index: the entry
    it put, or the one it removed (pk "a": 3 bytes, + "emb" 3 + 4 x 3 dimensions), with a
    floor of 1,024 per index of the request (issue 36)."""
    t = create(ddb, vector_index(projection="KEYS_ONLY"))
    item = {"pk": {"S": "a"}, "emb": vec(1, 2, 3)}
    out = ddb.put_item(TableName=t, Item=item, ReturnConsumedCapacity="INDEXES")
    assert out["ConsumedCapacity"]["VectorIndexes"] == {"emb-idx": {"VectorWriteRequestBytes": 1024.0}}
    assert out["ConsumedCapacity"]["CapacityUnits"] == 1.0  # vector bytes are metered apart
    # a write that changes nothing the index holds replicates nothing
    out = ddb.put_item(TableName=t, Item={**item, "other": {"S": "x"}}, ReturnConsumedCapacity="INDEXES")
    assert "VectorIndexes" not in out["ConsumedCapacity"]
    out = ddb.put_item(TableName=t, Item=item, ReturnConsumedCapacity="TOTAL")
    assert "VectorIndexes" not in out["ConsumedCapacity"]
    out = ddb.delete_item(TableName=t, Key={"pk": {"S": "a"}}, ReturnConsumedCapacity="INDEXES")
    assert out["ConsumedCapacity"]["VectorIndexes"] == {"emb-idx": {"VectorWriteRequestBytes": 1024.0}}
    out = ddb.batch_write_item(RequestItems={t: [{"PutRequest": {"Item": {"pk": {"S": f"b{i}"}, "emb": vec(1, i, 0)}}}
                                                 for i in range(2)]}, ReturnConsumedCapacity="INDEXES")
    # two entries of 19 bytes on one index: the floor once, per index, not per write
    assert out["ConsumedCapacity"][0]["VectorIndexes"] == {"emb-idx": {"VectorWriteRequestBytes": 1024.0}}


def test_search_attributes_stay_defined_while_an_index_uses_them(ddb: Any) -> None:
    """AttributeDefinitions keep a search-schema attribute while a vector index uses it (a
    GSI's deletion does not take it away), and lose it with the last such index."""
    t = create(ddb, vector_index(schema=[("color", "INLINE_FILTER")]), defs=[("color", "S"), ("g", "S")],
               GlobalSecondaryIndexes=[{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                        "Projection": {"ProjectionType": "KEYS_ONLY"}}])
    names = lambda: {d["AttributeName"] for d in ddb.describe_table(TableName=t)["Table"]["AttributeDefinitions"]}  # noqa: E731
    assert names() == {"pk", "color", "g"}
    ddb.update_table(TableName=t, GlobalSecondaryIndexUpdates=[{"Delete": {"IndexName": "by-g"}}])
    assert names() == {"pk", "color"}
    ddb.update_table(TableName=t, VectorIndexUpdates=[{"Delete": {"IndexName": "emb-idx"}}])
    assert names() == {"pk"}


def test_update_table_response_lists_the_deleted_index_after_those_that_stay(ddb: Any) -> None:
    t = create(ddb, vector_index(name="one"), vector_index(name="two", distance="DOT_PRODUCT"))
    ddb.put_item(TableName=t, Item={"pk": {"S": "a"}, "emb": vec(1, 0, 0)})
    out = ddb.update_table(TableName=t, VectorIndexUpdates=[{"Delete": {"IndexName": "one"}}])
    described = [(d["IndexName"], d["IndexStatus"], d["ItemCount"], d["DistanceFunction"])
                 for d in out["TableDescription"]["VectorIndexes"]]
    assert described == [("two", "ACTIVE", 1, "DOT_PRODUCT"), ("one", "DELETING", 1, "COSINE")]
    assert [d["IndexName"] for d in ddb.describe_table(TableName=t)["Table"]["VectorIndexes"]] == ["two"]
    assert search(ddb, t, qv(1, 0, 0), index="two") == [("a", 1.0)]
