"""Messages of exports and imports (api/operations/exports.py, engine/exports/).

The types are the API reference's (API_ExportTableToPointInTime, API_DescribeExport,
API_ImportTable, API_DescribeImport); where the reference gives only a description, the
description is the message and the entry says UNSURE."""

from __future__ import annotations

from dynemu.errors.base import DynamoError


def export_not_found(arn: str) -> DynamoError:
    # UNSURE: ExportNotFoundException, "The specified export was not found" (API reference);
    # the ARN follows as in BackupNotFoundException's answer
    return DynamoError("ExportNotFoundException", f"Export not found: {arn}")


def import_not_found(arn: str) -> DynamoError:
    # UNSURE: ImportNotFoundException, "The specified import was not found" (API reference)
    return DynamoError("ImportNotFoundException", f"Import not found: {arn}")


def invalid_export_time(asked: str, earliest: str, latest: str) -> DynamoError:
    # UNSURE: InvalidExportTimeException, "The specified ExportTime is outside of the point in
    # time recovery window" (API reference); the times follow
    return DynamoError(
        "InvalidExportTimeException",
        f"The specified ExportTime {asked} is outside of the point in time recovery window [{earliest}, {latest}]",
    )


def export_conflict(token: str) -> DynamoError:
    # UNSURE: the ClientToken's text names ImportConflictException (likely a slip: that type is
    # not among the operation's errors); ExportConflictException, "There was a conflict when
    # writing to the specified S3 bucket", is
    return DynamoError(
        "ExportConflictException",
        f"Client token {token} was already used by an export with different parameters",
    )


def import_conflict() -> DynamoError:
    # ImportConflictException's description in the API reference
    return DynamoError(
        "ImportConflictException",
        "There was a conflict when importing from the specified S3 source. This can occur when the current "
        "import conflicts with a previous import request that had the same client token.",
    )


def too_many_jobs(kind: str, limit: int) -> DynamoError:
    # UNSURE: LimitExceededException; quotas "300 concurrent exports" and "50 concurrent import
    # tasks" (ServiceQuotas.html)
    return DynamoError("LimitExceededException", f"Too many concurrent {kind}s: at most {limit} may run at once")


MSG_NO_S3 = (  # UNSURE: dynemu's own: a server without a place for S3 objects
    "Exports and imports need somewhere to keep S3 objects: start dynemu with --s3-dir DIR "
    "(a local folder, one sub-folder per bucket) or --s3-endpoint URL (an S3-compatible server); "
    "with --in-memory there is no default folder"
)
MSG_INCREMENTAL_SPEC_NEEDED = "IncrementalExportSpecification is required for an INCREMENTAL_EXPORT"  # UNSURE
MSG_INCREMENTAL_FROM_NEEDED = "ExportFromTime is required for an INCREMENTAL_EXPORT"  # UNSURE
MSG_INCREMENTAL_ON_FULL = "IncrementalExportSpecification is only valid for an INCREMENTAL_EXPORT"  # UNSURE
MSG_EXPORT_TIME_ON_INCREMENTAL = "ExportTime is not valid for an INCREMENTAL_EXPORT"  # UNSURE
# UNSURE: "the export period must be at least 15 minutes and at most 24 hours" (S3DataExport.HowItWorks)
MSG_INCREMENTAL_WINDOW = "The incremental export period must be at least 15 minutes and at most 24 hours"
MSG_TABLE_ARN = "TableArn must be the ARN of a table"  # UNSURE


def msg_bad_source(where: str, reason: str) -> str:
    # the import's FailureMessage when its source cannot be read (UNSURE: dynemu's words)
    return f"Unable to read the import source {where}: {reason}"
