"""The legacy (pre-expression) parameters, translated onto the expression AST.

Expected (+ ConditionalOperator), QueryFilter, ScanFilter and KeyConditions become bound
condition trees or key conditions; AttributesToGet becomes a Projection; AttributeUpdates
becomes a ``LegacyUpdate`` (its ADD/DELETE rules differ from UpdateExpression's).
Validation messages are DynamoDB's, as probed by dynalite (validations/index.js).
"""

from __future__ import annotations

from typing import Any

from ... import errors
from ...errors import DynamoError, invalid_parameter, validation
from .. import values as V
from . import ast
from .keycondition import KeyCondition
from .project import Projection
from .update import Writer, created_or_none, set_difference, set_union

Value = dict[str, Any]
Item = dict[str, Value]

# How many values each ComparisonOperator takes (None: one or more).
ARGUMENT_COUNTS: dict[str, int | None] = {
    "EQ": 1, "NE": 1, "LE": 1, "LT": 1, "GE": 1, "GT": 1, "CONTAINS": 1, "NOT_CONTAINS": 1,
    "BEGINS_WITH": 1, "NULL": 0, "NOT_NULL": 0, "IN": None, "BETWEEN": 2,
}
# Value types each operator accepts in Expected, QueryFilter, ScanFilter and KeyConditions;
# EQ and NE accept every type, BOOL, NULL, L and M included (architect/dynalite#156: the
# service accepts a BOOL with EQ).
ALL_TYPES = ("S", "N", "B", "SS", "NS", "BS", "BOOL", "NULL", "L", "M")
VALUE_TYPES: dict[str, tuple[str, ...]] = {
    "EQ": ALL_TYPES, "NE": ALL_TYPES,
    "LE": ("S", "N", "B"), "LT": ("S", "N", "B"), "GE": ("S", "N", "B"), "GT": ("S", "N", "B"),
    "CONTAINS": ("S", "N", "B"), "NOT_CONTAINS": ("S", "N", "B"), "BEGINS_WITH": ("S", "B"),
    "IN": ("S", "N", "B"), "BETWEEN": ("S", "N", "B"),
}
# Key conditions keep EQ to the scalar and set types: a BOOL there is refused by operator.
KEY_VALUE_TYPES = {**VALUE_TYPES, "EQ": ("S", "N", "B", "SS", "NS", "BS")}
_COMPARATORS = {"EQ": "=", "NE": "<>", "LE": "<=", "LT": "<", "GE": ">=", "GT": ">"}


def _values(values: list[Any]) -> list[Value]:
    return [V.validate_value(v) for v in values]


def _count_ok(op: str, count: int) -> bool:
    expected = ARGUMENT_COUNTS.get(op)
    return count >= 1 if expected is None else count == expected


def _same_type(values: list[Value]) -> None:
    if values and any(V.value_type(v) != V.value_type(values[0]) for v in values):
        raise invalid_parameter(errors.MSG_VALUE_LIST_TYPES)


def _value_types(op: str, values: list[Value], table: dict[str, tuple[str, ...]] = VALUE_TYPES) -> None:
    allowed = table.get(op, ())
    for value in values:
        if V.value_type(value) not in allowed:
            raise invalid_parameter(errors.msg_operator_type(op, V.value_type(value)))


def check_conditional_operator(request: dict[str, Any]) -> None:
    """ConditionalOperator needs an Expected / QueryFilter / ScanFilter of two or more
    conditions (messages as captured against the service: ExtendDB/extenddb#213)."""
    if request.get("ConditionalOperator") is None:
        return
    conditions = [request[p] for p in ("Expected", "QueryFilter", "ScanFilter") if request.get(p) is not None]
    if not conditions:
        raise validation(errors.MSG_CONDITIONAL_OPERATOR_ALONE)
    if len(conditions[0]) < 2:
        raise validation(errors.MSG_CONDITIONAL_OPERATOR_ONE)


def _between_order(op: str, values: list[Value]) -> None:
    if op == "BETWEEN" and (V.compare_values(values[0], values[1]) or 0) > 0:
        raise validation(errors.MSG_LEGACY_BETWEEN_ORDER)


def condition_node(name: str, op: str, values: list[Value]) -> ast.Node:
    """The bound AST of one legacy condition on the top-level attribute ``name``."""
    path = ast.Path((name,))
    literals = [ast.Literal(v) for v in values]
    if op in _COMPARATORS:
        return ast.Compare(_COMPARATORS[op], path, literals[0])
    if op == "NOT_NULL":
        return ast.Func("attribute_exists", (path,))
    if op == "NULL":
        return ast.Func("attribute_not_exists", (path,))
    if op == "CONTAINS":
        return ast.Func("contains", (path, literals[0]))
    if op == "NOT_CONTAINS":
        # API reference, Condition / ExpectedAttributeValue, ComparisonOperator: NOT_CONTAINS
        # "checks for absence of a subsequence, or absence of a value in a set" (and of an
        # element in a list). Its truth table, for the target attribute a and the value v:
        #   a missing                                  -> false: the condition fails
        #   a S (B): v an S (B) not a substring (subsequence) of a -> true, else false
        #   a SS / NS / BS: v not a member (v of another type: true)
        #   a L: no element equal to v                 -> true, else false
        #   a of a type that cannot contain v (N, BOOL, NULL, M; S against a B v, ...) -> true
        return ast.And((ast.Func("attribute_exists", (path,)), ast.Not(ast.Func("contains", (path, literals[0])))))
    if op == "BEGINS_WITH":
        return ast.Func("begins_with", (path, literals[0]))
    if op == "IN":
        return ast.In(path, tuple(literals))
    return ast.Between(path, literals[0], literals[1])  # BETWEEN


def _combine(nodes: list[ast.Node], conditional_operator: str | None) -> ast.Node | None:
    if not nodes:
        return None
    if len(nodes) == 1:
        return nodes[0]
    return ast.Or(tuple(nodes)) if conditional_operator == "OR" else ast.And(tuple(nodes))


# --- Expected -------------------------------------------------------------------------------


def expected_condition(expected: dict[str, Any], conditional_operator: str | None) -> ast.Node | None:
    """Validate ``Expected`` and return its bound condition tree. Its errors are request
    checks: the single-item writes say them in the validation envelope (docs/rules.md)."""
    try:
        return _expected_condition(expected, conditional_operator)
    except DynamoError as e:
        if e.type_name == "ValidationException":
            e.envelope = True
        raise


def _expected_condition(expected: dict[str, Any], conditional_operator: str | None) -> ast.Node | None:
    nodes: list[ast.Node] = []
    for name, cond in expected.items():
        if not name:  # as in an item (naming rules)
            raise invalid_parameter(errors.MSG_EMPTY_NAME)
        cond = cond or {}
        if "AttributeValueList" in cond and "Value" in cond:
            raise invalid_parameter(errors.msg_value_and_list(name))
        op = cond.get("ComparisonOperator")
        if op is not None:
            nodes.append(_expected_comparison(name, op, cond))
        elif "AttributeValueList" in cond:
            raise invalid_parameter(errors.msg_list_without_operator(name))
        else:
            nodes.append(_expected_exists(name, cond))
    return _combine(nodes, conditional_operator)


def _expected_comparison(name: str, op: str, cond: dict[str, Any]) -> ast.Node:
    if "Exists" in cond:
        raise invalid_parameter(errors.msg_exists_and_operator(name))
    if op not in ("NULL", "NOT_NULL") and "AttributeValueList" not in cond and "Value" not in cond:
        raise invalid_parameter(errors.msg_operator_without_value(op, name))
    raw = cond["AttributeValueList"] if "AttributeValueList" in cond else ([cond["Value"]] if "Value" in cond else [])
    values = _values(raw or [])
    if not _count_ok(op, len(values)):
        raise invalid_parameter(errors.msg_argument_count(op))
    _same_type(values)
    _value_types(op, values)
    _between_order(op, values)
    return condition_node(name, op, values)


def _expected_exists(name: str, cond: dict[str, Any]) -> ast.Node:
    exists = cond.get("Exists")
    if exists is None or exists:
        if cond.get("Value") is None:
            shown = "null" if exists is None else "true"
            raise invalid_parameter(errors.msg_exists_without_value(shown, name))
        return condition_node(name, "EQ", _values([cond["Value"]]))
    if cond.get("Value") is not None:
        raise invalid_parameter(errors.msg_value_when_not_exists(name))
    return condition_node(name, "NULL", [])


# --- QueryFilter / ScanFilter / KeyConditions ------------------------------------------------


def checked_conditions(conditions: dict[str, Any], *, key: bool = False,
                       types: bool = True) -> list[tuple[str, str, list[Value]]]:
    """Validate a map of ``Condition`` (attribute -> ComparisonOperator + values); without
    ``types`` the operators' value types are left to the key schema's check."""
    result = []
    for name, cond in conditions.items():
        if not name and not key:  # an attribute name is at least one character long (naming rules)
            raise invalid_parameter(errors.MSG_EMPTY_NAME)
        op = cond.get("ComparisonOperator")
        values = _values(cond.get("AttributeValueList") or [])
        if not _count_ok(op, len(values)):
            raise invalid_parameter(errors.msg_argument_count(op))
        _same_type(values)
        if types:
            _value_types(op, values, KEY_VALUE_TYPES if key else VALUE_TYPES)
        _between_order(op, values)
        result.append((name, op, values))
    return result


def filter_condition(conditions: dict[str, Any], conditional_operator: str | None) -> ast.Node | None:
    nodes = [condition_node(name, op, values) for name, op, values in checked_conditions(conditions)]
    return _combine(nodes, conditional_operator)


# Multi-attribute GSI keys have up to 4 + 4 attributes; more than 2 conditions on any other
# key schema are refused once the table is known (KeyCondition.bind).
MAX_KEY_CONDITIONS = 8


def key_conditions(conditions: dict[str, Any]) -> KeyCondition:
    checked = checked_conditions(conditions, key=True)
    if not 1 <= len(checked) <= MAX_KEY_CONDITIONS:
        raise validation(errors.MSG_CONDITIONS_LENGTH)
    return KeyCondition({name: (op, tuple(values)) for name, op, values in checked})


def check_key_condition_values(key: KeyCondition) -> None:
    """The Condition rules applied to the conditions a KeyConditionExpression produced. An
    operand of a type no key has (`pk = :bool`) fails the schema's type check once the table
    is known, as the service answers (issue 36)."""
    checked_conditions({name: {"ComparisonOperator": op, "AttributeValueList": list(values)}
                        for name, (op, values) in key.conditions.items()}, key=True, types=False)
    if not 1 <= len(key.conditions) <= MAX_KEY_CONDITIONS:
        raise validation(errors.MSG_CONDITIONS_LENGTH)


# --- AttributesToGet --------------------------------------------------------------------------


def attributes_to_get(names: list[str]) -> Projection:
    seen: set[str] = set()
    for name in names:
        if not name:  # attribute names are at least one character long (naming rules)
            raise invalid_parameter(errors.MSG_EMPTY_NAME)
        if name in seen:
            raise invalid_parameter(errors.msg_duplicate_attribute_name(name))
        seen.add(name)
    return Projection(tuple((name,) for name in names))


# --- AttributeUpdates -------------------------------------------------------------------------


class LegacyUpdate:
    """AttributeUpdates: PUT / ADD / DELETE on top-level attributes (API reference)."""

    __slots__ = ("updates", "touched", "touched_new", "top_names")

    def __init__(self, updates: list[tuple[str, str, Value | None]]) -> None:
        self.updates = updates
        self.touched = Projection(tuple((name,) for name, _, _ in updates))
        self.touched_new = self.touched  # top-level names: a removed one is simply absent
        self.top_names = frozenset(name for name, _, _ in updates)

    def apply(self, item: Item | None, key: Item) -> tuple[Item | None, Projection]:
        return self.new_item(item, key), self.touched

    def resize(self, old: Item | None, old_size: int, new: Item) -> int:
        """The new image's size (``Table.plan``)."""
        return V.item_size(new)

    def new_item(self, item: Item | None, key: Item) -> Item | None:
        writer = Writer(dict(item) if item is not None else dict(key))
        new = writer.item
        for name, action, value in self.updates:
            current = new.get(name)
            if action == "PUT":
                new[name] = value  # type: ignore[assignment]
            elif value is None:  # DELETE without a value removes the attribute
                new.pop(name, None)
            else:
                _apply_legacy(new, name, action, value, current)
        return created_or_none(writer.finish(), item, key)


def _apply_legacy(new: Item, name: str, action: str, value: Value, current: Value | None) -> None:
    (t, x), = value.items()
    if current is not None and t not in current:
        raise validation(errors.MSG_UPDATE_TYPE_MISMATCH)
    if action == "ADD":
        if current is None:
            new[name] = value
        elif t == "N":
            new[name] = {"N": V.add_numbers(current["N"], x)}
        elif t == "L":
            new[name] = {"L": current["L"] + x}
        else:
            new[name] = {t: set_union(t, current[t], x)}
    elif current is not None:  # DELETE elements of a set
        remaining = set_difference(t, current[t], x)
        if remaining:
            new[name] = {t: remaining}
        else:
            del new[name]


def attribute_updates(updates: dict[str, Any]) -> LegacyUpdate:
    checked: list[tuple[str, str, Value | None]] = []
    for name, update in updates.items():
        if not name:
            raise invalid_parameter(errors.MSG_EMPTY_NAME)
        update = update or {}
        action = update.get("Action") or "PUT"
        value = V.validate_value(update["Value"]) if update.get("Value") is not None else None
        if value is None and action != "DELETE":
            raise invalid_parameter(errors.MSG_ONLY_DELETE_WITHOUT_VALUE)
        if value is not None:
            t = V.value_type(value)
            if action == "DELETE" and t not in ("SS", "NS", "BS"):
                raise invalid_parameter(errors.msg_delete_value_type(t))
            if action == "ADD" and t not in ("L", "SS", "NS", "BS", "N"):
                raise invalid_parameter(errors.msg_add_type(t))
        checked.append((name, action, value))
    return LegacyUpdate(checked)


