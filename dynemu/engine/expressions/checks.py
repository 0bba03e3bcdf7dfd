"""Named validation passes over a parsed expression, run in DynamoDB's priority order.

``*_plan`` walks a finished tree once (cached with the parse, by text) and records what the
per-request ``Plan.check(ctx)`` needs; ``check`` raises the first error of the
highest-priority category, as the live service reports it (the order was established by
probing DynamoDB; the sources are named in tests/test_expressions_errors.py):

* condition / filter / key condition: redundant parentheses, operator count, unknown or
  out-of-context function, misused function, reserved word, then per comparison in
  source order: undefined placeholder, operand count, distinct operands, operand types;
* update: reserved word, unknown or out-of-context function, operator count, repeated
  section, undefined name, undefined value, overlapping paths, conflicting paths,
  ADD/DELETE operand type, function operands;
* projection: reserved word, undefined name, overlapping paths, conflicting paths.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ... import errors
from ...errors import DynamoError, validation
from .. import values as V
from . import ast
from .reserved import is_reserved

CONDITION_FUNCTIONS = {"attribute_exists": 1, "attribute_not_exists": 1, "attribute_type": 2,
                       "begins_with": 2, "contains": 2, "size": 1}
UPDATE_FUNCTIONS = {"if_not_exists": 2, "list_append": 2}
ATTRIBUTE_TYPES = ("S", "N", "B", "NULL", "SS", "BOOL", "L", "BS", "NS", "M")
ORDERING = ("<", "<=", ">", ">=")
MAX_OPERATORS = 300
MAX_IN_OPERANDS = 100
# The service stops counting at the first operator past the limit, so the count it reports
# is always 301, however long the expression (aws/aws-sdk-js#3721; scylladb/scylladb#14473,
# where 409 nested "<" also report 301).
TOO_MANY_OPERATORS = errors.msg_too_many_operators(MAX_OPERATORS + 1)
_TYPE_WORDS = {"S": "STRING", "N": "NUMBER", "B": "BINARY", "NULL": "NULL", "BOOL": "BOOLEAN",
               "L": "LIST", "M": "MAP"}


@dataclass(slots=True)
class ExprContext:
    """One expression parameter being checked: its name and the request's placeholders."""

    kind: str  # "ConditionExpression", "UpdateExpression", ...
    names: dict[str, str]
    values: dict[str, dict[str, Any]]

    def error(self, detail: str) -> DynamoError:
        return validation(errors.msg_invalid_expression(self.kind, detail))

    def request_error(self, detail: str) -> DynamoError:
        """``error`` as a request check (an empty expression, an undefined placeholder):
        the single-item writes answer it in the validation envelope (docs/rules.md)."""
        return errors.request_check(errors.msg_invalid_expression(self.kind, detail))

    def resolve(self, elements: tuple[ast.PathElement, ...]) -> tuple[ast.PathElement, ...]:
        names = self.names
        return tuple(names.get(e, e) if isinstance(e, str) and e[:1] == "#" else e for e in elements)


# --- tree walking -------------------------------------------------------------------------


def _children(node: ast.Node) -> tuple[ast.Node, ...]:
    if isinstance(node, ast.Paren | ast.Not):
        return (node.inner if isinstance(node, ast.Paren) else node.operand,)
    if isinstance(node, ast.And | ast.Or):
        return node.items
    if isinstance(node, ast.Compare | ast.Arith):
        return (node.left, node.right)
    if isinstance(node, ast.Between):
        return (node.operand, node.low, node.high)
    if isinstance(node, ast.In):
        return (node.operand, *node.options)
    if isinstance(node, ast.Func):
        return node.args
    return ()


def walk(node: ast.Node) -> Iterator[ast.Node]:
    """Pre-order, source order. Depth is bounded by the parser's MAX_DEPTH."""
    yield node
    for child in _children(node):
        yield from walk(child)


def _leaves(node: ast.Node) -> Iterator[ast.Node]:
    """The comparisons and function conditions of a condition, in source order."""
    node = ast.strip_parens(node)
    if isinstance(node, ast.And | ast.Or):
        for item in node.items:
            yield from _leaves(item)
    elif isinstance(node, ast.Not):
        yield from _leaves(node.operand)
    else:
        yield node


leaves = _leaves  # the same walk, for SearchVectors' filter checks (engine/vectors/condition.py)


def static_type(node: ast.Node, ctx: ExprContext, immediate: bool = False) -> str | None:
    """The type an operand is known to have before evaluation, if any."""
    node = ast.strip_parens(node)
    if isinstance(node, ast.ValueRef):
        value = ctx.values.get(node.name)
        return V.value_type(value) if value is not None else None
    if isinstance(node, ast.Literal):
        return V.value_type(node.value)
    if immediate:
        return None
    if isinstance(node, ast.Func):
        if node.name == "size":
            return "N"
        if node.name == "list_append":
            return "L"
        if node.name == "if_not_exists" and len(node.args) == 2:
            return static_type(node.args[1], ctx)
        return "BOOL" if node.name in ("begins_with", "attribute_type", "contains") else None
    if isinstance(node, ast.Arith):
        return "N"
    return None


def _reserved(nodes: list[ast.Node]) -> str | None:
    for node in nodes:
        if isinstance(node, ast.Path):
            for element in node.elements:
                if isinstance(element, str) and element[:1] != "#" and is_reserved(element):
                    return errors.msg_reserved_keyword(element)
    return None


def count_operators(nodes: list[ast.Node]) -> int:
    count = 0
    for n in nodes:
        if isinstance(n, ast.And | ast.Or):
            count += len(n.items) - 1
        elif isinstance(n, ast.Compare | ast.Between | ast.In | ast.Not | ast.Func | ast.Arith):
            count += 1
    return count


# --- conditions ---------------------------------------------------------------------------
#
# Everything that depends only on the expression text is computed once per text (the plan,
# cached with the parse); a request then only checks its placeholders against the plan.


@dataclass(frozen=True, slots=True)
class _Leaf:
    """One comparison or function condition, with what its request-time checks need."""

    node: ast.Node
    refs: tuple[str, ...]  # "#name" and ":value" placeholders, in source order
    count_error: str | None
    pairs: tuple[tuple[str, tuple[ast.PathElement, ...], tuple[ast.PathElement, ...]], ...]
    functions: tuple[ast.Func, ...]


@dataclass(frozen=True, slots=True)
class ConditionPlan:
    """What a condition (or filter, or key condition) text needs checked per request, once the
    checks that depend only on the text are done (``static_error``)."""

    static_error: str | None  # parentheses, operator count, functions, reserved words
    leaves: tuple[_Leaf, ...]

    def check(self, ctx: ExprContext) -> None:
        if self.static_error:
            raise ctx.error(self.static_error)
        for leaf in self.leaves:
            detail = _undefined(leaf.refs, ctx)
            if detail:
                raise ctx.request_error(detail)
            detail = leaf.count_error or _distinct(leaf.pairs, ctx) or _operand_types(leaf, ctx)
            if detail:
                raise ctx.error(detail)


def condition_plan(root: ast.Node) -> ConditionPlan:
    nodes = list(walk(root))
    leaves = list(_leaves(root))
    return ConditionPlan(_condition_static_error(root, nodes, leaves), tuple(_leaf(leaf) for leaf in leaves))


def _condition_static_error(root: ast.Node, nodes: list[ast.Node], leaves: list[ast.Node]) -> str | None:
    for n in nodes:
        if isinstance(n, ast.Paren) and isinstance(n.inner, ast.Paren):
            return errors.MSG_REDUNDANT_PARENTHESES
    if count_operators(nodes) > MAX_OPERATORS:
        return TOO_MANY_OPERATORS
    foreign = _foreign_function(nodes, CONDITION_FUNCTIONS, UPDATE_FUNCTIONS, "a condition")
    return foreign or _misused_function(leaves) or _reserved(nodes) or _index_range(nodes)


def _foreign_function(nodes: list[ast.Node], allowed: dict[str, int], other: dict[str, int], where: str) -> str | None:
    """The first function call not ``allowed`` here: one of the ``other`` expression's
    functions ("not allowed to be used in <where>"), else an unknown one."""
    for n in nodes:
        if isinstance(n, ast.Func) and n.name not in allowed:
            if n.name in other:
                return errors.msg_function_not_allowed(where, n.name)
            return errors.msg_invalid_function(n.name)
    return None


def _misused_function(leaves: list[ast.Node]) -> str | None:
    """Only ``size`` may be an operand; ``size`` alone is not a condition."""
    for leaf in leaves:
        if isinstance(leaf, ast.Func) and leaf.name == "size":
            return errors.msg_function_misused("size")
        operands = [] if isinstance(leaf, ast.Func) else list(_children(leaf))
        operands.extend(arg for func in _functions(leaf) for arg in func.args)
        for operand in operands:
            operand = ast.strip_parens(operand)
            if isinstance(operand, ast.Func) and operand.name != "size":
                return errors.msg_function_misused(operand.name)
    return None


def _functions(node: ast.Node) -> tuple[ast.Func, ...]:
    return tuple(n for n in walk(node) if isinstance(n, ast.Func))


def _leaf(node: ast.Node) -> _Leaf:
    functions = _functions(node)
    count_error = None
    for func in functions:
        expected = CONDITION_FUNCTIONS.get(func.name) or UPDATE_FUNCTIONS.get(func.name)
        if expected is not None and expected != len(func.args):
            count_error = _count_error(func)
            break
    candidates: list[tuple[str, tuple[ast.Node, ...]]] = []
    if isinstance(node, ast.Compare):
        candidates.append((node.op, (node.left, node.right)))
    candidates.extend((f.name, f.args) for f in functions)
    pairs = []
    for name, args in candidates:
        if len(args) == 2:
            first, second = (ast.strip_parens(a) for a in args)
            if isinstance(first, ast.Path) and isinstance(second, ast.Path):
                pairs.append((name, first.elements, second.elements))
    return _Leaf(node, _refs(node), count_error, tuple(pairs), functions)


def _refs(node: ast.Node) -> tuple[str, ...]:
    refs: list[str] = []
    for n in walk(node):
        if isinstance(n, ast.Path):
            refs.extend(e for e in n.elements if isinstance(e, str) and e[:1] == "#")
        elif isinstance(n, ast.ValueRef):
            refs.append(n.name)
    return tuple(refs)


def _count_error(func: ast.Func) -> str:
    return errors.msg_operand_count(func.name, len(func.args))


def _undefined(refs: tuple[str, ...], ctx: ExprContext) -> str | None:
    for ref in refs:
        if ref[0] == "#":
            if ref not in ctx.names:
                return errors.msg_undefined_name(ref)
        elif ref not in ctx.values:
            return errors.msg_undefined_value(ref)
    return None


def _distinct(pairs: tuple[tuple[str, tuple[ast.PathElement, ...], tuple[ast.PathElement, ...]], ...],
              ctx: ExprContext) -> str | None:
    for name, first, second in pairs:
        elements = ctx.resolve(first)
        if elements == ctx.resolve(second):
            return errors.msg_operands_not_distinct(name, ast.path_str(elements))
    return None


def _operand_types(leaf: _Leaf, ctx: ExprContext) -> str | None:
    for func in leaf.functions:
        detail = _function_types(func, ctx)
        if detail:
            return detail
    node = leaf.node
    detail = _unorderable(node, ctx)
    if detail:
        return detail
    if isinstance(node, ast.Between):
        return _between_bounds(node, ctx)
    if isinstance(node, ast.In) and len(node.options) > MAX_IN_OPERANDS:
        return errors.msg_too_many_in_operands(len(node.options))
    return None


def _unorderable(node: ast.Node, ctx: ExprContext) -> str | None:
    """Ordering (<, <=, >, >=, BETWEEN) is defined only on S, N and B: an expression value of
    another type is a ValidationException, while an item attribute of that type just compares
    false (issue 12; ExtendDB/extenddb#216 as measured against the service)."""
    if isinstance(node, ast.Compare) and node.op in ORDERING:
        name, operands = node.op, (node.left, node.right)
    elif isinstance(node, ast.Between):
        name, operands = "BETWEEN", (node.operand, node.low, node.high)
    else:
        return None
    for operand in operands:
        t = static_type(operand, ctx, immediate=True)
        if t is not None and t not in ("S", "N", "B"):
            return _type_error(name, t)
    return None


def _type_error(name: str, type_name: str) -> str:
    return errors.msg_operand_type(name, type_name)


def _function_types(func: ast.Func, ctx: ExprContext) -> str | None:
    name, args = func.name, func.args
    if name in ("attribute_exists", "attribute_not_exists", "if_not_exists"):
        if not isinstance(ast.strip_parens(args[0]), ast.Path):
            return errors.msg_needs_document_path(name)
    elif name == "begins_with":
        for arg in args:
            t = static_type(arg, ctx)
            if t is not None and t not in ("S", "B"):
                return _type_error(name, t)
    elif name == "attribute_type":
        t = static_type(args[1], ctx)
        if t != "S":
            return _type_error(name, t or "{NS,SS,L,BS,N,M,B,BOOL,NULL,S}")
        type_name = _literal(args[1], ctx)["S"]  # type: ignore[index]
        if type_name not in ATTRIBUTE_TYPES:
            return errors.msg_invalid_type_name(type_name)
    elif name == "size":
        t = static_type(args[0], ctx)
        if t in ("N", "BOOL", "NULL"):
            return _type_error(name, t)
    elif name == "list_append":
        for arg in args:
            t = static_type(arg, ctx, immediate=True)
            if t is not None and t != "L":
                return _type_error(name, t)
    return None


def _literal(node: ast.Node, ctx: ExprContext) -> dict[str, Any] | None:
    node = ast.strip_parens(node)
    if isinstance(node, ast.ValueRef):
        return ctx.values.get(node.name)
    if isinstance(node, ast.Literal):
        return node.value
    return None


def format_value(value: dict[str, Any]) -> str:
    """``{N:5}`` as DynamoDB prints an attribute value in BETWEEN messages."""
    (type_name, raw), = value.items()
    if isinstance(raw, bool):
        raw = "true" if raw else "false"
    elif isinstance(raw, list):
        raw = ",".join(str(x) for x in raw)
    return f"{{{type_name}:{raw}}}"


def _between_bounds(node: ast.Between, ctx: ExprContext) -> str | None:
    low, high = _literal(node.low, ctx), _literal(node.high, ctx)
    if low is None or high is None:
        return None
    if V.value_type(low) != V.value_type(high):
        return errors.msg_between_types(format_value(low), format_value(high))
    order = V.compare_values(low, high)
    if order is not None and order > 0:
        return errors.msg_between_order(format_value(low), format_value(high))
    return None


# --- updates --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UpdatePlan:
    """What an update expression text needs checked per request (its names, values, paths
    and operands), once the checks that depend only on the text are done."""

    static_error: str | None  # reserved words, functions, operator count, repeated sections
    names: tuple[str, ...]
    values: tuple[str, ...]
    paths: tuple[tuple[ast.PathElement, ...], ...]
    operands: tuple[tuple[str, ast.Node], ...]  # ADD / DELETE operands
    functions: tuple[ast.Func | ast.Arith, ...]

    def check(self, ctx: ExprContext) -> None:
        if self.static_error:
            raise ctx.error(self.static_error)
        detail = _undefined(self.names, ctx) or _undefined(self.values, ctx)
        if detail:
            raise ctx.request_error(detail)
        check_paths([ctx.resolve(p) for p in self.paths], ctx)
        for kind, operand in self.operands:
            t = static_type(operand, ctx)
            if t in _TYPE_WORDS and not (kind == "ADD" and t == "N"):
                raise ctx.error(errors.msg_update_operand_type(kind, _TYPE_WORDS[t]))
        for node in self.functions:
            detail = _update_function(node, ctx)
            if detail:
                raise ctx.error(detail)


def update_plan(expr: ast.UpdateExpr) -> UpdatePlan:
    actions = expr.actions
    nodes = [n for a in actions for root in (a.path, a.value) if root is not None for n in walk(root)]
    refs = _refs_of(nodes)
    return UpdatePlan(
        _update_static_error(expr, nodes),
        tuple(r for r in refs if r[0] == "#"),
        tuple(r for r in refs if r[0] == ":"),
        tuple(a.path.elements for a in actions),
        tuple((a.kind, a.value) for a in actions if a.kind in ("ADD", "DELETE") and a.value is not None),
        tuple(n for n in nodes if isinstance(n, ast.Func | ast.Arith)),
    )


def _refs_of(nodes: list[ast.Node]) -> list[str]:
    refs: list[str] = []
    for n in nodes:
        if isinstance(n, ast.Path):
            refs.extend(e for e in n.elements if isinstance(e, str) and e[:1] == "#")
        elif isinstance(n, ast.ValueRef):
            refs.append(n.name)
    return refs


def _update_static_error(expr: ast.UpdateExpr, nodes: list[ast.Node]) -> str | None:
    reserved = _reserved(nodes) or _index_range(nodes)
    if reserved:
        return reserved
    foreign = _foreign_function(nodes, UPDATE_FUNCTIONS, CONDITION_FUNCTIONS, "an update")
    if foreign:
        return foreign
    if count_operators(nodes) > MAX_OPERATORS:
        return TOO_MANY_OPERATORS
    for n in nodes:  # list_append(list_append(...), ...) parses, but the service refuses it (issue 24)
        if isinstance(n, ast.Func) and n.name == "list_append" and any(
            isinstance(a, ast.Func) and a.name == "list_append" for a in map(ast.strip_parens, n.args)
        ):
            return errors.msg_function_misused("list_append")
    seen: set[str] = set()
    for keyword, _ in expr.sections:
        if keyword in seen:
            return f'The "{keyword}" section can only be used once in an update expression;'
        seen.add(keyword)
    return None


def _update_function(node: ast.Node, ctx: ExprContext) -> str | None:
    if isinstance(node, ast.Arith):
        for arg in (node.left, node.right):
            t = static_type(arg, ctx, immediate=True)
            if t is not None and t != "N":
                return _type_error(node.op, t)
    elif isinstance(node, ast.Func):
        if UPDATE_FUNCTIONS[node.name] != len(node.args):
            return _count_error(node)
        return _function_types(node, ctx)
    return None


# --- projections and shared path rules ---------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ProjectionPlan:
    """What a projection expression text needs checked per request (its names and paths)."""

    static_error: str | None  # reserved words
    names: tuple[str, ...]
    paths: tuple[tuple[ast.PathElement, ...], ...]

    def check(self, ctx: ExprContext) -> None:
        if self.static_error:
            raise ctx.error(self.static_error)
        detail = _undefined(self.names, ctx)
        if detail:
            raise ctx.request_error(detail)
        check_paths([ctx.resolve(p) for p in self.paths], ctx)


def projection_plan(expr: ast.ProjectionExpr) -> ProjectionPlan:
    paths = list(expr.paths)
    static = _reserved(paths) or _too_deep(paths) or _index_range(paths)  # type: ignore[arg-type]
    return ProjectionPlan(static, tuple(_refs_of(paths)), tuple(p.elements for p in paths))


# "Maximum depth of a document path: 32" (developer guide, Constraints, expression
# parameters); each dereference, `.name` or `[n]`, is one level. The wording follows the
# service's "detail; key: value" form; no capture of it was found (issue 12 report).
MAX_PATH_DEPTH = 32


# A list index is read as a 32-bit signed integer: a larger one is refused, as the service
# answers "a[99999999999999]" (issue 24, observed against the service).
MAX_LIST_INDEX = 2**31 - 1


def _index_range(nodes: list[ast.Node]) -> str | None:
    for n in nodes:
        if isinstance(n, ast.Path):
            for element in n.elements:
                if isinstance(element, int) and element > MAX_LIST_INDEX:
                    return errors.msg_list_index_range(element)
    return None


def _too_deep(paths: list[ast.Path]) -> str | None:
    for path in paths:
        if len(path.elements) > MAX_PATH_DEPTH:
            return errors.msg_path_too_deep(len(path.elements))
    return None


def check_paths(paths: list[tuple[ast.PathElement, ...]], ctx: ExprContext) -> None:
    """Document paths of one update or projection must neither overlap nor conflict."""
    if len(paths) < 2 or not _may_clash(paths):
        return
    conflict: str | None = None
    for i, second in enumerate(paths):
        for first in paths[:i]:
            relation = _relation(first, second)
            if relation == "overlap":
                raise ctx.error(errors.msg_paths_overlap(ast.path_str(first), ast.path_str(second)))
            if relation == "conflict" and conflict is None:
                conflict = errors.msg_paths_conflict(ast.path_str(first), ast.path_str(second))
    if conflict:
        raise ctx.error(conflict)


_END = object()


def _may_clash(paths: list[tuple[ast.PathElement, ...]]) -> bool:
    """Linear pre-check with a trie; the exact (quadratic) search runs only when it finds something."""
    root: dict[Any, Any] = {}
    for path in paths:
        node = root
        for element in path:
            if _END in node:
                return True  # an earlier path is a prefix of this one
            kinds = node.setdefault(type, type(element))
            if kinds is not type(element):
                return True  # list index where another path has a map member, or the reverse
            node = node.setdefault(element, {})
        if len(node) > 0:
            return True  # this path is a prefix of (or equal to) an earlier one
        node[_END] = True
    return False


def _relation(first: tuple[ast.PathElement, ...], second: tuple[ast.PathElement, ...]) -> str | None:
    for a, b in zip(first, second, strict=False):
        if type(a) is not type(b):
            return "conflict"  # one path indexes a list where the other names a map member
        if a != b:
            return None
    return "overlap"  # one path is a prefix of (or equal to) the other
