"""TransactWriteItems and TransactGetItems, their cancellation reasons and limits."""

from __future__ import annotations

from typing import Any

from compat.harness import Ctx, scenario


def _key(k: str) -> dict[str, Any]:
    return {"pk": {"S": k}}


def _seeded(c: Ctx) -> str:
    name = c.table()
    for k in ("a", "b"):
        c.ddb.put_item(TableName=name, Item={**_key(k), "n": {"N": "1"}})
    return name


def _all(c: Ctx, name: str) -> dict[str, Any]:
    items = c.ddb.scan(TableName=name, ConsistentRead=True)["Items"]
    return {i["pk"]["S"]: i for i in items}


@scenario("transactions")
def write_success(c: Ctx) -> Any:
    """Put, Update, Delete and ConditionCheck in one transaction."""
    name = _seeded(c)
    r = c.ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": name, "Item": {**_key("c"), "n": {"N": "3"}}}},
        {"Update": {"TableName": name, "Key": _key("a"), "UpdateExpression": "SET n = n + :one",
                    "ExpressionAttributeValues": {":one": {"N": "1"}}}},
        {"Delete": {"TableName": name, "Key": _key("b")}},
        {"ConditionCheck": {"TableName": name, "Key": _key("zz"), "ConditionExpression": "attribute_not_exists(pk)"}},
    ])
    return {"answer": r, "items": _all(c, name)}


@scenario("transactions")
def cancelled_by_condition(c: Ctx) -> Any:
    """A failing condition in the second of three actions: reasons in request order, nothing written."""
    name = _seeded(c)
    r = c.call("transact_write_items", TransactItems=[
        {"Put": {"TableName": name, "Item": _key("c")}},
        {"Update": {"TableName": name, "Key": _key("a"), "UpdateExpression": "SET n = :v",
                    "ConditionExpression": "n = :two", "ExpressionAttributeValues": {":v": {"N": "9"}, ":two": {"N": "2"}}}},
        {"Delete": {"TableName": name, "Key": _key("b")}},
    ])
    return {"answer": r, "items": sorted(_all(c, name))}


@scenario("transactions")
def cancelled_with_all_old(c: Ctx) -> Any:
    """A failing ConditionCheck with ReturnValuesOnConditionCheckFailure ALL_OLD."""
    name = _seeded(c)
    return c.call("transact_write_items", TransactItems=[
        {"ConditionCheck": {"TableName": name, "Key": _key("a"), "ConditionExpression": "attribute_not_exists(pk)",
                            "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
    ])


@scenario("transactions")
def two_failures(c: Ctx) -> Any:
    """Two failing conditions: both reasons are reported."""
    name = _seeded(c)
    return c.call("transact_write_items", TransactItems=[
        {"Put": {"TableName": name, "Item": _key("a"), "ConditionExpression": "attribute_not_exists(pk)"}},
        {"Put": {"TableName": name, "Item": _key("b"), "ConditionExpression": "attribute_not_exists(pk)"}},
    ])


@scenario("transactions")
def same_item_twice(c: Ctx) -> Any:
    """Two actions on the same item in one transaction."""
    name = _seeded(c)
    return c.call("transact_write_items", TransactItems=[
        {"Put": {"TableName": name, "Item": _key("a")}},
        {"Delete": {"TableName": name, "Key": _key("a")}},
    ])


@scenario("transactions")
def missing_table(c: Ctx) -> Any:
    """A transaction writing to a table that does not exist."""
    return c.call("transact_write_items", TransactItems=[{"Put": {"TableName": c.name("missing"), "Item": _key("a")}}])


@scenario("transactions")
def too_many_items(c: Ctx) -> Any:
    """A transaction of 101 actions."""
    name = c.table()
    return c.call("transact_write_items", TransactItems=[{"Put": {"TableName": name, "Item": _key(str(i))}} for i in range(101)])


@scenario("transactions")
def idempotent_token(c: Ctx) -> Any:
    """The same ClientRequestToken twice: the second call changes nothing."""
    name = _seeded(c)
    items = [{"Update": {"TableName": name, "Key": _key("a"), "UpdateExpression": "SET n = n + :one",
                         "ExpressionAttributeValues": {":one": {"N": "1"}}}}]
    c.ddb.transact_write_items(TransactItems=items, ClientRequestToken="token-1")
    c.ddb.transact_write_items(TransactItems=items, ClientRequestToken="token-1")
    return _all(c, name)["a"]


@scenario("transactions")
def token_reused_with_other_request(c: Ctx) -> Any:
    """The same ClientRequestToken with different actions."""
    name = _seeded(c)
    c.ddb.transact_write_items(TransactItems=[{"Put": {"TableName": name, "Item": _key("x")}}], ClientRequestToken="token-2")
    return c.call("transact_write_items", TransactItems=[{"Put": {"TableName": name, "Item": _key("y")}}],
                  ClientRequestToken="token-2")


@scenario("transactions")
def get_items(c: Ctx) -> Any:
    """TransactGetItems of an existing item (projected) and a missing one."""
    name = _seeded(c)
    return c.ddb.transact_get_items(TransactItems=[
        {"Get": {"TableName": name, "Key": _key("a"), "ProjectionExpression": "n"}},
        {"Get": {"TableName": name, "Key": _key("zz")}},
    ])


@scenario("transactions")
def get_missing_table(c: Ctx) -> Any:
    """TransactGetItems from a table that does not exist."""
    return c.call("transact_get_items", TransactItems=[{"Get": {"TableName": c.name("missing"), "Key": _key("a")}}])


@scenario("transactions")
def update_validation_error(c: Ctx) -> Any:
    """A transaction whose Update is invalid (ADD to a string)."""
    name = _seeded(c)
    return c.call("transact_write_items", TransactItems=[
        {"Put": {"TableName": name, "Item": _key("c")}},
        {"Update": {"TableName": name, "Key": _key("a"), "UpdateExpression": "SET n = n + :s",
                    "ExpressionAttributeValues": {":s": {"S": "x"}}}},
    ])


@scenario("transactions")
def condition_on_missing_item(c: Ctx) -> Any:
    """A ConditionCheck requiring an item that does not exist."""
    name = _seeded(c)
    return c.call("transact_write_items", TransactItems=[
        {"Put": {"TableName": name, "Item": _key("c")}},
        {"ConditionCheck": {"TableName": name, "Key": _key("zz"), "ConditionExpression": "attribute_exists(pk)"}},
    ])


@scenario("transactions")
def two_tables(c: Ctx) -> Any:
    """One transaction writing to two tables, then TransactGetItems from both."""
    a, b = c.table("a"), c.table("b")
    c.ddb.transact_write_items(TransactItems=[
        {"Put": {"TableName": a, "Item": {**_key("x"), "v": {"S": "1"}}}},
        {"Put": {"TableName": b, "Item": {**_key("y"), "v": {"S": "2"}}}},
    ])
    return c.ddb.transact_get_items(TransactItems=[{"Get": {"TableName": a, "Key": _key("x")}},
                                                   {"Get": {"TableName": b, "Key": _key("y")}}])


@scenario("transactions")
def update_all_old_on_failure(c: Ctx) -> Any:
    """A failing Update with ReturnValuesOnConditionCheckFailure ALL_OLD, after a passing Put."""
    name = _seeded(c)
    return c.call("transact_write_items", TransactItems=[
        {"Put": {"TableName": name, "Item": _key("c")}},
        {"Update": {"TableName": name, "Key": _key("b"), "UpdateExpression": "SET n = :v", "ConditionExpression": "n > :v",
                    "ExpressionAttributeValues": {":v": {"N": "5"}}, "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
    ])


@scenario("transactions")
def delete_missing_with_condition(c: Ctx) -> Any:
    """A Delete requiring a missing item to exist, with ALL_OLD: the reason carries no Item."""
    name = _seeded(c)
    return c.call("transact_write_items", TransactItems=[
        {"Delete": {"TableName": name, "Key": _key("zz"), "ConditionExpression": "attribute_exists(pk)",
                    "ReturnValuesOnConditionCheckFailure": "ALL_OLD"}},
    ])


@scenario("transactions")
def get_with_missing_table(c: Ctx) -> Any:
    """TransactGetItems mixing an existing table and a missing one."""
    name = _seeded(c)
    return c.call("transact_get_items", TransactItems=[
        {"Get": {"TableName": name, "Key": _key("a")}},
        {"Get": {"TableName": c.name("missing"), "Key": _key("a")}},
    ])
