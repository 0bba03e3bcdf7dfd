"""PartiQL's grammar, as DynamoDB parses it: tokens -> a syntax tree of ``Syntax`` nodes.

The whole statement is one expression (the PartiQL specification's model, and its reference
implementation's): ``SELECT``, ``UPDATE``, ``DELETE``, ``FROM`` and ``INSERT INTO`` open terms
of their own, operators bind by precedence (OR < AND < NOT < = <> IS IN < comparisons,
BETWEEN, LIKE < + - || < * / %), and a path is a term followed by ``.name`` and ``[expr]``
steps. What this module refuses is a syntax error; its texts are the reference
implementation's documented parser errors, which DynamoDB prints after "Statement wasn't
well formed, can't be processed: " with no position (docs/rules.md, "PartiQL").

The statements of DynamoDB's PartiQL (developer guide, "PartiQL statements for DynamoDB"):

    SELECT item [, ...] FROM source [WHERE expr] [ORDER BY expr [ASC|DESC], ...]
    INSERT INTO name VALUE expr
    UPDATE name (SET path = expr, ... | REMOVE path)... [WHERE expr] [RETURNING ...]
    FROM name [WHERE expr] (SET ... | REMOVE ...)... [RETURNING ...]
    DELETE FROM name [WHERE expr] [RETURNING ...]
    EXISTS(SELECT ...)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dynemu import errors
from dynemu.engine.partiql.tokenizer import (
    EOF,
    KEYWORD,
    LITERAL,
    NAME,
    NUMBER,
    OPERATOR,
    PUNCT,
    QNAME,
    STRING,
    Token,
    tokenize,
)

# Nesting of parentheses, NOT, functions, operators and collections: deeper statements are
# refused before they could exhaust the parser's or the evaluator's stack (dynemu's limit).
MAX_DEPTH = 50

_PRECEDENCE = {"or": 10, "and": 20, "=": 40, "<>": 40, "is": 40, "is_not": 40, "in": 40, "not_in": 40,
               "<": 50, "<=": 50, ">": 50, ">=": 50, "between": 50, "not_between": 50, "like": 50,
               "not_like": 50, "+": 60, "-": 60, "||": 60, "*": 70, "/": 70, "%": 70}
_NOT_PRECEDENCE = 30
_SELECT_PRECEDENCE = 6
_FUNCTION_KEYWORDS = frozenset(("exists", "count", "avg", "max", "min", "sum", "substring", "char_length",
                                "character_length", "octet_length", "bit_length", "upper", "lower", "size",
                                "sexp", "list", "bag"))
_DML_KEYWORDS = frozenset(("insert_into", "set", "remove"))
_TERM_KEYWORDS = _DML_KEYWORDS | {"select", "update", "delete", "from"}
TYPE_NAMES = frozenset(("missing", "null", "boolean", "smallint", "integer4", "integer8", "integer", "float", "real",
                        "double_precision", "decimal", "numeric", "timestamp", "date", "time", "character",
                        "character_varying", "string", "symbol", "clob", "blob", "struct", "tuple", "list", "sexp",
                        "bag", "any"))
_RETURNING = frozenset(("modified_old", "modified_new", "all_old", "all_new"))


# --- the syntax tree ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Syntax:
    """A node; ``token`` is the token it starts at (its position in messages)."""

    token: Token


@dataclass(frozen=True, slots=True)
class Name(Syntax):  # a variable reference: a bare or quoted name
    pass


@dataclass(frozen=True, slots=True)
class Lit(Syntax):  # a string, number, true/false/null/missing; ``negative``: folded unary minus
    negative: bool = False


@dataclass(frozen=True, slots=True)
class Param(Syntax):
    index: int  # 1-based, in order of appearance


@dataclass(frozen=True, slots=True)
class Star(Syntax):  # ``*``: SELECT *, RETURNING *, a path's ``.*`` / ``[*]``, COUNT(*)
    pass


@dataclass(frozen=True, slots=True)
class Path(Syntax):
    root: Syntax
    steps: tuple[str | Syntax, ...]  # a name after ``.``, or the expression inside ``[ ]``


@dataclass(frozen=True, slots=True)
class Call(Syntax):
    name: str  # lower case
    args: tuple[Syntax, ...]


@dataclass(frozen=True, slots=True)
class Unary(Syntax):
    op: str  # not, -, +
    operand: Syntax


@dataclass(frozen=True, slots=True)
class Binary(Syntax):
    op: str  # as the token reads (lower case words, ``<>`` for ``!=``); ``token`` is the operator
    left: Syntax
    right: Syntax


@dataclass(frozen=True, slots=True)
class Ternary(Syntax):  # BETWEEN / NOT BETWEEN, LIKE ... ESCAPE
    op: str
    operands: tuple[Syntax, Syntax, Syntax]


@dataclass(frozen=True, slots=True)
class TypeTest(Syntax):  # x IS [NOT] type
    negated: bool
    operand: Syntax
    type_name: str


@dataclass(frozen=True, slots=True)
class Seq(Syntax):  # [a, b] list, << a, b >> bag, (a, b) row
    kind: str  # list, bag
    items: tuple[Syntax, ...]


@dataclass(frozen=True, slots=True)
class Struct(Syntax):
    entries: tuple[tuple[Syntax, Syntax], ...]


@dataclass(frozen=True, slots=True)
class Source(Syntax):
    expr: Syntax
    aliased: bool


@dataclass(frozen=True, slots=True)
class SelectSyntax(Syntax):
    items: tuple[Syntax, ...]  # (Star,) for SELECT *
    source: Source
    where: Syntax | None
    order_by: tuple[tuple[Syntax, bool], ...]  # (expression, descending)
    unsupported: str | None = None  # DISTINCT, VALUE, an item alias: parsed, not run


@dataclass(frozen=True, slots=True)
class Operation(Syntax):
    kind: str  # set (one assignment), remove, insert
    target: Syntax
    value: Syntax | None = None
    value_form: bool = True  # insert: INSERT INTO name VALUE expr (not the legacy form)


@dataclass(frozen=True, slots=True)
class DmlSyntax(Syntax):
    kind: str  # update, from, delete, insert
    source: Source
    operations: tuple[Operation, ...]
    where: Syntax | None
    returning: tuple[tuple[str, Syntax], ...] = field(default=())  # (mapping, column)


# --- the parser -------------------------------------------------------------------------------------


def parse_syntax(text: str) -> tuple[Syntax, int]:
    """The statement's syntax tree and its number of ``?`` parameters."""
    p = _Parser(tokenize(text))
    node = p.expression()
    t = p.peek()
    if t.kind != EOF:
        if t.text == ";" and t.kind == PUNCT:
            if p.peek(1).kind != EOF:
                raise malformed(errors.MSG_AFTER_SEMICOLON)
        else:
            raise malformed(errors.MSG_AFTER_EXPRESSION)
    return node, p.params


def malformed(detail: str) -> errors.DynamoError:
    return errors.validation(errors.MSG_MALFORMED + detail)


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.i = 0
        self.params = 0
        self.depth = 0

    # --- tokens -----------------------------------------------------------------------------------

    def peek(self, ahead: int = 0) -> Token:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def take(self) -> Token:
        t = self.tokens[self.i]
        self.i = min(self.i + 1, len(self.tokens) - 1)
        return t

    def at(self, kind: str, text: str, ahead: int = 0) -> bool:
        t = self.peek(ahead)
        return t.kind == kind and t.text == text

    def accept(self, kind: str, text: str) -> bool:
        if self.at(kind, text):
            self.take()
            return True
        return False

    def expect(self, text: str, what: str) -> None:
        """A closing or separating token; ``what``: its name in the message."""
        if not self.accept(PUNCT, text):
            raise malformed(errors.msg_expected_token(what))

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise malformed(errors.msg_nested_too_deeply(self.peek().position))

    # --- expressions --------------------------------------------------------------------------------

    def expression(self, precedence: int = -1) -> Syntax:
        self.enter()
        left = self.unary_term()
        while True:
            op = self.peek()
            strength = _infix(op)
            if strength is None or precedence >= strength:
                break
            self.take()
            left = self.infix(op, left, strength)
        self.depth -= 1
        return left

    def infix(self, op: Token, left: Syntax, strength: int) -> Syntax:
        if op.text in ("is", "is_not"):
            return TypeTest(op, op.text == "is_not", left, self.type_name())
        if op.text in ("in", "not_in") and self.at(PUNCT, "(") and not self._subquery(1):
            start = self.take()
            items = self.arguments()
            self.expect(")", "RIGHT_PAREN")
            return Binary(op, op.text, left, Seq(start, "list", items))
        right = self.right_operand(strength)
        if op.text in ("between", "not_between"):
            if not self.accept(OPERATOR, "and"):
                raise malformed(errors.msg_expected_keyword("AND"))
            if self.peek().kind == EOF:
                raise malformed(errors.MSG_EXPRESSION_AFTER_AND)
            return Ternary(op, op.text, (left, right, self.expression(strength)))
        if op.text in ("like", "not_like") and self.at(KEYWORD, "escape"):
            self.take()
            return Ternary(op, op.text, (left, right, self.expression(strength)))
        return Binary(op, op.text, left, right)

    def right_operand(self, strength: int) -> Syntax:
        if self.peek().kind == EOF:
            raise malformed(errors.MSG_MISSING_RIGHT_HAND_SIDE)
        return self.expression(strength)

    def _subquery(self, ahead: int) -> bool:
        t = self.peek(ahead)
        return t.kind == KEYWORD and t.text in ("select", "values")

    def unary_term(self) -> Syntax:
        t = self.peek()
        if t.kind == OPERATOR and t.text in ("+", "-", "not"):
            self.take()
            self._term_starts()  # a missing operand is reported as the term's error
            if t.text == "not":
                return Unary(t, "not", self.expression(_NOT_PRECEDENCE))
            self.enter()
            term = self.unary_term()
            self.depth -= 1
            if isinstance(term, Lit) and term.token.kind == NUMBER:
                return Lit(term.token, term.negative != (t.text == "-"))
            return Unary(t, t.text, term)
        return self.path_term()

    def _term_starts(self) -> None:
        """Refuse, as ``term`` would, a token no term starts with (checked up front, so that
        NOT NOT ... is read once)."""
        t = self.peek()
        if t.kind == OPERATOR:
            if t.text not in ("+", "-", "not"):
                raise malformed(errors.MSG_UNEXPECTED_OPERATOR)
        elif t.kind == KEYWORD:
            if t.text not in _TERM_KEYWORDS and not (t.text in _FUNCTION_KEYWORDS and self.at(PUNCT, "(", 1)):
                raise malformed(errors.MSG_UNEXPECTED_KEYWORD)
        elif t.kind == PUNCT:
            if t.text not in ("?", "(", "[", "<<", "{"):
                raise malformed(errors.MSG_UNEXPECTED_TERM)
        elif t.kind == EOF:
            raise malformed(errors.MSG_UNEXPECTED_TERM)

    def path_term(self, simple: bool = False) -> Syntax:
        if simple:
            t = self.peek()
            if t.kind not in (NAME, QNAME):
                raise malformed(errors.MSG_SIMPLE_PATH_IDENTIFIER)
            term: Syntax = Name(self.take())
        else:
            term = self.term()
        steps: list[str | Syntax] = []
        while True:
            if self.accept(PUNCT, "."):
                t = self.peek()
                if t.kind in (NAME, QNAME):
                    steps.append(self.take().text)
                elif t.kind == PUNCT and t.text == "*" and not simple:
                    steps.append(Star(self.take()))
                else:
                    raise malformed(errors.MSG_PATH_DOT_COMPONENT_SIMPLE if simple and t.text == "*"
                                    else errors.MSG_PATH_DOT_COMPONENT)
            elif self.at(PUNCT, "["):
                self.take()
                index: Syntax = Star(self.take()) if self.at(PUNCT, "*") else self.expression()
                self.expect("]", "RIGHT_BRACKET")
                if simple and not isinstance(index, Lit):
                    raise malformed(errors.MSG_PATH_COMPONENT_SIMPLE)
                steps.append(index)
            else:
                break
        return Path(term.token, term, tuple(steps)) if steps else term

    def term(self) -> Syntax:
        t = self.peek()
        if t.kind == OPERATOR:
            raise malformed(errors.MSG_UNEXPECTED_OPERATOR)
        if t.kind == KEYWORD:
            return self.keyword_term(t)
        if t.kind in (NAME, QNAME):
            self.take()
            return self.call(t) if self.at(PUNCT, "(") else Name(t)
        if t.kind in (LITERAL, STRING, NUMBER):
            return Lit(self.take())
        if t.kind == PUNCT:
            if t.text == "?":
                self.take()
                self.params += 1
                return Param(t, self.params)
            if t.text == "(":
                self.take()
                items = self.arguments()
                self.expect(")", "RIGHT_PAREN")
                return items[0] if len(items) == 1 else Seq(t, "list", items)
            if t.text in ("[", "<<"):
                return self.sequence(t)
            if t.text == "{":
                return self.struct(t)
        raise malformed(errors.MSG_UNEXPECTED_TERM)

    def keyword_term(self, t: Token) -> Syntax:
        word = t.text
        self.take()
        statements = {"select": self.select, "update": self.update, "delete": self.delete, "from": self.from_first}
        if word in statements:
            self.enter()
            node = statements[word](t)
            self.depth -= 1
            return node
        if word in _DML_KEYWORDS:
            self.i -= 1
            op = self.operation()
            return DmlSyntax(t, "insert", Source(op.target.token, op.target, False), (op,), None)
        if word in _FUNCTION_KEYWORDS and self.at(PUNCT, "("):
            return self.call(t)
        raise malformed(errors.MSG_UNEXPECTED_KEYWORD)

    def call(self, name: Token) -> Call:
        self.take()  # (
        self.enter()
        if self.at(PUNCT, "*"):
            star = Star(self.take())
            self.expect(")", "RIGHT_PAREN")
            self.depth -= 1
            return Call(name, name.text.lower(), (star,))
        args: tuple[Syntax, ...] = ()
        if not self.accept(PUNCT, ")"):
            args = self.arguments()
            self.expect(")", "RIGHT_PAREN")
        self.depth -= 1
        return Call(name, name.text.lower(), args)

    def arguments(self) -> tuple[Syntax, ...]:
        items = [self.expression()]
        while self.accept(PUNCT, ","):
            items.append(self.expression())
        return tuple(items)

    def sequence(self, opener: Token) -> Seq:
        self.take()
        close, what = ("]", "RIGHT_BRACKET") if opener.text == "[" else (">>", "RIGHT_DOUBLE_ANGLE_BRACKET")
        self.enter()
        items: tuple[Syntax, ...] = ()
        if not self.accept(PUNCT, close):
            items = self.arguments()
            self.expect(close, what)
        self.depth -= 1
        return Seq(opener, "list" if opener.text == "[" else "bag", items)

    def struct(self, opener: Token) -> Struct:
        self.take()
        self.enter()
        entries: list[tuple[Syntax, Syntax]] = []
        if not self.accept(PUNCT, "}"):
            while True:
                key = self.expression()
                self.expect(":", "COLON")
                entries.append((key, self.expression()))
                if not self.accept(PUNCT, ","):
                    break
            self.expect("}", "RIGHT_CURLY")
        self.depth -= 1
        return Struct(opener, tuple(entries))

    def type_name(self) -> str:
        t = self.peek()
        if t.kind not in (KEYWORD, LITERAL) or t.text not in TYPE_NAMES:
            raise malformed(errors.MSG_EXPECTED_TYPE_NAME)
        self.take()
        if self.at(PUNCT, "("):
            self.take()
            self.arguments()
            self.expect(")", "RIGHT_PAREN")
        return t.text

    # --- statements ----------------------------------------------------------------------------------

    def select(self, start: Token) -> SelectSyntax:
        unsupported = None
        if self.peek().kind == KEYWORD and self.peek().text in ("distinct", "all"):
            unsupported = self.take().text.upper()
        items: list[Syntax] = []
        if self.accept(KEYWORD, "value"):
            unsupported = "VALUE"
            items.append(self.expression())
        else:
            while True:
                if self.at(PUNCT, "*"):
                    items.append(Star(self.take()))
                else:
                    items.append(self.expression())
                    if self.alias():
                        unsupported = unsupported or "AS"
                if not self.accept(PUNCT, ","):
                    break
            if len(items) > 1 and any(isinstance(i, Star) for i in items):
                raise malformed(errors.MSG_STAR_NOT_ALONE)
        if not self.accept(KEYWORD, "from"):
            raise malformed(errors.MSG_SELECT_MISSING_FROM)
        expr = self.expression(_SELECT_PRECEDENCE)
        source = Source(expr.token, expr, self.alias())
        where = self.expression(_SELECT_PRECEDENCE) if self.accept(KEYWORD, "where") else None
        order: list[tuple[Syntax, bool]] = []
        if self.accept(KEYWORD, "order"):
            if not self.accept(KEYWORD, "by"):
                raise malformed(errors.msg_expected_token("BY"))
            while True:
                key = self.expression()
                descending = self.at(KEYWORD, "desc")
                if descending or self.at(KEYWORD, "asc"):
                    self.take()
                order.append((key, descending))
                if not self.accept(PUNCT, ","):
                    break
        return SelectSyntax(start, tuple(items), source, where, tuple(order), unsupported)

    def alias(self) -> bool:
        """``[AS] name``, ``AT name``, ``BY name`` after a source or a SELECT item."""
        found = False
        for word, optional in (("as", True), ("at", False), ("by", False)):
            if self.accept(KEYWORD, word):
                if self.peek().kind not in (NAME, QNAME):
                    raise malformed(errors.msg_expected_alias(word.upper()))
                self.take()
                found = True
            elif optional and self.peek().kind in (NAME, QNAME):
                self.take()
                found = True
        return found

    def simple_source(self) -> Source:
        expr = self.path_term(simple=True)
        return Source(expr.token, expr, self.alias())

    def update(self, start: Token) -> DmlSyntax:
        source = self.simple_source()
        operations = self.operations()
        return self.dml_tail(start, "update", source, operations)

    def delete(self, start: Token) -> DmlSyntax:
        if not self.accept(KEYWORD, "from"):
            raise malformed(errors.MSG_FROM_AFTER_DELETE)
        return self.dml_tail(start, "delete", self.simple_source(), ())

    def from_first(self, start: Token) -> DmlSyntax:
        expr = self.expression()
        source = Source(expr.token, expr, self.alias())
        where = self.expression() if self.accept(KEYWORD, "where") else None
        operations = self.operations()
        return DmlSyntax(start, "from", source, operations, where, self.returning())

    def dml_tail(self, start: Token, kind: str, source: Source, operations: tuple[Operation, ...]) -> DmlSyntax:
        where = self.expression() if self.accept(KEYWORD, "where") else None
        return DmlSyntax(start, kind, source, operations, where, self.returning())

    def operations(self) -> tuple[Operation, ...]:
        found: list[Operation] = []
        while self.peek().kind == KEYWORD and self.peek().text in _DML_KEYWORDS:
            if self.at(KEYWORD, "set"):
                self.take()
                while True:
                    found.append(self.assignment())
                    if not self.accept(PUNCT, ","):
                        break
            else:
                found.append(self.operation())
        if not found:
            raise malformed(errors.MSG_EXPECTED_DML)
        return tuple(found)

    def assignment(self) -> Operation:
        target = self.path_term(simple=True)
        t = self.peek()
        if not (t.kind == OPERATOR and t.text == "="):
            raise malformed(errors.MSG_EXPECTED_EQUALS)
        self.take()
        return Operation(target.token, "set", target, self.expression())

    def operation(self) -> Operation:
        t = self.take()
        if t.text == "remove":
            target = self.path_term(simple=True)
            return Operation(t, "remove", target)
        target = self.path_term(simple=True)  # insert_into
        if self.accept(KEYWORD, "value"):
            return Operation(t, "insert", target, self.expression())
        return Operation(t, "insert", target, self.expression(), value_form=False)

    def returning(self) -> tuple[tuple[str, Syntax], ...]:
        if not self.accept(KEYWORD, "returning"):
            return ()
        elements: list[tuple[str, Syntax]] = []
        while True:
            t = self.peek()
            if t.kind != KEYWORD or t.text not in _RETURNING:
                raise malformed(errors.MSG_RETURNING_MAPPING)
            self.take()
            column = Star(self.take()) if self.at(PUNCT, "*") else self.expression()
            elements.append((t.text, column))
            if not self.accept(PUNCT, ","):
                break
        return tuple(elements)


def _infix(t: Token) -> int | None:
    if t.kind == OPERATOR or (t.kind == PUNCT and t.text == "*"):
        return _PRECEDENCE.get(t.text)
    return None
