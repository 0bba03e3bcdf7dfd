"""Translation of parsed PartiQL statements into the engine's requests.

Developer guide, "PartiQL select statements": a SELECT whose WHERE clause fixes the partition
key with ``=`` or ``IN`` (or ``OR`` of such equalities) reads those partitions (a Query, a
sort-key condition narrowing the range); any other SELECT reads the whole table or index
(a Scan). The whole WHERE clause is then the filter, evaluated by the expression engine.
"UPDATE", "DELETE": the WHERE clause must fix every key attribute with ``=`` (one item);
the rest of it is the write's condition. INSERT is a put on the condition that no item has
the key ("INSERT": DuplicateItemException otherwise).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from dynemu import errors
from dynemu.engine import values as V
from dynemu.engine.expressions import Condition, Projection, SortCondition, Update
from dynemu.engine.expressions import ast as ex
from dynemu.engine.expressions.checks import ExprContext, check_paths
from dynemu.engine.partiql import ast
from dynemu.engine.partiql.numbers import check_parameter_numbers
from dynemu.engine.partiql.parser import Parsed, build
from dynemu.engine.partiql.select_list import select_list

Item = dict[str, Any]
Value = dict[str, Any]
KeySchema = Sequence[tuple[str, ...]]  # (name, HASH|RANGE, type), as TableSpec.key_schema

# "IN ... at max 50 hash attribute values or at max 100 non-key attribute values"
# ("PartiQL arithmetic, comparison, and logical operators for DynamoDB"); the messages are dynemu's.
MAX_IN_KEYS = 50
MAX_IN_VALUES = 100
_SORT_OPS = {"=": "EQ", "<": "LT", "<=": "LE", ">": "GT", ">=": "GE"}
_FLIP = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


# --- plans: what the operations layer hands to the engine's read and write paths ----------------


@dataclass(frozen=True, slots=True)
class ReadPlan:
    """A SELECT: ``partitions`` None means a Scan, else one Query per partition key value
    (none when the WHERE clause fixes the partition key to values of another type)."""

    table: str
    index: str | None
    partitions: tuple[Value, ...] | None
    sort: SortCondition | None
    filter: Condition | None
    projection: Projection | None
    forward: bool = True

    @property
    def is_scan(self) -> bool:
        return self.partitions is None


@dataclass(frozen=True, slots=True)
class KeyedPlan:
    """One item by its full key: ``kind`` is put, update, delete, check (EXISTS) or get."""

    kind: str
    table: str
    key: Item  # the key attributes (put: the whole item)
    condition: Condition | None = None
    update: Update | None = None
    projection: Projection | None = None
    returning: str | None = None
    item_size: int = 0  # put: the item's size


# --- parameters ---------------------------------------------------------------------------------


def bind(parsed: Parsed, parameters: list[Any] | None) -> ast.Statement:
    """The statement with every ``?`` replaced by its parameter, in order."""
    given = parameters or []
    if len(given) != parsed.parameters:
        raise errors.validation(errors.MSG_PARAMETERS)
    if not given:
        return parsed.statement
    return _bind_statement(parsed.statement, [_parameter(p) for p in given])


def _parameter(value: Any) -> Value:
    """A parameter, checked: its numbers by PartiQL's rule first (numbers.py), then the value
    rules. A parameter nested deeper than an item may be is accepted as it is (issue 36 §3:
    the service accepts one nested 100 levels); an item that holds it is refused when
    written, by the item's own check."""
    check_parameter_numbers(value)
    try:
        return V.validate_value(value)
    except errors.DynamoError as e:
        if e.message != errors.MSG_NESTING:
            raise
        return value  # type: ignore[no-any-return]


def _bind_statement(s: ast.Statement, params: list[Value]) -> ast.Statement:
    b = _Binder(params)
    if isinstance(s, ast.Select):
        return _bind_select(s, b)
    if isinstance(s, ast.Exists):
        return ast.Exists(_bind_select(s.select, b))
    if isinstance(s, ast.Insert):
        return ast.Insert(s.table, b(s.value))
    if isinstance(s, ast.Update):
        actions = tuple(ex.Action(a.kind, a.path, b(a.value) if a.value is not None else None) for a in s.actions)
        return ast.Update(s.table, actions, _bind_where(s.where, b), s.returning)
    return ast.Delete(s.table, _bind_where(s.where, b), s.returning)


def _bind_where(where: ex.Node | None, b: _Binder) -> ex.Node | None:
    return b(where) if where is not None else None


def _bind_select(s: ast.Select, b: _Binder) -> ast.Select:
    return ast.Select(s.source, s.projection, _bind_where(s.where, b), s.order_by)


class _Binder:
    def __init__(self, params: list[Value]) -> None:
        self.params = params

    def __call__(self, n: Any) -> Any:
        if isinstance(n, ex.ValueRef):
            return ex.Literal(self.params[int(n.name[1:]) - 1])
        if isinstance(n, ast.Composite):
            entries = [(k, self(v).value) for k, v in n.entries]
            return ex.Literal(build(n.kind, entries))
        if isinstance(n, (ex.Path, ex.Literal)):
            return n
        if isinstance(n, ast.SetOperand):
            bound = self(n.value)
            if next(iter(bound.value)) not in _SET_TYPES:
                raise errors.validation(errors.msg_set_function_value(n.function, n.position))
            return bound
        if isinstance(n, ex.Func):
            return ex.Func(n.name, tuple(self(a) for a in n.args))
        if isinstance(n, ex.Arith):
            return ex.Arith(n.op, self(n.left), self(n.right))
        if isinstance(n, ex.Compare):
            return ex.Compare(n.op, self(n.left), self(n.right))
        if isinstance(n, ex.Between):
            return ex.Between(self(n.operand), self(n.low), self(n.high))
        if isinstance(n, ex.In):
            return ex.In(self(n.operand), tuple(self(o) for o in n.options))
        if isinstance(n, (ex.And, ex.Or)):
            return type(n)(tuple(self(i) for i in n.items))
        if isinstance(n, ex.Not):
            return ex.Not(self(n.operand))
        raise TypeError(f"unexpected node {n!r}")


# --- what the engine evaluates -------------------------------------------------------------------

# Functions a condition may call, and those an operand of a condition may be; SET values
# may use list_append, set_add and set_delete ("Using PartiQL functions with DynamoDB").
_CONDITION_FUNCTIONS = frozenset(("begins_with", "contains", "attribute_type", "attribute_exists",
                                  "attribute_not_exists"))
_SET_TYPES = ("SS", "NS", "BS")


def unsupported(what: str) -> errors.DynamoError:
    return errors.validation(errors.msg_partiql_unsupported(what))


def check_condition(node: ex.Node) -> None:
    """Refuse what a WHERE clause cannot hold before the engine compiles it."""
    if isinstance(node, (ex.And, ex.Or)):
        for item in node.items:
            check_condition(item)
    elif isinstance(node, ex.Not):
        check_condition(node.operand)
    elif isinstance(node, ex.Compare):
        _check_operand(node.left)
        _check_operand(node.right)
        if node.op in _ORDERING:
            _check_ordered(node.op, (node.left, node.right))
    elif isinstance(node, ex.Between):
        for operand in (node.operand, node.low, node.high):
            _check_operand(operand)
        _check_ordered("BETWEEN", (node.operand, node.low, node.high))
    elif isinstance(node, ex.In):
        if len(node.options) > MAX_IN_VALUES:
            raise errors.validation(errors.msg_in_values(MAX_IN_VALUES, len(node.options)))
        for operand in (node.operand, *node.options):
            _check_operand(operand)
    elif isinstance(node, ex.Func) and node.name in _CONDITION_FUNCTIONS:
        for operand in node.args:
            _check_operand(operand)
    elif isinstance(node, ex.Func):
        raise unsupported(errors.unsupported_where_function(node.name))
    else:
        raise unsupported(errors.UNSUPPORTED_NOT_CONDITION)


_ORDERING = frozenset(("<", "<=", ">", ">="))
_UNORDERED = frozenset(("BOOL", "NULL", "L", "M", "SS", "NS", "BS"))


def _check_ordered(operator: str, operands: tuple[ex.Node, ...]) -> None:
    """``< <= > >=`` and BETWEEN order strings, numbers and binaries only: a literal of another
    type is refused, naming the operator as written (issue 37). UNSURE: the wording is
    ConditionExpression's for the same refusal, without its "Invalid ConditionExpression: "."""
    for operand in operands:
        if isinstance(operand, ex.Literal):
            kind = next(iter(operand.value))
            if kind in _UNORDERED:
                raise errors.validation(errors.msg_operand_type(operator, kind))


def _check_operand(node: ex.Node) -> None:
    if isinstance(node, ex.Func) and node.name == "size":
        if not isinstance(node.args[0], ex.Path):
            raise unsupported(errors.UNSUPPORTED_SIZE_OPERAND)
    elif isinstance(node, ex.Arith):
        raise unsupported(errors.UNSUPPORTED_WHERE_ARITHMETIC)
    elif isinstance(node, ex.Func):
        raise unsupported(errors.unsupported_operand_function(node.name))


def check_actions(actions: tuple[ex.Action, ...]) -> None:
    """SET values the update engine can compute; set_add / set_delete take a set; the paths
    of one UPDATE neither overlap nor conflict (UpdateExpression's rule and message, without
    its "Invalid UpdateExpression: " prefix)."""
    ctx = ExprContext("UpdateExpression", {}, {})
    try:
        check_paths([a.path.elements for a in actions], ctx)
    except errors.DynamoError as e:
        raise errors.validation(e.message.removeprefix(ctx.error("").message)) from None
    for a in actions:
        if a.kind in ("ADD", "DELETE"):
            value = a.value
            if not (isinstance(value, ex.Literal) and next(iter(value.value)) in _SET_TYPES):
                name = "set_add" if a.kind == "ADD" else "set_delete"
                raise unsupported(errors.unsupported_set_function(name))
        elif a.kind == "SET":
            _check_set_value(a.value)  # type: ignore[arg-type]


def _check_set_value(node: ex.Node) -> None:
    if isinstance(node, (ex.Literal, ex.Path)):
        return
    if isinstance(node, ex.Arith):
        _check_set_value(node.left)
        _check_set_value(node.right)
    elif isinstance(node, ex.Func) and node.name == "list_append":
        for arg in node.args:
            _check_set_value(arg)
    elif isinstance(node, ex.Func):
        raise unsupported(errors.unsupported_set_clause_function(node.name))
    else:
        raise unsupported(errors.UNSUPPORTED_SET_VALUE)


# --- WHERE clauses --------------------------------------------------------------------------------


def conjuncts(node: ex.Node | None) -> list[ex.Node]:
    if node is None:
        return []
    if isinstance(node, ex.And):
        return [c for item in node.items for c in conjuncts(item)]
    return [node]


def _key_side(node: ex.Node, names: Sequence[str]) -> tuple[str, ex.Literal] | None:
    """``name = literal`` (either way round) for a top-level key attribute ``name``."""
    if not (isinstance(node, ex.Compare) and node.op == "="):
        return None
    for path, lit in ((node.left, node.right), (node.right, node.left)):
        if isinstance(path, ex.Path) and isinstance(lit, ex.Literal) and len(path.elements) == 1:
            if path.elements[0] in names:
                return path.elements[0], lit  # type: ignore[return-value]
    return None


def split_key(where: ex.Node | None, key_names: Sequence[str]) -> tuple[Item, ex.Node | None]:
    """The full key fixed by ``=`` in the WHERE clause's conjunction, and the rest of it."""
    key: Item = {}
    rest: list[ex.Node] = []
    for c in conjuncts(where):
        found = _key_side(c, key_names)
        if found is not None and found[0] not in key:
            key[found[0]] = found[1].value
        else:
            rest.append(c)
    if set(key) != set(key_names):
        raise errors.validation(errors.MSG_INCOMPLETE_KEY)
    if not rest:
        return key, None
    return key, rest[0] if len(rest) == 1 else ex.And(tuple(rest))


def _partition_values(where: ex.Node | None, pk: str, pk_type: str) -> list[Value] | None:
    for c in conjuncts(where):
        options = _equalities(c, pk)
        if options is not None:
            if len(options) > MAX_IN_KEYS:
                raise errors.validation(errors.msg_in_keys(MAX_IN_KEYS, len(options)))
            unique: dict[bytes, Value] = {}
            for v in options:
                if pk_type in v:  # a value of another type matches no item
                    unique.setdefault(orjson.dumps(v, option=orjson.OPT_SORT_KEYS), v)
            return list(unique.values())
    return None


def _equalities(node: ex.Node, pk: str) -> list[Value] | None:
    """The partition key values ``node`` allows, if it allows only those: ``pk = v``,
    ``pk IN [...]`` or an OR of these."""
    side = _key_side(node, (pk,))
    if side is not None:
        return [side[1].value]
    if isinstance(node, ex.In) and isinstance(node.operand, ex.Path) and node.operand.elements == (pk,):
        if all(isinstance(o, ex.Literal) for o in node.options):
            return [o.value for o in node.options]  # type: ignore[union-attr]
    if isinstance(node, ex.Or):
        found: list[Value] = []
        for item in node.items:
            values = _equalities(item, pk)
            if values is None:
                return None
            found.extend(values)
        return found
    return None


def _sort_condition(where: ex.Node | None, sk: str, sk_type: str) -> SortCondition | None:
    """A sort-key condition of the conjunction that narrows the range read."""
    for c in conjuncts(where):
        if isinstance(c, ex.Compare) and c.op in _SORT_OPS:
            for path, lit, op in ((c.left, c.right, c.op), (c.right, c.left, _FLIP[c.op])):
                if _is_key(path, sk) and isinstance(lit, ex.Literal) and sk_type in lit.value:
                    return SortCondition(sk, _SORT_OPS[op], (lit.value,))
        elif isinstance(c, ex.Between) and _is_key(c.operand, sk):
            if all(isinstance(b, ex.Literal) and sk_type in b.value for b in (c.low, c.high)):
                low, high = c.low.value, c.high.value  # type: ignore[union-attr]
                if (V.compare_values(low, high) or 0) <= 0:
                    return SortCondition(sk, "BETWEEN", (low, high))
        elif isinstance(c, ex.Func) and c.name == "begins_with" and _is_key(c.args[0], sk) and sk_type in ("S", "B"):
            lit = c.args[1]
            if isinstance(lit, ex.Literal) and sk_type in lit.value:
                return SortCondition(sk, "BEGINS_WITH", (lit.value,))
    return None


def _is_key(node: ex.Node, name: str) -> bool:
    return isinstance(node, ex.Path) and node.elements == (name,)


# --- statements -------------------------------------------------------------------------------------


def plan_select(s: ast.Select, key_schema: KeySchema) -> ReadPlan:
    """``key_schema``: the table's, or the index's when FROM names one. A multi-attribute
    key is refused first, ahead of every other rule of the WHERE clause (issue 37)."""
    hashes = [e for e in key_schema if e[1] == "HASH"]
    ranges = [e for e in key_schema if e[1] == "RANGE"]
    if len(hashes) > 1 or len(ranges) > 1:
        raise errors.validation(errors.MSG_MULTI_ATTRIBUTE_KEYS)
    if s.where is not None:
        check_condition(s.where)
    partitions: list[Value] | None = None
    sort = None
    if s.where is not None and len(hashes) == 1 and len(ranges) <= 1:
        partitions = _partition_values(s.where, hashes[0][0], hashes[0][2])
        if partitions and ranges:
            sort = _sort_condition(s.where, ranges[0][0], ranges[0][2])
    forward = _order(s, key_schema, partitions is not None)
    projection = select_list(tuple(p.elements for p in s.projection)) if s.projection else None
    condition = Condition(s.where) if s.where is not None else None
    fixed = tuple(partitions) if partitions is not None else None
    return ReadPlan(s.source.table, s.source.index, fixed, sort, condition, projection, forward)


def _order(s: ast.Select, key_schema: KeySchema, keyed: bool) -> bool:
    """ORDER BY: only on key attributes, only when the partition key is fixed; DESC on the
    sort key reads the partition backwards."""
    if not s.order_by:
        return True
    if s.where is None:
        raise errors.validation(errors.MSG_ORDER_BY_WHERE)
    names = {e[0]: e[1] for e in key_schema}
    forward = True
    for o in s.order_by:
        if o.name not in names:
            raise errors.validation(errors.msg_order_by_non_key(o.name))
        if not keyed:
            raise errors.validation(errors.MSG_ORDER_BY_HASH)
        if names[o.name] == "RANGE":
            forward = not o.descending
    return forward


def _key_names(key_schema: KeySchema) -> list[str]:
    return [e[0] for e in key_schema]


def plan_write(s: ast.Statement, key_schema: KeySchema) -> KeyedPlan:
    """INSERT, UPDATE, DELETE and EXISTS: one item by its full key."""
    names = _key_names(key_schema)
    where = s.select.where if isinstance(s, ast.Exists) else getattr(s, "where", None)
    if where is not None:
        check_condition(where)
    if isinstance(s, ast.Update):
        check_actions(s.actions)
    if isinstance(s, ast.Insert):
        if not isinstance(s.value, ex.Literal) or "M" not in s.value.value:
            raise errors.validation(errors.MSG_MALFORMED_INSERT)
        item, size = V.validate_item_sized(s.value.value["M"])
        V.check_item_size(size)  # PutItem's limit and message
        return KeyedPlan("put", s.table, item, item_size=size)
    if isinstance(s, ast.Exists):
        key, rest = split_key(s.select.where, names)
        if rest is None:  # UNSURE: the service refuses it (issue 37); its words are not known
            raise errors.validation(errors.MSG_EXISTS_NEEDS_CONDITION)
        return KeyedPlan("check", s.select.source.table, key, Condition(rest))
    if isinstance(s, ast.Update):
        key, rest = split_key(s.where, names)
        # the item must exist: UPDATE changes one existing item
        exists = ex.Func("attribute_exists", (ex.Path((names[0],)),))
        tree = exists if rest is None else ex.And((exists, *conjuncts(rest)))
        update = Update(s.actions)
        for name in names:
            if name in update.top_names:
                raise errors.invalid_parameter(errors.msg_key_update(name))
        return KeyedPlan("update", s.table, key, Condition(tree), update, returning=s.returning)
    assert isinstance(s, ast.Delete)
    key, rest = split_key(s.where, names)
    return KeyedPlan("delete", s.table, key, Condition(rest) if rest is not None else None, returning=s.returning)


def plan_get(s: ast.Select, key_schema: KeySchema, refusal: str) -> KeyedPlan:
    """A SELECT of one item by its full key (BatchExecuteStatement, ExecuteTransaction): the
    WHERE clause is the key's equalities and nothing else, on the table, not an index;
    otherwise ``refusal`` (issue 37: "Select statements within ... must specify the primary
    key in the where clause.")."""
    if s.where is not None:
        check_condition(s.where)
    names = _key_names(key_schema)
    if s.source.index is not None:
        raise errors.validation(refusal)
    try:
        key, rest = split_key(s.where, names)
    except errors.DynamoError:
        raise errors.validation(refusal) from None
    if rest is not None:
        raise errors.validation(refusal)
    # batch and transaction reads keep the ProjectionExpression form (item 21 is reported of
    # ExecuteStatement only)
    projection = Projection(tuple(p.elements for p in s.projection)) if s.projection else None
    return KeyedPlan("get", s.source.table, key, projection=projection)
