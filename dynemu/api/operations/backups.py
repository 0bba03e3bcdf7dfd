"""DescribeContinuousBackups and UpdateContinuousBackups: point-in-time recovery as a table
setting (no restores). Continuous backups are ENABLED on every table at creation; PITR is
DISABLED until UpdateContinuousBackups enables it (API_UpdateContinuousBackups)."""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.protocol import Context
from dynemu.engine.table import Table

LATEST_LAG = 300.0  # "LatestRestorableDateTime is typically 5 minutes before the current time"


def _table(ctx: Context, name: str) -> Table:
    """The table, else TableNotFoundException "Table not found: <name>" (as the service
    answers: hashicorp/terraform-provider-aws#26577)."""
    table = ctx.db.tables.get(name)
    if table is None:
        for candidate in ctx.db.tables.values():
            if candidate.spec.arn == name:
                return candidate
        raise errors.DynamoError("TableNotFoundException", errors.msg_backup_table_not_found(name))
    return table


def _description(table: Table, now: float) -> dict[str, Any]:
    spec = table.spec
    pitr: dict[str, Any] = {"PointInTimeRecoveryStatus": "DISABLED"}
    if spec.pitr_since is not None:
        earliest = max(spec.pitr_since, now - spec.pitr_days * 86400.0)
        pitr = {
            "PointInTimeRecoveryStatus": "ENABLED",
            "RecoveryPeriodInDays": spec.pitr_days,
            "EarliestRestorableDateTime": earliest,
            "LatestRestorableDateTime": max(earliest, now - LATEST_LAG),
        }
    return {"ContinuousBackupsStatus": "ENABLED", "PointInTimeRecoveryDescription": pitr}


def describe_continuous_backups(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    table = _table(ctx, body["TableName"])
    return {"ContinuousBackupsDescription": _description(table, ctx.db.now())}


def update_continuous_backups(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    table = _table(ctx, body["TableName"])
    spec = body["PointInTimeRecoverySpecification"]
    now = ctx.db.now()
    if spec["PointInTimeRecoveryEnabled"]:
        if table.spec.pitr_since is None:
            table.spec.pitr_since = now
        table.spec.pitr_days = int(spec.get("RecoveryPeriodInDays") or table.spec.pitr_days)
    else:
        table.spec.pitr_since = None
    ctx.db.save_spec(table)
    return {"ContinuousBackupsDescription": _description(table, now)}


OPERATIONS = {
    "DescribeContinuousBackups": describe_continuous_backups,
    "UpdateContinuousBackups": update_continuous_backups,
}
