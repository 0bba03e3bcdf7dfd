"""Property tests: the condition evaluator against a small reference written here, and
fuzzing that shows arbitrary input only ever produces DynamoError."""

from __future__ import annotations

import base64
from decimal import Decimal
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dynemu.engine.expressions import compile_request
from dynemu.errors import DynamoError

# --- random attribute values and items ------------------------------------------------------

TEXT = st.text(alphabet="abcAB\u00e9\U0001d11e", max_size=4)
NUMBER = st.decimals(min_value=-1000, max_value=1000, places=2, allow_nan=False, allow_infinity=False)


def number_value(d: Decimal) -> str:
    return format(d.normalize(), "f") if d else "0"


SCALARS = st.one_of(
    TEXT.map(lambda s: {"S": s}),
    NUMBER.map(lambda d: {"N": number_value(d)}),
    st.binary(max_size=3).map(lambda b: {"B": base64.b64encode(b).decode()}),
    st.booleans().map(lambda b: {"BOOL": b}),
    st.just({"NULL": True}),
    st.lists(TEXT, min_size=1, max_size=3, unique=True).map(lambda xs: {"SS": xs}),
    st.lists(st.integers(-5, 5), min_size=1, max_size=3, unique=True).map(lambda xs: {"NS": [str(x) for x in xs]}),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3).map(lambda xs: {"L": xs}),
        st.dictionaries(st.sampled_from(["x", "y"]), inner, max_size=2).map(lambda m: {"M": m}),
    ),
    max_leaves=6,
)
ITEMS = st.dictionaries(st.sampled_from(["a", "b", "c", "m", "l"]), VALUES, max_size=5)
PATHS = [("a",), ("b",), ("c",), ("m", "x"), ("m", "y"), ("l", 0), ("l", 1), ("m", "x", 0)]

# --- the reference evaluator: direct, obviously correct, independent of the engine -----------


def ref_get(item: dict, path: tuple) -> Any:
    value = item.get(path[0])
    for element in path[1:]:
        if value is None:
            return None
        if isinstance(element, int):
            items = value.get("L")
            value = items[element] if items is not None and element < len(items) else None
        else:
            value = value.get("M", {}).get(element) if "M" in value else None
    return value


def ref_equal(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return False
    (ta, xa), = a.items()
    (tb, xb), = b.items()
    if ta != tb:
        return False
    if ta == "N":
        return Decimal(xa) == Decimal(xb)
    if ta == "NS":
        return {Decimal(x) for x in xa} == {Decimal(x) for x in xb}
    if ta in ("SS", "BS"):
        return set(xa) == set(xb)
    if ta == "L":
        return len(xa) == len(xb) and all(ref_equal(p, q) for p, q in zip(xa, xb, strict=True))
    if ta == "M":
        return xa.keys() == xb.keys() and all(ref_equal(xa[k], xb[k]) for k in xa)
    return xa == xb


def ref_key(v: dict) -> tuple[str, Any] | None:
    (t, x), = v.items()
    if t == "S":
        return t, x.encode("utf-8")
    if t == "N":
        return t, Decimal(x)
    if t == "B":
        return t, base64.b64decode(x)
    return None


def ref_order(a: Any, b: Any) -> int | None:
    if a is None or b is None:
        return None
    ka, kb = ref_key(a), ref_key(b)
    if ka is None or kb is None or ka[0] != kb[0]:
        return None
    return (ka[1] > kb[1]) - (ka[1] < kb[1])


def ref_size(v: Any) -> Any:
    if v is None:
        return None
    (t, x), = v.items()
    if t == "S":
        return {"N": str(len(x.encode("utf-16-le")) // 2)}
    if t == "B":
        return {"N": str(len(base64.b64decode(x)))}
    if t in ("SS", "NS", "BS", "L", "M"):
        return {"N": str(len(x))}
    return None


def ref_contains(container: Any, operand: Any) -> bool:
    if container is None or operand is None:
        return False
    (tc, xc), = container.items()
    (to, xo), = operand.items()
    if tc == "S":
        return to == "S" and xo in xc
    if tc == "SS":
        return to == "S" and xo in xc
    if tc == "NS":
        return to == "N" and any(Decimal(x) == Decimal(xo) for x in xc)
    if tc == "B":
        return to == "B" and base64.b64decode(xo) in base64.b64decode(xc)
    if tc == "L":
        return any(ref_equal(e, operand) for e in xc)
    return False


def ref_eval(node: tuple, item: dict) -> bool:
    kind = node[0]
    if kind == "and":
        return all(ref_eval(n, item) for n in node[1])
    if kind == "or":
        return any(ref_eval(n, item) for n in node[1])
    if kind == "not":
        return not ref_eval(node[1], item)
    if kind == "cmp":
        _, op, left, right = node
        a, b = ref_operand(left, item), ref_operand(right, item)
        if op == "=":
            return ref_equal(a, b)
        if op == "<>":
            return not ref_equal(a, b)
        order = ref_order(a, b)
        return order is not None and {"<": order < 0, "<=": order <= 0, ">": order > 0, ">=": order >= 0}[op]
    if kind == "between":
        value = ref_get(item, node[1])
        lo, hi = ref_order(value, node[2]), ref_order(value, node[3])
        return lo is not None and hi is not None and lo >= 0 and hi <= 0
    if kind == "in":
        value = ref_get(item, node[1])
        return any(ref_equal(value, option) for option in node[2])
    if kind == "exists":
        return ref_get(item, node[1]) is not None
    if kind == "not_exists":
        return ref_get(item, node[1]) is None
    if kind == "type":
        value = ref_get(item, node[1])
        return value is not None and next(iter(value)) == node[2]
    if kind == "begins":
        value, prefix = ref_get(item, node[1]), node[2]
        if value is None:
            return False
        if "S" in value and "S" in prefix:
            return value["S"].startswith(prefix["S"])
        if "B" in value and "B" in prefix:
            return base64.b64decode(value["B"]).startswith(base64.b64decode(prefix["B"]))
        return False
    if kind == "contains":
        return ref_contains(ref_get(item, node[1]), node[2])
    raise AssertionError(kind)


def ref_operand(operand: tuple, item: dict) -> Any:
    if operand[0] == "path":
        return ref_get(item, operand[1])
    if operand[0] == "size":
        return ref_size(ref_get(item, operand[1]))
    return operand[1]  # ("value", v)


# --- random condition trees, rendered to expression text --------------------------------------

PATH = st.sampled_from(PATHS)
OPERAND = st.one_of(PATH.map(lambda p: ("path", p)), PATH.map(lambda p: ("size", p)), SCALARS.map(lambda v: ("value", v)))
TYPE_NAMES = st.sampled_from(["S", "N", "B", "BOOL", "NULL", "SS", "NS", "BS", "L", "M"])


@st.composite
def comparisons(draw: st.DrawFn) -> tuple:
    op = draw(st.sampled_from(["=", "<>", "<", "<=", ">", ">="]))
    left = draw(st.one_of(PATH.map(lambda p: ("path", p)), PATH.map(lambda p: ("size", p))))
    right = draw(OPERAND)
    if right[0] != "value" and right[1] == left[1]:
        right = ("value", {"N": "1"})  # "a = a" is refused: operands must be distinct
    if op not in ("=", "<>") and right[0] == "value" and next(iter(right[1])) not in ("S", "N", "B"):
        right = ("value", {"N": "1"})  # ordering against an unorderable value is refused (issue 12)
    return ("cmp", op, left, right)


@st.composite
def betweens(draw: st.DrawFn) -> tuple:
    if draw(st.booleans()):
        lo, hi = sorted(draw(st.lists(NUMBER, min_size=2, max_size=2)))
        bounds = ({"N": number_value(lo)}, {"N": number_value(hi)})
    else:
        lo_s, hi_s = sorted(draw(st.lists(TEXT, min_size=2, max_size=2)), key=lambda s: s.encode("utf-8"))
        bounds = ({"S": lo_s}, {"S": hi_s})
    return ("between", draw(PATH), *bounds)


FUNCTIONS = st.one_of(
    PATH.map(lambda p: ("exists", p)),
    PATH.map(lambda p: ("not_exists", p)),
    st.tuples(st.just("type"), PATH, TYPE_NAMES),
    st.tuples(st.just("begins"), PATH, st.one_of(TEXT.map(lambda s: {"S": s}),
                                                  st.binary(max_size=2).map(lambda b: {"B": base64.b64encode(b).decode()}))),
    st.tuples(st.just("contains"), PATH, SCALARS.filter(lambda v: next(iter(v)) in ("S", "N", "B"))),
    st.tuples(st.just("in"), PATH, st.lists(SCALARS, min_size=1, max_size=3)),
)
LEAVES = st.one_of(comparisons(), betweens(), FUNCTIONS)
CONDITIONS = st.recursive(
    LEAVES,
    lambda inner: st.one_of(
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: ("and", xs)),
        st.lists(inner, min_size=2, max_size=3).map(lambda xs: ("or", xs)),
        inner.map(lambda x: ("not", x)),
    ),
    max_leaves=8,
)
PRECEDENCE = {"or": 1, "and": 2, "not": 3}


class Renderer:
    """Render a tree as text, with placeholders, adding parentheses only where needed."""

    def __init__(self) -> None:
        self.values: dict[str, dict] = {}
        self.names: dict[str, str] = {}

    def value(self, v: dict) -> str:
        key = f":v{len(self.values)}"
        self.values[key] = v
        return key

    def path(self, path: tuple) -> str:
        text = ""
        for element in path:
            if isinstance(element, int):
                text += f"[{element}]"
            elif element == "c":  # exercise name placeholders too
                self.names["#c"] = "c"
                text += ("." if text else "") + "#c"
            else:
                text += ("." if text else "") + element
        return text

    def operand(self, operand: tuple) -> str:
        if operand[0] == "path":
            return self.path(operand[1])
        if operand[0] == "size":
            return f"size({self.path(operand[1])})"
        return self.value(operand[1])

    def render(self, node: tuple, parent: int = 0) -> str:
        kind = node[0]
        if kind in PRECEDENCE:
            prec = PRECEDENCE[kind]
            if kind == "not":
                text = "NOT " + self.render(node[1], prec)
            else:
                text = f" {kind.upper()} ".join(self.render(n, prec) for n in node[1])
            return f"({text})" if prec < parent else text
        if kind == "cmp":
            return f"{self.operand(node[2])} {node[1]} {self.operand(node[3])}"
        if kind == "between":
            return f"{self.path(node[1])} BETWEEN {self.value(node[2])} AND {self.value(node[3])}"
        if kind == "in":
            return f"{self.path(node[1])} IN ({', '.join(self.value(v) for v in node[2])})"
        if kind == "type":
            return f"attribute_type({self.path(node[1])}, {self.value({'S': node[2]})})"
        name = {"exists": "attribute_exists", "not_exists": "attribute_not_exists", "begins": "begins_with",
                "contains": "contains"}[kind]
        args = [self.path(node[1])] + ([self.value(node[2])] if len(node) > 2 else [])
        return f"{name}({', '.join(args)})"


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tree=CONDITIONS, items=st.lists(ITEMS, min_size=1, max_size=4))
def test_evaluator_matches_reference(tree: tuple, items: list[dict]) -> None:
    renderer = Renderer()
    text = renderer.render(tree)
    request: dict[str, Any] = {"ConditionExpression": text}
    if renderer.values:
        request["ExpressionAttributeValues"] = renderer.values
    if renderer.names:
        request["ExpressionAttributeNames"] = renderer.names
    condition = compile_request("PutItem", request).condition
    assert condition is not None
    for item in items:
        assert condition.evaluate(item) is ref_eval(tree, item), (text, item)


# --- fuzzing: any input gives a result or a DynamoError, never another exception ----------------

TOKENS = st.sampled_from(["a", "b", "#n", ":v", ":w", "(", ")", "[", "]", "0", "12", ".", ",", "=", "<>", "<", "<=",
                          ">", ">=", "+", "-", " ", "AND", "OR", "NOT", "BETWEEN", "IN", "SET", "REMOVE", "ADD",
                          "DELETE", "size", "contains", "begins_with", "attribute_exists", "attribute_type",
                          "if_not_exists", "list_append", "status", "#", ":", "$", "\u00e9", "\x00"])
EXPRESSION_TEXT = st.one_of(st.lists(TOKENS, max_size=25).map(" ".join), st.lists(TOKENS, max_size=25).map("".join),
                            st.text(max_size=40))
PARAMETERS = {"PutItem": "ConditionExpression", "UpdateItem": "UpdateExpression", "GetItem": "ProjectionExpression",
              "Scan": "FilterExpression", "Query": "KeyConditionExpression"}


@settings(max_examples=1500, deadline=None)
@given(operation=st.sampled_from(sorted(PARAMETERS)), text=EXPRESSION_TEXT, item=ITEMS,
       with_names=st.booleans(), with_values=st.booleans())
def test_fuzz_only_dynamo_errors(operation: str, text: str, item: dict, with_names: bool, with_values: bool) -> None:
    request: dict[str, Any] = {PARAMETERS[operation]: text}
    if with_names:
        request["ExpressionAttributeNames"] = {"#n": "a"}
    if with_values and operation != "GetItem":
        request["ExpressionAttributeValues"] = {":v": {"N": "1"}, ":w": {"SS": ["x"]}}
    try:
        compiled = compile_request(operation, request, key_schema=[("a", "HASH"), ("b", "RANGE")])
        if compiled.condition is not None:
            compiled.condition.evaluate(item)
        if compiled.filter is not None:
            compiled.filter.evaluate(item)
        if compiled.projection is not None:
            compiled.projection.apply(item)
        if compiled.update is not None:
            compiled.update.apply(item, {"pk": {"S": "k"}})
    except DynamoError:
        pass


@settings(max_examples=300, deadline=None)
@given(data=st.binary(max_size=60))
def test_fuzz_random_bytes(data: bytes) -> None:
    text = data.decode("latin-1")
    for operation, parameter in PARAMETERS.items():
        try:
            compile_request(operation, {parameter: text})
        except DynamoError:
            pass
