"""Vector indexes and SearchVectors (developer guide, "Vector indexes"): moto implements
none of it (it creates the table without the index and does not know SearchVectors)."""

from __future__ import annotations

from typing import Any

from compat.harness import Ctx, scenario
from compat.scenarios._util import pick


def _vec(*xs: float) -> dict[str, Any]:
    return {"L": [{"N": str(x)} for x in xs]}


def _table(c: Ctx, **extra: Any) -> str:
    """An on-demand table with vector index ``emb-idx`` (3 dimensions, COSINE) filtered on
    ``color``, and four items."""
    name = c.table(attrs=(("color", "S"),), VectorIndexes=[{
        "IndexName": "emb-idx", "VectorAttribute": {"AttributeName": "emb"}, "Dimensions": 3,
        "DistanceFunction": "COSINE", "Projection": {"ProjectionType": "KEYS_ONLY"},
        "SearchSchema": [{"AttributeName": "color", "SearchSchemaElementType": "INLINE_FILTER"}],
    }], **extra)  # fmt: skip
    for pk, v, color in (("a", (1, 0, 0), "red"), ("b", (0, 1, 0), "red"), ("c", (1, 1, 0), "blue"),
                         ("d", (-1, 0, 0), "blue")):
        c.call("put_item", TableName=name, Item={"pk": {"S": pk}, "emb": _vec(*v), "color": {"S": color}})
    return name


def _search(c: Ctx, name: str, **kw: Any) -> Any:
    args = {"TableName": name, "IndexName": "emb-idx", "SearchVector": _vec(1, 0, 0)["L"], "TopK": 3, **kw}
    return pick(c.call("search_vectors", **args), "SearchResults", "ConsumedCapacity")


@scenario("vectors")
def describe_vector_index(c: Ctx) -> Any:
    """DescribeTable lists the vector index, its status and its exact ItemCount."""
    name = _table(c)
    table = c.call("describe_table", TableName=name)["Table"]
    return [{k: ix[k] for k in ("IndexName", "IndexStatus", "ItemCount", "Dimensions")}
            for ix in table.get("VectorIndexes", [])]


@scenario("vectors")
def search_vectors_cosine(c: Ctx) -> Any:
    """SearchVectors: COSINE scores 1 - cos, smallest first."""
    return _search(c, _table(c))


@scenario("vectors")
def search_vectors_filter(c: Ctx) -> Any:
    """An INLINE_FILTER equality, applied before the top-K."""
    return _search(c, _table(c), SearchConditionExpression="color = :c",
                   ExpressionAttributeValues={":c": {"S": "blue"}})


@scenario("vectors")
def search_vectors_in_between_or(c: Ctx) -> Any:
    """IN, BETWEEN, OR and NOT on INLINE_FILTER attributes ("SearchConditionExpression
    reference for vector indexes")."""
    return _search(c, _table(c), SearchConditionExpression="color IN (:r) OR NOT color BETWEEN :a AND :z",
                   ExpressionAttributeValues={":r": {"S": "red"}, ":a": {"S": "a"}, ":z": {"S": "z"}})


@scenario("vectors")
def search_vectors_top_k_out_of_range(c: Ctx) -> Any:
    """TopK above 100."""
    return _search(c, _table(c), TopK=101)


@scenario("vectors")
def put_vector_of_wrong_dimensions(c: Ctx) -> Any:
    """A vector whose dimension count is not the index's refuses the write."""
    name = _table(c)
    return c.call("put_item", TableName=name, Item={"pk": {"S": "x"}, "emb": _vec(1, 2)})


@scenario("vectors")
def vector_index_on_provisioned_table(c: Ctx) -> Any:
    """Vector indexes need an on-demand table."""
    name = c.name("provisioned")
    r = c.call("create_table", TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
               AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
               ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
               VectorIndexes=[{"IndexName": "emb-idx", "VectorAttribute": {"AttributeName": "emb"}, "Dimensions": 3,
                               "DistanceFunction": "COSINE", "Projection": {"ProjectionType": "ALL"}}])
    return pick(r.get("TableDescription", r), "TableName", "error", "message") if "error" not in r else r
