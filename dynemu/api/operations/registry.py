"""The one registry of operation handlers, by X-Amz-Target prefix and operation name.

Every operation's module is imported on the operation's first request, not at start-up: a
server answering ListTables imports list_tables.py only, not the table definitions, the
expression engine, batches, transactions, backups, PartiQL or vector search
(docs/architecture.md, "Start-up";
``tests/test_startup_lazy.py`` checks both the laziness and that this table names every
operation of every module). The first call of an operation imports its module and keeps its
handler; later calls go to it directly.
"""

from __future__ import annotations

import importlib
from time import perf_counter
from typing import Any

from dynemu.api.protocol import AAS_PREFIX, CW_PREFIX, DYNAMODB_PREFIX, STREAMS_PREFIX, Context, Handler
from dynemu.engine.cloudwatch import requests

_PACKAGE = "dynemu.api.operations."

# X-Amz-Target prefix -> module (under dynemu.api.operations) -> the operations it answers.
# An operation is listed once: global_tables.py's DescribeTable, UpdateTable and DeleteTable
# and UpdateTimeToLive wrap tables.py's and ttl.py's (the replicas' part), so they are listed
# under global_tables.
_LAZY: dict[str, dict[str, tuple[str, ...]]] = {
    DYNAMODB_PREFIX: {
        "list_tables": ("ListTables",),
        "tables": ("CreateTable",),
        "items": ("PutItem", "GetItem", "UpdateItem", "DeleteItem"),
        "query": ("Query", "Scan"),
        "batch": ("BatchGetItem", "BatchWriteItem"),
        "transactions": ("TransactGetItems", "TransactWriteItems"),
        "misc": ("DescribeEndpoints", "DescribeLimits", "ListTagsOfResource", "TagResource", "UntagResource"),
        "ttl": ("DescribeTimeToLive",),
        "partiql": ("ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction"),
        "vectors": ("SearchVectors",),
        "backups": (
            "CreateBackup", "DeleteBackup", "DescribeBackup", "ListBackups", "RestoreTableFromBackup",
            "DescribeContinuousBackups", "UpdateContinuousBackups", "RestoreTableToPointInTime",
        ),
        "global_tables": (
            "DescribeTable", "UpdateTable", "DeleteTable", "UpdateTimeToLive", "CreateGlobalTable", "DescribeGlobalTable",
            "ListGlobalTables", "UpdateGlobalTable", "DescribeGlobalTableSettings", "UpdateGlobalTableSettings",
        ),
        "exports": (
            "ExportTableToPointInTime", "DescribeExport", "ListExports", "ImportTable", "DescribeImport", "ListImports",
        ),
        "policies": ("GetResourcePolicy", "PutResourcePolicy", "DeleteResourcePolicy"),
        "insights": ("DescribeContributorInsights", "ListContributorInsights", "UpdateContributorInsights"),
        "replica_autoscaling": ("DescribeTableReplicaAutoScaling", "UpdateTableReplicaAutoScaling"),
    },  # fmt: skip
    STREAMS_PREFIX: {
        "streams": ("ListStreams", "DescribeStream", "GetShardIterator", "GetRecords"),
    },
    AAS_PREFIX: {  # Application Auto Scaling (AWS JSON 1.1), DynamoDB's targets and policies
        "application_autoscaling": (
            "RegisterScalableTarget", "DeregisterScalableTarget", "DescribeScalableTargets", "PutScalingPolicy",
            "DeleteScalingPolicy", "DescribeScalingPolicies", "DescribeScalingActivities",
        ),
    },  # fmt: skip
    CW_PREFIX: {  # CloudWatch (api/cloudwatch_wire.py: CBOR, JSON 1.0 and query), AWS/DynamoDB metrics
        "cloudwatch": (
            "GetMetricStatistics", "GetMetricData", "ListMetrics", "DescribeInsightRules", "GetInsightRuleReport",
        ),
    },  # fmt: skip
}


def _lazy(module: str, operation: str, prefix: str) -> Handler:
    """A handler that imports ``module`` on its first call and then calls its handler; a
    data-plane operation with per-operation CloudWatch metrics (engine/cloudwatch/requests.py)
    is also timed and its outcome counted here, the one place every such request ends."""
    real: Handler | None = None
    record = requests.recorder(operation) if prefix == DYNAMODB_PREFIX else None

    def plain(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
        nonlocal real
        if real is None:
            real = importlib.import_module(_PACKAGE + module).OPERATIONS[operation]
        return real(ctx, body)

    def timed(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
        nonlocal real
        if real is None:
            real = importlib.import_module(_PACKAGE + module).OPERATIONS[operation]
        started = perf_counter()  # a measurement of the request, not the model's clock
        try:
            out = real(ctx, body)
        except Exception as e:
            failed(ctx.db, body, e)
            raise
        ok(ctx.db, body, out, perf_counter() - started)
        return out

    handler = plain
    if record is not None:
        ok, failed = record.ok, record.failed
        handler = timed
    handler.__qualname__ = handler.__name__ = operation
    return handler


def handlers() -> dict[str, dict[str, Handler]]:
    """X-Amz-Target prefix -> operation -> handler (imports no operation module)."""
    return {
        prefix: {op: _lazy(module, op, prefix) for module, operations in modules.items() for op in operations}
        for prefix, modules in _LAZY.items()
    }

