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


class DynamoError(Exception):
    """An error DynamoDB would return: type name, message, namespace, HTTP status and
    extra top-level members of the error body (``Item``, ``CancellationReasons``, ...)."""

    __slots__ = ("type_name", "message", "namespace", "status", "extra")

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

    def body(self) -> dict[str, Any]:
        body: dict[str, Any] = {"__type": f"{self.namespace}#{self.type_name}", "message": self.message}
        if self.extra:
            body.update(self.extra)
        return body


# --- factories -----------------------------------------------------------------------------


def validation(message: str) -> DynamoError:
    return DynamoError("ValidationException", message, namespace=VALIDATE_NS)


def invalid_parameter(detail: str) -> DynamoError:
    """The common ``One or more parameter values were invalid: ...`` ValidationException."""
    return validation(f"One or more parameter values were invalid: {detail}")


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
        "ConditionalCheckFailedException",
        "The conditional request failed",
        extra={"Item": item} if item is not None else None,
    )


def internal_server_error(message: str = "Internal server error") -> DynamoError:
    return DynamoError("InternalServerError", message, status=500)


# --- the catalogue of messages -------------------------------------------------------------------
# Every message dynemu writes is defined once, here, in the section of the layer that says it.
# Wording is DynamoDB's (cite the page that shows it); tests assert the full strings.

# --- items and the write executor (engine/writes, table, values) ---


# --- reads (engine/reads, Query, Scan, BatchGetItem) ---


# --- request validation (api/validation*, api/operations/items) ---


# --- tables, indexes, streams, TTL, PartiQL (control plane and the rest) ---


# --- transactions and idempotency tokens ---
# engine/cancellation.py and engine/tokens.py. TransactionCanceledException's message, as real
# responses quote it (aws/aws-sdk-net#1292, erlcloud/erlcloud#607, boto/boto3#2657), with the
# reasons' codes between the brackets:
MSG_TRANSACTION_CANCELED = "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]"
# The API reference's description of IdempotentParameterMismatchException (TransactWriteItems,
# "Errors"; the service's own wording is unpublished):
MSG_IDEMPOTENT_MISMATCH = (
    "DynamoDB rejected the request because you retried a request with a different payload "
    "but with an idempotent token that was already used."
)


def idempotent_parameter_mismatch() -> DynamoError:
    return DynamoError("IdempotentParameterMismatchException", MSG_IDEMPOTENT_MISMATCH)


# --- HTTP and the protocol (api/http, api/protocol, api/sigv4) ---
MSG_NOT_IMPLEMENTED = "dynemu does not implement {operation} yet"
# Signature Version 4 (api/sigv4.py), as the service words them ("Signing AWS API requests",
# IAM User Guide; the IncompleteSignature and skew texts as recorded from the service).
MSG_SIGNATURE_MISMATCH = (
    "The request signature we calculated does not match the signature you provided. "
    "Check your AWS Secret Access Key and signing method. Consult the service documentation for details."
)
MSG_UNKNOWN_ACCESS_KEY = "The security token included in the request is invalid."
MSG_SIGNATURE_EXPIRED = "Signature expired: {signed} is now earlier than {earliest} ({now} - 15 min.)"
MSG_SIGNATURE_NOT_YET_CURRENT = "Signature not yet current: {signed} is still later than {latest} ({now} + 15 min.)"
MSG_AUTH_PARAMETER_MISSING = "Authorization header requires '{parameter}' parameter. "
MSG_AUTH_DATE_MISSING = "Authorization header requires existence of either a 'X-Amz-Date' or a 'Date' header. "
MSG_AUTH_INCOMPLETE = "{missing}Authorization={authorization}"
MSG_AUTH_DATE_FORMAT = (
    "Date must be in ISO-8601 'basic format'. Got '{date}'. See http://en.wikipedia.org/wiki/ISO_8601"
)
MSG_AUTH_ALGORITHM = "Unsupported AWS 'algorithm': '{algorithm}' (only AWS4-HMAC-SHA256 for now). "
MSG_AUTH_CREDENTIAL_FORMAT = (
    "Credential must have exactly 5 slash-delimited elements, e.g. keyid/date/region/service/term, "
    "got '{credential}'"
)
# the admin API and dashboard under /_dynemu/ (api/admin.py, admin_guard.py, dashboard.py):
# dynemu's own, answered as {"error": message}
MSG_ADMIN_BAD_CLOCK_BODY = 'the body must be JSON such as {"advance": 60}'
MSG_ADMIN_BAD_ADVANCE = "advance must be a number of seconds >= 0"
MSG_ADMIN_CLOCK_NOT_VIRTUAL = "the clock is {mode}; only a virtual clock (--clock virtual) can be advanced"
MSG_ADMIN_NO_TABLE = "table not found: {table}"
MSG_ADMIN_NO_INDEX = "the table has no global secondary index {index}"
MSG_ADMIN_NO_INDEX_TRAFFIC = "the table has no global secondary index {index} with traffic"
MSG_ADMIN_BAD_SINCE = "since must be a number of epoch seconds"
MSG_ADMIN_FROM_PAGE = (
    "the admin API refuses requests from web pages (Origin {origin!r}); name the origin with --cors to allow it"
)
MSG_ADMIN_TOKEN = "the admin API needs the token given by --admin-token (Authorization: Bearer ... or {header})"
MSG_ADMIN_NOT_JSON = "admin API requests that change state must be Content-Type: application/json"
# start-up (not a DynamoDB message): --verify-signatures with nothing to verify against
MSG_NO_CREDENTIALS = (
    "--verify-signatures needs credentials: give --credentials-file or set "
    "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY"
)


# --- storage and durability ---
# DynamoDB has no error for a full disk (its storage is the service's problem): dynemu answers
# as the service answers its own failures, InternalServerError (500), saying what to do.


class DiskFull(DynamoError):
    """A write refused because the disk of the data directory is full (the store raises it;
    nothing was written). Reads keep working; writes resume once space is freed."""

    __slots__ = ()


def disk_full(path: str) -> DiskFull:
    return DiskFull(
        "InternalServerError",
        f"The disk of dynemu's data directory is full: no space left to write {path}. Nothing was "
        "written; reads keep working, and writes resume by themselves once space is freed on that disk.",
        status=500,
    )
