"""What an UpdateItem's UpdateExpression is charged against the 400 KB item limit, before its
condition is evaluated (docs/rules.md, "Item size by surface"; issue 36 §5).

DynamoDB checks an UpdateItem by what its statement writes plus a fixed charge per clause,
before the condition (the finished item is measured as well, afterwards: engine/table.py): an over-limit statement whose condition
would fail is a ValidationException (``Item size to update has exceeded the maximum allowed
size``), not a ConditionalCheckFailedException. The key is not charged, nor an attribute the
statement leaves alone. The figures, in bytes (names and values by DynamoDB's item size
rules, ``values``):

- SET: 19, plus its target path, plus its operand;
- REMOVE: 1 plus its path; DELETE: 1 plus its path, not the members it removes;
- ADD: 19 plus its path plus the value added; to a set, only the members it adds;
- a target path (SET, ADD, DELETE, REMOVE): its names' bytes (the names, not their ``#``
  aliases), 1 byte per list index; in a REMOVE a list index is 4 bytes plus its digits;
- operands: a value (``:v``) its size, at every use; a path 1 byte plus, for each element,
  14 bytes and the element (a name's bytes, an index's digits), not the value it copies;
  ``a + b`` 34, ``a - b`` 37, ``list_append`` 37 and ``if_not_exists`` 39 bytes, each plus
  its operands, whatever the result and whether or not the path exists.

UNSURE: the clause and operand figures are those issue 36 reports from the service's
answers; how a REMOVE of a list index and a SET through one are charged is dynemu's reading
of its "4 bytes plus its digits" and "exactly one byte more".
"""

from __future__ import annotations

from typing import Any

from .. import values as V
from . import ast
from .evaluate import lookup

Value = dict[str, Any]

SET_CHARGE = 19
ADD_CHARGE = 19
REMOVE_CHARGE = DELETE_CHARGE = 1
PATH_OPERAND = 1
PATH_ELEMENT = 14
REMOVE_INDEX = 4
FUNCTION_CHARGE = {"list_append": 37, "if_not_exists": 39}
ARITH_CHARGE = {"+": 34, "-": 37}


def _name_bytes(name: str) -> int:
    return len(name) if name.isascii() else len(name.encode("utf-8", "surrogatepass"))


def _target(path: ast.Path, index_charge: int | None = None) -> int:
    """A target path: its names' bytes, each list index 1 byte (``index_charge``: REMOVE's
    4 bytes plus the index's digits)."""
    size = 0
    for e in path.elements:
        if isinstance(e, int):
            size += 1 if index_charge is None else index_charge + len(str(e))
        else:
            size += _name_bytes(e)
    return size


def _operand(node: ast.Node, refs: list[str]) -> int:
    """An operand's value-independent charge; the names of its value placeholders, at every
    use, are appended to ``refs`` (their sizes are the request's)."""
    node = ast.strip_parens(node)
    if isinstance(node, ast.ValueRef):
        refs.append(node.name)
        return 0
    if isinstance(node, ast.Literal):
        return V.value_size(node.value)
    if isinstance(node, ast.Path):
        return PATH_OPERAND + sum(PATH_ELEMENT + (len(str(e)) if isinstance(e, int) else _name_bytes(e))
                                  for e in node.elements)  # fmt: skip
    if isinstance(node, ast.Arith):
        return ARITH_CHARGE[node.op] + _operand(node.left, refs) + _operand(node.right, refs)
    if isinstance(node, ast.Func):
        return FUNCTION_CHARGE.get(node.name, 0) + sum(_operand(a, refs) for a in node.args)
    return 0


def _added(action: ast.Action, env: dict[str, Value] | None, old: dict[str, Value] | None) -> int:
    """The value an ADD adds: a number whole; a set only the members it does not hold yet."""
    node = action.value
    operand: Value = env[node.name] if type(node) is ast.ValueRef else node.value  # type: ignore[index,union-attr]
    ((t, members),) = operand.items()
    if t == "N":  # the common ADD: a counter
        return V.number_size(members)
    if t not in ("SS", "NS", "BS") or old is None:
        return V.value_size(operand)
    current = lookup(old, action.path.elements)
    if current is None or t not in current:
        return V.value_size(operand)
    same = V.parse_number if t == "NS" else str  # numbers by value ("1" is "1.0")
    held = {same(m) for m in current[t]}
    new = [m for m in members if same(m) not in held]
    return V.value_size({t: new}) if new else 0


Plan = tuple[int, tuple[str, ...], tuple[ast.Action, ...]]


def plan(actions: tuple[ast.Action, ...]) -> Plan:
    """What of the charge does not depend on the request's values, computed once per
    statement (``UpdateTemplate``): the fixed bytes, the value placeholders charged at their
    size, and the ADD actions (charged by what they add)."""
    static = 0
    refs: list[str] = []
    adds: list[ast.Action] = []
    for a in actions:
        kind = a.kind
        if kind == "SET":
            static += SET_CHARGE + _target(a.path) + _operand(a.value, refs)  # type: ignore[arg-type]
        elif kind == "REMOVE":
            static += REMOVE_CHARGE + _target(a.path, REMOVE_INDEX)
        elif kind == "DELETE":
            static += DELETE_CHARGE + _target(a.path)
        else:  # ADD
            static += ADD_CHARGE + _target(a.path)
            adds.append(a)
    return static, tuple(refs), tuple(adds)


def charge(p: Plan, env: dict[str, Value] | None, old: dict[str, Value] | None) -> int:
    """The bytes an UpdateExpression is charged (the module's figures), from its ``plan``."""
    static, refs, adds = p
    total = static
    if refs:
        value_size = V.value_size
        for r in refs:
            total += value_size(env[r])  # type: ignore[index]
    for a in adds:
        total += _added(a, env, old)
    return total
