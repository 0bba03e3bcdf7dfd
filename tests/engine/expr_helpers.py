"""Shared helpers for the expression tests: compile a request, or get its error message."""

from __future__ import annotations

from typing import Any

import pytest

from dynemu.engine.expressions import Compiled, compile_request
from dynemu.errors import DynamoError


def S(x: str) -> dict[str, Any]:
    return {"S": x}


def N(x: str | int) -> dict[str, Any]:
    return {"N": str(x)}


def request(expression_param: str | None = None, text: str | None = None, names: dict | None = None,
            values: dict | None = None, **extra: Any) -> dict[str, Any]:
    req: dict[str, Any] = dict(extra)
    if expression_param is not None:
        req[expression_param] = text
    if names is not None:
        req["ExpressionAttributeNames"] = names
    if values is not None:
        req["ExpressionAttributeValues"] = values
    return req


def error_message(operation: str, req: dict[str, Any], **kwargs: Any) -> str:
    with pytest.raises(DynamoError) as info:
        compile_request(operation, req, **kwargs)
    assert info.value.type_name == "ValidationException"
    return info.value.message


def compiled(operation: str, req: dict[str, Any], **kwargs: Any) -> Compiled:
    return compile_request(operation, req, **kwargs)


def condition(text: str, names: dict | None = None, values: dict | None = None):
    """Compile a ConditionExpression and return its Condition."""
    result = compile_request("PutItem", request("ConditionExpression", text, names, values))
    assert result.condition is not None
    return result.condition
