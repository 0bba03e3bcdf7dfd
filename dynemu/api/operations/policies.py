"""PutResourcePolicy, GetResourcePolicy and DeleteResourcePolicy, on tables and streams
(the rules: engine/resource_policies.py)."""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.protocol import Context
from dynemu.engine import resource_policies as policies
from dynemu.engine.table import Table


def put_resource_policy(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    arn = body["ResourceArn"]
    policies.resolve(ctx.db, arn)
    return {"RevisionId": policies.put(ctx.db, arn, body["Policy"], body.get("ExpectedRevisionId"))}


def get_resource_policy(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    arn = body["ResourceArn"]
    policies.resolve(ctx.db, arn)
    policy = policies.get(ctx.db.store, arn)
    if policy is None:
        raise errors.policy_not_found(arn)
    return {"Policy": policy.document, "RevisionId": policy.revision}


def delete_resource_policy(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    arn = body["ResourceArn"]
    policies.resolve(ctx.db, arn)
    return {"RevisionId": policies.delete(ctx.db, arn, body.get("ExpectedRevisionId"))}


def check_create(body: dict[str, Any]) -> str | None:
    """CreateTable's ResourcePolicy, validated before the table exists."""
    document = body.get("ResourcePolicy")
    if document is not None:
        policies.validate(document)
    return document


def attach_at_create(ctx: Context, table: Table, document: str | None) -> None:
    if document is not None:
        policies.put(ctx.db, table.spec.arn, document, None)


OPERATIONS = {
    "PutResourcePolicy": put_resource_policy,
    "GetResourcePolicy": get_resource_policy,
    "DeleteResourcePolicy": delete_resource_policy,
}
