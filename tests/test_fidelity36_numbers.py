"""Issue 36 §4: numbers whose exponent is past a 32-bit integer overflow or underflow (not
"cannot be converted"), in keys, items, conditions, updates and BatchGetItem keys; a zero
with such an exponent is refused too. The issue's quotes of the service's answers are the spec.
"""

from __future__ import annotations

from typing import Any

import pytest

from tests.helpers import N, S, assert_validation

ENV = "1 validation error detected: "
OVER = "Number overflow. Attempting to store a number with magnitude larger than supported range"
UNDER = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
EXPONENTS = [("1e99999999999", OVER), ("1e2147483648", OVER), ("1e2147483647", OVER), ("-1E+99999999999", OVER),
             ("1e-99999999999", UNDER), ("1e-2147483649", UNDER), ("0e2147483648", OVER), ("0e-2147483649", UNDER)]


@pytest.mark.parametrize(("text", "message"), EXPONENTS)
def test_single_item_writes(raw: Any, table_hr: str, text: str, message: str) -> None:
    good = {"pk": S("k"), "sk": N(1)}
    bad_key = {"pk": S("k"), "sk": {"N": text}}
    assert_validation(ENV + message, raw.put_item, TableName=table_hr, Item={**good, "n": {"N": text}})
    assert_validation(ENV + message, raw.put_item, TableName=table_hr, Item=bad_key)
    assert_validation(ENV + message, raw.put_item, TableName=table_hr, Item=good, ConditionExpression="n = :v",
                      ExpressionAttributeValues={":v": {"N": text}})
    assert_validation(ENV + message, raw.delete_item, TableName=table_hr, Key=bad_key)
    assert_validation(ENV + message, raw.update_item, TableName=table_hr, Key=bad_key)
    assert_validation(ENV + message, raw.update_item, TableName=table_hr, Key=good, UpdateExpression="SET n = :v",
                      ExpressionAttributeValues={":v": {"N": text}})
    assert "Item" not in raw.get_item(TableName=table_hr, Key=good, ConsistentRead=True)


@pytest.mark.parametrize(("text", "message"), EXPONENTS)
def test_reads(raw: Any, table_hr: str, text: str, message: str) -> None:
    bad_key = {"pk": S("k"), "sk": {"N": text}}
    assert_validation(message, raw.get_item, TableName=table_hr, Key=bad_key)
    assert_validation(message, raw.batch_get_item, RequestItems={table_hr: {"Keys": [bad_key]}})
    assert_validation(message, raw.query, TableName=table_hr, KeyConditionExpression="pk = :p AND sk = :s",
                      ExpressionAttributeValues={":p": S("k"), ":s": {"N": text}})


def test_zero_within_the_range_is_stored_as_zero(raw: Any, table: str) -> None:
    raw.put_item(TableName=table, Item={"pk": S("z"), "a": {"N": "0e999"}, "b": {"N": "0e-2147483648"}})
    item = raw.get_item(TableName=table, Key={"pk": S("z")}, ConsistentRead=True)["Item"]
    assert item == {"pk": S("z"), "a": N(0), "b": N(0)}
