"""ReturnConsumedCapacity on each data-plane operation."""

from __future__ import annotations

from typing import Any

from compat.harness import Ctx, scenario

KEY = {"pk": {"S": "k"}}
ITEM_2KB = {**KEY, "v": {"S": "x" * 2000}}


def _cc(r: dict[str, Any]) -> Any:
    return r.get("ConsumedCapacity", "absent") if "error" not in r else r


@scenario("capacity")
def put_total(c: Ctx) -> Any:
    """PutItem of a 2 KB item with TOTAL."""
    name = c.table()
    return _cc(c.ddb.put_item(TableName=name, Item=ITEM_2KB, ReturnConsumedCapacity="TOTAL"))


@scenario("capacity")
def put_none(c: Ctx) -> Any:
    """PutItem with NONE and without the parameter: no ConsumedCapacity."""
    name = c.table()
    return [_cc(c.ddb.put_item(TableName=name, Item=KEY, ReturnConsumedCapacity="NONE")),
            _cc(c.ddb.put_item(TableName=name, Item=KEY))]


@scenario("capacity")
def get_strong_and_eventual(c: Ctx) -> Any:
    """GetItem of a 2 KB item, strongly and eventually consistent, and of a missing item."""
    name = c.table()
    c.ddb.put_item(TableName=name, Item=ITEM_2KB)
    return [
        _cc(c.ddb.get_item(TableName=name, Key=KEY, ConsistentRead=True, ReturnConsumedCapacity="TOTAL")),
        _cc(c.ddb.get_item(TableName=name, Key=KEY, ReturnConsumedCapacity="TOTAL")),
        _cc(c.ddb.get_item(TableName=name, Key={"pk": {"S": "none"}}, ReturnConsumedCapacity="TOTAL")),
    ]


@scenario("capacity")
def update_indexes(c: Ctx) -> Any:
    """UpdateItem with INDEXES on a table without indexes."""
    name = c.table()
    return _cc(c.ddb.update_item(TableName=name, Key=KEY, UpdateExpression="SET v = :v",
                                 ExpressionAttributeValues={":v": {"S": "x"}}, ReturnConsumedCapacity="INDEXES"))


@scenario("capacity")
def delete_total(c: Ctx) -> Any:
    """DeleteItem of a 2 KB item and of a missing item with TOTAL."""
    name = c.table()
    c.ddb.put_item(TableName=name, Item=ITEM_2KB)
    return [_cc(c.ddb.delete_item(TableName=name, Key=KEY, ReturnConsumedCapacity="TOTAL")),
            _cc(c.ddb.delete_item(TableName=name, Key=KEY, ReturnConsumedCapacity="TOTAL"))]


@scenario("capacity")
def failed_condition_consumes(c: Ctx) -> Any:
    """A PutItem whose condition fails, with TOTAL: the error carries no capacity."""
    name = c.table()
    c.ddb.put_item(TableName=name, Item=KEY)
    return c.call("put_item", TableName=name, Item=KEY, ConditionExpression="attribute_not_exists(pk)",
                  ReturnConsumedCapacity="TOTAL")


@scenario("capacity")
def query_and_scan(c: Ctx) -> Any:
    """Query and Scan of ten 1 KB items with TOTAL (sizes summed, then rounded once)."""
    name = c.table(range=("sk", "N"))
    for i in range(10):
        c.ddb.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"N": str(i)}, "v": {"S": "x" * 1000}})
    q = c.ddb.query(TableName=name, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "p"}},
                    ReturnConsumedCapacity="TOTAL")
    s = c.ddb.scan(TableName=name, ReturnConsumedCapacity="TOTAL", ConsistentRead=True)
    return [_cc(q), _cc(s)]


@scenario("capacity")
def put_with_gsi_indexes(c: Ctx) -> Any:
    """PutItem with INDEXES on a table with a GSI: table and index units."""
    name = c.table(attrs=(("g", "S"),), GlobalSecondaryIndexes=[{
        "IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"}}])
    return _cc(c.ddb.put_item(TableName=name, Item={**KEY, "g": {"S": "x"}}, ReturnConsumedCapacity="INDEXES"))


@scenario("capacity")
def gsi_query_indexes(c: Ctx) -> Any:
    """Query of a GSI with INDEXES."""
    name = c.table(attrs=(("g", "S"),), GlobalSecondaryIndexes=[{
        "IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
        "Projection": {"ProjectionType": "ALL"}}])
    c.ddb.put_item(TableName=name, Item={**KEY, "g": {"S": "x"}})
    return _cc(c.ddb.query(TableName=name, IndexName="by-g", KeyConditionExpression="g = :g",
                           ExpressionAttributeValues={":g": {"S": "x"}}, ReturnConsumedCapacity="INDEXES"))


@scenario("capacity")
def batch_write_total(c: Ctx) -> Any:
    """BatchWriteItem of three items with TOTAL: one entry per table."""
    name = c.table()
    r = c.ddb.batch_write_item(RequestItems={name: [{"PutRequest": {"Item": {"pk": {"S": str(i)}, "v": {"S": "x" * 1500}}}}
                                                    for i in range(3)]}, ReturnConsumedCapacity="TOTAL")
    return _cc(r)


@scenario("capacity")
def batch_get_total(c: Ctx) -> Any:
    """BatchGetItem of two items (one missing) with TOTAL."""
    name = c.table()
    c.ddb.put_item(TableName=name, Item=ITEM_2KB)
    r = c.ddb.batch_get_item(RequestItems={name: {"Keys": [KEY, {"pk": {"S": "none"}}]}}, ReturnConsumedCapacity="TOTAL")
    return _cc(r)


@scenario("capacity")
def transact_write_total(c: Ctx) -> Any:
    """TransactWriteItems of two small puts with TOTAL (transactional writes cost double)."""
    name = c.table()
    r = c.ddb.transact_write_items(TransactItems=[{"Put": {"TableName": name, "Item": {"pk": {"S": k}}}} for k in "ab"],
                                   ReturnConsumedCapacity="TOTAL")
    return _cc(r)


@scenario("capacity")
def transact_get_total(c: Ctx) -> Any:
    """TransactGetItems of one item with TOTAL."""
    name = c.table()
    c.ddb.put_item(TableName=name, Item=KEY)
    r = c.ddb.transact_get_items(TransactItems=[{"Get": {"TableName": name, "Key": KEY}}], ReturnConsumedCapacity="TOTAL")
    return _cc(r)


@scenario("capacity")
def invalid_value(c: Ctx) -> Any:
    """ReturnConsumedCapacity set to a value outside the enum (sent raw, past boto3's checks)."""
    name = c.table()
    c.override("GetItem", ReturnConsumedCapacity="EVERYTHING")
    return c.call("get_item", TableName=name, Key=KEY, ReturnConsumedCapacity="TOTAL")


def _indexed(c: Ctx) -> str:
    """pk/sk table with an LSI (sort on l, KEYS_ONLY) and a GSI on g (ALL)."""
    return c.table(
        range=("sk", "S"), attrs=(("l", "S"), ("g", "S")),
        LocalSecondaryIndexes=[{"IndexName": "by-l", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                                                   {"AttributeName": "l", "KeyType": "RANGE"}],
                                "Projection": {"ProjectionType": "KEYS_ONLY"}}],
        GlobalSecondaryIndexes=[{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
    )


@scenario("capacity")
def update_moves_gsi_key(c: Ctx) -> Any:
    """UpdateItem changing a GSI key and an LSI key with INDEXES: each index writes twice (delete + put)."""
    name = _indexed(c)
    key = {"pk": {"S": "p"}, "sk": {"S": "s"}}
    c.ddb.put_item(TableName=name, Item={**key, "l": {"S": "a"}, "g": {"S": "x"}})
    return _cc(c.ddb.update_item(TableName=name, Key=key, UpdateExpression="SET g = :y, l = :b",
                                 ExpressionAttributeValues={":y": {"S": "y"}, ":b": {"S": "b"}}, ReturnConsumedCapacity="INDEXES"))


@scenario("capacity")
def delete_with_indexes(c: Ctx) -> Any:
    """DeleteItem of an item in both indexes, with INDEXES."""
    name = _indexed(c)
    key = {"pk": {"S": "p"}, "sk": {"S": "s"}}
    c.ddb.put_item(TableName=name, Item={**key, "l": {"S": "a"}, "g": {"S": "x"}})
    return _cc(c.ddb.delete_item(TableName=name, Key=key, ReturnConsumedCapacity="INDEXES"))


@scenario("capacity")
def lsi_query_fetch(c: Ctx) -> Any:
    """Query of a KEYS_ONLY LSI asking for all attributes of two 5 KB items, with INDEXES."""
    name = _indexed(c)
    for sk in "ab":
        c.ddb.put_item(TableName=name, Item={"pk": {"S": "p"}, "sk": {"S": sk}, "l": {"S": sk}, "v": {"S": "x" * 5000}})
    return _cc(c.ddb.query(TableName=name, IndexName="by-l", KeyConditionExpression="pk = :p", Select="ALL_ATTRIBUTES",
                           ExpressionAttributeValues={":p": {"S": "p"}}, ReturnConsumedCapacity="INDEXES"))


@scenario("capacity")
def scan_filter_charges_all_read(c: Ctx) -> Any:
    """Scan with a filter that keeps nothing: charged for everything read."""
    name = c.table()
    for i in range(4):
        c.ddb.put_item(TableName=name, Item={"pk": {"S": str(i)}, "v": {"S": "x" * 3000}})
    return _cc(c.ddb.scan(TableName=name, FilterExpression="attribute_exists(nothing)", ConsistentRead=True,
                          ReturnConsumedCapacity="TOTAL"))


@scenario("capacity")
def transact_write_indexes(c: Ctx) -> Any:
    """TransactWriteItems putting an item with a GSI key, with INDEXES."""
    name = _indexed(c)
    return _cc(c.ddb.transact_write_items(TransactItems=[{"Put": {"TableName": name, "Item": {
        "pk": {"S": "p"}, "sk": {"S": "s"}, "g": {"S": "x"}}}}], ReturnConsumedCapacity="INDEXES"))


@scenario("capacity")
def idempotent_retry_charges_reads(c: Ctx) -> Any:
    """A TransactWriteItems repeated with its ClientRequestToken: the repeat reports read units."""
    name = c.table()
    items = [{"Put": {"TableName": name, "Item": {"pk": {"S": "a"}}}}]
    first = c.ddb.transact_write_items(TransactItems=items, ClientRequestToken="t1", ReturnConsumedCapacity="TOTAL")
    again = c.ddb.transact_write_items(TransactItems=items, ClientRequestToken="t1", ReturnConsumedCapacity="TOTAL")
    return [_cc(first), _cc(again)]


@scenario("capacity")
def projection_does_not_reduce(c: Ctx) -> Any:
    """GetItem of a 6 KB item projecting the key only: still 2 units strongly consistent."""
    name = c.table()
    c.ddb.put_item(TableName=name, Item={"pk": {"S": "k"}, "v": {"S": "x" * 6000}})
    return _cc(c.ddb.get_item(TableName=name, Key={"pk": {"S": "k"}}, ProjectionExpression="pk", ConsistentRead=True,
                              ReturnConsumedCapacity="TOTAL"))
