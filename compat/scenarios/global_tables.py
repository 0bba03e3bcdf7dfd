"""Global tables (version 2019.11.21) as one region sees them: ReplicaUpdates and the
2017.11.29 operations. Registered under "tables"."""

from __future__ import annotations

from typing import Any

from compat.harness import Ctx, scenario
from compat.scenarios._util import item, pick


def _replicas(d: dict[str, Any]) -> Any:
    return [pick(r, "RegionName", "ReplicaStatus") for r in d.get("Replicas", [])]


@scenario("tables")
def global_add_replica(c: Ctx) -> Any:
    """UpdateTable ReplicaUpdates Create: the answer's replicas and stream, then DescribeTable's."""
    name = c.table()
    r = c.call("update_table", TableName=name, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
    if "error" in r:
        return r
    d = c.ddb.describe_table(TableName=name)["Table"]
    return {
        "update": {"replicas": _replicas(r["TableDescription"]), **pick(r["TableDescription"], "StreamSpecification")},
        "describe": {"replicas": _replicas(d), **pick(d, "GlobalTableVersion", "StreamSpecification")},
    }


@scenario("tables")
def global_replica_in_own_region(c: Ctx) -> Any:
    """A replica in the table's own region."""
    name = c.table()
    r = c.call("update_table", TableName=name, ReplicaUpdates=[{"Create": {"RegionName": "us-east-1"}}])
    return r if "error" in r else pick(r["TableDescription"], "TableStatus", "Replicas")


@scenario("tables")
def global_remove_replica(c: Ctx) -> Any:
    """ReplicaUpdates Delete: the table is regional again."""
    name = c.table()
    c.ddb.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
    c.put(name, item("a", v="1"))
    c.ddb.update_table(TableName=name, ReplicaUpdates=[{"Delete": {"RegionName": "eu-west-1"}}])
    d = c.ddb.describe_table(TableName=name)["Table"]
    return {"replicas": _replicas(d), "items": d["ItemCount"]}


@scenario("tables")
def global_disable_stream_of_replica(c: Ctx) -> Any:
    """Turning off the stream of a table that has a replica."""
    name = c.table()
    c.ddb.update_table(TableName=name, ReplicaUpdates=[{"Create": {"RegionName": "eu-west-1"}}])
    r = c.call("update_table", TableName=name, StreamSpecification={"StreamEnabled": False})
    return r if "error" in r else pick(r["TableDescription"], "TableStatus", "StreamSpecification")


@scenario("tables")
def global_legacy_operations(c: Ctx) -> Any:
    """The 2017.11.29 operations on a current-version account."""
    name = c.table()
    return {
        "list": c.call("list_global_tables"),
        "describe": c.call("describe_global_table", GlobalTableName=name),
    }
