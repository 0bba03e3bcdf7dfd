"""PutItem's item is walked once: the request validator's type pass also applies DynamoDB's
value rules and measures the size where they cannot fail (``values.MeasuredMap``), and the
engine checks only the rest. Nothing a client sees may change: the same error for every bad
item, in the same order (type errors before value rules, the first bad attribute first), and
the same size at the 400 KB limit."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dynemu.api.validation.validator import RequestValidator
from dynemu.engine import values
from dynemu.errors import DynamoError
from tests.helpers import assert_error, assert_validation

PREFIX = "One or more parameter values were invalid: "


def _outcome(f: Any, item: Any) -> Any:
    try:
        return f(item)
    except DynamoError as e:
        return (e.type_name, e.message)


def _both_paths(item: dict[str, Any]) -> tuple[Any, Any]:
    """(checked path, generic path) of one item after the validator's pass over PutItem."""
    body = {"TableName": "users", "Item": copy.deepcopy(item)}
    try:
        RequestValidator.for_service("dynamodb").validate("PutItem", body)
    except DynamoError as e:
        return (e.type_name, e.message), (e.type_name, e.message)
    checked = body["Item"]
    assert type(checked) is values.MeasuredMap
    plain = dict(checked)
    return _outcome(values.validate_item_sized, checked), _outcome(values.validate_item_sized, plain)


CASES: list[dict[str, Any]] = [
    {"pk": {"S": "a"}, "n": {"N": "12.5"}, "b": {"BOOL": True}},
    {"pk": {"S": "é𝄞"}, "nämé": {"S": "x"}, "n": {"N": "-0.001"}},
    {"pk": {"S": "a"}, "n": {"N": "1.50"}, "m": {"N": "01"}, "e": {"N": "1E+2"}},
    {"pk": {"S": "a"}, "n": {"N": "x1"}},
    {"pk": {"S": "a"}, "n": {"N": ""}},
    {"pk": {"S": "a"}, "n": {"N": "1" * 39}},
    {"pk": {"S": "a"}, "z": {"NULL": False}},
    {"pk": {"S": "a"}, "z": {"NULL": True}, "b": {"BOOL": "true"}},
    {"pk": {"S": "a"}, "ss": {"SS": []}, "n": {"N": "x"}},
    {"pk": {"S": "a"}, "n": {"N": "x"}, "ss": {"SS": []}},
    {"pk": {"S": "a"}, "ns": {"NS": ["1", "1.0"]}},
    {"pk": {"S": "a"}, "ss": {"SS": ["a", "a"]}},
    {"pk": {"S": "a"}, "bs": {"BS": ["AA==", "AA=="]}},
    {"pk": {"S": "a"}, "b": {"B": "AA=="}, "bad": {"B": "AB=="}},
    {"pk": {"S": "a"}, "two": {"S": "x", "N": "1"}},
    {"pk": {"S": "a"}, "empty": {}},
    {"pk": {"S": "a"}, "unknown": {"X": "1"}},
    {"pk": {"S": "a"}, "nulls": {"S": None, "N": "2"}},
    {"pk": {"S": "a"}, "m": {"M": {"a": {"N": "1.0"}, "b": {"L": [{"S": "x"}, {"NULL": True}]}}}},
    {"pk": {"S": "a"}, "deep": {"L": [{"L": [{"L": [{"M": {"x": {"SS": []}}}]}]}]}},
    {"pk": {"S": "a"}, "s": {"S": 5}},
    {"pk": {"S": "a"}, "ss": {"SS": []}, "s": {"S": 5}},
    {"pk": {"S": "a"}, "n": {"N": 5}},
    {"pk": {"S": "a"}, "l": {"L": {}}},
    {"pk": {"S": "a"}, "": {"S": "x"}},
    {"pk": {"S": "a"}, "n": {"N": "x"}, "": {"S": "x"}},
]


@pytest.mark.parametrize("item", CASES)
def test_checked_items_give_what_the_generic_walk_gives(item: dict[str, Any]) -> None:
    checked, generic = _both_paths(item)
    assert checked == generic


_scalar = st.one_of(
    st.builds(lambda s: {"S": s}, st.text(max_size=5)),
    st.builds(lambda s: {"N": s}, st.sampled_from(["0", "1", "-1.5", "1.50", "01", "1e3", "x", "", "1" * 40])),
    st.builds(lambda b: {"BOOL": b}, st.sampled_from([True, False, "true", 1])),
    st.builds(lambda b: {"NULL": b}, st.sampled_from([True, False])),
    st.builds(lambda s: {"SS": s}, st.lists(st.sampled_from(["a", "b"]), max_size=3)),
    st.builds(lambda s: {"NS": s}, st.lists(st.sampled_from(["1", "1.0", "2"]), max_size=3)),
    st.sampled_from([{}, {"S": "a", "N": "1"}, {"B": "AA=="}, {"B": "A"}, {"X": "y"}, {"S": None}]),
)
_value = st.recursive(
    _scalar,
    lambda inner: st.one_of(
        st.builds(lambda xs: {"L": xs}, st.lists(inner, max_size=3)),
        st.builds(lambda m: {"M": m}, st.dictionaries(st.sampled_from(["a", "é", "c"]), inner, max_size=3)),
    ),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["pk", "a", "ü", "long_name", "n", ""]), _value, min_size=1, max_size=5))
def test_checked_items_match_the_generic_walk_on_any_item(item: dict[str, Any]) -> None:
    checked, generic = _both_paths(item)
    assert checked == generic


# --- over HTTP: what a client sees ----------------------------------------------------------------------


def test_a_type_error_anywhere_wins_over_an_earlier_value_rule(table: str, raw: Any) -> None:
    item = {"pk": {"S": "a"}, "ss": {"SS": []}, "s": {"S": 5}}
    assert_error("SerializationException", "NUMBER_VALUE cannot be converted to String",
                 raw.put_item, TableName=table, Item=item)


def test_the_first_attribute_breaking_a_value_rule_is_reported(table: str, raw: Any) -> None:
    item = {"pk": {"S": "a"}, "n": {"N": "1.50"}, "b": {"BOOL": True}, "ss": {"SS": []}, "x": {"N": "x"}}
    envelope = "1 validation error detected: "  # PutItem's value rules (issue 36)
    assert_validation(envelope + PREFIX + "An string set  may not be empty", raw.put_item, TableName=table, Item=item)
    item = {"pk": {"S": "a"}, "x": {"N": "x"}, "ss": {"SS": []}}
    assert_validation(envelope + "The parameter cannot be converted to a numeric value: x", raw.put_item,
                      TableName=table, Item=item)


def test_request_constraints_win_over_value_rules(raw: Any) -> None:
    item = {"pk": {"S": "a"}, "ss": {"SS": []}}
    assert_error("ValidationException", "1 validation error detected: Value 'X' at 'returnConsumedCapacity' failed "
                 "to satisfy constraint: Member must satisfy enum value set: [INDEXES, TOTAL, NONE]",
                 raw.put_item, TableName="users", Item=item, ReturnConsumedCapacity="X")


def test_non_canonical_numbers_are_stored_canonical(table: str, raw: Any, ddb: Any) -> None:
    raw.put_item(TableName=table, Item={"pk": {"S": "canon"}, "n": {"N": "01.50"}, "m": {"N": "7"}})
    got = ddb.get_item(TableName=table, Key={"pk": {"S": "canon"}})["Item"]
    assert got["n"] == {"N": "1.5"} and got["m"] == {"N": "7"}


def test_the_400_kb_limit_counts_every_kind_of_attribute(table: str, ddb: Any) -> None:
    base = {"pk": {"S": "big"}, "nämé": {"N": "12.5"}, "flag": {"BOOL": True}, "n2": {"N": "1.50"},
            "tags": {"SS": ["a", "bb"]}, "m": {"M": {"k": {"S": "v"}}}}
    size = values.item_size(values.validate_item(base)) + len("pad")
    ok = 400 * 1024 - size
    ddb.put_item(TableName=table, Item={**base, "pad": {"S": "x" * ok}})
    assert_validation("Item size has exceeded the maximum allowed size",
                      ddb.put_item, TableName=table, Item={**base, "pad": {"S": "x" * (ok + 1)}})


# --- keys of tables without a sort key: the short cut in Table.key_for_item / key_for_request ---------


HASH_SIZE = "One or more parameter values were invalid: Size of hashkey has exceeded the maximum size limit of2048 bytes"
SCHEMA = "The provided key element does not match the schema"


def test_partition_key_rules_hold_at_their_edges(table: str, ddb: Any) -> None:
    for pk in ("𝄞" * 512, "p" * 2048, "é" * 1024, "a"):
        ddb.put_item(TableName=table, Item={"pk": {"S": pk}})
        assert ddb.get_item(TableName=table, Key={"pk": {"S": pk}}, ConsistentRead=True)["Item"] == {"pk": {"S": pk}}
        ddb.update_item(TableName=table, Key={"pk": {"S": pk}}, UpdateExpression="SET v = :v",
                        ExpressionAttributeValues={":v": {"N": "1"}})
    for pk in ("𝄞" * 513, "p" * 2049, "é" * 1025):
        assert_validation(HASH_SIZE, ddb.put_item, TableName=table, Item={"pk": {"S": pk}})
        assert_validation(HASH_SIZE, ddb.get_item, TableName=table, Key={"pk": {"S": pk}})
    empty = ("One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an "
             "empty string value. Key: pk")
    assert_validation(empty, ddb.put_item, TableName=table, Item={"pk": {"S": ""}})
    assert_validation(empty, ddb.get_item, TableName=table, Key={"pk": {"S": ""}})


def test_partition_key_shapes_are_still_refused(table: str, make_table: Any, ddb: Any) -> None:
    assert_validation(PREFIX + "Type mismatch for key pk expected: S actual: N", ddb.put_item, TableName=table,
                      Item={"pk": {"N": "1"}})
    assert_validation(PREFIX + "Missing the key pk in the item", ddb.put_item, TableName=table, Item={"x": {"S": "1"}})
    assert_validation(SCHEMA, ddb.get_item, TableName=table, Key={"pk": {"N": "1"}})
    assert_validation(SCHEMA, ddb.get_item, TableName=table, Key={"pk": {"S": "a"}, "x": {"S": "b"}})
    assert_validation(SCHEMA, ddb.get_item, TableName=table, Key={"x": {"S": "a"}})
    numbers = make_table(hash=("id", "N"))
    ddb.put_item(TableName=numbers, Item={"id": {"N": "1.50"}, "v": {"S": "x"}})
    got = ddb.get_item(TableName=numbers, Key={"id": {"N": "01.5"}}, ConsistentRead=True)["Item"]
    assert got == {"id": {"N": "1.5"}, "v": {"S": "x"}}
