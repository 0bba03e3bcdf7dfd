"""On-demand backups, restores, point-in-time recovery and resource policies."""

from __future__ import annotations

import json
from typing import Any

from compat.harness import Ctx, scenario
from compat.scenarios._util import pick


def _filled(c: Ctx, n: int = 3) -> str:
    name = c.table()
    for i in range(n):
        c.ddb.put_item(TableName=name, Item={"pk": {"S": f"k{i}"}, "v": {"N": str(i)}})
    return name


@scenario("backups")
def create_backup_answer(c: Ctx) -> Any:
    """CreateBackup's BackupDetails: name, status, type."""
    name = c.table()
    d = c.ddb.create_backup(TableName=name, BackupName="nightly")["BackupDetails"]
    return pick(d, "BackupName", "BackupStatus", "BackupType")


@scenario("backups")
def describe_backup_details(c: Ctx) -> Any:
    """DescribeBackup: the backup's status and the source table's name and item count."""
    name = _filled(c)
    arn = c.ddb.create_backup(TableName=name, BackupName="b-1")["BackupDetails"]["BackupArn"]
    d = c.ddb.describe_backup(BackupArn=arn)["BackupDescription"]
    return {**pick(d["BackupDetails"], "BackupName", "BackupStatus", "BackupType"),
            **pick(d["SourceTableDetails"], "TableName", "ItemCount")}


@scenario("backups")
def list_backups_of_a_table(c: Ctx) -> Any:
    """ListBackups filtered by table: the names, oldest first."""
    name = c.table()
    for i in range(3):
        c.ddb.create_backup(TableName=name, BackupName=f"bk-{i}")
    return [b["BackupName"] for b in c.ddb.list_backups(TableName=name)["BackupSummaries"]]


@scenario("backups")
def describe_missing_backup(c: Ctx) -> Any:
    """DescribeBackup of an ARN that names no backup."""
    arn = f"arn:aws:dynamodb:us-east-1:123456789012:table/{c.name()}/backup/01700000000000-0000abcd"
    return c.call("describe_backup", BackupArn=arn)


@scenario("backups")
def restore_from_backup(c: Ctx) -> Any:
    """RestoreTableFromBackup: the items come back, and the restored table knows its source."""
    name = _filled(c)
    arn = c.ddb.create_backup(TableName=name, BackupName="b-2")["BackupDetails"]["BackupArn"]
    c.ddb.put_item(TableName=name, Item={"pk": {"S": "after"}})
    target = c.name("restored")
    c.ddb.restore_table_from_backup(TargetTableName=target, BackupArn=arn)
    t = c.ddb.describe_table(TableName=target)["Table"]
    return {"Count": c.ddb.scan(TableName=target)["Count"], "HasRestoreSummary": "RestoreSummary" in t}


@scenario("backups")
def restore_onto_an_existing_table(c: Ctx) -> Any:
    """RestoreTableFromBackup to a table name already in use."""
    name = c.table()
    arn = c.ddb.create_backup(TableName=name, BackupName="b-3")["BackupDetails"]["BackupArn"]
    return c.call("restore_table_from_backup", TargetTableName=name, BackupArn=arn)


@scenario("backups")
def delete_backup_answer(c: Ctx) -> Any:
    """DeleteBackup's BackupStatus, then DescribeBackup's error."""
    name = c.table()
    arn = c.ddb.create_backup(TableName=name, BackupName="b-4")["BackupDetails"]["BackupArn"]
    status = c.ddb.delete_backup(BackupArn=arn)["BackupDescription"]["BackupDetails"]["BackupStatus"]
    return {"status": status, "then": c.call("describe_backup", BackupArn=arn).get("error")}


@scenario("backups")
def restore_to_latest_point_in_time(c: Ctx) -> Any:
    """RestoreTableToPointInTime with UseLatestRestorableTime on a PITR table."""
    name = _filled(c)
    c.ddb.update_continuous_backups(TableName=name, PointInTimeRecoverySpecification={
        "PointInTimeRecoveryEnabled": True})
    target = c.name("pitr")
    r = c.call("restore_table_to_point_in_time", SourceTableName=name, TargetTableName=target,
               UseLatestRestorableTime=True)
    return r if "error" in r else pick(r["TableDescription"], "TableName")


@scenario("backups")
def restore_without_pitr(c: Ctx) -> Any:
    """RestoreTableToPointInTime of a table whose point-in-time recovery is off."""
    name = c.table()
    return c.call("restore_table_to_point_in_time", SourceTableName=name, TargetTableName=c.name("x"),
                  UseLatestRestorableTime=True).get("error")


@scenario("backups")
def resource_policy_round_trip(c: Ctx) -> Any:
    """PutResourcePolicy then GetResourcePolicy: the same document back."""
    name = c.table()
    arn = c.ddb.describe_table(TableName=name)["Table"]["TableArn"]
    doc = json.dumps({"Version": "2012-10-17", "Statement": [
        {"Effect": "Deny", "Principal": "*", "Action": "dynamodb:GetItem", "Resource": arn}]})
    put = c.call("put_resource_policy", ResourceArn=arn, Policy=doc)
    if "error" in put:
        return put
    return {"same": c.ddb.get_resource_policy(ResourceArn=arn)["Policy"] == doc}


@scenario("backups")
def get_missing_resource_policy(c: Ctx) -> Any:
    """GetResourcePolicy of a table without a policy."""
    name = c.table()
    arn = c.ddb.describe_table(TableName=name)["Table"]["TableArn"]
    return c.call("get_resource_policy", ResourceArn=arn).get("error")
