"""Replica auto scaling: DescribeTableReplicaAutoScaling and UpdateTableReplicaAutoScaling.

The API reference lists the operations' error types (ResourceNotFoundException,
ResourceInUseException, LimitExceededException, InternalServerError; ValidationException as
every operation) but shows no message texts, and no capture of them was found: every text
here is UNSURE, written in the service's style. The rules they state are the developer
guide's ("Managing throughput capacity automatically with DynamoDB auto scaling": a target
utilization between 20 and 90 percent; auto scaling adjusts provisioned capacity only).
"""

from __future__ import annotations

MSG_AUTOSCALING_NO_UPDATES = (  # UNSURE
    "At least one of ProvisionedWriteCapacityAutoScalingUpdate, GlobalSecondaryIndexUpdates "
    "or ReplicaUpdates must be provided"
)
MSG_AUTOSCALING_ON_DEMAND = (  # UNSURE
    "Auto scaling cannot be configured for a table in PAY_PER_REQUEST billing mode"
)


def msg_autoscaling_min_above_max(minimum: int, maximum: int) -> str:  # UNSURE
    return f"Minimum capacity units ({minimum}) cannot be greater than maximum capacity units ({maximum})"


def msg_autoscaling_bounds_required(resource: str) -> str:  # UNSURE
    return f"MinimumUnits and MaximumUnits are required to enable auto scaling for {resource}"


def msg_autoscaling_target_range(value: float, low: float, high: float) -> str:  # UNSURE; the range is the guide's
    return f"TargetValue must be between {low:g} and {high:g} percent; requested: {value:g}"


def msg_autoscaling_negative_cooldown(which: str, value: int) -> str:  # UNSURE
    return f"{which} cannot be negative; requested: {value}"


def msg_autoscaling_unknown_replica(region: str, table: str) -> str:  # UNSURE
    return f"Table {table} has no replica in region {region}"


def msg_autoscaling_unknown_index(index: str, table: str) -> str:  # UNSURE
    return f"Table {table} has no global secondary index {index}"


def msg_autoscaling_duplicate(what: str, name: str) -> str:  # UNSURE
    return f"{what} {name} is listed more than once"
