"""Messages of on-demand backups, restores and point-in-time recovery
(api/operations/backups.py, engine/backups.py, engine/pitr.py).

Sourced where the service's text is public; the others are marked UNSURE (the report of
issue 27 lists them)."""

from __future__ import annotations

from dynemu.errors.base import DynamoError
from dynemu.errors.tables import msg_table_exists


def backup_not_found(arn: str) -> DynamoError:
    # "BackupNotFoundException: Backup not found: arn:aws:dynamodb:...:table/t/backup/0168...-aa93528e"
    # (the service's answer quoted in turbot/steampipe-plugin-aws#1913)
    return DynamoError("BackupNotFoundException", f"Backup not found: {arn}")


def table_already_exists(name: str) -> DynamoError:
    # UNSURE: the words of CreateTable's ResourceInUseException, under the restore's type
    return DynamoError("TableAlreadyExistsException", msg_table_exists(name))


def source_table_not_found(name: str) -> DynamoError:
    # UNSURE: SourceTableNotFoundException, "A source table with the name TableName does not
    # currently exist within the subscriber's account" (API reference)
    return DynamoError("SourceTableNotFoundException", f"Source table not found: {name}")


def pitr_unavailable(name: str) -> DynamoError:
    # UNSURE: PointInTimeRecoveryUnavailableException, "Point in time recovery has not yet
    # been enabled for this source table" (API reference)
    return DynamoError(
        "PointInTimeRecoveryUnavailableException", f"Point in time recovery is not enabled for table '{name}'"
    )


def invalid_restore_time(earliest: str, latest: str, asked: str) -> DynamoError:
    # UNSURE: InvalidRestoreTimeException, "An invalid restore time was specified.
    # RestoreDateTime must be between EarliestRestorableDateTime and LatestRestorableDateTime"
    # (API reference); the times follow
    return DynamoError(
        "InvalidRestoreTimeException",
        f"Restore time {asked} is not within the restorable window [{earliest}, {latest}]",
    )


MSG_RESTORE_TIME_CHOICE = "Exactly one of RestoreDateTime and UseLatestRestorableTime must be specified"  # UNSURE
MSG_RESTORE_SOURCE_CHOICE = "Exactly one of SourceTableArn and SourceTableName must be specified"  # UNSURE
MSG_DELETE_SYSTEM_BACKUP = "System backups cannot be deleted"  # UNSURE


def msg_index_override_unknown(name: str) -> str:
    # UNSURE: "The indexes provided should match existing secondary indexes" (API reference)
    return f"Index {name} is not an index of the backed up table"


# backups (api/operations/backups.py)
def msg_backup_table_not_found(name: str) -> str:
    return f"Table not found: {name}"
