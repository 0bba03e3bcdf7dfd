"""DescribeEndpoints, DescribeLimits and the tagging operations."""

from __future__ import annotations

import re
from typing import Any

from dynemu import errors
from dynemu.api.protocol import Context
from dynemu.engine import limits
from dynemu.engine.namespace import ACCOUNT_ID
from dynemu.engine.table import Table


def describe_endpoints(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    # This server's own address, so endpoint discovery keeps clients here.
    return {"Endpoints": [{"Address": ctx.endpoint, "CachePeriodInMinutes": 1440}]}


def describe_limits(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    # The configured quotas (engine/limits.py; developer guide, "Service, account, and table quotas").
    return limits.describe_limits(ctx.db)


# A table ARN: arn:<partition>:dynamodb:<region>:<account>:table/<name>. Anything else,
# an index ARN included, is refused as an invalid resource ARN (issue-12 report: the
# service's wording for index ARNs is not documented; the malformed-ARN message is reused).
_TABLE_ARN = re.compile(r"arn:aws[a-z-]*:dynamodb:[a-z0-9-]+:\d{12}:table/[a-zA-Z0-9_.-]{3,255}")
# Tagging restrictions (developer guide, "Tagging for DynamoDB"): keys 1-128 and values 0-256
# Unicode characters; letters, digits, whitespace and _ . : / = + - @.
TAG_PATTERN = r"^([\p{L}\p{Z}\p{N}_.:/=+\-@]*)$"
_TAG_CHARS = re.compile(r"[\w\s.:/=+\-@]*")
MAX_TAG_KEY = 128
MAX_TAG_VALUE = 256
MAX_TAGS = 50  # per resource (developer guide, "Tagging restrictions in DynamoDB")


def _check_arn_access(arn: str, operation: str) -> None:
    """An ARN of another service or of another account is refused by authorization, before
    any check of its shape (AccessDeniedException, as the service answers: ExtendDB/extenddb#227,
    verified against DynamoDB). An ARN not starting "arn:" is refused first, in its own words
    (the same source; issue 44)."""
    if not arn.startswith("arn:"):
        raise errors.invalid_parameter(errors.msg_arn_prefix(arn))
    parts = arn.split(":", 5)
    if len(parts) < 6 or parts[0] != "arn":
        return
    if parts[2] != "dynamodb" or parts[4] != ACCOUNT_ID:
        raise errors.access_denied(errors.msg_not_authorized(ACCOUNT_ID, operation, arn))


def _table_by_arn(ctx: Context, arn: str | None, operation: str) -> Table:
    if not arn:
        raise errors.validation(errors.MSG_TABLE_ARN_MISSING)
    _check_arn_access(arn, operation)
    if not _TABLE_ARN.fullmatch(arn):
        raise errors.validation(errors.msg_invalid_table_arn(arn))
    for table in ctx.db.tables.values():
        if table.spec.arn == arn:
            return table
    raise errors.resource_not_found(errors.msg_resource_arn_not_found(arn))


def check_tag_count(tags: list[dict[str, Any]]) -> None:
    """CreateTable's Tags: at most 50 (ValidationException, issue 24 item 19)."""
    if len(tags) > MAX_TAGS:
        raise errors.invalid_parameter(errors.msg_too_many_tags(MAX_TAGS))


def check_tags(tags: list[dict[str, Any]]) -> None:
    """The tagging restrictions, for TagResource and CreateTable's Tags: a missing key or
    value in the service's own words, then lengths and characters as Coral reports them
    (an empty key: scylladb/scylladb#16904, quoting the service)."""
    for tag in tags:
        if tag.get("Key") is None:
            raise errors.validation(errors.MSG_TAG_KEY_NULL)
        if tag.get("Value") is None:
            raise errors.validation(errors.MSG_TAG_VALUE_NULL)
    errs: list[str] = []
    for i, tag in enumerate(tags, 1):
        key, value = tag["Key"], tag["Value"]
        path = f"tags.{i}.member"
        if len(key) < 1:
            errs.append(errors.msg_constraint(key, f"{path}.key", errors.msg_at_least_length(1)))
        elif len(key) > MAX_TAG_KEY:
            errs.append(errors.msg_constraint(key, f"{path}.key", errors.msg_at_most_length(MAX_TAG_KEY)))
        elif not _TAG_CHARS.fullmatch(key):
            errs.append(errors.msg_constraint(key, f"{path}.key", errors.msg_pattern(TAG_PATTERN)))
        if len(value) > MAX_TAG_VALUE:
            errs.append(errors.msg_constraint(value, f"{path}.value", errors.msg_at_most_length(MAX_TAG_VALUE)))
        elif not _TAG_CHARS.fullmatch(value):
            errs.append(errors.msg_constraint(value, f"{path}.value", errors.msg_pattern(TAG_PATTERN)))
    if errs:
        raise errors.validation(errors.msg_validation_errors(errs))


def tag_resource(ctx: Context, body: dict[str, Any]) -> dict[str, Any] | None:
    tags = body.get("Tags") or []
    table = _table_by_arn(ctx, body["ResourceArn"], "TagResource")
    if not tags:
        raise errors.validation(errors.MSG_NO_TAGS)
    check_tags(tags)
    for tag in tags:
        table.spec.tags[tag["Key"]] = tag["Value"]
    ctx.db.save_spec(table)
    return None  # TagResource answers with an empty body


def untag_resource(ctx: Context, body: dict[str, Any]) -> dict[str, Any] | None:
    table = _table_by_arn(ctx, body["ResourceArn"], "UntagResource")
    keys = body.get("TagKeys") or []
    if not keys:
        raise errors.validation(errors.MSG_NO_TAG_KEYS)
    for key in keys:
        table.spec.tags.pop(key, None)
    ctx.db.save_spec(table)
    return None  # UntagResource answers with an empty body


def list_tags_of_resource(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    table = _table_by_arn(ctx, body["ResourceArn"], "ListTagsOfResource")
    tags = [{"Key": k, "Value": v} for k, v in table.spec.tags.items()]
    return {"Tags": tags}


OPERATIONS = {
    "DescribeEndpoints": describe_endpoints,
    "DescribeLimits": describe_limits,
    "TagResource": tag_resource,
    "UntagResource": untag_resource,
    "ListTagsOfResource": list_tags_of_resource,
}
