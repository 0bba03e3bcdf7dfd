"""Sets come back in DynamoDB's order: sorted, strings by UTF-8 bytes, numbers by value,
binaries as unsigned bytes (issue 36 §6, issue 45 §2; docs/rules.md, "Sets"). Every
surface that returns a set: GetItem, Query, Scan, BatchGetItem, TransactGetItems, the
ReturnValues of PutItem / UpdateItem / DeleteItem, and stream images."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from dynemu.engine import values

SS_IN = ["zyx", "tsr", "wvu", "é", "Z", ""]
SS_OUT = ["", "Z", "tsr", "wvu", "zyx", "é"]
NS_IN = ["10", "-2.5", "2", "1E+2", "0.01"]
NS_OUT = ["-2.5", "0.01", "2", "10", "100"]
BS_RAW = [b"\xff", b"\x00\x01", b"\x7f", b"\x00"]
BS_IN = BS_RAW  # boto3 sends bytes as base64 and decodes the answer
BS_OUT = sorted(BS_RAW)


def _item(pk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "ss": {"SS": SS_IN}, "ns": {"NS": NS_IN}, "bs": {"BS": BS_IN},
            "doc": {"M": {"inner": {"SS": ["b", "a"]}, "l": {"L": [{"NS": ["3", "1"]}]}}}}


def _assert_ordered(item: dict[str, Any]) -> None:
    assert item["ss"] == {"SS": SS_OUT}
    assert item["ns"] == {"NS": NS_OUT}
    assert item["bs"] == {"BS": BS_OUT}
    assert item["doc"]["M"]["inner"] == {"SS": ["a", "b"]}
    assert item["doc"]["M"]["l"]["L"][0] == {"NS": ["1", "3"]}


def test_the_order_rule() -> None:
    assert values.ordered_set("SS", ["a", ""]) == ["", "a"]
    assert values.ordered_set("NS", ["10", "9", "-1"]) == ["-1", "9", "10"]
    # binary order is by bytes, not by the base64 text ("/w==" is 0xff, "AA==" is 0x00)
    assert values.ordered_set("BS", ["/w==", "AA=="]) == ["AA==", "/w=="]
    already = ["a", "b"]
    assert values.ordered_set("SS", already) is already


def test_reads_return_sets_in_order(ddb: Any, table: str) -> None:
    ddb.put_item(TableName=table, Item=_item("a"))
    _assert_ordered(ddb.get_item(TableName=table, Key={"pk": {"S": "a"}}, ConsistentRead=True)["Item"])
    _assert_ordered(ddb.query(TableName=table, KeyConditionExpression="pk = :p",
                              ExpressionAttributeValues={":p": {"S": "a"}})["Items"][0])
    _assert_ordered(ddb.scan(TableName=table)["Items"][0])
    got = ddb.batch_get_item(RequestItems={table: {"Keys": [{"pk": {"S": "a"}}]}})
    _assert_ordered(got["Responses"][table][0])
    got = ddb.transact_get_items(TransactItems=[{"Get": {"TableName": table, "Key": {"pk": {"S": "a"}}}}])
    _assert_ordered(got["Responses"][0]["Item"])


def test_return_values_are_in_order(ddb: Any, table: str) -> None:
    ddb.put_item(TableName=table, Item=_item("r"))
    old = ddb.put_item(TableName=table, Item=_item("r"), ReturnValues="ALL_OLD")["Attributes"]
    _assert_ordered(old)
    new = ddb.update_item(TableName=table, Key={"pk": {"S": "r"}}, UpdateExpression="SET x = :x",
                          ExpressionAttributeValues={":x": {"S": "x"}}, ReturnValues="ALL_NEW")["Attributes"]
    _assert_ordered(new)
    gone = ddb.delete_item(TableName=table, Key={"pk": {"S": "r"}}, ReturnValues="ALL_OLD")["Attributes"]
    _assert_ordered(gone)


def test_add_returns_the_set_in_order(ddb: Any, table: str) -> None:
    """Issue 36's case: ADD of an empty string onto ["a"] answers ["", "a"]; issue 45's:
    ["tsr","wvu","zyx"] after adds in another order."""
    ddb.put_item(TableName=table, Item={"pk": {"S": "s"}, "s": {"SS": ["a"]}})
    got = ddb.update_item(TableName=table, Key={"pk": {"S": "s"}}, UpdateExpression="ADD s :e",
                          ExpressionAttributeValues={":e": {"SS": [""]}}, ReturnValues="UPDATED_NEW")
    assert got["Attributes"] == {"s": {"SS": ["", "a"]}}
    for member in ("zyx", "tsr", "wvu"):
        got = ddb.update_item(TableName=table, Key={"pk": {"S": "t"}}, UpdateExpression="ADD s :m",
                              ExpressionAttributeValues={":m": {"SS": [member]}}, ReturnValues="ALL_NEW")
    assert got["Attributes"]["s"] == {"SS": ["tsr", "wvu", "zyx"]}
    got = ddb.update_item(TableName=table, Key={"pk": {"S": "n"}}, UpdateExpression="ADD n :m",
                          ExpressionAttributeValues={":m": {"NS": ["10", "9"]}}, ReturnValues="ALL_NEW")
    got = ddb.update_item(TableName=table, Key={"pk": {"S": "n"}}, UpdateExpression="ADD n :m",
                          ExpressionAttributeValues={":m": {"NS": ["-1", "100"]}}, ReturnValues="UPDATED_NEW")
    assert got["Attributes"] == {"n": {"NS": ["-1", "9", "10", "100"]}}
    got = ddb.update_item(TableName=table, Key={"pk": {"S": "n"}}, UpdateExpression="DELETE n :m",
                          ExpressionAttributeValues={":m": {"NS": ["9"]}}, ReturnValues="UPDATED_OLD")
    assert got["Attributes"] == {"n": {"NS": ["-1", "9", "10", "100"]}}
    # the legacy AttributeUpdates ADD too
    got = ddb.update_item(TableName=table, Key={"pk": {"S": "s"}}, ReturnValues="ALL_NEW",
                          AttributeUpdates={"s": {"Action": "ADD", "Value": {"SS": ["0"]}}})
    assert got["Attributes"]["s"] == {"SS": ["", "0", "a"]}


def test_partiql_sets_are_in_order(ddb: Any, table: str) -> None:
    ddb.execute_statement(Statement=f"INSERT INTO \"{table}\" VALUE {{'pk': 'p', 's': <<'c', 'a', 'b'>>}}")
    ddb.execute_statement(Statement=f"UPDATE \"{table}\" SET s = set_add(s, <<'0'>>) WHERE pk = 'p'")
    got = ddb.execute_statement(Statement=f"SELECT s FROM \"{table}\" WHERE pk = 'p'")
    assert got["Items"] == [{"s": {"SS": ["0", "a", "b", "c"]}}]


@pytest.fixture
def streamed(make_table: Callable[..., str]) -> str:
    return make_table(StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"})


def test_stream_images_are_in_order(ddb: Any, server_url: str, streamed: str) -> None:
    from tests.conftest import make_client

    ddb.put_item(TableName=streamed, Item=_item("a"))
    ddb.update_item(TableName=streamed, Key={"pk": {"S": "a"}}, UpdateExpression="ADD ss :m",
                    ExpressionAttributeValues={":m": {"SS": ["b"]}})
    streams = make_client(server_url, service="dynamodbstreams")
    arn = ddb.describe_table(TableName=streamed)["Table"]["LatestStreamArn"]
    records = []
    for shard in streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        it = streams.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"],
                                        ShardIteratorType="TRIM_HORIZON")["ShardIterator"]
        records += streams.get_records(ShardIterator=it)["Records"]
    assert [r["eventName"] for r in records] == ["INSERT", "MODIFY"]
    _assert_ordered(records[0]["dynamodb"]["NewImage"])
    assert records[1]["dynamodb"]["NewImage"]["ss"] == {"SS": ["", "Z", "b", "tsr", "wvu", "zyx", "é"]}
    _assert_ordered(records[1]["dynamodb"]["OldImage"])
