"""DescribeTableReplicaAutoScaling and UpdateTableReplicaAutoScaling on the wire.

The rules: ``engine/autoscaling/replica_settings.py`` (a facade over ``engine/autoscaling/targets.py``,
where every setting lives); the scaler that acts on them: ``engine/autoscaling/scaler.py``.
Here: the replicas of the table asked (every region of its global table, by region name; a
table without replicas is not found), the request parsed into a ``ScalingUpdate``, and
TableAutoScalingDescription rendered (API reference, "TableAutoScalingDescription"): a
dimension with a target and a policy shows its bounds, the service-linked role and its
policies, any other ``{"AutoScalingDisabled": true, "ScalingPolicies": []}`` (observed
service answers (aws-controllers-k8s ack-api-quirks, DynamoDB, 2026-10-09)).
"""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.protocol import Context
from dynemu.engine.autoscaling import replica_settings as scaling
from dynemu.engine.autoscaling import scaler as replica_autoscaler
from dynemu.engine.autoscaling import targets as aas
from dynemu.engine.autoscaling.replica_settings import READ, WRITE, PolicyUpdate, Replica, TargetUpdate
from dynemu.engine.global_tables import membership as global_tables

OFF: dict[str, Any] = {"AutoScalingDisabled": True, "ScalingPolicies": []}


def _replicas(ctx: Context, name: str) -> list[Replica]:
    """Every replica of the global table asked, by region name."""
    table = ctx.db.lookup(name)
    group = global_tables.group_of(ctx.db, table) if table is not None else None
    if table is None or group is None or len(group.replicas) < 2:
        raise errors.resource_not_found(errors.msg_global_table_not_found(name))  # a missing table, or one with no replica
    link = ctx.db.replicated
    home = link.region if link is not None else ctx.region
    out = []
    for region, r in sorted(group.replicas.items()):
        db = ctx.db if region == home else ctx.db.replication.open_namespace(region, group.access_key)
        other = db.tables.get(table.name)
        if other is not None:
            out.append(Replica(region, db, other, r.status))
    return out


# --- the request ----------------------------------------------------------------------------------


def _policy(p: dict[str, Any] | None) -> PolicyUpdate | None:
    if p is None:
        return None
    c = p["TargetTrackingScalingPolicyConfiguration"]
    return PolicyUpdate(
        p.get("PolicyName"), float(c["TargetValue"]), c.get("DisableScaleIn"),
        c.get("ScaleInCooldown"), c.get("ScaleOutCooldown"),
    )  # fmt: skip


def _target(u: dict[str, Any] | None) -> TargetUpdate | None:
    if u is None:
        return None
    # AutoScalingRoleArn is not read: the service-linked role is always used (observed)
    return TargetUpdate(u.get("MinimumUnits"), u.get("MaximumUnits"), u.get("AutoScalingDisabled"),
                        _policy(u.get("ScalingPolicyUpdate")))  # fmt: skip


def _parse(body: dict[str, Any]) -> scaling.ScalingUpdate:
    u = scaling.ScalingUpdate(write=_target(body.get("ProvisionedWriteCapacityAutoScalingUpdate")))
    for g in body.get("GlobalSecondaryIndexUpdates") or ():
        if g.get("IndexName"):
            u.index_names.append(g["IndexName"])
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
            if g.get("IndexName"):
                u.index_names.append(g["IndexName"])
            t = _target(g.get("ProvisionedReadCapacityAutoScalingUpdate"))
            if t is not None and g.get("IndexName"):
                u.index_reads.setdefault(region, {})[g["IndexName"]] = t
    return u


# --- the answer -----------------------------------------------------------------------------------


def _settings(t: aas.Target | None) -> dict[str, Any]:
    if t is None or not t.policies:  # a target without a policy reads as disabled (observed)
        return dict(OFF)
    policies = []
    for p in t.policies:
        conf: dict[str, Any] = {"TargetValue": p.target}
        for key, value in (("DisableScaleIn", p.disable_scale_in), ("ScaleInCooldown", p.scale_in_cooldown),
                           ("ScaleOutCooldown", p.scale_out_cooldown)):  # fmt: skip
            if value is not None:
                conf[key] = value
        policies.append({"PolicyName": p.name, "TargetTrackingScalingPolicyConfiguration": conf})
    return {"MinimumUnits": t.min_units, "MaximumUnits": t.max_units, "AutoScalingRoleArn": aas.ROLE,
            "ScalingPolicies": policies}  # fmt: skip


def _replica(r: Replica) -> dict[str, Any]:
    targets = scaling.targets_of(r.db, r.table)
    gsis = [{
        "IndexName": ix.name, "IndexStatus": ix.status,
        "ProvisionedReadCapacityAutoScalingSettings": _settings(targets.get((ix.name, READ))),
        "ProvisionedWriteCapacityAutoScalingSettings": _settings(targets.get((ix.name, WRITE))),
    } for ix in r.table.spec.indexes if ix.is_global]  # fmt: skip
    return {
        "RegionName": r.region,
        "GlobalSecondaryIndexes": gsis,
        "ReplicaProvisionedReadCapacityAutoScalingSettings": _settings(targets.get((None, READ))),
        "ReplicaProvisionedWriteCapacityAutoScalingSettings": _settings(targets.get((None, WRITE))),
        "ReplicaStatus": r.status,
    }


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
    before = _description(replicas)  # the answer shows the settings before the update (observed)
    scaling.update(replicas, _parse(body))
    for r in replicas:
        replica_autoscaler.attach(r.db)
    return before


OPERATIONS = {
    "DescribeTableReplicaAutoScaling": describe_table_replica_auto_scaling,
    "UpdateTableReplicaAutoScaling": update_table_replica_auto_scaling,
}
