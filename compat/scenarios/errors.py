"""The common errors: missing tables, failed conditions, validation of requests."""

from __future__ import annotations

from typing import Any

from compat.harness import Ctx, scenario

KEY = {"pk": {"S": "k"}}


@scenario("errors")
def missing_table_data_plane(c: Ctx) -> Any:
    """Each item operation, Query and Scan on a table that does not exist."""
    name = c.name("missing")
    return {
        "get": c.call("get_item", TableName=name, Key=KEY),
        "put": c.call("put_item", TableName=name, Item=KEY),
        "update": c.call("update_item", TableName=name, Key=KEY, UpdateExpression="SET a = :a",
                         ExpressionAttributeValues={":a": {"N": "1"}}),
        "delete": c.call("delete_item", TableName=name, Key=KEY),
        "query": c.call("query", TableName=name, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": KEY["pk"]}),
        "scan": c.call("scan", TableName=name),
    }


@scenario("errors")
def condition_failed_each_write(c: Ctx) -> Any:
    """ConditionalCheckFailedException from PutItem, UpdateItem and DeleteItem."""
    name = c.table()
    c.ddb.put_item(TableName=name, Item={**KEY, "v": {"N": "1"}})
    cond = {"ConditionExpression": "v = :two", "ExpressionAttributeValues": {":two": {"N": "2"}}}
    return {
        "put": c.call("put_item", TableName=name, Item=KEY, **cond),
        "update": c.call("update_item", TableName=name, Key=KEY, UpdateExpression="REMOVE v", **cond),
        "delete": c.call("delete_item", TableName=name, Key=KEY, **cond),
    }


@scenario("errors")
def limit_zero_scan(c: Ctx) -> Any:
    """Scan with Limit 0 (sent raw)."""
    name = c.table()
    c.override("Scan", Limit=0)
    return c.call("scan", TableName=name, Limit=1)


@scenario("errors")
def table_name_too_short(c: Ctx) -> Any:
    """GetItem with a two-character table name (sent raw)."""
    c.override("GetItem", TableName="ab")
    return c.call("get_item", TableName="abc", Key=KEY)


@scenario("errors")
def table_name_bad_characters(c: Ctx) -> Any:
    """PutItem with a table name holding a space (sent raw)."""
    c.override("PutItem", TableName="bad name")
    return c.call("put_item", TableName="bad", Item=KEY)


@scenario("errors")
def invalid_select(c: Ctx) -> Any:
    """Query with Select set to a value outside the enum (sent raw)."""
    name = c.table()
    c.override("Query", Select="SOME")
    return c.call("query", TableName=name, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": KEY["pk"]})


@scenario("errors")
def attribute_value_two_types(c: Ctx) -> Any:
    """An attribute value with two type descriptors (sent raw)."""
    name = c.table()
    c.override("PutItem", Item={**KEY, "v": {"S": "a", "N": "1"}})
    return c.call("put_item", TableName=name, Item=KEY)


@scenario("errors")
def attribute_value_no_type(c: Ctx) -> Any:
    """An attribute value with no type descriptor (sent raw)."""
    name = c.table()
    c.override("PutItem", Item={**KEY, "v": {}})
    return c.call("put_item", TableName=name, Item=KEY)


@scenario("errors")
def both_expression_and_legacy(c: Ctx) -> Any:
    """ConditionExpression together with Expected."""
    name = c.table()
    return c.call("put_item", TableName=name, Item=KEY, ConditionExpression="attribute_not_exists(pk)",
                  Expected={"pk": {"Exists": False}})


@scenario("errors")
def values_without_expression(c: Ctx) -> Any:
    """ExpressionAttributeValues given with no expression at all."""
    name = c.table()
    return c.call("put_item", TableName=name, Item=KEY, ExpressionAttributeValues={":v": {"N": "1"}})


@scenario("errors")
def empty_expression_values(c: Ctx) -> Any:
    """An empty ExpressionAttributeValues map."""
    name = c.table()
    return c.call("put_item", TableName=name, Item=KEY, ConditionExpression="attribute_not_exists(pk)",
                  ExpressionAttributeValues={})


@scenario("errors")
def update_empty_set_value(c: Ctx) -> Any:
    """UpdateItem SET with an empty number set as value."""
    name = c.table()
    return c.call("update_item", TableName=name, Key=KEY, UpdateExpression="SET v = :v",
                  ExpressionAttributeValues={":v": {"NS": []}})


@scenario("errors")
def invalid_number_in_key(c: Ctx) -> Any:
    """GetItem with a non-numeric N in the key."""
    name = c.table(hash=("id", "N"))
    return c.call("get_item", TableName=name, Key={"id": {"N": "1x"}})


@scenario("errors")
def missing_shard(c: Ctx) -> Any:
    """GetShardIterator for a shard that does not exist."""
    name = c.table(StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})
    arn = c.ddb.describe_table(TableName=name)["Table"]["LatestStreamArn"]
    return c.call("get_shard_iterator", service="dynamodbstreams", StreamArn=arn,
                  ShardId="shardId-00000000000000000000-00000000", ShardIteratorType="TRIM_HORIZON")


@scenario("errors")
def throughput_exceeded(c: Ctx) -> Any:
    """Strong reads of a 300 KB item from a table provisioned with 1 RCU, until refused."""
    name = c.table(BillingMode="PROVISIONED", ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1000})
    c.ddb.put_item(TableName=name, Item={**KEY, "v": {"S": "x" * 300_000}})
    for _ in range(10):
        r = c.call("get_item", TableName=name, Key=KEY, ConsistentRead=True, ProjectionExpression="pk")
        if "error" in r:
            return {k: v for k, v in r.items() if k in ("error", "message")}
    return "never refused"


@scenario("errors")
def on_demand_with_throughput(c: Ctx) -> Any:
    """CreateTable PAY_PER_REQUEST with ProvisionedThroughput."""
    r = c.call("create_table", TableName=c.name(), BillingMode="PAY_PER_REQUEST",
               ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
               KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
               AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    return r if "error" in r else r["TableDescription"]["TableStatus"]


@scenario("errors")
def empty_attribute_name(c: Ctx) -> Any:
    """PutItem with an attribute whose name is empty."""
    name = c.table()
    return c.call("put_item", TableName=name, Item={**KEY, "": {"S": "x"}})


@scenario("errors")
def name_placeholder_without_hash(c: Ctx) -> Any:
    """An ExpressionAttributeNames key that does not start with #."""
    name = c.table()
    return c.call("get_item", TableName=name, Key=KEY, ProjectionExpression="pk", ExpressionAttributeNames={"n": "pk"})


@scenario("errors")
def key_condition_with_or(c: Ctx) -> Any:
    """A KeyConditionExpression joining conditions with OR."""
    name = c.table(range=("sk", "N"))
    return c.call("query", TableName=name, KeyConditionExpression="pk = :p OR sk = :s",
                  ExpressionAttributeValues={":p": KEY["pk"], ":s": {"N": "1"}})


@scenario("errors")
def key_condition_two_on_sort_key(c: Ctx) -> Any:
    """A KeyConditionExpression with two conditions on the sort key."""
    name = c.table(range=("sk", "N"))
    return c.call("query", TableName=name, KeyConditionExpression="pk = :p AND sk > :a AND sk < :b",
                  ExpressionAttributeValues={":p": KEY["pk"], ":a": {"N": "1"}, ":b": {"N": "5"}})


@scenario("errors")
def batch_item_too_large(c: Ctx) -> Any:
    """BatchWriteItem with one item over 400 KB: the whole batch is refused."""
    name = c.table()
    r = c.call("batch_write_item", RequestItems={name: [
        {"PutRequest": {"Item": {"pk": {"S": "small"}}}},
        {"PutRequest": {"Item": {"pk": {"S": "big"}, "v": {"S": "x" * (400 * 1024 + 1)}}}}]})
    return {"answer": r, "written": c.ddb.scan(TableName=name)["Count"]}


@scenario("errors")
def update_makes_item_too_large(c: Ctx) -> Any:
    """UpdateItem that would grow an item past 400 KB."""
    name = c.table()
    c.ddb.put_item(TableName=name, Item={**KEY, "a": {"S": "x" * 300_000}})
    return c.call("update_item", TableName=name, Key=KEY, UpdateExpression="SET b = :v",
                  ExpressionAttributeValues={":v": {"S": "y" * 120_000}})


@scenario("errors")
def transaction_update_key(c: Ctx) -> Any:
    """A transaction whose Update sets the partition key."""
    name = c.table()
    return c.call("transact_write_items", TransactItems=[{"Update": {
        "TableName": name, "Key": KEY, "UpdateExpression": "SET pk = :v", "ExpressionAttributeValues": {":v": {"S": "z"}}}}])


@scenario("errors")
def transaction_item_too_large(c: Ctx) -> Any:
    """A transaction putting an item over 400 KB."""
    name = c.table()
    return c.call("transact_write_items", TransactItems=[
        {"Put": {"TableName": name, "Item": {"pk": {"S": "a"}}}},
        {"Put": {"TableName": name, "Item": {"pk": {"S": "b"}, "v": {"S": "x" * (400 * 1024 + 1)}}}}])
