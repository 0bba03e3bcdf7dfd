"""UpdateTimeToLive and DescribeTimeToLive.

The rules and messages are the engine's (``dynemu.engine.ttl``); deleting what expired is
``dynemu.engine.lifecycle``'s. UpdateTimeToLive echoes the request's specification;
DescribeTimeToLive reports the status, and the attribute only while TTL is on (ack-api-quirks
DDB-TABLE-144/145).
"""

from __future__ import annotations

from typing import Any

from dynemu.api.protocol import Context
from dynemu.engine import limits, ttl


def update_time_to_live(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    spec = body["TimeToLiveSpecification"]
    table = ctx.db.get(body["TableName"], control_plane=True)
    enabled = bool(spec["Enabled"])
    limits.check_table_operation(ctx.db.limits, ctx.db.tables.values(), table)
    ttl.update(table, spec["AttributeName"], enabled, ctx.db.now(), ctx.db.limits.ttl_change_seconds)
    return {"TimeToLiveSpecification": {"Enabled": enabled, "AttributeName": spec["AttributeName"]}}


def describe_time_to_live(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    table = ctx.db.get(body["TableName"], control_plane=True)
    now = ctx.db.now()
    state = ttl.describe(table)
    out: dict[str, Any] = {"TimeToLiveStatus": state.status(now)}
    if state.enabled and state.attribute is not None:
        out["AttributeName"] = state.attribute
    return {"TimeToLiveDescription": out}


OPERATIONS = {
    "UpdateTimeToLive": update_time_to_live,
    "DescribeTimeToLive": describe_time_to_live,
}
