"""DescribeEndpoints, DescribeLimits and the tagging operations."""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.protocol import Context
from dynemu.engine.table import Table


def describe_endpoints(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    # This server's own address, so endpoint discovery keeps clients here.
    return {"Endpoints": [{"Address": ctx.endpoint, "CachePeriodInMinutes": 1440}]}


def describe_limits(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    # Default quotas (developer guide, "Service, account, and table quotas").
    return {
        "AccountMaxReadCapacityUnits": 80000,
        "AccountMaxWriteCapacityUnits": 80000,
        "TableMaxReadCapacityUnits": 40000,
        "TableMaxWriteCapacityUnits": 40000,
    }


def _table_by_arn(ctx: Context, arn: str | None) -> Table:
    if not arn:
        raise errors.validation("Invalid TableArn")
    if not arn.startswith("arn:"):
        raise errors.validation(f"Invalid TableArn: Invalid ResourceArn provided as input {arn}")
    for table in ctx.db.tables.values():
        if table.spec.arn == arn:
            return table
    raise errors.resource_not_found(f"Requested resource not found: ResourcArn: {arn} not found")


def tag_resource(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    table = _table_by_arn(ctx, body["ResourceArn"])
    tags = body.get("Tags") or []
    if not tags:
        raise errors.validation("Atleast one Tag needs to be provided as Input.")
    for tag in tags:
        if tag.get("Key") is None:
            raise errors.validation("The Tag Key provided is invalid, Key: null")
        if tag.get("Value") is None:
            raise errors.validation("The Tag Value provided is invalid, Value: null")
    for tag in tags:
        table.spec.tags[tag["Key"]] = tag["Value"]
    ctx.db.save_spec(table)
    return {}


def untag_resource(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    table = _table_by_arn(ctx, body["ResourceArn"])
    keys = body.get("TagKeys") or []
    if not keys:
        raise errors.validation("Atleast one Tag Key needs to be provided as Input.")
    for key in keys:
        table.spec.tags.pop(key, None)
    ctx.db.save_spec(table)
    return {}


def list_tags_of_resource(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    table = _table_by_arn(ctx, body["ResourceArn"])
    tags = [{"Key": k, "Value": v} for k, v in table.spec.tags.items()]
    return {"Tags": tags}


OPERATIONS = {
    "DescribeEndpoints": describe_endpoints,
    "DescribeLimits": describe_limits,
    "TagResource": tag_resource,
    "UntagResource": untag_resource,
    "ListTagsOfResource": list_tags_of_resource,
}
