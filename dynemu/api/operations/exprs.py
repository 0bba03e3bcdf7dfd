"""Bridge from a request's expression parameters to the engine's expression pipeline."""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.engine.table import Table

_EXPRESSION_PARAMS = (
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


class _Nothing:
    condition = None
    filter = None
    projection = None
    update = None
    key_condition = None


def compile_for(operation: str, body: dict[str, Any], table: Table) -> Any:
    """Every expression (and legacy parameter) of ``body``, compiled for ``table``."""
    for p in _EXPRESSION_PARAMS:
        if p in body:
            raise errors.validation(f"dynemu does not support {p} yet")
    return _Nothing
