"""BatchWriteItem and BatchGetItem, their limits and Unprocessed* answers."""

from __future__ import annotations

from typing import Any

from compat.harness import Ctx, scenario
from compat.scenarios._util import sorted_items


def _puts(keys: list[str], **extra: Any) -> list[dict[str, Any]]:
    return [{"PutRequest": {"Item": {"pk": {"S": k}, **extra}}} for k in keys]


def _normal_get(r: dict[str, Any]) -> dict[str, Any]:
    if "error" in r:
        return r
    return {
        "Responses": {t: sorted_items(items) for t, items in r.get("Responses", {}).items()},
        "UnprocessedKeys": r.get("UnprocessedKeys"),
    }


@scenario("batch")
def write_then_get(c: Ctx) -> Any:
    """BatchWriteItem of puts, then BatchGetItem of them and of a missing key."""
    name = c.table()
    w = c.ddb.batch_write_item(RequestItems={name: _puts(["a", "b", "c"], v={"N": "1"})})
    keys = [{"pk": {"S": k}} for k in ("a", "b", "zz")]
    g = c.ddb.batch_get_item(RequestItems={name: {"Keys": keys}})
    return {"write": w, "get": _normal_get(g)}


@scenario("batch")
def two_tables(c: Ctx) -> Any:
    """One BatchWriteItem and one BatchGetItem across two tables."""
    a, b = c.table("a"), c.table("b")
    w = c.ddb.batch_write_item(RequestItems={a: _puts(["1"]), b: _puts(["2"])})
    g = c.ddb.batch_get_item(RequestItems={a: {"Keys": [{"pk": {"S": "1"}}]}, b: {"Keys": [{"pk": {"S": "2"}}]}})
    return {"write": w, "get": _normal_get(g)}


@scenario("batch")
def deletes(c: Ctx) -> Any:
    """BatchWriteItem mixing puts and deletes (one of a missing item)."""
    name = c.table()
    c.ddb.batch_write_item(RequestItems={name: _puts(["a", "b"])})
    w = c.ddb.batch_write_item(RequestItems={name: [
        {"DeleteRequest": {"Key": {"pk": {"S": "a"}}}},
        {"DeleteRequest": {"Key": {"pk": {"S": "nope"}}}},
        *_puts(["c"]),
    ]})
    return {"write": w, "left": sorted(i["pk"]["S"] for i in c.ddb.scan(TableName=name)["Items"])}


@scenario("batch")
def get_projection(c: Ctx) -> Any:
    """BatchGetItem with a ProjectionExpression and ExpressionAttributeNames."""
    name = c.table()
    c.ddb.batch_write_item(RequestItems={name: _puts(["a"], x={"S": "1"}, y={"S": "2"})})
    g = c.ddb.batch_get_item(RequestItems={name: {"Keys": [{"pk": {"S": "a"}}], "ProjectionExpression": "#x",
                                                  "ExpressionAttributeNames": {"#x": "x"}}})
    return _normal_get(g)


@scenario("batch")
def write_26_requests(c: Ctx) -> Any:
    """BatchWriteItem of 26 requests (the limit is 25)."""
    name = c.table()
    return c.call("batch_write_item", RequestItems={name: _puts([str(i) for i in range(26)])})


@scenario("batch")
def get_101_keys(c: Ctx) -> Any:
    """BatchGetItem of 101 keys (the limit is 100)."""
    name = c.table()
    return c.call("batch_get_item", RequestItems={name: {"Keys": [{"pk": {"S": str(i)}} for i in range(101)]}})


@scenario("batch")
def write_duplicate_keys(c: Ctx) -> Any:
    """BatchWriteItem putting the same key twice."""
    name = c.table()
    return c.call("batch_write_item", RequestItems={name: _puts(["a", "a"])})


@scenario("batch")
def get_duplicate_keys(c: Ctx) -> Any:
    """BatchGetItem asking for the same key twice."""
    name = c.table()
    return c.call("batch_get_item", RequestItems={name: {"Keys": [{"pk": {"S": "a"}}, {"pk": {"S": "a"}}]}})


@scenario("batch")
def write_missing_table(c: Ctx) -> Any:
    """BatchWriteItem to a table that does not exist."""
    return c.call("batch_write_item", RequestItems={c.name("missing"): _puts(["a"])})


@scenario("batch")
def get_missing_table(c: Ctx) -> Any:
    """BatchGetItem from a table that does not exist."""
    return c.call("batch_get_item", RequestItems={c.name("missing"): {"Keys": [{"pk": {"S": "a"}}]}})


@scenario("batch")
def write_bad_key(c: Ctx) -> Any:
    """BatchWriteItem whose item lacks the key: the whole batch is rejected."""
    name = c.table()
    r = c.call("batch_write_item", RequestItems={name: [*_puts(["ok"]), {"PutRequest": {"Item": {"x": {"S": "1"}}}}]})
    return {"answer": r, "written": c.ddb.scan(TableName=name)["Count"]}


@scenario("batch")
def write_full_batch(c: Ctx) -> Any:
    """BatchWriteItem of 25 puts of 10 KB: nothing unprocessed."""
    name = c.table()
    w = c.ddb.batch_write_item(RequestItems={name: _puts([str(i) for i in range(25)], v={"S": "x" * 10240})})
    return {"write": w, "count": c.ddb.scan(TableName=name, Select="COUNT")["Count"]}


@scenario("batch")
def get_consistent_read(c: Ctx) -> Any:
    """BatchGetItem with ConsistentRead true, reading its own write."""
    name = c.table()
    c.ddb.put_item(TableName=name, Item={"pk": {"S": "a"}})
    return _normal_get(c.ddb.batch_get_item(RequestItems={name: {"Keys": [{"pk": {"S": "a"}}], "ConsistentRead": True}}))


@scenario("batch")
def write_empty_request(c: Ctx) -> Any:
    """BatchWriteItem with an empty list of requests for a table (sent raw)."""
    name = c.table()
    c.override("BatchWriteItem", RequestItems={name: []})
    return c.call("batch_write_item", RequestItems={name: _puts(["a"])})


def _count(c: Ctx, name: str) -> int:
    """Items in a table, across Scan pages."""
    total, start = 0, None
    while True:
        args: dict[str, Any] = {"TableName": name, "Select": "COUNT", "ConsistentRead": True}
        if start:
            args["ExclusiveStartKey"] = start
        r = c.ddb.scan(**args)
        total += r["Count"]
        start = r.get("LastEvaluatedKey")
        if not start:
            return total


def _outcome(processed: int, unprocessed: int, total: int) -> dict[str, Any]:
    """Which requests a throttled batch left unprocessed depends on timing; what it did not."""
    return {"some processed": processed > 0, "some unprocessed": unprocessed > 0, "all accounted": processed + unprocessed == total}


@scenario("batch")
def write_unprocessed_when_throttled(c: Ctx) -> Any:
    """25 puts of 100 KB to a table provisioned with 1 WCU: past its burst, UnprocessedItems."""
    name = c.table(BillingMode="PROVISIONED", ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    r = c.ddb.batch_write_item(RequestItems={name: _puts([f"{i:02}" for i in range(25)], v={"S": "x" * 100_000})})
    left = len(r["UnprocessedItems"].get(name, []))
    return _outcome(_count(c, name), left, 25)


@scenario("batch")
def get_unprocessed_when_throttled(c: Ctx) -> Any:
    """20 strong reads of 100 KB from a table provisioned with 1 RCU: past its burst, UnprocessedKeys."""
    # 4000 WCU: four partitions, so that writing the items stays under each one's 1000 WCU/s
    name = c.table(BillingMode="PROVISIONED", ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 4000})
    keys = [f"{i:02}" for i in range(20)]
    c.ddb.batch_write_item(RequestItems={name: _puts(keys[:10], v={"S": "x" * 100_000})})
    c.ddb.batch_write_item(RequestItems={name: _puts(keys[10:], v={"S": "x" * 100_000})})
    r = c.ddb.batch_get_item(RequestItems={name: {"Keys": [{"pk": {"S": k}} for k in keys], "ConsistentRead": True}})
    got = len(r["Responses"].get(name, []))
    left = len(r["UnprocessedKeys"].get(name, {}).get("Keys", []))
    return _outcome(got, left, 20)
