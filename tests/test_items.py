"""PutItem, GetItem, DeleteItem, UpdateItem without expressions, through boto3."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from tests.helpers import assert_error, assert_validation

EVERY_TYPE = {
    "pk": {"S": "all"},
    "s": {"S": "héllo"},
    "n": {"N": "123.45"},
    "b": {"B": b"\x00\x01bin"},
    "t": {"BOOL": True},
    "f": {"BOOL": False},
    "z": {"NULL": True},
    "l": {"L": [{"S": "a"}, {"N": "1"}, {"L": []}, {"M": {}}]},
    "m": {"M": {"inner": {"M": {"deep": {"SS": ["x", "y"]}}}}},
    "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2.5"]},
    "bs": {"BS": [b"\x01", b"\x02"]},
    "empty_s": {"S": ""},
    "empty_b": {"B": b""},
}


def test_every_attribute_type_round_trips(table: str, ddb: Any) -> None:
    ddb.put_item(TableName=table, Item=EVERY_TYPE)
    item = ddb.get_item(TableName=table, Key={"pk": {"S": "all"}}, ConsistentRead=True)["Item"]
    assert item["s"] == {"S": "héllo"}
    assert item["b"] == {"B": b"\x00\x01bin"}
    assert item["m"] == EVERY_TYPE["m"]
    assert item["l"] == EVERY_TYPE["l"]
    assert sorted(item["ss"]["SS"]) == ["a", "b"]
    assert sorted(item["ns"]["NS"]) == ["1", "2.5"]
    assert sorted(item["bs"]["BS"]) == [b"\x01", b"\x02"]
    assert item["z"] == {"NULL": True} and item["f"] == {"BOOL": False}
    assert item["empty_s"] == {"S": ""} and item["empty_b"] == {"B": b""}


def test_numbers_are_normalised(table: str, ddb: Any) -> None:
    ddb.put_item(TableName=table, Item={"pk": {"S": "n"}, "a": {"N": "1.50"}, "b": {"N": "1E+2"}, "c": {"N": "-0"}})
    item = ddb.get_item(TableName=table, Key={"pk": {"S": "n"}})["Item"]
    assert item["a"] == {"N": "1.5"} and item["b"] == {"N": "100"} and item["c"] == {"N": "0"}


def test_number_keys_match_by_value(table_hr: str, ddb: Any) -> None:
    ddb.put_item(TableName=table_hr, Item={"pk": {"S": "a"}, "sk": {"N": "10"}, "v": {"S": "x"}})
    got = ddb.get_item(TableName=table_hr, Key={"pk": {"S": "a"}, "sk": {"N": "1.0E1"}})["Item"]
    assert got["v"] == {"S": "x"}


def test_get_missing_item_is_empty(table: str, ddb: Any) -> None:
    out = ddb.get_item(TableName=table, Key={"pk": {"S": "nothing"}})
    assert "Item" not in out


def test_put_replaces_and_return_values(table: str, ddb: Any) -> None:
    first = ddb.put_item(TableName=table, Item={"pk": {"S": "k"}, "v": {"N": "1"}}, ReturnValues="ALL_OLD")
    assert "Attributes" not in first
    second = ddb.put_item(TableName=table, Item={"pk": {"S": "k"}, "w": {"N": "2"}}, ReturnValues="ALL_OLD")
    assert second["Attributes"] == {"pk": {"S": "k"}, "v": {"N": "1"}}
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "k"}})["Item"] == {"pk": {"S": "k"}, "w": {"N": "2"}}
    assert_validation(  # in the envelope (issue 36)
        "1 validation error detected: ReturnValues can only be ALL_OLD or NONE",
        ddb.put_item, TableName=table, Item={"pk": {"S": "k"}}, ReturnValues="ALL_NEW",
    )


def test_delete_item(table: str, ddb: Any) -> None:
    ddb.put_item(TableName=table, Item={"pk": {"S": "d"}, "v": {"S": "x"}})
    out = ddb.delete_item(TableName=table, Key={"pk": {"S": "d"}}, ReturnValues="ALL_OLD")
    assert out["Attributes"] == {"pk": {"S": "d"}, "v": {"S": "x"}}
    assert "Item" not in ddb.get_item(TableName=table, Key={"pk": {"S": "d"}})
    out = ddb.delete_item(TableName=table, Key={"pk": {"S": "d"}}, ReturnValues="ALL_OLD")
    assert "Attributes" not in out
    assert_validation(  # in the envelope (issue 36)
        "1 validation error detected: ReturnValues can only be ALL_OLD or NONE",
        ddb.delete_item, TableName=table, Key={"pk": {"S": "d"}}, ReturnValues="UPDATED_OLD",
    )


def test_update_item_without_expression_creates_key_only_item(table: str, ddb: Any) -> None:
    out = ddb.update_item(TableName=table, Key={"pk": {"S": "u"}}, ReturnValues="ALL_NEW")
    assert out["Attributes"] == {"pk": {"S": "u"}}
    assert ddb.get_item(TableName=table, Key={"pk": {"S": "u"}})["Item"] == {"pk": {"S": "u"}}


def test_item_count_and_size(table: str, ddb: Any) -> None:
    ddb.put_item(TableName=table, Item={"shirt-color": {"S": "R"}, "pk": {"S": "a"}})
    ddb.put_item(TableName=table, Item={"pk": {"S": "b"}})
    ddb.put_item(TableName=table, Item={"pk": {"S": "b"}, "x": {"S": "yy"}})
    t = ddb.describe_table(TableName=table)["Table"]
    # pk(2)+a(1) + shirt-color(11)+R(1) = 15; pk+b = 3, x+yy = 3 -> 6
    assert t["ItemCount"] == 2 and t["TableSizeBytes"] == 15 + 6
    ddb.delete_item(TableName=table, Key={"pk": {"S": "a"}})
    t = ddb.describe_table(TableName=table)["Table"]
    assert t["ItemCount"] == 1 and t["TableSizeBytes"] == 6


# --- key rules -------------------------------------------------------------------------------------


def test_put_missing_key(table_hr: str, ddb: Any) -> None:
    assert_validation(
        "One or more parameter values were invalid: Missing the key sk in the item",
        ddb.put_item, TableName=table_hr, Item={"pk": {"S": "a"}},
    )
    assert_validation(
        "One or more parameter values were invalid: Missing the key pk in the item",
        ddb.put_item, TableName=table_hr, Item={},
    )


def test_put_key_type_mismatch(table_hr: str, ddb: Any) -> None:
    assert_validation(
        "One or more parameter values were invalid: Type mismatch for key sk expected: N actual: S",
        ddb.put_item, TableName=table_hr, Item={"pk": {"S": "a"}, "sk": {"S": "1"}},
    )


@pytest.mark.parametrize(
    "key",
    [
        {"pk": {"S": "a"}},  # sort key missing
        {"pk": {"S": "a"}, "sk": {"S": "1"}},  # wrong type
        {"pk": {"S": "a"}, "sk": {"N": "1"}, "x": {"S": "extra"}},  # extra attribute
        {"sk": {"N": "1"}, "x": {"S": "a"}},
    ],
)
def test_key_does_not_match_schema(table_hr: str, ddb: Any, key: dict[str, Any]) -> None:
    for call in (ddb.get_item, ddb.delete_item, ddb.update_item):
        assert_validation("The provided key element does not match the schema", call, TableName=table_hr, Key=key)


def test_empty_key_values(table: str, make_table: Any, ddb: Any) -> None:
    assert_validation(
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
        "empty string value. Key: pk",
        ddb.put_item, TableName=table, Item={"pk": {"S": ""}},
    )
    assert_validation(
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
        "empty string value. Key: pk",
        ddb.get_item, TableName=table, Key={"pk": {"S": ""}},
    )
    bt = make_table(hash=("pk", "B"))
    assert_validation(
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
        "empty binary value. Key: pk",
        ddb.put_item, TableName=bt, Item={"pk": {"B": b""}},
    )


def test_key_size_limits(table_hr: str, make_table: Any, ddb: Any) -> None:
    ddb.put_item(TableName=table_hr, Item={"pk": {"S": "p" * 2048}, "sk": {"N": "1"}})
    assert_validation(
        "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes",
        ddb.put_item, TableName=table_hr, Item={"pk": {"S": "p" * 2049}, "sk": {"N": "1"}},
    )
    srt = make_table(range=("sk", "S"))
    ddb.put_item(TableName=srt, Item={"pk": {"S": "a"}, "sk": {"S": "s" * 1024}})
    assert_validation(
        "One or more parameter values were invalid: Aggregated size of all range keys has exceeded the size limit "
        "of 1024 bytes",
        ddb.put_item, TableName=srt, Item={"pk": {"S": "a"}, "sk": {"S": "é" * 513}},
    )


def test_item_size_limit(table: str, ddb: Any) -> None:
    # 400 KB including names: "pk"(2) + "a"(1) + "v"(1) + value
    ok = 400 * 1024 - 2 - 1 - 1
    ddb.put_item(TableName=table, Item={"pk": {"S": "a"}, "v": {"S": "x" * ok}})
    assert_validation(
        "Item size has exceeded the maximum allowed size",
        ddb.put_item, TableName=table, Item={"pk": {"S": "a"}, "v": {"S": "x" * (ok + 1)}},
    )
    # Checked before the table is looked up.
    assert_validation(
        "Item size has exceeded the maximum allowed size",
        ddb.put_item, TableName="no-such-table", Item={"pk": {"S": "a"}, "v": {"S": "x" * (ok + 1)}},
    )


def test_binary_values_are_base64_on_the_wire(table: str, server_url: str) -> None:
    import urllib.request

    body = {"TableName": table, "Item": {"pk": {"S": "raw"}, "b": {"B": base64.b64encode(b"\xff\x00").decode()}}}
    import json

    req = urllib.request.Request(
        server_url, data=json.dumps(body).encode(), method="POST",
        headers={"X-Amz-Target": "DynamoDB_20120810.PutItem", "Content-Type": "application/x-amz-json-1.0",
                 "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDTEST/20250101/us-east-1/dynamodb/aws4_request"},
    )
    with urllib.request.urlopen(req) as resp:
        assert resp.status == 200


# --- consumed capacity -------------------------------------------------------------------------------


def test_consumed_capacity(table: str, ddb: Any) -> None:
    out = ddb.put_item(TableName=table, Item={"pk": {"S": "c"}, "v": {"S": "x" * 1500}}, ReturnConsumedCapacity="TOTAL")
    assert out["ConsumedCapacity"]["TableName"] == table
    assert out["ConsumedCapacity"]["CapacityUnits"] == 2.0  # 1.5 KB -> 2 WCU
    out = ddb.get_item(TableName=table, Key={"pk": {"S": "c"}}, ReturnConsumedCapacity="TOTAL")
    assert out["ConsumedCapacity"]["CapacityUnits"] == 0.5  # eventual, under 4 KB
    out = ddb.get_item(TableName=table, Key={"pk": {"S": "c"}}, ConsistentRead=True, ReturnConsumedCapacity="INDEXES")
    assert out["ConsumedCapacity"]["CapacityUnits"] == 1.0
    assert out["ConsumedCapacity"]["Table"]["CapacityUnits"] == 1.0
    out = ddb.get_item(TableName=table, Key={"pk": {"S": "missing"}}, ReturnConsumedCapacity="TOTAL")
    assert out["ConsumedCapacity"]["CapacityUnits"] == 0.5  # a miss still costs the minimum read
    out = ddb.delete_item(TableName=table, Key={"pk": {"S": "missing"}}, ReturnConsumedCapacity="TOTAL")
    assert out["ConsumedCapacity"]["CapacityUnits"] == 1.0
    assert "ConsumedCapacity" not in ddb.get_item(TableName=table, Key={"pk": {"S": "c"}})


def test_missing_table_is_checked_after_request_validation(ddb: Any) -> None:
    assert_error("ResourceNotFoundException", "Requested resource not found",
                 ddb.get_item, TableName="absent", Key={"pk": {"S": "a"}})


# --- attribute value rules, through the server ----------------------------------------------------

NESTED_33: dict[str, Any] = {"S": "x"}
for _ in range(32):
    NESTED_33 = {"M": {"m": NESTED_33}}
NESTED_32: dict[str, Any] = {"S": "x"}
for _ in range(31):
    NESTED_32 = {"M": {"m": NESTED_32}}


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ({"N": "1" * 39}, "Attempting to store more than 38 significant digits in a Number"),
        ({"N": "1E+126"}, "Number overflow. Attempting to store a number with magnitude larger than supported range"),
        ({"N": "1E-131"}, "Number underflow. Attempting to store a number with magnitude smaller than supported range"),
        ({"N": "abc"}, "The parameter cannot be converted to a numeric value: abc"),
        ({"SS": []}, "One or more parameter values were invalid: An string set  may not be empty"),
        ({"NS": []}, "One or more parameter values were invalid: An number set  may not be empty"),
        ({"SS": ["a", "a"]}, 'One or more parameter values were invalid: Input collection ["a", "a"] contains duplicates.'),
        ({"NULL": False}, "One or more parameter values were invalid: Null attribute value types must have the value of true"),
        (NESTED_33, "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond "
                    "supported limit"),
    ],
)
def test_attribute_value_rules(table: str, ddb: Any, value: dict[str, Any], message: str) -> None:
    if not message.startswith("Nesting"):  # a value rule, in PutItem's envelope (issue 36)
        message = "1 validation error detected: " + message
    assert_validation(message, ddb.put_item, TableName=table, Item={"pk": {"S": "v"}, "a": value})
    assert "Item" not in ddb.get_item(TableName=table, Key={"pk": {"S": "v"}})  # nothing written


def test_attribute_value_limits_that_pass(table: str, ddb: Any) -> None:
    item = {"pk": {"S": "ok"}, "big": {"N": "9.9999999999999999999999999999999999999E+125"},
            "small": {"N": "1E-130"}, "digits": {"N": "1" * 38}, "deep": NESTED_32}
    ddb.put_item(TableName=table, Item=item)
    got = ddb.get_item(TableName=table, Key={"pk": {"S": "ok"}})["Item"]
    assert got["digits"] == {"N": "1" * 38} and got["deep"] == NESTED_32
    assert got["big"]["N"] == "99999999999999999999999999999999999999" + "0" * 88


def test_empty_attribute_value_through_raw_http(server_url: str, table: str) -> None:
    from tests.test_protocol import raw

    for value, message in [
        ("{}", "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"),
        ('{"S": "a", "N": "1"}',
         "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"),
    ]:
        body = '{"TableName": "' + table + '", "Item": {"pk": {"S": "e"}, "a": ' + value + "}}"
        status, _, data = raw(server_url, body, target="DynamoDB_20120810.PutItem")
        assert status == 400
        import json

        assert json.loads(data)["message"] == message
