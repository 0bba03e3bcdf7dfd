"""BatchGetItem and BatchWriteItem, through boto3."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import assert_error, assert_validation, error_of
from tests.test_protocol import raw

MSG_DUPLICATES = "Provided list of item keys contains duplicates"
MSG_SCHEMA = "The provided key element does not match the schema"
MSG_ONE_REQUEST = (
    "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
)


def S(v: str) -> dict[str, str]:
    return {"S": v}


def key(v: str) -> dict[str, Any]:
    return {"pk": S(v)}


def put(item: dict[str, Any]) -> dict[str, Any]:
    return {"PutRequest": {"Item": item}}


def delete(k: dict[str, Any]) -> dict[str, Any]:
    return {"DeleteRequest": {"Key": k}}


def exists(ddb: Any, table: str, pk: str) -> bool:
    return "Item" in ddb.get_item(TableName=table, Key=key(pk), ConsistentRead=True)


@pytest.fixture
def two_tables(make_table: Callable[..., str]) -> tuple[str, str]:
    return make_table(), make_table()


# --- BatchGetItem: behaviour --------------------------------------------------------------------


def test_get_across_tables(two_tables: tuple[str, str], ddb: Any) -> None:
    a, b = two_tables
    for i in range(3):
        ddb.put_item(TableName=a, Item={"pk": S(f"a{i}"), "v": {"N": str(i)}})
        ddb.put_item(TableName=b, Item={"pk": S(f"b{i}"), "w": S("x")})
    out = ddb.batch_get_item(
        RequestItems={
            a: {"Keys": [key("a0"), key("a2"), key("missing")]},
            b: {"Keys": [key("b1")], "ConsistentRead": True},
        }
    )
    assert out["UnprocessedKeys"] == {}
    assert sorted(i["pk"]["S"] for i in out["Responses"][a]) == ["a0", "a2"]
    assert out["Responses"][b] == [{"pk": S("b1"), "w": S("x")}]
    assert "ConsumedCapacity" not in out


def test_get_all_missing_keeps_the_table(table: str, ddb: Any) -> None:
    out = ddb.batch_get_item(RequestItems={table: {"Keys": [key("nope")]}})
    assert out["Responses"] == {table: []} and out["UnprocessedKeys"] == {}


def test_get_projection_per_table(two_tables: tuple[str, str], ddb: Any) -> None:
    a, b = two_tables
    item = {"pk": S("k"), "name": S("n"), "size": {"N": "3"}, "m": {"M": {"x": S("1"), "y": S("2")}}}
    ddb.put_item(TableName=a, Item=item)
    ddb.put_item(TableName=b, Item=item)
    out = ddb.batch_get_item(
        RequestItems={
            a: {"Keys": [key("k")], "ProjectionExpression": "#s, m.x", "ExpressionAttributeNames": {"#s": "size"}},
            b: {"Keys": [key("k")], "ProjectionExpression": "#n", "ExpressionAttributeNames": {"#n": "name"}},
        }
    )
    assert out["Responses"][a] == [{"size": {"N": "3"}, "m": {"M": {"x": S("1")}}}]
    assert out["Responses"][b] == [{"name": S("n")}]


def test_get_by_table_arn(table: str, ddb: Any) -> None:
    arn = ddb.describe_table(TableName=table)["Table"]["TableArn"]
    ddb.put_item(TableName=table, Item=key("k"))
    out = ddb.batch_get_item(RequestItems={arn: {"Keys": [key("k")]}}, ReturnConsumedCapacity="TOTAL")
    assert out["Responses"] == {arn: [key("k")]}
    assert out["ConsumedCapacity"] == [{"TableName": arn, "CapacityUnits": 0.5}]


def test_get_numbers_match_by_value(table_hr: str, ddb: Any) -> None:
    ddb.put_item(TableName=table_hr, Item={"pk": S("a"), "sk": {"N": "10"}})
    out = ddb.batch_get_item(RequestItems={table_hr: {"Keys": [{"pk": S("a"), "sk": {"N": "1E1"}}]}})
    assert out["Responses"][table_hr] == [{"pk": S("a"), "sk": {"N": "10"}}]


def test_get_capacity_rounds_each_item(two_tables: tuple[str, str], ddb: Any) -> None:
    # RULES 3.3: 1.5 KB + 6.5 KB -> 4 KB + 8 KB = 3 units strong; a missing key costs the minimum.
    a, b = two_tables
    for t in (a, b):
        ddb.put_item(TableName=t, Item={"pk": S("small"), "v": S("x" * 1500)})
        ddb.put_item(TableName=t, Item={"pk": S("big"), "v": S("x" * 6500)})
    out = ddb.batch_get_item(
        RequestItems={
            a: {"Keys": [key("small"), key("big")], "ConsistentRead": True},
            b: {"Keys": [key("small"), key("big"), key("missing")]},
        },
        ReturnConsumedCapacity="TOTAL",
    )
    assert out["ConsumedCapacity"] == [
        {"TableName": a, "CapacityUnits": 3.0},
        {"TableName": b, "CapacityUnits": 2.0},  # (1 + 2) / 2 eventual + 0.5 for the missing key
    ]
    out = ddb.batch_get_item(RequestItems={a: {"Keys": [key("small")]}}, ReturnConsumedCapacity="INDEXES")
    assert out["ConsumedCapacity"] == [{"TableName": a, "CapacityUnits": 0.5, "Table": {"CapacityUnits": 0.5}}]
    out = ddb.batch_get_item(RequestItems={a: {"Keys": [key("small")]}}, ReturnConsumedCapacity="NONE")
    assert "ConsumedCapacity" not in out


def test_get_16mb_limit_leaves_unprocessed_keys(virtual_default: tuple[Any, Any]) -> None:
    # 35 MB (35,000 WRU) is more than a new on-demand table (4,000 WRU/s) takes in an
    # instant: written 3,500 WRU at a time, 5 s apart on a virtual clock
    ddb, clock = virtual_default
    table = "batch-get-16mb"
    ddb.create_table(TableName=table, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST")
    blob = "x" * (350 * 1024)
    for start in range(0, 100, 10):
        out = ddb.batch_write_item(
            RequestItems={table: [put({"pk": S(f"k{i:03}"), "v": S(blob)}) for i in range(start, start + 10)]}
        )
        assert out["UnprocessedItems"] == {}
        clock.advance(5)
    request = {
        table: {
            "Keys": [key(f"k{i:03}") for i in range(100)],
            "ProjectionExpression": "pk",
            "ConsistentRead": True,
        }
    }
    first = ddb.batch_get_item(RequestItems=request, ReturnConsumedCapacity="TOTAL")
    got = [i["pk"]["S"] for i in first["Responses"][table]]
    # 350 KB items: 44 fit under the 16 MB response limit (the documented 300 KB -> 52).
    assert len(got) == 44
    left = first["UnprocessedKeys"][table]
    assert left["ProjectionExpression"] == "pk" and left["ConsistentRead"] is True
    assert len(left["Keys"]) == 56 and left["Keys"][0] == key("k044")
    # Only the keys read are charged: 44 items of 88 KB blocks... 350 KB -> 88 blocks, strong.
    assert first["ConsumedCapacity"] == [{"TableName": table, "CapacityUnits": 44 * 88.0}]
    pending: dict[str, Any] = first["UnprocessedKeys"]
    rounds = 1
    while pending:
        out = ddb.batch_get_item(RequestItems=pending)
        got += [i["pk"]["S"] for i in out["Responses"].get(table, [])]
        pending = out["UnprocessedKeys"]
        rounds += 1
    assert rounds == 3
    assert sorted(got) == [f"k{i:03}" for i in range(100)]


# --- BatchGetItem: errors ----------------------------------------------------------------------


def test_get_duplicate_keys(table_hr: str, ddb: Any) -> None:
    assert_validation(
        MSG_DUPLICATES,
        ddb.batch_get_item,
        RequestItems={table_hr: {"Keys": [{"pk": S("a"), "sk": {"N": "1"}}, {"sk": {"N": "1.0"}, "pk": S("a")}]}},
    )
    # checked before the table is looked up (dynalite validations/batchGetItem.js)
    assert_validation(MSG_DUPLICATES, ddb.batch_get_item, RequestItems={"no-such-table": {"Keys": [key("a"), key("a")]}})


def test_get_same_key_in_two_tables_is_fine(two_tables: tuple[str, str], ddb: Any) -> None:
    a, b = two_tables
    out = ddb.batch_get_item(RequestItems={a: {"Keys": [key("k")]}, b: {"Keys": [key("k")]}})
    assert out["Responses"] == {a: [], b: []}


def test_get_too_many_keys(two_tables: tuple[str, str], ddb: Any) -> None:
    a, b = two_tables
    assert_validation(
        "Too many items requested for the BatchGetItem call",
        ddb.batch_get_item,
        RequestItems={a: {"Keys": [key(str(i)) for i in range(60)]}, b: {"Keys": [key(str(i)) for i in range(41)]}},
    )
    out = ddb.batch_get_item(
        RequestItems={a: {"Keys": [key(str(i)) for i in range(60)]}, b: {"Keys": [key(str(i)) for i in range(40)]}}
    )
    assert out["UnprocessedKeys"] == {}


def test_get_keys_per_table_shape_limit(table: str, ddb: Any) -> None:
    code, message = error_of(ddb.batch_get_item, RequestItems={table: {"Keys": [key(str(i)) for i in range(101)]}})
    assert code == "ValidationException"
    assert message.endswith("failed to satisfy constraint: Member must have length less than or equal to 100")


def test_get_missing_table(table: str, ddb: Any) -> None:
    assert_error(
        "ResourceNotFoundException",
        "Requested resource not found",
        ddb.batch_get_item,
        RequestItems={table: {"Keys": [key("a")]}, "no-such-table": {"Keys": [key("a")]}},
    )


def test_get_key_schema_mismatch(table_hr: str, table: str, ddb: Any) -> None:
    assert_validation(MSG_SCHEMA, ddb.batch_get_item, RequestItems={table_hr: {"Keys": [key("a")]}})
    assert_validation(MSG_SCHEMA, ddb.batch_get_item, RequestItems={table: {"Keys": [{"pk": {"N": "1"}}]}})
    assert_validation(MSG_SCHEMA, ddb.batch_get_item, RequestItems={table: {"Keys": [{"pk": S("a"), "x": S("b")}]}})


def test_get_expression_errors_come_before_the_table(ddb: Any) -> None:
    code, message = error_of(
        ddb.batch_get_item, RequestItems={"no-such-table": {"Keys": [key("a")], "ProjectionExpression": "a,,b"}}
    )
    assert code == "ValidationException" and message.startswith("Invalid ProjectionExpression: Syntax error")
    assert_validation(
        "Value provided in ExpressionAttributeNames unused in expressions: keys: {#u}",
        ddb.batch_get_item,
        RequestItems={
            "no-such-table": {
                "Keys": [key("a")], "ProjectionExpression": "a", "ExpressionAttributeNames": {"#u": "u"},
            }
        },
    )


def test_get_invalid_attribute_value(table: str, ddb: Any) -> None:
    code, message = error_of(ddb.batch_get_item, RequestItems={table: {"Keys": [{"pk": {"N": "abc"}}]}})
    assert code == "ValidationException"
    assert message == error_of(ddb.get_item, TableName=table, Key={"pk": {"N": "abc"}})[1]


# --- BatchWriteItem: behaviour -----------------------------------------------------------------


def test_write_puts_and_deletes_across_tables(two_tables: tuple[str, str], ddb: Any) -> None:
    a, b = two_tables
    ddb.put_item(TableName=a, Item={"pk": S("old"), "v": S("1")})
    out = ddb.batch_write_item(
        RequestItems={
            a: [put({"pk": S("n1"), "v": S("x")}), delete(key("old")), put({"pk": S("n2")})],
            b: [put({"pk": S("n1"), "w": {"N": "5"}}), delete(key("never-existed"))],
        }
    )
    assert out["UnprocessedItems"] == {}
    assert "ConsumedCapacity" not in out and "ItemCollectionMetrics" not in out
    assert exists(ddb, a, "n1") and exists(ddb, a, "n2") and not exists(ddb, a, "old")
    assert ddb.get_item(TableName=b, Key=key("n1"))["Item"] == {"pk": S("n1"), "w": {"N": "5"}}
    assert ddb.describe_table(TableName=a)["Table"]["ItemCount"] == 2
    assert ddb.describe_table(TableName=b)["Table"]["ItemCount"] == 1


def test_write_put_replaces_whole_item(table: str, ddb: Any) -> None:
    ddb.put_item(TableName=table, Item={"pk": S("k"), "a": S("1"), "b": S("2")})
    ddb.batch_write_item(RequestItems={table: [put({"pk": S("k"), "c": S("3")})]})
    assert ddb.get_item(TableName=table, Key=key("k"))["Item"] == {"pk": S("k"), "c": S("3")}


def test_write_capacity_per_table(two_tables: tuple[str, str], ddb: Any) -> None:
    # RULES 3.4: each request rounded separately: 500 B + 3.5 KB -> 1 + 4 = 5 units.
    a, b = two_tables
    ddb.put_item(TableName=b, Item={"pk": S("gone"), "v": S("x" * 2000)})
    out = ddb.batch_write_item(
        RequestItems={
            a: [put({"pk": S("s"), "v": S("x" * 500)}), put({"pk": S("l"), "v": S("x" * 3500)})],
            b: [delete(key("gone")), delete(key("missing"))],
        },
        ReturnConsumedCapacity="TOTAL",
    )
    assert out["ConsumedCapacity"] == [
        {"TableName": a, "CapacityUnits": 5.0},
        {"TableName": b, "CapacityUnits": 3.0},  # a 2 KB delete (2) + a missing item (1)
    ]
    out = ddb.batch_write_item(RequestItems={a: [put({"pk": S("t")})]}, ReturnConsumedCapacity="INDEXES")
    assert out["ConsumedCapacity"] == [{"TableName": a, "CapacityUnits": 1.0, "Table": {"CapacityUnits": 1.0}}]
    # An overwrite is sized on the larger of the old and new item.
    out = ddb.batch_write_item(RequestItems={a: [put({"pk": S("l")})]}, ReturnConsumedCapacity="TOTAL")
    assert out["ConsumedCapacity"] == [{"TableName": a, "CapacityUnits": 4.0}]


def test_write_return_item_collection_metrics_accepted(table: str, ddb: Any) -> None:
    out = ddb.batch_write_item(RequestItems={table: [put(key("k"))]}, ReturnItemCollectionMetrics="SIZE")
    assert out["UnprocessedItems"] == {}
    assert out.get("ItemCollectionMetrics", {}) == {}


def test_write_25_requests_across_tables(two_tables: tuple[str, str], ddb: Any) -> None:
    a, b = two_tables
    out = ddb.batch_write_item(
        RequestItems={a: [put(key(str(i))) for i in range(13)], b: [put(key(str(i))) for i in range(12)]}
    )
    assert out["UnprocessedItems"] == {}
    assert ddb.describe_table(TableName=a)["Table"]["ItemCount"] == 13


# --- BatchWriteItem: errors (nothing is written) -------------------------------------------------


def test_write_too_many_requests(two_tables: tuple[str, str], ddb: Any) -> None:
    a, b = two_tables
    assert_validation(
        "Too many items requested for the BatchWriteItem call",
        ddb.batch_write_item,
        RequestItems={a: [put(key(str(i))) for i in range(13)], b: [put(key(str(i))) for i in range(13)]},
    )
    assert not exists(ddb, a, "0")


def test_write_too_many_in_one_table_is_a_shape_error(table: str, ddb: Any) -> None:
    code, message = error_of(ddb.batch_write_item, RequestItems={table: [put(key(str(i))) for i in range(26)]})
    assert code == "ValidationException"
    assert message.startswith("1 validation error detected: Value '{" + table + "=[")
    assert "Member must have length less than or equal to 25" in message


@pytest.mark.parametrize(
    "requests",
    [
        [put({"pk": S("a"), "v": S("1")}), put({"pk": S("a"), "v": S("2")})],
        [put({"pk": S("a")}), delete(key("a"))],
        [delete(key("a")), delete(key("a"))],
    ],
)
def test_write_duplicate_keys(table: str, ddb: Any, requests: list[dict[str, Any]]) -> None:
    ddb.put_item(TableName=table, Item={"pk": S("a"), "v": S("0")})
    assert_validation(MSG_DUPLICATES, ddb.batch_write_item, RequestItems={table: [put(key("other")), *requests]})
    assert ddb.get_item(TableName=table, Key=key("a"))["Item"]["v"] == S("0")
    assert not exists(ddb, table, "other")


def test_write_duplicate_number_keys_by_value(table_hr: str, ddb: Any) -> None:
    assert_validation(
        MSG_DUPLICATES,
        ddb.batch_write_item,
        RequestItems={table_hr: [put({"pk": S("a"), "sk": {"N": "1"}}), delete({"pk": S("a"), "sk": {"N": "1.00"}})]},
    )


def test_write_same_key_in_two_tables_is_fine(two_tables: tuple[str, str], ddb: Any) -> None:
    a, b = two_tables
    ddb.batch_write_item(RequestItems={a: [put(key("k"))], b: [put(key("k"))]})
    assert exists(ddb, a, "k") and exists(ddb, b, "k")


@pytest.mark.parametrize("request_", [{}, {"PutRequest": {"Item": key("a")}, "DeleteRequest": {"Key": key("a")}}])
def test_write_request_needs_exactly_one_kind(table: str, ddb: Any, request_: dict[str, Any]) -> None:
    assert_validation(MSG_ONE_REQUEST, ddb.batch_write_item, RequestItems={table: [put(key("ok")), request_]})
    assert not exists(ddb, table, "ok")


def test_write_item_too_large(table: str, ddb: Any) -> None:
    big = {"pk": S("big"), "v": S("x" * (400 * 1024))}
    assert_validation(
        "Item size has exceeded the maximum allowed size",
        ddb.batch_write_item, RequestItems={table: [put(key("ok")), put(big)]},
    )
    # before the table is looked up, as PutItem does
    assert_validation(
        "Item size has exceeded the maximum allowed size",
        ddb.batch_write_item, RequestItems={"no-such-table": [put(big)]},
    )
    assert not exists(ddb, table, "ok")


def test_write_items_validated_as_put_item_validates_them(table: str, ddb: Any) -> None:
    for bad in (
        {"pk": S("a"), "s": {"SS": []}},
        {"pk": S("a"), "n": {"N": "1e999"}},
        {"pk": S("a"), "s": {"SS": ["x", "x"]}},
        {"pk": S("")},
    ):
        kind, message = error_of(ddb.put_item, TableName=table, Item=bad)
        # PutItem's value rules are in the envelope, BatchWriteItem's bare (issue 36)
        expected = (kind, message.removeprefix("1 validation error detected: "))
        assert error_of(ddb.batch_write_item, RequestItems={table: [put(key("ok")), put(bad)]}) == expected
    assert not exists(ddb, table, "ok")


def test_write_key_schema_mismatch(table_hr: str, ddb: Any) -> None:
    # Every form of mismatch has the schema message, a Put's too (dynalite actions/batchWriteItem.js).
    for request in (
        put({"pk": S("a")}),
        put({"pk": S("a"), "sk": S("not a number")}),
        delete({"pk": S("a")}),
        delete({"pk": S("a"), "sk": {"N": "1"}, "extra": S("x")}),
    ):
        assert_validation(
            MSG_SCHEMA,
            ddb.batch_write_item,
            RequestItems={table_hr: [put({"pk": S("ok"), "sk": {"N": "1"}}), request]},
        )
    assert ddb.describe_table(TableName=table_hr)["Table"]["ItemCount"] == 0


def test_write_missing_table_writes_nothing(table: str, ddb: Any) -> None:
    assert_error(
        "ResourceNotFoundException",
        "Requested resource not found",
        ddb.batch_write_item,
        RequestItems={table: [put(key("ok"))], "no-such-table": [put(key("a"))]},
    )
    assert not exists(ddb, table, "ok")


def test_write_invalid_return_consumed_capacity(table: str, server_url: str) -> None:
    body = {"RequestItems": {table: [put(key("a"))]}, "ReturnConsumedCapacity": "ALL"}
    status, _, data = raw(server_url, json.dumps(body), target="DynamoDB_20120810.BatchWriteItem")
    assert status == 400
    assert json.loads(data)["message"] == (
        "1 validation error detected: Value 'ALL' at 'returnConsumedCapacity' failed to satisfy constraint: "
        "Member must satisfy enum value set: [INDEXES, TOTAL, NONE]"
    )


# --- throttling ----------------------------------------------------------------------------------




def provisioned(c: Any, name: str) -> str:
    c.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                   ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    return name


def test_throttled_writes_are_unprocessed(virtual_uniform: tuple[Any, Any]) -> None:
    c, clock = virtual_uniform
    table = provisioned(c, "throttled-writes")
    # Buckets start with one second of tokens: the first write is admitted, the others wait.
    out = c.batch_write_item(RequestItems={table: [put(key("0")), delete(key("x")), put({"pk": S("2"), "v": S("v")})]})
    assert out["UnprocessedItems"] == {table: [delete(key("x")), put({"pk": S("2"), "v": S("v")})]}
    assert c.describe_table(TableName=table)["Table"]["ItemCount"] == 1
    # Nothing at all could be written: the throttling error itself.
    with pytest.raises(ClientError) as info:
        c.batch_write_item(RequestItems=out["UnprocessedItems"])
    response = info.value.response
    assert response["Error"]["Code"] == "ProvisionedThroughputExceededException"
    assert response["Error"]["Message"] == (
        "The level of configured provisioned throughput for the table was exceeded. "
        "Consider increasing your provisioning level with the UpdateTable API."
    )
    pending = out["UnprocessedItems"]
    for _ in range(10):  # retrying as the SDKs do, as time passes
        clock.advance(2)
        pending = c.batch_write_item(RequestItems=pending)["UnprocessedItems"]
        if not pending:
            break
    assert pending == {}
    assert c.describe_table(TableName=table)["Table"]["ItemCount"] == 2


def test_throttled_reads_are_unprocessed(virtual_uniform: tuple[Any, Any]) -> None:
    c, clock = virtual_uniform
    table = provisioned(c, "throttled-reads")
    clock.advance(5)
    c.put_item(TableName=table, Item=key("0"))
    clock.advance(5)
    request = {table: {"Keys": [key("0"), key("1"), key("2")], "ConsistentRead": True}}
    out = c.batch_get_item(RequestItems=request)
    assert out["Responses"] == {table: [key("0")]}
    assert out["UnprocessedKeys"] == {table: {"Keys": [key("1"), key("2")], "ConsistentRead": True}}
    code, _ = error_of(c.batch_get_item, RequestItems=out["UnprocessedKeys"])
    assert code == "ProvisionedThroughputExceededException"
    clock.advance(2)
    assert c.batch_get_item(RequestItems=out["UnprocessedKeys"])["Responses"] == {table: []}
