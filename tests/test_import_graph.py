"""dynemu's modules import each other without cycles.

The graph is built from the sources with ``ast`` (nothing is imported): an edge for every
``import`` at module level, including those under ``if TYPE_CHECKING:`` (a cycle hidden there
is still a cycle a reader has to untangle). Imports inside functions (deferred: optional
dependencies, start-up time) are a graph of their own, which must not close a cycle either.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dynemu"

def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


def _package_of(path: Path) -> str:
    name = module_name(path)
    return name if path.name == "__init__.py" else name.rpartition(".")[0]


def _targets(node: ast.Import | ast.ImportFrom, package: str, modules: set[str]) -> set[str]:
    """The dynemu modules one import statement of a module of ``package`` imports."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names if a.name in modules}
    base = node.module or ""
    if node.level:
        parts = package.split(".")[: len(package.split(".")) - node.level + 1]
        base = ".".join([*parts, base] if base else parts)
    found = {f"{base}.{a.name}" for a in node.names} & modules
    if len(found) < len(node.names) and base in modules:
        found.add(base)  # names defined in the module (or package) itself
    return found


def imports(path: Path, modules: set[str]) -> tuple[set[str], set[str]]:
    """The dynemu modules ``path`` imports at module level: (always, only when type checking)."""
    name = module_name(path)
    package = _package_of(path)
    always: set[str] = set()
    typing_only: set[str] = set()

    def visit(body: list[ast.stmt], target: set[str]) -> None:
        for node in body:
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                target |= _targets(node, package, modules)
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


def imports_in_functions(path: Path, modules: set[str]) -> set[str]:
    """The dynemu modules ``path`` imports inside its functions (anywhere in their bodies)."""
    package = _package_of(path)
    found: set[str] = set()
    for fn in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for node in ast.walk(fn):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    found |= _targets(node, package, modules)
    found.discard(module_name(path))
    return found


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
    assert [sorted(c) for c in cycles(both)] == []  # not even one through a type-only import
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    every = {name: both[name] | imports_in_functions(paths[name], set(paths)) for name in both}
    assert [sorted(c) for c in cycles(every)] == []  # nor one through an import inside a function


def test_imports_inside_functions_are_seen() -> None:
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    inner = imports_in_functions(paths["dynemu.storage.select"], set(paths))
    assert {"dynemu.storage.memory", "dynemu.storage.sqlite", "dynemu.storage.leveldb"} <= inner
    assert "dynemu.storage.sqlite" not in imports(paths["dynemu.storage.select"], set(paths))[0]


def test_the_graph_sees_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [frozenset({"a", "b", "c"})]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_from_imports_are_edges_and_type_only_ones_are_told_apart() -> None:
    always, typing_only = build()
    assert {"dynemu.engine.table", "dynemu.storage.keyspace"} <= always["dynemu.engine.ttl"]
    assert "dynemu.engine.namespace" in always["dynemu.engine.lifecycle"]
    assert "dynemu.engine.namespace" in typing_only["dynemu.engine.reads"]
    assert "dynemu.engine.namespace" not in always["dynemu.engine.reads"]
