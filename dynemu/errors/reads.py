"""Messages of reads (engine/reads.py, Query, Scan, BatchGetItem, key conditions).

Part of the catalogue of messages (``dynemu.errors``): every text dynemu says is defined once.
"""

from __future__ import annotations

MSG_KEY_CONDITIONS_REQUIRED = "Either the KeyConditions or KeyConditionExpression parameter must be specified in the request."
MSG_BACKFILLING_INDEX = "Cannot read from backfilling global secondary index"
MSG_CONSISTENT_GSI = "Consistent reads are not supported on global secondary indexes"
MSG_INVALID_START = "The provided starting key is invalid"
# Scan's for any malformed ExclusiveStartKey; Query's for key attributes of the wrong type.
MSG_INVALID_START_SCHEMA = "The provided starting key is invalid: The provided key element does not match the schema"
MSG_OUTSIDE = "The provided starting key is outside query boundaries based on provided condition"
MSG_SPECIFIC_NEEDS_PROJECTION = (
    "Must specify the AttributesToGet or ProjectionExpression when choosing to get SPECIFIC_ATTRIBUTES"
)
MSG_SEGMENT_WITHOUT_TOTAL = (
    "The TotalSegments parameter is required but was not present in the request when Segment parameter is present"
)
MSG_TOTAL_WITHOUT_SEGMENT = (
    "The Segment parameter is required but was not present in the request when parameter TotalSegments is present"
)
_SELECT_CHOICES = {"ALL_ATTRIBUTES": "ALL_ATTRIBUTES", "ALL_PROJECTED_ATTRIBUTES": "ALL_PROJECTED_ATTRIBUTES",
                   "COUNT": "only the Count"}


def msg_no_such_index(name: str) -> str:
    return f"The table does not have the specified index: {name}"


def msg_start_key_wrong_segment(total: int, segment: int | None) -> str:
    return (
        "The provided starting key is invalid: Invalid ExclusiveStartKey. Please use ExclusiveStartKey with "
        f"correct Segment. TotalSegments: {total} Segment: {segment}"
    )


def msg_gsi_select_all(index: str) -> str:
    """Detail of ``invalid_parameter``."""
    return f"Select type ALL_ATTRIBUTES is not supported for global secondary index {index} because its projection type is not ALL"


def msg_gsi_not_projected(index: str, missing: list[str]) -> str:
    """Detail of ``invalid_parameter``."""
    return f"Global secondary index {index} does not project [{', '.join(missing)}]"


def msg_filter_not_projected(index: str, missing: list[str]) -> str:
    """Detail of ``invalid_parameter``."""
    return f"Secondary index {index} does not project one or more filter attributes: [{', '.join(missing)}]"


def msg_select_conflict(which: str, select: str) -> str:
    """``which`` (ProjectionExpression or AttributesToGet) given with Select ``select``."""
    return f"Cannot specify the {which} when choosing to get {_SELECT_CHOICES[select]}"


def msg_all_projected_needs_index(operation: str) -> str:
    verb = "Querying" if operation == "Query" else "Scanning"
    return f"ALL_PROJECTED_ATTRIBUTES can be used only when {verb} using an IndexName"


def msg_segment_out_of_range(segment: int, total: int) -> str:
    return (
        "The Segment parameter is zero-based and must be less than parameter TotalSegments: "
        f"Segment: {segment} is not less than TotalSegments: {total}"
    )


# key conditions (engine/expressions/keycondition, legacy KeyConditions)
MSG_CONDITIONS_LENGTH = "Conditions can be of length 1 or 2 only"
MSG_KEY_CONDITION_NOT_SUPPORTED = "Query key condition not supported"
MSG_NOT_INDEXABLE = "Attempted conditional constraint is not an indexable operation"
MSG_KEY_CONDITION_TYPE = "Condition parameter type does not match schema type"  # detail of ``invalid_parameter``
MSG_KEY_CONDITION_NESTED_OPERATIONS = "KeyConditionExpressions cannot contain nested operations"
MSG_KEY_CONDITION_NESTED_ATTRIBUTES = "KeyConditionExpressions cannot have conditions on nested attributes"
MSG_KEY_CONDITION_TWO_NAMES = "Invalid condition in KeyConditionExpression: Multiple attribute names used in one condition"
MSG_KEY_CONDITION_NO_KEY = "Invalid condition in KeyConditionExpression: No key attribute specified"
MSG_KEY_CONDITION_REPEATED = "KeyConditionExpressions must only contain one condition per key"


def msg_conditions_exceed_key(conditions: int, attributes: int) -> str:
    """More key conditions than the key schema has attributes (issue 36, observed against the
    service)."""
    return (f"The number of query conditions ({conditions}) exceeds the number of key attributes "
            f"defined in the schema ({attributes})")


def msg_key_condition_missing(name: str) -> str:
    return f"Query condition missed key schema element: {name}"


def msg_range_key_gap(prior: str, name: str) -> str:
    return (
        f"RANGE key attributes {prior} must have equality conditions specified in the query "
        f"because a condition is present on key attribute {name}"
    )


def msg_key_condition_operator(operator: str) -> str:
    return f"Invalid operator used in KeyConditionExpression: {operator}"


def msg_key_condition_first_operand(kind: str) -> str:
    return f"Invalid condition in KeyConditionExpression: {kind} operator must have the key attribute as its first operand"
