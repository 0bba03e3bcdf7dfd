"""Recursive-descent parsers for the four expression grammars, producing ``ast`` trees.

The parsers only build trees; every semantic rule (reserved words, functions, types,
placeholders, paths) is a named check in ``checks`` run over the finished tree. The
package caches parse + static analysis by expression text. Nesting (parentheses, NOT, function calls) is bounded by
``MAX_DEPTH`` so no input can exhaust the Python stack.

Grammar (DynamoDB developer guide, "Comparison operator and function reference" and
"Update expressions"); precedence NOT > AND > OR, keywords case-insensitive, function
names case-sensitive::

    condition := disjunct (OR disjunct)*         disjunct := term (AND term)*
    term      := NOT* primary
    primary   := '(' condition ')' | operand comparator operand
               | operand BETWEEN operand AND operand | operand IN '(' operand, ... ')'
               | function
    operand   := path | :value | name '(' operand, ... ')' | '(' operand ')'
    path      := (name | #name) ('.' (name | #name) | '[' digits ']')*
    update    := (SET set, ... | REMOVE path, ... | ADD path :value, ... | DELETE path :value, ...)+
    set       := path '=' value      value := operand (('+' | '-') operand)?
    projection:= path (',' path)*
"""

from __future__ import annotations

from typing import NoReturn

from . import ast
from .tokenizer import ATTR_NAME, ATTR_VALUE, EOF, NAME, NUMBER, PUNCT, Token, syntax_error_detail, tokenize

# Nesting levels (parentheses, NOT, function calls). Every level of a valid condition adds an
# operator, and the service allows 300 ("Expression parameters" limits: 300 operators or
# functions; a condition 149 groups deep is valid), so a deeper text fails the operator count
# first; past MAX_DEPTH it is a syntax error. A level costs the parser at most two frames
# (a group: ``primary`` -> ``condition``; a call: ``operand`` -> ``function``), so the deepest
# text fits within the interpreter's default recursion limit (1000) with the request's own
# frames, and no process-wide setting is changed.
MAX_DEPTH = 310

COMPARATORS = frozenset(("=", "<>", "<", "<=", ">", ">="))
CONDITION_KEYWORDS = frozenset(("AND", "OR", "NOT", "BETWEEN", "IN"))
UPDATE_KEYWORDS = frozenset(("SET", "REMOVE", "ADD", "DELETE"))


class ParseError(Exception):
    """A syntax error; ``detail`` is DynamoDB's text after ``Invalid <Kind>Expression: ``."""

    def __init__(self, detail: str) -> None:
        super().__init__(detail)
        self.detail = detail


class _Parser:
    def __init__(self, text: str, keywords: frozenset[str]) -> None:
        self.text = text
        self.tokens = tokenize(text)
        self.pos = 0
        self.depth = 0
        self.keywords = keywords

    # --- token helpers ---------------------------------------------------------------

    def peek(self, offset: int = 0) -> Token:
        index = min(self.pos + offset, len(self.tokens) - 1)
        return self.tokens[index]

    def fail(self) -> NoReturn:
        raise ParseError(syntax_error_detail(self.text, self.tokens, self.pos))

    def is_punct(self, text: str, offset: int = 0) -> bool:
        tok = self.peek(offset)
        return tok.kind == PUNCT and tok.text == text

    def is_keyword(self, word: str) -> bool:
        tok = self.peek()
        return tok.kind == NAME and tok.text.upper() == word

    def expect_punct(self, text: str) -> None:
        if not self.is_punct(text):
            self.fail()
        self.pos += 1

    def expect_end(self) -> None:
        if self.peek().kind != EOF:
            self.fail()

    def enter(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            self.fail()

    # --- paths and operands ----------------------------------------------------------

    def name_element(self) -> str:
        tok = self.peek()
        if tok.kind == ATTR_NAME or (tok.kind == NAME and tok.text.upper() not in self.keywords):
            self.pos += 1
            return tok.text
        self.fail()

    def path(self) -> ast.Path:
        elements: list[ast.PathElement] = [self.name_element()]
        while True:
            if self.is_punct("."):
                self.pos += 1
                elements.append(self.name_element())
            elif self.is_punct("["):
                self.pos += 1
                tok = self.peek()
                if tok.kind != NUMBER:
                    self.fail()
                self.pos += 1
                elements.append(int(tok.text))
                self.expect_punct("]")
            else:
                return ast.Path(tuple(elements))

    def operand(self) -> ast.Node:
        """path | :value | function call | '(' operand ')'."""
        tok = self.peek()
        if tok.kind == ATTR_VALUE:
            self.pos += 1
            return ast.ValueRef(tok.text)
        if tok.kind == PUNCT and tok.text == "(":
            self.enter()
            self.pos += 1
            inner = self.operand()
            self.expect_punct(")")
            self.depth -= 1
            return ast.Paren(inner)
        if tok.kind == NAME and self.is_punct("(", 1) and tok.text.upper() not in self.keywords:
            return self.function()
        return self.path()

    def function(self) -> ast.Func:
        name = self.peek().text
        self.enter()
        self.pos += 2  # name and "("
        args = [self.operand()]
        while self.is_punct(","):
            self.pos += 1
            args.append(self.operand())
        self.expect_punct(")")
        self.depth -= 1
        return ast.Func(name, tuple(args))

    # --- conditions --------------------------------------------------------------------

    def condition(self, allow_operand: bool = False) -> ast.Node:
        """``disjunct (OR disjunct)*``, each ``term (AND term)*``, each ``NOT* primary``, in
        one frame: a group costs two (``primary`` -> ``condition``), so MAX_DEPTH levels fit
        well within the interpreter's default recursion limit. Only the first term may be a
        bare operand (``allow_operand``: the inside of a group, "(a) = :v")."""
        disjuncts: list[ast.Node] = []
        terms: list[ast.Node] = []
        while True:
            nots = 0
            while self.is_keyword("NOT"):
                self.pos += 1
                self.enter()
                nots += 1
            node = self.primary(allow_operand and not disjuncts and not terms and nots == 0)
            for _ in range(nots):
                node = ast.Not(node)
            self.depth -= nots
            terms.append(node)
            if self.is_keyword("AND"):
                self.pos += 1
                continue
            disjuncts.append(terms[0] if len(terms) == 1 else ast.And(tuple(terms)))
            if not self.is_keyword("OR"):
                return disjuncts[0] if len(disjuncts) == 1 else ast.Or(tuple(disjuncts))
            self.pos += 1
            terms = []

    def primary(self, allow_operand: bool) -> ast.Node:
        if self.is_punct("("):
            self.enter()
            self.pos += 1
            inner = self.condition(allow_operand=True)
            self.expect_punct(")")
            self.depth -= 1
            group = ast.Paren(inner)
            if not ast.is_operand(inner):
                return group
            return self.comparison_tail(group, allow_operand)
        return self.comparison_tail(self.operand(), allow_operand)

    def comparison_tail(self, left: ast.Node, allow_operand: bool) -> ast.Node:
        tok = self.peek()
        if tok.kind == PUNCT and tok.text in COMPARATORS:
            self.pos += 1
            return ast.Compare(tok.text, left, self.operand())
        if self.is_keyword("BETWEEN"):
            self.pos += 1
            low = self.operand()
            if not self.is_keyword("AND"):
                self.fail()
            self.pos += 1
            return ast.Between(left, low, self.operand())
        if self.is_keyword("IN"):
            self.pos += 1
            self.expect_punct("(")
            options = [self.operand()]
            while self.is_punct(","):
                self.pos += 1
                options.append(self.operand())
            self.expect_punct(")")
            return ast.In(left, tuple(options))
        if allow_operand and self.is_punct(")"):
            return left  # "(operand)" — the caller decides what it is
        if isinstance(ast.strip_parens(left), ast.Func):
            return left  # a function used as a condition
        self.fail()

    # --- update expressions ------------------------------------------------------------

    def update(self) -> ast.UpdateExpr:
        sections: list[tuple[str, tuple[ast.Action, ...]]] = []
        while True:
            tok = self.peek()
            word = tok.text.upper() if tok.kind == NAME else ""
            if word not in UPDATE_KEYWORDS:
                if sections and tok.kind == EOF:
                    return ast.UpdateExpr(tuple(sections))
                self.fail()
            self.pos += 1
            actions = [self.action(word)]
            while self.is_punct(","):
                self.pos += 1
                actions.append(self.action(word))
            sections.append((word, tuple(actions)))

    def action(self, kind: str) -> ast.Action:
        path = self.path()
        if kind == "REMOVE":
            return ast.Action(kind, path, None)
        if kind == "SET":
            self.expect_punct("=")
            return ast.Action(kind, path, self.set_value())
        tok = self.peek()
        if tok.kind != ATTR_VALUE:
            self.fail()
        self.pos += 1
        return ast.Action(kind, path, ast.ValueRef(tok.text))

    def set_value(self) -> ast.Node:
        if self.is_punct("("):
            # "(a + :b)" or "(a) + :b": parse the group, then an optional tail
            self.enter()
            self.pos += 1
            left: ast.Node = ast.Paren(self.set_value())
            self.expect_punct(")")
            self.depth -= 1
        else:
            left = self.operand()
        tok = self.peek()
        if tok.kind == PUNCT and tok.text in ("+", "-") and not isinstance(ast.strip_parens(left), ast.Arith):
            self.pos += 1
            return ast.Arith(tok.text, left, self.operand())
        return left

    # --- projections ---------------------------------------------------------------------

    def projection(self) -> ast.ProjectionExpr:
        paths = [self.path()]
        while self.is_punct(","):
            self.pos += 1
            paths.append(self.path())
        self.expect_end()
        return ast.ProjectionExpr(tuple(paths))


def parse_condition(text: str) -> ast.Node:
    """Parse a Condition, Filter or KeyCondition expression (raises ParseError)."""
    parser = _Parser(text, CONDITION_KEYWORDS)
    node = parser.condition()
    parser.expect_end()
    if ast.is_operand(node) and not isinstance(ast.strip_parens(node), ast.Func):
        parser.fail()
    return node


def parse_update(text: str) -> ast.UpdateExpr:
    return _Parser(text, UPDATE_KEYWORDS).update()


def parse_projection(text: str) -> ast.ProjectionExpr:
    return _Parser(text, frozenset()).projection()
