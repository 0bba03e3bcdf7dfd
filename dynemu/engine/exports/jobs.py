"""Exports and imports as the API shows them: their records, their status on the clock, their
ClientTokens, and the one run of each (API_ExportTableToPointInTime, API_ImportTable).

The work itself happens in the request (the engine never awaits; memory stays flat because
both directions stream), and the job then stays IN_PROGRESS for ``--import-export-seconds``
of clock time before it is COMPLETED (or FAILED): a poller sees the states the service goes
through, a scaled clock shortens them and a virtual clock moves them when it is advanced.
A record is the job's description in wire form, kept in the namespace's store
(``backup_keys.EXPORT_META_PREFIX`` / ``IMPORT_META_PREFIX``).
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


def status(record: dict[str, Any], now: float) -> str:
    if now < record["ends"]:
        return "IN_PROGRESS"
    return "FAILED" if record["description"].get("FailureCode") else "COMPLETED"


def describe(record: dict[str, Any], now: float, kind: str) -> dict[str, Any]:
    """The description with its status (and EndTime once it ended)."""
    out = dict(record["description"])
    out[_STATUS[kind]] = state = status(record, now)
    if state == "IN_PROGRESS":
        for counted in ("ItemCount", "BilledSizeBytes", "FailureCode", "FailureMessage"):
            out.pop(counted, None)
    else:
        out["EndTime"] = record["ends"]
    return out


def running(store: Store, kind: str, now: float) -> int:
    return sum(1 for r in all_jobs(store, kind) if now < r["ends"])


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
    """Write the export of ``table`` (as of ``when``, or its changes in ``window``) and keep
    its record; ``record["description"]`` holds the request's members already."""
    d = record["description"]
    now = db.now()
    fmt = d["ExportFormat"]
    export_id = d["ExportArn"].rpartition("/")[2]
    base = layout.export_base(d.get("S3Prefix"), export_id)
    summary: dict[str, Any] = {
        "version": "2020-06-30" if window is None else "2023-08-01",  # UNSURE: incremental's version
        "exportArn": d["ExportArn"], "startTime": utc(now), "endTime": utc(now + seconds),
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
    suffix = ".ion.gz" if fmt == "ION" else ".json.gz"
    try:
        written = layout.write_export(objects, d["S3Bucket"], base, lines, summary, suffix)
        d.update(ExportManifest=written.manifest_key, ItemCount=written.items, BilledSizeBytes=written.size)
    except (ObjectStoreError, OSError) as e:
        d.update(FailureCode="S3NoSuchBucket" if not objects.bucket_exists(d["S3Bucket"]) else "S3AccessDenied",
                 FailureMessage=str(e))  # UNSURE: the codes the service reports
    record.update(started=now, ends=now + seconds)
    save(db.store, "export", record)
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
    """Fill the new ``table`` from the record's S3BucketSource; the counters and status go into
    ``record``. A source that cannot be listed fails the import and drops the table (nothing
    was imported); so does anything that stops it midway: no half-made table is left."""
    d = record["description"]
    now = db.now()
    src = d["S3BucketSource"]
    record.update(started=now, ends=now + seconds)
    try:
        source = import_source(objects, src["S3Bucket"], src.get("S3KeyPrefix") or "", d["InputFormat"],
                               d["InputCompressionType"], (d.get("InputFormatOptions") or {}).get("Csv") or {})
    except ObjectStoreError as e:
        db.drop_table(table)
        d.update(FailureCode="S3NoSuchBucket" if not objects.bucket_exists(src["S3Bucket"]) else "S3NoSuchKey",
                 FailureMessage=errors.msg_bad_source(f"s3://{src['S3Bucket']}", str(e)))  # UNSURE: codes
        save(db.store, "import", record)
        return record
    try:
        return _fill(db, table, source, record)
    except BaseException:
        db.drop_table(table)
        raise


def _fill(db: Any, table: Table, source: loader.Source, record: dict[str, Any]) -> dict[str, Any]:
    d = record["description"]
    counts = loader.Counts()
    stream = d["ImportArn"].rpartition("/")[2] + "/error"

    def logged(e: loader.LineError) -> None:
        if counts.errors <= loader.MAX_LOGGED_ERRORS:
            log.warning("%s %s: %s", LOG_GROUP, stream, e)

    try:
        loader.load(db, table, source, counts, logged)
    except errors.DynamoError:
        raise
    except Exception as e:  # noqa: BLE001 - a file that cannot be read or decompressed fails the import
        d.update(FailureCode="S3NoSuchKey" if isinstance(e, ObjectStoreError) else "InvalidInput",
                 FailureMessage=errors.msg_bad_source(f"s3://{d['S3BucketSource']['S3Bucket']}", str(e)))
    d.update(ErrorCount=counts.errors, ProcessedItemCount=counts.processed, ImportedItemCount=counts.imported,
             ProcessedSizeBytes=counts.size)
    save(db.store, "import", record)
    return record
