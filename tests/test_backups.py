"""On-demand backups over HTTP: CreateBackup, DescribeBackup, ListBackups, DeleteBackup and
RestoreTableFromBackup, with their errors and restore overrides."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.helpers import N, S, assert_error, assert_validation


def _fill(ddb: Any, name: str, n: int = 30) -> None:
    for i in range(n):
        ddb.put_item(TableName=name, Item={"pk": S(f"k{i}"), "sk": N(i), "g": S(f"g{i % 3}"), "v": N(i * 10)})



def _table_with_indexes(ddb: Any, name: str) -> None:
    ddb.create_table(
        TableName=name,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "N"},
            {"AttributeName": "g", "AttributeType": "S"},
            {"AttributeName": "v", "AttributeType": "N"},
        ],
        BillingMode="PAY_PER_REQUEST",
        GlobalSecondaryIndexes=[{
            "IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
            "Projection": {"ProjectionType": "ALL"},
        }],
        LocalSecondaryIndexes=[{
            "IndexName": "by-v",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "v", "KeyType": "RANGE"}],
            "Projection": {"ProjectionType": "KEYS_ONLY"},
        }],
    )


def _names(prefix: str) -> Callable[[str], str]:
    import itertools

    counter = itertools.count()
    return lambda what: f"bk-{prefix}-{what}-{next(counter)}"


name_of = _names("t")


def _drop(ddb: Any, *names: str) -> None:
    for n in names:
        try:
            ddb.delete_table(TableName=n)
        except ddb.exceptions.ResourceNotFoundException:
            pass


def test_create_describe_restore_round_trip(ddb: Any) -> None:
    source, target = name_of("src"), name_of("dst")
    _table_with_indexes(ddb, source)
    try:
        _fill(ddb, source)
        created = ddb.create_backup(TableName=source, BackupName="nightly")["BackupDetails"]
        arn = created["BackupArn"]
        assert arn.startswith(f"arn:aws:dynamodb:us-east-1:000000000000:table/{source}/backup/")
        assert created["BackupStatus"] == "CREATING"
        assert created["BackupType"] == "USER"
        assert created["BackupName"] == "nightly"
        # a write after the backup is not in it: the snapshot was taken in one step
        ddb.put_item(TableName=source, Item={"pk": S("late"), "sk": N(0), "g": S("g0"), "v": N(1)})
        desc = ddb.describe_backup(BackupArn=arn)["BackupDescription"]
        assert desc["BackupDetails"]["BackupStatus"] == "AVAILABLE"
        assert desc["BackupDetails"]["BackupSizeBytes"] > 0
        assert desc["SourceTableDetails"]["TableName"] == source
        assert desc["SourceTableDetails"]["ItemCount"] == 30
        assert desc["SourceTableDetails"]["BillingMode"] == "PAY_PER_REQUEST"
        features = desc["SourceTableFeatureDetails"]
        assert [g["IndexName"] for g in features["GlobalSecondaryIndexes"]] == ["by-g"]
        assert [x["IndexName"] for x in features["LocalSecondaryIndexes"]] == ["by-v"]

        restored = ddb.restore_table_from_backup(TargetTableName=target, BackupArn=arn)["TableDescription"]
        assert restored["TableStatus"] == "CREATING"
        assert restored["RestoreSummary"]["SourceBackupArn"] == arn
        assert restored["RestoreSummary"]["RestoreInProgress"] is True
        table = ddb.describe_table(TableName=target)["Table"]
        assert table["TableStatus"] == "ACTIVE"
        assert table["ItemCount"] == 30
        assert table["RestoreSummary"]["RestoreInProgress"] is False
        assert table["RestoreSummary"]["SourceTableArn"].endswith(f":table/{source}")
        assert "StreamSpecification" not in table
        # items, the GSI and the LSI are rebuilt
        assert ddb.get_item(TableName=target, Key={"pk": S("k7"), "sk": N(7)})["Item"]["v"] == N(70)
        assert "Item" not in ddb.get_item(TableName=target, Key={"pk": S("late"), "sk": N(0)})
        g0 = ddb.query(TableName=target, IndexName="by-g", KeyConditionExpression="g = :g",
                       ExpressionAttributeValues={":g": S("g0")})
        assert g0["Count"] == 10
        lsi = ddb.query(TableName=target, IndexName="by-v", KeyConditionExpression="pk = :p AND v > :v",
                        ExpressionAttributeValues={":p": S("k3"), ":v": N(0)})
        assert lsi["Count"] == 1
    finally:
        _drop(ddb, source, target)


def test_backup_outlives_its_table(ddb: Any) -> None:
    source, target = name_of("src"), name_of("dst")
    _table_with_indexes(ddb, source)
    try:
        _fill(ddb, source, 5)
        arn = ddb.create_backup(TableName=source, BackupName="before-drop")["BackupDetails"]["BackupArn"]
        ddb.delete_table(TableName=source)
        assert ddb.describe_backup(BackupArn=arn)["BackupDescription"]["BackupDetails"]["BackupStatus"] == "AVAILABLE"
        listed = ddb.list_backups(TableName=source)["BackupSummaries"]
        assert [b["BackupArn"] for b in listed] == [arn]
        ddb.restore_table_from_backup(TargetTableName=target, BackupArn=arn)
        assert ddb.scan(TableName=target)["Count"] == 5
    finally:
        _drop(ddb, source, target)


def test_restore_overrides(ddb: Any) -> None:
    source, target = name_of("src"), name_of("dst")
    _table_with_indexes(ddb, source)
    try:
        _fill(ddb, source, 6)
        arn = ddb.create_backup(TableName=source, BackupName="ovr")["BackupDetails"]["BackupArn"]
        ddb.restore_table_from_backup(
            TargetTableName=target, BackupArn=arn, BillingModeOverride="PROVISIONED",
            ProvisionedThroughputOverride={"ReadCapacityUnits": 7, "WriteCapacityUnits": 3},
            GlobalSecondaryIndexOverride=[], LocalSecondaryIndexOverride=[],
            SSESpecificationOverride={"Enabled": True, "SSEType": "KMS", "KMSMasterKeyId": "my-key"},
        )
        t = ddb.describe_table(TableName=target)["Table"]
        assert t["BillingModeSummary"]["BillingMode"] == "PROVISIONED"
        assert t["ProvisionedThroughput"]["ReadCapacityUnits"] == 7
        assert t["ProvisionedThroughput"]["WriteCapacityUnits"] == 3
        assert "GlobalSecondaryIndexes" not in t and "LocalSecondaryIndexes" not in t
        assert sorted(a["AttributeName"] for a in t["AttributeDefinitions"]) == ["pk", "sk"]
        assert t["SSEDescription"] == {
            "Status": "ENABLED", "SSEType": "KMS",
            "KMSMasterKeyArn": "arn:aws:kms:us-east-1:000000000000:key/my-key",
        }
        assert t["ItemCount"] == 6
    finally:
        _drop(ddb, source, target)


def test_restore_errors(ddb: Any, raw: Any, table: str) -> None:
    missing = f"arn:aws:dynamodb:us-east-1:000000000000:table/{table}/backup/01700000000000-0000ffff"
    assert_error("BackupNotFoundException", f"Backup not found: {missing}",
                 ddb.restore_table_from_backup, TargetTableName="x-target", BackupArn=missing)
    assert_error("BackupNotFoundException", f"Backup not found: {missing}", ddb.describe_backup, BackupArn=missing)
    assert_error("BackupNotFoundException", f"Backup not found: {missing}", ddb.delete_backup, BackupArn=missing)
    arn = ddb.create_backup(TableName=table, BackupName="errs")["BackupDetails"]["BackupArn"]
    assert_error("TableAlreadyExistsException", f"Table already exists: {table}",
                 ddb.restore_table_from_backup, TargetTableName=table, BackupArn=arn)
    assert_validation("One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is PAY_PER_REQUEST",
                      ddb.restore_table_from_backup, TargetTableName="x-t2", BackupArn=arn,
                      ProvisionedThroughputOverride={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    assert_validation("Index nope is not an index of the backed up table",
                      ddb.restore_table_from_backup, TargetTableName="x-t3", BackupArn=arn,
                      GlobalSecondaryIndexOverride=[{"IndexName": "nope", "KeySchema": [
                          {"AttributeName": "pk", "KeyType": "HASH"}], "Projection": {"ProjectionType": "ALL"}}])
    assert_error("TableNotFoundException", "Table not found: no-such-table",
                 ddb.create_backup, TableName="no-such-table", BackupName="bk1")
    assert "x-target" not in ddb.list_tables()["TableNames"]
    deleted = ddb.delete_backup(BackupArn=arn)["BackupDescription"]
    assert deleted["BackupDetails"]["BackupStatus"] == "DELETED"
    assert_error("BackupNotFoundException", f"Backup not found: {arn}", ddb.describe_backup, BackupArn=arn)


def test_list_backups_filters_and_paging(ddb: Any, make_table: Callable[..., str]) -> None:
    a, b = make_table(), make_table()
    arns = [ddb.create_backup(TableName=a, BackupName=f"aa{i}")["BackupDetails"]["BackupArn"] for i in range(5)]
    other = ddb.create_backup(TableName=b, BackupName="bb0")["BackupDetails"]["BackupArn"]
    mine = ddb.list_backups(TableName=a)["BackupSummaries"]
    assert [s["BackupArn"] for s in mine] == arns
    assert all(s["TableName"] == a and s["BackupStatus"] == "AVAILABLE" for s in mine)
    page1 = ddb.list_backups(TableName=a, Limit=2)
    assert [s["BackupArn"] for s in page1["BackupSummaries"]] == arns[:2]
    page2 = ddb.list_backups(TableName=a, Limit=2, ExclusiveStartBackupArn=page1["LastEvaluatedBackupArn"])
    assert [s["BackupArn"] for s in page2["BackupSummaries"]] == arns[2:4]
    page3 = ddb.list_backups(TableName=a, Limit=2, ExclusiveStartBackupArn=page2["LastEvaluatedBackupArn"])
    assert [s["BackupArn"] for s in page3["BackupSummaries"]] == arns[4:]
    assert "LastEvaluatedBackupArn" not in page3
    assert ddb.list_backups(TableName=a, BackupType="SYSTEM")["BackupSummaries"] == []
    by_arn = ddb.describe_table(TableName=b)["Table"]["TableArn"]
    assert [s["BackupArn"] for s in ddb.list_backups(TableName=by_arn)["BackupSummaries"]] == [other]
    first = mine[0]["BackupCreationDateTime"]
    later = ddb.list_backups(TableName=a, TimeRangeLowerBound=first)["BackupSummaries"]
    assert len(later) == 5
    assert ddb.list_backups(TableName=a, TimeRangeUpperBound=first)["BackupSummaries"] == []
    for arn in [*arns, other]:
        ddb.delete_backup(BackupArn=arn)
    assert ddb.list_backups(TableName=a)["BackupSummaries"] == []


def test_restores_consume_no_capacity_and_start_with_a_full_burst(ddb: Any) -> None:
    source, target = name_of("src"), name_of("dst")
    ddb.create_table(TableName=source, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                     AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                     ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1})
    try:
        for i in range(60):  # within the burst of a 1 WCU table (300 units)
            ddb.put_item(TableName=source, Item={"pk": S(f"k{i}"), "pad": S("x" * 900)})
        arn = ddb.create_backup(TableName=source, BackupName="small")["BackupDetails"]["BackupArn"]
        # 60 items at 1 WCU: restoring through the table's capacity would take a minute
        ddb.restore_table_from_backup(TargetTableName=target, BackupArn=arn)
        t = ddb.describe_table(TableName=target)["Table"]
        assert t["ItemCount"] == 60 and t["ProvisionedThroughput"]["WriteCapacityUnits"] == 1
        # the restored table starts with its burst: the same writes again are admitted
        for i in range(60):
            ddb.put_item(TableName=target, Item={"pk": S(f"n{i}"), "pad": S("y" * 900)})
        assert ddb.describe_table(TableName=target)["Table"]["ItemCount"] == 120
    finally:
        _drop(ddb, source, target)
