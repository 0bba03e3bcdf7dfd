"""SearchConditionExpression's row masks (engine/vectors/condition.py) against the expression
engine's own evaluation: for any S, N and B values (and missing ones) and any condition the
filter allows, the rows a mask keeps are those the engine's evaluation of the same condition
keeps, item by item."""

from __future__ import annotations

import base64
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from dynemu.engine.expressions import ast
from dynemu.engine.expressions.evaluate import compile_condition
from dynemu.engine.vectors import condition
from dynemu.engine.vectors.maintain import canonical
from dynemu.engine.vectors.matrix import VectorMatrix

NUMBERS = st.sampled_from(["0", "1", "1.5", "1.50", "-2", "10", "9.5", "1e3", "1000", "-0.001", "12345678901234567890.5"])
STRINGS = st.sampled_from(["", "a", "ab", "b", "red", "rose", "é", "z", "Z", "\U0001f600"])
BINARIES = st.sampled_from([b"", b"\x00", b"\x01", b"\x01\x02", b"\xff", b"ab"]).map(
    lambda b: base64.b64encode(b).decode()
)
VALUES = st.one_of(NUMBERS.map(lambda n: {"N": n}), STRINGS.map(lambda s: {"S": s}),
                   BINARIES.map(lambda b: {"B": b}))
LITERALS = st.one_of(VALUES, st.just({"BOOL": True}), st.just({"NULL": True}))
PATH = ast.Path(("f",))


def _lit(v: dict[str, Any]) -> ast.Literal:
    return ast.Literal(v)


CONDITIONS = st.one_of(
    st.builds(lambda op, v, flip: ast.Compare(op, _lit(v), PATH) if flip else ast.Compare(op, PATH, _lit(v)),
              st.sampled_from(["=", "<>", "<", "<=", ">", ">="]), LITERALS, st.booleans()),
    st.builds(lambda lo, hi: ast.Between(PATH, _lit(lo), _lit(hi)), VALUES, VALUES),
    st.builds(lambda vs: ast.In(PATH, tuple(_lit(v) for v in vs)), st.lists(LITERALS, min_size=1, max_size=4)),
    st.builds(lambda name: ast.Func(name, (PATH,)), st.sampled_from(["attribute_exists", "attribute_not_exists"])),
    st.builds(lambda v: ast.Func("begins_with", (PATH, _lit(v))),
              st.one_of(STRINGS.map(lambda s: {"S": s}), BINARIES.map(lambda b: {"B": b}))),
)


@settings(max_examples=400, deadline=None)
@given(rows=st.lists(st.one_of(st.none(), VALUES), min_size=1, max_size=12), node=CONDITIONS,
       negate=st.booleans())
def test_masks_keep_what_the_engine_keeps(rows: list[dict[str, Any] | None], node: Any, negate: bool) -> None:
    mx = VectorMatrix(2, "COSINE", ["f"])
    for i, v in enumerate(rows):
        filters = {} if v is None else {"f": canonical(v)}
        mx.put(i.to_bytes(4, "big"), np.ones(2, dtype="<f4").tobytes(), filters)
    tree = ast.Not(node) if negate else node
    got = condition._mask(tree)(mx).tolist()
    engine = compile_condition(tree)
    assert got == [engine({} if v is None else {"f": v}) for v in rows]
