"""dynemu's modules import each other without cycles.

The graph is built from the sources with ``ast`` (nothing is imported): an edge for every
``import`` at module level, including those under ``if TYPE_CHECKING:`` (a cycle hidden there
is still a cycle a reader has to untangle). Imports inside functions are not edges.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dynemu"

# Cycles that exist only through an ``if TYPE_CHECKING:`` import, each kept for a reason given
# here; every other cycle fails the test. Remove an entry when its cycle is gone.
ALLOWED_TYPE_ONLY = {
    # Namespace.execute hands writes to the write executor, whose functions take the
    # Namespace they write to (engine/writes.py's to untangle, issue 30).
    frozenset({"dynemu.engine.namespace", "dynemu.engine.writes"}),
    # A capacity policy reads the throughput state it is a policy of (engine/capacity, issue 30).
    frozenset({"dynemu.engine.capacity.policies", "dynemu.engine.capacity.throughput"}),
    # The dashboard's routes are added to the admin application it is served by (api/, issue 30).
    frozenset({"dynemu.api.admin", "dynemu.api.dashboard"}),
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


def imports(path: Path, modules: set[str]) -> tuple[set[str], set[str]]:
    """The dynemu modules ``path`` imports at module level: (always, only when type checking)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    always: set[str] = set()
    typing_only: set[str] = set()

    def add(target: set[str], node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            target.update(a.name for a in node.names if a.name in modules)
            return
        base = node.module or ""
        if node.level:
            parts = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join([*parts, base] if base else parts)
        submodules = {f"{base}.{a.name}" for a in node.names} & modules
        target.update(submodules)
        if len(submodules) < len(node.names) and base in modules:
            target.add(base)  # names defined in the module (or package) itself

    def visit(body: list[ast.stmt], target: set[str]) -> None:
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                add(target, node)
            elif isinstance(node, ast.If):
                visit(node.body, typing_only if _is_type_checking(node) else target)
                visit(node.orelse, target)
            elif isinstance(node, ast.Try):
                for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                    visit(block, target)
            elif isinstance(node, ast.With):
                visit(node.body, target)

    visit(ast.parse(path.read_text(encoding="utf-8")).body, always)
    always.discard(name)
    typing_only.discard(name)
    return always, typing_only - always


def cycles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def build() -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    modules = set(paths)
    always: dict[str, set[str]] = {}
    typing_only: dict[str, set[str]] = {}
    for name, path in paths.items():
        always[name], typing_only[name] = imports(path, modules)
    return always, typing_only


def test_no_import_cycle_in_dynemu() -> None:
    always, typing_only = build()
    assert cycles(always) == []
    both = {name: always[name] | typing_only[name] for name in always}
    unexplained = [sorted(c) for c in cycles(both) if c not in ALLOWED_TYPE_ONLY]
    assert unexplained == []


def test_the_graph_sees_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [frozenset({"a", "b", "c"})]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_from_imports_are_edges_and_type_only_ones_are_told_apart() -> None:
    always, typing_only = build()
    assert {"dynemu.engine.table", "dynemu.storage.keyspace"} <= always["dynemu.engine.ttl"]
    assert "dynemu.engine.namespace" in always["dynemu.engine.lifecycle"]
    assert "dynemu.engine.namespace" in typing_only["dynemu.engine.writes"]
