"""Tables and waiters: create, describe, list, update, delete and their errors."""

from __future__ import annotations

from typing import Any

from compat.harness import Ctx, scenario
from compat.scenarios._util import pick

FAST = {"Delay": 1, "MaxAttempts": 20}
DESC = ("TableName", "TableStatus", "KeySchema", "AttributeDefinitions", "ItemCount", "TableSizeBytes", "TableArn")


def _desc(c: Ctx, name: str) -> Any:
    return pick(c.call("describe_table", TableName=name).get("Table", {}), *DESC)


def _create(c: Ctx, **kwargs: Any) -> Any:
    """CreateTable: its error, or the new table's name and status."""
    r = c.call("create_table", **kwargs)
    return r if "error" in r else pick(r["TableDescription"], "TableName", "TableStatus")


@scenario("tables")
def create_table_answer(c: Ctx) -> Any:
    """CreateTable's TableDescription: status, keys, counts, ARN."""
    r = c.ddb.create_table(
        TableName=c.name(), BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
    )
    d = r["TableDescription"]
    return {**pick(d, *DESC), "BillingMode": d.get("BillingModeSummary", {}).get("BillingMode")}


@scenario("tables")
def describe_table_fields(c: Ctx) -> Any:
    """Which top-level fields DescribeTable returns for a plain on-demand table."""
    name = c.table()
    return sorted(c.ddb.describe_table(TableName=name)["Table"])


@scenario("tables")
def describe_provisioned_throughput(c: Ctx) -> Any:
    """A provisioned table's ProvisionedThroughput and BillingModeSummary."""
    name = c.table(BillingMode="PROVISIONED", ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 3})
    t = c.ddb.describe_table(TableName=name)["Table"]
    return pick(t, "ProvisionedThroughput", "BillingModeSummary")


@scenario("tables")
def waiter_table_exists(c: Ctx) -> Any:
    """The table_exists waiter, then the table's status."""
    name = c.table()
    c.ddb.get_waiter("table_exists").wait(TableName=name, WaiterConfig=FAST)
    return _desc(c, name)


@scenario("tables")
def waiter_table_not_exists(c: Ctx) -> Any:
    """DeleteTable, the table_not_exists waiter, then DescribeTable's error."""
    name = c.table()
    c.ddb.get_waiter("table_exists").wait(TableName=name, WaiterConfig=FAST)
    deleted = c.ddb.delete_table(TableName=name)["TableDescription"]["TableStatus"]
    c.ddb.get_waiter("table_not_exists").wait(TableName=name, WaiterConfig=FAST)
    return {"deleted": deleted, "describe": c.call("describe_table", TableName=name)}


@scenario("tables")
def list_tables_paging(c: Ctx) -> Any:
    """ListTables with Limit and ExclusiveStartTableName, restricted to this scenario's tables."""
    for suffix in ("a", "b", "c"):
        c.table(suffix)
    first = c.ddb.list_tables(ExclusiveStartTableName=c.name("a"), Limit=1)
    out: dict[str, Any] = {"first": pick(first, "TableNames", "LastEvaluatedTableName")}
    if "LastEvaluatedTableName" in first:
        second = c.ddb.list_tables(ExclusiveStartTableName=first["LastEvaluatedTableName"], Limit=5)
        out["second"] = [t for t in second["TableNames"] if t.startswith(c.name())]
    return out


@scenario("tables")
def create_existing_table(c: Ctx) -> Any:
    """CreateTable of a name that exists."""
    c.table()
    try:
        c.table()
    except Exception as e:  # the ClientError
        from compat.harness import error_answer

        return error_answer(e)  # type: ignore[arg-type]
    return "created twice"


@scenario("tables")
def delete_table_answer(c: Ctx) -> Any:
    """DeleteTable's TableDescription."""
    name = c.table()
    d = c.ddb.delete_table(TableName=name)["TableDescription"]
    return pick(d, *DESC)


@scenario("tables")
def describe_missing_table(c: Ctx) -> Any:
    """DescribeTable of a table that does not exist."""
    return c.call("describe_table", TableName=c.name("missing"))


@scenario("tables")
def delete_missing_table(c: Ctx) -> Any:
    """DeleteTable of a table that does not exist."""
    return c.call("delete_table", TableName=c.name("missing"))


@scenario("tables")
def create_key_not_defined(c: Ctx) -> Any:
    """CreateTable whose key attribute has no AttributeDefinition."""
    return _create(
        c, TableName=c.name(), BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "other", "AttributeType": "S"}],
    )


@scenario("tables")
def create_unused_definition(c: Ctx) -> Any:
    """CreateTable with an AttributeDefinition no key or index uses."""
    return _create(
        c, TableName=c.name(), BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "x", "AttributeType": "S"}],
    )


@scenario("tables")
def create_provisioned_without_throughput(c: Ctx) -> Any:
    """CreateTable with BillingMode PROVISIONED and no ProvisionedThroughput."""
    return _create(
        c, TableName=c.name(), BillingMode="PROVISIONED",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
    )


@scenario("tables")
def update_table_billing_mode(c: Ctx) -> Any:
    """UpdateTable from PROVISIONED to PAY_PER_REQUEST, then DescribeTable."""
    name = c.table(BillingMode="PROVISIONED", ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})
    c.ddb.update_table(TableName=name, BillingMode="PAY_PER_REQUEST")
    t = c.ddb.describe_table(TableName=name)["Table"]
    return {"mode": t.get("BillingModeSummary", {}).get("BillingMode"), "throughput": t.get("ProvisionedThroughput")}


@scenario("tables")
def update_table_throughput(c: Ctx) -> Any:
    """UpdateTable of a provisioned table's throughput, then DescribeTable."""
    name = c.table(BillingMode="PROVISIONED", ProvisionedThroughput={"ReadCapacityUnits": 5, "WriteCapacityUnits": 5})
    c.ddb.update_table(TableName=name, ProvisionedThroughput={"ReadCapacityUnits": 10, "WriteCapacityUnits": 7})
    t = c.ddb.describe_table(TableName=name)["Table"]["ProvisionedThroughput"]
    return pick(t, "ReadCapacityUnits", "WriteCapacityUnits")


@scenario("tables")
def tags_round_trip(c: Ctx) -> Any:
    """TagResource, UntagResource and ListTagsOfResource on a table's ARN."""
    name = c.table()
    arn = c.ddb.describe_table(TableName=name)["Table"]["TableArn"]
    c.ddb.tag_resource(ResourceArn=arn, Tags=[{"Key": "a", "Value": "1"}, {"Key": "b", "Value": "2"}])
    c.ddb.untag_resource(ResourceArn=arn, TagKeys=["a"])
    return c.ddb.list_tags_of_resource(ResourceArn=arn)


@scenario("tables")
def deletion_protection(c: Ctx) -> Any:
    """DeleteTable of a table created with DeletionProtectionEnabled."""
    name = c.table(DeletionProtectionEnabled=True)
    return c.call("delete_table", TableName=name)


@scenario("tables")
def item_count_after_puts(c: Ctx) -> Any:
    """DescribeTable's ItemCount right after three puts (DynamoDB updates it about every six hours)."""
    name = c.table()
    for i in range(3):
        c.ddb.put_item(TableName=name, Item={"pk": {"S": str(i)}})
    return pick(c.ddb.describe_table(TableName=name)["Table"], "ItemCount")


@scenario("tables")
def update_table_add_gsi(c: Ctx) -> Any:
    """UpdateTable adding a GSI to a table with items: the index's status in the answer."""
    name = c.table()
    c.ddb.put_item(TableName=name, Item={"pk": {"S": "k"}, "g": {"S": "x"}})
    r = c.ddb.update_table(
        TableName=name, AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexUpdates=[{"Create": {"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                                 "Projection": {"ProjectionType": "ALL"}}}],
    )
    d = r["TableDescription"]
    return {"table": d["TableStatus"], "indexes": [pick(i, "IndexName", "IndexStatus") for i in d.get("GlobalSecondaryIndexes", [])]}


@scenario("tables")
def create_gsi_without_throughput(c: Ctx) -> Any:
    """A PROVISIONED CreateTable whose GSI has no ProvisionedThroughput."""
    return _create(
        c, TableName=c.name(), BillingMode="PROVISIONED",
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 1},
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
    )


@scenario("tables")
def create_lsi_on_hash_only_table(c: Ctx) -> Any:
    """CreateTable with an LSI on a table that has no sort key."""
    return _create(
        c, TableName=c.name(), BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "l", "AttributeType": "S"}],
        LocalSecondaryIndexes=[{"IndexName": "by-l", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                                                   {"AttributeName": "l", "KeyType": "RANGE"}],
                                "Projection": {"ProjectionType": "ALL"}}],
    )


@scenario("tables")
def list_tables_limit_too_large(c: Ctx) -> Any:
    """ListTables with Limit 101 (sent raw; the maximum is 100)."""
    c.override("ListTables", Limit=101)
    return c.call("list_tables", Limit=1)


@scenario("tables")
def continuous_backups(c: Ctx) -> Any:
    """DescribeContinuousBackups, then UpdateContinuousBackups enabling point-in-time recovery."""
    name = c.table()
    d = c.call("describe_continuous_backups", TableName=name)
    u = c.call("update_continuous_backups", TableName=name,
               PointInTimeRecoverySpecification={"PointInTimeRecoveryEnabled": True})
    status = lambda r: r.get("ContinuousBackupsDescription", {}).get("ContinuousBackupsStatus") if "error" not in r else r  # noqa: E731
    return {"describe": status(d), "update": status(u)}


@scenario("tables")
def on_demand_backup(c: Ctx) -> Any:
    """CreateBackup of a table, then ListBackups for it."""
    name = c.table()
    r = c.call("create_backup", TableName=name, BackupName="backup-1")
    if "error" in r:
        return r
    listed = c.ddb.list_backups(TableName=name)["BackupSummaries"]
    return {"status": r["BackupDetails"]["BackupStatus"], "listed": [b["BackupName"] for b in listed]}


@scenario("tables")
def kinesis_streaming_destination(c: Ctx) -> Any:
    """DescribeKinesisStreamingDestination of a table with none."""
    name = c.table()
    return c.call("describe_kinesis_streaming_destination", TableName=name)
