"""Messages of items and the write executor (engine/writes.py, table.py, values.py, indexes.py, capacity).

Part of the catalogue of messages (``dynemu.errors``): every text dynemu says is defined once.
"""

from __future__ import annotations

import json

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


# engine/values.py
# The older wording (BatchWriteItem's for an empty number): no colon, nothing after it.
MSG_NOT_A_NUMBER = "The parameter cannot be converted to a numeric value"
MSG_PRECISION = "Attempting to store more than 38 significant digits in a Number"
MSG_OVERFLOW = "Number overflow. Attempting to store a number with magnitude larger than supported range"
MSG_UNDERFLOW = "Number underflow. Attempting to store a number with magnitude smaller than supported range"
MSG_EMPTY_VALUE = "Supplied AttributeValue is empty, must contain exactly one of the supported datatypes"
MSG_MULTI_VALUE = "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
MSG_NESTING = "Nesting Levels have exceeded supported limits: Attributes in the item have nested levels beyond supported limit"
MSG_NULL_FALSE = "Null attribute value types must have the value of true"  # with the invalid-parameter prefix
MSG_EMPTY_SS = "An string set  may not be empty"  # sic: two spaces, "An string"
MSG_EMPTY_NS = "An number set  may not be empty"
MSG_EMPTY_BS = "Binary sets should not be empty"
MSG_NS_DUPLICATES = "Input collection contains duplicates"  # bare, unlike SS/BS
# "Attribute names must be at least one character long" (naming rules). An item's or a key's
# empty name is said bare (issue 36, observed against the service); in the legacy parameters
# (Expected, AttributeUpdates, AttributesToGet, filters) dynemu keeps its invalid-parameter
# form (issue 12 report).
MSG_EMPTY_NAME = "Empty attribute name"



def msg_not_a_number(text: str) -> str:
    """The current wording: the text follows a colon and a space, even when it is empty."""
    return f"{MSG_NOT_A_NUMBER}: {text}"


def msg_list_index_range(index: int) -> str:
    """A document path's list index past a 32-bit integer (engine/expressions/checks.py)."""
    return f"List index is not within the allowable range; index: [{index}]"


# api/operations/batch.py
MSG_DUPLICATES = "Provided list of item keys contains duplicates"
MSG_TOO_MANY_GET = "Too many items requested for the BatchGetItem call"
MSG_TOO_MANY_WRITE = "Too many items requested for the BatchWriteItem call"
MSG_SCHEMA = "The provided key element does not match the schema"
# A WriteRequest with neither or both of PutRequest / DeleteRequest: the service answers
# with its AttributeValue union message (dynalite validations/batchWriteItem.js; the same
# text from DynamoDB Local for both cases).
# (MSG_MULTI_VALUE above is that message.)


def msg_set_duplicates(members: list[str], set_type: str | None = None) -> str:
    """A string or binary set with a repeated member: the members as JSON in the request's
    order (a binary set's base64 strings without spaces, and sic: no space before "of type
    BS"; issue 36, observed against the service)."""
    if set_type:
        return f"Input collection {json.dumps(members, separators=(',', ':'))}of type {set_type} contains duplicates."
    return f"Input collection {json.dumps(members, ensure_ascii=False)} contains duplicates."


# shared parameters (api/operations/common)
MSG_RETURN_VALUES_OLD_OR_NONE = "ReturnValues can only be ALL_OLD or NONE"
