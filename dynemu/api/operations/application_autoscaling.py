"""A minimal Application Auto Scaling endpoint for DynamoDB, on the same server: AWS JSON 1.1,
``X-Amz-Target: AnyScaleFrontendService.<Operation>``, requests checked against botocore's
``application-autoscaling`` model as DynamoDB's are.

RegisterScalableTarget, DeregisterScalableTarget, DescribeScalableTargets, PutScalingPolicy
(TargetTrackingScaling with DynamoDB's predefined metrics), DeleteScalingPolicy,
DescribeScalingPolicies and DescribeScalingActivities, for ServiceNamespace ``dynamodb``
(API reference of Application Auto Scaling, one page per operation). The objects are the
engine's (``engine/autoscaling/targets.py``), the same ones DynamoDB's replica auto scaling
operations read and write; here only parsing and rendering.

dynemu's choices: another service namespace is refused as an unsupported resource when
registering and describes as nothing; pages hold MaxResults (50 by default) and NextToken is
the position of the next object.
"""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.protocol import Context
from dynemu.engine.autoscaling import scaler as replica_autoscaler
from dynemu.engine.autoscaling import targets as aas

PAGE = 50


def _page(key: str, items: list[Any], body: dict[str, Any]) -> dict[str, Any]:
    """One page of a Describe answer under ``key``, with NextToken while more remain."""
    token = body.get("NextToken")
    try:
        start = int(token) if token is not None else 0
    except ValueError:
        raise errors.aas_bad_token() from None
    if not 0 <= start <= len(items):
        raise errors.aas_bad_token()
    end = start + (body.get("MaxResults") or PAGE)
    out: dict[str, Any] = {key: items[start:end]}
    if end < len(items):
        out["NextToken"] = str(end)
    return out


def _dynamodb(body: dict[str, Any]) -> bool:
    return bool(body.get("ServiceNamespace") == aas.NAMESPACE)


def _target(t: aas.Target) -> dict[str, Any]:
    return {
        "ServiceNamespace": aas.NAMESPACE,
        "ResourceId": t.resource,
        "ScalableDimension": t.dimension,
        "MinCapacity": t.min_units,
        "MaxCapacity": t.max_units,
        "RoleARN": aas.ROLE,
        "CreationTime": t.created,
        "SuspendedState": {k: bool(t.suspended.get(k)) for k in (
            "DynamicScalingInSuspended", "DynamicScalingOutSuspended", "ScheduledScalingSuspended")},
        "ScalableTargetARN": t.arn,
    }  # fmt: skip


def _alarms(p: aas.Policy) -> list[dict[str, str]]:
    region = p.arn.split(":")[3]
    return [{"AlarmName": a, "AlarmARN": f"arn:aws:cloudwatch:{region}:{aas.ACCOUNT_ID}:alarm:{a}"} for a in p.alarms]


def _policy(t: aas.Target, p: aas.Policy) -> dict[str, Any]:
    conf: dict[str, Any] = {"TargetValue": p.target, "PredefinedMetricSpecification": {"PredefinedMetricType": p.metric}}
    for key, value in (("ScaleOutCooldown", p.scale_out_cooldown), ("ScaleInCooldown", p.scale_in_cooldown),
                       ("DisableScaleIn", p.disable_scale_in)):  # fmt: skip
        if value is not None:
            conf[key] = value
    return {
        "PolicyARN": p.arn,
        "PolicyName": p.name,
        "ServiceNamespace": aas.NAMESPACE,
        "ResourceId": t.resource,
        "ScalableDimension": t.dimension,
        "PolicyType": "TargetTrackingScaling",
        "TargetTrackingScalingPolicyConfiguration": conf,
        "Alarms": _alarms(p),
        "CreationTime": p.created,
    }


# --- the operations ------------------------------------------------------------------------------------


def register_scalable_target(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    if not _dynamodb(body):
        raise errors.aas_validation(errors.MSG_AAS_UNSUPPORTED)
    suspended = body.get("SuspendedState")
    t = aas.register(ctx.db, body["ResourceId"], body["ScalableDimension"], body.get("MinCapacity"),
                     body.get("MaxCapacity"), dict(suspended) if suspended is not None else None)  # fmt: skip
    replica_autoscaler.attach(ctx.db)
    return {"ScalableTargetARN": t.arn}


def deregister_scalable_target(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    if not _dynamodb(body):
        raise errors.aas_not_found(errors.msg_aas_no_target(
            body["ServiceNamespace"], body["ResourceId"], body["ScalableDimension"]))  # fmt: skip
    aas.deregister(ctx.db, body["ResourceId"], body["ScalableDimension"])
    return {}


def describe_scalable_targets(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    ids, dim = body.get("ResourceIds"), body.get("ScalableDimension")
    found = [
        t for t in aas.load(ctx.db).targets.values()
        if _dynamodb(body) and (not ids or t.resource in ids) and (dim is None or t.dimension == dim)
    ]  # fmt: skip
    out = _page("ScalableTargets", found, body)
    out["ScalableTargets"] = [_target(t) for t in out["ScalableTargets"]]
    return out


def put_scaling_policy(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    resource, dim = body["ResourceId"], body["ScalableDimension"]
    if not _dynamodb(body):
        raise errors.aas_validation(errors.MSG_AAS_UNSUPPORTED)
    aas.find_target(ctx.db, resource, dim)  # ObjectNotFoundException first
    if body.get("PolicyType", "StepScaling") != "TargetTrackingScaling":  # the API's default is StepScaling
        raise errors.aas_validation(errors.MSG_AAS_STEP_SCALING)
    conf = body.get("TargetTrackingScalingPolicyConfiguration")
    if conf is None:
        raise errors.aas_validation(errors.MSG_AAS_NO_TRACKING_CONFIG)
    metric = (conf.get("PredefinedMetricSpecification") or {}).get("PredefinedMetricType")
    if metric is None:
        raise errors.aas_validation(errors.MSG_AAS_PREDEFINED_ONLY)
    p = aas.Policy(body["PolicyName"], float(conf["TargetValue"]), metric, conf.get("DisableScaleIn"),
                   conf.get("ScaleInCooldown"), conf.get("ScaleOutCooldown"))  # fmt: skip
    p = aas.put_policy(ctx.db, resource, dim, p)
    replica_autoscaler.attach(ctx.db)
    return {"PolicyARN": p.arn, "Alarms": _alarms(p)}


def delete_scaling_policy(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    ns, resource, dim, name = body["ServiceNamespace"], body["ResourceId"], body["ScalableDimension"], body["PolicyName"]
    if ns != aas.NAMESPACE:
        raise errors.aas_not_found(errors.msg_aas_no_policy(ns, resource, dim, name))
    aas.delete_policy(ctx.db, name, resource, dim)
    return {}


def describe_scaling_policies(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    names, resource, dim = body.get("PolicyNames"), body.get("ResourceId"), body.get("ScalableDimension")
    found = [
        _policy(t, p)
        for t in aas.load(ctx.db).targets.values() if _dynamodb(body)
        if (resource is None or t.resource == resource) and (dim is None or t.dimension == dim)
        for p in t.policies if not names or p.name in names
    ]  # fmt: skip
    return _page("ScalingPolicies", found, body)


def describe_scaling_activities(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    resource, dim = body.get("ResourceId"), body.get("ScalableDimension")
    found = [
        {
            "ActivityId": a.id, "ServiceNamespace": aas.NAMESPACE, "ResourceId": a.resource,
            "ScalableDimension": a.dimension, "Description": a.description, "Cause": a.cause,
            "StartTime": a.start, "EndTime": a.end, "StatusCode": a.status, "StatusMessage": a.message,
        }
        for a in reversed(aas.load(ctx.db).activities) if _dynamodb(body)
        if (resource is None or a.resource == resource) and (dim is None or a.dimension == dim)
    ]  # fmt: skip
    return _page("ScalingActivities", found, body)


OPERATIONS = {
    "RegisterScalableTarget": register_scalable_target,
    "DeregisterScalableTarget": deregister_scalable_target,
    "DescribeScalableTargets": describe_scalable_targets,
    "PutScalingPolicy": put_scaling_policy,
    "DeleteScalingPolicy": delete_scaling_policy,
    "DescribeScalingPolicies": describe_scaling_policies,
    "DescribeScalingActivities": describe_scaling_activities,
}
