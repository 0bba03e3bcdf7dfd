"""Where DynamoDB's request validation differs from botocore's service model: the one
table of overrides that ``dynemu.api.validation.validator`` compiles in, each with its source.

Declarative only: enum and member order as the service prints them, constraints the model
lacks or states differently, table-name rules, bare length messages, Java class names.
"""

from __future__ import annotations

from dynemu.errors import (
    MSG_BATCH_GET_ITEMS_EMPTY,
    MSG_BATCH_WRITE_ITEMS_REQUIRED,
    MSG_NAME_LENGTH,
    MSG_PARAMETER_REQUIRED,
    MSG_QUERY_CONDITIONAL_OPERATOR,
    MSG_QUERY_LIMIT_BELOW_1,
)

# Enum values in the order DynamoDB prints them (its own order, not the model's); keyed by
# shape name; ignored if the model's value set changes. dynalite validations/*.js, moto,
# and a 2026 capture of the live service (see the research note).
ENUM_ORDER: dict[str, tuple[str, ...]] = {
    name: tuple(values.split())
    for name, values in {
        "ReturnConsumedCapacity": "INDEXES TOTAL NONE",
        "ReturnItemCollectionMetrics": "SIZE NONE",
        "ReturnValue": "ALL_NEW UPDATED_OLD ALL_OLD NONE UPDATED_NEW",
        "ConditionalOperator": "OR AND",
        "ComparisonOperator": "IN NULL BETWEEN LT NOT_CONTAINS EQ GT NOT_NULL NE LE BEGINS_WITH GE CONTAINS",
        "Select": "SPECIFIC_ATTRIBUTES COUNT ALL_ATTRIBUTES ALL_PROJECTED_ATTRIBUTES",
        "StreamViewType": "OLD_IMAGE KEYS_ONLY NEW_AND_OLD_IMAGES NEW_IMAGE",
        "ScalarAttributeType": "B N S",
        "BillingMode": "PROVISIONED PAY_PER_REQUEST",
        "KeyType": "HASH RANGE",
        "ProjectionType": "ALL INCLUDE KEYS_ONLY",
        "ContributorInsightsAction": "ENABLE DISABLE",
        "ContributorInsightsMode": "THROTTLED_KEYS ACCESSED_AND_THROTTLED_KEYS",
    }.items()
}

# Members DynamoDB checks (and prints) first, per structure shape; the rest follow in model
# order. GetItem/PutItem: dynoxide (measured in eu-west-2); ListTables: a live message quoted
# in dynalite's index.js; UpdateItem, TransactWriteItems and CreateTable: issue 36 (observed
# against the service: conditionalOperator, returnConsumedCapacity, tableName, key; the
# token before returnConsumedCapacity; GSIs before LSIs); the others: the 2026 capture.
MEMBER_ORDER: dict[str, tuple[str, ...]] = {
    name: tuple(members.split())
    for name, members in {
        "GetItemInput": "Key TableName ReturnConsumedCapacity AttributesToGet",
        "PutItemInput": "TableName Item ReturnConsumedCapacity ReturnValues ReturnItemCollectionMetrics",
        "UpdateItemInput": "ConditionalOperator ReturnConsumedCapacity TableName Key",
        "TransactWriteItemsInput": "TransactItems ClientRequestToken",
        "CreateTableInput": "AttributeDefinitions TableName KeySchema GlobalSecondaryIndexes LocalSecondaryIndexes",
        "ListTablesInput": "Limit ExclusiveStartTableName",
        "AttributeDefinition": "AttributeType AttributeName",
        "ProvisionedThroughput": "WriteCapacityUnits ReadCapacityUnits",
        "TimeToLiveSpecification": "AttributeName Enabled",
    }.items()
}

# Order of a string's own checks: pattern, then lengths (ListTables, CreateBackup), except
# where the capture shows length first (index names).
STRING_CHECK_ORDER: dict[str, tuple[str, ...]] = {"IndexName": ("min", "max", "pattern")}
DEFAULT_STRING_CHECK_ORDER = ("pattern", "min", "max")

# Constraints the service enforces but the current model omits (dynalite validations; the
# capture for the KMS key id).
EXTRA_CONSTRAINTS: dict[str, dict[str, int]] = {
    "KeySchema": {"max": 2},
    "AttributeNameList": {"max": 255},
    "KMSMasterKeyId": {"min": 1},
}
# Where one member of one structure differs from its shape's rule: a GSI's KeySchema takes up
# to 4 HASH and 4 RANGE attributes (multi-attribute keys, November 2025); tables and LSIs
# keep the 2-element limit (ack-api-quirks live lab, DDB-TABLE-123).
MEMBER_CONSTRAINTS: dict[tuple[str, str], dict[str, int | None]] = {
    ("GlobalSecondaryIndex", "KeySchema"): {"max": 8},
    ("CreateGlobalSecondaryIndexAction", "KeySchema"): {"max": 8},
    # BatchGetItem's 100 keys of one table, and an empty Keys list: the service names the
    # member without its value, in the newer envelope (api/operations/batch.py checks them;
    # issues 24 and 36).
    ("KeysAndAttributes", "Keys"): {"max": None, "min": None},
}

# Operations that report only the first of several enum violations when those are the
# request's only ones (UpdateItem: nubo-db/dynoxide#83, eu-west-2; issue 36).
FIRST_ENUM_ALONE = frozenset({"UpdateItem"})
# Operations whose table-name map keys are checked after the other members, and reported only
# when those pass (BatchWriteItem: an unknown ReturnConsumedCapacity alone; issue 36).
TABLE_KEYS_LAST = frozenset({"BatchWriteItem"})
# Batch maps whose table-name key message shows the map as JSON, as the request sent it
# (issue 36: '{"bad!name":{"Keys":[...]}}', no Java toString any more).
JSON_SHOWN_MAPS = frozenset({"BatchGetRequestMap", "BatchWriteItemRequestMap"})

# Table names. Since table ARNs are accepted the model types `TableName` members as TableArn
# (1..1024, no pattern); the service still checks plain names against the naming rules
# (3..255 characters of the pattern), before any table lookup: an item operation on "ab" is a
# ValidationException, never ResourceNotFoundException (issue 24, observed against the
# service). Control-plane operations report pattern, then length; DescribeTable length before
# pattern (2026 capture). Checks in order; "pattern+" and "min3+" skip the empty string, which
# data-plane operations report as shorter than 1 alone.
TABLE_PATTERN = "[a-zA-Z0-9_.-]+"
DATA_PLANE = frozenset(
    "GetItem PutItem UpdateItem DeleteItem Query Scan BatchGetItem BatchWriteItem TransactGetItems "
    "TransactWriteItems".split()
)
TABLE_NAME_CHECKS: dict[str, tuple[str, ...]] = {
    "data": ("min1", "pattern+", "min3+", "max255"),
    "control": ("pattern", "min3", "max255"),
    "DescribeTable": ("min3", "pattern", "max255"),
}
# PutItem reports an invalid table name alone, before its other checks (dynoxide put_item.rs).
TABLE_NAME_ALONE = frozenset({"PutItem"})
# BatchGetItem/BatchWriteItem table-name map keys (dynalite batch*.js).
TABLE_KEY_CHECKS = ("max255", "min3", "pattern")

# Shapes whose model constraints the service replaces by hand-written checks: tags answer
# "The Tag Key provided is invalid, Key: null" and the like (2026 capture), so the tagging
# operations check them, not this module.
UNCHECKED_SHAPES = frozenset({"Tag", "TagKeyString", "TagValueString"})

# Hand-written messages some operations return instead of Coral's (2026 capture): checked
# before everything else; the member's own length checks are then skipped.
BARE_LENGTH_MESSAGES: dict[tuple[str, str], str] = {
    ("DescribeGlobalTable", "GlobalTableName"): MSG_NAME_LENGTH.format("TableName"),
    ("DescribeGlobalTableSettings", "GlobalTableName"): MSG_NAME_LENGTH.format("TableName"),
    ("RestoreTableFromBackup", "TargetTableName"): MSG_NAME_LENGTH.format("TableName"),
    ("DescribeContributorInsights", "IndexName"): MSG_NAME_LENGTH.format("IndexName"),
    ("UpdateContributorInsights", "IndexName"): MSG_NAME_LENGTH.format("IndexName"),
}

# Messages the current service gives instead of Coral's for one member of one operation,
# checked before everything else: (operation, member) -> (what triggers it, message).
# "missing": absent or null; "empty": absent, null or {}; "below1": a number under 1, when it
# is the request's only Coral violation (several are still listed together, as captured).
# "badenum": a string outside the member's enum, "badenum2:<Member>": the same when <Member> (a
# map) holds two or more entries.
# CreateTable: issue 12; DescribeTable: aws/aws-sdk-java#977; the batch and Query ones:
# nubo-db/dynoxide#17, #198 and #15 (captures of the service in 2026); BatchGetItem's empty
# RequestItems in the newer envelope, BatchWriteItem's still the older sentence
# (nubo-db/dynoxide#198, 32 of 33 regions; issue 36); Query's ConditionalOperator: issue 36.
EARLY_MESSAGES: dict[tuple[str, str], tuple[str, str]] = {
    ("CreateTable", "TableName"): ("missing", MSG_PARAMETER_REQUIRED.format("TableName")),
    ("DescribeTable", "TableName"): ("missing", MSG_PARAMETER_REQUIRED.format("TableName")),
    ("BatchWriteItem", "RequestItems"): ("empty", MSG_BATCH_WRITE_ITEMS_REQUIRED),
    ("BatchGetItem", "RequestItems"): ("empty", MSG_BATCH_GET_ITEMS_EMPTY),
    ("Query", "Limit"): ("below1", MSG_QUERY_LIMIT_BELOW_1),
    # (UNSURE: observed with two QueryFilter conditions; with fewer, Coral's enum message stays)
    ("Query", "ConditionalOperator"): ("badenum2:QueryFilter", MSG_QUERY_CONDITIONAL_OPERATOR),
}

# Java regex syntax Python's `re` lacks, as it appears in the model's patterns.
JAVA_REGEX_FIXES = (
    ("\\p{Print}", "[\\x20-\\x7E]"),
    ("\\uD800\\uDC00-\\uDBFF\\uDFFF", "\\U00010000-\\U0010FFFF"),  # surrogate pairs: all astral characters
)

JAVA_PACKAGE = {
    "dynamodb": "com.amazonaws.dynamodb.v20120810",
    "dynamodbstreams": "com.amazonaws.dynamodb.streams.v20120810",
}
