"""Item operations (PutItem, GetItem, UpdateItem, DeleteItem) with every attribute type."""

from __future__ import annotations

from typing import Any

from compat.harness import Ctx, scenario
from compat.scenarios._util import pick

VALUES: dict[str, dict[str, Any]] = {
    "S": {"S": "héllo wörld"},
    "N": {"N": "-12.5"},
    "B": {"B": b"\x00\x01binary\xff"},
    "BOOL": {"BOOL": False},
    "NULL": {"NULL": True},
    "M": {"M": {"a": {"S": "x"}, "b": {"M": {"c": {"N": "1"}}}, "e": {"M": {}}}},
    "L": {"L": [{"S": "x"}, {"N": "2"}, {"L": []}, {"NULL": True}, {"BOOL": True}]},
    "SS": {"SS": ["b", "a", "c"]},
    "NS": {"NS": ["3", "1.5", "-2"]},
    "BS": {"BS": [b"\x02", b"\x01"]},
}


def _round_trip(kind: str) -> Any:
    def run(c: Ctx) -> Any:
        name = c.table()
        c.ddb.put_item(TableName=name, Item={"pk": {"S": "k"}, "v": VALUES[kind]})
        got = c.ddb.get_item(TableName=name, Key={"pk": {"S": "k"}}, ConsistentRead=True)
        return pick(got, "Item")

    run.__doc__ = f"PutItem then GetItem of an attribute of type {kind}."
    return run


for _kind in VALUES:
    scenario("items", f"round_trip_{_kind.lower()}")(_round_trip(_kind))


def _update_to(kind: str) -> Any:
    def run(c: Ctx) -> Any:
        name = c.table()
        return pick(
            c.call(
                "update_item", TableName=name, Key={"pk": {"S": "k"}}, UpdateExpression="SET v = :v",
                ExpressionAttributeValues={":v": VALUES[kind]}, ReturnValues="ALL_NEW",
            ),
            "Attributes",
        )

    run.__doc__ = f"UpdateItem creating an item with an attribute of type {kind} (ALL_NEW)."
    return run


for _kind in ("B", "M", "L", "NS", "BS"):
    scenario("items", f"update_sets_{_kind.lower()}")(_update_to(_kind))


@scenario("items")
def key_types_number_and_binary(c: Ctx) -> Any:
    """A table keyed by N (hash) and B (range): put and get."""
    name = c.table(hash=("id", "N"), range=("bin", "B"))
    key = {"id": {"N": "10.0"}, "bin": {"B": b"\x00\x10"}}
    c.ddb.put_item(TableName=name, Item={**key, "x": {"S": "y"}})
    return pick(c.ddb.get_item(TableName=name, Key=key), "Item")


@scenario("items")
def number_normalisation(c: Ctx) -> Any:
    """Numbers written as 1.50, -0, 0.000, 1e2, 00012 are read back canonical."""
    name = c.table()
    vals = {f"n{i}": {"N": v} for i, v in enumerate(["1.50", "-0", "0.000", "1e2", "00012", "-1.0E-3"])}
    c.ddb.put_item(TableName=name, Item={"pk": {"S": "k"}, **vals})
    return c.ddb.get_item(TableName=name, Key={"pk": {"S": "k"}})["Item"]


@scenario("items")
def empty_string_and_binary_attributes(c: Ctx) -> Any:
    """Empty S and B are allowed outside keys."""
    name = c.table()
    c.ddb.put_item(TableName=name, Item={"pk": {"S": "k"}, "s": {"S": ""}, "b": {"B": b""}})
    return c.ddb.get_item(TableName=name, Key={"pk": {"S": "k"}})["Item"]


@scenario("items")
def put_return_all_old(c: Ctx) -> Any:
    """PutItem over an existing item with ReturnValues ALL_OLD, and over none."""
    name = c.table()
    first = c.ddb.put_item(TableName=name, Item={"pk": {"S": "k"}, "v": {"N": "1"}}, ReturnValues="ALL_OLD")
    second = c.ddb.put_item(TableName=name, Item={"pk": {"S": "k"}, "v": {"N": "2"}}, ReturnValues="ALL_OLD")
    return [first, second]


@scenario("items")
def put_return_values_invalid(c: Ctx) -> Any:
    """PutItem with ReturnValues ALL_NEW (PutItem allows only NONE and ALL_OLD)."""
    name = c.table()
    return c.call("put_item", TableName=name, Item={"pk": {"S": "k"}}, ReturnValues="ALL_NEW")


@scenario("items")
def get_missing_item(c: Ctx) -> Any:
    """GetItem of a key that holds no item."""
    name = c.table()
    return c.ddb.get_item(TableName=name, Key={"pk": {"S": "nothing"}})


@scenario("items")
def get_projection(c: Ctx) -> Any:
    """GetItem with a ProjectionExpression of nested paths."""
    name = c.table()
    c.ddb.put_item(TableName=name, Item={"pk": {"S": "k"}, "m": VALUES["M"], "l": VALUES["L"], "x": {"S": "gone"}})
    return c.ddb.get_item(TableName=name, Key={"pk": {"S": "k"}}, ProjectionExpression="m.b.c, l[1], l[3]")


@scenario("items")
def update_return_values(c: Ctx) -> Any:
    """UpdateItem with each ReturnValues option on the same item."""
    name = c.table()
    c.ddb.put_item(TableName=name, Item={"pk": {"S": "k"}, "a": {"N": "1"}, "b": {"S": "keep"}})
    out = {}
    for i, rv in enumerate(["NONE", "ALL_OLD", "UPDATED_OLD", "ALL_NEW", "UPDATED_NEW"]):
        r = c.ddb.update_item(
            TableName=name, Key={"pk": {"S": "k"}}, UpdateExpression="SET a = :a",
            ExpressionAttributeValues={":a": {"N": str(i + 2)}}, ReturnValues=rv,
        )
        out[rv] = r.get("Attributes")
    return out


@scenario("items")
def update_creates_item(c: Ctx) -> Any:
    """UpdateItem of a missing key creates the item (ALL_NEW)."""
    name = c.table()
    return c.ddb.update_item(
        TableName=name, Key={"pk": {"S": "new"}}, UpdateExpression="SET a = :a",
        ExpressionAttributeValues={":a": {"S": "x"}}, ReturnValues="ALL_NEW",
    )


@scenario("items")
def update_without_expression(c: Ctx) -> Any:
    """UpdateItem with no update at all creates an item holding only its key."""
    name = c.table()
    c.ddb.update_item(TableName=name, Key={"pk": {"S": "bare"}})
    return c.ddb.get_item(TableName=name, Key={"pk": {"S": "bare"}})


@scenario("items")
def delete_return_all_old(c: Ctx) -> Any:
    """DeleteItem with ReturnValues ALL_OLD, then of the now missing key."""
    name = c.table()
    c.ddb.put_item(TableName=name, Item={"pk": {"S": "k"}, "v": {"SS": ["a"]}})
    first = c.ddb.delete_item(TableName=name, Key={"pk": {"S": "k"}}, ReturnValues="ALL_OLD")
    second = c.ddb.delete_item(TableName=name, Key={"pk": {"S": "k"}}, ReturnValues="ALL_OLD")
    return [first, second]


@scenario("items")
def key_with_extra_attribute(c: Ctx) -> Any:
    """GetItem whose Key holds a non-key attribute too."""
    name = c.table()
    return c.call("get_item", TableName=name, Key={"pk": {"S": "k"}, "x": {"S": "y"}})


@scenario("items")
def key_missing_range(c: Ctx) -> Any:
    """GetItem on a hash+range table with only the hash key."""
    name = c.table(range=("sk", "S"))
    return c.call("get_item", TableName=name, Key={"pk": {"S": "k"}})


@scenario("items")
def key_wrong_type(c: Ctx) -> Any:
    """PutItem with an N value for an S key."""
    name = c.table()
    return c.call("put_item", TableName=name, Item={"pk": {"N": "1"}})


@scenario("items")
def put_missing_key(c: Ctx) -> Any:
    """PutItem without the partition key."""
    name = c.table()
    return c.call("put_item", TableName=name, Item={"x": {"S": "1"}})


@scenario("items")
def empty_string_key(c: Ctx) -> Any:
    """PutItem with an empty string as partition key."""
    name = c.table()
    return c.call("put_item", TableName=name, Item={"pk": {"S": ""}})


@scenario("items")
def empty_set(c: Ctx) -> Any:
    """PutItem with an empty string set."""
    name = c.table()
    return c.call("put_item", TableName=name, Item={"pk": {"S": "k"}, "ss": {"SS": []}})


@scenario("items")
def duplicate_set_members(c: Ctx) -> Any:
    """PutItem with a string set holding a value twice."""
    name = c.table()
    return c.call("put_item", TableName=name, Item={"pk": {"S": "k"}, "ss": {"SS": ["a", "a"]}})


@scenario("items")
def item_too_large(c: Ctx) -> Any:
    """PutItem of an item over 400 KB."""
    name = c.table()
    return c.call("put_item", TableName=name, Item={"pk": {"S": "k"}, "big": {"S": "x" * (400 * 1024 + 1)}})


@scenario("items")
def hash_key_too_large(c: Ctx) -> Any:
    """PutItem with a 2049-byte partition key."""
    name = c.table()
    return c.call("put_item", TableName=name, Item={"pk": {"S": "k" * 2049}})


@scenario("items")
def number_too_precise(c: Ctx) -> Any:
    """PutItem with a number of 39 significant digits."""
    name = c.table()
    return c.call("put_item", TableName=name, Item={"pk": {"S": "k"}, "n": {"N": "1" * 39}})


@scenario("items")
def invalid_number(c: Ctx) -> Any:
    """PutItem with N 'abc'."""
    name = c.table()
    return c.call("put_item", TableName=name, Item={"pk": {"S": "k"}, "n": {"N": "abc"}})


@scenario("items")
def delete_return_values_invalid(c: Ctx) -> Any:
    """DeleteItem with ReturnValues ALL_NEW."""
    name = c.table()
    return c.call("delete_item", TableName=name, Key={"pk": {"S": "k"}}, ReturnValues="ALL_NEW")


@scenario("items")
def range_key_too_large(c: Ctx) -> Any:
    """PutItem with a 1025-byte sort key."""
    name = c.table(range=("sk", "S"))
    return c.call("put_item", TableName=name, Item={"pk": {"S": "k"}, "sk": {"S": "s" * 1025}})


@scenario("items")
def number_range_limits(c: Ctx) -> Any:
    """The largest and smallest magnitudes DynamoDB stores, and one past each."""
    name = c.table()
    out = {}
    for v in ("9.9999999999999999999999999999999999999E+125", "1E-130", "1E+126", "1E-131"):
        out[v] = c.call("put_item", TableName=name, Item={"pk": {"S": v}, "n": {"N": v}}).get("error", "ok")
    return out


@scenario("transactions")
def transact_get_too_many(c: Ctx) -> Any:
    """TransactGetItems of 101 items (the limit is 100)."""
    name = c.table()
    return c.call("transact_get_items", TransactItems=[{"Get": {"TableName": name, "Key": {"pk": {"S": str(i)}}}} for i in range(101)])
