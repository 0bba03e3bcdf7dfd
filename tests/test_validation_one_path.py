"""The request validator's one path (``api/validation/validator.py``): a body's type pass and its
constraint checks in one walk, DynamoDB's errors in DynamoDB's order, and the maps of
AttributeValues it hands on as ``values.MeasuredMap`` (measured where the value rules
cannot fail, the rest left to the engine)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dynemu.api.validation.validator import RequestValidator
from dynemu.engine import values
from dynemu.errors import DynamoError

OPERATIONS = ("PutItem", "UpdateItem", "GetItem", "DeleteItem", "Query", "Scan")

_good_scalar = st.one_of(
    st.builds(lambda s: {"S": s}, st.text(max_size=4)),
    st.builds(lambda s: {"N": s}, st.sampled_from(["0", "1", "-1.5", "1.50", "01", "1e3"])),
    st.builds(lambda b: {"BOOL": b}, st.booleans()),
    st.just({"NULL": True}),
    st.builds(lambda s: {"SS": s}, st.lists(st.sampled_from(["a", "b", "é"]), min_size=1, max_size=3)),
)
_bad_scalar = st.one_of(
    st.builds(lambda s: {"N": s}, st.sampled_from(["x", "", "1" * 40, 5])),
    st.builds(lambda b: {"BOOL": b}, st.sampled_from(["true", "no", 1, None])),
    st.builds(lambda b: {"NULL": b}, st.sampled_from([False, "yes"])),
    st.builds(lambda s: {"SS": s}, st.lists(st.sampled_from(["a", "é", None, 3]), max_size=3)),
    st.builds(lambda s: {"NS": s}, st.lists(st.sampled_from(["1", "1.0", "2", "x"]), max_size=3)),
    st.sampled_from([{}, {"S": "a", "N": "1"}, {"B": "AA=="}, {"B": "A"}, {"X": "y"}, {"S": None}, {"SS": {}},
                     {"SS": "a"}, None, [], "x", 5]),
)
_value = st.recursive(
    st.one_of(_good_scalar, _good_scalar, _bad_scalar),
    lambda inner: st.one_of(
        st.builds(lambda xs: {"L": xs}, st.lists(inner, max_size=3)),
        st.builds(lambda m: {"M": m}, st.dictionaries(st.sampled_from(["a", "é", "c"]), inner, max_size=3)),
    ),
    max_leaves=5,
)
_names = st.sampled_from(["pk", "a", "ü", "n", "b", "", "é" * 40_000, "x" * 70_000])
_good_map = st.dictionaries(st.sampled_from(["pk", "a", "ü", "n", "b"]), _good_scalar, min_size=1, max_size=5)
_av_map = st.one_of(_good_map, _good_map, st.dictionaries(_names, _value, max_size=4),
                    st.sampled_from([[], "x", 5, None, {"pk": None}]))
_string = st.sampled_from(["SET a = :v", "a", "", 5, None, ["a"], {"a": 1}, True])
# member -> (values that pass, values that may not)
MEMBERS: dict[str, tuple[st.SearchStrategy[Any], st.SearchStrategy[Any]]] = {
    "TableName": (st.sampled_from(["users", "a", "arn:aws:dynamodb:us-east-1:1:table/x"]),
                  st.sampled_from(["ab", "", "bad name!", "x" * 256, 5, None, ["t"]])),
    "Item": (_good_map, _av_map),
    "Key": (_good_map, _av_map),
    "ExclusiveStartKey": (_good_map, _av_map),
    "ExpressionAttributeValues": (_good_map, _av_map),
    "ExpressionAttributeNames": (st.sampled_from([{"#a": "a"}, {"#a": "é" * 40_000}, {}]),
                                 st.sampled_from([{"#a": None}, {"#a": 5}, {"#a": ""}, {"#a": "x" * 70_000}, [], "x"])),
    "ReturnValues": (st.sampled_from(["NONE", "ALL_OLD", "ALL_NEW"]), st.sampled_from(["BAD", 5, None])),
    "ReturnConsumedCapacity": (st.sampled_from(["TOTAL", "NONE"]), st.sampled_from(["X", None, True])),
    "ReturnItemCollectionMetrics": (st.just("SIZE"), st.just("none")),
    "ReturnValuesOnConditionCheckFailure": (st.just("ALL_OLD"), st.just("ALL_NEW")),
    "ConsistentRead": (st.booleans(), st.sampled_from(["true", "maybe", 5, None])),
    "UpdateExpression": (st.just("SET a = :v"), _string),
    "ConditionExpression": (st.just("a = :v"), _string),
    "ProjectionExpression": (st.just("a"), _string),
    "KeyConditionExpression": (st.just("pk = :v"), _string),
    "FilterExpression": (st.just("a = :v"), _string),
    "Limit": (st.sampled_from([1, 7]), st.sampled_from([0, -3, 2.5, "3", True, None])),
    "IndexName": (st.just("idx"), st.sampled_from(["ix", "bad!", 5])),
    "Select": (st.just("COUNT"), st.just("BAD")),
    "Segment": (st.just(0), st.sampled_from([-1, 1.5])),
    "TotalSegments": (st.just(2), st.just(0)),
    "AttributesToGet": (st.just(["a"]), st.sampled_from([[], ["a", "a"]])),
    "Expected": (st.just({"a": {"Exists": False}}), st.just({"a": None})),
    "ConditionalOperator": (st.just("AND"), st.just("XOR")),
    "Bogus": (st.just(1), st.just(None)),
}


@st.composite
def _bodies(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    op = draw(st.sampled_from(OPERATIONS))
    names = draw(st.lists(st.sampled_from(sorted(MEMBERS)), unique=True, max_size=4))
    required = draw(st.lists(st.sampled_from(["TableName", "Item", "Key"]), unique=True))
    names = draw(st.permutations(list(dict.fromkeys(required + names))))
    body = {}
    for name in names:
        good, bad = MEMBERS[name]
        body[name] = draw(st.one_of(good, good, good, bad))
    return op, body


def _outcome(f: Any, *args: Any) -> Any:
    try:
        return f(*args)
    except DynamoError as e:
        return e.type_name, e.message


@pytest.fixture(scope="module")
def v() -> RequestValidator:
    return RequestValidator.for_service("dynamodb")


@settings(max_examples=600, deadline=None)
@given(case=_bodies())
def test_a_body_passes_or_gets_a_coral_error_and_its_maps_measure_as_the_value_rules_do(
    v: RequestValidator, case: Any
) -> None:
    op, body = case
    try:
        v.validate(op, body)
    except DynamoError as e:
        assert e.type_name in ("SerializationException", "ValidationException")
        return
    for x in body.values():
        if type(x) is values.MeasuredMap:  # what the engine makes of it, measured or not
            assert _outcome(values.validate_item_sized, x) == _outcome(values.validate_item_sized, dict(x))


GOOD = {"pk": {"S": "a"}, "n": {"N": "1.5"}, "b": {"BOOL": True}, "z": {"NULL": True}, "ss": {"SS": ["x", "é"]}}
NUMBER_TO_STRING = ("SerializationException", "NUMBER_VALUE cannot be converted to String")
LONG_NAME_TAIL = ("' at 'key' failed to satisfy constraint: Map keys must satisfy constraint: "
                  "[Member must have length less than or equal to 65535]")


@pytest.mark.parametrize(
    "op, body, expected",
    [
        ("PutItem", {"TableName": "users", "Item": GOOD}, None),
        ("PutItem", {"Item": GOOD, "TableName": "users", "ReturnValues": "ALL_OLD", "ReturnConsumedCapacity": "TOTAL"},
         None),
        ("PutItem", {"TableName": "users", "Item": GOOD, "Bogus": 1}, None),
        ("PutItem", {"TableName": "users", "Item": {"pk": None}},
         ("ValidationException", "1 validation error detected: Value null at 'item.pk.member' failed to satisfy "
                                 "constraint: Member must not be null")),
        # a type error wins over every constraint, wherever it is in the body
        ("PutItem", {"TableName": "no way", "Item": {"pk": {"S": 5}}}, NUMBER_TO_STRING),
        ("PutItem", {"ReturnValues": "BAD", "Item": {"pk": {"S": 5}}, "TableName": "users"}, NUMBER_TO_STRING),
        ("PutItem", {"Item": {"pk": {"S": 5}}, "TableName": 5}, NUMBER_TO_STRING),
        ("PutItem", {"TableName": "users"},
         ("ValidationException", "1 validation error detected: Value null at 'item' failed to satisfy constraint: "
                                 "Member must not be null")),
        ("UpdateItem", {"TableName": "users", "Key": {"pk": {"S": "a"}}, "UpdateExpression": "ADD n :one",
                        "ExpressionAttributeValues": {":one": {"N": "1"}}, "ExpressionAttributeNames": {"#n": "n"}},
         None),
        ("UpdateItem", {"TableName": "users", "Key": {"pk": {"S": "a"}}, "ExpressionAttributeNames": {"#n": ""}}, None),
        ("GetItem", {"TableName": "users", "Key": {"pk": {"S": "a"}}, "ConsistentRead": "true"}, None),
        ("Query", {"TableName": "users", "Limit": 0, "KeyConditionExpression": "pk = :p"},
         ("ValidationException", "1 validation error detected: Value at 'Limit' failed to satisfy constraint: "
                                 "Member must have value greater than or equal to 1")),
        ("Scan", {"TableName": "users", "Limit": 0},
         ("ValidationException", "1 validation error detected: Value '0' at 'limit' failed to satisfy constraint: "
                                 "Member must have value greater than or equal to 1")),
    ],
)
def test_chosen_bodies(v: RequestValidator, op: str, body: dict[str, Any], expected: Any) -> None:
    assert _outcome(v.validate, op, copy.deepcopy(body)) == expected


def test_a_name_past_65535_units_is_refused_with_its_map_shown(v: RequestValidator) -> None:
    name = "x" * 70_000
    got = _outcome(v.validate, "GetItem", {"TableName": "users", "Key": {name: {"S": "a"}}})
    assert got[0] == "ValidationException"
    assert got[1].startswith(f"1 validation error detected: Value '{{{name}=com.amazonaws.dynamodb.v20120810."
                             "AttributeValue@")
    assert got[1].endswith(LONG_NAME_TAIL)


def test_coerced_members_are_handed_on_as_dynamodb_reads_them(v: RequestValidator) -> None:
    body = {"TableName": "users", "Key": {"pk": {"S": "a"}}, "ConsistentRead": "true"}
    v.validate("GetItem", body)
    assert body["ConsistentRead"] is True


def test_an_accepted_item_is_handed_on_measured(v: RequestValidator) -> None:
    body = {"TableName": "users", "Item": copy.deepcopy(GOOD)}
    v.validate("PutItem", body)
    item = body["Item"]
    assert type(item) is values.MeasuredMap and item.unchecked == []
    assert item.size == values.item_size(GOOD)
    assert values.validate_item_sized(item) == (GOOD, values.item_size(GOOD))


def test_values_the_rules_may_refuse_are_left_to_the_engine(v: RequestValidator) -> None:
    body = {"TableName": "users", "Item": {**copy.deepcopy(GOOD), "ss": {"SS": ["x", "x"]}, "m": {"M": {}}}}
    v.validate("PutItem", body)
    item = body["Item"]
    assert type(item) is values.MeasuredMap and item.unchecked == ["ss", "m"]
    assert item.size == 14  # every name, and the values measured
    assert _outcome(values.validate_item_sized, item) == (
        "ValidationException", "One or more parameter values were invalid: Input collection [\"x\", \"x\"] contains duplicates.")
