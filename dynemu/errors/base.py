"""DynamoError, the one exception type of dynemu, and factories for DynamoDB's errors.

Raised anywhere (engine, validation, protocol); only ``dynemu.api.protocol`` turns it
into the wire form ``{"__type": "<namespace>#<Name>", "message": "..."}``.
This module imports nothing from dynemu.
"""

from __future__ import annotations

from typing import Any

SERVICE_NS = "com.amazonaws.dynamodb.v20120810"
VALIDATE_NS = "com.amazon.coral.validate"
CORAL_NS = "com.amazon.coral.service"

# The error types code tells apart once raised (each spelled once, here).
CONDITIONAL_CHECK_FAILED = "ConditionalCheckFailedException"
PROVISIONED_THROUGHPUT_EXCEEDED = "ProvisionedThroughputExceededException"  # a provisioned table's throttle
THROTTLING = "ThrottlingException"  # an on-demand table's throttle (and the control plane's)
THROTTLE_ERRORS = frozenset((PROVISIONED_THROUGHPUT_EXCEEDED, THROTTLING))


class DynamoError(Exception):
    """An error DynamoDB would return: type name, message, namespace, HTTP status and
    extra top-level members of the error body (``Item``, ``CancellationReasons``, ...)."""

    __slots__ = ("type_name", "message", "namespace", "status", "extra", "envelope")

    def __init__(
        self,
        type_name: str,
        message: str,
        *,
        namespace: str = SERVICE_NS,
        status: int = 400,
        extra: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(f"{type_name}: {message}")
        self.type_name = type_name
        self.message = message
        self.namespace = namespace
        self.status = status
        self.extra = extra
        # one of the request checks that PutItem, UpdateItem and DeleteItem answer inside the
        # "1 validation error detected: " envelope (``enveloped``); False for every other
        # error. The rule: docs/rules.md, "The validation envelope".
        self.envelope = False

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"__type": f"{self.namespace}#{self.type_name}", "message": self.message}
        if self.extra:
            body.update(self.extra)
        return body


# --- factories -----------------------------------------------------------------------------


def validation(message: str) -> DynamoError:
    return DynamoError("ValidationException", message, namespace=VALIDATE_NS)


def request_check(message: str) -> DynamoError:
    """A ValidationException of the request checks the single-item writes envelope (a value
    rule, an expression parameter rule, the Expected family, ReturnValues)."""
    e = DynamoError("ValidationException", message, namespace=VALIDATE_NS)
    e.envelope = True
    return e


def enveloped(e: DynamoError) -> DynamoError:
    """``e`` as PutItem, UpdateItem and DeleteItem answer it: a request check inside the
    "1 validation error detected: " envelope, any other error as it is."""
    if not e.envelope:
        return e
    return DynamoError("ValidationException", f"1 validation error detected: {e.message}", namespace=VALIDATE_NS)


MSG_INVALID_PARAMETER = "One or more parameter values were invalid: {detail}"


def invalid_parameter(detail: str) -> DynamoError:
    """The common ``One or more parameter values were invalid: ...`` ValidationException."""
    return validation(MSG_INVALID_PARAMETER.format(detail=detail))


def invalid_request_parameter(detail: str) -> DynamoError:
    """``invalid_parameter`` as a request check (``request_check``: a value rule, the
    Expected family)."""
    return request_check(MSG_INVALID_PARAMETER.format(detail=detail))


def serialization(message: str = "") -> DynamoError:
    return DynamoError("SerializationException", message, namespace=CORAL_NS)


def unknown_operation(message: str = "") -> DynamoError:
    return DynamoError("UnknownOperationException", message, namespace=CORAL_NS)


def missing_authentication_token() -> DynamoError:
    return DynamoError(
        "MissingAuthenticationTokenException", "Request is missing Authentication Token", namespace=CORAL_NS
    )


def resource_not_found(message: str = "Requested resource not found") -> DynamoError:
    return DynamoError("ResourceNotFoundException", message)


def table_not_found(table_name: str) -> DynamoError:
    return resource_not_found(f"Requested resource not found: Table: {table_name} not found")


def resource_in_use(message: str) -> DynamoError:
    return DynamoError("ResourceInUseException", message)


def limit_exceeded(message: str) -> DynamoError:
    return DynamoError("LimitExceededException", message)


def conditional_check_failed(item: dict[str, Any] | None = None) -> DynamoError:
    return DynamoError(
        CONDITIONAL_CHECK_FAILED,
        "The conditional request failed",
        extra={"Item": item} if item is not None else None,
    )


def internal_server_error(message: str = "Internal server error") -> DynamoError:
    return DynamoError("InternalServerError", message, status=500)
