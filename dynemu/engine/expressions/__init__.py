"""DynamoDB's expression language: one pipeline for every expression parameter.

tokenizer -> parser (AST, cached by text) -> checks (named, in DynamoDB's priority order)
-> resolve (placeholders, once per request) -> evaluate / update / project / keycondition.
Legacy parameters (Expected, AttributeUpdates, AttributesToGet, QueryFilter, ScanFilter,
KeyConditions) are translated onto the same trees by ``legacy``.

A request whose shape (operation, expression texts, ExpressionAttributeNames, value keys)
compiled without error before reuses that result's value-independent part (``template``):
only the value checks and the substitution run again, and any failure there takes the full
pipeline, so errors and their order are the full pipeline's.

The operations layer calls ``compile_request`` once per request (before the table lookup,
so expression errors come first, as in DynamoDB) and ``Compiled.bind(key_schema)`` once the
table is known (key-attribute rules). Messages and their sources: the header of tests/test_expressions_errors.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any

from ... import errors
from ...cache import memoized
from ...errors import DynamoError, invalid_parameter, validation
from .. import values as V
from . import ast, legacy, template
from .checks import (
    ConditionPlan,
    ExprContext,
    ProjectionPlan,
    UpdatePlan,
    condition_plan,
    projection_plan,
    update_plan,
)
from .evaluate import Condition
from .keycondition import KeyCondition, SortCondition, from_expression
from .legacy import LegacyUpdate
from .parser import ParseError, parse_condition, parse_projection, parse_update
from .project import Projection
from .resolve import Resolver
from .update import Update

__all__ = ["Compiled", "Condition", "KeyCondition", "LegacyUpdate", "Projection", "SortCondition",
           "Update", "compile_request", "normalize_key_schema"]

MAX_EXPRESSION_BYTES = 4096

# operation -> (expression parameters, non-expression parameters), in DynamoDB's order
_PARAMETERS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "PutItem": (("ConditionExpression",), ("Expected", "ConditionalOperator")),
    "DeleteItem": (("ConditionExpression",), ("Expected", "ConditionalOperator")),
    "UpdateItem": (("UpdateExpression", "ConditionExpression"), ("AttributeUpdates", "Expected", "ConditionalOperator")),
    "GetItem": (("ProjectionExpression",), ("AttributesToGet",)),
    "Query": (("ProjectionExpression", "FilterExpression", "KeyConditionExpression"),
              ("AttributesToGet", "QueryFilter", "ConditionalOperator", "KeyConditions")),
    "Scan": (("ProjectionExpression", "FilterExpression"), ("AttributesToGet", "ScanFilter", "ConditionalOperator")),
    "ConditionCheck": (("ConditionExpression",), ()),
    # a filter of the vector search ("SearchVectors"; docs/vectors.md)
    "SearchVectors": (("ProjectionExpression", "SearchConditionExpression"), ()),
}
_ALIASES = {"Put": "PutItem", "Delete": "DeleteItem", "Update": "UpdateItem", "Get": "GetItem",
            "BatchGetItem": "GetItem", "TransactGetItems": "GetItem"}
# the order in which DynamoDB validates the expressions of one request
_EXPRESSION_ORDER = ("UpdateExpression", "ConditionExpression", "KeyConditionExpression",
                     "FilterExpression", "SearchConditionExpression", "ProjectionExpression")
_NAME_KEY = re.compile(r"#[0-9A-Za-z_]+")
_VALUE_KEY = re.compile(r":[0-9A-Za-z_]+")

KeySchema = list[tuple[str, ...]]


@dataclass(slots=True)  # never changed once built; not frozen: built per request, a frozen __init__ costs ~3x
class Compiled:
    """Everything the expressions (or legacy parameters) of one request became."""

    condition: Condition | None = None
    filter: Condition | None = None
    projection: Projection | None = None
    update: Update | LegacyUpdate | None = None
    key_condition: KeyCondition | None = None
    filter_parameter: str | None = None  # "FilterExpression", "QueryFilter"/"ScanFilter" or "SearchConditionExpression"

    def bind(self, key_schema: Any) -> Compiled:
        """Apply the rules that need the table's (or index's) key schema and return the
        result: update of a key attribute, Query key conditions, Query filters on keys."""
        schema = normalize_key_schema(key_schema)
        if self.update is not None:
            for entry in schema:
                if entry[0] in self.update.top_names:
                    raise invalid_parameter(errors.msg_key_update(entry[0]))
        if self.key_condition is None:
            return self
        key_condition = self.key_condition.bind(schema)
        if self.filter is not None:
            label = "Filter Expression" if self.filter_parameter == "FilterExpression" else self.filter_parameter
            for entry in schema:
                if entry[0] in self.filter.names:
                    raise validation(errors.msg_filter_on_key(label, entry[0]))
        return Compiled(self.condition, self.filter, self.projection, self.update, key_condition,
                        self.filter_parameter)


EMPTY = Compiled()


def normalize_key_schema(key_schema: Any) -> KeySchema:
    """``[(name, "HASH"|"RANGE"[, attribute type])]`` (or KeySchema dicts), HASH first."""
    entries: KeySchema = []
    ordered = True  # already HASH first (a table's or index's own key schema is)
    for entry in key_schema:
        if isinstance(entry, dict):
            entry = (entry["AttributeName"], entry["KeyType"])
        elif type(entry) is not tuple:
            entry = tuple(entry)
        if entry[1] == "HASH" and entries and entries[-1][1] != "HASH":
            ordered = False
        entries.append(entry)
    return entries if ordered else sorted(entries, key=lambda e: e[1] != "HASH")


def compile_request(operation: str, request: dict[str, Any], *, key_schema: Any = None) -> Compiled:
    """Validate and compile the expression and legacy parameters of one request.

    Raises ``DynamoError`` (ValidationException) with DynamoDB's message for the first
    problem found, in DynamoDB's order. With ``key_schema`` the result is also bound.
    """
    operation = _ALIASES.get(operation, operation)
    expression_params, legacy_params = _PARAMETERS[operation]
    if operation == "GetItem" and "ExpressionAttributeValues" in request:
        # Not a member of GetItem (nor of BatchGetItem's or TransactGetItems' reads): the
        # service ignores unknown members, so the values are neither used nor "unused".
        request = {k: v for k, v in request.items() if k != "ExpressionAttributeValues"}
    # a request of a shape that compiled before: only what depends on the values runs
    key = template.request_key(operation, request, expression_params)
    cached = template.lookup(key) if key is not None else None
    changes = cached.instantiate(request.get("ExpressionAttributeNames") or {},
                                 request.get("ExpressionAttributeValues")) if cached is not None else None
    if changes is not None:
        compiled = Compiled(**changes)
    else:
        present = [p for p in expression_params if request.get(p) is not None]
        has_legacy = any(request.get(p) is not None for p in legacy_params)
        if (not present and not has_legacy and request.get("ExpressionAttributeNames") is None
                and request.get("ExpressionAttributeValues") is None):
            compiled = EMPTY
        else:
            compiled = _compile_full(operation, request, present, expression_params, legacy_params, key)
    if operation == "Query" and compiled.key_condition is None:  # once every other check passed
        raise validation(errors.MSG_KEY_CONDITIONS_REQUIRED)
    return compiled.bind(key_schema) if key_schema is not None else compiled


def _compile_full(operation: str, request: dict[str, Any], present: list[str], expression_params: tuple[str, ...],
                  legacy_params: tuple[str, ...], key: Any) -> Compiled:
    """Every check in DynamoDB's order; a request that passes them all leaves a template
    for the next one of its shape (``key``) when it has one."""
    _check_parameters(request, present, expression_params, legacy_params)
    compiled = _compile_legacy(operation, request)
    parts: list[tuple[str, Any, Any]] = []
    if present or request.get("ExpressionAttributeNames") is not None or request.get("ExpressionAttributeValues") is not None:
        compiled = _compile_expressions(operation, request, compiled, parts)
    if key is not None:
        template.remember(key, template.build(parts, request.get("ExpressionAttributeNames") or {}))
    return compiled


def _check_parameters(request: dict[str, Any], present: list[str], expression_params: tuple[str, ...],
                      legacy_params: tuple[str, ...]) -> None:
    if present:
        non_expression = [p for p in legacy_params if request.get(p) is not None]
        if "KeyConditions" in non_expression and request.get("KeyConditionExpression") is None:
            non_expression.remove("KeyConditions")  # KeyConditions may go with the other expressions
        if non_expression:
            raise validation(errors.msg_mixed_parameters(non_expression, present))
    if request.get("ExpressionAttributeNames") is not None and not present:
        raise errors.request_check(errors.MSG_NAMES_WITHOUT_EXPRESSIONS)
    value_params = [p for p in expression_params if p != "ProjectionExpression"]
    if value_params and request.get("ExpressionAttributeValues") is not None and not any(
        request.get(p) is not None for p in value_params
    ):
        if value_params == ["ConditionExpression"]:  # PutItem, DeleteItem: no "... is null" tail (issue 36)
            raise errors.request_check(errors.MSG_VALUES_WITHOUT_EXPRESSIONS)
        raise errors.request_check(errors.msg_values_without_expressions(value_params))


def _compile_legacy(operation: str, request: dict[str, Any]) -> Compiled:
    condition = update = projection = key_condition = filter_ = None
    filter_parameter = None
    legacy.check_conditional_operator(request)
    if request.get("AttributeUpdates"):  # {} is no update: the item is kept, or created with its key
        update = legacy.attribute_updates(request["AttributeUpdates"])
    if request.get("Expected") is not None:
        tree = legacy.expected_condition(request["Expected"], request.get("ConditionalOperator"))
        condition = Condition(tree) if tree is not None else None
    for parameter in ("QueryFilter", "ScanFilter"):
        if request.get(parameter) is not None and operation in ("Query", "Scan"):
            tree = legacy.filter_condition(request[parameter], request.get("ConditionalOperator"))
            filter_, filter_parameter = (Condition(tree) if tree is not None else None), parameter
    if request.get("AttributesToGet") is not None:
        projection = legacy.attributes_to_get(request["AttributesToGet"])
    if operation == "Query" and request.get("KeyConditions") is not None and request.get("KeyConditionExpression") is None:
        key_condition = legacy.key_conditions(request["KeyConditions"])
    return Compiled(condition, filter_, projection, update, key_condition, filter_parameter)


def _placeholders(request: dict[str, Any]) -> tuple[dict[str, str], dict[str, dict[str, Any]]]:
    names = request.get("ExpressionAttributeNames")
    values = request.get("ExpressionAttributeValues")
    if names is not None:
        if not names:
            raise errors.request_check(errors.msg_placeholders_empty("ExpressionAttributeNames"))
        for key in names:
            if not _NAME_KEY.fullmatch(key):
                raise validation(errors.msg_placeholder_key("ExpressionAttributeNames", key))
        for key, name in names.items():
            if name == "":  # as ExpressionAttributeValues reports its values (issue 12 report)
                raise validation(errors.msg_placeholder_value("ExpressionAttributeNames", errors.MSG_EMPTY_NAME, key))
    if values is not None:
        if not values:
            raise errors.request_check(errors.msg_placeholders_empty("ExpressionAttributeValues"))
        for key in values:
            if not _VALUE_KEY.fullmatch(key):
                raise validation(errors.msg_placeholder_key("ExpressionAttributeValues", key))
        checked = {}
        for key, value in values.items():
            try:
                checked[key] = V.validate_value(value)
            except DynamoError as e:
                if e.type_name != "ValidationException" or e.envelope or e.message == errors.MSG_NESTING:
                    # a value rule (numbers, sets) is said bare, as in an item (issue 36,
                    # observed against the service), and so is the nesting rule, reported
                    # after every other check (values.nesting_last); a shapeless value keeps
                    # the wrapper
                    raise
                raise validation(errors.msg_placeholder_value("ExpressionAttributeValues", e.message, key)) from None
        values = checked
    return names or {}, values or {}


def _compile_expressions(operation: str, request: dict[str, Any], compiled: Compiled,
                         parts: list[tuple[str, Any, Any]]) -> Compiled:
    """The expressions of a request, checked and bound; ``parts`` receives each one's
    ``(parameter, plan, parsed expression)`` for the template cache."""
    names, values = _placeholders(request)
    resolver = Resolver(names, values)
    results: dict[str, Any] = {}
    for parameter in _EXPRESSION_ORDER:
        text = request.get(parameter)
        if text is None:
            continue
        ctx = ExprContext(parameter, names, values)
        _check_text(text, ctx)
        try:
            if parameter == "UpdateExpression":
                expr, plan = _update(text)
                plan.check(ctx)
                results[parameter] = resolver.update(expr)
                parts.append((parameter, plan, expr))
            elif parameter == "ProjectionExpression":
                pexpr, pplan = _projection(text)
                pplan.check(ctx)
                results[parameter] = resolver.projection(pexpr)
                parts.append((parameter, pplan, pexpr))
            else:
                node, cplan = _condition(text)
                cplan.check(ctx)
                results[parameter] = resolver.bind(node)
                parts.append((parameter, cplan, node))
        except ParseError as e:
            raise ctx.error(e.detail) from None
    _check_unused("ExpressionAttributeNames", names, resolver.used_names)
    _check_unused("ExpressionAttributeValues", values, resolver.used_values)
    return _assemble(compiled, results)


# Parsing and every check that depends only on the text, cached by text (ParseError is
# raised, not cached).
@memoized(4096)
def _condition(text: str) -> tuple[ast.Node, ConditionPlan]:
    node = parse_condition(text)
    return node, condition_plan(node)


@memoized(4096)
def _update(text: str) -> tuple[ast.UpdateExpr, UpdatePlan]:
    expr = parse_update(text)
    return expr, update_plan(expr)


@memoized(4096)
def _projection(text: str) -> tuple[ast.ProjectionExpr, ProjectionPlan]:
    expr = parse_projection(text)
    return expr, projection_plan(expr)


# Expression kinds whose size error ends at "size;" without the byte count, as the service
# reports them (UpdateExpression: aws/aws-sdk-java-v2#4597; both: floci-io/floci#3447,
# captured against the service). Condition and Filter expressions add "expression size: N"
# (pynamodb/PynamoDB#979).
_SIZE_WITHOUT_COUNT = frozenset(("UpdateExpression", "ProjectionExpression"))


def _check_text(text: Any, ctx: ExprContext) -> None:
    if text == "":
        raise ctx.request_error(errors.MSG_EXPRESSION_EMPTY)
    if len(text) > MAX_EXPRESSION_BYTES // 4:
        size = len(text.encode("utf-8", "surrogatepass"))
        if size > MAX_EXPRESSION_BYTES:
            if ctx.kind in _SIZE_WITHOUT_COUNT:
                raise ctx.error(errors.MSG_EXPRESSION_TOO_LARGE)
            raise ctx.error(errors.msg_expression_too_large(size))


def _check_unused(parameter: str, defined: dict[str, Any], used: set[str]) -> None:
    unused = [key for key in defined if key not in used]
    if unused:
        raise validation(errors.msg_unused_placeholders(parameter, unused))


def _assemble(compiled: Compiled, results: dict[str, Any]) -> Compiled:
    changes: dict[str, Any] = {}
    if "UpdateExpression" in results:
        changes["update"] = Update(results["UpdateExpression"])
    if "ConditionExpression" in results:
        changes["condition"] = Condition(results["ConditionExpression"])
    for parameter in ("FilterExpression", "SearchConditionExpression"):
        if parameter in results:
            changes["filter"] = Condition(results[parameter])
            changes["filter_parameter"] = parameter
    if "ProjectionExpression" in results:
        changes["projection"] = Projection(tuple(p.elements for p in results["ProjectionExpression"]))
    if "KeyConditionExpression" in results:
        key_condition = from_expression(results["KeyConditionExpression"])
        legacy.check_key_condition_values(key_condition)
        changes["key_condition"] = key_condition
    return replace(compiled, **changes)


