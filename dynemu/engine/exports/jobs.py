"""Exports and imports as the API shows them: their records, their status on the clock, their
ClientTokens, and the one run of each (API_ExportTableToPointInTime, API_ImportTable).

Both are asynchronous, as on DynamoDB: the request answers IN_PROGRESS at once, and the work
runs in steps on the server's event loop (``engine/steps.py``; a chunk of items per step, as a GSI's
backfill does), so other requests are answered while a large import or export runs; memory
stays flat because both directions stream. A job is IN_PROGRESS until its work is done and
at least ``--import-export-seconds`` of clock time has passed since it started (a scaled clock
shortens that, a virtual clock moves it when advanced); then COMPLETED, or FAILED. The table
an import fills is CREATING meanwhile (``transient.Statuses.hold``: DescribeTable shows it,
the data plane answers ResourceNotFoundException), ACTIVE once the import has COMPLETED; a
FAILED import drops it. A record is the job's description in wire form, kept in the
namespace's store (``backup_keys.EXPORT_META_PREFIX`` / ``IMPORT_META_PREFIX``) and saved after
every step, so DescribeImport shows the counters as they grow.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import orjson

from dynemu import errors
from dynemu.engine.exports import history, layout, loader
from dynemu.engine.namespace import ACCOUNT_ID
from dynemu.engine.steps import run_steps
from dynemu.engine.table import Table
from dynemu.storage import backup_keys, keyspace
from dynemu.storage.base import Store, WriteBatch
from dynemu.storage.objects import LocalObjects, Objects, ObjectStoreError, S3Objects

TOKEN_SECONDS = 8 * 3600  # "A client token is valid for 8 hours" (API_ImportTable, ClientToken)
MAX_EXPORTS = 300  # concurrent exports (ServiceQuotas.html)
MAX_IMPORTS = 50  # concurrent import tasks (S3DataImport.Validation)
LOG_GROUP = "/aws-dynamodb/imports"  # where the service logs an import's errors
log = logging.getLogger("dynemu.imports")

_STATUS = {"export": "ExportStatus", "import": "ImportStatus"}
_PREFIX = {"export": backup_keys.EXPORT_META_PREFIX, "import": backup_keys.IMPORT_META_PREFIX}


def utc(t: float) -> str:
    return datetime.fromtimestamp(t, tz=UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def job_arn(table_arn: str, kind: str, now: float) -> str:
    """``<table arn>/export/<epoch ms, 14 digits>-<8 hex>`` (and ``/import/``), the service's form."""
    return f"{table_arn}/{kind}/{int(now * 1000):014d}-{os.urandom(4).hex()}"


# --- records ------------------------------------------------------------------------------------


def save(store: Store, kind: str, record: dict[str, Any]) -> None:
    if "seq" not in record:  # the order of creation, for the lists (one clock tick holds many)
        record["seq"] = sum(1 for _ in all_jobs(store, kind)) + 1
    batch = WriteBatch()
    batch.put(backup_keys.job_key(_PREFIX[kind], record["arn"]), orjson.dumps(record))
    store.write(batch)


def all_jobs(store: Store, kind: str) -> Iterator[dict[str, Any]]:
    start = _PREFIX[kind]
    for _, raw in store.iterate(start, keyspace.prefix_end(start)):
        yield orjson.loads(raw)


def find(store: Store, kind: str, arn: str) -> dict[str, Any]:
    raw = store.get(backup_keys.job_key(_PREFIX[kind], arn))
    if raw is None:
        raise errors.export_not_found(arn) if kind == "export" else errors.import_not_found(arn)
    return orjson.loads(raw)  # type: ignore[no-any-return]


# ARNs of the jobs whose steps run in this process: a record left IN_PROGRESS by a server that
# stopped midway is not among them, and reads FAILED (an import's is settled when its namespace
# opens: recovery.py)
RUNNING: set[str] = set()
INTERRUPTED = ("InternalServerError", "The server stopped before the job ended")  # UNSURE: code and text


def status(record: dict[str, Any], now: float) -> str:
    ends = record.get("ends")
    if ends is None:
        return "IN_PROGRESS" if record["arn"] in RUNNING else "FAILED"
    if now < ends:
        return "IN_PROGRESS"
    return "FAILED" if record["description"].get("FailureCode") else "COMPLETED"


def describe(record: dict[str, Any], now: float, kind: str) -> dict[str, Any]:
    """The description with its status (and EndTime once it ended)."""
    out = dict(record["description"])
    out[_STATUS[kind]] = state = status(record, now)
    if state == "IN_PROGRESS":
        for counted in ("ItemCount", "BilledSizeBytes", "FailureCode", "FailureMessage", "ExportManifest"):
            out.pop(counted, None)
    elif record.get("ends") is None:  # interrupted
        out.update(FailureCode=INTERRUPTED[0], FailureMessage=INTERRUPTED[1])
    else:
        out["EndTime"] = record["ends"]
    return out


def running(store: Store, kind: str, now: float) -> int:
    return sum(1 for r in all_jobs(store, kind) if status(r, now) == "IN_PROGRESS")


def _ended(record: dict[str, Any], now: float) -> float:
    """When a job whose work is done ends: at least ``seconds`` after it started."""
    record["ends"] = max(now, record["started"] + record["seconds"])
    RUNNING.discard(record["arn"])
    return record["ends"]  # type: ignore[no-any-return]


def by_token(store: Store, kind: str, token: str | None, request: dict[str, Any],
             now: float) -> dict[str, Any] | None:
    """The job of an earlier request with this ClientToken within 8 hours; a conflict when
    its parameters differ."""
    if not token:
        return None
    for r in all_jobs(store, kind):
        if r.get("token") == token and now - r["started"] < TOKEN_SECONDS:
            if r.get("request") != request:
                raise errors.export_conflict(token) if kind == "export" else errors.import_conflict()
            return r
    return None


# --- an export ----------------------------------------------------------------------------------


def run_export(db: Any, objects: Objects, table: Table, record: dict[str, Any], *, when: float,
               window: tuple[float, float] | None, view: str, seconds: float) -> dict[str, Any]:
    """Start the export of ``table`` (as of ``when``, or its changes in ``window``) in steps
    (``run_steps``) and keep its record; ``record["description"]`` holds the request's members
    already. The items are read from point-in-time recovery's history as of ``when``, which
    later writes do not change, so the steps may interleave with them."""
    d = record["description"]
    now = db.now()
    fmt = d["ExportFormat"]
    export_id = d["ExportArn"].rpartition("/")[2]
    base = layout.export_base(d.get("S3Prefix"), export_id)
    summary: dict[str, Any] = {
        "version": "2020-06-30" if window is None else "2023-08-01",  # UNSURE: incremental's version
        "exportArn": d["ExportArn"], "startTime": utc(now), "endTime": "",
        "tableArn": table.spec.arn, "tableId": table.spec.uuid, "exportTime": utc(when),
        "s3Bucket": d["S3Bucket"], "s3Prefix": d.get("S3Prefix"), "s3SseAlgorithm": d.get("S3SseAlgorithm", "AES256"),
        "s3SseKmsKeyId": d.get("S3SseKmsKeyId"), "outputFormat": fmt,
    }  # fmt: skip
    if window is None:
        lines = history.full_lines(db.store, table.spec.table_id, when, fmt)
    else:
        summary.update(exportType="INCREMENTAL_EXPORT", outputView=view,
                       exportFromTime=utc(window[0]), exportToTime=utc(window[1]))
        lines = history.change_lines(db.store, table.spec, window[0], window[1], view, fmt)
    written = layout.Written()
    record.update(started=now, ends=None, seconds=seconds)
    RUNNING.add(record["arn"])
    save(db.store, "export", record)

    def done(error: BaseException | None) -> None:
        try:
            if error is None:
                summary["endTime"] = utc(max(db.now(), now + seconds))
                layout.finish_export(objects, d["S3Bucket"], base, written, summary)
                d.update(ExportManifest=written.manifest_key, ItemCount=written.items, BilledSizeBytes=written.size)
        except (ObjectStoreError, OSError) as e:
            error = e
        if isinstance(error, ObjectStoreError | OSError):
            d.update(FailureCode="S3NoSuchBucket" if not objects.bucket_exists(d["S3Bucket"]) else "S3AccessDenied",
                     FailureMessage=str(error))  # UNSURE: the codes the service reports
        elif error is not None:
            log.error("export %s failed", d["ExportArn"], exc_info=error)
            d.update(FailureCode=INTERRUPTED[0], FailureMessage=str(error))
        _ended(record, db.now())
        save(db.store, "export", record)

    run_steps(db, layout.write_data(objects, d["S3Bucket"], base, lines, written, ".ion.gz" if fmt == "ION" else ".json.gz"),
              done)
    return record


# --- an import ----------------------------------------------------------------------------------


def log_group_arn(region: str) -> str:
    return f"arn:aws:logs:{region}:{ACCOUNT_ID}:log-group:{LOG_GROUP}:*"


def object_store(root: str | None, endpoint: str | None, region: str) -> Objects:
    """Where this server keeps S3 objects (``--s3-endpoint``, else the folder ``root``), or
    the error saying how to give it a place."""
    if endpoint:
        key = (endpoint, region)
        if key not in _ENDPOINTS:
            _ENDPOINTS[key] = S3Objects(endpoint, region)
        return _ENDPOINTS[key]
    if root is None:
        raise errors.validation(errors.MSG_NO_S3)  # UNSURE: ValidationException
    return LocalObjects(root)


_ENDPOINTS: dict[tuple[str, str], Objects] = {}


def import_source(objects: Objects, bucket: str, prefix: str, fmt: str, compression: str,
                  csv: dict[str, Any]) -> loader.Source:
    """The data objects under ``s3://bucket/prefix`` (ObjectStoreError: none, or no bucket)."""
    keys = layout.data_keys(objects, bucket, prefix)
    if not keys:
        raise ObjectStoreError(f"no object under s3://{bucket}/{prefix}")
    return loader.Source(keys=keys, opener=lambda k: objects.open(bucket, k), fmt=fmt, compression=compression,
                         delimiter=csv.get("Delimiter") or ",", header=csv.get("HeaderList"))


def run_import(db: Any, objects: Objects, table: Table, record: dict[str, Any], seconds: float) -> dict[str, Any]:
    """Start filling the new ``table`` from the record's S3BucketSource in steps
    (``run_steps``); the counters and status go into ``record``. The table is CREATING until
    the import has COMPLETED. A source that cannot be listed or read fails the import and
    drops the table; so does anything that stops it midway: no half-made table is left."""
    d = record["description"]
    now = db.now()
    src = d["S3BucketSource"]
    record.update(started=now, ends=None, seconds=seconds)
    RUNNING.add(record["arn"])
    db.transient.hold(table.name, "CREATING")
    try:
        source = import_source(objects, src["S3Bucket"], src.get("S3KeyPrefix") or "", d["InputFormat"],
                               d["InputCompressionType"], (d.get("InputFormatOptions") or {}).get("Csv") or {})
    except ObjectStoreError as e:
        d.update(FailureCode="S3NoSuchBucket" if not objects.bucket_exists(src["S3Bucket"]) else "S3NoSuchKey",
                 FailureMessage=errors.msg_bad_source(f"s3://{src['S3Bucket']}", str(e)))  # UNSURE: codes
        _import_ended(db, table, record)
        return record
    counts = loader.Counts()
    stream = d["ImportArn"].rpartition("/")[2] + "/error"

    def logged(e: loader.LineError) -> None:
        if counts.errors <= loader.MAX_LOGGED_ERRORS:
            log.warning("%s %s: %s", LOG_GROUP, stream, e)

    def work() -> Iterator[None]:
        for _ in loader.steps(db, table, source, counts, logged):
            if db.tables.get(table.name) is not table:
                raise RuntimeError("the table was removed during the import")
            _count(d, counts)
            save(db.store, "import", record)  # DescribeImport's counters as they grow
            yield

    def done(error: BaseException | None) -> None:
        _count(d, counts)
        if isinstance(error, errors.DynamoError | RuntimeError):  # the store, or the table gone
            log.error("import %s failed", d["ImportArn"], exc_info=error)
            d.update(FailureCode=INTERRUPTED[0], FailureMessage=str(error))
        elif error is not None:  # a file that cannot be read or decompressed
            d.update(FailureCode="S3NoSuchKey" if isinstance(error, ObjectStoreError) else "InvalidInput",
                     FailureMessage=errors.msg_bad_source(f"s3://{src['S3Bucket']}", str(error)))
        _import_ended(db, table, record)

    save(db.store, "import", record)
    run_steps(db, work(), done)
    return record


def _count(d: dict[str, Any], counts: loader.Counts) -> None:
    d.update(ErrorCount=counts.errors, ProcessedItemCount=counts.processed, ImportedItemCount=counts.imported,
             ProcessedSizeBytes=counts.size)


def _import_ended(db: Any, table: Table, record: dict[str, Any]) -> None:
    """The work is over: a FAILED import drops its table; a COMPLETED one's table is ACTIVE
    once the job ends on the clock."""
    ends = _ended(record, db.now())
    if record["description"].get("FailureCode"):
        db.transient.tables.pop(table.name, None)
        if db.tables.get(table.name) is table:
            db.drop_table(table)
    else:
        db.transient.hold(table.name, "CREATING", ends)
    save(db.store, "import", record)
