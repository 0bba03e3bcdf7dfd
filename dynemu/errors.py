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
# The 400 KB item size rule ("Service, account, and table quotas": Item size): a new image
# too large, and an UpdateItem (or a transaction's Update) growing one past the limit.
MSG_ITEM_SIZE = "Item size has exceeded the maximum allowed size"
MSG_UPDATE_SIZE = "Item size to update has exceeded the maximum allowed size"
# Quoted by AWS's knowledge-center article "Why is my TransactWriteItems API call failing".
MSG_MULTIPLE_OPERATIONS = "Transaction request cannot include multiple operations on one item"
# The 4 MB aggregate of a transaction: dynoxide's wording, checked against the service by
# its conformance suite.
MSG_TRANSACTION_TOO_LARGE = (
    "Collection size of items exceeded, which can also be caused by the aggregate size of the items in the "
    "transaction exceeding the 4MB limit"
)
# An LSI's item collection past 10 GB (LSI.md, "Item collection size limit").
MSG_COLLECTION_SIZE = "Collection size exceeded"
# Index key attributes of a new image (engine/indexes; dynalite's probes of the service).
MSG_INDEX_KEY_TYPE = "Type mismatch for Index Key {name} Expected: {expected} Actual: {actual} IndexName: {index}"
MSG_INDEX_KEY_EMPTY = (
    "One or more parameter values are not valid. A value specified for a secondary index key is "
    "not supported. The AttributeValue for a key attribute cannot contain an empty "
    "{type_name} value. IndexName: {index}, IndexKey: {name}"
)
MSG_INDEX_KEY_SIZE = (
    "Size limit exceeded for Index Key {name} Actual Size: {size} bytes Max Size: {limit} bytes IndexName: {index}"
)
# Throttling (engine/capacity): ProvisionedThroughputExceededException as the service
# returns it (quoted in mifi/dynamodump#20, source-cooperative/source.coop#12;
# grailbio/reflow#101 for GSIs), and the ThrottlingException of an on-demand table
# (praetorian-inc/chariot-ui#684, cowinapi/developer.cowin#151).
MSG_THROTTLED_TABLE = (
    "The level of configured provisioned throughput for the table was exceeded. "
    "Consider increasing your provisioning level with the UpdateTable API."
)
MSG_THROTTLED_INDEX = (
    "The level of configured provisioned throughput for one or more global secondary indexes of the "
    "table was exceeded. Consider increasing your provisioning level for the under-provisioned global "
    "secondary indexes with the UpdateTable API"
)
MSG_THROTTLED_ON_DEMAND = (
    "Throughput exceeds the current capacity of your table or index. DynamoDB is automatically scaling "
    "your table or index so please try again shortly. If exceptions persist, check if you have a hot key: "
    "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/bp-partition-key-design.html"
)


# --- reads (engine/reads, Query, Scan, BatchGetItem) ---


# --- request validation (api/validation*, api/operations/items) ---


# --- tables, indexes, streams, TTL, PartiQL (control plane and the rest) ---


# --- transactions and idempotency tokens ---


# --- HTTP and the protocol (api/http, api/protocol, api/sigv4) ---


# --- storage and durability ---
