"""KeyConditionExpression / KeyConditions: which partition and sort-key range a Query reads.

DynamoDB allows only ``=`` on the partition key and one of ``= < <= > >= BETWEEN
begins_with`` on the sort key, joined by AND (developer guide, "Key condition
expressions for Query"). The structural checks run on the bound tree; the checks that
need the key schema run in ``bind``. Messages from dynalite's probes of the service.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ... import errors
from ...errors import invalid_parameter, validation
from .. import values as V
from . import ast
from .evaluate import begins_with

Value = dict[str, Any]
_FLIPPED = {"=": "=", "<": ">", "<=": ">=", ">": "<", ">=": "<="}
_OPERATORS = {"=": "EQ", "<": "LT", "<=": "LE", ">": "GT", ">=": "GE"}
NOT_INDEXABLE = ("NULL", "NOT_NULL", "NE", "CONTAINS", "NOT_CONTAINS", "IN")


@dataclass(frozen=True, slots=True)
class SortCondition:
    """The sort-key part of a key condition: one comparison, BETWEEN or begins_with."""

    name: str
    op: str  # EQ LT LE GT GE BETWEEN BEGINS_WITH
    values: tuple[Value, ...]

    def matches(self, value: Value | None) -> bool:
        """Whether a sort-key value satisfies this condition (for filtering index scans)."""
        if value is None:
            return False
        if self.op == "BEGINS_WITH":
            return begins_with(value, self.values[0])
        if self.op == "EQ":
            return V.values_equal(value, self.values[0])
        order = V.compare_values(value, self.values[0])
        if order is None:
            return False
        if self.op == "BETWEEN":
            upper = V.compare_values(value, self.values[1])
            return order >= 0 and upper is not None and upper <= 0
        return {"LT": order < 0, "LE": order <= 0, "GT": order > 0, "GE": order >= 0}[self.op]


@dataclass(frozen=True, slots=True)
class KeyCondition:
    """Unbound: ``conditions`` maps attribute name -> (operator, values). After ``bind``,
    ``partition_name``/``partition_value`` and the optional ``sort`` condition are set."""

    conditions: dict[str, tuple[str, tuple[Value, ...]]]
    partition_name: str | None = None
    partition_value: Value | None = None
    sort: SortCondition | None = None
    # every partition key value, in key schema order (more than one: multi-attribute keys)
    partition_values: tuple[Value, ...] = ()
    # multi-attribute sort keys: the `=` values of the sort key attributes before ``sort``'s
    sort_prefix: tuple[Value, ...] = ()

    def bind(self, key_schema: list[tuple[str, ...]]) -> KeyCondition:
        conditions = self.conditions
        if len(key_schema) > 2 or (len(key_schema) == 2 and key_schema[1][1] == "HASH"):
            hashes = [e for e in key_schema if e[1] == "HASH"]
            ranges = [e for e in key_schema if e[1] == "RANGE"]
            if len(hashes) > 1 or len(ranges) > 1:
                return self._bind_multi(hashes, ranges)
        if len(conditions) > 2:  # more are only possible on multi-attribute keys (issue 36's wording)
            raise validation(errors.msg_conditions_exceed_key(len(conditions), len(key_schema)))
        hash_name = key_schema[0][0]
        if len(key_schema) == 1 and len(conditions) > 1:
            raise validation(errors.MSG_KEY_CONDITION_NOT_SUPPORTED)
        for index, entry in enumerate(key_schema):
            name = entry[0]
            is_hash = index == 0
            if name not in conditions:
                if is_hash or len(conditions) > 1:
                    raise validation(errors.msg_key_condition_missing(name))
                continue
            op, values = conditions[name]
            if op in NOT_INDEXABLE:
                raise validation(errors.MSG_NOT_INDEXABLE)
            attr_type = entry[2] if len(entry) > 2 else None
            if attr_type and any(attr_type not in v for v in values):
                raise invalid_parameter(errors.MSG_KEY_CONDITION_TYPE)
            if is_hash and op != "EQ":
                raise validation(errors.MSG_KEY_CONDITION_NOT_SUPPORTED)
        sort = None
        if len(key_schema) > 1 and key_schema[1][0] in conditions:
            name = key_schema[1][0]
            op, values = conditions[name]
            sort = SortCondition(name, op, values)
        value = conditions[hash_name][1][0]
        return KeyCondition(conditions, hash_name, value, sort, (value,))

    def _bind_multi(self, hashes: list[tuple[str, ...]], ranges: list[tuple[str, ...]]) -> KeyCondition:
        """Multi-attribute GSI keys (GSI.md, "Multi-attribute key schema"): `=` on every
        partition key attribute; sort key attributes constrained left to right without gaps,
        only the last one constrained by something other than `=`. The gap / inequality
        message is the one DynamoDB Local 3.3.1 answers (floci-io/floci#2471)."""
        conditions = self.conditions
        for entry in hashes:
            if entry[0] not in conditions:
                raise validation(errors.msg_key_condition_missing(entry[0]))
            op, values = conditions[entry[0]]
            _check_operands(entry, op, values)
            if op != "EQ":
                raise validation(errors.MSG_KEY_CONDITION_NOT_SUPPORTED)
        names = {e[0] for e in hashes} | {e[0] for e in ranges}
        if any(name not in names for name in conditions):
            raise validation(errors.MSG_KEY_CONDITION_NOT_SUPPORTED)
        constrained = [e for e in ranges if e[0] in conditions]
        for entry in constrained:
            _check_operands(entry, *conditions[entry[0]])
        for later, entry in enumerate(ranges):
            if entry[0] not in conditions:
                continue
            for prior in ranges[:later]:
                condition = conditions.get(prior[0])
                if condition is None or condition[0] != "EQ":
                    raise validation(errors.msg_range_key_gap(prior[0], entry[0]))
        sort = None
        prefix: tuple[Value, ...] = ()
        if constrained:
            prefix = tuple(conditions[e[0]][1][0] for e in constrained[:-1])
            op, values = conditions[constrained[-1][0]]
            sort = SortCondition(constrained[-1][0], op, values)
        partition = tuple(conditions[e[0]][1][0] for e in hashes)
        return KeyCondition(conditions, hashes[0][0], partition[0], sort, partition, prefix)


def _check_operands(entry: tuple[str, ...], op: str, values: tuple[Value, ...]) -> None:
    if op in NOT_INDEXABLE:
        raise validation(errors.MSG_NOT_INDEXABLE)
    attr_type = entry[2] if len(entry) > 2 else None
    if attr_type and any(attr_type not in v for v in values):
        raise invalid_parameter(errors.MSG_KEY_CONDITION_TYPE)


def from_expression(node: ast.Node) -> KeyCondition:
    """Convert a bound KeyConditionExpression tree, with DynamoDB's structural errors."""
    conditions: dict[str, tuple[str, tuple[Value, ...]]] = {}
    _convert(node, conditions)
    return KeyCondition(conditions)


def _convert(node: ast.Node, conditions: dict[str, tuple[str, tuple[Value, ...]]]) -> None:
    if isinstance(node, ast.And):
        for item in node.items:
            _convert(item, conditions)
        return
    if isinstance(node, ast.Or | ast.Not | ast.In):
        raise validation(errors.msg_key_condition_operator(type(node).__name__.upper()))
    if isinstance(node, ast.Compare) and node.op == "<>":
        raise validation(errors.msg_key_condition_operator("<>"))
    if isinstance(node, ast.Func):
        if node.name in ("attribute_exists", "attribute_not_exists", "attribute_type", "contains"):
            raise validation(errors.msg_key_condition_operator(node.name))
        if node.name == "size":
            raise validation(errors.MSG_KEY_CONDITION_NESTED_OPERATIONS)
        args: tuple[ast.Node, ...] = node.args
        kind = "begins_with"
    elif isinstance(node, ast.Between):
        args, kind = (node.operand, node.low, node.high), "BETWEEN"
    else:
        args, kind = (node.left, node.right), node.op  # type: ignore[union-attr]
    _add(kind, args, conditions)


def _add(kind: str, args: tuple[ast.Node, ...], conditions: dict[str, tuple[str, tuple[Value, ...]]]) -> None:
    if kind in ("BETWEEN", "begins_with") and not isinstance(args[0], ast.Path):
        raise validation(errors.msg_key_condition_first_operand(kind))
    name: str | None = None
    position = 0
    for index, arg in enumerate(args):
        if isinstance(arg, ast.Path):
            if name is not None:
                raise validation(errors.MSG_KEY_CONDITION_TWO_NAMES)
            if len(arg.elements) > 1:
                raise validation(errors.MSG_KEY_CONDITION_NESTED_ATTRIBUTES)
            name, position = arg.elements[0], index  # type: ignore[assignment]
        elif isinstance(arg, ast.Func):
            raise validation(errors.MSG_KEY_CONDITION_NESTED_OPERATIONS)
    if name is None:
        raise validation(errors.MSG_KEY_CONDITION_NO_KEY)
    if name in conditions:  # said as an invalid KeyConditionExpression (issue 36)
        raise validation(errors.msg_invalid_expression("KeyConditionExpression", errors.MSG_KEY_CONDITION_REPEATED))
    values = tuple(a.value for i, a in enumerate(args) if i != position)  # type: ignore[union-attr]
    if kind == "BETWEEN":
        op = "BETWEEN"
    elif kind == "begins_with":
        op = "BEGINS_WITH"
    else:
        op = _OPERATORS[kind if position == 0 else _FLIPPED[kind]]
    conditions[name] = (op, values)


