"""Messages of DynamoDB Streams (engine/streams, api/operations/streams).

Part of the catalogue of messages (``dynemu.errors``): every text dynemu says is defined once.
"""

from __future__ import annotations

# streams (engine/streams, api/operations/streams)
MSG_TRIMMED = "The data you are trying to access has been trimmed."
MSG_SHARD_NOT_FOUND = "Requested resource not found: Shard does not exist"
MSG_STREAM_ENABLED_NEEDS_TYPE = (
    "One or more parameter values were invalid: If stream is being enabled then UpdateViewType is required"
)
MSG_STREAM_DISABLED_NO_TYPE = (
    "One or more parameter values were invalid: If stream is being disabled, then UpdateViewType must not be specified"
)
MSG_STREAM_CREATE_NEEDS_TYPE = (
    "One or more parameter values were invalid: Table is being created with a stream enabled, UpdateViewType is required"
)
MSG_STREAM_CREATE_NO_TYPE = (
    "One or more parameter values were invalid: Table is being created with a stream disabled, UpdateViewType should "
    "not be specified"
)


def msg_stream_not_found(arn: str) -> str:
    return f"Requested resource not found: Stream: {arn} not found"


def msg_stream_already_enabled(table: str) -> str:
    return f"Table already has an enabled stream: TableName: {table}"


def msg_no_stream_to_disable(table: str) -> str:
    return f"Table has no stream to disable: TableName: {table}"

# streams: the API (api/operations/streams)
MSG_ITERATOR_EXPIRED = "The provided iterator exceeds the maximum age allowed."  # the model's message
MSG_INVALID_ITERATOR = "Invalid ShardIterator"
# a StreamArn that is not a stream's ARN at all (reported of the service in
# amazon-archives/logstash-input-dynamodb#18: "Invalid StreamArn", ValidationException)
MSG_INVALID_STREAM_ARN = "Invalid StreamArn"
# undocumented by the service (the API reference only says a future timestamp is a
# ValidationException); dynemu's wording
MSG_TIMESTAMP_REQUIRED = "Must specify Timestamp for iterator of type AT_TIMESTAMP"
MSG_TIMESTAMP_FUTURE = "The provided Timestamp is in the future"


def msg_iterator_type(kind: str, has_sequence: bool) -> str:
    return (
        "Must either specify (1) AT_SEQUENCE_NUMBER or AFTER_SEQUENCE_NUMBER and SequenceNumber or "
        f"(2) TRIM_HORIZON or LATEST and no SequenceNumber. Request specified {kind} and "
        f"{'a' if has_sequence else 'no'} SequenceNumber."
    )
