"""Messages of the control plane and the rest: tables, indexes, streams, TTL, tags, PartiQL, expressions.

Part of the catalogue of messages (``dynemu.errors``): every text dynemu says is defined once.
"""

from __future__ import annotations

from typing import Any

from dynemu.errors.base import CORAL_NS, DynamoError
from dynemu.errors.requests import (
    MSG_CONSTRAINT,
    MSG_MAX_LENGTH,
    MSG_MAX_VALUE,
    MSG_MIN_LENGTH,
    MSG_PATTERN,
    MSG_VALIDATION_ERRORS,
)

# expressions (engine/expressions): parameters, placeholders, sizes
MSG_NAMES_WITHOUT_EXPRESSIONS = "ExpressionAttributeNames can only be specified when using expressions"
MSG_EXPRESSION_EMPTY = "The expression can not be empty;"
MSG_EXPRESSION_TOO_LARGE = "Expression size has exceeded the maximum allowed size;"


def msg_expression_too_large(size: int) -> str:
    return f"{MSG_EXPRESSION_TOO_LARGE} expression size: {size}"


def msg_key_update(name: str) -> str:
    """Detail of ``invalid_parameter``: an update of a key attribute."""
    return f"Cannot update attribute {name}. This attribute is part of the key"


def msg_filter_on_key(label: str, name: str) -> str:
    return f"{label} can only contain non-primary key attributes: Primary key attribute: {name}"


def msg_mixed_parameters(non_expression: list[str], expression: list[str]) -> str:
    return (
        "Can not use both expression and non-expression parameters in the same request: "
        f"Non-expression parameters: {{{', '.join(non_expression)}}} Expression parameters: {{{', '.join(expression)}}}"
    )


def msg_values_without_expressions(parameters: list[str]) -> str:
    verb = "are" if len(parameters) > 1 else "is"
    return f"ExpressionAttributeValues can only be specified when using expressions: {' and '.join(parameters)} {verb} null"


def msg_placeholders_empty(parameter: str) -> str:
    """``parameter``: ExpressionAttributeNames or ExpressionAttributeValues."""
    return f"{parameter} must not be empty"


def msg_placeholder_key(parameter: str, key: str) -> str:
    return f'{parameter} contains invalid key: Syntax error; key: "{key}"'


def msg_placeholder_value(parameter: str, detail: str, key: str) -> str:
    return f"{parameter} contains invalid value: {detail} for key {key}"


def msg_unused_placeholders(parameter: str, unused: list[str]) -> str:
    return f"Value provided in {parameter} unused in expressions: keys: {{{', '.join(unused)}}}"


# expressions: checks of the parsed tree (engine/expressions/checks), each a detail of
# ``msg_invalid_expression``
MSG_REDUNDANT_PARENTHESES = "The expression has redundant parentheses;"


def msg_invalid_expression(kind: str, detail: str) -> str:
    """``kind``: the expression parameter (ConditionExpression, UpdateExpression, ...)."""
    return f"Invalid {kind}: {detail}"


def msg_too_many_operators(count: int) -> str:
    return f"The expression contains too many operators; operator count: {count}"


def msg_reserved_keyword(word: str) -> str:
    return f"Attribute name is a reserved keyword; reserved keyword: {word}"


def msg_function_not_allowed(where: str, function: str) -> str:
    """``where``: "a condition" or "an update"."""
    return f"The function is not allowed in {where} expression; function: {function}"


def msg_invalid_function(function: str) -> str:
    return f"Invalid function name; function: {function}"


def msg_function_misused(function: str) -> str:
    return f"The function is not allowed to be used this way in an expression; function: {function}"


def msg_operand_count(function: str, count: int) -> str:
    return f"Incorrect number of operands for operator or function; operator or function: {function}, number of operands: {count}"


def msg_undefined_name(ref: str) -> str:
    return f"An expression attribute name used in the document path is not defined; attribute name: {ref}"


def msg_undefined_value(ref: str) -> str:
    return f"An expression attribute value used in expression is not defined; attribute value: {ref}"


def msg_operands_not_distinct(operator: str, first: str) -> str:
    return (
        "The first operand must be distinct from the remaining operands for this operator or function; "
        f"operator: {operator}, first operand: {first}"
    )


def msg_too_many_in_operands(count: int) -> str:
    return f"The IN operator is provided with too many operands; number of operands: {count}"


def msg_operand_type(function: str, type_name: str) -> str:
    return f"Incorrect operand type for operator or function; operator or function: {function}, operand type: {type_name}"


def msg_update_operand_type(action: str, type_word: str) -> str:
    return f"Incorrect operand type for operator or function; operator: {action}, operand type: {type_word}"


def msg_needs_document_path(function: str) -> str:
    return f"Operator or function requires a document path; operator or function: {function}"


def msg_invalid_type_name(type_name: str) -> str:
    return f"Invalid attribute type name found; type: {type_name}, valid types: {{B,NULL,SS,BOOL,L,BS,N,NS,S,M}}"


def msg_between_types(low: str, high: str) -> str:
    """``low``, ``high``: the bounds as DynamoDB prints them (``{N:5}``)."""
    return (
        "The BETWEEN operator requires same data type for lower and upper bounds; "
        f"lower bound operand: AttributeValue: {low}, upper bound operand: AttributeValue: {high}"
    )


def msg_between_order(low: str, high: str) -> str:
    return (
        "The BETWEEN operator requires upper bound to be greater than or equal to lower bound; "
        f"lower bound operand: AttributeValue: {low}, upper bound operand: AttributeValue: {high}"
    )


def msg_path_too_deep(levels: int) -> str:
    return f"The document path has too many nesting levels; nesting levels: {levels}"


def msg_paths_overlap(one: str, two: str) -> str:
    return f"Two document paths overlap with each other; must remove or rewrite one of these paths; path one: {one}, path two: {two}"


def msg_paths_conflict(one: str, two: str) -> str:
    return f"Two document paths conflict with each other; must remove or rewrite one of these paths; path one: {one}, path two: {two}"


# legacy parameters (engine/expressions/legacy): Expected, QueryFilter, ScanFilter,
# AttributeUpdates; texts without the prefix are details of ``invalid_parameter``
MSG_VALUE_LIST_TYPES = "AttributeValues inside AttributeValueList must be of same type"
MSG_CONDITIONAL_OPERATOR_ALONE = "ConditionalOperator cannot be used without Filter or Expected"
MSG_CONDITIONAL_OPERATOR_ONE = "ConditionalOperator can only be used when Filter or Expected has two or more elements"
MSG_LEGACY_BETWEEN_ORDER = "The BETWEEN condition was provided a range where the lower bound is greater than the upper bound"
MSG_UPDATE_TYPE_MISMATCH = "Type mismatch for attribute to update"
MSG_ONLY_DELETE_WITHOUT_VALUE = "Only DELETE action is allowed when no attribute value is specified"


def msg_operator_type(op: str, type_name: str) -> str:
    return f"ComparisonOperator {op} is not valid for {type_name} AttributeValue type"


def msg_value_and_list(name: str) -> str:
    return f"Value and AttributeValueList cannot be used together for Attribute: {name}"


def msg_list_without_operator(name: str) -> str:
    return f"AttributeValueList can only be used with a ComparisonOperator for Attribute: {name}"


def msg_exists_and_operator(name: str) -> str:
    return f"Exists and ComparisonOperator cannot be used together for Attribute: {name}"


def msg_operator_without_value(op: str, name: str) -> str:
    return f"Value or AttributeValueList must be used with ComparisonOperator: {op} for Attribute: {name}"


def msg_argument_count(op: str) -> str:
    return f"Invalid number of argument(s) for the {op} ComparisonOperator"


def msg_exists_without_value(shown: str, name: str) -> str:
    """``shown``: Exists as the service prints it (null or true)."""
    return f"Value must be provided when Exists is {shown} for Attribute: {name}"


def msg_value_when_not_exists(name: str) -> str:
    return f"Value cannot be used when Exists is false for Attribute: {name}"


def msg_duplicate_attribute_name(name: str) -> str:
    return f"Duplicate value in attribute name: {name}"


def msg_delete_value_type(type_name: str) -> str:
    return f"DELETE action with value is not supported for the type {type_name}"


def msg_add_type(type_name: str) -> str:
    return f"ADD action is not supported for the type {type_name}"


# expressions: evaluating an update (engine/expressions/update) and syntax errors
MSG_UPDATE_INVALID_PATH = "The document path provided in the update expression is invalid for update"
MSG_UPDATE_MISSING_ATTRIBUTE = "The provided expression refers to an attribute that does not exist in the item"
MSG_UPDATE_WRONG_TYPE = "An operand in the update expression has an incorrect data type"


def msg_syntax_error(token: str, near: str) -> str:
    """Detail of ``msg_invalid_expression``."""
    return f'Syntax error; token: "{token}", near: "{near}"'


# tables and indexes (engine/ddl, api/operations/tables, index_specs); texts without the
# prefix are details of ``invalid_parameter``
MSG_KEYS_SAME_NAME = "Both the Hash Key and the Range Key element in the KeySchema have the same name"
MSG_FIRST_KEY_NOT_HASH = "Invalid KeySchema: The first KeySchemaElement is not a HASH key type"
MSG_SECOND_KEY_NOT_RANGE = "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type"
MSG_KEY_NAMES_REPEATED = "The KeySchema contains multiple key attributes with the same name"
MSG_HASH_AFTER_RANGE = "All HASH key attributes must precede RANGE key attributes in the KeySchema"
MSG_TOO_MANY_HASH_KEYS = "The KeySchema exceeds the maximum allowed number of HASH key attributes"
MSG_TOO_MANY_RANGE_KEYS = "The KeySchema exceeds the maximum allowed number of RANGE key attributes"
MSG_PROJECTION_TYPE_NULL = "Unknown ProjectionType: null"
MSG_INCLUDE_WITHOUT_NON_KEY = "ProjectionType is INCLUDE, but NonKeyAttributes is not specified"
MSG_CANNOT_DELETE_WHILE_INDEXING = (
    "Attempt to change a resource which is still in use: Cannot delete table while indexes are being "
    "created, updated, or deleted."
)
MSG_NO_CHANGE = (
    "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates "
    "or SSESpecification or ReplicaUpdates is required"
)
MSG_THROUGHPUT_ON_DEMAND = (
    "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST"
)
MSG_THROUGHPUT_REQUIRED = "ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"
MSG_ON_DEMAND_ONCE_A_DAY = "Subscriber limit exceeded: Update to PayPerRequest mode are limited to once in 1 day(s)."
MSG_GSI_UPDATES_EMPTY = "List of GlobalSecondaryIndexUpdates is empty"
MSG_ONE_ONLINE_INDEX = "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"
_NOT_CHANGED_TAIL = "Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."


def msg_table_throughput_limit(which: str, limit: int, value: int) -> str:
    return f"Subscriber limit exceeded: Provisioned throughput for {which} cannot exceed {limit} (requested {value})"


def msg_keys_not_defined(keys: list[str], definitions: list[str]) -> str:
    return (
        "Some index key attributes are not defined in AttributeDefinitions. "
        f"Keys: [{', '.join(keys)}], AttributeDefinitions: [{', '.join(definitions)}]"
    )


def msg_non_key_with_projection(kind: str) -> str:
    return f"ProjectionType is {kind}, but NonKeyAttributes is specified"


def msg_duplicate_non_key(name: str) -> str:
    return f"Duplicate element in NonKeyAttributes: {name}"


def msg_index_throughput_on_demand(index: str) -> str:
    return f"ProvisionedThroughput should not be specified for index: {index} when BillingMode is PAY_PER_REQUEST"


def msg_index_throughput_missing(index: str) -> str:
    return f"ProvisionedThroughput is not specified for index: {index}"


def msg_index_throughput_partial(index: str) -> str:
    return f"Both ReadCapacityUnits and WriteCapacityUnits must be specified for index: {index}"


def msg_index_throughput_required(indexes: list[str]) -> str:
    return f"ProvisionedThroughput must be specified for index: {','.join(indexes)}"


def msg_index_throughput_limit(which: str, index: str, units: int, region: str, limit: int) -> str:
    return (
        f"The requested {which} for index {index}, {units}, is above the per index maximum for the "
        f"account in {region}. Per table maximum: {limit}. {_NOT_CHANGED_TAIL}"
    )


def msg_projected_total(limit: int) -> str:
    return f"The number of projected attributes in all secondary indexes of the table exceeds the per-table limit of {limit}"


def msg_table_throughput_unchanged(read_now: int, read: int, write_now: int, write: int) -> str:
    return (
        "The provisioned throughput for the table will not change. The requested value equals the current "
        f"value. Current ReadCapacityUnits provisioned for the table: {read_now}. Requested ReadCapacityUnits: "
        f"{read}. Current WriteCapacityUnits provisioned for the table: {write_now}. Requested "
        f"WriteCapacityUnits: {write}. {_NOT_CHANGED_TAIL}"
    )


def msg_index_throughput_unchanged(index: str, read_now: int, read: int, write_now: int, write: int) -> str:
    return (
        f"The provisioned throughput for the index {index} will not change. The requested value equals the "
        f"current value. Current ReadCapacityUnits provisioned for index {index}: {read_now}. Requested "
        f"ReadCapacityUnits: {read}. Current WriteCapacityUnits provisioned for index {index}: {write_now}. "
        f"Requested WriteCapacityUnits: {write}. {_NOT_CHANGED_TAIL}"
    )


def msg_index_not_found(index: str, table: str) -> str:
    return f"Requested resource not found: Index {index} for table {table}"


def msg_on_demand_index_updates(index: str) -> str:
    return (
        f"The only Updates for index: {index} when TableThroughputMode is PAY_PER_REQUEST can be to "
        "OnDemandThroughput, WarmThroughput"
    )


def msg_duplicate_index(name: str) -> str:
    return f"Duplicate index name: {name}"


def msg_gsi_limit_exceeded(limit: int) -> str:
    return f"Subscriber limit exceeded: Number of global secondary indexes exceeds per-table limit of {limit}"


# keys and throughput (engine/schema)
MSG_KEY_MISMATCH = "The provided key element does not match the schema"


def msg_decreases_limited(count: int, last: str, next_at: str) -> str:
    """``last``, ``next_at``: UTC times as the service prints them."""
    return (
        "Subscriber limit exceeded: Provisioned throughput decreases are limited within a given UTC "
        "day. After the first 4 decreases, each subsequent decrease in the same UTC day can be "
        f"performed at most once every 3600 seconds. Number of decreases today: {count}. "
        f"Last decrease at {last}. Next decrease can be made at {next_at}"
    )


def msg_empty_key_value(type_name: str, name: str) -> str:
    # reported for the live service: "are not valid." rather than "were invalid:"
    return (
        "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain "
        f"an empty {type_name} value. Key: {name}"
    )


def msg_hash_key_too_large(limit: int) -> str:
    return f"Size of hashkey has exceeded the maximum size limit of{limit} bytes"  # sic: no space


def msg_range_key_too_large(limit: int) -> str:
    return f"Aggregated size of all range keys has exceeded the size limit of {limit} bytes"


def msg_missing_key(name: str) -> str:
    return f"Missing the key {name} in the item"


def msg_key_type_mismatch(name: str, expected: str, actual: str | None) -> str:
    return f"Type mismatch for key {name} expected: {expected} actual: {actual}"


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


# tables (api/operations/tables)
MSG_KEY_WITHOUT_DEFINITION = "Invalid KeySchema: Some index key attribute have no definition"
MSG_DEFINITIONS_COUNT = (
    "Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions"
)
MSG_NO_GLOBAL_TABLES = "dynemu does not support GlobalTableSourceArn (global table replicas) yet"
MSG_DELETION_PROTECTED = (
    "Resource cannot be deleted as it is currently protected against deletion. Disable deletion protection first."
)


def msg_duplicate_attribute_definition(name: str) -> str:
    return f"Attribute Name is duplicated: {name}"


def msg_throughput_out_of_bounds(value: int, name: str) -> str:
    return f"Given value {value} for {name} is out of bounds"


def msg_table_exists(name: str) -> str:
    return f"Table already exists: {name}"


def msg_not_supported(parameter: str) -> str:
    return f"dynemu does not support {parameter} yet"


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


# indexes of a CreateTable or UpdateTable request (api/operations/index_specs); texts without
# the prefix are details of ``invalid_parameter``
MSG_GSI_LIST_EMPTY = "List of GlobalSecondaryIndexes is empty"
MSG_LSI_LIST_EMPTY = "List of LocalSecondaryIndexes is empty"
MSG_LSI_WITHOUT_RANGE_KEY = (
    "Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex"
)
MSG_GSI_UPDATE_NO_ACTION = (
    "One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, "
    "GlobalSecondaryIndexUpdate.Delete must not be null"
)
MSG_GSI_UPDATE_ACTIONS = "Only one global secondary index action is allowed per GlobalSecondaryIndexUpdate object"
MSG_INDEX_WITH_IOPS = "You cannot create or delete index while updating table IOPS"
MSG_DELETION_PROTECTION_ALONE = "DeletionProtection modification must be the only operation in the request"
MSG_TABLE_CLASS_ALONE = "TableClass modification must be the only operation in the request"


def msg_unused_definitions(definitions: list[str], used: list[str]) -> str:
    return (
        f"Some AttributeDefinitions are not used. AttributeDefinitions: [{', '.join(definitions)}], "
        f"keys used: [{', '.join(used)}]"
    )


def msg_gsi_count(limit: int) -> str:
    return f"GlobalSecondaryIndex count exceeds the per-table limit of {limit}"


def msg_lsi_count(limit: int) -> str:
    return f"Number of LocalSecondaryIndexes exceeds per-table limit of {limit}"


def msg_lsi_without_range_key(index: str) -> str:
    return f"Index KeySchema does not have a range key for index: {index}"


def msg_lsi_hash_key(index: str, index_hash: str, table_hash: str) -> str:
    return (
        f"Index KeySchema does not have the same leading hash key as table KeySchema for index: {index}. "
        f"index hash key: {index_hash}, table hash key: {table_hash}"
    )


def msg_one_update_per_index(index: str) -> str:
    return f"Only one global secondary index update per index is allowed simultaneously. Index: {index}"


def msg_index_definitions_missing(index: str) -> str:
    return f"AttributeDefinitions is not specified for index: {index}"


# shared parameters (api/operations/common)
MSG_RETURN_VALUES_OLD_OR_NONE = "ReturnValues can only be ALL_OLD or NONE"

# tags (api/operations/misc)
MSG_TABLE_ARN_MISSING = "Invalid TableArn"
MSG_TAG_KEY_NULL = "The Tag Key provided is invalid, Key: null"
MSG_TAG_VALUE_NULL = "The Tag Value provided is invalid, Value: null"
MSG_NO_TAGS = "Atleast one Tag needs to be provided as Input."  # sic
MSG_NO_TAG_KEYS = "Atleast one Tag Key needs to be provided as Input."  # sic


def msg_invalid_table_arn(arn: str) -> str:
    return f"Invalid TableArn: Invalid ResourceArn provided as input {arn}"


def msg_resource_arn_not_found(arn: str) -> str:
    return f"Requested resource not found: ResourcArn: {arn} not found"  # sic


def msg_too_many_tags(limit: int) -> str:
    # UNSURE: no public capture of the text; the limit is the developer guide's
    return f"The number of tags exceeds the limit of {limit}"


def msg_not_authorized(account: str, operation: str, arn: str) -> str:
    # IAM's wording for a denied action ("Troubleshooting access denied error messages",
    # IAM User Guide); dynemu's caller is the account's root user
    return f"User: arn:aws:iam::{account}:root is not authorized to perform: dynamodb:{operation} on resource: {arn}"


def access_denied(message: str) -> DynamoError:
    """AccessDeniedException, in Coral's namespace as the service answers it."""
    return DynamoError("AccessDeniedException", message, namespace=CORAL_NS)


# UpdateTable's GlobalSecondaryIndexUpdates (engine/ddl.py): a Create of an index that exists
# (the service's text, as quoted by btnguyen2k/godynamo's CREATE GSI IF NOT EXISTS), and a new
# index keyed on an attribute the table defines with another type (UNSURE: no capture of the text).
MSG_INDEX_EXISTS = "Attempting to create an index which already exists"


def msg_index_key_type_conflict(name: str, defined: str, given: str) -> str:
    return f"Attribute {name} is already defined with type {defined}; AttributeDefinitions gives type {given}"


# PartiQL (engine/partiql, api/operations/partiql). The parameter count and the incomplete key
# are quoted by users of the real service; the two ORDER BY messages are those other DynamoDB
# implementations report; the ORDER BY-on-a-non-key, IN-limit and "Unsupported ..." messages
# are dynemu's own.
MSG_MALFORMED = "Statement wasn't well formed, can't be processed: "  # then the detail
MSG_MALFORMED_INSERT = MSG_MALFORMED + "VALUE must be a map of attribute names to values"
MSG_STATEMENT_END = "Unexpected end of statement"  # details of MSG_MALFORMED ...
MSG_EXPECTED_DML = "Expected data manipulation"
MSG_PARAMETERS = "Number of parameters in request and statement don't match."
MSG_INCOMPLETE_KEY = "Where clause does not contain a mandatory equality on all key attributes"
MSG_ORDER_BY_WHERE = "Must have WHERE clause in the statement when using ORDER BY clause."
MSG_ORDER_BY_HASH = "Must have at least one non-optional hash key condition in WHERE clause when using ORDER BY clause."
MSG_MIXED_BATCH = "Batch statements must be either all reads (SELECT) or all writes (INSERT, UPDATE, DELETE)"
MSG_MIXED_TRANSACTION = (
    "Transaction statements must be either all reads (SELECT) or all writes (INSERT, UPDATE, DELETE, EXISTS)"
)
MSG_EXISTS_OUTSIDE_TRANSACTION = "EXISTS is supported only in ExecuteTransaction"
MSG_NOT_ON_INDEX = "This operation is not supported on an index"
MSG_INVALID_NEXT_TOKEN = "The provided NextToken is invalid"
MSG_MIXED_SET = "Unsupported set: a set must hold only strings, only numbers or only binaries, and at least one element"


def msg_nested_too_deeply(line: int, column: int) -> str:
    return f"Expression nested too deeply at line {line}, column {column}"


def msg_unexpected(what: str, shown: str, line: int, column: int) -> str:
    """``what``: character, keyword or token."""
    return f"Unexpected {what} {shown} at line {line}, column {column}"


def msg_unsupported_function(name: str, line: int, column: int) -> str:
    return f"Unsupported function {name} at line {line}, column {column}"


def msg_function_arguments(name: str, line: int, column: int) -> str:
    return f"Incorrect number of arguments for function {name} at line {line}, column {column}"


def msg_in_values(limit: int, count: int) -> str:
    return f"The IN operator takes at most {limit} values; it was given {count}"


def msg_in_keys(limit: int, count: int) -> str:
    return f"The IN operator takes at most {limit} values of the partition key; it was given {count}"


def msg_order_by_non_key(name: str) -> str:
    return f"ORDER BY is supported only on key attributes; {name} is not a key attribute"


def msg_partiql_unsupported(what: str) -> str:
    return f"Unsupported operation: {what}"


# the ``what`` of msg_partiql_unsupported
UNSUPPORTED_NOT_CONDITION = "a WHERE clause must be a condition"
UNSUPPORTED_SIZE_OPERAND = "size takes a document path"
UNSUPPORTED_WHERE_ARITHMETIC = "arithmetic in a WHERE clause"
UNSUPPORTED_SET_VALUE = "SET takes a value, a document path, arithmetic or list_append"


def unsupported_where_function(name: str) -> str:
    return f"function {name} in a WHERE clause"


def unsupported_operand_function(name: str) -> str:
    return f"function {name} as an operand"


def unsupported_set_clause_function(name: str) -> str:
    return f"function {name} in a SET clause"


def unsupported_set_function(name: str) -> str:
    return f"{name} takes a document path and a set"


# engine/ttl.py
MSG_ALREADY_ENABLED = "TimeToLive is already enabled"
MSG_ALREADY_DISABLED = "TimeToLive is already disabled"
MSG_OTHER_ATTRIBUTE = "TimeToLive is active on a different AttributeName: current AttributeName is {}"
MSG_COOLDOWN = "Time to live has been modified multiple times within a fixed interval"


# api/operations/partiql_adapter.py
MSG_DUPLICATE = "Duplicate primary key exists in table"


# namespaces (engine/namespaces.py): a region or access key that would leave the data directory
def msg_invalid_namespace(name: str) -> str:
    return f"Invalid namespace name: {name}"


# backups (api/operations/backups.py)
def msg_backup_table_not_found(name: str) -> str:
    return f"Table not found: {name}"
