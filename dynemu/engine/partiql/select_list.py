"""A PartiQL SELECT list: the projection of a SELECT, with PartiQL's naming of nested paths.

``SELECT mymap.nested FROM t`` answers ``{"nested": ...}``: a path into a map is returned under
its last name, not nested under its top-level attribute as a ProjectionExpression returns it
(as the service answers; issue 24). Paths of one name, or ending in a list index, are
projected as a ProjectionExpression would project them.
"""

from __future__ import annotations

from typing import Any

from dynemu.engine.expressions import Projection
from dynemu.engine.expressions.ast import PathElement

Item = dict[str, Any]


def _descend(tree: Item, path: tuple[PathElement, ...]) -> Any:
    """The value at ``path`` in the result of projecting ``path`` alone (lists projected by
    one path keep one element)."""
    node: Any = tree.get(path[0])  # type: ignore[arg-type]
    for element in path[1:]:
        if node is None:
            return None
        node = node["L"][0] if type(element) is int else node["M"].get(element)
    return node


class SelectList(Projection):
    """``Projection.apply``, with nested map paths keyed by their last name."""

    __slots__ = ("_plain", "_named")

    def __init__(self, paths: tuple[tuple[PathElement, ...], ...]) -> None:
        super().__init__(paths)
        named = tuple(p for p in paths if len(p) > 1 and type(p[-1]) is str)
        plain = tuple(p for p in paths if p not in named)
        self._plain = Projection(plain) if plain else None
        self._named = tuple((str(p[-1]), p, Projection((p,))) for p in named)

    def apply(self, item: Item | None) -> Item:
        if not self._named:
            return super().apply(item)
        if not item:
            return {}
        out = self._plain.apply(item) if self._plain is not None else {}
        for name, path, alone in self._named:
            value = _descend(alone.apply(item), path)
            if value is not None:
                out[name] = value
        return out


def select_list(paths: tuple[tuple[PathElement, ...], ...]) -> Projection:
    """The projection of a SELECT list: a plain Projection unless some path is nested."""
    if any(len(p) > 1 and type(p[-1]) is str for p in paths):
        return SelectList(paths)
    return Projection(paths)
