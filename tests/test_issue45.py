"""Issue 45: a filter on attributes an index does not project is refused for a GSI Query
only; a Scan of the index evaluates it on what the index holds (the attribute is absent),
and an LSI Query fetches the attribute from the table at the fetch's documented cost
(developer guide, "Local secondary indexes", read capacity units). Set order (§2) is
tests/test_set_order.py."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest

from tests.helpers import assert_validation

PARAM = "One or more parameter values were invalid: "
_names = itertools.count()


@pytest.fixture
def indexed(ddb: Any) -> Iterator[str]:
    """pk/sk, a KEYS_ONLY GSI on g and a KEYS_ONLY LSI on l; the items have ``colour``,
    which neither index projects."""
    name = f"issue45-{next(_names)}"
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": n, "AttributeType": t}
                              for n, t in (("pk", "S"), ("sk", "N"), ("g", "S"), ("l", "N"))],
        GlobalSecondaryIndexes=[{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "KEYS_ONLY"}}],
        LocalSecondaryIndexes=[{"IndexName": "by-l", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                                                   {"AttributeName": "l", "KeyType": "RANGE"}],
                                "Projection": {"ProjectionType": "KEYS_ONLY"}}],
    )  # fmt: skip
    yield name
    ddb.delete_table(TableName=name)


def _fill(ddb: Any, table: str) -> None:
    for i in range(4):
        ddb.put_item(TableName=table, Item={"pk": {"S": "p"}, "sk": {"N": str(i)}, "g": {"S": "G"},
                                            "l": {"N": str(10 + i)}, "colour": {"S": "red" if i % 2 else "blue"}})


def test_gsi_query_refuses_a_filter_on_an_unprojected_attribute(ddb: Any, indexed: str) -> None:
    _fill(ddb, indexed)
    assert_validation(PARAM + "Secondary index by-g does not project one or more filter attributes: [colour]",
                      ddb.query, TableName=indexed, IndexName="by-g", KeyConditionExpression="g = :g",
                      FilterExpression="colour = :c", ExpressionAttributeValues={":g": {"S": "G"}, ":c": {"S": "red"}})


@pytest.mark.parametrize("index", ["by-g", "by-l"])
def test_scan_of_an_index_evaluates_the_filter_on_what_it_holds(ddb: Any, indexed: str, index: str) -> None:
    _fill(ddb, indexed)
    out = ddb.scan(TableName=indexed, IndexName=index, FilterExpression="colour = :c",
                   ExpressionAttributeValues={":c": {"S": "red"}})
    assert (out["Items"], out["Count"], out["ScannedCount"]) == ([], 0, 4)
    # a condition the absent attribute satisfies keeps every entry, as the index holds it
    out = ddb.scan(TableName=indexed, IndexName=index, FilterExpression="attribute_not_exists(colour)")
    assert out["Count"] == 4
    assert all("colour" not in item for item in out["Items"])


def test_lsi_query_fetches_filter_attributes_from_the_table(ddb: Any, indexed: str) -> None:
    _fill(ddb, indexed)
    kw = dict(TableName=indexed, IndexName="by-l", KeyConditionExpression="pk = :p",
              ExpressionAttributeValues={":p": {"S": "p"}}, ReturnConsumedCapacity="INDEXES")
    plain = ddb.query(**kw)
    assert plain["ConsumedCapacity"]["Table"] == {"CapacityUnits": 0.0}
    out = ddb.query(FilterExpression="colour = :c", **{**kw, "ExpressionAttributeValues": {":p": {"S": "p"},
                                                                                              ":c": {"S": "red"}}})
    # the two red items, as the index projects them
    assert [(i["sk"]["N"], sorted(i)) for i in out["Items"]] == [("1", ["l", "pk", "sk"]), ("3", ["l", "pk", "sk"])]
    assert (out["Count"], out["ScannedCount"]) == (2, 4)
    # every entry read fetched its table item: 4 items x 4 KB, eventually consistent = 2 units
    assert out["ConsumedCapacity"]["Table"] == {"CapacityUnits": 2.0}
    assert out["ConsumedCapacity"]["LocalSecondaryIndexes"] == plain["ConsumedCapacity"]["LocalSecondaryIndexes"]


def test_a_failed_condition_check_reason_has_no_full_stop(ddb: Any, indexed: str) -> None:
    """§3: no capture of the service's reason for a failed ConditionCheck was found; the
    captures of its reasons for other actions (a Put in the transaction below) read
    ``The conditional request failed``, without a full stop, and dynemu gives every action
    that one text (errors/base.py)."""
    key = {"pk": {"S": "p"}, "sk": {"N": "9"}}
    check = {"TableName": indexed, "Key": key, "ConditionExpression": "attribute_exists(pk)"}
    put = {"TableName": indexed, "Item": {**key, "x": {"S": "x"}}, "ConditionExpression": "attribute_exists(pk)"}
    for action in ({"ConditionCheck": check}, {"Put": put}):
        try:
            ddb.transact_write_items(TransactItems=[action])
        except ddb.exceptions.TransactionCanceledException as err:
            reasons = err.response["CancellationReasons"]
        else:
            raise AssertionError("expected a cancellation")
        assert reasons == [{"Code": "ConditionalCheckFailed", "Message": "The conditional request failed"}]
