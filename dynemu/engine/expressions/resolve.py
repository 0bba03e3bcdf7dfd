"""Substitution of ExpressionAttributeNames / ExpressionAttributeValues, once per request.

Runs after the checks, so every placeholder is defined. Produces the *bound* tree:
placeholders replaced by real names and ``Literal`` values, parentheses dropped. The
placeholders seen are recorded so the request can reject unused ones afterwards.
"""

from __future__ import annotations

from typing import Any

from . import ast


class Resolver:
    __slots__ = ("names", "values", "used_names", "used_values")

    def __init__(self, names: dict[str, str], values: dict[str, dict[str, Any]]) -> None:
        self.names = names
        self.values = values
        self.used_names: set[str] = set()
        self.used_values: set[str] = set()

    def path(self, path: ast.Path) -> ast.Path:
        if not any(isinstance(e, str) and e[:1] == "#" for e in path.elements):
            return path
        elements: list[ast.PathElement] = []
        for e in path.elements:
            if isinstance(e, str) and e[:1] == "#":
                self.used_names.add(e)
                e = self.names[e]
            elements.append(e)
        return ast.Path(tuple(elements))

    def bind(self, node: ast.Node) -> ast.Node:
        return _BINDERS[type(node)](self, node)

    def update(self, expr: ast.UpdateExpr) -> tuple[ast.Action, ...]:
        return tuple(
            ast.Action(a.kind, self.path(a.path), self.bind(a.value) if a.value is not None else None)
            for a in expr.actions
        )

    def projection(self, expr: ast.ProjectionExpr) -> tuple[ast.Path, ...]:
        return tuple(self.path(p) for p in expr.paths)


def _bind_value(r: Resolver, node: ast.ValueRef) -> ast.Node:
    r.used_values.add(node.name)
    return ast.Literal(r.values[node.name])


_BINDERS: dict[type, Any] = {
    ast.Paren: lambda r, n: r.bind(n.inner),
    ast.Path: lambda r, n: r.path(n),
    ast.ValueRef: _bind_value,
    ast.Literal: lambda r, n: n,
    ast.Func: lambda r, n: ast.Func(n.name, tuple([r.bind(a) for a in n.args])),
    ast.Arith: lambda r, n: ast.Arith(n.op, r.bind(n.left), r.bind(n.right)),
    ast.Compare: lambda r, n: ast.Compare(n.op, r.bind(n.left), r.bind(n.right)),
    ast.Between: lambda r, n: ast.Between(r.bind(n.operand), r.bind(n.low), r.bind(n.high)),
    ast.In: lambda r, n: ast.In(r.bind(n.operand), tuple([r.bind(o) for o in n.options])),
    ast.And: lambda r, n: ast.And(tuple([r.bind(i) for i in n.items])),
    ast.Or: lambda r, n: ast.Or(tuple([r.bind(i) for i in n.items])),
    ast.Not: lambda r, n: ast.Not(r.bind(n.operand)),
}
