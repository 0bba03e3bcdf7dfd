"""Assertions shared by the server tests."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from botocore.exceptions import ClientError


def error_of(call: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[str, str]:
    """Call a boto3 method that must fail; return (error code, message)."""
    with pytest.raises(ClientError) as info:
        call(*args, **kwargs)
    err = info.value.response["Error"]
    return err["Code"], err.get("Message", "")


def assert_error(code: str, message: str | None, call: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    got_code, got_message = error_of(call, *args, **kwargs)
    assert got_code == code, (got_code, got_message)
    if message is not None:
        assert got_message == message


def assert_validation(message: str, call: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    assert_error("ValidationException", message, call, *args, **kwargs)


# --- attribute values, briefly -----------------------------------------------------------------------


def S(x: str) -> dict[str, Any]:
    return {"S": x}


def N(x: str | int) -> dict[str, Any]:
    return {"N": str(x)}


def B(x: bytes) -> dict[str, Any]:
    return {"B": x}


def L(*xs: dict[str, Any]) -> dict[str, Any]:
    return {"L": list(xs)}


def M(**xs: dict[str, Any]) -> dict[str, Any]:
    return {"M": xs}
