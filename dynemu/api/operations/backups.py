"""On-demand backups (CreateBackup, DescribeBackup, ListBackups, DeleteBackup,
RestoreTableFromBackup) and point-in-time recovery (DescribeContinuousBackups,
UpdateContinuousBackups, RestoreTableToPointInTime). Continuous backups are ENABLED on every
table at creation; PITR is DISABLED until UpdateContinuousBackups enables it
(API_UpdateContinuousBackups). The engine's halves: engine/backups.py, engine/pitr.py."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from dynemu import errors
from dynemu.api.operations import restores
from dynemu.api.operations.common import describe_throughput
from dynemu.api.operations.index_specs import index_shape
from dynemu.api.protocol import Context
from dynemu.engine import backups, pitr
from dynemu.engine.backups import Backup
from dynemu.engine.schema import TableSpec
from dynemu.engine.table import Table


def _description(ctx: Context, table: Table) -> dict[str, Any]:
    spec = table.spec
    pitr_: dict[str, Any] = {"PointInTimeRecoveryStatus": "DISABLED"}
    if spec.pitr_since is not None:
        now = ctx.db.now()
        pitr.maintain(ctx.db.store, now)
        r = pitr.record_of(ctx.db.store, spec.table_id) or pitr.Recovery(spec.table_id, spec.pitr_since,
                                                                          spec.pitr_days, {})
        earliest, latest = r.window(now)
        pitr_ = {
            "PointInTimeRecoveryStatus": "ENABLED",
            "RecoveryPeriodInDays": spec.pitr_days,
            "EarliestRestorableDateTime": earliest,
            "LatestRestorableDateTime": latest,
        }
    return {"ContinuousBackupsStatus": "ENABLED", "PointInTimeRecoveryDescription": pitr_}


def describe_continuous_backups(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    table = backups.source_table(ctx.db, body["TableName"])
    return {"ContinuousBackupsDescription": _description(ctx, table)}


def update_continuous_backups(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    """Enabling starts keeping the change history (engine/pitr.py); disabling drops it."""
    table = backups.source_table(ctx.db, body["TableName"])
    spec = body["PointInTimeRecoverySpecification"]
    if spec["PointInTimeRecoveryEnabled"]:
        pitr.enable(ctx.db, table, int(spec.get("RecoveryPeriodInDays") or table.spec.pitr_days))
    else:
        pitr.disable(ctx.db, table)
    ctx.db.save_spec(table)
    return {"ContinuousBackupsDescription": _description(ctx, table)}


def restore_table_to_point_in_time(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    """By SourceTableName or SourceTableArn, to RestoreDateTime or the latest restorable
    time, with the overrides of RestoreTableFromBackup (API_RestoreTableToPointInTime)."""
    name, arn = body.get("SourceTableName"), body.get("SourceTableArn")
    if (name is None) == (arn is None):
        raise errors.validation(errors.MSG_RESTORE_SOURCE_CHOICE)
    at, latest_wanted = body.get("RestoreDateTime"), bool(body.get("UseLatestRestorableTime"))
    if (at is not None) == latest_wanted:  # both, or neither
        raise errors.validation(errors.MSG_RESTORE_TIME_CHOICE)
    now = ctx.db.now()
    pitr.maintain(ctx.db.store, now)
    r = pitr.source(ctx.db, name, arn)
    target = body["TargetTableName"]
    if ctx.db.lookup(target) is not None:
        raise errors.table_already_exists(target)
    earliest, latest = r.window(now)
    when = latest if latest_wanted else float(at)
    if not earliest <= when <= latest:
        raise errors.invalid_restore_time(_utc(earliest), _utc(latest), _utc(when))
    source = TableSpec.from_record(r.spec)
    spec = restores.restored_spec(ctx, source, body)
    summary = {"SourceTableArn": source.arn, "RestoreDateTime": when}
    return restores.restore(ctx, spec, pitr.items_at(ctx.db.store, r.table_id, when), body, summary)


def _utc(t: float) -> str:
    return datetime.fromtimestamp(t, tz=UTC).isoformat(timespec="milliseconds")


# --- on-demand backups --------------------------------------------------------------------------


def _details(b: Backup, status: str = "AVAILABLE") -> dict[str, Any]:
    out: dict[str, Any] = {
        "BackupArn": b.arn,
        "BackupName": b.name,
        "BackupSizeBytes": b.size_bytes,
        "BackupStatus": status,
        "BackupType": b.kind,
        "BackupCreationDateTime": b.created,
    }
    if b.expiry is not None:
        out["BackupExpiryDateTime"] = b.expiry
    return out


def _index_info(spec: Any) -> dict[str, Any]:
    out = index_shape(spec)
    if spec.is_global:
        out["ProvisionedThroughput"] = describe_throughput(spec.throughput)
    return out


def _backup_description(b: Backup, status: str = "AVAILABLE") -> dict[str, Any]:
    spec = b.spec
    source: dict[str, Any] = {
        "TableName": spec.name,
        "TableId": spec.uuid,
        "TableArn": spec.arn,
        "TableSizeBytes": b.size_bytes,
        "KeySchema": [{"AttributeName": n, "KeyType": k} for n, k, _ in spec.key_schema],
        "TableCreationDateTime": spec.created,
        "ProvisionedThroughput": describe_throughput(spec.throughput),
        "ItemCount": b.item_count,
        "BillingMode": spec.billing_mode,
    }
    if spec.billing_mode == "PAY_PER_REQUEST":
        source["OnDemandThroughput"] = {
            "MaxReadRequestUnits": spec.on_demand_max_read, "MaxWriteRequestUnits": spec.on_demand_max_write,
        }
    features = dict(b.features)
    lsis = [_index_info(s) for s in spec.indexes if not s.is_global]
    gsis = [_index_info(s) for s in spec.indexes if s.is_global]
    if lsis:
        features["LocalSecondaryIndexes"] = lsis
    if gsis:
        features["GlobalSecondaryIndexes"] = gsis
    return {"BackupDetails": _details(b, status), "SourceTableDetails": source, "SourceTableFeatureDetails": features}


def create_backup(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    b = backups.create_backup(ctx.db, body["TableName"], body["BackupName"])
    # CREATING in the answer; AVAILABLE from the next DescribeBackup (the copy is already whole)
    return {"BackupDetails": _details(b, "CREATING")}


def describe_backup(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    return {"BackupDescription": _backup_description(backups.find(ctx.db.store, body["BackupArn"]))}


def delete_backup(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    b = backups.find(ctx.db.store, body["BackupArn"])
    if b.kind == "SYSTEM":
        raise errors.validation(errors.MSG_DELETE_SYSTEM_BACKUP)
    backups.delete(ctx.db.store, b)
    return {"BackupDescription": _backup_description(b, "DELETED")}


def _in_range(b: Backup, body: dict[str, Any]) -> bool:
    wanted = body.get("BackupType") or "USER"
    if wanted != "ALL" and b.kind != wanted:
        return False
    name = body.get("TableName")
    if name is not None and name not in (b.source["name"], b.source["arn"]):
        return False
    lower, upper = body.get("TimeRangeLowerBound"), body.get("TimeRangeUpperBound")
    created = _ms(b.created)  # compared in milliseconds, the backups' precision
    if lower is not None and created < _ms(float(lower)):
        return False
    return upper is None or created < _ms(float(upper))


def _ms(t: float) -> int:
    return round(t * 1000)


def list_backups(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    """Oldest first; TimeRangeLowerBound inclusive, TimeRangeUpperBound exclusive; BackupType
    USER unless asked (API_ListBackups); ExclusiveStartBackupArn / LastEvaluatedBackupArn."""
    found = sorted((b for b in backups.list_backups(ctx.db) if _in_range(b, body)),
                   key=lambda b: (b.created, b.backup_id))
    start = body.get("ExclusiveStartBackupArn")
    if start is not None:
        at = next((i for i, b in enumerate(found) if b.arn == start), None)
        found = found[at + 1 :] if at is not None else []
    limit = body.get("Limit") or 100
    page = found[:limit]
    out: dict[str, Any] = {"BackupSummaries": [_summary(b) for b in page]}
    if len(found) > limit:
        out["LastEvaluatedBackupArn"] = page[-1].arn
    return out


def _summary(b: Backup) -> dict[str, Any]:
    return {"TableName": b.source["name"], "TableId": b.source["uuid"], "TableArn": b.source["arn"],
            **_details(b)}


def restore_table_from_backup(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    b = backups.backup_to_restore(ctx.db, body["BackupArn"])
    target = body["TargetTableName"]
    if ctx.db.lookup(target) is not None:
        raise errors.table_already_exists(target)
    spec = restores.restored_spec(ctx, b.spec, body)
    summary = {"SourceBackupArn": b.arn, "SourceTableArn": b.source["arn"], "RestoreDateTime": b.created}
    return restores.restore(ctx, spec, backups.backup_items(ctx.db.store, b), body, summary)


OPERATIONS = {
    "CreateBackup": create_backup,
    "DescribeBackup": describe_backup,
    "DeleteBackup": delete_backup,
    "ListBackups": list_backups,
    "RestoreTableFromBackup": restore_table_from_backup,
    "RestoreTableToPointInTime": restore_table_to_point_in_time,
    "DescribeContinuousBackups": describe_continuous_backups,
    "UpdateContinuousBackups": update_continuous_backups,
}
