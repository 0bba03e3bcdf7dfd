"""ProjectionExpression / AttributesToGet: the part of an item a read returns.

Results are shaped as DynamoDB shapes them: nested map members keep their enclosing maps,
and list elements picked by index are gathered into a list in index order (holes
removed), e.g. ``a[2], a[0]`` of ``[x, y, z]`` gives ``[x, z]``. Paths that do not
resolve in the item are left out.
"""

from __future__ import annotations

from typing import Any

from .ast import PathElement

Item = dict[str, Any]


class Projection:
    """Compiled projection paths (real attribute names, list indexes as ints)."""

    __slots__ = ("paths", "top_names", "_simple")

    def __init__(self, paths: tuple[tuple[PathElement, ...], ...]) -> None:
        self.paths = paths
        self.top_names = frozenset(p[0] for p in paths)
        self._simple = all(len(p) == 1 for p in paths)

    def apply(self, item: Item | None) -> Item:
        if not item:
            return {}
        if self._simple:
            return {name: item[name] for (name,) in self.paths if name in item}  # type: ignore[misc]
        tree: dict[Any, Any] = {}
        for path in self.paths:
            value = _find(item, path)
            if value is not None:
                _place(tree, path, value)
        return {name: _materialise(node) for name, node in tree.items()}


def _find(item: Item, path: tuple[PathElement, ...]) -> dict[str, Any] | None:
    current = item.get(path[0])  # type: ignore[arg-type]
    for element in path[1:]:
        if current is None:
            return None
        if type(element) is int:
            items = current.get("L")
            current = items[element] if items is not None and element < len(items) else None
        else:
            members = current.get("M")
            current = members.get(element) if members is not None else None
    return current


class _Node:
    """An intermediate map (``is_list`` False) or list (keys are indexes) of the result."""

    __slots__ = ("is_list", "children")

    def __init__(self, is_list: bool) -> None:
        self.is_list = is_list
        self.children: dict[PathElement, Any] = {}


def _place(tree: dict[Any, Any], path: tuple[PathElement, ...], value: dict[str, Any]) -> None:
    children = tree
    for element, following in zip(path, path[1:], strict=False):
        node = children.get(element)
        if not isinstance(node, _Node):
            node = children[element] = _Node(type(following) is int)
        children = node.children
    children[path[-1]] = value


def _materialise(node: Any) -> dict[str, Any]:
    if not isinstance(node, _Node):
        return node
    if node.is_list:
        return {"L": [_materialise(node.children[i]) for i in sorted(node.children)]}  # type: ignore[type-var]
    return {"M": {name: _materialise(child) for name, child in node.children.items()}}
