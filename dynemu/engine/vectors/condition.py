"""SearchConditionExpression of SearchVectors: its rules and the row mask it keeps.

Developer guide, "SearchConditionExpression reference for vector indexes": a Boolean
combination (AND, OR, NOT, parentheses) of conditions over the attributes of the index's
SearchSchema, each of the form ``#name operator :value``; top-level attributes only (no
``a.b`` or ``a[0]``); IN and BETWEEN are supported (the page's example combines IN,
BETWEEN and OR). The syntax, placeholder and size rules (300 operators, 100 IN operands,
BETWEEN's bounds) are those of every expression parameter, checked by the expression
pipeline before this module sees the tree (docs/vectors.md lists dynemu's readings).

The checks here, in this order (dynemu's reading of the page's "Validation order"):
  1. shape: an equality (``=``) of one attribute and one value; BETWEEN and IN of an
     attribute and values; the functions attribute_exists, attribute_not_exists and
     begins_with on an attribute. Another comparator (``<> < <= > >=``: "Troubleshooting
     vector indexes", only equality is supported on the vector index partition key and
     inline filter attributes; issue 36) or another comparison (two attributes, two values):
     ``Invalid comparator used in SearchConditionExpression``; another function, or a
     function as an operand: ``Invalid operator used in SearchConditionExpression``;
  2. attributes: each a top-level SearchSchema attribute;
  3. the HASH attribute (vector index partition key): ``=`` only ("Troubleshooting vector
     indexes": only equality for the vector index partition key), and required as a
     condition ``hash = :value`` the whole expression is ANDed with.

Evaluation follows the expression engine's (``expressions.evaluate``), so a condition on
an attribute an item lacks behaves as in every other DynamoDB expression: a comparison,
BETWEEN, IN and begins_with are false, ``<>`` is true, attribute_not_exists is true, NOT
inverts. Numbers compare by value (exact decimals). Each condition is evaluated once per
distinct value of its attribute (the matrix's value codes) by the engine's own predicate,
then looked up per row (tests/test_vectors_condition.py checks the masks against the engine).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from dynemu import errors
from dynemu.engine.expressions import ast, checks
from dynemu.engine.expressions.evaluate import compile_condition
from dynemu.engine.vectors.maintain import VectorIndex, canonical

Mask = Callable[[Any], Any]  # VectorMatrix -> numpy bool array

FUNCTIONS = ("attribute_exists", "attribute_not_exists", "begins_with")
_PARAMETER = "SearchConditionExpression"


def _invalid(detail: str) -> errors.DynamoError:
    return errors.validation(errors.msg_invalid_expression(_PARAMETER, detail))


def plan(vix: VectorIndex, condition: Any) -> Mask | None:
    """The mask function of SearchConditionExpression (None: every row), after its checks."""
    hash_name = vix.spec.hash_attribute
    if condition is None:
        if hash_name is not None:
            raise errors.validation(errors.MSG_SEARCH_CONDITION_REQUIRED)
        return None
    tree = ast.strip_parens(condition.tree)
    leaves = list(checks.leaves(tree))
    paths = [_check_shape(leaf) for leaf in leaves]
    for path in paths:
        if len(path.elements) != 1 or path.elements[0] not in vix.spec.schema_names:
            raise errors.validation(errors.msg_search_attribute_not_in_schema(_path_text(path.elements)))
    if hash_name is not None:
        _check_hash(tree, leaves, paths, hash_name)
    return _mask(tree)


def _check_shape(leaf: ast.Node, check_op: bool = True) -> ast.Path:
    """The attribute a condition reads, once its form is one the page allows (``check_op``
    False: any comparator, for the masks, which evaluate every form the engine does)."""
    if isinstance(leaf, ast.Compare):
        left, right = ast.strip_parens(leaf.left), ast.strip_parens(leaf.right)
        if isinstance(left, ast.Func) or isinstance(right, ast.Func):
            raise _invalid(errors.MSG_INVALID_SEARCH_OPERATOR)
        if leaf.op != "=" and check_op:  # "Troubleshooting vector indexes": only equality
            raise _invalid(errors.MSG_INVALID_SEARCH_COMPARATOR)
        if isinstance(left, ast.Path) and isinstance(right, ast.Literal):
            return left
        if isinstance(right, ast.Path) and isinstance(left, ast.Literal):
            return right
        raise _invalid(errors.MSG_INVALID_SEARCH_COMPARATOR)
    if isinstance(leaf, ast.Between):
        operand, bounds = ast.strip_parens(leaf.operand), (leaf.low, leaf.high)
    elif isinstance(leaf, ast.In):
        operand, bounds = ast.strip_parens(leaf.operand), leaf.options
    elif isinstance(leaf, ast.Func) and leaf.name in FUNCTIONS:
        operand, bounds = ast.strip_parens(leaf.args[0]), leaf.args[1:]
    else:
        raise _invalid(errors.MSG_INVALID_SEARCH_OPERATOR)
    if not isinstance(operand, ast.Path) or not all(isinstance(ast.strip_parens(b), ast.Literal) for b in bounds):
        raise _invalid(errors.MSG_INVALID_SEARCH_OPERATOR)
    return operand


def _path_text(elements: tuple[ast.PathElement, ...]) -> str:
    """A document path as written: ``a``, ``a.b``, ``a[0]``."""
    out = ""
    for e in elements:
        out += f"[{e}]" if isinstance(e, int) else (f".{e}" if out else str(e))
    return out


def _check_hash(tree: ast.Node, leaves: list[ast.Node], paths: list[ast.Path], hash_name: str) -> None:
    """The vector index partition key: ``=`` only, and fixed by the whole expression."""
    for leaf, path in zip(leaves, paths, strict=True):
        if path.elements[0] != hash_name:
            continue
        if isinstance(leaf, ast.Compare):
            if leaf.op != "=":
                raise _invalid(errors.MSG_INVALID_SEARCH_COMPARATOR)
        else:
            raise _invalid(errors.MSG_INVALID_SEARCH_OPERATOR)
    conjuncts = tree.items if isinstance(tree, ast.And) else (tree,)
    for c in conjuncts:
        c = ast.strip_parens(c)
        if isinstance(c, ast.Compare) and _check_shape(c).elements[0] == hash_name:
            return
    raise errors.validation(errors.MSG_SEARCH_CONDITION_REQUIRED)


def _mask(node: ast.Node) -> Mask:
    node = ast.strip_parens(node)
    if isinstance(node, (ast.And, ast.Or)):
        parts = [_mask(n) for n in node.items]
        both = isinstance(node, ast.And)

        def combined(mx: Any) -> Any:
            out = parts[0](mx)
            for p in parts[1:]:
                out = (out & p(mx)) if both else (out | p(mx))
            return out

        return combined
    if isinstance(node, ast.Not):
        inner = _mask(node.operand)
        return lambda mx: ~inner(mx)
    name = _check_shape(node, check_op=False).elements[0]
    assert isinstance(name, str)
    if isinstance(node, ast.Compare) and node.op == "=":
        left = ast.strip_parens(node.left)
        literal = ast.strip_parens(node.right if isinstance(left, ast.Path) else node.left)
        value = canonical(literal.value)  # type: ignore[union-attr]
        return lambda mx: mx.mask_equal(name, value)
    predicate = compile_condition(node)  # the engine's evaluation, once per distinct value

    def test(value: Any) -> bool:
        return predicate({} if value is None else {name: _wire(value)})

    return lambda mx: mx.mask_where(name, test)


def _wire(value: tuple[str, Any]) -> dict[str, Any]:
    """A matrix value code's value (``maintain.canonical``) as an attribute value."""
    kind, raw = value
    return {kind: str(raw) if kind == "N" else raw}
