"""Condition, update, projection and filter expressions."""

from __future__ import annotations

from typing import Any

from compat.harness import Ctx, scenario
from compat.scenarios._util import pick, sorted_items

BASE = {
    "pk": {"S": "k"},
    "n": {"N": "5"},
    "s": {"S": "hello"},
    "ss": {"SS": ["a", "b"]},
    "ns": {"NS": ["1", "2"]},
    "l": {"L": [{"N": "1"}, {"S": "two"}, {"N": "3"}]},
    "m": {"M": {"child": {"N": "1"}, "deep": {"M": {"x": {"S": "y"}}}}},
    "flag": {"BOOL": True},
    "nul": {"NULL": True},
}
KEY = {"pk": {"S": "k"}}


def _seeded(c: Ctx) -> str:
    name = c.table()
    c.ddb.put_item(TableName=name, Item=BASE)
    return name


def _update(c: Ctx, expr: str, names: dict[str, str] | None = None, values: dict[str, Any] | None = None, **kw: Any) -> Any:
    name = _seeded(c)
    args: dict[str, Any] = {"TableName": name, "Key": KEY, "UpdateExpression": expr, "ReturnValues": "ALL_NEW", **kw}
    if names:
        args["ExpressionAttributeNames"] = names
    if values:
        args["ExpressionAttributeValues"] = values
    return pick(c.call("update_item", **args), "Attributes")


def _conditions(c: Ctx, cases: list[tuple[str, dict[str, Any]]]) -> Any:
    """Each condition on a DeleteItem-free probe: a PutItem of the same item under it."""
    name = _seeded(c)
    out = {}
    for expr, values in cases:
        args: dict[str, Any] = {"TableName": name, "Item": BASE, "ConditionExpression": expr}
        if values:
            args["ExpressionAttributeValues"] = values
        r = c.call("put_item", **args)
        out[expr] = r.get("error", "ok")
    return out


@scenario("expressions")
def condition_functions(c: Ctx) -> Any:
    """attribute_exists, attribute_not_exists, attribute_type, begins_with, contains, size."""
    return _conditions(c, [
        ("attribute_exists(n)", {}),
        ("attribute_not_exists(n)", {}),
        ("attribute_not_exists(absent)", {}),
        ("attribute_type(ss, :t)", {":t": {"S": "SS"}}),
        ("attribute_type(n, :t)", {":t": {"S": "S"}}),
        ("begins_with(s, :p)", {":p": {"S": "he"}}),
        ("contains(ss, :v)", {":v": {"S": "b"}}),
        ("contains(s, :v)", {":v": {"S": "ell"}}),
        ("contains(l, :v)", {":v": {"S": "two"}}),
        ("size(l) = :three", {":three": {"N": "3"}}),
        ("size(s) > :three", {":three": {"N": "3"}}),
    ])


@scenario("expressions")
def condition_comparators(c: Ctx) -> Any:
    """=, <>, <, <=, >, >=, BETWEEN, IN, NOT, AND, OR and parentheses."""
    return _conditions(c, [
        ("n = :five", {":five": {"N": "5.0"}}),
        ("n <> :five", {":five": {"N": "5"}}),
        ("n < :six AND n >= :five", {":six": {"N": "6"}, ":five": {"N": "5"}}),
        ("n BETWEEN :a AND :b", {":a": {"N": "1"}, ":b": {"N": "4"}}),
        ("n IN (:a, :b, :c)", {":a": {"N": "1"}, ":b": {"N": "5"}, ":c": {"N": "9"}}),
        ("NOT (n > :a OR s = :s)", {":a": {"N": "9"}, ":s": {"S": "nope"}}),
        ("s > :t", {":t": {"S": "hellO"}}),
        ("n = :s", {":s": {"S": "5"}}),
        ("m.child = :one AND l[0] = :one", {":one": {"N": "1"}}),
        ("m.deep.x = :y", {":y": {"S": "y"}}),
    ])


@scenario("expressions")
def condition_failed_return_all_old(c: Ctx) -> Any:
    """A failed condition with ReturnValuesOnConditionCheckFailure ALL_OLD carries the item."""
    name = _seeded(c)
    return c.call(
        "put_item", TableName=name, Item=KEY, ConditionExpression="attribute_not_exists(pk)",
        ReturnValuesOnConditionCheckFailure="ALL_OLD",
    )


@scenario("expressions")
def condition_on_absent_item(c: Ctx) -> Any:
    """Conditions evaluated against an item that does not exist."""
    name = c.table()
    out = {}
    for expr in ("attribute_not_exists(pk)", "attribute_exists(pk)", "NOT n = :v", "n <> :v"):
        values = {":v": {"N": "1"}} if ":v" in expr else None
        args: dict[str, Any] = {"TableName": name, "Key": {"pk": {"S": expr}}, "ConditionExpression": expr}
        if values:
            args["ExpressionAttributeValues"] = values
        out[expr] = c.call("delete_item", **args).get("error", "ok")
    return out


@scenario("expressions")
def update_set_arithmetic(c: Ctx) -> Any:
    """SET with + and -, and with if_not_exists."""
    return _update(c, "SET n = n + :one, m.child = m.child - :one, z = if_not_exists(z, :one), s = if_not_exists(s, :x)",
                   values={":one": {"N": "1"}, ":x": {"S": "x"}})


@scenario("expressions")
def update_list_append(c: Ctx) -> Any:
    """SET with list_append on both sides and on a new attribute."""
    return _update(c, "SET l = list_append(:front, l), l2 = list_append(if_not_exists(l2, :empty), :front)",
                   values={":front": {"L": [{"S": "zero"}]}, ":empty": {"L": []}})


@scenario("expressions")
def update_remove(c: Ctx) -> Any:
    """REMOVE of a top-level attribute, a map member and a list element."""
    return _update(c, "REMOVE s, m.deep, l[1], absent")


@scenario("expressions")
def update_add_delete(c: Ctx) -> Any:
    """ADD to a number, a new number, a set; DELETE from sets (emptying one)."""
    return _update(c, "ADD n :two, fresh :two, ss :c DELETE ns :both", values={
        ":two": {"N": "2"}, ":c": {"SS": ["c", "a"]}, ":both": {"NS": ["1", "2"]}})


@scenario("expressions")
def update_list_index_beyond_end(c: Ctx) -> Any:
    """SET l[10] appends to the list."""
    return _update(c, "SET l[10] = :v", values={":v": {"S": "end"}})


@scenario("expressions")
def update_nested_absent_parent(c: Ctx) -> Any:
    """SET of a path whose parent map does not exist."""
    return _update(c, "SET nothere.child = :v", values={":v": {"S": "x"}})


@scenario("expressions")
def update_key_attribute(c: Ctx) -> Any:
    """SET of the partition key attribute."""
    return _update(c, "SET pk = :v", values={":v": {"S": "other"}})


@scenario("expressions")
def update_overlapping_paths(c: Ctx) -> Any:
    """Two actions on overlapping paths."""
    return _update(c, "SET m.child = :v REMOVE m", values={":v": {"N": "1"}})


@scenario("expressions")
def update_add_to_string(c: Ctx) -> Any:
    """ADD a number to a string attribute."""
    return _update(c, "ADD s :one", values={":one": {"N": "1"}})


@scenario("expressions")
def update_arithmetic_on_absent(c: Ctx) -> Any:
    """SET x = absent + 1."""
    return _update(c, "SET x = absent + :one", values={":one": {"N": "1"}})


@scenario("expressions")
def update_with_names(c: Ctx) -> Any:
    """ExpressionAttributeNames for a reserved word and a dotted name."""
    return _update(c, "SET #size = :v, #dotted = :v", names={"#size": "size", "#dotted": "a.b"}, values={":v": {"N": "7"}})


@scenario("expressions")
def update_syntax_error(c: Ctx) -> Any:
    """An UpdateExpression that does not parse."""
    return _update(c, "SET = :v", values={":v": {"N": "1"}})


@scenario("expressions")
def reserved_word_unescaped(c: Ctx) -> Any:
    """A reserved word used as an attribute name without a placeholder."""
    return _update(c, "SET size = :v", values={":v": {"N": "1"}})


@scenario("expressions")
def unused_expression_value(c: Ctx) -> Any:
    """ExpressionAttributeValues holding a value the expression never uses."""
    return _update(c, "SET a = :v", values={":v": {"N": "1"}, ":unused": {"N": "2"}})


@scenario("expressions")
def unused_expression_name(c: Ctx) -> Any:
    """ExpressionAttributeNames holding a name the expression never uses."""
    return _update(c, "SET a = :v", names={"#unused": "x"}, values={":v": {"N": "1"}})


@scenario("expressions")
def undefined_value_placeholder(c: Ctx) -> Any:
    """An expression using :v with no ExpressionAttributeValues entry for it."""
    name = _seeded(c)
    return c.call("update_item", TableName=name, Key=KEY, UpdateExpression="SET a = :v",
                  ExpressionAttributeValues={":w": {"N": "1"}})


@scenario("expressions")
def undefined_name_placeholder(c: Ctx) -> Any:
    """A condition using #n with no ExpressionAttributeNames entry for it."""
    name = _seeded(c)
    return c.call("delete_item", TableName=name, Key=KEY, ConditionExpression="attribute_exists(#n)",
                  ExpressionAttributeNames={"#m": "n"})


@scenario("expressions")
def projection_paths(c: Ctx) -> Any:
    """ProjectionExpression of names, nested members, list elements and absent paths."""
    name = _seeded(c)
    return c.ddb.get_item(TableName=name, Key=KEY, ProjectionExpression="#s, m.deep.x, l[2], l[9], nope, ss",
                          ExpressionAttributeNames={"#s": "s"})


@scenario("expressions")
def filter_on_scan(c: Ctx) -> Any:
    """Scan with a FilterExpression: Count, ScannedCount and the items kept."""
    name = c.table()
    for i in range(6):
        c.ddb.put_item(TableName=name, Item={"pk": {"S": f"k{i}"}, "n": {"N": str(i)}, "tag": {"S": "even" if i % 2 == 0 else "odd"}})
    r = c.ddb.scan(TableName=name, FilterExpression="n >= :two AND (tag = :even OR attribute_not_exists(tag))",
                   ExpressionAttributeValues={":two": {"N": "2"}, ":even": {"S": "even"}})
    return {"Count": r["Count"], "ScannedCount": r["ScannedCount"], "Items": sorted_items(r["Items"])}


@scenario("expressions")
def filter_with_size_and_contains(c: Ctx) -> Any:
    """Scan filtering with size() and contains() on sets and strings."""
    name = c.table()
    c.ddb.put_item(TableName=name, Item={"pk": {"S": "a"}, "tags": {"SS": ["x", "y"]}, "s": {"S": "abc"}})
    c.ddb.put_item(TableName=name, Item={"pk": {"S": "b"}, "tags": {"SS": ["y"]}, "s": {"S": "zzz"}})
    r = c.ddb.scan(TableName=name, FilterExpression="size(tags) > :one OR contains(s, :z)",
                   ExpressionAttributeValues={":one": {"N": "1"}, ":z": {"S": "zz"}})
    return sorted(i["pk"]["S"] for i in r["Items"])


@scenario("expressions")
def legacy_expected(c: Ctx) -> Any:
    """The legacy Expected parameter: Exists false on an existing item."""
    name = _seeded(c)
    return c.call("put_item", TableName=name, Item=BASE, Expected={"pk": {"Exists": False}})


@scenario("expressions")
def legacy_attributes_to_get(c: Ctx) -> Any:
    """The legacy AttributesToGet parameter on GetItem."""
    name = _seeded(c)
    return c.ddb.get_item(TableName=name, Key=KEY, AttributesToGet=["n", "s", "absent"])


@scenario("expressions")
def mixing_legacy_and_expression(c: Ctx) -> Any:
    """AttributesToGet together with ProjectionExpression."""
    name = _seeded(c)
    return c.call("get_item", TableName=name, Key=KEY, AttributesToGet=["n"], ProjectionExpression="s")


@scenario("expressions")
def condition_syntax_error(c: Ctx) -> Any:
    """A ConditionExpression that does not parse."""
    name = _seeded(c)
    return c.call("delete_item", TableName=name, Key=KEY, ConditionExpression="n = = :v",
                  ExpressionAttributeValues={":v": {"N": "1"}})


@scenario("expressions")
def update_add_wrong_set_type(c: Ctx) -> Any:
    """ADD a number set to a string set."""
    return _update(c, "ADD ss :ns", values={":ns": {"NS": ["1"]}})


@scenario("expressions")
def update_list_index_on_map(c: Ctx) -> Any:
    """SET m[0] on a map attribute."""
    return _update(c, "SET m[0] = :v", values={":v": {"S": "x"}})


@scenario("expressions")
def update_updated_new_nested(c: Ctx) -> Any:
    """UPDATED_NEW after changing a nested map member and a list element."""
    name = _seeded(c)
    return c.ddb.update_item(TableName=name, Key=KEY, UpdateExpression="SET m.deep.x = :z, l[0] = :z",
                             ExpressionAttributeValues={":z": {"S": "z"}}, ReturnValues="UPDATED_NEW")


@scenario("expressions")
def projection_overlapping_paths(c: Ctx) -> Any:
    """A ProjectionExpression naming m and m.child."""
    name = _seeded(c)
    return c.call("get_item", TableName=name, Key=KEY, ProjectionExpression="m, m.child")


@scenario("expressions")
def number_overflow_in_arithmetic(c: Ctx) -> Any:
    """SET n = :big + :big past DynamoDB's largest number."""
    return _update(c, "SET n = :big + :big", values={":big": {"N": "9.9999999999999999999999999999999999999E+125"}})


@scenario("expressions")
def arithmetic_precision(c: Ctx) -> Any:
    """Addition keeps 38 significant digits."""
    return _update(c, "SET p = :a + :b", values={":a": {"N": "0.1"}, ":b": {"N": "0.2"}})


@scenario("expressions")
def delete_condition_all_old_on_missing(c: Ctx) -> Any:
    """A failed condition on a missing item with ReturnValuesOnConditionCheckFailure ALL_OLD: no Item."""
    name = c.table()
    return c.call("delete_item", TableName=name, Key=KEY, ConditionExpression="attribute_exists(pk)",
                  ReturnValuesOnConditionCheckFailure="ALL_OLD")


@scenario("expressions")
def condition_type_mismatch_and_bounds(c: Ctx) -> Any:
    """Comparisons across types are false; BETWEEN with bounds reversed is an error."""
    return _conditions(c, [
        ("n < :s", {":s": {"S": "9"}}),
        ("contains(ns, :one)", {":one": {"N": "1"}}),
        ("size(ss) = :two", {":two": {"N": "2"}}),
        ("n BETWEEN :hi AND :lo", {":hi": {"N": "9"}, ":lo": {"N": "1"}}),
    ])


@scenario("expressions")
def condition_in_too_many(c: Ctx) -> Any:
    """An IN list of 101 operands (the limit is 100)."""
    name = _seeded(c)
    values = {f":v{i}": {"N": str(i)} for i in range(101)}
    return c.call("put_item", TableName=name, Item=BASE, ConditionExpression=f"n IN ({', '.join(values)})",
                  ExpressionAttributeValues=values)


@scenario("expressions")
def update_add_to_list(c: Ctx) -> Any:
    """ADD a list value to a list attribute."""
    return _update(c, "ADD l :l", values={":l": {"L": [{"N": "9"}]}})


@scenario("expressions")
def update_remove_beyond_end(c: Ctx) -> Any:
    """REMOVE of a list index past the end, and DELETE of a set member that is absent."""
    return _update(c, "REMOVE l[7] DELETE ss :z", values={":z": {"SS": ["zz"]}})


@scenario("expressions")
def update_updated_old_new_attribute(c: Ctx) -> Any:
    """UPDATED_OLD when the updated attribute did not exist before."""
    name = _seeded(c)
    return c.call("update_item", TableName=name, Key=KEY, UpdateExpression="SET fresh = :v",
                  ExpressionAttributeValues={":v": {"N": "1"}}, ReturnValues="UPDATED_OLD")


@scenario("expressions")
def empty_projection_expression(c: Ctx) -> Any:
    """GetItem with an empty ProjectionExpression."""
    name = _seeded(c)
    return c.call("get_item", TableName=name, Key=KEY, ProjectionExpression="")


@scenario("expressions")
def nesting_too_deep(c: Ctx) -> Any:
    """PutItem of a map nested 33 levels deep (the limit is 32)."""
    name = c.table()
    value: dict[str, Any] = {"S": "leaf"}
    for _ in range(33):
        value = {"M": {"a": value}}
    return c.call("put_item", TableName=name, Item={**KEY, "deep": value})
