"""The expression AST: immutable dataclasses shared by every expression kind.

The parser produces the *unresolved* tree: path elements are bare names, ``#name``
placeholders (strings starting with ``#``) or list indexes (ints); values are
``ValueRef(":v")``. ``resolve`` produces the *bound* tree with the same node types,
where path elements are real attribute names and values are ``Literal`` attribute
values. Legacy parameters (Expected, QueryFilter, ...) build bound trees directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

PathElement = str | int


@dataclass(frozen=True, slots=True)
class Path:
    """A document path: attribute names, ``#name`` placeholders and list indexes."""

    elements: tuple[PathElement, ...]


@dataclass(frozen=True, slots=True)
class ValueRef:
    """An ``:name`` placeholder of ExpressionAttributeValues (unresolved trees only)."""

    name: str  # ":v"


@dataclass(frozen=True, slots=True, eq=False)
class Literal:
    """An attribute value in wire form (bound trees)."""

    value: dict[str, Any]  # an attribute value in wire form


@dataclass(frozen=True, slots=True)
class Func:
    """A function call: attribute_exists, begins_with, size, if_not_exists, ..."""

    name: str
    args: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Arith:
    """SET's ``+`` or ``-`` of two operands."""

    op: str  # "+" or "-"
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Paren:
    """A parenthesised group, kept so the redundant-parentheses check can see it."""

    inner: Node


@dataclass(frozen=True, slots=True)
class Compare:
    """A comparison: ``=``, ``<>``, ``<``, ``<=``, ``>``, ``>=``."""

    op: str  # = <> < <= > >=
    left: Node
    right: Node


@dataclass(frozen=True, slots=True)
class Between:
    """``operand BETWEEN low AND high``."""

    operand: Node
    low: Node
    high: Node


@dataclass(frozen=True, slots=True)
class In:
    """``operand IN (options)``."""

    operand: Node
    options: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class And:
    """A conjunction, flattened: ``a AND b AND c`` is one node."""

    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Or:
    """A disjunction, flattened as ``And``."""

    items: tuple[Node, ...]


@dataclass(frozen=True, slots=True)
class Not:
    """``NOT operand``."""

    operand: Node


Node = Path | ValueRef | Literal | Func | Arith | Paren | Compare | Between | In | And | Or | Not
OPERANDS = (Path, ValueRef, Literal, Func, Arith)


# --- update expressions ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Action:
    """One action of an update section: SET path = value, REMOVE path, ADD/DELETE path value."""

    kind: str  # "SET", "REMOVE", "ADD", "DELETE"
    path: Path
    value: Node | None


@dataclass(frozen=True, slots=True)
class UpdateExpr:
    """An update expression: its SET / REMOVE / ADD / DELETE sections in source order."""

    sections: tuple[tuple[str, tuple[Action, ...]], ...]  # (keyword, actions) in source order

    @property
    def actions(self) -> tuple[Action, ...]:
        return tuple(a for _, actions in self.sections for a in actions)


@dataclass(frozen=True, slots=True)
class ProjectionExpr:
    """A projection expression: the paths to return."""

    paths: tuple[Path, ...]


def strip_parens(node: Node) -> Node:
    while isinstance(node, Paren):
        node = node.inner
    return node


def is_operand(node: Node) -> bool:
    return isinstance(strip_parens(node), OPERANDS)


def path_str(elements: tuple[PathElement, ...]) -> str:
    """A path as DynamoDB prints it in messages: ``[a, b, [2]]``."""
    return "[" + ", ".join(f"[{e}]" if isinstance(e, int) else e for e in elements) + "]"
