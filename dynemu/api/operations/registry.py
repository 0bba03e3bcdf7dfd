"""The one registry of operation handlers, by X-Amz-Target prefix and operation name."""

from __future__ import annotations

import importlib
from typing import Any

from dynemu.api.protocol import AAS_PREFIX, DYNAMODB_PREFIX, STREAMS_PREFIX, Context, Handler

# Operations whose module is imported on their first request, not at start-up (PartiQL's
# parser and translator are ~15 ms of imports a server answering item requests never needs).
_LAZY: dict[str, tuple[str, ...]] = {
    "dynemu.api.operations.partiql": ("ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction"),
    "dynemu.api.operations.vectors": ("SearchVectors",),
    "dynemu.api.operations.replica_autoscaling": ("DescribeTableReplicaAutoScaling", "UpdateTableReplicaAutoScaling"),
}
_AAS_OPERATIONS = (
    "RegisterScalableTarget", "DeregisterScalableTarget", "DescribeScalableTargets", "PutScalingPolicy",
    "DeleteScalingPolicy", "DescribeScalingPolicies", "DescribeScalingActivities",
)  # fmt: skip


def _lazy(module: str, operation: str) -> Handler:
    def handler(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
        real: Handler = importlib.import_module(module).OPERATIONS[operation]
        return real(ctx, body)

    return handler


def handlers() -> dict[str, dict[str, Handler]]:
    from dynemu.api.operations import (
        backups,
        batch,
        global_tables,
        insights,
        items,
        misc,
        policies,
        query,
        streams,
        tables,
        transactions,
        ttl,
    )

    dynamodb: dict[str, Handler] = {}
    for module in (tables, items, query, batch, transactions, misc, ttl):
        dynamodb.update(module.OPERATIONS)
    for name, operations in _LAZY.items():
        dynamodb.update({op: _lazy(name, op) for op in operations})
    dynamodb.update(backups.OPERATIONS)
    dynamodb.update(global_tables.OPERATIONS)  # wraps UpdateTable, DescribeTable, DeleteTable
    dynamodb.update(policies.OPERATIONS)
    dynamodb.update(insights.OPERATIONS)
    aas = {op: _lazy("dynemu.api.autoscaling_service", op) for op in _AAS_OPERATIONS}  # Application Auto Scaling
    return {DYNAMODB_PREFIX: dynamodb, STREAMS_PREFIX: dict(streams.OPERATIONS), AAS_PREFIX: aas}
