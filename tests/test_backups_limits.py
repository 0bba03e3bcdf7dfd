"""Account limits over HTTP, each set by its flag: tables per account (CreateTable and
restores), backups per account, throughput decreases per day, the TTL change interval, one
GSI change per UpdateTable, DescribeLimits; and the simultaneous-operations rule on the engine."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from dynemu import errors
from dynemu.api.admin.app import NAMESPACES
from dynemu.engine import limits
from dynemu.engine.schema import IndexSpec, KeyAttr, TableSpec
from dynemu.testing import DynemuServer
from tests.conftest import make_client
from tests.helpers import assert_error

KEYS = [{"AttributeName": "pk", "KeyType": "HASH"}]
DEFS = [{"AttributeName": "pk", "AttributeType": "S"}]


@pytest.fixture(scope="module")
def limited() -> Iterator[tuple[Any, Any]]:
    server = DynemuServer(clock="virtual", max_tables=3, max_backups=2, max_throughput_decreases=1,
                          ttl_change_seconds=60)
    url = server.start()
    try:
        yield make_client(url), server.app[NAMESPACES].clock
    finally:
        server.stop()


def _create(ddb: Any, name: str, **extra: Any) -> Any:
    extra.setdefault("BillingMode", "PAY_PER_REQUEST")
    return ddb.create_table(TableName=name, KeySchema=KEYS, AttributeDefinitions=DEFS, **extra)


def test_table_and_backup_limits(limited: tuple[Any, Any]) -> None:
    ddb, _ = limited
    for name in ("lim-a", "lim-b", "lim-c"):
        _create(ddb, name)
    msg = "Subscriber limit exceeded: There is a limit of 3 tables per subscriber"
    assert_error("LimitExceededException", msg, _create, ddb, "lim-d")
    first = ddb.create_backup(TableName="lim-a", BackupName="one")["BackupDetails"]["BackupArn"]
    ddb.create_backup(TableName="lim-a", BackupName="two")
    assert_error("LimitExceededException", "Subscriber limit exceeded: There is a limit of 2 backups per subscriber",
                 ddb.create_backup, TableName="lim-a", BackupName="three")
    # a restore is a new table: refused beyond the limit, and nothing is created
    assert_error("LimitExceededException", msg, ddb.restore_table_from_backup, TargetTableName="lim-r",
                 BackupArn=first)
    assert "lim-r" not in ddb.list_tables()["TableNames"]
    ddb.delete_table(TableName="lim-c")
    ddb.restore_table_from_backup(TargetTableName="lim-r", BackupArn=first)
    got = ddb.describe_limits()
    got.pop("ResponseMetadata")
    assert got == {"AccountMaxReadCapacityUnits": 80000, "AccountMaxWriteCapacityUnits": 80000,
                   "TableMaxReadCapacityUnits": 40000, "TableMaxWriteCapacityUnits": 40000}
    for name in ("lim-a", "lim-b", "lim-r"):
        ddb.delete_table(TableName=name)


def test_decreases_and_ttl_changes_follow_their_flags(limited: tuple[Any, Any]) -> None:
    ddb, clock = limited
    _create(ddb, "lim-p", BillingMode="PROVISIONED",
            ProvisionedThroughput={"ReadCapacityUnits": 10, "WriteCapacityUnits": 10})
    ddb.update_table(TableName="lim-p", ProvisionedThroughput={"ReadCapacityUnits": 9, "WriteCapacityUnits": 10})
    assert_error("LimitExceededException", None, ddb.update_table, TableName="lim-p",
                 ProvisionedThroughput={"ReadCapacityUnits": 8, "WriteCapacityUnits": 10})
    clock.advance(3601)  # then one an hour
    ddb.update_table(TableName="lim-p", ProvisionedThroughput={"ReadCapacityUnits": 8, "WriteCapacityUnits": 10})
    spec = {"Enabled": True, "AttributeName": "exp"}
    ddb.update_time_to_live(TableName="lim-p", TimeToLiveSpecification=spec)
    off = {"Enabled": False, "AttributeName": "exp"}
    assert_error("ValidationException", "Time to live has been modified multiple times within a fixed interval",
                 ddb.update_time_to_live, TableName="lim-p", TimeToLiveSpecification=off)
    clock.advance(61)
    ddb.update_time_to_live(TableName="lim-p", TimeToLiveSpecification=off)
    ddb.delete_table(TableName="lim-p")


def test_one_gsi_change_per_update_is_checked_first(ddb: Any, make_table: Any) -> None:
    name = make_table()
    both = [
        {"Create": {"IndexName": "gsi-1", "KeySchema": [{"AttributeName": "a", "KeyType": "HASH"}],
                    "Projection": {"ProjectionType": "ALL"}}},
        {"Delete": {"IndexName": "no-such-index"}},  # would be "not found": the limit comes first
    ]
    assert_error("LimitExceededException",
                 "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table",
                 ddb.update_table, TableName=name, AttributeDefinitions=[{"AttributeName": "a", "AttributeType": "S"}],
                 GlobalSecondaryIndexUpdates=both)


class _T:
    def __init__(self, status: str) -> None:
        gsi = IndexSpec("g", 1, True, (KeyAttr("a", "S"),), (), "ALL", status=status)
        self.spec = TableSpec("t", 1, "arn", "u", 0.0, KeyAttr("pk", "S"), None, [], indexes=[gsi])


def test_simultaneous_table_operations() -> None:
    cfg = limits.AccountLimits(max_table_operations=2)
    busy, idle = _T("CREATING"), _T("ACTIVE")
    limits.check_table_operation(cfg, [busy, idle])
    limits.check_table_operation(cfg, [busy, busy, idle], busy)  # the table operated on is not counted
    with pytest.raises(errors.DynamoError) as info:
        limits.check_table_operation(cfg, [busy, busy, idle])
    assert info.value.type_name == "LimitExceededException"
    assert info.value.message == (
        "Subscriber limit exceeded: Only 2 tables can be created, updated, or deleted simultaneously")
    with pytest.raises(errors.DynamoError):
        limits.check_new_table(cfg, [busy, busy])


def test_control_plane_rates_when_asked() -> None:
    server = DynemuServer(clock="virtual", control_plane_throttling="on")
    url = server.start()
    try:
        ddb, clock = make_client(url), server.app[NAMESPACES].clock
        for _ in range(5):
            ddb.list_backups()
        assert_error("ThrottlingException", "Rate of requests exceeds the allowed throughput.", ddb.list_backups)
        clock.advance(0.2)  # one call's worth at five a second
        ddb.list_backups()
        ddb.describe_limits()
        assert_error("ThrottlingException", None, ddb.describe_limits)
        clock.advance(60)
        ddb.describe_limits()
    finally:
        server.stop()


def test_control_plane_rates_are_off_by_default(ddb: Any) -> None:
    for _ in range(3):
        ddb.describe_limits()
