"""Evaluation of bound condition trees (ConditionExpression, FilterExpression, legacy).

A bound tree is compiled once per request into nested closures, so evaluating it
against each item (every scanned item, for a filter) does no tree walking or dispatch.

Semantics (developer guide, "Comparison operator and function reference"):
* an operand naming a missing attribute is "absent"; a comparison with an absent operand
  is false, except ``<>``, which is the negation of ``=`` (true when the attribute is
  missing);
* ``< <= > >= BETWEEN`` compare only S, N and B values of the same type; anything else is
  false; ``= <> IN`` compare any types (numbers by value, sets unordered);
* ``size`` is ``values.value_length`` (string and binary length, element count of sets,
  lists and maps) and is absent for types without a size.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from .. import values as V
from . import ast
from .checks import walk

Item = dict[str, Any]
Value = dict[str, Any]
Getter = Callable[[Item], Value | None]
Predicate = Callable[[Item], bool]


def path_getter(elements: tuple[ast.PathElement, ...]) -> Getter:
    """A function returning the value at ``elements`` in an item, or None."""
    first = elements[0]
    rest = elements[1:]
    if not rest:
        return lambda item: item.get(first)  # type: ignore[arg-type]

    def get(item: Item) -> Value | None:
        current = item.get(first)  # type: ignore[arg-type]
        for element in rest:
            if current is None:
                return None
            if type(element) is int:
                items = current.get("L")
                if items is None or element >= len(items):
                    return None
                current = items[element]
            else:
                members = current.get("M")
                if members is None:
                    return None
                current = members.get(element)
        return current

    return get


def lookup(item: Item, elements: tuple[ast.PathElement, ...]) -> Value | None:
    return path_getter(elements)(item)


def compile_operand(node: ast.Node) -> Getter:
    if isinstance(node, ast.Path):
        return path_getter(node.elements)
    if isinstance(node, ast.Literal):
        value = node.value
        return lambda item: value
    if isinstance(node, ast.Func) and node.name == "size":
        inner = compile_operand(node.args[0])

        def size(item: Item) -> Value | None:
            value = inner(item)
            if value is None:
                return None
            length = V.value_length(value)
            return None if length is None else {"N": str(length)}

        return size
    raise TypeError(f"not an operand: {node!r}")


def _equal(a: Value | None, b: Value | None) -> bool:
    return a is not None and b is not None and V.values_equal(a, b)


def _ordered(a: Value | None, b: Value | None) -> int | None:
    if a is None or b is None:
        return None
    return V.compare_values(a, b)


_ORDER_TESTS: dict[str, Callable[[int], bool]] = {
    "<": lambda c: c < 0,
    "<=": lambda c: c <= 0,
    ">": lambda c: c > 0,
    ">=": lambda c: c >= 0,
}


def compile_condition(node: ast.Node) -> Predicate:
    """Compile a bound condition tree into a predicate over items."""
    if isinstance(node, ast.And):
        parts = [compile_condition(i) for i in node.items]
        return lambda item: all(p(item) for p in parts)
    if isinstance(node, ast.Or):
        parts = [compile_condition(i) for i in node.items]
        return lambda item: any(p(item) for p in parts)
    if isinstance(node, ast.Not):
        inner = compile_condition(node.operand)
        return lambda item: not inner(item)
    if isinstance(node, ast.Compare):
        return _compile_compare(node)
    if isinstance(node, ast.Between):
        x, lo, hi = (compile_operand(n) for n in (node.operand, node.low, node.high))

        def between(item: Item) -> bool:
            value = x(item)
            low = _ordered(value, lo(item))
            high = _ordered(value, hi(item))
            return low is not None and high is not None and low >= 0 and high <= 0

        return between
    if isinstance(node, ast.In):
        x = compile_operand(node.operand)
        options = [compile_operand(o) for o in node.options]

        def in_(item: Item) -> bool:
            value = x(item)
            return value is not None and any(_equal(value, o(item)) for o in options)

        return in_
    if isinstance(node, ast.Func):
        return _compile_function(node)
    raise TypeError(f"not a condition: {node!r}")


def _compile_compare(node: ast.Compare) -> Predicate:
    left, right = compile_operand(node.left), compile_operand(node.right)
    if node.op in _ORDER_TESTS and isinstance(node.right, ast.Literal) and not isinstance(node.left, ast.Literal):
        ordered = _compare_with_number(left, node.right.value, _ORDER_TESTS[node.op])
        if ordered is not None:
            return ordered
    if node.op == "=":
        return lambda item: _equal(left(item), right(item))
    if node.op == "<>":
        return lambda item: not _equal(left(item), right(item))
    test = _ORDER_TESTS[node.op]

    def compare(item: Item) -> bool:
        order = _ordered(left(item), right(item))
        return order is not None and test(order)

    return compare


def _compare_with_number(get: Getter, literal: Value, test: Callable[[int], bool]) -> Predicate | None:
    """``<operand> < :n`` (and <=, >, >=) with a number value: the value's Decimal made once
    (``values.compare_values`` on each item would make it again). None for other types."""
    if len(literal) != 1 or type(literal.get("N")) is not str:
        return None
    bound = Decimal(literal["N"])

    def compare(item: Item) -> bool:
        value = get(item)
        if value is None:
            return False
        number = value.get("N")
        if number is None or len(value) != 1:
            return False  # another type: unordered against a number
        d = Decimal(number)
        return test((d > bound) - (d < bound))

    return compare


def begins_with(value: Value | None, prefix: Value | None) -> bool:
    if value is None or prefix is None:
        return False
    if "S" in value and "S" in prefix:
        return value["S"].startswith(prefix["S"])
    if "B" in value and "B" in prefix:
        return V.decode_binary(value["B"]).startswith(V.decode_binary(prefix["B"]))
    return False


def _compile_function(node: ast.Func) -> Predicate:
    name = node.name
    if name in ("attribute_exists", "attribute_not_exists"):
        get = compile_operand(node.args[0])
        if name == "attribute_exists":
            return lambda item: get(item) is not None
        return lambda item: get(item) is None
    first, second = (compile_operand(a) for a in node.args)
    if name == "attribute_type":

        def attribute_type(item: Item) -> bool:
            value, wanted = first(item), second(item)
            return value is not None and wanted is not None and V.value_type(value) == wanted.get("S")

        return attribute_type
    if name == "begins_with":
        return lambda item: begins_with(first(item), second(item))
    if name == "contains":

        def contains(item: Item) -> bool:
            container, operand = first(item), second(item)
            return container is not None and operand is not None and V.contains(container, operand)

        return contains
    raise TypeError(f"not a condition function: {name}")


class Condition:
    """A compiled condition: ``evaluate(item)`` tells whether an item satisfies it.

    ``names`` holds the top-level attribute names the condition reads (Query uses it to
    refuse filters on key attributes).
    """

    __slots__ = ("tree", "_names", "_predicate")

    def __init__(self, tree: ast.Node, names: frozenset[str] | None = None) -> None:
        self.tree = tree
        self._names = names  # when known already (the compile cache's templates)
        self._predicate = compile_condition(tree)

    @property
    def names(self) -> frozenset[str]:
        if self._names is None:
            self._names = frozenset(_top_names(self.tree))
        return self._names

    def evaluate(self, item: Item | None) -> bool:
        return self._predicate(item if item is not None else {})


def top_names(node: ast.Node) -> frozenset[str]:
    """The top-level attribute names a bound condition tree reads."""
    return frozenset(_top_names(node))


def _top_names(node: ast.Node) -> list[str]:
    return [n.elements[0] for n in walk(node) if isinstance(n, ast.Path)]  # type: ignore[misc]
