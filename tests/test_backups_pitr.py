"""Point-in-time recovery over HTTP on a virtual clock: UpdateContinuousBackups keeps the
change history, DescribeContinuousBackups reports the window from the server's clock, and
RestoreTableToPointInTime rebuilds the table as it was, also after the table is deleted."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from dynemu.api.admin.app import NAMESPACES
from dynemu.testing import DynemuServer
from tests.conftest import make_client
from tests.helpers import N, S, assert_error, assert_validation

HOUR = 3600.0
DAY = 86400.0
_names = itertools.count()


@pytest.fixture(scope="module")
def virtual() -> Iterator[tuple[Any, Any]]:
    """A private server on a virtual clock with dynemu's defaults: (client, clock)."""
    server = DynemuServer(clock="virtual")
    url = server.start()
    try:
        yield make_client(url), server.app[NAMESPACES].clock
    finally:
        server.stop()


def _table(ddb: Any, pitr_days: int | None = None) -> str:
    name = f"pitr-{next(_names)}"
    ddb.create_table(
        TableName=name, BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
    )
    spec: dict[str, Any] = {"PointInTimeRecoveryEnabled": True}
    if pitr_days is not None:
        spec["RecoveryPeriodInDays"] = pitr_days
    ddb.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification=spec)
    return name


def _window(ddb: Any, name: str) -> tuple[float, float]:
    d = ddb.describe_continuous_backups(TableName=name)["ContinuousBackupsDescription"]
    p = d["PointInTimeRecoveryDescription"]
    return p["EarliestRestorableDateTime"].timestamp(), p["LatestRestorableDateTime"].timestamp()


def _at(t: float) -> datetime:
    return datetime.fromtimestamp(t, tz=UTC)


def test_restore_to_an_earlier_second(virtual: tuple[Any, Any]) -> None:
    ddb, clock = virtual
    name = _table(ddb)
    ddb.put_item(TableName=name, Item={"pk": S("a"), "g": S("x"), "v": N(1)})
    ddb.put_item(TableName=name, Item={"pk": S("b"), "g": S("x"), "v": N(1)})
    clock.advance(10)
    before = clock.now()
    clock.advance(10)
    ddb.put_item(TableName=name, Item={"pk": S("a"), "g": S("y"), "v": N(2)})  # changed after
    ddb.delete_item(TableName=name, Key={"pk": S("b")})  # deleted after
    ddb.put_item(TableName=name, Item={"pk": S("c"), "g": S("x"), "v": N(3)})  # created after
    clock.advance(HOUR)
    earliest, latest = _window(ddb, name)
    assert earliest <= before <= latest
    assert latest == pytest.approx(clock.now() - 300, abs=1)
    target = f"{name}-restored"
    out = ddb.restore_table_to_point_in_time(SourceTableName=name, TargetTableName=target,
                                             RestoreDateTime=_at(int(before)))["TableDescription"]
    assert out["TableStatus"] == "CREATING"
    assert out["RestoreSummary"]["SourceTableArn"].endswith(f":table/{name}")
    assert "SourceBackupArn" not in out["RestoreSummary"]
    assert ddb.get_item(TableName=target, Key={"pk": S("a")})["Item"]["v"] == N(1)
    assert ddb.get_item(TableName=target, Key={"pk": S("b")})["Item"]["v"] == N(1)
    assert "Item" not in ddb.get_item(TableName=target, Key={"pk": S("c")})
    by_g = ddb.query(TableName=target, IndexName="by-g", KeyConditionExpression="g = :g",
                     ExpressionAttributeValues={":g": S("x")})
    assert by_g["Count"] == 2
    assert ddb.describe_table(TableName=target)["Table"]["ItemCount"] == 2
    # the latest restorable time sees every change (they are more than five minutes old)
    latest_target = f"{name}-latest"
    arn = ddb.describe_table(TableName=name)["Table"]["TableArn"]
    ddb.restore_table_to_point_in_time(SourceTableArn=arn, TargetTableName=latest_target,
                                       UseLatestRestorableTime=True)
    items = ddb.scan(TableName=latest_target)["Items"]
    assert sorted((i["pk"]["S"], i["v"]["N"]) for i in items) == [("a", "2"), ("c", "3")]
    # a restored table has no point-in-time recovery of its own
    d = ddb.describe_continuous_backups(TableName=target)["ContinuousBackupsDescription"]
    assert d["PointInTimeRecoveryDescription"]["PointInTimeRecoveryStatus"] == "DISABLED"


def test_history_older_than_the_window_is_dropped(virtual: tuple[Any, Any]) -> None:
    ddb, clock = virtual
    name = _table(ddb, pitr_days=1)
    ddb.put_item(TableName=name, Item={"pk": S("a"), "v": N(1)})
    clock.advance(HOUR)
    first = clock.now()
    ddb.put_item(TableName=name, Item={"pk": S("a"), "v": N(2)})
    clock.advance(DAY)
    ddb.put_item(TableName=name, Item={"pk": S("a"), "v": N(3)})
    clock.advance(HOUR)
    earliest, _ = _window(ddb, name)
    assert earliest == pytest.approx(clock.now() - DAY, abs=1)
    assert earliest > first
    code_msg = ("InvalidRestoreTimeException", None)
    assert_error(*code_msg, ddb.restore_table_to_point_in_time, SourceTableName=name,
                 TargetTableName=f"{name}-old", RestoreDateTime=_at(first))
    # the earliest restorable time still has the state folded into the base
    ddb.restore_table_to_point_in_time(SourceTableName=name, TargetTableName=f"{name}-early",
                                       RestoreDateTime=_at(earliest + 1))
    assert ddb.get_item(TableName=f"{name}-early", Key={"pk": S("a")})["Item"]["v"] == N(2)


def test_a_deleted_table_is_restorable_within_its_window(virtual: tuple[Any, Any]) -> None:
    ddb, clock = virtual
    name = _table(ddb)
    ddb.put_item(TableName=name, Item={"pk": S("kept"), "v": N(1)})
    clock.advance(HOUR)
    ddb.delete_table(TableName=name)
    system = ddb.list_backups(TableName=name, BackupType="SYSTEM")["BackupSummaries"]
    assert len(system) == 1 and system[0]["BackupType"] == "SYSTEM"
    assert system[0]["BackupName"] == f"{name}$DeletedTableBackup"
    assert "BackupExpiryDateTime" in system[0]
    assert_validation("System backups cannot be deleted", ddb.delete_backup, BackupArn=system[0]["BackupArn"])
    clock.advance(HOUR)
    ddb.restore_table_to_point_in_time(SourceTableName=name, TargetTableName=f"{name}-back",
                                       UseLatestRestorableTime=True)
    assert ddb.get_item(TableName=f"{name}-back", Key={"pk": S("kept")})["Item"]["v"] == N(1)
    clock.advance(36 * DAY)  # past the window: the history and the system backup are gone
    assert_error("SourceTableNotFoundException", f"Source table not found: {name}",
                 ddb.restore_table_to_point_in_time, SourceTableName=name, TargetTableName=f"{name}-late",
                 UseLatestRestorableTime=True)
    assert ddb.list_backups(TableName=name, BackupType="ALL")["BackupSummaries"] == []


def test_restore_to_point_in_time_errors(virtual: tuple[Any, Any]) -> None:
    ddb, clock = virtual
    plain = f"pitr-plain-{next(_names)}"
    ddb.create_table(TableName=plain, BillingMode="PAY_PER_REQUEST",
                     KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
    assert_error("PointInTimeRecoveryUnavailableException",
                 f"Point in time recovery is not enabled for table '{plain}'",
                 ddb.restore_table_to_point_in_time, SourceTableName=plain, TargetTableName="pitr-x1",
                 UseLatestRestorableTime=True)
    assert_error("SourceTableNotFoundException", "Source table not found: pitr-none",
                 ddb.restore_table_to_point_in_time, SourceTableName="pitr-none", TargetTableName="pitr-x2",
                 UseLatestRestorableTime=True)
    name = _table(ddb)
    assert_validation("Exactly one of RestoreDateTime and UseLatestRestorableTime must be specified",
                      ddb.restore_table_to_point_in_time, SourceTableName=name, TargetTableName="pitr-x3")
    assert_validation("Exactly one of SourceTableArn and SourceTableName must be specified",
                      ddb.restore_table_to_point_in_time, TargetTableName="pitr-x4",
                      UseLatestRestorableTime=True)
    assert_error("TableAlreadyExistsException", f"Table already exists: {plain}",
                 ddb.restore_table_to_point_in_time, SourceTableName=name, TargetTableName=plain,
                 UseLatestRestorableTime=True)
    assert_error("InvalidRestoreTimeException", None, ddb.restore_table_to_point_in_time,
                 SourceTableName=name, TargetTableName="pitr-x5", RestoreDateTime=_at(clock.now() + HOUR))
    assert "pitr-x5" not in ddb.list_tables()["TableNames"]


def test_disabling_drops_the_history(virtual: tuple[Any, Any]) -> None:
    ddb, clock = virtual
    name = _table(ddb, pitr_days=3)
    d = ddb.describe_continuous_backups(TableName=name)["ContinuousBackupsDescription"]
    assert d["PointInTimeRecoveryDescription"]["RecoveryPeriodInDays"] == 3
    ddb.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": False})
    assert_error("PointInTimeRecoveryUnavailableException", None, ddb.restore_table_to_point_in_time,
                 SourceTableName=name, TargetTableName=f"{name}-x", UseLatestRestorableTime=True)


def test_history_and_backups_survive_a_restart(tmp_path: Any) -> None:
    """On disk, a restarted server keeps logging the changes of a PITR table, and keeps its backups."""
    first = DynemuServer(data_dir=str(tmp_path), clock="virtual")
    ddb = make_client(first.start())
    try:
        name = _table(ddb)
        ddb.put_item(TableName=name, Item={"pk": S("a"), "v": N(1)})
        arn = ddb.create_backup(TableName=name, BackupName="kept")["BackupDetails"]["BackupArn"]
    finally:
        first.stop()
    second = DynemuServer(data_dir=str(tmp_path), clock="virtual")
    url = second.start()
    try:
        ddb, clock = make_client(url), second.app[NAMESPACES].clock
        ddb.put_item(TableName=name, Item={"pk": S("a"), "v": N(2)})
        clock.advance(HOUR)
        ddb.restore_table_to_point_in_time(SourceTableName=name, TargetTableName=f"{name}-now",
                                           UseLatestRestorableTime=True)
        assert ddb.get_item(TableName=f"{name}-now", Key={"pk": S("a")})["Item"]["v"] == N(2)
        ddb.restore_table_from_backup(TargetTableName=f"{name}-backup", BackupArn=arn)
        assert ddb.get_item(TableName=f"{name}-backup", Key={"pk": S("a")})["Item"]["v"] == N(1)
    finally:
        second.stop()
