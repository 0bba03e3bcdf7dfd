"""Messages of tables, indexes and keys (engine/ddl, engine/schema, api/operations/tables and index_specs).

Part of the catalogue of messages (``dynemu.errors``): every text dynemu says is defined once.
"""

from __future__ import annotations

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


def msg_table_busy(word: str, name: str) -> str:
    """ResourceInUseException of a table CREATING, UPDATING or DELETING (``word``: created,
    updated, deleted): the service's text, as reported in hashicorp/terraform-provider-aws#3355
    and sebdah/dynamic-dynamodb#36."""
    return f"Attempt to change a resource which is still in use: Table is being {word}: {name}"


def msg_table_exists(name: str) -> str:
    return f"Table already exists: {name}"


def msg_not_supported(parameter: str) -> str:
    return f"dynemu does not support {parameter} yet"

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

# UpdateTable's GlobalSecondaryIndexUpdates (engine/ddl.py): a Create of an index that exists
# (the service's text, as quoted by btnguyen2k/godynamo's CREATE GSI IF NOT EXISTS), and a new
# index keyed on an attribute the table defines with another type (UNSURE: no capture of the text).
MSG_INDEX_EXISTS = "Attempting to create an index which already exists"


def msg_index_key_type_conflict(name: str, defined: str, given: str) -> str:
    return f"Attribute {name} is already defined with type {defined}; AttributeDefinitions gives type {given}"
