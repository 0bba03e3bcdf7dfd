"""TransactWriteItems and TransactGetItems, through boto3 (and raw HTTP where boto3 hides
the wire form)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from dynemu.engine.tokens import TOKEN_TTL_SECONDS, Tokens, fingerprint
from dynemu.storage.memory import MemoryStore
from tests.conftest import make_client
from tests.helpers import assert_error, assert_validation, error_of
from tests.test_protocol import raw
from tests.test_server_process import Process

MSG_CANCELLED = "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]"
MSG_CCF = "The conditional request failed"
MSG_MULTIPLE = "Transaction request cannot include multiple operations on one item"
MSG_SCHEMA = "The provided key element does not match the schema"
MSG_MISMATCH = (
    "DynamoDB rejected the request because you retried a request with a different payload "
    "but with an idempotent token that was already used."
)


def S(v: str) -> dict[str, str]:
    return {"S": v}


def N(v: int | str) -> dict[str, str]:
    return {"N": str(v)}


def key(v: str) -> dict[str, Any]:
    return {"pk": S(v)}


def Put(table: str, item: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return {"Put": {"TableName": table, "Item": item, **kw}}


def Delete(table: str, k: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return {"Delete": {"TableName": table, "Key": k, **kw}}


def Update(table: str, k: dict[str, Any], expr: str, **kw: Any) -> dict[str, Any]:
    return {"Update": {"TableName": table, "Key": k, "UpdateExpression": expr, **kw}}


def Check(table: str, k: dict[str, Any], cond: str, **kw: Any) -> dict[str, Any]:
    return {"ConditionCheck": {"TableName": table, "Key": k, "ConditionExpression": cond, **kw}}


def Get(table: str, k: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return {"Get": {"TableName": table, "Key": k, **kw}}


def cancelled(call: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[str, list[dict[str, Any]]]:
    """Run a call that must be cancelled; return (message, CancellationReasons)."""
    with pytest.raises(ClientError) as info:
        call(*args, **kwargs)
    response = info.value.response
    assert response["Error"]["Code"] == "TransactionCanceledException"
    return response["Error"]["Message"], response["CancellationReasons"]


def item_of(ddb: Any, table: str, pk: str) -> dict[str, Any] | None:
    return ddb.get_item(TableName=table, Key=key(pk), ConsistentRead=True).get("Item")


@pytest.fixture
def two_tables(make_table: Callable[..., str]) -> tuple[str, str]:
    return make_table(), make_table()


# --- TransactWriteItems: behaviour -----------------------------------------------------------------


def test_all_four_actions_across_tables(two_tables: tuple[str, str], ddb: Any) -> None:
    a, b = two_tables
    ddb.put_item(TableName=a, Item={"pk": S("acct"), "balance": N(100)})
    ddb.put_item(TableName=b, Item={"pk": S("gone"), "v": S("x")})
    ddb.put_item(TableName=b, Item={"pk": S("guard"), "open": {"BOOL": True}})
    out = ddb.transact_write_items(
        TransactItems=[
            Update(a, key("acct"), "SET balance = balance - :amt", ExpressionAttributeValues={":amt": N(30)},
                   ConditionExpression="balance >= :amt"),
            Put(a, {"pk": S("new"), "v": S("y")}, ConditionExpression="attribute_not_exists(pk)"),
            Delete(b, key("gone")),
            Check(b, key("guard"), "#o = :t", ExpressionAttributeNames={"#o": "open"},
                  ExpressionAttributeValues={":t": {"BOOL": True}}),
        ]
    )
    assert "ConsumedCapacity" not in out and "ItemCollectionMetrics" not in out
    assert item_of(ddb, a, "acct") == {"pk": S("acct"), "balance": N(70)}
    assert item_of(ddb, a, "new") == {"pk": S("new"), "v": S("y")}
    assert item_of(ddb, b, "gone") is None
    assert item_of(ddb, b, "guard") == {"pk": S("guard"), "open": {"BOOL": True}}
    assert ddb.describe_table(TableName=a)["Table"]["ItemCount"] == 2
    assert ddb.describe_table(TableName=b)["Table"]["ItemCount"] == 1


@pytest.mark.parametrize(
    ("expr", "values"),
    [
        ("ADD n :one", {":one": N(1)}),
        ("SET l = list_append(if_not_exists(l, :empty), :x), c = if_not_exists(c, :one)",
         {":empty": {"L": []}, ":x": {"L": [S("a")]}, ":one": N(1)}),
        ("SET m.deep = :x REMOVE gone", {":x": S("v")}),
        ("ADD ss :s DELETE ns :n", {":s": {"SS": ["b", "c"]}, ":n": {"NS": ["2"]}}),
    ],
)
def test_update_is_update_item(table: str, ddb: Any, expr: str, values: dict[str, Any]) -> None:
    base = {"n": N(5), "m": {"M": {}}, "gone": S("x"), "ss": {"SS": ["a"]}, "ns": {"NS": ["1", "2"]}}
    ddb.put_item(TableName=table, Item={"pk": S("via-update"), **base})
    ddb.put_item(TableName=table, Item={"pk": S("via-tx"), **base})
    ddb.update_item(TableName=table, Key=key("via-update"), UpdateExpression=expr, ExpressionAttributeValues=values)
    ddb.transact_write_items(TransactItems=[Update(table, key("via-tx"), expr, ExpressionAttributeValues=values)])
    expected = item_of(ddb, table, "via-update")
    got = item_of(ddb, table, "via-tx")
    assert expected is not None and got is not None
    expected.pop("pk"), got.pop("pk")
    assert got == expected
    # an Update of a missing item creates it from the key, as UpdateItem does
    ddb.transact_write_items(TransactItems=[Update(table, key("fresh"), "SET a = :x", ExpressionAttributeValues={":x": N(1)})])
    assert item_of(ddb, table, "fresh") == {"pk": S("fresh"), "a": N(1)}


def test_condition_check_on_missing_item(table: str, ddb: Any) -> None:
    ddb.transact_write_items(
        TransactItems=[Check(table, key("absent"), "attribute_not_exists(pk)"), Put(table, key("x"))]
    )
    assert item_of(ddb, table, "x") == key("x") and item_of(ddb, table, "absent") is None


def test_table_arn_accepted(table: str, ddb: Any) -> None:
    arn = ddb.describe_table(TableName=table)["Table"]["TableArn"]
    out = ddb.transact_write_items(TransactItems=[Put(arn, key("a"))], ReturnConsumedCapacity="TOTAL")
    assert out["ConsumedCapacity"][0]["TableName"] == arn
    assert item_of(ddb, table, "a") == key("a")


# --- cancellation ------------------------------------------------------------------------------


def test_last_condition_failing_leaves_no_trace(two_tables: tuple[str, str], ddb: Any) -> None:
    a, b = two_tables
    ddb.put_item(TableName=a, Item={"pk": S("keep"), "v": N(1)})
    ddb.put_item(TableName=b, Item={"pk": S("lock"), "state": S("closed")})
    message, reasons = cancelled(
        ddb.transact_write_items,
        TransactItems=[
            Put(a, {"pk": S("new"), "v": N(9)}),
            Update(a, key("keep"), "SET v = :two", ExpressionAttributeValues={":two": N(2)}),
            Delete(a, key("keep2")),
            Check(b, key("lock"), "#s = :open", ExpressionAttributeNames={"#s": "state"},
                  ExpressionAttributeValues={":open": S("open")}),
        ],
    )
    assert message == MSG_CANCELLED.format("None, None, None, ConditionalCheckFailed")
    assert reasons == [{"Code": "None"}, {"Code": "None"}, {"Code": "None"},
                       {"Code": "ConditionalCheckFailed", "Message": MSG_CCF}]
    assert item_of(ddb, a, "new") is None
    assert item_of(ddb, a, "keep") == {"pk": S("keep"), "v": N(1)}
    assert ddb.describe_table(TableName=a)["Table"]["ItemCount"] == 1


def test_every_failed_condition_is_reported(table: str, ddb: Any) -> None:
    ddb.put_item(TableName=table, Item={"pk": S("a"), "v": N(1)})
    message, reasons = cancelled(
        ddb.transact_write_items,
        TransactItems=[
            Put(table, key("a"), ConditionExpression="attribute_not_exists(pk)"),
            Put(table, key("b")),
            Delete(table, key("c"), ConditionExpression="attribute_exists(pk)"),
        ],
    )
    assert message == MSG_CANCELLED.format("ConditionalCheckFailed, None, ConditionalCheckFailed")
    assert [r["Code"] for r in reasons] == ["ConditionalCheckFailed", "None", "ConditionalCheckFailed"]
    assert item_of(ddb, table, "b") is None


def test_return_values_on_condition_check_failure(table: str, ddb: Any) -> None:
    old = {"pk": S("a"), "v": N(1), "tags": {"SS": ["x"]}}
    ddb.put_item(TableName=table, Item=old)
    _, reasons = cancelled(
        ddb.transact_write_items,
        TransactItems=[
            Check(table, key("a"), "v = :two", ExpressionAttributeValues={":two": N(2)},
                  ReturnValuesOnConditionCheckFailure="ALL_OLD"),
            Update(table, key("missing"), "SET v = :one", ConditionExpression="attribute_exists(pk)",
                   ExpressionAttributeValues={":one": N(1)}, ReturnValuesOnConditionCheckFailure="ALL_OLD"),
        ],
    )
    assert reasons[0] == {"Code": "ConditionalCheckFailed", "Message": MSG_CCF, "Item": old}
    assert reasons[1] == {"Code": "ConditionalCheckFailed", "Message": MSG_CCF}  # no old item, no Item
    _, reasons = cancelled(
        ddb.transact_write_items,
        TransactItems=[Delete(table, key("a"), ConditionExpression="v = :two", ExpressionAttributeValues={":two": N(2)},
                              ReturnValuesOnConditionCheckFailure="NONE")],
    )
    assert reasons == [{"Code": "ConditionalCheckFailed", "Message": MSG_CCF}]


def test_wire_form_of_the_cancellation(table: str, server_url: str) -> None:
    body = {"TransactItems": [Put(table, key("a")), Check(table, key("b"), "attribute_exists(pk)")]}
    status, _, data = raw(server_url, json.dumps(body), target="DynamoDB_20120810.TransactWriteItems")
    assert status == 400
    assert json.loads(data) == {
        "__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
        "CancellationReasons": [{"Code": "None"}, {"Code": "ConditionalCheckFailed", "Message": MSG_CCF}],
        "Message": MSG_CANCELLED.format("None, ConditionalCheckFailed"),
    }


def test_runtime_errors_are_validation_reasons(table: str, ddb: Any) -> None:
    ddb.put_item(TableName=table, Item={"pk": S("s"), "v": S("text")})
    update_error = error_of(ddb.update_item, TableName=table, Key=key("s"), UpdateExpression="ADD v :one",
                            ExpressionAttributeValues={":one": N(1)})
    message, reasons = cancelled(
        ddb.transact_write_items,
        TransactItems=[Put(table, key("p")),
                       Update(table, key("s"), "ADD v :one", ExpressionAttributeValues={":one": N(1)})],
    )
    assert message == MSG_CANCELLED.format("None, ValidationError")
    assert reasons == [{"Code": "None"}, {"Code": "ValidationError", "Message": update_error[1]}]
    assert item_of(ddb, table, "p") is None


def test_update_growing_past_400kb_is_a_validation_reason(table: str, ddb: Any) -> None:
    ddb.put_item(TableName=table, Item={"pk": S("big"), "a": S("x" * 300_000)})
    _, reasons = cancelled(
        ddb.transact_write_items,
        TransactItems=[Update(table, key("big"), "SET b = :v", ExpressionAttributeValues={":v": S("y" * 200_000)})],
    )
    assert reasons == [{"Code": "ValidationError",
                        "Message": "Item size to update has exceeded the maximum allowed size"}]


def test_key_schema_mismatch_cancels(table_hr: str, ddb: Any) -> None:
    # The first action whose key does not match the schema gets ValidationError, the others
    # None (measured: paritysuite/dynamodb-conformance#60, floci-io/floci#3674).
    ok = {"pk": S("a"), "sk": N(1)}
    message, reasons = cancelled(
        ddb.transact_write_items,
        TransactItems=[Put(table_hr, ok), Delete(table_hr, {"pk": S("b"), "sk": S("wrong")}),
                       Check(table_hr, {"pk": S("c")}, "attribute_exists(pk)")],
    )
    assert message == MSG_CANCELLED.format("None, ValidationError, None")
    assert reasons[1] == {"Code": "ValidationError", "Message": MSG_SCHEMA}
    _, reasons = cancelled(ddb.transact_write_items, TransactItems=[Put(table_hr, {"pk": S("x")})])
    assert reasons == [{"Code": "ValidationError",
                        "Message": "One or more parameter values were invalid: Missing the key sk in the item"}]
    assert ddb.describe_table(TableName=table_hr)["Table"]["ItemCount"] == 0


def test_empty_key_value_fails_the_request(table: str, ddb: Any) -> None:
    expected = error_of(ddb.put_item, TableName=table, Item={"pk": S("")})
    assert expected[0] == "ValidationException"
    assert error_of(ddb.transact_write_items, TransactItems=[Put(table, key("a")), Put(table, {"pk": S("")})]) == expected
    assert error_of(ddb.transact_write_items, TransactItems=[Delete(table, {"pk": S("")})])[0] == "ValidationException"
    assert item_of(ddb, table, "a") is None


# --- request errors (nothing written) -----------------------------------------------------------


def test_multiple_operations_on_one_item(two_tables: tuple[str, str], ddb: Any) -> None:
    a, b = two_tables
    ddb.put_item(TableName=a, Item=key("x"))
    for second in (Put(a, key("x")), Delete(a, key("x")), Check(a, key("x"), "attribute_exists(pk)"),
                   Update(a, key("x"), "SET v = :v", ExpressionAttributeValues={":v": N(1)})):
        assert_validation(MSG_MULTIPLE, ddb.transact_write_items,
                          TransactItems=[Put(b, key("other")), Update(a, key("x"), "REMOVE v"), second])
    assert item_of(ddb, b, "other") is None
    # the same key in two tables is two items
    ddb.transact_write_items(TransactItems=[Put(a, key("k")), Put(b, key("k"))])


def test_multiple_operations_numbers_compare_by_value(table_hr: str, ddb: Any) -> None:
    assert_validation(MSG_MULTIPLE, ddb.transact_write_items, TransactItems=[
        Put(table_hr, {"pk": S("a"), "sk": N("10")}), Delete(table_hr, {"pk": S("a"), "sk": N("1E1")})])


def test_exactly_one_action_per_entry(table: str, ddb: Any) -> None:
    assert_validation("TransactItems can only contain one of Check, Put, Update or Delete",
                      ddb.transact_write_items, TransactItems=[{**Put(table, key("a")), **Delete(table, key("b"))}])
    assert_validation("Invalid Request: TransactWriteRequest should contain Delete or Put or Update request",
                      ddb.transact_write_items, TransactItems=[Put(table, key("a")), {}])
    assert item_of(ddb, table, "a") is None


def test_action_limits(table: str, ddb: Any) -> None:
    out = ddb.transact_write_items(TransactItems=[Put(table, key(str(i))) for i in range(100)])
    assert out.get("ConsumedCapacity") is None
    assert ddb.describe_table(TableName=table)["Table"]["ItemCount"] == 100
    code, message = error_of(ddb.transact_write_items, TransactItems=[Put(table, key(f"n{i}")) for i in range(101)])
    assert code == "ValidationException"
    assert message.startswith("1 validation error detected: Value '[")
    assert message.endswith("at 'transactItems' failed to satisfy constraint: "
                            "Member must have length less than or equal to 100")


def test_aggregate_size_limit(table: str, ddb: Any) -> None:
    blob = "x" * 390_000
    items = [Put(table, {"pk": S(f"p{i}"), "v": S(blob)}) for i in range(11)]  # ~4.1 MiB
    assert_validation(
        "Collection size of items exceeded, which can also be caused by the aggregate size of the items in the "
        "transaction exceeding the 4MB limit",
        ddb.transact_write_items, TransactItems=items,
    )
    assert item_of(ddb, table, "p0") is None
    ddb.transact_write_items(TransactItems=items[:10])  # ~3.7 MiB
    assert ddb.describe_table(TableName=table)["Table"]["ItemCount"] == 10


def test_put_item_too_large(table: str, ddb: Any) -> None:
    assert_validation("Item size has exceeded the maximum allowed size", ddb.transact_write_items,
                      TransactItems=[Put("no-such-table", {"pk": S("a"), "v": S("x" * 410_000)})])


def test_missing_table(table: str, ddb: Any) -> None:
    assert_error("ResourceNotFoundException", "Requested resource not found", ddb.transact_write_items,
                 TransactItems=[Put(table, key("a")), Put("no-such-table", key("a"))])
    assert item_of(ddb, table, "a") is None


def test_expression_errors_come_before_the_table(ddb: Any) -> None:
    code, message = error_of(ddb.transact_write_items,
                             TransactItems=[Update("no-such-table", key("a"), "SET a = ")])
    assert code == "ValidationException" and message.startswith("Invalid UpdateExpression: Syntax error")
    assert_validation(
        "Value provided in ExpressionAttributeValues unused in expressions: keys: {:unused}",
        ddb.transact_write_items,
        TransactItems=[Check("no-such-table", key("a"), "attribute_exists(pk)",
                             ExpressionAttributeValues={":unused": N(1)})],
    )


def test_update_of_a_key_attribute(table: str, ddb: Any) -> None:
    assert_validation(
        "One or more parameter values were invalid: Cannot update attribute pk. This attribute is part of the key",
        ddb.transact_write_items,
        TransactItems=[Update(table, key("a"), "SET pk = :v", ExpressionAttributeValues={":v": S("b")})],
    )


# --- capacity ----------------------------------------------------------------------------------


def test_capacity_doubles_per_table(two_tables: tuple[str, str], ddb: Any) -> None:
    a, b = two_tables
    # transaction-apis.md: three 500-byte items -> 6 WCU
    out = ddb.transact_write_items(
        TransactItems=[Put(a, {"pk": S(f"i{i}"), "v": S("x" * 480)}) for i in range(3)],
        ReturnConsumedCapacity="TOTAL",
    )
    assert out["ConsumedCapacity"] == [{"TableName": a, "CapacityUnits": 6.0, "WriteCapacityUnits": 6.0}]
    ddb.put_item(TableName=b, Item={"pk": S("c"), "v": S("x" * 1500)})
    out = ddb.transact_write_items(
        TransactItems=[Update(a, key("i0"), "SET w = :w", ExpressionAttributeValues={":w": S("x" * 1000)}),
                       Check(b, key("c"), "attribute_exists(pk)"),
                       Delete(b, key("missing"))],
        ReturnConsumedCapacity="INDEXES",
    )
    assert out["ConsumedCapacity"] == [
        {"TableName": a, "CapacityUnits": 4.0, "WriteCapacityUnits": 4.0,  # 1.5 KB after -> 2 x 2
         "Table": {"CapacityUnits": 4.0, "WriteCapacityUnits": 4.0}},
        {"TableName": b, "CapacityUnits": 6.0, "WriteCapacityUnits": 6.0,  # check of 1.5 KB (4) + missing (2)
         "Table": {"CapacityUnits": 6.0, "WriteCapacityUnits": 6.0}},
    ]


# --- idempotency ---------------------------------------------------------------------------------


def counter_update(table: str, pk: str = "counter") -> dict[str, Any]:
    return Update(table, key(pk), "ADD n :one", ExpressionAttributeValues={":one": N(1)})


def test_token_repeat_does_not_write_again(table: str, ddb: Any) -> None:
    token = str(uuid.uuid4())
    ddb.put_item(TableName=table, Item={"pk": S("blob"), "v": S("x" * 1500)})
    items = [counter_update(table), Update(table, key("blob"), "SET w = :w", ExpressionAttributeValues={":w": N(1)})]
    first = ddb.transact_write_items(TransactItems=items, ClientRequestToken=token, ReturnConsumedCapacity="TOTAL")
    # 1 KB counter (2) + 1.5 KB item (4)
    assert first["ConsumedCapacity"] == [{"TableName": table, "CapacityUnits": 6.0, "WriteCapacityUnits": 6.0}]
    for _ in range(2):
        again = ddb.transact_write_items(TransactItems=items, ClientRequestToken=token, ReturnConsumedCapacity="TOTAL")
        # a repeat reports the read units of reading the items: 2 per 4 KB each
        assert again["ConsumedCapacity"] == [{"TableName": table, "CapacityUnits": 4.0, "ReadCapacityUnits": 4.0}]
    assert item_of(ddb, table, "counter") == {"pk": S("counter"), "n": N(1)}
    # without a token, the same request runs again
    ddb.transact_write_items(TransactItems=items)
    assert item_of(ddb, table, "counter") == {"pk": S("counter"), "n": N(2)}


def test_token_with_other_parameters(table: str, ddb: Any) -> None:
    token = str(uuid.uuid4())
    ddb.transact_write_items(TransactItems=[counter_update(table)], ClientRequestToken=token)
    for changed in (
        {"TransactItems": [counter_update(table, "other")]},
        {"TransactItems": [counter_update(table)], "ReturnConsumedCapacity": "TOTAL"},
    ):
        assert_error("IdempotentParameterMismatchException", MSG_MISMATCH, ddb.transact_write_items,
                     ClientRequestToken=token, **changed)
    assert item_of(ddb, table, "other") is None
    assert item_of(ddb, table, "counter") == {"pk": S("counter"), "n": N(1)}


def test_token_of_a_cancelled_transaction(table: str, ddb: Any) -> None:
    token = str(uuid.uuid4())
    items = [counter_update(table), Check(table, key("gate"), "attribute_exists(pk)")]
    cancelled(ddb.transact_write_items, TransactItems=items, ClientRequestToken=token)
    assert_error("IdempotentParameterMismatchException", MSG_MISMATCH, ddb.transact_write_items,
                 TransactItems=[counter_update(table)], ClientRequestToken=token)
    ddb.put_item(TableName=table, Item=key("gate"))
    ddb.transact_write_items(TransactItems=items, ClientRequestToken=token)  # runs this time
    ddb.transact_write_items(TransactItems=items, ClientRequestToken=token)  # and now repeats
    assert item_of(ddb, table, "counter") == {"pk": S("counter"), "n": N(1)}


def test_token_of_a_refused_request_is_not_kept(table: str, ddb: Any) -> None:
    token = str(uuid.uuid4())
    error_of(ddb.transact_write_items, TransactItems=[Put("no-such-table", key("a"))], ClientRequestToken=token)
    ddb.transact_write_items(TransactItems=[counter_update(table)], ClientRequestToken=token)
    assert item_of(ddb, table, "counter") == {"pk": S("counter"), "n": N(1)}




def provisioned(c: Any, units: int = 1) -> str:
    name = f"prov-{uuid.uuid4().hex[:12]}"
    c.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                   ProvisionedThroughput={"ReadCapacityUnits": units, "WriteCapacityUnits": units})
    return name


def test_token_expires_after_ten_minutes(virtual_uniform: tuple[Any, Any]) -> None:
    c, clock = virtual_uniform
    table = provisioned(c, 1000)
    token = str(uuid.uuid4())
    c.transact_write_items(TransactItems=[counter_update(table)], ClientRequestToken=token)
    clock.advance(TOKEN_TTL_SECONDS - 1)
    c.transact_write_items(TransactItems=[counter_update(table)], ClientRequestToken=token)
    assert item_of(c, table, "counter") == {"pk": S("counter"), "n": N(1)}
    clock.advance(1)  # ten minutes after the first request completed: a new request
    c.transact_write_items(TransactItems=[counter_update(table)], ClientRequestToken=token)
    assert item_of(c, table, "counter") == {"pk": S("counter"), "n": N(2)}
    clock.advance(TOKEN_TTL_SECONDS)  # ... and a different request may then take the token
    c.transact_write_items(TransactItems=[counter_update(table, "b")], ClientRequestToken=token)
    assert item_of(c, table, "b") == {"pk": S("b"), "n": N(1)}


def test_token_records_unit() -> None:
    store = MemoryStore()
    cache = Tokens(store)
    body = {"TransactItems": [{"Put": {"TableName": "t", "Item": {"pk": {"S": "a"}}}}], "ClientRequestToken": "x"}
    digest = fingerprint(body)
    assert digest == fingerprint({**body, "ClientRequestToken": "y"})  # the token is not a parameter
    assert cache.check("x", digest, 0.0) is None
    store.write(cache.record("x", digest, 0.0, completed=True, replay=[("t", 10)]))
    entry = Tokens(store).check("x", digest, 599.0)  # in the store: a new instance finds it
    assert entry is not None and entry.replay == [("t", 10)]
    with pytest.raises(Exception, match="idempotent token"):
        cache.check("x", fingerprint({**body, "ReturnConsumedCapacity": "TOTAL"}), 1.0)
    assert cache.check("x", digest, 600.0) is None
    # the expired record is forgotten: the next record prunes it
    store.write(cache.record("y", digest, 600.0, completed=True))
    assert len(cache) == 1 and len(Tokens(store)) == 1 and Tokens(store).check("y", digest, 600.0) is not None


# --- atomicity across a restart ------------------------------------------------------------------


def test_atomicity_across_restart(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    p = Process("--data-dir", data, "--throttling", "off")
    try:
        c = make_client(p.url)
        for name in ("txa", "txb"):
            c.create_table(TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                           AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                           BillingMode="PAY_PER_REQUEST")
        c.put_item(TableName="txa", Item={"pk": S("acct"), "balance": N(100)})
        c.transact_write_items(TransactItems=[
            Update("txa", key("acct"), "SET balance = balance - :a", ExpressionAttributeValues={":a": N(10)}),
            Put("txb", {"pk": S("ledger-1"), "amount": N(10)}),
        ])
        cancelled(c.transact_write_items, TransactItems=[
            Update("txa", key("acct"), "SET balance = balance - :a", ExpressionAttributeValues={":a": N(50)}),
            Put("txb", {"pk": S("ledger-2"), "amount": N(50)}),
            Delete("txb", key("ledger-1")),
            Check("txa", key("limits"), "attribute_exists(pk)"),  # the last condition fails
        ])
    finally:
        assert p.stop() == 0
    p = Process("--data-dir", data, "--throttling", "off")
    try:
        c = make_client(p.url)
        assert item_of(c, "txa", "acct") == {"pk": S("acct"), "balance": N(90)}
        assert item_of(c, "txb", "ledger-1") == {"pk": S("ledger-1"), "amount": N(10)}
        assert item_of(c, "txb", "ledger-2") is None
        assert c.describe_table(TableName="txa")["Table"]["ItemCount"] == 1
        assert c.describe_table(TableName="txb")["Table"]["ItemCount"] == 1
    finally:
        assert p.stop() == 0


# --- TransactGetItems ----------------------------------------------------------------------------


def test_get_in_request_order(two_tables: tuple[str, str], ddb: Any) -> None:
    a, b = two_tables
    ddb.put_item(TableName=a, Item={"pk": S("1"), "v": S("a1"), "w": N(1)})
    ddb.put_item(TableName=b, Item={"pk": S("1"), "v": S("b1")})
    out = ddb.transact_get_items(TransactItems=[
        Get(b, key("1")), Get(a, key("missing")), Get(a, key("1"), ProjectionExpression="#v",
                                                        ExpressionAttributeNames={"#v": "v"}),
    ])
    assert out["Responses"] == [{"Item": {"pk": S("1"), "v": S("b1")}}, {}, {"Item": {"v": S("a1")}}]
    assert "ConsumedCapacity" not in out


def test_get_capacity(two_tables: tuple[str, str], ddb: Any) -> None:
    a, b = two_tables
    ddb.put_item(TableName=a, Item={"pk": S("big"), "v": S("x" * 5000)})
    out = ddb.transact_get_items(
        TransactItems=[Get(a, key("big")), Get(a, key("missing")), Get(b, key("x"))], ReturnConsumedCapacity="TOTAL"
    )
    assert out["ConsumedCapacity"] == [
        {"TableName": a, "CapacityUnits": 6.0, "ReadCapacityUnits": 6.0},  # 2 x 2 blocks + 2 for the missing item
        {"TableName": b, "CapacityUnits": 2.0, "ReadCapacityUnits": 2.0},
    ]


def test_get_errors(table: str, table_hr: str, ddb: Any) -> None:
    assert_validation(MSG_MULTIPLE, ddb.transact_get_items, TransactItems=[Get(table, key("a")), Get(table, key("a"))])
    assert_error("ResourceNotFoundException", "Requested resource not found", ddb.transact_get_items,
                 TransactItems=[Get(table, key("a")), Get("no-such-table", key("a"))])
    assert_validation(MSG_SCHEMA, ddb.transact_get_items, TransactItems=[Get(table_hr, key("a"))])
    # Every Get's key is validated before the duplicate check (UNSURE: the service's order
    # between the two is not documented; TransactWriteItems validates its keys first too).
    assert_validation(MSG_SCHEMA, ddb.transact_get_items,
                      TransactItems=[Get(table, key("a")), Get(table, key("a")), Get(table_hr, key("a"))])
    code, message = error_of(ddb.transact_get_items, TransactItems=[Get(table, key(str(i))) for i in range(101)])
    assert code == "ValidationException" and "Member must have length less than or equal to 100" in message
    code, message = error_of(ddb.transact_get_items,
                             TransactItems=[Get("no-such-table", key("a"), ProjectionExpression="a..b")])
    assert code == "ValidationException" and message.startswith("Invalid ProjectionExpression: Syntax error")
    out = ddb.transact_get_items(TransactItems=[Get(table, key(str(i))) for i in range(100)])
    assert out["Responses"] == [{}] * 100


# --- throttling ----------------------------------------------------------------------------------

MSG_TABLE_THROTTLED = (
    "The level of configured provisioned throughput for the table was exceeded. "
    "Consider increasing your provisioning level with the UpdateTable API."
)


def test_throttled_transactions_are_cancelled(virtual_uniform: tuple[Any, Any]) -> None:
    c, clock = virtual_uniform
    table = provisioned(c)
    # Buckets start with one second of tokens: the first transaction is admitted (and
    # charged 2 x 2 units), the next finds the partition in debt.
    c.transact_write_items(TransactItems=[Put(table, key("a")), Put(table, key("b"))])
    message, reasons = cancelled(c.transact_write_items, TransactItems=[Put(table, key("c")), Delete(table, key("a"))])
    assert message == MSG_CANCELLED.format("ProvisionedThroughputExceeded, ProvisionedThroughputExceeded")
    assert reasons == [{"Code": "ProvisionedThroughputExceeded", "Message": MSG_TABLE_THROTTLED}] * 2
    clock.advance(10)
    out = c.transact_get_items(TransactItems=[Get(table, key("a")), Get(table, key("b")), Get(table, key("c"))])
    assert out["Responses"] == [{"Item": key("a")}, {"Item": key("b")}, {}]  # nothing of the cancelled one
    _, reasons = cancelled(c.transact_get_items, TransactItems=[Get(table, key("a"))])
    assert reasons == [{"Code": "ProvisionedThroughputExceeded", "Message": MSG_TABLE_THROTTLED}]
