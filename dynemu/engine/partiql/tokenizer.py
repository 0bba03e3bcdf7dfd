"""The PartiQL tokenizer: statement text -> tokens with their line, column and length.

DynamoDB parses PartiQL with the grammar of the PartiQL reference implementation (the PartiQL
specification, partiql.org; docs/rules.md, "PartiQL"): names bare or in double quotes,
strings in single quotes (a quote doubled inside), decimal numbers, ``?`` parameters, lists
``[]``, structs ``{}``, bags ``<< >>``, operators, and comments (``-- ...`` to the end of the
line, ``/* ... */``). Keywords are case-insensitive; the SQL-92 reserved words and PartiQL's
own are keywords wherever they appear, so an attribute named like one must be quoted.
A few words pair up into one token (``NOT IN``, ``IS NOT``, ``INSERT INTO``, ``ALL OLD``,
``CHARACTER VARYING`` ...), and some type names are aliases (``INT`` for ``INTEGER``).

Anything the tokenizer cannot read (a stray character such as ``#``, an unterminated quote
or comment, a number whose exponent or scale does not fit a 32-bit integer) is a lexical
error: DynamoDB answers those with the bare "Statement wasn't well formed, can't be
processed: " and nothing after it.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from dynemu import errors

NAME = "NAME"  # a bare name (not a keyword)
QNAME = "QNAME"  # a "double-quoted" name
KEYWORD = "KEYWORD"  # text: the keyword in lower case, after aliases and pairing
OPERATOR = "OPERATOR"  # + - * / % || = <> < <= > >= and or not is in like between, paired forms
STRING = "STRING"
NUMBER = "NUMBER"
LITERAL = "LITERAL"  # true, false, null, missing (text: lower case)
PUNCT = "PUNCT"  # ( ) [ ] { } << >> , . : ; ? *
EOF = "EOF"

_INT32 = 2**31

# SQL-92's reserved words and PartiQL's additions (the PartiQL specification, "Keywords").
_KEYWORDS = frozenset("""
absolute action add all allocate alter any are as asc assertion at authorization avg begin
bit bit_length by cascade cascaded case cast catalog char character character_length
char_length check close coalesce collate collation column commit connect connection
constraint constraints continue convert corresponding count create cross current current_date
current_time current_timestamp current_user cursor date deallocate dec decimal declare default
deferrable deferred delete desc describe descriptor diagnostics disconnect distinct domain
double drop else end end-exec escape except exception exec execute exists external extract
date_add date_diff fetch first float for foreign found from full get global go goto grant
group having identity immediate indicator initially inner input insensitive insert int
integer intersect interval into isolation join key language last left level local lower
match max min module names national natural nchar next no nullif numeric octet_length of on
only open option order outer output overlaps pad partial position precision prepare preserve
primary prior privileges procedure public read real references relative restrict revoke right
rollback rows schema scroll section select session session_user set size smallint some space
sql sqlcode sqlerror sqlstate substring sum system_user table temporary then time timestamp to
transaction translate translation trim union unique unknown update upper usage user using
value values varchar varying view when whenever where with work write zone
can_cast can_lossless_cast pivot unpivot limit offset tuple remove index let integer2 int2
integer4 int4 integer8 int8 bigint conflict do nothing returning modified new old bool boolean
string symbol clob blob struct list sexp bag
""".split())
_OPERATOR_WORDS = frozenset(("and", "or", "not", "is", "in", "like", "between"))
_LITERAL_WORDS = frozenset(("true", "false", "null", "missing"))
_TYPE_ALIASES = {"varchar": "character_varying", "char": "character", "dec": "decimal", "int": "integer",
                 "int2": "smallint", "integer2": "smallint", "int4": "integer4", "int8": "integer8",
                 "bigint": "integer8", "bool": "boolean"}
# two words read as one token, and the kind of that token
_PAIRS = {("not", "in"): OPERATOR, ("is", "not"): OPERATOR, ("not", "between"): OPERATOR,
          ("not", "like"): OPERATOR, ("character", "varying"): KEYWORD, ("double", "precision"): KEYWORD,
          ("insert", "into"): KEYWORD, ("modified", "old"): KEYWORD, ("modified", "new"): KEYWORD,
          ("all", "old"): KEYWORD, ("all", "new"): KEYWORD}


class Token(NamedTuple):
    kind: str
    text: str  # NAME: as written; QNAME/STRING: unquoted; KEYWORD/OPERATOR/LITERAL: lower case
    line: int  # 1-based
    column: int  # 1-based
    length: int  # characters in the statement

    @property
    def position(self) -> str:
        """``line:column:length``, as DynamoDB's semantic messages place a token."""
        return f"{self.line}:{self.column}:{self.length}"


_TOKEN_RE = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<comment>--[^\n]*|/\*.*?\*/)"
    r"|(?P<word>[A-Za-z_][A-Za-z0-9_$]*)"
    r"|(?P<QNAME>\"(?:[^\"]|\"\")*\")"
    r"|(?P<STRING>'(?:[^']|'')*')"
    r"|(?P<NUMBER>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    r"|(?P<PUNCT><<|>>|[()\[\]{},.:;?*])"
    r"|(?P<OPERATOR><>|!=|<=|>=|\|\||[=<>+\-/%])",
    re.DOTALL,
)


def lexical_error() -> errors.DynamoError:
    return errors.validation(errors.MSG_MALFORMED)


def _check_number(text: str) -> None:
    """A number is a decimal whose exponent and scale are 32-bit integers (a Java BigDecimal)."""
    mantissa, _, exponent = text.lower().partition("e")
    if not exponent:
        return
    fraction = len(mantissa.partition(".")[2])
    if len(exponent) > 12:
        raise lexical_error()
    exp = int(exponent)
    if not -_INT32 <= exp < _INT32 or not -_INT32 <= fraction - exp < _INT32:
        raise lexical_error()


def tokenize(text: str) -> list[Token]:
    """``text`` as tokens ending with one EOF token; a lexical error raises."""
    raw: list[Token] = []
    pos, line, line_start = 0, 1, 0
    size = len(text)
    while pos < size:
        m = _TOKEN_RE.match(text, pos)
        if m is None:
            raise lexical_error()  # a character no token starts with, an open quote or comment
        kind, lexeme, end = m.lastgroup, m.group(), m.end()
        column = pos - line_start + 1
        if kind == "word":
            raw.append(_word(lexeme, line, column))
        elif kind == "QNAME":
            raw.append(Token(QNAME, lexeme[1:-1].replace('""', '"'), line, column, len(lexeme)))
        elif kind == "STRING":
            raw.append(Token(STRING, lexeme[1:-1].replace("''", "'"), line, column, len(lexeme)))
        elif kind == "NUMBER":
            _check_number(lexeme)
            raw.append(Token(NUMBER, lexeme, line, column, len(lexeme)))
        elif kind in ("OPERATOR", "PUNCT"):
            raw.append(Token(kind, "<>" if lexeme == "!=" else lexeme, line, column, len(lexeme)))
        newlines = lexeme.count("\n")
        if newlines:
            line += newlines
            line_start = pos + lexeme.rindex("\n") + 1
        pos = end
    if "/*" in text and _open_comment(text):
        raise lexical_error()
    return _pair(raw) + [Token(EOF, "", line, size - line_start + 1, 0)]


def _open_comment(text: str) -> bool:
    """Whether a ``/*`` outside quotes is never closed (the regex then read it as ``/`` ``*``)."""
    stripped = re.sub(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|--[^\n]*|/\*.*?\*/", "", text, flags=re.DOTALL)
    return "/*" in stripped


def _word(lexeme: str, line: int, column: int) -> Token:
    lower = lexeme.lower()
    if lower in _OPERATOR_WORDS:
        return Token(OPERATOR, lower, line, column, len(lexeme))
    if lower in _LITERAL_WORDS:
        return Token(LITERAL, lower, line, column, len(lexeme))
    if lower in _KEYWORDS:
        return Token(KEYWORD, _TYPE_ALIASES.get(lower, lower), line, column, len(lexeme))
    return Token(NAME, lexeme, line, column, len(lexeme))


def _pair(tokens: list[Token]) -> list[Token]:
    out: list[Token] = []
    for t in tokens:
        if out and t.kind in (KEYWORD, OPERATOR, LITERAL):
            last = out[-1]
            kind = _PAIRS.get((last.text, t.text)) if last.kind in (KEYWORD, OPERATOR) else None
            if kind is not None:
                length = t.column + t.length - last.column if t.line == last.line else last.length
                out[-1] = Token(kind, f"{last.text}_{t.text}", last.line, last.column, length)
                continue
        out.append(t)
    return out
