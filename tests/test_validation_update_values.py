"""UpdateItem with one text and other values each time (the compiled expression is cached by
its text, names and the keys and types of its values: ``expressions.template``): every error
those values cause still comes, in the service's order; each request's names and values are
its own; the table size and the 400 KB limit come out as a full count of the new image."""

from __future__ import annotations

from typing import Any

from dynemu.engine import values
from tests.helpers import assert_error, assert_validation

ADD_TEXT = "ADD cache_hits :inc"


def test_a_cached_text_still_checks_the_values_types(table: str, raw: Any) -> None:
    key = {"pk": {"S": "types"}}
    for _ in range(2):  # the second request of each shape finds the cache filled
        raw.update_item(TableName=table, Key=key, UpdateExpression=ADD_TEXT,
                        ExpressionAttributeValues={":inc": {"N": "1"}})
    assert_validation("Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, "
                      "operand type: STRING", raw.update_item, TableName=table, Key=key, UpdateExpression=ADD_TEXT,
                      ExpressionAttributeValues={":inc": {"S": "1"}})
    got = raw.get_item(TableName=table, Key=key, ConsistentRead=True)["Item"]
    assert got["cache_hits"] == {"N": "2"}


def test_a_cached_text_still_checks_each_value(table: str, raw: Any) -> None:
    key = {"pk": {"S": "rules"}}
    raw.update_item(TableName=table, Key=key, UpdateExpression=ADD_TEXT, ExpressionAttributeValues={":inc": {"N": "1"}})
    assert_validation("1 validation error detected: The parameter cannot be converted to a numeric value: one",
                      raw.update_item, TableName=table, Key=key,
                      UpdateExpression=ADD_TEXT, ExpressionAttributeValues={":inc": {"N": "one"}})
    assert_validation("ExpressionAttributeValues contains invalid value: Supplied AttributeValue has more than one "
                      "datatypes set, must contain exactly one of the supported datatypes for key :inc",
                      raw.update_item, TableName=table, Key=key, UpdateExpression=ADD_TEXT,
                      ExpressionAttributeValues={":inc": {"N": "1", "S": "x"}})
    assert_validation("Value provided in ExpressionAttributeValues unused in expressions: keys: {:extra}",
                      raw.update_item, TableName=table, Key=key, UpdateExpression=ADD_TEXT,
                      ExpressionAttributeValues={":inc": {"N": "1"}, ":extra": {"N": "2"}})
    assert_validation("1 validation error detected: Invalid UpdateExpression: An expression attribute value used in "
                      "expression is not defined; attribute value: :inc", raw.update_item, TableName=table, Key=key,
                      UpdateExpression=ADD_TEXT, ExpressionAttributeValues={":other": {"N": "1"}})
    # a non-canonical number is normalised as on the general path
    raw.update_item(TableName=table, Key=key, UpdateExpression=ADD_TEXT, ExpressionAttributeValues={":inc": {"N": "01.0"}})
    assert raw.get_item(TableName=table, Key=key, ConsistentRead=True)["Item"]["cache_hits"] == {"N": "2"}


def test_a_cached_text_resolves_each_requests_names(table: str, ddb: Any) -> None:
    key = {"pk": {"S": "names"}}
    text = "SET #a = :v"
    ddb.update_item(TableName=table, Key=key, UpdateExpression=text, ExpressionAttributeNames={"#a": "first"},
                    ExpressionAttributeValues={":v": {"S": "1"}})
    ddb.update_item(TableName=table, Key=key, UpdateExpression=text, ExpressionAttributeNames={"#a": "second"},
                    ExpressionAttributeValues={":v": {"S": "2"}})
    ddb.update_item(TableName=table, Key=key, UpdateExpression=text, ExpressionAttributeNames={"#a": "second"},
                    ExpressionAttributeValues={":v": {"S": "3"}})
    got = ddb.get_item(TableName=table, Key=key, ConsistentRead=True)["Item"]
    assert got == {"pk": {"S": "names"}, "first": {"S": "1"}, "second": {"S": "3"}}


def test_a_cached_text_still_refuses_key_attributes_per_table(make_table: Any, ddb: Any) -> None:
    by_pk, by_id = make_table(), make_table(hash=("id", "S"))
    text, names = "SET #k = :v", {"#k": "pk"}
    for _ in range(2):
        ddb.update_item(TableName=by_id, Key={"id": {"S": "x"}}, UpdateExpression=text, ExpressionAttributeNames=names,
                        ExpressionAttributeValues={":v": {"S": "y"}})
        assert_validation("One or more parameter values were invalid: Cannot update attribute pk. This attribute is "
                          "part of the key", ddb.update_item, TableName=by_pk, Key={"pk": {"S": "x"}},
                          UpdateExpression=text, ExpressionAttributeNames=names,
                          ExpressionAttributeValues={":v": {"S": "y"}})


def test_a_cached_text_with_a_condition_checks_the_condition(table: str, ddb: Any) -> None:
    key = {"pk": {"S": "cond"}}
    ddb.update_item(TableName=table, Key=key, UpdateExpression=ADD_TEXT, ExpressionAttributeValues={":inc": {"N": "1"}})
    assert_error("ConditionalCheckFailedException", None, ddb.update_item, TableName=table, Key=key,
                 UpdateExpression=ADD_TEXT, ConditionExpression="cache_hits > :inc",
                 ExpressionAttributeValues={":inc": {"N": "1"}})


def _table_bytes(ddb: Any, table: str) -> int:
    return int(ddb.describe_table(TableName=table)["Table"]["TableSizeBytes"])


def test_updates_keep_the_table_size_exact(table: str, ddb: Any) -> None:
    key = {"pk": {"S": "size"}}
    ddb.put_item(TableName=table, Item={**key, "keep": {"S": "x" * 10}, "gone": {"N": "12.5"},
                                        "m": {"M": {"a": {"L": [{"S": "x"}, {"N": "1"}]}}}, "s": {"SS": ["a"]}})
    updates = [
        ("SET grows = :v", {":v": {"S": "é" * 7}}),
        ("REMOVE gone", None),
        ("ADD n :v", {":v": {"N": "123.25"}}),
        ("ADD n :v", {":v": {"N": "-0.25"}}),
        ("SET m.a[1] = :v, m.b = :w", {":v": {"S": "long string"}, ":w": {"BOOL": True}}),
        ("ADD s :v", {":v": {"SS": ["b", "cc"]}}),
        ("DELETE s :v", {":v": {"SS": ["a", "b", "cc"]}}),
        ("SET keep = keep", None),
    ]
    for text, vals in updates:
        kw = {"ExpressionAttributeValues": vals} if vals else {}
        ddb.update_item(TableName=table, Key=key, UpdateExpression=text, **kw)
        item = ddb.get_item(TableName=table, Key=key, ConsistentRead=True)["Item"]
        assert _table_bytes(ddb, table) == values.item_size(item), text


def test_an_update_past_400_kb_is_refused_at_the_exact_byte(table: str, ddb: Any) -> None:
    """UpdateItem is measured by its statement: 19 bytes for the SET, its name, its value,
    not the attributes it leaves alone nor the key (docs/rules.md, "Item size by surface";
    the clauses: tests/test_fidelity36_sizes.py); and the finished item stays within 400 KB."""
    key = {"pk": {"S": "edge"}}
    room = 400 * 1024 - 19 - len("padding")
    assert_validation("Item size to update has exceeded the maximum allowed size", ddb.update_item, TableName=table,
                      Key=key, UpdateExpression="SET padding = :p", ExpressionAttributeValues={":p": {"S": "y" * (room + 1)}})
    ddb.update_item(TableName=table, Key=key, UpdateExpression="SET padding = :p",
                    ExpressionAttributeValues={":p": {"S": "y" * room}})
    # the same statement over an item that holds 1 KB more would leave it past the limit
    ddb.put_item(TableName=table, Item={**key, "a": {"S": "x" * 1000}, "n": {"N": "7"}})
    assert_validation("Item size to update has exceeded the maximum allowed size", ddb.update_item, TableName=table,
                      Key=key, UpdateExpression="SET padding = :p", ExpressionAttributeValues={":p": {"S": "y" * room}})


def test_the_keys_values_are_checked_before_the_expression(table: str, raw: Any) -> None:
    for text in ("ADD order_check :inc", "ADD order_check :inc"):  # a miss, then a hit
        assert_validation("1 validation error detected: The parameter cannot be converted to a numeric value: x",
                          raw.update_item,
                          TableName=table, Key={"pk": {"N": "x"}}, UpdateExpression=text,
                          ExpressionAttributeValues={":inc": {"S": "not a number"}})
        raw.update_item(TableName=table, Key={"pk": {"S": "order"}}, UpdateExpression=text,
                        ExpressionAttributeValues={":inc": {"N": "1"}})
    assert_validation("Invalid UpdateExpression: Incorrect operand type for operator or function; operator: ADD, "
                      "operand type: STRING", raw.update_item, TableName="no-such-table", Key={"pk": {"S": "o"}},
                      UpdateExpression="ADD order_check :inc", ExpressionAttributeValues={":inc": {"S": "x"}})
    assert_error("ResourceNotFoundException", None, raw.update_item, TableName="no-such-table",
                 Key={"pk": {"S": "o"}}, UpdateExpression="ADD order_check :inc",
                 ExpressionAttributeValues={":inc": {"N": "1"}})
    assert_validation("The provided key element does not match the schema", raw.update_item, TableName=table,
                      Key={"id": {"S": "o"}}, UpdateExpression="ADD order_check :inc",
                      ExpressionAttributeValues={":inc": {"N": "1"}})


def test_set_operands_read_the_requests_values(table: str, ddb: Any) -> None:
    key = {"pk": {"S": "operands"}}
    text = "SET a = if_not_exists(a, :start), b = list_append(if_not_exists(b, :empty), :more), c = (:x + :y)"
    for i in range(3):
        ddb.update_item(TableName=table, Key=key, UpdateExpression=text, ExpressionAttributeValues={
            ":start": {"N": str(10 + i)}, ":empty": {"L": []}, ":more": {"L": [{"N": str(i)}]},
            ":x": {"N": str(i)}, ":y": {"N": "0.5"}})
    got = ddb.get_item(TableName=table, Key=key, ConsistentRead=True)["Item"]
    assert got["a"] == {"N": "10"} and got["c"] == {"N": "2.5"}
    assert got["b"] == {"L": [{"N": "0"}, {"N": "1"}, {"N": "2"}]}
