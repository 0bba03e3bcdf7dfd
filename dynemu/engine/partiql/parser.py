"""The PartiQL parser: the four statements DynamoDB supports, and EXISTS (developer guide,
"PartiQL statements for DynamoDB", "PartiQL functions", "PartiQL operators").

    SELECT expression [, ...] FROM table[.index] [WHERE condition] [ORDER BY key [DESC|ASC], ...]
    INSERT INTO table VALUE item
    UPDATE table [SET path = data [, ...] | REMOVE path [, ...]] ... WHERE condition
        [RETURNING ALL OLD * | MODIFIED OLD * | ALL NEW * | MODIFIED NEW *]
    DELETE FROM table WHERE condition [RETURNING ALL OLD *]
    EXISTS(SELECT * FROM table WHERE ...)          (ExecuteTransaction only)

A statement that does not parse is a ValidationException beginning "Statement wasn't well
formed, can't be processed:" (the service's prefix); the detail names the unexpected token and
its line and column. ``parse`` is cached by text; parameters are bound later.
"""

from __future__ import annotations

from dataclasses import dataclass

from dynemu import errors
from dynemu.cache import memoized
from dynemu.engine import values as V
from dynemu.engine.expressions import ast as ex
from dynemu.engine.partiql import ast
from dynemu.engine.partiql.tokenizer import BAD, EOF, IDENT, NUMBER, PUNCT, QIDENT, STRING, Token, tokenize

RESERVED = frozenset(
    "SELECT FROM WHERE AND OR NOT IN BETWEEN IS MISSING NULL TRUE FALSE ORDER BY INSERT INTO VALUE "
    "UPDATE SET REMOVE DELETE RETURNING EXISTS".split()
)
_COMPARATORS = {"=": "=", "<>": "<>", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
# name -> number of arguments (developer guide, "Using PartiQL functions with DynamoDB")
_FUNCTIONS = {"begins_with": 2, "contains": 2, "attribute_type": 2, "size": 1,
              "list_append": 2, "set_add": 2, "set_delete": 2}
_PREDICATES = frozenset(("begins_with", "contains", "attribute_type"))
# Nesting of parentheses, NOT, functions, arithmetic and collections: deeper statements are
# refused before they could exhaust the parser's or the evaluator's stack (an attribute value
# nests at most 32 levels anyway).
MAX_DEPTH = 50
_RETURNING = {("ALL", "OLD"): "ALL_OLD", ("MODIFIED", "OLD"): "UPDATED_OLD",
              ("ALL", "NEW"): "ALL_NEW", ("MODIFIED", "NEW"): "UPDATED_NEW"}


@dataclass(frozen=True, slots=True)
class Parsed:
    """A parsed PartiQL statement and the number of ``?`` parameters it takes."""

    statement: ast.Statement
    parameters: int  # how many ``?`` the statement has


def malformed(detail: str) -> errors.DynamoError:
    return errors.validation(errors.MSG_MALFORMED + detail)


@memoized(2048)
def parse(text: str) -> Parsed:
    p = _Parser(text)
    statement = p.statement()
    return Parsed(statement, p.params)


def make_set(elements: list[dict]) -> dict:
    """A set literal ``<< ... >>``: all strings, all numbers or all binaries, not empty."""
    kinds = {next(iter(e)) for e in elements}
    if len(kinds) != 1 or not kinds <= {"S", "N", "B"}:
        raise errors.validation(errors.MSG_MIXED_SET)
    kind = kinds.pop()
    return V.validate_value({kind + "S": [e[kind] for e in elements]})


class _Parser:
    def __init__(self, text: str) -> None:
        self.tokens = tokenize(text)
        self.i = 0
        self.params = 0
        self.depth = 0

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            t = self.peek()
            raise malformed(errors.msg_nested_too_deeply(t.line, t.column))

    # --- tokens ------------------------------------------------------------------------------

    def peek(self, ahead: int = 0) -> Token:
        return self.tokens[min(self.i + ahead, len(self.tokens) - 1)]

    def error(self, token: Token | None = None) -> errors.DynamoError:
        t = token or self.peek()
        if t.kind == EOF:
            return malformed(errors.MSG_STATEMENT_END)
        shown = {QIDENT: f'"{t.text}"', STRING: f"'{t.text}'"}.get(t.kind, t.text)
        what = "character" if t.kind == BAD else "keyword" if t.kind == IDENT and t.text.upper() in RESERVED else "token"
        return malformed(errors.msg_unexpected(what, shown, t.line, t.column))

    def kw(self, word: str) -> bool:
        t = self.peek()
        if t.kind == IDENT and t.text.upper() == word:
            self.i += 1
            return True
        return False

    def expect_kw(self, word: str) -> None:
        if not self.kw(word):
            raise self.error()

    def punct(self, p: str) -> bool:
        t = self.peek()
        if t.kind == PUNCT and t.text == p:
            self.i += 1
            return True
        return False

    def expect(self, p: str) -> None:
        if not self.punct(p):
            raise self.error()

    # --- statements ----------------------------------------------------------------------------

    def statement(self) -> ast.Statement:
        first = self.peek()
        word = first.text.upper() if first.kind == IDENT else ""
        parsers = {"SELECT": self.select, "INSERT": self.insert, "UPDATE": self.update,
                   "DELETE": self.delete, "EXISTS": self.exists}
        if word not in parsers:
            raise malformed(errors.MSG_EXPECTED_DML) if first.kind != EOF else self.error()
        self.i += 1
        statement = parsers[word]()
        self.punct(";")
        if self.peek().kind != EOF:
            raise self.error()
        return statement

    def select(self) -> ast.Select:
        projection: tuple[ex.Path, ...] | None = None
        if not self.punct("*"):
            paths = [self.path()]
            while self.punct(","):
                paths.append(self.path())
            projection = tuple(paths)
        self.expect_kw("FROM")
        table = self.name()
        index = self.name() if self.punct(".") else None
        where = self.condition() if self.kw("WHERE") else None
        order: list[ast.OrderBy] = []
        if self.kw("ORDER"):
            self.expect_kw("BY")
            while True:
                key = self.name()
                descending = self.kw("DESC")
                if not descending:
                    self.kw("ASC")
                order.append(ast.OrderBy(key, descending))
                if not self.punct(","):
                    break
        return ast.Select(ast.Source(table, index), projection, where, tuple(order))

    def exists(self) -> ast.Exists:
        self.expect("(")
        self.expect_kw("SELECT")
        select = self.select()
        self.expect(")")
        return ast.Exists(select)

    def insert(self) -> ast.Insert:
        self.expect_kw("INTO")
        table = self.name()
        self.expect_kw("VALUE")
        if not (self.peek().kind == PUNCT and self.peek().text in ("{", "?")):
            raise self.error()
        return ast.Insert(table, self.value())

    def update(self) -> ast.Update:
        table = self.name()
        actions: list[ex.Action] = []
        while True:
            if self.kw("SET"):
                actions.append(self.set_action())
                while self.punct(","):
                    actions.append(self.set_action())
            elif self.kw("REMOVE"):
                actions.append(ex.Action("REMOVE", self.path(), None))
                while self.punct(","):
                    actions.append(ex.Action("REMOVE", self.path(), None))
            else:
                break
        if not actions:
            raise self.error()
        self.expect_kw("WHERE")
        where = self.condition()
        return ast.Update(table, tuple(actions), where, self.returning(update=True))

    def set_action(self) -> ex.Action:
        target = self.path()
        self.expect("=")
        value = self.operand()
        if isinstance(value, ex.Func) and value.name in ("set_add", "set_delete"):
            # SET s = set_add(s, <<...>>) is ADD of the set; set_delete is DELETE
            return ex.Action("ADD" if value.name == "set_add" else "DELETE", target, value.args[1])
        return ex.Action("SET", target, value)

    def delete(self) -> ast.Delete:
        self.expect_kw("FROM")
        table = self.name()
        self.expect_kw("WHERE")
        where = self.condition()
        return ast.Delete(table, where, self.returning(update=False))

    def returning(self, *, update: bool) -> str | None:
        if not self.kw("RETURNING"):
            return None
        first, second = self.peek(), self.peek(1)
        mode = _RETURNING.get((first.text.upper(), second.text.upper())) if first.kind == second.kind == IDENT else None
        if mode is None or (not update and mode != "ALL_OLD"):
            raise self.error(first)
        self.i += 2
        self.expect("*")
        return mode

    # --- names and paths -----------------------------------------------------------------------

    def name(self) -> str:
        t = self.peek()
        if t.kind == QIDENT or (t.kind == IDENT and t.text.upper() not in RESERVED):
            self.i += 1
            return t.text
        raise self.error()

    def path(self) -> ex.Path:
        elements: list[ex.PathElement] = [self.name()]
        while True:
            if self.punct("."):
                elements.append(self.name())
            elif self.punct("["):
                t = self.peek()
                if t.kind != NUMBER or not t.text.isdigit():
                    raise self.error()
                self.i += 1
                elements.append(int(t.text))
                self.expect("]")
            else:
                return ex.Path(tuple(elements))

    # --- conditions ----------------------------------------------------------------------------

    def condition(self) -> ex.Node:
        items = [self.conjunction()]
        while self.kw("OR"):
            items.append(self.conjunction())
        return items[0] if len(items) == 1 else ex.Or(tuple(items))

    def conjunction(self) -> ex.Node:
        items = [self.negation()]
        while self.kw("AND"):
            items.append(self.negation())
        return items[0] if len(items) == 1 else ex.And(tuple(items))

    def negation(self) -> ex.Node:
        if self.kw("NOT"):
            self.enter()
            node = ex.Not(self.negation())
            self.depth -= 1
            return node
        return self.predicate()

    def predicate(self) -> ex.Node:
        if self.punct("("):
            self.enter()
            inner = self.condition()
            self.expect(")")
            self.depth -= 1
            return inner
        left = self.operand()
        t = self.peek()
        if t.kind == PUNCT and t.text in _COMPARATORS:
            self.i += 1
            return ex.Compare(_COMPARATORS[t.text], left, self.operand())
        negate = self.kw("NOT")
        if self.kw("BETWEEN"):
            low = self.operand()
            self.expect_kw("AND")
            node: ex.Node = ex.Between(left, low, self.operand())
        elif self.kw("IN"):
            node = ex.In(left, self.in_list())
        elif not negate and self.kw("IS"):
            return self.is_test(left)
        elif negate:
            raise self.error()
        elif isinstance(left, ex.Func) and left.name in _PREDICATES:
            return left
        else:
            raise self.error(t)
        return ex.Not(node) if negate else node

    def in_list(self) -> tuple[ex.Node, ...]:
        close = "]" if self.punct("[") else ")" if self.punct("(") else None
        if close is None:
            raise self.error()
        options = [self.operand()]
        while self.punct(","):
            options.append(self.operand())
        self.expect(close)
        return tuple(options)

    def is_test(self, left: ex.Node) -> ex.Node:
        negate = self.kw("NOT")
        if not isinstance(left, ex.Path):
            raise self.error()
        if self.kw("MISSING"):
            return ex.Func("attribute_exists" if negate else "attribute_not_exists", (left,))
        if self.kw("NULL"):
            node = ex.Func("attribute_type", (left, ex.Literal({"S": "NULL"})))
            return ex.Not(node) if negate else node
        raise self.error()

    # --- operands and literals -----------------------------------------------------------------

    def operand(self) -> ex.Node:
        node = self.term()
        depth = self.depth
        while True:
            t = self.peek()
            if t.kind == PUNCT and t.text in ("+", "-"):
                self.i += 1
                self.enter()  # a + b + c nests to the left
                node = ex.Arith(t.text, node, self.term())
            else:
                self.depth = depth
                return node

    def term(self) -> ex.Node:
        t = self.peek()
        if t.kind == IDENT and self.peek(1).text == "(" and self.peek(1).kind == PUNCT:
            return self.function()
        if t.kind == QIDENT or (t.kind == IDENT and t.text.upper() not in RESERVED):
            return self.path()
        return self.value()

    def function(self) -> ex.Func:
        t = self.peek()
        name = t.text.lower()
        if name not in _FUNCTIONS:
            raise malformed(errors.msg_unsupported_function(t.text, t.line, t.column))
        self.i += 2
        self.enter()
        args = [self.operand()]
        while self.punct(","):
            args.append(self.operand())
        self.expect(")")
        self.depth -= 1
        if len(args) != _FUNCTIONS[name]:
            raise malformed(errors.msg_function_arguments(t.text, t.line, t.column))
        return ex.Func(name, tuple(args))

    def value(self) -> ex.Node:
        """A literal or a parameter; maps, lists and sets nest values."""
        t = self.peek()
        self.i += 1
        if t.kind == STRING:
            return ex.Literal({"S": t.text})
        if t.kind == NUMBER:
            return ex.Literal(V.validate_value({"N": t.text}))
        if t.kind == IDENT:
            word = t.text.upper()
            if word in ("TRUE", "FALSE"):
                return ex.Literal({"BOOL": word == "TRUE"})
            if word == "NULL":
                return ex.Literal({"NULL": True})
        if t.kind == PUNCT:
            if t.text == "?":
                self.params += 1
                return ex.ValueRef(f"?{self.params}")
            if t.text == "-" and self.peek().kind == NUMBER:
                self.i += 1
                return ex.Literal(V.validate_value({"N": "-" + self.peek(-1).text}))
            if t.text in ("{", "[", "<<"):
                return self.collection(t.text)
        raise self.error(t)

    def collection(self, opener: str) -> ex.Node:
        close = {"{": "}", "[": "]", "<<": ">>"}[opener]
        self.enter()
        entries: list[tuple[str, ex.Node]] = []
        if not self.punct(close):
            while True:
                key = ""
                if opener == "{":
                    t = self.peek()
                    if t.kind != STRING:
                        raise self.error()
                    self.i += 1
                    key = t.text
                    self.expect(":")
                entries.append((key, self.value()))
                if self.punct(close):
                    break
                self.expect(",")
        self.depth -= 1
        kind = {"{": "M", "[": "L", "<<": "SET"}[opener]
        if any(not isinstance(v, ex.Literal) for _, v in entries):
            return ast.Composite(kind, tuple(entries))  # type: ignore[return-value]
        return ex.Literal(build(kind, [(k, v.value) for k, v in entries]))  # type: ignore[union-attr]


def build(kind: str, entries: list[tuple[str, dict]]) -> dict:
    """The attribute value of a map, list or set literal from its (bound) entries."""
    if kind == "M":
        return {"M": dict(entries)}
    if kind == "L":
        return {"L": [v for _, v in entries]}
    return make_set([v for _, v in entries])
