"""The PartiQL parser: one statement's text -> a ``dynemu.engine.partiql.ast`` statement.

``grammar`` reads the text (syntax errors: "Statement wasn't well formed, can't be processed:
<detail>"); this module then gives the tree the meaning DynamoDB's PartiQL gives it, and
refuses what DynamoDB refuses once a statement has parsed, in DynamoDB's words: an alias
("Aliasing is not supported"), a function DynamoDB does not know in a WHERE clause
("Unrecognized function: exists at 1:78:6", the position as ``line:column:length``), a
function as a SELECT item ("Unexpected path component at 1:8:16"), a type test other than
those it runs ("Unsupported operation: IsType"), misused ``set_add`` / ``set_delete``, and
numbers out of range (" under root", then the path inside the literal). docs/rules.md,
"PartiQL", lists the grammar, the functions and where each message comes from.

Conditions, operands and paths become the expression engine's nodes, so conditions are
evaluated, updates applied and projections cut by the same code as ConditionExpression,
UpdateExpression and ProjectionExpression. ``parse`` is cached by text; parameters are bound
later (``translate.bind``).
"""

from __future__ import annotations

from dataclasses import dataclass

from dynemu import errors
from dynemu.cache import memoized
from dynemu.engine import values as V
from dynemu.engine.expressions import ast as ex
from dynemu.engine.partiql import ast
from dynemu.engine.partiql import grammar as g
from dynemu.engine.partiql.grammar import malformed
from dynemu.engine.partiql.numbers import literal_number
from dynemu.engine.partiql.tokenizer import LITERAL, NUMBER, STRING

__all__ = ["Parsed", "parse", "build", "make_set", "malformed"]

# Functions a WHERE clause may call (developer guide, "PartiQL functions"; attribute_exists and
# attribute_not_exists as the service answers them): name -> number of operands.
_PREDICATES = {"begins_with": 2, "contains": 2, "attribute_type": 2, "attribute_exists": 1,
               "attribute_not_exists": 1}
_PATH_ONLY = frozenset(("attribute_exists", "attribute_not_exists"))
_COMPARATORS = frozenset(("=", "<>", "<", "<=", ">", ">="))
_RETURNING = {"all_old": "ALL_OLD", "modified_old": "UPDATED_OLD", "all_new": "ALL_NEW",
              "modified_new": "UPDATED_NEW"}
# IS <type> tests the service runs, as attribute_type's types; MISSING is attribute_not_exists.
# UNSURE: the service's list is not documented; these are the types with a DynamoDB
# counterpart. Every other type name parses and is "Unsupported operation: IsType" (issue 37
# quotes it for CHARACTER VARYING, DOUBLE PRECISION, INT4 and INT8).
_IS_TYPES = {"null": "NULL", "boolean": "BOOL", "string": "S", "decimal": "N", "numeric": "N", "list": "L",
             "struct": "M", "tuple": "M", "blob": "B"}


@dataclass(frozen=True, slots=True)
class Parsed:
    """A parsed PartiQL statement and the number of ``?`` parameters it takes."""

    statement: ast.Statement
    parameters: int  # how many ``?`` the statement has


@memoized(2048)
def parse(text: str) -> Parsed:
    tree, params = g.parse_syntax(text)
    return Parsed(_statement(tree), params)


def _statement(tree: g.Syntax) -> ast.Statement:
    if isinstance(tree, g.SelectSyntax):
        return _select(tree)
    if isinstance(tree, g.DmlSyntax):
        if tree.kind == "delete":
            return ast.Delete(_table(tree.source), _where(tree.where), _returning(tree, update=False))
        if tree.kind == "insert":
            return _insert(tree)
        return _update(tree)
    if isinstance(tree, g.Call) and tree.name == "exists" and len(tree.args) == 1 \
            and isinstance(tree.args[0], g.SelectSyntax):
        return ast.Exists(_select(tree.args[0]))
    # UNSURE: an expression that is no statement; the service's answer is not known, this is
    # its answer to a statement that names no operation.
    raise malformed(errors.MSG_EXPECTED_DML)


# --- SELECT -------------------------------------------------------------------------------------


def _select(s: g.SelectSyntax) -> ast.Select:
    if s.unsupported == "AS" or s.source.aliased:
        raise errors.validation(errors.MSG_ALIASING)
    if s.unsupported is not None:
        raise unsupported(f"SELECT {s.unsupported}")  # UNSURE: DISTINCT, ALL, VALUE
    projection: tuple[ex.Path, ...] | None = None
    if not isinstance(s.items[0], g.Star):
        projection = tuple(_projected(item) for item in s.items)
    table, index = _source(s.source)
    order = tuple(ast.OrderBy(_order_key(k), desc) for k, desc in s.order_by)
    return ast.Select(ast.Source(table, index), projection, _where(s.where), order)


def _projected(item: g.Syntax) -> ex.Path:
    if isinstance(item, (g.Name, g.Path)):
        return _path(item)
    raise errors.validation(errors.msg_unexpected_path_component(item.token.position))


def _source(source: g.Source) -> tuple[str, str | None]:
    e = source.expr
    if isinstance(e, g.Name):
        return e.token.text, None
    if isinstance(e, g.Path) and isinstance(e.root, g.Name) and len(e.steps) == 1 and isinstance(e.steps[0], str):
        return e.root.token.text, e.steps[0]
    raise unsupported(errors.UNSUPPORTED_SOURCE)  # UNSURE: a source that names no table


def _order_key(key: g.Syntax) -> str:
    if isinstance(key, g.Name):
        return key.token.text
    raise unsupported(errors.UNSUPPORTED_ORDER_BY)  # UNSURE


def _table(source: g.Source) -> str:
    if source.aliased:
        raise errors.validation(errors.MSG_ALIASING)
    return _source(source)[0]


# --- INSERT, UPDATE, DELETE -----------------------------------------------------------------------


def _insert(d: g.DmlSyntax) -> ast.Insert:
    op = d.operations[0]
    if op.kind != "insert" or not op.value_form:
        raise malformed(errors.MSG_EXPECTED_DML)  # UNSURE: SET / REMOVE alone, INSERT without VALUE
    table = _table(d.source)
    value = op.value
    if isinstance(value, g.Param):
        return ast.Insert(table, ex.ValueRef(f"?{value.index}"))
    if not isinstance(value, g.Struct):
        raise errors.validation(errors.MSG_MALFORMED_INSERT)
    # each attribute of the item is converted as a value of its own: its path starts at root
    entries = [(_struct_key(k), _value(v, "root")) for k, v in value.entries]
    return ast.Insert(table, _collection("M", entries))


def _update(d: g.DmlSyntax) -> ast.Update:
    table = _table(d.source)
    actions = tuple(_action(op) for op in d.operations)
    return ast.Update(table, actions, _where(d.where), _returning(d, update=True))


def _action(op: g.Operation) -> ex.Action:
    if op.kind == "remove":
        return ex.Action("REMOVE", _path(op.target), None)
    if op.kind == "insert":
        raise unsupported(errors.UNSUPPORTED_INSERT_IN_UPDATE)  # UNSURE
    target = _path(op.target)
    value = op.value
    assert value is not None
    if isinstance(value, g.Call) and value.name in ("set_add", "set_delete"):
        return _set_function(target, value)
    return ex.Action("SET", target, _set_value(value))


def _set_function(target: ex.Path, call: g.Call) -> ex.Action:
    """``SET s = set_add(s, <<...>>)`` is ADD of the set's members; set_delete is DELETE."""
    name = call.name.upper()
    if len(call.args) != 2:
        raise errors.validation(errors.msg_set_function_arguments(name, call.token.position))
    first, second = call.args
    if not isinstance(first, (g.Name, g.Path)):
        raise errors.validation(errors.msg_set_function_target(name, first.token.position))
    if _path(first) != target:
        raise errors.validation(errors.msg_set_function_target(name, first.token.position))
    if isinstance(second, g.Param):
        return ex.Action("ADD" if name == "SET_ADD" else "DELETE", target,
                         ast.SetOperand(ex.ValueRef(f"?{second.index}"), name, first.token.position))
    if not (isinstance(second, g.Seq) and second.kind == "bag"):
        raise errors.validation(errors.msg_set_function_value(name, first.token.position))
    return ex.Action("ADD" if name == "SET_ADD" else "DELETE", target, _value(second, "root"))


def _set_value(node: g.Syntax) -> ex.Node:
    if isinstance(node, g.Binary) and node.op in ("+", "-"):
        return ex.Arith(node.op, _set_value(node.left), _set_value(node.right))
    if isinstance(node, g.Call) and node.name == "list_append":
        if len(node.args) != 2:
            raise errors.validation(errors.msg_operand_count("list_append", len(node.args)))
        return ex.Func("list_append", tuple(_set_value(a) for a in node.args))
    return _operand(node)


def _returning(d: g.DmlSyntax, *, update: bool) -> str | None:
    if not d.returning:
        return None
    if len(d.returning) > 1 or not isinstance(d.returning[0][1], g.Star):
        raise unsupported(errors.UNSUPPORTED_RETURNING)  # UNSURE: columns, several elements
    mode = _RETURNING[d.returning[0][0]]
    if not update and mode != "ALL_OLD":
        raise unsupported(errors.UNSUPPORTED_RETURNING)  # UNSURE: DELETE returns the old item only
    return mode


# --- WHERE ------------------------------------------------------------------------------------------


def _where(node: g.Syntax | None) -> ex.Node | None:
    return None if node is None else _condition(node)


def _condition(node: g.Syntax) -> ex.Node:
    if isinstance(node, g.Binary):
        if node.op in ("and", "or"):
            items = [_condition(node.left), _condition(node.right)]
            kind = ex.And if node.op == "and" else ex.Or
            flat = [c for i in items for c in (i.items if isinstance(i, kind) else (i,))]
            return kind(tuple(flat))
        if node.op in _COMPARATORS:
            return _comparison(node)
        if node.op in ("in", "not_in"):
            return _in(node)
        if node.op in ("like", "not_like"):
            raise unsupported("LIKE")  # UNSURE: the service has no LIKE
    if isinstance(node, g.Unary) and node.op == "not":
        return ex.Not(_condition(node.operand))
    if isinstance(node, g.Ternary) and node.op in ("between", "not_between"):
        a, low, high = (_operand(o) for o in node.operands)
        between = ex.Between(a, low, high)
        return ex.Not(between) if node.op == "not_between" else between
    if isinstance(node, g.TypeTest):
        return _type_test(node)
    if isinstance(node, g.Call):
        return _predicate(node)
    raise unsupported(errors.UNSUPPORTED_NOT_CONDITION)


def _comparison(node: g.Binary) -> ex.Node:
    # a predicate compared with true or false is the predicate, or its negation
    for call, other in ((node.left, node.right), (node.right, node.left)):
        if isinstance(call, g.Call) and call.name in _PREDICATES and node.op in ("=", "<>") \
                and isinstance(other, g.Lit) and other.token.text in ("true", "false") \
                and other.token.kind == LITERAL:
            predicate = _predicate(call)
            holds = (other.token.text == "true") == (node.op == "=")
            return predicate if holds else ex.Not(predicate)
    return ex.Compare(node.op, _operand(node.left), _operand(node.right))


def _in(node: g.Binary) -> ex.Node:
    options = node.right
    if not isinstance(options, g.Seq) or options.kind != "list":
        raise unsupported(errors.UNSUPPORTED_IN_OPERAND)  # UNSURE
    test = ex.In(_operand(node.left), tuple(_operand(o) for o in options.items))
    return ex.Not(test) if node.op == "not_in" else test


def _type_test(node: g.TypeTest) -> ex.Node:
    if not isinstance(node.operand, (g.Name, g.Path)):
        raise unsupported(errors.UNSUPPORTED_IS_TYPE)
    path = _path(node.operand)
    if node.type_name == "missing":
        return ex.Func("attribute_exists" if node.negated else "attribute_not_exists", (path,))
    type_code = _IS_TYPES.get(node.type_name)
    if type_code is None:
        raise unsupported(errors.UNSUPPORTED_IS_TYPE)
    test = ex.Func("attribute_type", (path, ex.Literal({"S": type_code})))
    return ex.Not(test) if node.negated else test


def _predicate(call: g.Call) -> ex.Node:
    arity = _PREDICATES.get(call.name)
    if arity is None:
        raise errors.validation(errors.msg_unrecognized_function(call.name, call.token.position))
    if len(call.args) != arity:
        raise errors.validation(errors.msg_operand_count(call.name, len(call.args)))
    if call.name in _PATH_ONLY and not isinstance(call.args[0], (g.Name, g.Path)):
        raise errors.validation(errors.msg_needs_document_path(call.name))
    return ex.Func(call.name, tuple(_operand(a) for a in call.args))


# --- operands, paths and values ----------------------------------------------------------------------


def _operand(node: g.Syntax) -> ex.Node:
    if isinstance(node, (g.Name, g.Path)):
        return _path(node)
    if isinstance(node, g.Binary) and node.op in ("+", "-"):
        return ex.Arith(node.op, _operand(node.left), _operand(node.right))
    if isinstance(node, g.Call):
        if node.name == "size":
            if len(node.args) != 1:
                raise errors.validation(errors.msg_operand_count("size", len(node.args)))
            return ex.Func("size", (_operand(node.args[0]),))
        if node.name in _PREDICATES:
            return ex.Func(node.name, tuple(_operand(a) for a in node.args))
        raise errors.validation(errors.msg_unrecognized_function(node.name, node.token.position))
    return _value(node, "root")


def _path(node: g.Syntax) -> ex.Path:
    if isinstance(node, g.Name):
        return ex.Path((node.token.text,))
    assert isinstance(node, g.Path)
    if not isinstance(node.root, g.Name):
        raise unsupported(errors.UNSUPPORTED_PATH)  # UNSURE: a path that starts at no attribute
    elements: list[ex.PathElement] = [node.root.token.text]
    for step in node.steps:
        if isinstance(step, str):
            elements.append(step)
        elif isinstance(step, g.Lit) and step.token.kind == NUMBER and step.token.text.isdigit() \
                and not step.negative:
            elements.append(int(step.token.text))
        else:
            raise unsupported(errors.UNSUPPORTED_PATH)  # UNSURE: [*], .*, a computed index
    return ex.Path(tuple(elements))


def _value(node: g.Syntax, path: str) -> ex.Node:
    """A literal (or a parameter) as an attribute value; ``path`` names it in number errors."""
    if isinstance(node, g.Param):
        return ex.ValueRef(f"?{node.index}")
    if isinstance(node, g.Lit):
        t = node.token
        if t.kind == STRING:
            return ex.Literal({"S": t.text})
        if t.kind == NUMBER:
            return ex.Literal({"N": literal_number(t.text, node.negative, path)})
        if t.text in ("true", "false"):
            return ex.Literal({"BOOL": t.text == "true"})
        if t.text == "null":
            return ex.Literal({"NULL": True})
        raise unsupported(errors.UNSUPPORTED_MISSING)  # UNSURE: MISSING as a value
    if isinstance(node, g.Seq):
        if node.kind == "bag" and not node.items:
            raise errors.validation(errors.MSG_EMPTY_BAG)
        entries = [("", _value(item, f"{path}[{i}]")) for i, item in enumerate(node.items)]
        return _collection("L" if node.kind == "list" else "SET", entries)
    if isinstance(node, g.Struct):
        entries = [(k, _value(v, f"{path}.{k}")) for k, v in ((_struct_key(k), v) for k, v in node.entries)]
        return _collection("M", entries)
    if isinstance(node, g.Call):
        raise errors.validation(errors.msg_unsupported_data_type(node.name, path, node.token.position))
    raise unsupported(errors.UNSUPPORTED_VALUE)  # UNSURE: a path or an operator inside a literal


def _struct_key(key: g.Syntax) -> str:
    if isinstance(key, g.Lit) and key.token.kind == STRING:
        return key.token.text
    raise unsupported(errors.UNSUPPORTED_STRUCT_KEY)  # UNSURE


def _collection(kind: str, entries: list[tuple[str, ex.Node]]) -> ex.Node:
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


def make_set(elements: list[dict]) -> dict:
    """A set literal ``<< ... >>``: all strings, all numbers or all binaries, not empty."""
    kinds = {next(iter(e)) for e in elements}
    if len(kinds) != 1 or not kinds <= {"S", "N", "B"}:
        raise errors.validation(errors.MSG_MIXED_SET)
    kind = kinds.pop()
    return V.validate_value({kind + "S": [e[kind] for e in elements]})


def unsupported(what: str) -> errors.DynamoError:
    return errors.validation(errors.msg_partiql_unsupported(what))
