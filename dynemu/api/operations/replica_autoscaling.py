"""DescribeTableReplicaAutoScaling and UpdateTableReplicaAutoScaling on the wire.

The rules and where the settings live: ``engine/replica_autoscaling.py``; the scaler that
acts on them: ``engine/replica_autoscaler.py``. Here: the replicas of the table asked (every
region of its global table, or the table alone), the request parsed into a ``ScalingUpdate``,
and TableAutoScalingDescription rendered (API reference, "TableAutoScalingDescription").

dynemu's choices where the pages are silent: Replicas lists every replica, the one asked
first; a provisioned target without settings is described as ``{"AutoScalingDisabled":
true}``; an on-demand replica has no auto scaling members (only its GSIs' names and status);
AutoScalingRoleArn defaults to Application Auto Scaling's service-linked role for DynamoDB.
"""

from __future__ import annotations

from typing import Any

from dynemu.api.protocol import Context
from dynemu.engine import global_tables, replica_autoscaler
from dynemu.engine import replica_autoscaling as scaling
from dynemu.engine.replica_autoscaling import READ, WRITE, Policy, Replica, Target, TargetUpdate

ACCOUNT_ID = "000000000000"  # dynemu's account (engine.namespace.ACCOUNT_ID)
DEFAULT_ROLE = (
    f"arn:aws:iam::{ACCOUNT_ID}:role/aws-service-role/dynamodb.application-autoscaling.amazonaws.com/"
    "AWSServiceRoleForApplicationAutoScaling_DynamoDBTable"
)


def _replicas(ctx: Context, name: str) -> list[Replica]:
    """The table asked (ResourceNotFoundException as DescribeTable's), then its other replicas."""
    table = ctx.db.get(name, control_plane=True)
    group = global_tables.group_of(ctx.db, table)
    link = ctx.db.replicated
    home = link.region if link is not None else ctx.region
    if group is None or len(group.replicas) < 2:
        return [Replica(home, ctx.db, table)]
    out = [Replica(home, ctx.db, table, group.replicas[home].status if home in group.replicas else "ACTIVE")]
    for region, r in group.replicas.items():
        if region == home:
            continue
        db = ctx.db.replication.open_namespace(region, group.access_key)
        other = db.tables.get(table.name)
        if other is not None:
            out.append(Replica(region, db, other, r.status))
    return out


# --- the request ----------------------------------------------------------------------------------


def _policy(p: dict[str, Any] | None) -> Policy | None:
    if p is None:
        return None
    c = p["TargetTrackingScalingPolicyConfiguration"]
    return Policy(
        p.get("PolicyName", ""), float(c["TargetValue"]), bool(c.get("DisableScaleIn", False)),
        int(c.get("ScaleInCooldown", 0)), int(c.get("ScaleOutCooldown", 0)),
    )  # fmt: skip


def _target(u: dict[str, Any] | None) -> TargetUpdate | None:
    if u is None:
        return None
    return TargetUpdate(
        u.get("MinimumUnits"), u.get("MaximumUnits"), u.get("AutoScalingDisabled"), u.get("AutoScalingRoleArn"),
        _policy(u.get("ScalingPolicyUpdate")),
    )  # fmt: skip


def _parse(body: dict[str, Any]) -> scaling.ScalingUpdate:
    u = scaling.ScalingUpdate(write=_target(body.get("ProvisionedWriteCapacityAutoScalingUpdate")))
    for g in body.get("GlobalSecondaryIndexUpdates") or ():
        t = _target(g.get("ProvisionedWriteCapacityAutoScalingUpdate"))
        if t is not None and g.get("IndexName"):
            u.index_writes[g["IndexName"]] = t
    for r in body.get("ReplicaUpdates") or ():
        region = r["RegionName"]
        u.regions.append(region)
        t = _target(r.get("ReplicaProvisionedReadCapacityAutoScalingUpdate"))
        if t is not None:
            u.reads[region] = t
        for g in r.get("ReplicaGlobalSecondaryIndexUpdates") or ():
            t = _target(g.get("ProvisionedReadCapacityAutoScalingUpdate"))
            if t is not None and g.get("IndexName"):
                u.index_reads.setdefault(region, {})[g["IndexName"]] = t
    return u


# --- the answer -----------------------------------------------------------------------------------


def _settings(t: Target | None) -> dict[str, Any]:
    if t is None:
        return {"AutoScalingDisabled": True}
    out: dict[str, Any] = {
        "MinimumUnits": t.min_units,
        "MaximumUnits": t.max_units,
        "AutoScalingDisabled": t.disabled,
        "AutoScalingRoleArn": t.role_arn or DEFAULT_ROLE,
    }
    if t.policy is not None:
        p = t.policy
        out["ScalingPolicies"] = [{
            "PolicyName": p.name,
            "TargetTrackingScalingPolicyConfiguration": {
                "DisableScaleIn": p.disable_scale_in, "ScaleInCooldown": p.scale_in_cooldown,
                "ScaleOutCooldown": p.scale_out_cooldown, "TargetValue": p.target,
            },
        }]  # fmt: skip
    return out


def _replica(r: Replica) -> dict[str, Any]:
    spec = r.table.spec
    provisioned = spec.billing_mode != "PAY_PER_REQUEST"
    s = scaling.load(r.table)
    out: dict[str, Any] = {"RegionName": r.region}
    gsis = []
    for ix in spec.indexes:
        if not ix.is_global:
            continue
        g: dict[str, Any] = {"IndexName": ix.name, "IndexStatus": ix.status}
        if provisioned:
            kinds = s.indexes.get(ix.name, {})
            g["ProvisionedReadCapacityAutoScalingSettings"] = _settings(kinds.get(READ))
            g["ProvisionedWriteCapacityAutoScalingSettings"] = _settings(kinds.get(WRITE))
        gsis.append(g)
    if gsis:
        out["GlobalSecondaryIndexes"] = gsis
    if provisioned:
        out["ReplicaProvisionedReadCapacityAutoScalingSettings"] = _settings(s.table.get(READ))
        out["ReplicaProvisionedWriteCapacityAutoScalingSettings"] = _settings(s.table.get(WRITE))
    out["ReplicaStatus"] = r.status
    return out


def _description(replicas: list[Replica]) -> dict[str, Any]:
    return {"TableAutoScalingDescription": {
        "TableName": replicas[0].table.name,
        "TableStatus": "ACTIVE",
        "Replicas": [_replica(r) for r in replicas],
    }}  # fmt: skip


def describe_table_replica_auto_scaling(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    replicas = _replicas(ctx, body["TableName"])
    for r in replicas:  # a restarted server's settings act again from the first look at them
        replica_autoscaler.attach(r.db)
    return _description(replicas)


def update_table_replica_auto_scaling(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    replicas = _replicas(ctx, body["TableName"])
    scaling.update(replicas, _parse(body))
    for r in replicas:
        replica_autoscaler.attach(r.db)
    return _description(replicas)


OPERATIONS = {
    "DescribeTableReplicaAutoScaling": describe_table_replica_auto_scaling,
    "UpdateTableReplicaAutoScaling": update_table_replica_auto_scaling,
}
