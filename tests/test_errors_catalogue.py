"""Each message has one home: no text is defined twice across dynemu/errors/*.py."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

import dynemu.errors

ERRORS_DIR = Path(dynemu.errors.__file__).parent


def _texts(tree: ast.Module) -> list[tuple[str, int]]:
    """Every message of a module: its constants' strings and its f-strings, with each
    placeholder written ``{}`` (so ``f"... {name}"`` and ``"... {name}"`` compare equal)."""
    out = []
    parts = {id(p) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for p in n.values}
    for node in ast.walk(tree):
        if id(node) in parts:  # a piece of an f-string, compared as the whole f-string
            continue
        if isinstance(node, ast.JoinedStr):
            text = "".join(p.value if isinstance(p, ast.Constant) else "{}" for p in node.values)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = re.sub(r"\{[^}]*\}", "{}", node.value)
        else:
            continue
        if " " in text.strip() and len(text) > 15:  # a sentence, not a type name or a fragment
            out.append((text, node.lineno))
    return out


def test_no_message_is_defined_twice() -> None:
    where: dict[str, list[str]] = defaultdict(list)
    for path in sorted(ERRORS_DIR.glob("*.py")):
        tree = ast.parse(path.read_text())
        docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                      if isinstance(n, ast.Module | ast.FunctionDef | ast.ClassDef) and n.body
                      and isinstance(n.body[0], ast.Expr)}
        for text, line in _texts(tree):
            where[text].append(f"{path.name}:{line}")
        for node in ast.walk(tree):  # docstrings are not messages
            if id(node) in docstrings and isinstance(node, ast.Constant):
                where.pop(re.sub(r"\{[^}]*\}", "{}", node.value), None)
    twice = {text: places for text, places in where.items() if len(places) > 1}
    assert twice == {}
