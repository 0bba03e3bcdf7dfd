"""What a request's expressions compile to, cached by everything that is not a value's
content: the one cache of compiled expressions (``compile_request`` consults it).

A ``Template`` is built from a request that compiled without error, and kept in a
``BoundedCache`` under its operation, its expression texts, its ExpressionAttributeNames
and the keys and types of its ExpressionAttributeValues. Every check that depends only on
those (syntax, reserved words, functions, undefined or unused placeholders, overlapping
paths, operand types, the structure of a key condition) therefore passed once and would
pass again. A later request with the same key reruns only what depends on the values'
contents: their validation, a condition's plan check (BETWEEN bounds, ...), the key
condition's value rules, and the substitution of the values. An UpdateExpression's checks
depend on nothing else, so its template only binds the request's values.

Any failure on this path returns None and the caller runs the full pipeline, which
raises the error the service would, with the same precedence: a template never raises a
validation error itself.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from dynemu.cache import BoundedCache

from ...errors import DynamoError
from .. import values as V
from . import ast
from .checks import ConditionPlan, ExprContext, UpdatePlan
from .evaluate import Condition, top_names
from .keycondition import KeyCondition, from_expression
from .legacy import KEY_VALUE_TYPES
from .project import Projection
from .resolve import Resolver
from .update import UpdateTemplate

# Distinct request shapes kept; an application has a few dozen, a fuzzer many more.
MAX_TEMPLATES = 2048
_TEMPLATES: BoundedCache[Template] = BoundedCache(MAX_TEMPLATES)

Values = dict[str, dict[str, Any]]
# every legacy parameter the full pipeline reads, whatever the operation
_LEGACY = frozenset(("Expected", "AttributeUpdates", "AttributesToGet", "QueryFilter", "ScanFilter", "KeyConditions",
                     "ConditionalOperator"))


def request_key(operation: str, request: dict[str, Any], params: tuple[str, ...]) -> Hashable | None:
    """The cache key of a request's expressions, or None when it may not use the cache
    (legacy parameters, no expression, placeholders that are not maps)."""
    if not _LEGACY.isdisjoint(request) and any(request.get(p) is not None for p in _LEGACY):
        return None
    texts = tuple(map(request.get, params))
    if texts.count(None) == len(texts):
        return None
    names = request.get("ExpressionAttributeNames")
    values = request.get("ExpressionAttributeValues")
    if (names is not None and not isinstance(names, dict)) or (values is not None and not isinstance(values, dict)):
        return None
    try:  # each value by its key and its members' names (its type, when it is valid)
        key = (operation, texts, tuple(names.items()) if names is not None else None,
               (tuple(values), tuple(map(tuple, values.values()))) if values is not None else None)
        hash(key)
    except TypeError:
        return None
    return key


lookup = _TEMPLATES.get  # key -> its Template, or None


def remember(key: Hashable, template: Template | None) -> None:
    if template is not None:
        _TEMPLATES.put(key, template)


def clear() -> None:
    _TEMPLATES.clear()


class _Ref:
    """Stands for an expression attribute value while a key condition's shape is derived."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


# (parameter, plan, tree or projection or key condition shape)
_Part = tuple[str, Any, Any]


class Template:
    """The value-independent result of a request's expressions (see the module docstring)."""

    __slots__ = ("parts",)

    def __init__(self, parts: tuple[_Part, ...]) -> None:
        self.parts = parts

    def instantiate(self, names: dict[str, str], values_raw: Values | None) -> dict[str, Any] | None:
        """The ``Compiled`` fields of one request with these values; None when any
        value-dependent check fails (the caller then raises through the full pipeline)."""
        try:
            values = V.validate_values(values_raw) if values_raw is not None else {}
            changes: dict[str, Any] = {}
            for parameter, plan, shape in self.parts:
                if parameter == "UpdateExpression":  # its checks read only the values' types
                    changes["update"] = shape.bind(values)
                elif parameter == "ProjectionExpression":
                    changes["projection"] = shape
                elif parameter == "KeyConditionExpression":
                    # The value rules of a key condition's plan (ordering and begins_with
                    # operand types, BETWEEN's bounds) are implied by the key value rules
                    # _key_condition applies, so the plan's check is not rerun here.
                    key_condition = _key_condition(shape, values)
                    if key_condition is None:
                        return None
                    changes["key_condition"] = key_condition
                else:
                    plan.check(ExprContext(parameter, names, values))
                    condition = Condition(_substitute(shape[0], values), shape[1])
                    if parameter in ("FilterExpression", "SearchConditionExpression"):
                        changes["filter"] = condition
                        changes["filter_parameter"] = parameter
                    else:
                        changes["condition"] = condition
            return changes
        except DynamoError:
            return None


def build(parts: list[tuple[str, Any, Any]], names: dict[str, str]) -> Template:
    """A template from the parsed expressions and plans of a request that compiled without
    error: ``(parameter, plan, parsed expression)`` in checking order."""
    out: list[_Part] = []
    for parameter, plan, parsed in parts:
        if parameter == "ProjectionExpression":
            paths = Resolver(names, {}).projection(parsed)
            out.append((parameter, None, Projection(tuple(p.elements for p in paths))))
        elif parameter == "KeyConditionExpression":
            assert isinstance(plan, ConditionPlan)
            out.append((parameter, plan, _key_shape(parsed, names)))
        elif parameter == "UpdateExpression":
            assert isinstance(plan, UpdatePlan)
            out.append((parameter, plan, UpdateTemplate(parsed, names)))
        else:  # a condition: bound to the names now, with a _Ref literal where each value goes
            assert isinstance(plan, ConditionPlan)
            refs = {ref: _Ref(ref) for ref in _value_refs(parsed)}
            tree = Resolver(names, refs).bind(parsed)  # type: ignore[arg-type]
            out.append((parameter, plan, (tree, top_names(tree))))
    return Template(tuple(out))


def _key_shape(node: ast.Node, names: dict[str, str]) -> tuple[tuple[str, str, tuple[str, ...]], ...]:
    """``(attribute, operator, value placeholders)`` per condition, in source order: the key
    condition ``from_expression`` makes, with placeholders where the values go."""
    refs = {ref: _Ref(ref) for ref in _value_refs(node)}
    bound = from_expression(Resolver(names, refs).bind(node))  # type: ignore[arg-type]
    return tuple((name, op, tuple(v.name for v in vals))  # type: ignore[attr-defined]
                 for name, (op, vals) in bound.conditions.items())


def _value_refs(node: ast.Node) -> list[str]:
    from .checks import walk

    return [n.name for n in walk(node) if isinstance(n, ast.ValueRef)]


def _key_condition(shape: tuple[tuple[str, str, tuple[str, ...]], ...], values: Values) -> KeyCondition | None:
    """The key condition with this request's values, or None when a value breaks the rules
    ``legacy.check_key_condition_values`` applies (one type per condition, the types each
    operator takes, BETWEEN's order)."""
    conditions: dict[str, tuple[str, tuple[dict[str, Any], ...]]] = {}
    for name, op, refs in shape:
        vals = tuple([values[r] for r in refs])
        allowed = KEY_VALUE_TYPES.get(op, ())
        first = V.value_type(vals[0])
        for v in vals:
            t = V.value_type(v)
            if t != first or t not in allowed:
                return None
        if op == "BETWEEN" and (V.compare_values(vals[0], vals[1]) or 0) > 0:
            return None
        conditions[name] = (op, vals)
    return KeyCondition(conditions)


def _substitute(node: ast.Node, values: Values) -> ast.Node:
    """The bound tree of a condition: ``node`` (already bound to the names) with each _Ref
    literal replaced by the request's value (what ``Resolver.bind`` makes of the parse)."""
    return _SUBSTITUTE[type(node)](node, values)


def _literal(n: ast.Literal, values: Values) -> ast.Node:
    ref = n.value
    return ast.Literal(values[ref.name]) if type(ref) is _Ref else n  # type: ignore[attr-defined]


_SUBSTITUTE: dict[type, Any] = {
    ast.Path: lambda n, v: n,
    ast.Literal: _literal,
    ast.Func: lambda n, v: ast.Func(n.name, tuple([_substitute(a, v) for a in n.args])),
    ast.Arith: lambda n, v: ast.Arith(n.op, _substitute(n.left, v), _substitute(n.right, v)),
    ast.Compare: lambda n, v: ast.Compare(n.op, _substitute(n.left, v), _substitute(n.right, v)),
    ast.Between: lambda n, v: ast.Between(_substitute(n.operand, v), _substitute(n.low, v), _substitute(n.high, v)),
    ast.In: lambda n, v: ast.In(_substitute(n.operand, v), tuple([_substitute(o, v) for o in n.options])),
    ast.And: lambda n, v: ast.And(tuple([_substitute(i, v) for i in n.items])),
    ast.Or: lambda n, v: ast.Or(tuple([_substitute(i, v) for i in n.items])),
    ast.Not: lambda n, v: ast.Not(_substitute(n.operand, v)),
}
