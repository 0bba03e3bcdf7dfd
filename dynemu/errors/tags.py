"""Messages of tags and resource ARNs (api/operations/misc), and AccessDeniedException.

Part of the catalogue of messages (``dynemu.errors``): every text dynemu says is defined once.
"""

from __future__ import annotations

from dynemu.errors.base import CORAL_NS, DynamoError

# tags (api/operations/misc)
MSG_TABLE_ARN_MISSING = "Invalid TableArn"
MSG_TAG_KEY_NULL = "The Tag Key provided is invalid, Key: null"
MSG_TAG_VALUE_NULL = "The Tag Value provided is invalid, Value: null"
MSG_NO_TAGS = "Atleast one Tag needs to be provided as Input."  # sic
MSG_NO_TAG_KEYS = "Atleast one Tag Key needs to be provided as Input."  # sic


def msg_invalid_table_arn(arn: str) -> str:
    return f"Invalid TableArn: Invalid ResourceArn provided as input {arn}"


def msg_arn_prefix(arn: str) -> str:
    """A resource ARN that does not start with ``arn:`` (the detail of "One or more parameter
    values were invalid: ...", as the service answers; ExtendDB/extenddb#227, verified against
    DynamoDB)."""
    return f"ARNs must start with 'arn:': {arn}"


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
