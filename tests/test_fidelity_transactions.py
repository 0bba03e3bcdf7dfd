"""Issue 12, transactions at their edges: the 4 MB aggregate, a Get whose Key does not match
the schema, and ReturnValuesOnConditionCheckFailure in the cancellation reasons."""

from __future__ import annotations

from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.helpers import N, S, assert_validation

CANCELLED = "Transaction cancelled, please refer cancellation reasons for specific reasons "


def _cancelled(call: Any, **kwargs: Any) -> dict[str, Any]:
    with pytest.raises(ClientError) as info:
        call(**kwargs)
    return info.value.response


def test_aggregate_size_over_4_mb(ddb: Any, table: str) -> None:
    big = "x" * 390_000
    items = [{"Put": {"TableName": table, "Item": {"pk": S(str(i)), "d": S(big)}}} for i in range(11)]
    assert_validation("Collection size of items exceeded, which can also be caused by the aggregate size of the "
                      "items in the transaction exceeding the 4MB limit", ddb.transact_write_items,
                      TransactItems=items)
    assert ddb.scan(TableName=table)["Count"] == 0


def test_get_with_an_empty_key_cancels(ddb: Any, table: str) -> None:
    response = _cancelled(ddb.transact_get_items, TransactItems=[
        {"Get": {"TableName": table, "Key": {"pk": S("a")}}}, {"Get": {"TableName": table, "Key": {}}}])
    assert response["Error"] == {"Code": "TransactionCanceledException",
                                 "Message": CANCELLED + "[None, ValidationError]"}
    assert response["CancellationReasons"] == [
        {"Code": "None"}, {"Code": "ValidationError", "Message": "The provided key element does not match the schema"}]


@pytest.mark.parametrize("kind", ["ConditionCheck", "Put", "Update", "Delete"])
def test_return_values_on_condition_check_failure(ddb: Any, table: str, kind: str) -> None:
    item = {"pk": S("rv"), "v": N(1)}
    ddb.put_item(TableName=table, Item=item)
    action: dict[str, Any] = {"TableName": table, "ConditionExpression": "v = :x",
                              "ExpressionAttributeValues": {":x": N(2)}, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}
    if kind == "Put":
        action["Item"] = {"pk": S("rv")}
    else:
        action["Key"] = {"pk": S("rv")}
    if kind == "Update":
        action["UpdateExpression"] = "SET w = :x"
    response = _cancelled(ddb.transact_write_items, TransactItems=[{kind: action}])
    assert response["Error"]["Message"] == CANCELLED + "[ConditionalCheckFailed]"
    assert response["CancellationReasons"] == [
        {"Code": "ConditionalCheckFailed", "Message": "The conditional request failed", "Item": item}]
