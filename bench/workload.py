"""What the benchmarks send: items, request bodies and whole pre-built HTTP/1.1 requests.

Shared by the load generator, the baseline server (which answers GetItem with an item of the
same shape) and the benchmark drivers, so every side agrees on the workload.
"""

from __future__ import annotations

import random
from typing import Any

import orjson

TARGET_PREFIX = "DynamoDB_20120810."
OPERATIONS = ("GetItem", "PutItem", "UpdateItem", "Query", "BatchWriteItem")
DEFAULT_TABLE = "bench_items"
# Query reads 10 of the 100 items under one partition key of this table (pk S, sk N).
QUERY_TABLE = "bench_query"
QUERY_PARTITIONS = 100
QUERY_ITEMS_PER_KEY = 100
QUERY_PAGE = 10
BATCH_SIZE = 25
# What boto3 sends, signed-looking: dynemu reads the access key and region from the scope.
AUTHORIZATION = (
    "AWS4-HMAC-SHA256 Credential=AKID/20250101/us-east-1/dynamodb/aws4_request, "
    "SignedHeaders=host, Signature=x"
)
CONTENT_TYPE = "application/x-amz-json-1.0"

_CITIES = ("Lisbon", "Oslo", "Nairobi", "Lima", "Osaka", "Tbilisi", "Quito", "Perth")
_WORDS = ("alpha", "bravo", "delta", "kilo", "lima", "oscar", "tango", "zulu")

Item = dict[str, Any]


def key_name(i: int) -> str:
    return f"user#{i:06d}"


def make_item(i: int, rng: random.Random) -> Item:
    """An item of about 150 bytes (DynamoDB size) with a handful of attribute types."""
    return {
        "pk": {"S": key_name(i)},
        "name": {"S": f"name-{rng.randrange(10**6):06d}"},
        "email": {"S": f"user{i}@example.com"},
        "city": {"S": rng.choice(_CITIES)},
        "age": {"N": str(rng.randrange(18, 90))},
        "score": {"N": f"{rng.uniform(0, 1000):.3f}"},
        "active": {"BOOL": rng.random() < 0.5},
        "bio": {"S": " ".join(rng.choice(_WORDS) for _ in range(6))},
        "tags": {"SS": sorted(set(rng.sample(_WORDS, 3)))},
    }


def sample_item() -> Item:
    """A fixed item of the benchmark's shape (the baseline's GetItem answer)."""
    return make_item(0, random.Random(0))


def query_item(p: int, s: int, rng: random.Random) -> Item:
    """An item of the Query table: the benchmark's shape under (q#p, s)."""
    item = make_item(p * QUERY_ITEMS_PER_KEY + s, rng)
    item["pk"] = {"S": f"q#{p:04d}"}
    item["sk"] = {"N": str(s)}
    return item


def sample_query_page() -> list[Item]:
    """A page of the Query's shape (the baseline's Query answer)."""
    rng = random.Random(0)
    return [query_item(0, s, rng) for s in range(QUERY_PAGE)]


def body_for(op: str, table: str, i: int, rng: random.Random, keys: int = 10_000) -> Item:
    if op == "GetItem":
        return {"TableName": table, "Key": {"pk": {"S": key_name(i)}}}
    if op == "PutItem":
        return {"TableName": table, "Item": make_item(i, rng)}
    if op == "UpdateItem":  # an atomic counter: UpdateItem ADD
        return {"TableName": table, "Key": {"pk": {"S": key_name(i)}}, "UpdateExpression": "ADD hits :one",
                "ExpressionAttributeValues": {":one": {"N": "1"}}}
    if op == "Query":  # 10 consecutive items of the 100 under one key
        start = rng.randrange(QUERY_ITEMS_PER_KEY - QUERY_PAGE + 1)
        return {"TableName": QUERY_TABLE, "KeyConditionExpression": "pk = :p AND sk BETWEEN :a AND :b",
                "ExpressionAttributeValues": {":p": {"S": f"q#{i % QUERY_PARTITIONS:04d}"},
                                              ":a": {"N": str(start)}, ":b": {"N": str(start + QUERY_PAGE - 1)}}}
    if op == "QueryFP":  # the Query above with a filter and a projection (not in OPERATIONS)
        body = body_for("Query", table, i, rng, keys)
        body["FilterExpression"] = "#a >= :min"
        body["ProjectionExpression"] = "pk, sk, #n, city, #a"
        body["ExpressionAttributeNames"] = {"#a": "age", "#n": "name"}
        body["ExpressionAttributeValues"][":min"] = {"N": "18"}
        return body
    if op == "Scan":  # a page of ten from a random start, filtered and projected (not in OPERATIONS)
        start = rng.randrange(QUERY_ITEMS_PER_KEY)
        return {"TableName": QUERY_TABLE, "Limit": QUERY_PAGE, "FilterExpression": "#a >= :min",
                "ProjectionExpression": "pk, sk, #n, city, #a", "ExpressionAttributeNames": {"#a": "age", "#n": "name"},
                "ExpressionAttributeValues": {":min": {"N": "18"}},
                "ExclusiveStartKey": {"pk": {"S": f"q#{i % QUERY_PARTITIONS:04d}"}, "sk": {"N": str(start)}}}
    if op == "BatchWriteItem":  # 25 puts of distinct existing keys
        first = (i * BATCH_SIZE) % max(keys, BATCH_SIZE)
        puts = [{"PutRequest": {"Item": make_item((first + j) % keys, rng)}} for j in range(BATCH_SIZE)]
        return {"RequestItems": {table: puts}}
    raise ValueError(f"unknown operation {op}")


def http_request(host: str, port: int, target: str, body: bytes) -> bytes:
    """A complete keep-alive HTTP/1.1 POST, with the headers an AWS SDK sends."""
    head = (
        "POST / HTTP/1.1\r\n"
        f"Host: {host}:{port}\r\n"
        "Accept-Encoding: identity\r\n"
        f"X-Amz-Target: {target}\r\n"
        f"Content-Type: {CONTENT_TYPE}\r\n"
        "User-Agent: dynemu-bench/1.0\r\n"
        "X-Amz-Date: 20250101T000000Z\r\n"
        f"Authorization: {AUTHORIZATION}\r\n"
        f"Content-Length: {len(body)}\r\n"
        "\r\n"
    )
    return head.encode("ascii") + body


def build_requests(host: str, port: int, op: str, table: str, keys: int, seed: int) -> list[bytes]:
    """One request per key, in key order (the same items for every seed-equal call)."""
    rng = random.Random(seed)
    target = TARGET_PREFIX + op
    return [http_request(host, port, target, orjson.dumps(body_for(op, table, i, rng, keys))) for i in range(keys)]


def table_definition(table: str, provisioned: tuple[int, int] | None, sort_key: bool = False) -> Item:
    """CreateTable body: a string hash key ``pk`` (and a number sort key ``sk``)."""
    body: Item = {
        "TableName": table,
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
    }
    if sort_key:
        body["KeySchema"].append({"AttributeName": "sk", "KeyType": "RANGE"})
        body["AttributeDefinitions"].append({"AttributeName": "sk", "AttributeType": "N"})
    if provisioned is None:
        body["BillingMode"] = "PAY_PER_REQUEST"
    else:
        body["ProvisionedThroughput"] = {
            "ReadCapacityUnits": provisioned[0],
            "WriteCapacityUnits": provisioned[1],
        }
    return body
