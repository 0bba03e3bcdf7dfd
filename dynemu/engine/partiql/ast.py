"""PartiQL statements. Conditions, operands and paths are the expression engine's own nodes
(``dynemu.engine.expressions.ast``), so conditions are evaluated, updates applied and
projections cut by the same code as ConditionExpression, UpdateExpression and
ProjectionExpression. Parameters (``?``) are ``ValueRef("?1")``, ``?2``, ... in order;
literal maps, lists and sets that hold parameters are ``Composite`` until bound.
"""

from __future__ import annotations

from dataclasses import dataclass

from dynemu.engine.expressions import ast as ex


@dataclass(frozen=True, slots=True)
class Composite:
    """A map, list or set literal with a parameter inside: ``kind`` is M, L or SET."""

    kind: str
    entries: tuple[tuple[str, ex.Node], ...]  # (map key or "", value)


@dataclass(frozen=True, slots=True)
class Source:
    table: str
    index: str | None = None


@dataclass(frozen=True, slots=True)
class OrderBy:
    name: str
    descending: bool


@dataclass(frozen=True, slots=True)
class Select:
    source: Source
    projection: tuple[ex.Path, ...] | None  # None: *
    where: ex.Node | None
    order_by: tuple[OrderBy, ...] = ()


@dataclass(frozen=True, slots=True)
class Exists:
    """``EXISTS(SELECT ...)``: a condition check inside ExecuteTransaction."""

    select: Select


@dataclass(frozen=True, slots=True)
class Insert:
    table: str
    value: ex.Node  # a map literal (Literal or Composite)


@dataclass(frozen=True, slots=True)
class Update:
    table: str
    actions: tuple[ex.Action, ...]  # SET / REMOVE / ADD (set_add) / DELETE (set_delete)
    where: ex.Node | None  # None: refused when planned (the key is missing)
    returning: str | None = None  # ALL_OLD, UPDATED_OLD, ALL_NEW, UPDATED_NEW


@dataclass(frozen=True, slots=True)
class Delete:
    table: str
    where: ex.Node | None
    returning: str | None = None  # ALL_OLD


Statement = Select | Exists | Insert | Update | Delete


def is_read(statement: Statement) -> bool:
    return isinstance(statement, Select)


def table_of(statement: Statement) -> str:
    if isinstance(statement, Select):
        return statement.source.table
    if isinstance(statement, Exists):
        return statement.select.source.table
    return statement.table


@dataclass(frozen=True, slots=True)
class SetOperand:
    """The second argument of ``set_add`` / ``set_delete`` when it is a parameter: once bound
    it must be a set (``function`` and ``position`` name it in the message)."""

    value: ex.Node
    function: str  # SET_ADD or SET_DELETE
    position: str  # line:column:length of the function's first argument
