"""The compile cache (``expressions.template``): a request of a cached shape compiles to
what the full pipeline gives, and fails with the same error, whatever its values."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from dynemu import cache
from dynemu.engine.expressions import Compiled, ast, compile_request, template
from dynemu.engine.expressions.resolve import Resolver
from dynemu.engine.values import MeasuredMap
from dynemu.errors import DynamoError
from tests.engine.expr_helpers import N, S

SCHEMA = [("pk", "HASH", "S"), ("sk", "RANGE", "N")]
SCHEMA_S = [("pk", "HASH", "S"), ("sk", "RANGE", "S")]
KCE = "pk = :p AND sk BETWEEN :a AND :b"


def _outcome(operation: str, req: dict[str, Any], schema: Any = SCHEMA) -> tuple[str, Any]:
    try:
        return "ok", _shape(compile_request(operation, req, key_schema=schema if operation == "Query" else None))
    except DynamoError as e:
        return e.type_name, e.message


def _shape(c: Compiled) -> dict[str, Any]:
    """What a compiled request holds, comparable (ast.Literal compares by identity: repr)."""
    kc = c.key_condition
    return {
        "condition": repr(c.condition.tree) if c.condition is not None else None,
        "filter": repr(c.filter.tree) if c.filter is not None else None,
        "filter_parameter": c.filter_parameter,
        "projection": c.projection.paths if c.projection is not None else None,
        "update": _update_actions(c.update) if c.update is not None else None,
        "key": (kc.conditions, kc.partition_value, kc.sort) if kc is not None else None,
    }


def _update_actions(update: Any) -> str:
    """An update's actions with its values in place: a template's Update reads them from
    ``values`` when applied, the full pipeline's has them bound (the same update)."""
    if getattr(update, "values", None) is None:
        return repr(update.actions)
    r = Resolver({}, update.values)
    return repr(tuple(ast.Action(a.kind, a.path, r.bind(a.value) if a.value is not None else None)
                      for a in update.actions))


def cold(operation: str, req: dict[str, Any], schema: Any = SCHEMA) -> tuple[str, Any]:
    template.clear()
    return _outcome(operation, req, schema)


def check_same(operation: str, warm_with: dict[str, Any], req: dict[str, Any], schema: Any = SCHEMA) -> tuple[str, Any]:
    """``req`` compiled right after ``warm_with`` (so through its template when the shapes
    match) gives what it gives on an empty cache."""
    expected = cold(operation, req, schema)
    template.clear()
    assert _outcome(operation, warm_with, schema)[0] == "ok"
    assert _outcome(operation, req, schema) == expected
    return expected


def query(p: dict[str, Any], a: dict[str, Any], b: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"KeyConditionExpression": KCE, "ExpressionAttributeValues": {":p": p, ":a": a, ":b": b}, **extra}


def test_a_cached_shape_compiles_through_its_template() -> None:
    template.clear()
    req = query(S("x"), N(1), N(5))
    first = _outcome("Query", req)
    key = template.request_key("Query", req, ("ProjectionExpression", "FilterExpression", "KeyConditionExpression"))
    assert template.lookup(key) is not None
    assert _outcome("Query", query(S("y"), N(2), N(3))) == cold("Query", query(S("y"), N(2), N(3)))
    assert first[0] == "ok"


@pytest.mark.parametrize("values", [
    (S("x"), N(5), N(1)),  # BETWEEN bounds reversed
    (S("x"), S("a"), N(1)),  # bounds of different types
    (S("x"), {"BOOL": True}, {"BOOL": True}),  # an unorderable type
    (N(1), N(1), N(2)),  # partition value of the wrong type for the schema
    (S("x"), N("1e400"), N(2)),  # a number out of range
    ({"SS": ["a"]}, N(1), N(2)),  # a set as partition value
    ({"L": []}, N(1), N(2)),  # a type EQ refuses on a key
])
def test_values_of_other_types_still_fail_per_request(values: tuple[dict[str, Any], ...]) -> None:
    outcome = check_same("Query", query(S("x"), N(1), N(5)), query(*values))
    assert outcome[0] != "ok"


def test_begins_with_on_a_number_fails_after_a_string_was_cached() -> None:
    text = "pk = :p AND begins_with(sk, :s)"
    ok = {"KeyConditionExpression": text, "ExpressionAttributeValues": {":p": S("x"), ":s": S("a")}}
    bad = {"KeyConditionExpression": text, "ExpressionAttributeValues": {":p": S("x"), ":s": N(1)}}
    assert check_same("Query", ok, bad, SCHEMA_S)[0] == "ValidationException"
    assert check_same("Query", ok, {**ok, "ExpressionAttributeValues": {":p": S("x"), ":s": {"B": "AA=="}}},
                      SCHEMA_S)[0] != "ok"  # a binary prefix on a string sort key


def test_same_text_with_other_names() -> None:
    text = "#k = :p AND #s > :a"
    base = {"KeyConditionExpression": text, "ExpressionAttributeValues": {":p": S("x"), ":a": N(1)}}
    ok = {**base, "ExpressionAttributeNames": {"#k": "pk", "#s": "sk"}}
    swapped = {**base, "ExpressionAttributeNames": {"#k": "sk", "#s": "pk"}}
    same_key = {**base, "ExpressionAttributeNames": {"#k": "pk", "#s": "pk"}}
    other = {**base, "ExpressionAttributeNames": {"#k": "pk", "#s": "other"}}
    for req in (swapped, same_key, other):
        assert check_same("Query", ok, req)[0] != "ok"
    assert check_same("Query", ok, {**base, "ExpressionAttributeNames": {"#s": "sk", "#k": "pk"}})[0] == "ok"


def test_filter_and_projection_follow_the_names() -> None:
    def req(names: dict[str, str]) -> dict[str, Any]:
        return {"FilterExpression": "#a = :v", "ProjectionExpression": "#a, #b",
                "ExpressionAttributeNames": names, "ExpressionAttributeValues": {":v": N(1)}}

    first = req({"#a": "x", "#b": "y"})
    second = req({"#a": "y", "#b": "z"})
    template.clear()
    a, b = _outcome("Scan", first), _outcome("Scan", second)
    assert a[1]["projection"] == (("x",), ("y",)) and b[1]["projection"] == (("y",), ("z",))
    assert a[1]["filter"] != b[1]["filter"]
    assert check_same("Scan", first, second) == b
    assert check_same("Scan", first, req({"#a": "x", "#b": "x"}))[0] == "ValidationException"  # overlap


@pytest.mark.parametrize("change", [
    {"ExpressionAttributeValues": {":p": S("x"), ":a": N(1), ":b": N(2), ":extra": N(3)}},  # unused value
    {"ExpressionAttributeValues": {":p": S("x"), ":a": N(1)}},  # undefined value
    {"ExpressionAttributeNames": {"#unused": "x"}},  # unused name
    {"ExpressionAttributeNames": {}},  # empty names
    {"ExpressionAttributeValues": {}},  # empty values
    {"KeyConditions": {"pk": {"ComparisonOperator": "EQ", "AttributeValueList": [S("x")]}}},  # mixed parameters
])
def test_unused_undefined_and_mixed_parameters(change: dict[str, Any]) -> None:
    outcome = check_same("Query", query(S("x"), N(1), N(2)), {**query(S("x"), N(1), N(2)), **change})
    assert outcome[0] == "ValidationException"


def test_condition_and_update_values_are_checked_per_request() -> None:
    def update(v: dict[str, Any], c: dict[str, Any]) -> dict[str, Any]:
        return {"UpdateExpression": "ADD hits :one", "ConditionExpression": "size(#n) < :c",
                "ExpressionAttributeNames": {"#n": "name"}, "ExpressionAttributeValues": {":one": v, ":c": c}}

    ok = update(N(1), N(3))
    assert check_same("UpdateItem", ok, update(N(2), N(4)))[0] == "ok"
    assert check_same("UpdateItem", ok, update(S("a"), N(4)))[0] == "ValidationException"  # ADD of a string
    assert check_same("UpdateItem", ok, update(N(1), {"BOOL": True}))[0] == "ValidationException"  # ordering a BOOL
    assert check_same("UpdateItem", ok, update(N(1), {"NULL": False}))[0] == "ValidationException"  # NULL: false


def test_get_item_values_are_ignored_by_the_cache_too() -> None:
    req = {"ProjectionExpression": "#a", "ExpressionAttributeNames": {"#a": "x"}}
    assert check_same("GetItem", req, {**req, "ExpressionAttributeValues": {":v": N(1)}})[0] == "ok"


def test_the_template_cache_is_bounded() -> None:
    template.clear()
    for i in range(template.MAX_TEMPLATES + 50):
        compile_request("Scan", {"FilterExpression": f"a{i} = :v", "ExpressionAttributeValues": {":v": N(i)}})
    assert len(template._TEMPLATES) == template.MAX_TEMPLATES
    template.clear()


def test_bounded_cache_drops_the_least_recently_used() -> None:
    c: cache.BoundedCache[int] = cache.BoundedCache(2)
    c.put("a", 1)
    c.put("b", 2)
    assert c.get("a") == 1  # "a" is now the most recent
    c.put("c", 3)
    assert "b" not in c and c.get("a") == 1 and c.get("c") == 3
    assert len(c) == 2 and c.get("missing") is None
    c.put("a", 10)
    assert c.get("a") == 10 and len(c) == 2
    with pytest.raises(ValueError):
        cache.BoundedCache(0)


def test_values_left_checked_by_the_request_validator_use_the_cache() -> None:
    """api.validation hands ExpressionAttributeValues over as a MeasuredMap."""
    def checked(values: dict[str, Any], unchecked: list[str]) -> MeasuredMap:
        out = MeasuredMap(values)
        out.unchecked = unchecked
        out.size = 0
        return out

    template.clear()
    compile_request("Query", query(S("x"), N(1), N(5)), key_schema=SCHEMA)
    hits = template._TEMPLATES.hits
    req = {"KeyConditionExpression": KCE, "ExpressionAttributeValues": checked({":p": S("y"), ":a": N(2), ":b": N(3)}, [])}
    assert _outcome("Query", req) == cold("Query", query(S("y"), N(2), N(3)))
    compile_request("Query", query(S("x"), N(1), N(5)), key_schema=SCHEMA)
    assert _outcome("Query", req)[0] == "ok" and template._TEMPLATES.hits > hits
    bad = {":p": S("y"), ":a": N("01"), ":b": {"SS": []}}  # unchecked values: their rules run in the engine
    template.clear()
    compile_request("Query", query(S("x"), N(1), N(5)), key_schema=SCHEMA)
    outcome = _outcome("Query", {"KeyConditionExpression": KCE, "ExpressionAttributeValues": checked(bad, [":a", ":b"])})
    assert outcome == cold("Query", {"KeyConditionExpression": KCE, "ExpressionAttributeValues": bad})
    assert outcome[0] == "ValidationException"


def test_a_filter_on_a_key_attribute_is_refused_whatever_was_cached() -> None:
    def req(name: str) -> dict[str, Any]:
        return {"KeyConditionExpression": "pk = :p", "FilterExpression": "#f = :v",
                "ExpressionAttributeNames": {"#f": name}, "ExpressionAttributeValues": {":p": S("x"), ":v": N(1)}}

    assert check_same("Query", req("other"), req("other"))[0] == "ok"
    assert check_same("Query", req("other"), req("sk")) == (
        "ValidationException", "Filter Expression can only contain non-primary key attributes: Primary key attribute: sk")
    template.clear()
    assert _outcome("Query", req("sk"))[0] == "ValidationException"
    assert _outcome("Query", req("sk"))[0] == "ValidationException"  # the template binds to a schema per request


@pytest.mark.parametrize("operation, extra", [
    ("GetItem", {"ConditionalOperator": "AND"}),
    ("PutItem", {"AttributesToGet": ["a"]}),
    ("Scan", {"KeyConditions": {"a": {"ComparisonOperator": "EQ", "AttributeValueList": [N(1)]}}}),
])
def test_legacy_parameters_of_other_operations_take_the_full_pipeline(operation: str, extra: dict[str, Any]) -> None:
    req = ({"ProjectionExpression": "a"} if operation == "GetItem"
           else {"ConditionExpression": "a = :v", "ExpressionAttributeValues": {":v": N(1)}} if operation == "PutItem"
           else {"FilterExpression": "a = :v", "ExpressionAttributeValues": {":v": N(1)}})
    check_same(operation, req, {**req, **extra})


def test_bounded_cache_shared_between_threads() -> None:
    c: cache.BoundedCache[int] = cache.BoundedCache(8)
    errors: list[BaseException] = []

    def work(offset: int) -> None:
        try:
            for i in range(20_000):
                key = (offset + i) % 13
                if c.get(key) is None:
                    c.put(key, i + 1)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(c) <= 8
