"""The PartiQL tokenizer: statement text -> tokens with their line and column.

DynamoDB's PartiQL (developer guide, "PartiQL data types for DynamoDB" and "PartiQL
statements"): strings in single quotes (a quote doubled inside), names bare or in double
quotes, numbers, ``?`` parameters, maps ``{}``, lists ``[]``, sets ``<< >>`` and the
comparison and arithmetic operators. Keywords are case-insensitive.
"""

from __future__ import annotations

import re
from typing import NamedTuple

IDENT = "IDENT"  # a bare name or keyword
QIDENT = "QIDENT"  # a "double-quoted" name
STRING = "STRING"  # a 'single-quoted' string
NUMBER = "NUMBER"
PUNCT = "PUNCT"
BAD = "BAD"
EOF = "EOF"


class Token(NamedTuple):
    kind: str
    text: str  # IDENT: as written; QIDENT/STRING: the unquoted value
    start: int  # offset in the statement
    line: int  # 1-based
    column: int  # 1-based


_TOKEN_RE = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<comment>--[^\n]*)"
    r"|(?P<IDENT>[A-Za-z_][A-Za-z0-9_$]*)"
    r"|(?P<QIDENT>\"(?:[^\"]|\"\")*\")"
    r"|(?P<STRING>'(?:[^']|'')*')"
    r"|(?P<NUMBER>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    r"|(?P<PUNCT><<|>>|<>|!=|<=|>=|[()\[\]{},.:*?=<>+\-;])"
)


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens ending with one EOF token. Never raises: a character that
    starts no token (or an unterminated quote) becomes a BAD token the parser reports."""
    tokens: list[Token] = []
    pos, line, line_start = 0, 1, 0
    size = len(text)
    while pos < size:
        m = _TOKEN_RE.match(text, pos)
        column = pos - line_start + 1
        if m is None:
            tokens.append(Token(BAD, text[pos], pos, line, column))
            pos += 1
            continue
        kind, raw, end = m.lastgroup, m.group(), m.end()
        if kind == "QIDENT":
            tokens.append(Token(QIDENT, raw[1:-1].replace('""', '"'), pos, line, column))
        elif kind == "STRING":
            tokens.append(Token(STRING, raw[1:-1].replace("''", "'"), pos, line, column))
        elif kind not in ("ws", "comment"):
            tokens.append(Token(kind, raw, pos, line, column))  # type: ignore[arg-type]
        newlines = raw.count("\n")
        if newlines:
            line += newlines
            line_start = pos + raw.rindex("\n") + 1
        pos = end
    tokens.append(Token(EOF, "", size, line, size - line_start + 1))
    return tokens
