"""Query and Scan pages, with or without a projection or filter, answer the items as GetItem
returns them, with LastEvaluatedKey and counts as the service gives them; and the compile
cache keeps per-request errors."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.helpers import assert_error, assert_validation


def _items() -> list[dict[str, Any]]:
    return [
        {"pk": {"S": "p"}, "sk": {"N": "1"}, "n": {"N": "1.50"}, "b": {"B": b"\x00\xff"},
         "m": {"M": {"l": {"L": [{"S": "x"}, {"NULL": True}, {"BOOL": False}]}}}},
        {"pk": {"S": "p"}, "sk": {"N": "2"}, "ss": {"SS": ["b", "a"]}, "ns": {"NS": ["10", "2.0"]},
         "bs": {"BS": [b"a"]}, "u": {"S": "é\u2028\"\\"}},
        {"pk": {"S": "p"}, "sk": {"N": "-3"}},
        {"pk": {"S": "q"}, "sk": {"N": "1"}},
    ]


def test_pages_match_get_item(ddb: Any, make_table: Callable[..., str]) -> None:
    name = make_table(range=("sk", "N"))
    for item in _items():
        ddb.put_item(TableName=name, Item=item)
    stored = {i["sk"]["N"]: ddb.get_item(TableName=name, Key={"pk": i["pk"], "sk": i["sk"]}, ConsistentRead=True)["Item"]
              for i in _items() if i["pk"]["S"] == "p"}
    out = ddb.query(TableName=name, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "p"}})
    assert out["Items"] == [stored["-3"], stored["1"], stored["2"]] and out["Count"] == out["ScannedCount"] == 3
    back = ddb.query(TableName=name, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "p"}},
                     ScanIndexForward=False, Limit=2, ConsistentRead=True)
    assert back["Items"] == [stored["2"], stored["1"]]
    assert back["LastEvaluatedKey"] == {"pk": {"S": "p"}, "sk": {"N": "1"}}
    rest = ddb.query(TableName=name, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "p"}},
                     ScanIndexForward=False, ExclusiveStartKey=back["LastEvaluatedKey"])
    assert rest["Items"] == [stored["-3"]] and "LastEvaluatedKey" not in rest
    count = ddb.query(TableName=name, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "p"}},
                      Select="COUNT")
    assert count["Count"] == 3 and "Items" not in count
    scan = ddb.scan(TableName=name, Limit=10)
    assert sorted(scan["Items"], key=repr) == sorted([*stored.values(), _items()[3]], key=repr)
    projected = ddb.query(TableName=name, KeyConditionExpression="pk = :p AND sk = :s", ProjectionExpression="n",
                          ExpressionAttributeValues={":p": {"S": "p"}, ":s": {"N": "1"}})
    assert projected["Items"] == [{"n": {"N": "1.5"}}]


def test_cached_query_shape_still_fails_per_request(raw: Any, make_table: Callable[..., str]) -> None:
    name = make_table(range=("sk", "N"))
    text = "pk = :p AND sk BETWEEN :a AND :b"

    def query(a: dict[str, Any], b: dict[str, Any], **extra: Any) -> Any:
        return raw.query(TableName=name, KeyConditionExpression=text,
                         ExpressionAttributeValues={":p": {"S": "p"}, ":a": a, ":b": b, **extra})

    assert query({"N": "1"}, {"N": "2"})["Count"] == 0
    assert query({"N": "1"}, {"N": "2"})["Count"] == 0  # now through the cached template
    assert_validation(
        "Invalid KeyConditionExpression: The BETWEEN operator requires upper bound to be greater than or equal to "
        "lower bound; lower bound operand: AttributeValue: {N:5}, upper bound operand: AttributeValue: {N:1}",
        query, {"N": "5"}, {"N": "1"},
    )
    assert_validation("Value provided in ExpressionAttributeValues unused in expressions: keys: {:x}",
                      query, {"N": "1"}, {"N": "2"}, **{":x": {"N": "1"}})
    assert_error("ValidationException", None, query, {"S": "a"}, {"S": "b"})  # the schema's type is N
