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
# Coral's deserialiser: what a JSON value of the wrong kind gets (SerializationException).
# Captured from the service: dynalite validations/*.js and the 2026 capture cited in
# api/validation_overrides.py.
MSG_START_OF_STRUCTURE = "Start of structure or map found where not expected"
MSG_UNEXPECTED_FIELD_TYPE = "Unexpected field type"
MSG_UNEXPECTED_VALUE_TYPE = "Unexpected value type in payload"
MSG_UNEXPECTED_TOKEN = "Unexpected token received from parser"  # a string where a Boolean belongs
MSG_NOT_CONVERTIBLE = "{} cannot be converted to {}"  # (TRUE_VALUE, NUMBER_VALUE, ...), (String, Integer, ...)
MSG_UNRECOGNIZED_COLLECTION = "Unrecognized collection type {}"  # "class <Java class>" or a generic type
MSG_NOT_BASE64 = "only base-64-encoded strings are convertible to bytes"
MSG_BASE64_LENGTH = "Base64 encoded length is expected a multiple of 4 bytes but found: {}"
MSG_BASE64_CHARACTER = "Invalid Base64 character: '{}'"
MSG_BASE64_LAST = "Invalid last non-pad Base64 character dectected"  # sic
# A scalar where a list or map nested in a collection is expected (Java generics leak).
MSG_PARAMETERIZED_CAST = (
    "class sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl cannot be cast to class java.lang.Class "
    "(sun.reflect.generics.reflectiveObjects.ParameterizedTypeImpl and java.lang.Class are in module java.base "
    "of loader 'bootstrap')"
)
# Coral's constraint checks (ValidationException), up to ten listed in one message:
# "2 validation errors detected: Value null at 'tableName' failed to satisfy constraint: ...; ..."
MSG_VALIDATION_ERRORS = "{} validation error{} detected: {}"  # count, "s" when more than one, "; "-joined
MSG_CONSTRAINT = "Value {} at '{}' failed to satisfy constraint: {}"  # null or 'value', path, rule
MSG_NOT_NULL = "Member must not be null"
MSG_MIN_LENGTH = "Member must have length greater than or equal to {}"
MSG_MAX_LENGTH = "Member must have length less than or equal to {}"
MSG_PATTERN = "Member must satisfy regular expression pattern: {}"
MSG_MIN_VALUE = "Member must have value greater than or equal to {}"
MSG_MAX_VALUE = "Member must have value less than or equal to {}"
MSG_ENUM = "Member must satisfy enum value set: [{}]"
MSG_MAP_KEYS = "Map keys must satisfy constraint: [{}]"
MSG_MAP_VALUE = "Map value must satisfy constraint: [{}]"
MSG_BYTE_BUFFER = "java.nio.HeapByteBuffer[pos=0 lim={} cap={}]"  # how Coral shows a blob's value
# Messages some operations return instead of Coral's (api/validation_overrides.py says which).
MSG_NAME_LENGTH = "{} must be at least 3 characters long and at most 255 characters long"
MSG_PARAMETER_REQUIRED = "The parameter '{}' is required but was not present in the request"
MSG_BATCH_WRITE_ITEMS_REQUIRED = "The requestItems parameter is required for BatchWriteItem"
MSG_BATCH_GET_ITEMS_EMPTY = (
    "1 validation error detected: Value at 'RequestItems' failed to satisfy constraint: "
    "Member must have length greater than or equal to 1"
)
MSG_QUERY_LIMIT_BELOW_1 = (
    "1 validation error detected: Value at 'Limit' failed to satisfy constraint: "
    "Member must have value greater than or equal to 1"
)


# --- tables, indexes, streams, TTL, PartiQL (control plane and the rest) ---


# --- transactions and idempotency tokens ---


# --- HTTP and the protocol (api/http, api/protocol, api/sigv4) ---


# --- storage and durability ---
