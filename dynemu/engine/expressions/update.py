"""Application of a bound UpdateExpression to an item (developer guide, "Update expressions").

* every SET operand is evaluated against the item as it was before the update;
* SET on a list index past the end appends (in index order); REMOVE of a list index
  past the end does nothing; removed list elements shift the rest down, indexes always
  refer to the list as it was;
* ADD adds to a number or unions a set, creating the attribute if missing;
* DELETE removes elements from a set; an emptied set disappears;
* a path whose parent is missing or is not a map (for a name) or list (for an index)
  fails with "The document path provided in the update expression is invalid for update".

Items are never mutated: containers along a changed path are copied on write.
"""

from __future__ import annotations

from typing import Any

from ... import errors
from ...errors import DynamoError, validation
from .. import values as V
from . import ast, update_charge
from .evaluate import lookup
from .project import Projection

Item = dict[str, Any]
Value = dict[str, Any]

SET_TYPES = ("SS", "NS", "BS")


class _Removed:
    """Marks a list element removed during this update; lists are compacted at the end."""


REMOVED = _Removed()


def _error(message: str) -> DynamoError:
    return validation(message)


def set_element_key(set_type: str, element: str) -> Any:
    return V.parse_number(element) if set_type == "NS" else element


def set_union(set_type: str, current: list[str], added: list[str]) -> list[str]:
    """The members of both, in the set order (``values.ordered_set``)."""
    seen = {set_element_key(set_type, e) for e in current}
    result = list(current)
    for element in added:
        key = set_element_key(set_type, element)
        if key not in seen:
            seen.add(key)
            result.append(element)
    return V.ordered_set(set_type, result)


def set_difference(set_type: str, current: list[str], removed: list[str]) -> list[str]:
    gone = {set_element_key(set_type, e) for e in removed}
    return [e for e in current if set_element_key(set_type, e) not in gone]


class Writer:
    """Copy-on-write access to the containers of a new item under construction."""

    __slots__ = ("item", "fresh", "compact", "appends")

    def __init__(self, item: Item) -> None:
        self.item = item
        self.fresh: set[int] = set()  # ids of containers copied by this writer
        self.compact: dict[int, list[Any]] = {}  # lists holding REMOVED marks
        self.appends: dict[int, tuple[list[Any], list[tuple[int, Value]]]] = {}

    def _own(self, holder: Any, key: Any, value: Value) -> Value:
        if id(value) in self.fresh:
            return value
        (type_name, inner), = value.items()
        copy = {type_name: dict(inner) if type_name == "M" else list(inner)}
        self.fresh.add(id(copy))
        holder[key] = copy
        return copy

    def parent(self, elements: tuple[ast.PathElement, ...]) -> tuple[Any, ast.PathElement]:
        """The container (a dict of members or a list) holding the last element of a path."""
        holder: Any = self.item
        key: ast.PathElement = elements[0]
        for element in elements[1:]:
            value = holder.get(key) if isinstance(holder, dict) else (holder[key] if key < len(holder) else None)  # type: ignore[operator]
            if value is None or value is REMOVED:
                raise _error(errors.MSG_UPDATE_INVALID_PATH)
            wanted = "L" if type(element) is int else "M"
            if wanted not in value:
                raise _error(errors.MSG_UPDATE_INVALID_PATH)
            holder = self._own(holder, key, value)[wanted]
            key = element
        return holder, key

    def get(self, holder: Any, key: ast.PathElement) -> Value | None:
        if isinstance(holder, dict):
            return holder.get(key)
        value = holder[key] if key < len(holder) else None  # type: ignore[operator]
        return None if value is REMOVED else value

    def put(self, holder: Any, key: ast.PathElement, value: Value) -> None:
        if isinstance(holder, dict):
            holder[key] = value
        elif key < len(holder):  # type: ignore[operator]
            holder[key] = value  # type: ignore[index]
        else:
            self.appends.setdefault(id(holder), (holder, []))[1].append((key, value))  # type: ignore[arg-type]

    def delete(self, holder: Any, key: ast.PathElement) -> None:
        if isinstance(holder, dict):
            holder.pop(key, None)
        elif key < len(holder):  # type: ignore[operator]
            holder[key] = REMOVED  # type: ignore[index]
            self.compact[id(holder)] = holder

    def finish(self) -> Item:
        for holder, pending in self.appends.values():
            holder.extend(value for _, value in sorted(pending, key=lambda p: p[0]))
        for holder in self.compact.values():
            holder[:] = [v for v in holder if v is not REMOVED]
        return self.item


class Update:
    """A compiled UpdateExpression.

    ``apply(item, key)`` returns ``(new_item, touched)``: ``touched`` is a Projection of
    the updated paths, to build ReturnValues UPDATED_OLD (``touched.apply(old)``).
    UPDATED_NEW is ``touched_new.apply(new)``: the same paths read in the new item. A removed
    attribute or map member is absent there, so a REMOVE alone returns no Attributes; a
    removed list element reports the element that shifted into its place, as the service
    does (``REMOVE a.c[1]`` of ``[50, 60, 70]`` returns ``{"a": {"c": [70]}}``; issue 24).

    Operands are bound (``Literal``) or, in an Update made from an ``UpdateTemplate``,
    ``ValueRef``s read from ``values`` (the request's checked ExpressionAttributeValues).
    """

    __slots__ = ("actions", "values", "top_names", "flat", "_touched", "_charge")

    def __init__(self, actions: tuple[ast.Action, ...], values: dict[str, Value] | None = None,
                 top_names: frozenset[str] | None = None, flat: bool | None = None,
                 charge: update_charge.Plan | None = None) -> None:
        self.actions = actions
        self._charge = charge  # UpdateItem's size charge, value-independent part (computed when first asked)
        self.values = values
        self.top_names = frozenset(a.path.elements[0] for a in actions) if top_names is None else top_names
        # every path a top-level name: the new item needs no Writer (``_new_flat``)
        self.flat = is_flat(actions) if flat is None else flat
        self._touched: Projection | None = None  # built when first asked (ReturnValues)

    @property
    def touched(self) -> Projection:
        if self._touched is None:
            self._touched = Projection(tuple(a.path.elements for a in self.actions))
        return self._touched

    @property
    def touched_new(self) -> Projection:
        return self.touched

    def check_charge(self, old: Item | None) -> None:
        """UpdateItem's 400 KB rule before its condition: the statement's charge
        (``update_charge``); the finished item is measured after it (``Table.plan``)."""
        if self._charge is None:
            self._charge = update_charge.plan(self.actions)
        V.check_item_size(update_charge.charge(self._charge, self.values, old), errors.MSG_UPDATE_SIZE)

    def apply(self, item: Item | None, key: Item) -> tuple[Item | None, Projection]:
        return self.new_item(item, key), self.touched

    def new_item(self, item: Item | None, key: Item) -> Item | None:
        """The new item, or None when the item did not exist and the actions leave it with
        no attribute but its key: such an update (a lone REMOVE, a DELETE) creates nothing
        (scylladb/scylladb#5862, as measured against DynamoDB)."""
        if self.flat:
            return self._new_flat(item, key)
        old = item if item is not None else {}
        env = self.values
        values = [evaluate_value(a.value, old, env) if a.kind == "SET" else None for a in self.actions]  # type: ignore[arg-type]
        writer = Writer(dict(item) if item is not None else dict(key))
        for action, value in zip(self.actions, values, strict=True):
            if action.kind == "REMOVE" and item is None and len(action.path.elements) > 1:
                continue  # nothing to remove from an item that does not exist (issue 12)
            holder, last = writer.parent(action.path.elements)
            if action.kind == "SET":
                writer.put(holder, last, value)  # type: ignore[arg-type]
            elif action.kind == "REMOVE":
                writer.delete(holder, last)
            else:
                _add_or_delete(writer, holder, last, action, env)
        return created_or_none(writer.finish(), item, key)

    def _new_flat(self, item: Item | None, key: Item) -> Item | None:
        """``new_item`` when every path is a top-level name: the item's own dict is the
        holder of every action (what ``Writer.parent`` returns for such a path), and no
        list is touched, so nothing is copied on write, appended or compacted."""
        env = self.values
        actions = self.actions
        new = dict(item) if item is not None else dict(key)
        values: list[Value | None] | None = None
        for a in actions:
            if a.kind == "SET":  # every SET operand is evaluated first, against the old item
                old = item if item is not None else {}
                values = [evaluate_value(a.value, old, env) if a.kind == "SET" else None  # type: ignore[arg-type]
                          for a in actions]
                break
        for i, action in enumerate(actions):
            name = action.path.elements[0]
            kind = action.kind
            if kind == "SET":
                new[name] = values[i]  # type: ignore[index,assignment]
            elif kind == "REMOVE":
                new.pop(name, None)  # type: ignore[arg-type]
            else:
                _add_or_delete_top(new, name, action, env)  # type: ignore[arg-type]
        return created_or_none(new, item, key)

    def resize(self, old: Item | None, old_size: int, new: Item) -> int:
        """The new image's size from the old one's: only the top-level attributes the actions
        name can differ (item sizes add up over top-level attributes)."""
        if old is None:
            return V.item_size(new)
        size = old_size
        for name in self.top_names:
            before, after = old.get(name), new.get(name)
            if before is not after:
                n = len(name) if name.isascii() else len(name.encode("utf-8", "surrogatepass"))
                if before is not None:
                    size -= n + V.value_size(before)
                if after is not None:
                    size += n + V.value_size(after)
        return size


def is_flat(actions: tuple[ast.Action, ...]) -> bool:
    """Whether every action's path is a single top-level name."""
    return all(len(a.path.elements) == 1 for a in actions)


def created_or_none(new: Item, old: Item | None, key: Item) -> Item | None:
    """An update of a missing item that leaves only the key creates no item."""
    if old is None and len(new) <= len(key) and all(name in key for name in new):
        return None
    return new


def _add_or_delete(writer: Writer, holder: Any, key: ast.PathElement, action: ast.Action,
                   env: dict[str, Value] | None) -> None:
    node = action.value
    operand: Value = env[node.name] if type(node) is ast.ValueRef else node.value  # type: ignore[index,union-attr]
    (op_type, op_value), = operand.items()
    current = writer.get(holder, key)
    if current is None:
        if action.kind == "ADD":
            writer.put(holder, key, operand)
        return
    if op_type not in current:
        raise _error(errors.MSG_UPDATE_WRONG_TYPE)
    if op_type == "N":
        writer.put(holder, key, {"N": V.add_numbers(current["N"], op_value)})
    elif action.kind == "ADD":
        writer.put(holder, key, {op_type: set_union(op_type, current[op_type], op_value)})
    else:
        remaining = set_difference(op_type, current[op_type], op_value)
        if remaining:
            writer.put(holder, key, {op_type: remaining})
        else:
            writer.delete(holder, key)


def _add_or_delete_top(new: Item, name: str, action: ast.Action, env: dict[str, Value] | None) -> None:
    """``_add_or_delete`` of a top-level attribute of ``new`` (the item's own dict)."""
    node = action.value
    operand: Value = env[node.name] if type(node) is ast.ValueRef else node.value  # type: ignore[index,union-attr]
    (op_type, op_value), = operand.items()
    current = new.get(name)
    if current is None:
        if action.kind == "ADD":
            new[name] = operand
        return
    if op_type not in current:
        raise _error(errors.MSG_UPDATE_WRONG_TYPE)
    if op_type == "N":
        new[name] = {"N": V.add_numbers(current["N"], op_value)}
    elif action.kind == "ADD":
        new[name] = {op_type: set_union(op_type, current[op_type], op_value)}
    else:
        remaining = set_difference(op_type, current[op_type], op_value)
        if remaining:
            new[name] = {op_type: remaining}
        else:
            new.pop(name, None)


def evaluate_value(node: ast.Node, item: Item, env: dict[str, Value] | None = None) -> Value:
    """The value of a SET operand, read from the item before the update (``env``: the
    values of ``ValueRef`` operands)."""
    if isinstance(node, ast.Literal):
        return node.value
    if isinstance(node, ast.ValueRef):
        return env[node.name]  # type: ignore[index]
    if isinstance(node, ast.Path):
        value = lookup(item, node.elements)
        if value is None:
            raise _error(errors.MSG_UPDATE_MISSING_ATTRIBUTE)
        return value
    if isinstance(node, ast.Arith):
        left = evaluate_value(node.left, item, env)
        if "N" not in left:
            raise _error(errors.MSG_UPDATE_WRONG_TYPE)
        right = evaluate_value(node.right, item, env)
        if "N" not in right:
            raise _error(errors.MSG_UPDATE_WRONG_TYPE)
        combine = V.add_numbers if node.op == "+" else V.subtract_numbers
        return {"N": combine(left["N"], right["N"])}
    if isinstance(node, ast.Func) and node.name == "if_not_exists":
        existing = lookup(item, node.args[0].elements)  # type: ignore[union-attr]
        return existing if existing is not None else evaluate_value(node.args[1], item, env)
    if isinstance(node, ast.Func) and node.name == "list_append":
        left = evaluate_value(node.args[0], item, env)
        if "L" not in left:
            raise _error(errors.MSG_UPDATE_WRONG_TYPE)
        right = evaluate_value(node.args[1], item, env)
        if "L" not in right:
            raise _error(errors.MSG_UPDATE_WRONG_TYPE)
        return {"L": left["L"] + right["L"]}
    raise TypeError(f"not an update operand: {node!r}")



class UpdateTemplate:
    """The value-independent part of a checked UpdateExpression: its actions with the
    request's names substituted and its values left as ``ValueRef``s, so each request only
    binds its own values (``bind``)."""

    __slots__ = ("actions", "top_names", "flat", "charge")

    def __init__(self, expr: ast.UpdateExpr, names: dict[str, str]) -> None:
        self.actions = tuple(
            ast.Action(a.kind, _names_path(a.path, names), _names_node(a.value, names) if a.value is not None else None)
            for a in expr.actions
        )
        self.top_names = frozenset(a.path.elements[0] for a in self.actions)
        self.flat = is_flat(self.actions)
        self.charge = update_charge.plan(self.actions)

    def bind(self, values: dict[str, Value]) -> Update:
        return Update(self.actions, values, self.top_names, self.flat, self.charge)


def _names_path(path: ast.Path, names: dict[str, str]) -> ast.Path:
    return ast.Path(tuple(names[e] if isinstance(e, str) and e[:1] == "#" else e for e in path.elements))


def _names_node(node: ast.Node, names: dict[str, str]) -> ast.Node:
    """An update operand with its names substituted and its parentheses dropped, as
    ``resolve.Resolver`` binds it, but with its ``ValueRef``s kept."""
    if isinstance(node, ast.Paren):
        return _names_node(node.inner, names)
    if isinstance(node, ast.Path):
        return _names_path(node, names)
    if isinstance(node, ast.Func):
        return ast.Func(node.name, tuple(_names_node(a, names) for a in node.args))
    if isinstance(node, ast.Arith):
        return ast.Arith(node.op, _names_node(node.left, names), _names_node(node.right, names))
    return node  # ValueRef, Literal
