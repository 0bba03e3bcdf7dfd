"""An UpdateExpression whose paths are all top-level names takes ``Update._new_flat`` (no
copy-on-write Writer); it must give exactly what the general application gives: the same
new item (or None), or the same error."""

from __future__ import annotations

import copy
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dynemu.engine import values
from dynemu.engine.expressions import compile_request
from dynemu.engine.expressions.parser import parse_update
from dynemu.engine.expressions.update import Update, UpdateTemplate
from dynemu.errors import DynamoError

from .expr_helpers import N, S, request

KEY = {"pk": S("k")}
VALUES = {
    ":one": N("1"), ":big": N("9" * 38), ":neg": N("-2.5"), ":s": S("x"), ":l": {"L": [S("d")]},
    ":ss": {"SS": ["b", "c"]}, ":ns": {"NS": ["2.0", "3"]}, ":dss": {"SS": ["a", "b"]}, ":empty": {"L": []},
}
CLAUSES = {
    "SET": ["{p} = :one", "{p} = :s", "{p} = {p} + :one", "{p} = :neg - {p}", "{p} = if_not_exists({p}, :one)",
            "{p} = list_append({p}, :l)", "{p} = list_append(if_not_exists({p}, :empty), :l)", "{p} = n",
            "{p} = #x + :big"],
    "REMOVE": ["{p}"],
    "ADD": ["{p} :one", "{p} :ss", "{p} :ns", "{p} :big"],
    "DELETE": ["{p} :dss", "{p} :ns"],
}
ITEM_VALUES = [N("5"), N("9" * 38), S("str"), {"L": [S("a")]}, {"SS": ["a", "b"]}, {"NS": ["1", "2"]},
               {"M": {"x": N("1")}}, {"BOOL": True}]


@st.composite
def _updates(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    paths = draw(st.lists(st.sampled_from(["a", "b", "n", "#x", "pk2"]), min_size=1, max_size=4, unique=True))
    by_kind: dict[str, list[str]] = {}
    for p in paths:
        kind = draw(st.sampled_from(sorted(CLAUSES)))
        by_kind.setdefault(kind, []).append(draw(st.sampled_from(CLAUSES[kind])).format(p=p))
    text = " ".join(f"{kind} {', '.join(clauses)}" for kind, clauses in by_kind.items())
    return text, {name: copy.deepcopy(v) for name, v in draw(st.dictionaries(
        st.sampled_from(["a", "b", "n", "x", "pk2"]), st.sampled_from(ITEM_VALUES), max_size=5)).items()}


def _outcome(update: Update, item: dict[str, Any] | None) -> Any:
    before = copy.deepcopy(item)
    try:
        new = update.new_item(item, KEY)
    except DynamoError as e:
        return e.type_name, e.message
    assert item == before  # never mutated
    return new


def _both(text: str, item: dict[str, Any] | None) -> tuple[Any, Any] | None:
    used = {k: VALUES[k] for k in re.findall(r":\w+", text)} or None
    names = {"#x": "x"} if "#x" in text else None
    try:
        update = compile_request("UpdateItem", request("UpdateExpression", text, names, used)).update
    except DynamoError:
        return None  # refused before any item is read
    assert update is not None and update.flat
    general = Update(update.actions, update.values, update.top_names, flat=False)
    checked = {k: values.validate_value(v) for k, v in (used or {}).items()}  # what items.py binds
    template = UpdateTemplate(parse_update(text), names or {}).bind(checked)
    assert template.flat
    flat = _outcome(update, item)
    assert _outcome(template, item) == flat
    return flat, _outcome(general, item)


@settings(max_examples=400, deadline=None)
@given(case=_updates(), exists=st.booleans())
def test_flat_updates_give_what_the_general_application_gives(case: tuple[str, dict[str, Any]], exists: bool) -> None:
    text, attrs = case
    item = {**KEY, **attrs} if exists else None
    both = _both(text, item)
    if both is not None:
        assert both[0] == both[1]


@pytest.mark.parametrize("text, item", [
    ("ADD n :one", {**KEY, "n": N("5")}),
    ("ADD n :one", None),
    ("ADD n :one", {**KEY, "n": S("5")}),
    ("SET a = :s, b = n ADD n :one", {**KEY, "n": S("x")}),
    ("ADD a :one SET b = n", {**KEY, "a": S("x")}),  # every SET operand is evaluated first
    ("REMOVE a", None),
    ("DELETE a :dss", {**KEY, "a": {"SS": ["a", "b"]}}),
    ("SET a = a + :one REMOVE b", {**KEY, "b": N("1")}),
])
def test_flat_updates_on_chosen_items(text: str, item: dict[str, Any] | None) -> None:
    both = _both(text, item)
    assert both is not None and both[0] == both[1]


def test_nested_paths_keep_the_general_application() -> None:
    update = compile_request("UpdateItem", request("UpdateExpression", "SET m.x = :one, a = :one", None,
                                                   {":one": N("1")})).update
    assert update is not None and not update.flat
