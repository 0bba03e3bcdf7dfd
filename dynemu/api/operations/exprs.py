"""Bridge from a request's expression (and legacy) parameters to the engine's pipeline.

DynamoDB reports expression errors before it looks the table up, so operations call
``compile_expressions`` first and ``bind_to`` once the table is known.
"""

from __future__ import annotations

from typing import Any

from dynemu.engine.expressions import EMPTY, Compiled, compile_request
from dynemu.engine.table import Table

# Parameters that make compile_request worth calling; requests without any skip it.
_EXPRESSION_PARAMS = frozenset(
    (
        "ConditionExpression",
        "UpdateExpression",
        "ProjectionExpression",
        "FilterExpression",
        "KeyConditionExpression",
        "ExpressionAttributeNames",
        "ExpressionAttributeValues",
        "Expected",
        "AttributeUpdates",
        "AttributesToGet",
        "QueryFilter",
        "ScanFilter",
        "KeyConditions",
        "ConditionalOperator",
    )
)


def compile_expressions(operation: str, body: dict[str, Any]) -> Compiled:
    """The request's expressions, compiled (``EMPTY``: none; a Query without any is refused
    by ``compile_request``, the one home of that rule)."""
    if _EXPRESSION_PARAMS.isdisjoint(body) and operation != "Query":
        return EMPTY
    return compile_request(operation, body)


def bind_to(compiled: Compiled, table: Table) -> Compiled:
    """Apply the rules that need the table's key schema (updating a key attribute, Query key
    conditions and filters on key attributes)."""
    if compiled is EMPTY or compiled.key_condition is None and (
        compiled.update is None or compiled.update.top_names.isdisjoint(table.spec.key_names)
    ):  # an update of no key attribute, and no key condition: nothing to apply
        return compiled
    return compiled.bind(table.spec.key_schema)
