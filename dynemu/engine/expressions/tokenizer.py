"""Tokenizer shared by every expression kind.

Tokens are ``(kind, text, start, end)`` tuples. A character that cannot begin any token
(``$``, ``_``, a lone ``#`` or ``:``, non-ASCII letters, ...) becomes a one-character ``BAD``
token: the parser never accepts it, so it is reported as DynamoDB reports an unexpected
token, ``Syntax error; token: "<text>", near: "<context>"`` — leftmost error first.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from ... import errors

NAME = "NAME"  # identifier: attribute name, keyword or function name; begins with a letter
ATTR_NAME = "ATTR_NAME"  # #placeholder (ExpressionAttributeNames)
ATTR_VALUE = "ATTR_VALUE"  # :placeholder (ExpressionAttributeValues)
NUMBER = "NUMBER"  # list index
PUNCT = "PUNCT"  # ( ) [ ] , . = <> < <= > >= + -
BAD = "BAD"
EOF = "EOF"


class Token(NamedTuple):
    kind: str
    text: str
    start: int
    end: int


# Order matters: two-character comparators before their one-character prefixes.
_TOKEN_RE = re.compile(
    r"(?P<ws>[ \t\r\n]+)"
    r"|(?P<NAME>[A-Za-z][A-Za-z0-9_]*)"
    r"|(?P<ATTR_NAME>#[A-Za-z0-9_]+)"
    r"|(?P<ATTR_VALUE>:[A-Za-z0-9_]+)"
    r"|(?P<NUMBER>[0-9]+)"
    r"|(?P<PUNCT><>|<=|>=|[()\[\],.=<>+\-])"
)


def tokenize(text: str) -> list[Token]:
    """Split ``text`` into tokens; always ends with one EOF token. Never raises."""
    tokens: list[Token] = []
    pos = 0
    size = len(text)
    match = _TOKEN_RE.match
    while pos < size:
        m = match(text, pos)
        if m is None:
            tokens.append(Token(BAD, text[pos], pos, pos + 1))
            pos += 1
            continue
        kind = m.lastgroup
        end = m.end()
        if kind != "ws":
            tokens.append(Token(kind, m.group(), pos, end))  # type: ignore[arg-type]
        pos = end
    tokens.append(Token(EOF, "<EOF>", size, size))
    return tokens


def syntax_error_detail(text: str, tokens: list[Token], index: int) -> str:
    """DynamoDB's syntax-error detail for the unexpected token ``tokens[index]``.

    ``near`` is the source from the start of the previous token to the end of the next
    one (whitespace included), as the live service reports it, e.g. ``ADD hits : incr``
    gives ``token: ":", near: "hits : incr"``; at the end of input the token is
    ``<EOF>`` and ``near`` runs from the previous token to the end.
    """
    tok = tokens[index]
    start = tokens[index - 1].start if index > 0 else tok.start
    if tok.kind == EOF:
        end = len(text)
    elif index + 1 < len(tokens) and tokens[index + 1].kind != EOF:
        end = tokens[index + 1].end
    else:
        end = tok.end
    return errors.msg_syntax_error(tok.text, text[start:end])
