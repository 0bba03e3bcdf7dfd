"""ExportTableToPointInTime, DescribeExport, ListExports, ImportTable, DescribeImport,
ListImports (the API reference's pages of the same names). The engine's half is
engine/exports/; "S3" is the folder ``--s3-dir`` (default ``<data-dir>/s3``, a sub-folder per
bucket) or the server ``--s3-endpoint`` (storage/objects.py)."""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.operations import tables
from dynemu.api.protocol import Context
from dynemu.engine import pitr
from dynemu.engine.exports import jobs
from dynemu.engine.table import Table

MIN_WINDOW, MAX_WINDOW = 15 * 60.0, 24 * 3600.0  # an incremental export's period (S3DataExport.HowItWorks)


def objects_of(ctx: Context) -> Any:
    s = ctx.settings
    return jobs.object_store(s.objects_root(), s.s3_endpoint, ctx.region)


def _source_table(ctx: Context, arn: str) -> Table:
    table = ctx.db.lookup(arn)
    if table is None:
        raise errors.DynamoError("TableNotFoundException", errors.msg_backup_table_not_found(arn))
    return table


def _request(body: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != "ClientToken"}


# --- exports ------------------------------------------------------------------------------------


def _times(ctx: Context, table: Table, body: dict[str, Any]) -> tuple[float, tuple[float, float] | None, str]:
    """(ExportTime, the incremental window or None, view), each inside PITR's window: from its
    earliest restorable time to now."""
    kind = body.get("ExportType") or "FULL_EXPORT"
    spec = body.get("IncrementalExportSpecification")
    now = ctx.db.now()
    if kind == "FULL_EXPORT" and spec is not None:
        raise errors.validation(errors.MSG_INCREMENTAL_ON_FULL)
    if kind == "INCREMENTAL_EXPORT":
        if spec is None:
            raise errors.validation(errors.MSG_INCREMENTAL_SPEC_NEEDED)
        if body.get("ExportTime") is not None:
            raise errors.validation(errors.MSG_EXPORT_TIME_ON_INCREMENTAL)
        if spec.get("ExportFromTime") is None:
            raise errors.validation(errors.MSG_INCREMENTAL_FROM_NEEDED)
    if table.spec.pitr_since is None:
        raise errors.pitr_unavailable(table.name)
    pitr.maintain(ctx.db.store, now)
    record = pitr.record_of(ctx.db.store, table.spec.table_id)
    earliest = record.window(now)[0] if record is not None else table.spec.pitr_since
    asked = [float(body.get("ExportTime") or now)] if spec is None else [
        float(spec["ExportFromTime"]), float(spec.get("ExportToTime") or now)]
    for t in asked:
        if not earliest <= t <= now:
            raise errors.invalid_export_time(jobs.utc(t), jobs.utc(earliest), jobs.utc(now))
    if spec is None:
        return asked[0], None, "NEW_AND_OLD_IMAGES"
    if not MIN_WINDOW <= asked[1] - asked[0] <= MAX_WINDOW:
        raise errors.validation(errors.MSG_INCREMENTAL_WINDOW)
    return asked[1], (asked[0], asked[1]), spec.get("ExportViewType") or "NEW_AND_OLD_IMAGES"


def export_table_to_point_in_time(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    """Exports read PITR's history: no read capacity, the table as of ExportTime."""
    objects = objects_of(ctx)
    now = ctx.db.now()
    earlier = jobs.by_token(ctx.db.store, "export", body.get("ClientToken"), _request(body), now)
    if earlier is not None:
        return {"ExportDescription": jobs.describe(earlier, now, "export")}
    table = _source_table(ctx, body["TableArn"])
    when, window, view = _times(ctx, table, body)
    if jobs.running(ctx.db.store, "export", now) >= jobs.MAX_EXPORTS:
        raise errors.too_many_jobs("export", jobs.MAX_EXPORTS)
    arn = jobs.job_arn(table.spec.arn, "export", now)
    d: dict[str, Any] = {
        "ExportArn": arn, "StartTime": now, "TableArn": table.spec.arn, "TableId": table.spec.uuid,
        "ExportTime": when, "S3Bucket": body["S3Bucket"], "S3SseAlgorithm": body.get("S3SseAlgorithm") or "AES256",
        "ExportFormat": body.get("ExportFormat") or "DYNAMODB_JSON", "ExportType": body.get("ExportType") or "FULL_EXPORT",
    }  # fmt: skip
    for member in ("ClientToken", "S3BucketOwner", "S3Prefix", "S3SseKmsKeyId"):
        if body.get(member) is not None:
            d[member] = body[member]
    if window is not None:
        d["IncrementalExportSpecification"] = {"ExportFromTime": window[0], "ExportToTime": window[1],
                                               "ExportViewType": view}
    record = {"arn": arn, "token": body.get("ClientToken"), "request": _request(body), "description": d}
    jobs.run_export(ctx.db, objects, table, record, when=when, window=window, view=view,
                    seconds=ctx.settings.import_export_seconds)
    return {"ExportDescription": jobs.describe(record, now, "export")}


def describe_export(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    record = jobs.find(ctx.db.store, "export", body["ExportArn"])
    return {"ExportDescription": jobs.describe(record, ctx.db.now(), "export")}


def _page(found: list[dict[str, Any]], token: str | None, limit: int) -> tuple[list[dict[str, Any]], str | None]:
    """A page of jobs, oldest first; NextToken is the ARN of the page's last one."""
    found.sort(key=lambda r: r["seq"])
    if token is not None:
        at = next((i for i, r in enumerate(found) if r["arn"] == token), None)
        found = found[at + 1 :] if at is not None else []
    page = found[:limit]
    return page, (page[-1]["arn"] if len(found) > limit else None)


def list_exports(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    now = ctx.db.now()
    wanted = body.get("TableArn")
    found = [r for r in jobs.all_jobs(ctx.db.store, "export")
             if wanted is None or r["description"]["TableArn"] == wanted]  # fmt: skip
    page, token = _page(found, body.get("NextToken"), body.get("MaxResults") or 25)
    out: dict[str, Any] = {"ExportSummaries": [
        {"ExportArn": r["arn"], "ExportStatus": jobs.status(r, now), "ExportType": r["description"]["ExportType"]}
        for r in page]}  # fmt: skip
    if token is not None:
        out["NextToken"] = token
    return out


# --- imports ------------------------------------------------------------------------------------


def import_table(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    """A new table from S3 objects; bad lines are counted and logged, never the end of it."""
    objects = objects_of(ctx)
    now = ctx.db.now()
    earlier = jobs.by_token(ctx.db.store, "import", body.get("ClientToken"), _request(body), now)
    if earlier is not None:
        return {"ImportTableDescription": jobs.describe(earlier, now, "import")}
    if jobs.running(ctx.db.store, "import", now) >= jobs.MAX_IMPORTS:
        raise errors.too_many_jobs("import", jobs.MAX_IMPORTS)
    params = body["TableCreationParameters"]
    table = tables.create(ctx, params)  # CreateTable's checks; ResourceInUseException if it exists
    arn = jobs.job_arn(table.spec.arn, "import", now)
    src = body["S3BucketSource"]
    d: dict[str, Any] = {
        "ImportArn": arn, "TableArn": table.spec.arn, "TableId": table.spec.uuid, "S3BucketSource": src,
        "CloudWatchLogGroupArn": jobs.log_group_arn(ctx.region), "InputFormat": body["InputFormat"],
        "InputCompressionType": body.get("InputCompressionType") or "NONE", "TableCreationParameters": params,
        "StartTime": now,
    }  # fmt: skip
    for member in ("ClientToken", "InputFormatOptions"):
        if body.get(member) is not None:
            d[member] = body[member]
    record = {"arn": arn, "token": body.get("ClientToken"), "request": _request(body), "description": d}
    jobs.run_import(ctx.db, objects, table, record, ctx.settings.import_export_seconds)
    return {"ImportTableDescription": jobs.describe(record, now, "import")}


def describe_import(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    record = jobs.find(ctx.db.store, "import", body["ImportArn"])
    return {"ImportTableDescription": jobs.describe(record, ctx.db.now(), "import")}


def list_imports(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    now = ctx.db.now()
    wanted = body.get("TableArn")
    found = [r for r in jobs.all_jobs(ctx.db.store, "import")
             if wanted is None or r["description"]["TableArn"] == wanted]  # fmt: skip
    page, token = _page(found, body.get("NextToken"), body.get("PageSize") or 25)
    summaries = []
    for r in page:
        d = jobs.describe(r, now, "import")
        summaries.append({k: d[k] for k in ("ImportArn", "ImportStatus", "TableArn", "S3BucketSource",
                                            "CloudWatchLogGroupArn", "InputFormat", "StartTime", "EndTime")
                          if k in d})  # fmt: skip
    out: dict[str, Any] = {"ImportSummaryList": summaries}
    if token is not None:
        out["NextToken"] = token
    return out


OPERATIONS = {
    "ExportTableToPointInTime": export_table_to_point_in_time,
    "DescribeExport": describe_export,
    "ListExports": list_exports,
    "ImportTable": import_table,
    "DescribeImport": describe_import,
    "ListImports": list_imports,
}
