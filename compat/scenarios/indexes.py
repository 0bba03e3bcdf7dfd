"""Local and global secondary indexes: Query, Scan, projections, sparse indexes, errors."""

from __future__ import annotations

from typing import Any

from compat.harness import Ctx, scenario
from compat.scenarios._util import pick, sorted_items


def _table(c: Ctx, gsi_projection: dict[str, Any] | None = None) -> str:
    """pk/sk table with LSI ``by-l`` (sort on l, KEYS_ONLY) and GSI ``by-g`` (g/gs)."""
    name = c.table(
        range=("sk", "S"),
        attrs=(("l", "N"), ("g", "S"), ("gs", "N")),
        LocalSecondaryIndexes=[{
            "IndexName": "by-l",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "l", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }],
        GlobalSecondaryIndexes=[{
            "IndexName": "by-g",
            "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "gs", "KeyType": "RANGE"}],
            "Projection": gsi_projection or {"ProjectionType": "ALL"},
        }],
    )
    rows = [("a", 3, "x", 1), ("b", 1, "x", 2), ("c", 2, "y", 1), ("d", None, "x", None), ("e", 5, None, None)]
    for sk, l_val, g, gs in rows:
        item: dict[str, Any] = {"pk": {"S": "p"}, "sk": {"S": sk}, "other": {"S": f"o-{sk}"}}
        if l_val is not None:
            item["l"] = {"N": str(l_val)}
        if g is not None:
            item["g"] = {"S": g}
        if gs is not None:
            item["gs"] = {"N": str(gs)}
        c.ddb.put_item(TableName=name, Item=item)
    return name


def _q(c: Ctx, name: str, index: str, cond: str, values: dict[str, Any], **kw: Any) -> Any:
    r = c.call("query", TableName=name, IndexName=index, KeyConditionExpression=cond,
               ExpressionAttributeValues=values, **kw)
    return pick(r, "Items", "Count", "ScannedCount", "LastEvaluatedKey")


@scenario("indexes")
def gsi_query(c: Ctx) -> Any:
    """Query a GSI (ALL projection) on hash and range."""
    name = _table(c)
    return _q(c, name, "by-g", "g = :x AND gs >= :one", {":x": {"S": "x"}, ":one": {"N": "1"}})


@scenario("indexes")
def gsi_query_sparse(c: Ctx) -> Any:
    """A GSI holds only items with both its key attributes."""
    name = _table(c)
    return _q(c, name, "by-g", "g = :x", {":x": {"S": "x"}}, Select="COUNT")


@scenario("indexes")
def gsi_consistent_read(c: Ctx) -> Any:
    """ConsistentRead on a GSI Query."""
    name = _table(c)
    return _q(c, name, "by-g", "g = :x", {":x": {"S": "x"}}, ConsistentRead=True)


@scenario("indexes")
def gsi_keys_only_projection(c: Ctx) -> Any:
    """A KEYS_ONLY GSI returns index and table keys only."""
    name = _table(c, {"ProjectionType": "KEYS_ONLY"})
    return _q(c, name, "by-g", "g = :y", {":y": {"S": "y"}})


@scenario("indexes")
def gsi_include_projection(c: Ctx) -> Any:
    """An INCLUDE GSI returns keys plus the included attribute."""
    name = _table(c, {"ProjectionType": "INCLUDE", "NonKeyAttributes": ["other"]})
    return _q(c, name, "by-g", "g = :y", {":y": {"S": "y"}})


@scenario("indexes")
def gsi_select_all_attributes_keys_only(c: Ctx) -> Any:
    """Select ALL_ATTRIBUTES on a KEYS_ONLY GSI."""
    name = _table(c, {"ProjectionType": "KEYS_ONLY"})
    return _q(c, name, "by-g", "g = :y", {":y": {"S": "y"}}, Select="ALL_ATTRIBUTES")


@scenario("indexes")
def gsi_descending_limit(c: Ctx) -> Any:
    """GSI Query backwards with Limit 1: LastEvaluatedKey holds index and table keys."""
    name = _table(c)
    return _q(c, name, "by-g", "g = :x", {":x": {"S": "x"}}, ScanIndexForward=False, Limit=1)


@scenario("indexes")
def gsi_scan(c: Ctx) -> Any:
    """Scan of a GSI."""
    name = _table(c)
    r = c.ddb.scan(TableName=name, IndexName="by-g")
    return {"Count": r["Count"], "Items": sorted_items(r["Items"])}


@scenario("indexes")
def gsi_follows_updates(c: Ctx) -> Any:
    """After an update moves an item to another GSI key and a delete, the GSI follows."""
    name = _table(c)
    c.ddb.update_item(TableName=name, Key={"pk": {"S": "p"}, "sk": {"S": "a"}}, UpdateExpression="SET g = :y",
                      ExpressionAttributeValues={":y": {"S": "y"}})
    c.ddb.delete_item(TableName=name, Key={"pk": {"S": "p"}, "sk": {"S": "b"}})
    out = {}
    for g in ("x", "y"):
        r = c.ddb.query(TableName=name, IndexName="by-g", KeyConditionExpression="g = :g",
                        ExpressionAttributeValues={":g": {"S": g}})
        out[g] = [i["sk"]["S"] for i in r["Items"]]
    return out


@scenario("indexes")
def lsi_query(c: Ctx) -> Any:
    """Query an LSI (KEYS_ONLY) in sort order of the LSI key, strongly consistent."""
    name = _table(c)
    return _q(c, name, "by-l", "pk = :p AND l > :one", {":p": {"S": "p"}, ":one": {"N": "1"}}, ConsistentRead=True)


@scenario("indexes")
def lsi_fetches_unprojected(c: Ctx) -> Any:
    """Select ALL_ATTRIBUTES on a KEYS_ONLY LSI fetches whole items from the table."""
    name = _table(c)
    return _q(c, name, "by-l", "pk = :p", {":p": {"S": "p"}}, Select="ALL_ATTRIBUTES")


@scenario("indexes")
def lsi_projection_expression(c: Ctx) -> Any:
    """A ProjectionExpression naming a non-projected attribute on an LSI query."""
    name = _table(c)
    return _q(c, name, "by-l", "pk = :p", {":p": {"S": "p"}}, ProjectionExpression="sk, #o",
              ExpressionAttributeNames={"#o": "other"})


@scenario("indexes")
def unknown_index(c: Ctx) -> Any:
    """Query of an index the table does not have."""
    name = _table(c)
    return _q(c, name, "nope", "g = :x", {":x": {"S": "x"}})


@scenario("indexes")
def index_key_wrong_type(c: Ctx) -> Any:
    """PutItem with a GSI key attribute of the wrong type."""
    name = _table(c)
    return c.call("put_item", TableName=name, Item={"pk": {"S": "p"}, "sk": {"S": "z"}, "g": {"N": "1"}})


@scenario("indexes")
def describe_indexes(c: Ctx) -> Any:
    """DescribeTable's index descriptions, without their sizes and ARNs."""
    name = _table(c)
    t = c.ddb.describe_table(TableName=name)["Table"]
    keep = ("IndexName", "KeySchema", "Projection", "IndexStatus")
    return {
        "lsi": [pick(i, *keep) for i in t.get("LocalSecondaryIndexes", [])],
        "gsi": [pick(i, *keep) for i in t.get("GlobalSecondaryIndexes", [])],
    }


@scenario("indexes")
def query_index_wrong_key(c: Ctx) -> Any:
    """Query a GSI with the table's partition key in the key condition."""
    name = _table(c)
    return _q(c, name, "by-g", "pk = :p", {":p": {"S": "p"}})


@scenario("indexes")
def gsi_scan_consistent(c: Ctx) -> Any:
    """Scan of a GSI with ConsistentRead."""
    name = _table(c)
    return c.call("scan", TableName=name, IndexName="by-g", ConsistentRead=True)


@scenario("indexes")
def gsi_key_empty_string(c: Ctx) -> Any:
    """PutItem whose GSI key attribute is an empty string."""
    name = _table(c)
    return c.call("put_item", TableName=name, Item={"pk": {"S": "p"}, "sk": {"S": "z"}, "g": {"S": ""}})


@scenario("indexes")
def gsi_query_paging(c: Ctx) -> Any:
    """A GSI Query with Limit 1, followed page by page."""
    name = _table(c)
    pages, start = [], None
    for _ in range(5):
        args: dict[str, Any] = {"TableName": name, "IndexName": "by-g", "KeyConditionExpression": "g = :x",
                                "ExpressionAttributeValues": {":x": {"S": "x"}}, "Limit": 1}
        if start:
            args["ExclusiveStartKey"] = start
        r = c.ddb.query(**args)
        pages.append([i["sk"]["S"] for i in r["Items"]])
        start = r.get("LastEvaluatedKey")
        if not start:
            break
    return pages
