"""Query and Scan through boto3: key conditions, paging, the 1 MB page, filters, projections,
Select, counts, capacity, parallel scan."""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import assert_validation

N_PARTITIONS = 4
PER_PARTITION = 750  # 3,000 items in all


@pytest.fixture(scope="module")
def big(ddb: Any) -> str:
    """pk S ("p0".."p3"), sk N (0..749), with a small payload and an even/odd flag."""
    name = "query-big"
    ddb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
        BillingMode="PAY_PER_REQUEST",
    )
    for p in range(N_PARTITIONS):
        for start in range(0, PER_PARTITION, 25):
            for i in range(start, min(start + 25, PER_PARTITION)):
                ddb.put_item(TableName=name, Item={"pk": {"S": f"p{p}"}, "sk": {"N": str(i)},
                                                   "even": {"BOOL": i % 2 == 0}, "v": {"S": f"value-{i}"}})
    yield name
    ddb.delete_table(TableName=name)


def query_all(ddb: Any, **kwargs: Any) -> tuple[list[dict[str, Any]], int]:
    items: list[dict[str, Any]] = []
    pages = 0
    while True:
        out = ddb.query(**kwargs)
        pages += 1
        items.extend(out.get("Items", []))
        if "LastEvaluatedKey" not in out:
            return items, pages
        kwargs["ExclusiveStartKey"] = out["LastEvaluatedKey"]


def sks(items: list[dict[str, Any]]) -> list[int]:
    return [int(i["sk"]["N"]) for i in items]


KC = {"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p1"}}}


@pytest.mark.parametrize("limit", [1, 7, 100, None])
@pytest.mark.parametrize("forward", [True, False])
def test_query_pages_through_a_partition(ddb: Any, big: str, limit: int | None, forward: bool) -> None:
    kwargs: dict[str, Any] = {"TableName": big, "ScanIndexForward": forward, **KC}
    if limit is not None:
        kwargs["Limit"] = limit
    items, pages = query_all(ddb, **kwargs)
    expected = list(range(PER_PARTITION))
    assert sks(items) == (expected if forward else expected[::-1])
    assert all(i["pk"] == {"S": "p1"} for i in items)
    if limit is not None:
        # Limit counts items evaluated; the page that reaches it returns a LastEvaluatedKey.
        assert pages == -(-PER_PARTITION // limit) + (1 if PER_PARTITION % limit == 0 else 0)


def test_query_with_filter_counts_evaluated_items(ddb: Any, big: str) -> None:
    out = ddb.query(TableName=big, Limit=10, FilterExpression="even = :t",
                    KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "p2"}, ":t": {"BOOL": True}})
    assert out["ScannedCount"] == 10 and out["Count"] == 5
    assert sks(out["Items"]) == [0, 2, 4, 6, 8]
    assert out["LastEvaluatedKey"] == {"pk": {"S": "p2"}, "sk": {"N": "9"}}
    items, _ = query_all(ddb, TableName=big, Limit=33, FilterExpression="even = :t", ScanIndexForward=False,
                         KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "p2"}, ":t": {"BOOL": True}})
    assert sks(items) == list(range(PER_PARTITION - 2, -1, -2))


@pytest.mark.parametrize(
    ("condition", "values", "expected"),
    [
        ("sk = :a", {":a": {"N": "5"}}, [5]),
        ("sk < :a", {":a": {"N": "3"}}, [0, 1, 2]),
        ("sk <= :a", {":a": {"N": "3"}}, [0, 1, 2, 3]),
        ("sk > :a", {":a": {"N": "746"}}, [747, 748, 749]),
        ("sk >= :a", {":a": {"N": "747"}}, [747, 748, 749]),
        ("sk BETWEEN :a AND :b", {":a": {"N": "10"}, ":b": {"N": "13"}}, [10, 11, 12, 13]),
        ("sk > :a", {":a": {"N": "2.5"}}, list(range(3, PER_PARTITION))),
        ("sk < :a", {":a": {"N": "-1"}}, []),
    ],
)
def test_query_sort_key_conditions(ddb: Any, big: str, condition: str, values: dict[str, Any], expected: list[int]) -> None:
    items, _ = query_all(ddb, TableName=big, KeyConditionExpression=f"pk = :p AND {condition}",
                         ExpressionAttributeValues={":p": {"S": "p3"}, **values})
    assert sks(items) == expected


def test_query_begins_with_on_string_sort_key(make_table: Any, ddb: Any) -> None:
    t = make_table(range=("sk", "S"))
    for sk in ["a", "ab", "abc", "abd", "b", "a\x00", "ac"]:
        ddb.put_item(TableName=t, Item={"pk": {"S": "x"}, "sk": {"S": sk}})
    ddb.put_item(TableName=t, Item={"pk": {"S": "y"}, "sk": {"S": "ab"}})
    out = ddb.query(TableName=t, KeyConditionExpression="pk = :p AND begins_with(sk, :s)",
                    ExpressionAttributeValues={":p": {"S": "x"}, ":s": {"S": "ab"}})
    assert [i["sk"]["S"] for i in out["Items"]] == ["ab", "abc", "abd"]
    out = ddb.query(TableName=t, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "x"}})
    assert [i["sk"]["S"] for i in out["Items"]] == ["a", "a\x00", "ab", "abc", "abd", "ac", "b"]


def test_query_legacy_key_conditions_and_query_filter(ddb: Any, big: str) -> None:
    out = ddb.query(TableName=big, KeyConditions={
        "pk": {"ComparisonOperator": "EQ", "AttributeValueList": [{"S": "p0"}]},
        "sk": {"ComparisonOperator": "BETWEEN", "AttributeValueList": [{"N": "1"}, {"N": "6"}]},
    }, QueryFilter={"v": {"ComparisonOperator": "IN",
                          "AttributeValueList": [{"S": "value-1"}, {"S": "value-3"}, {"S": "value-5"}]}},
        AttributesToGet=["sk"])
    assert out["Items"] == [{"sk": {"N": "1"}}, {"sk": {"N": "3"}}, {"sk": {"N": "5"}}]
    assert out["ScannedCount"] == 6


def test_query_projection_and_select(ddb: Any, big: str) -> None:
    out = ddb.query(TableName=big, ProjectionExpression="v", Limit=2, **KC)
    assert out["Items"] == [{"v": {"S": "value-0"}}, {"v": {"S": "value-1"}}]
    out = ddb.query(TableName=big, Select="COUNT", **KC)
    assert "Items" not in out and out["Count"] == PER_PARTITION == out["ScannedCount"]
    out = ddb.query(TableName=big, Select="SPECIFIC_ATTRIBUTES", ProjectionExpression="sk", Limit=1, **KC)
    assert out["Items"] == [{"sk": {"N": "0"}}]
    assert_validation("Cannot specify the ProjectionExpression when choosing to get ALL_ATTRIBUTES",
                      ddb.query, TableName=big, Select="ALL_ATTRIBUTES", ProjectionExpression="v", **KC)
    assert_validation("Cannot specify the ProjectionExpression when choosing to get only the Count",
                      ddb.query, TableName=big, Select="COUNT", ProjectionExpression="v", **KC)
    assert_validation("ALL_PROJECTED_ATTRIBUTES can be used only when Querying using an IndexName",
                      ddb.query, TableName=big, Select="ALL_PROJECTED_ATTRIBUTES", **KC)
    assert_validation(
        "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES",
        ddb.query, TableName=big, Select="SPECIFIC_ATTRIBUTES", **KC)


def test_query_consumed_capacity_sums_then_rounds(ddb: Any, big: str) -> None:
    out = ddb.query(TableName=big, ReturnConsumedCapacity="TOTAL", ConsistentRead=True, **KC)
    total = sum(len(k) + (len(v.get("S", "")) or 1) for i in out["Items"] for k, v in i.items())
    assert total > 0
    units = out["ConsumedCapacity"]["CapacityUnits"]
    eventual = ddb.query(TableName=big, ReturnConsumedCapacity="TOTAL", **KC)["ConsumedCapacity"]["CapacityUnits"]
    assert eventual == units / 2
    assert units < PER_PARTITION / 2  # rounded once over the page, not per item


def test_query_errors(ddb: Any, big: str, table: str) -> None:
    assert_validation("Either the KeyConditions or KeyConditionExpression parameter must be specified in the request.",
                      ddb.query, TableName=big)
    assert_validation("The table does not have the specified index: nope",
                      ddb.query, TableName=big, IndexName="nope", **KC)
    assert_validation("The provided starting key is invalid",
                      ddb.query, TableName=big, ExclusiveStartKey={"pk": {"S": "p1"}}, **KC)
    assert_validation("The provided starting key is outside query boundaries based on provided condition",
                      ddb.query, TableName=big, ExclusiveStartKey={"pk": {"S": "p2"}, "sk": {"N": "1"}}, **KC)


def test_query_touches_only_its_partition(ddb: Any, big: str) -> None:
    out = ddb.query(TableName=big, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "nope"}})
    assert out["Items"] == [] and out["ScannedCount"] == 0 and "LastEvaluatedKey" not in out


def test_one_megabyte_pages(virtual_default: tuple[Any, Any]) -> None:
    # 3.5 MB under one partition key is 3,500 WCU on one partition, whose ceiling is 1,000
    # WCU/s: written 900 WCU a second on a virtual clock, as a real client's time would pass
    ddb, clock = virtual_default
    t = "one-megabyte-pages"
    ddb.create_table(TableName=t, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                                           {"AttributeName": "sk", "AttributeType": "N"}])
    payload = "x" * (100 * 1024)  # ~100 KB items: a page holds about ten
    for i in range(35):
        ddb.put_item(TableName=t, Item={"pk": {"S": "big"}, "sk": {"N": str(i)}, "v": {"S": payload}})
        if i % 9 == 8:
            clock.advance(1)
    for forward in (True, False):
        items, pages = query_all(ddb, TableName=t, ScanIndexForward=forward,
                                 KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "big"}})
        assert sorted(sks(items)) == list(range(35)) and pages == 4
    first = ddb.query(TableName=t, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "big"}})
    assert len(first["Items"]) == 11  # the item that reaches 1 MB is the last one read
    # The page size is measured before the filter.
    filtered = ddb.query(TableName=t, KeyConditionExpression="pk = :p", FilterExpression="v = :z",
                         ExpressionAttributeValues={":p": {"S": "big"}, ":z": {"S": "no match"}})
    assert filtered["Count"] == 0 and filtered["ScannedCount"] == 11 and "LastEvaluatedKey" in filtered
    scanned = ddb.scan(TableName=t)
    assert scanned["ScannedCount"] == 11 and "LastEvaluatedKey" in scanned


def scan_all(ddb: Any, **kwargs: Any) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    while True:
        out = ddb.scan(**kwargs)
        items.extend(out.get("Items", []))
        if "LastEvaluatedKey" not in out:
            return items
        kwargs["ExclusiveStartKey"] = out["LastEvaluatedKey"]


def keys(items: list[dict[str, Any]]) -> list[tuple[str, int]]:
    return [(i["pk"]["S"], int(i["sk"]["N"])) for i in items]


def test_scan_returns_everything_in_hash_order(ddb: Any, big: str) -> None:
    full = scan_all(ddb, TableName=big)
    assert len(full) == N_PARTITIONS * PER_PARTITION
    assert len(set(keys(full))) == len(full)
    # Items of one partition key are together, in sort-key order.
    seen: list[str] = []
    for pk, _ in keys(full):
        if not seen or seen[-1] != pk:
            assert pk not in seen
            seen.append(pk)
    assert keys(scan_all(ddb, TableName=big, Limit=97)) == keys(full)


@pytest.mark.parametrize("total", [1, 2, 3, 7, 16, 1000])
def test_parallel_scan_segments_cover_the_table_once(ddb: Any, big: str, total: int) -> None:
    full = sorted(keys(scan_all(ddb, TableName=big)))
    union: list[tuple[str, int]] = []
    for segment in range(total):
        union.extend(keys(scan_all(ddb, TableName=big, Segment=segment, TotalSegments=total, Limit=500)))
    assert sorted(union) == full


def test_scan_filter_projection_and_count(ddb: Any, big: str) -> None:
    items = scan_all(ddb, TableName=big, FilterExpression="sk < :n", ProjectionExpression="pk, sk",
                     ExpressionAttributeValues={":n": {"N": "2"}})
    assert sorted(keys(items)) == sorted((f"p{p}", s) for p in range(N_PARTITIONS) for s in (0, 1))
    assert all(set(i) == {"pk", "sk"} for i in items)
    out = ddb.scan(TableName=big, Select="COUNT", ScanFilter={"sk": {"ComparisonOperator": "EQ",
                                                                      "AttributeValueList": [{"N": "3"}]}})
    assert out["Count"] == N_PARTITIONS and out["ScannedCount"] == N_PARTITIONS * PER_PARTITION


def test_scan_errors(ddb: Any, big: str) -> None:
    assert_validation(
        "The Segment parameter is required but was not present in the request when parameter TotalSegments is present",
        ddb.scan, TableName=big, TotalSegments=2)
    assert_validation(
        "The TotalSegments parameter is required but was not present in the request when Segment parameter is present",
        ddb.scan, TableName=big, Segment=1)
    assert_validation(
        "The Segment parameter is zero-based and must be less than parameter TotalSegments: Segment: 2 is not less "
        "than TotalSegments: 2", ddb.scan, TableName=big, Segment=2, TotalSegments=2)
    assert_validation("The provided starting key is invalid: The provided key element does not match the schema",
                      ddb.scan, TableName=big, ExclusiveStartKey={"pk": {"S": "p1"}})
    pages = {s: ddb.scan(TableName=big, Segment=s, TotalSegments=4, Limit=1) for s in range(4)}
    used = next(s for s, page in pages.items() if "LastEvaluatedKey" in page)
    other = (used + 1) % 4
    assert_validation(
        "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with correct "
        f"Segment. TotalSegments: 4 Segment: {other}", ddb.scan, TableName=big, Segment=other, TotalSegments=4,
        ExclusiveStartKey=pages[used]["LastEvaluatedKey"])
    assert_validation("ALL_PROJECTED_ATTRIBUTES can be used only when Scanning using an IndexName",
                      ddb.scan, TableName=big, Select="ALL_PROJECTED_ATTRIBUTES")
