"""Messages of request validation (api/validation/, api/operations/items.py): Coral's deserialiser and constraint checks.

Part of the catalogue of messages (``dynemu.errors``): every text dynemu says is defined once.
"""

from __future__ import annotations

from typing import Any

# Coral's deserialiser: what a JSON value of the wrong kind gets (SerializationException).
# Captured from the service: dynalite validations/*.js and the 2026 capture cited in
# api/validation/overrides.py.
MSG_START_OF_STRUCTURE = "Start of structure or map found where not expected"
MSG_START_OF_LIST = "Start of list found where not expected"
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
# Messages some operations return instead of Coral's (api/validation/overrides.py says which).
MSG_NAME_LENGTH = "{} must be at least 3 characters long and at most 255 characters long"
MSG_PARAMETER_REQUIRED = "The parameter '{}' is required but was not present in the request"
MSG_BATCH_WRITE_ITEMS_REQUIRED = "The requestItems parameter is required for BatchWriteItem"
# More than 100 keys for one table of a BatchGetItem: the newer envelope, naming the member
# without its value (issue 24, observed against the service).
MSG_BATCH_GET_KEYS_OVER_100 = (
    "1 validation error detected: Value at 'RequestItems.{}.member.Keys' failed to satisfy constraint: "
    "Member must have length less than or equal to 100"
)
# An empty RequestItems of BatchGetItem and an empty Keys list: the newer envelope, naming the
# member without its value (nubo-db/dynoxide#198; issue 36, observed against the service).
MSG_BATCH_GET_ITEMS_EMPTY = (
    "1 validation error detected: Value at 'RequestItems' failed to satisfy constraint: "
    "Member must have length greater than or equal to 1"
)
MSG_BATCH_GET_KEYS_EMPTY = (
    "1 validation error detected: Value at 'RequestItems.{}.member.Keys' failed to satisfy constraint: "
    "Member must have length greater than or equal to 1"
)
# Query's ConditionalOperator outside its enum, reported before every other member: the
# service's own text and value list, as it answers it (issue 36, observed against the service).
MSG_QUERY_CONDITIONAL_OPERATOR = "Failed to satisfy constraint: Member must satisfy enum value set: [ALL, OR]"
MSG_QUERY_LIMIT_BELOW_1 = (
    "1 validation error detected: Value at 'Limit' failed to satisfy constraint: "
    "Member must have value greater than or equal to 1"
)


# shape errors said outside api/validation (the same form as its aggregated message)


def msg_at_most(limit: int) -> str:
    return MSG_MAX_VALUE.format(limit)


def msg_pattern(pattern: str) -> str:
    return MSG_PATTERN.format(pattern)


def msg_at_least_length(limit: int) -> str:
    return MSG_MIN_LENGTH.format(limit)


def msg_at_most_length(limit: int) -> str:
    return MSG_MAX_LENGTH.format(limit)


def msg_validation_errors(details: list[str]) -> str:
    """``N validation error(s) detected: d1; d2``."""
    n = len(details)
    return MSG_VALIDATION_ERRORS.format(n, "s" if n > 1 else "", "; ".join(details))


def msg_constraint(value: Any, path: str, constraint: str) -> str:
    """One detail of ``msg_validation_errors``; ``value`` None prints as null."""
    return MSG_CONSTRAINT.format("null" if value is None else f"'{value}'", path, constraint)
