"""Global tables on the wire: UpdateTable's ReplicaUpdates, GlobalTableWitnessUpdates and
MultiRegionConsistency; the Replicas of DescribeTable; and the 2017.11.29 operations.

UpdateTable, DescribeTable and DeleteTable are ``api/operations/tables.py``'s, wrapped here
(the registry takes these wrappers): a request without global-table members goes through
unchanged, and a global table's description gains GlobalTableVersion, Replicas,
MultiRegionConsistency and GlobalTableWitnesses. The engine side is
``engine/global_tables/membership.py`` (membership, replica creation) and ``engine/global_tables/replication.py``.

The 2017.11.29 (Legacy) operations: the developer guide recommends 2019.11.21 for every new
global table and documents them for legacy tables only, which dynemu never has; so
CreateGlobalTable is refused as the service refuses it where 2017.11.29 is not offered,
ListGlobalTables lists none, and the others find no global table.
"""

from __future__ import annotations

import logging
from typing import Any

from dynemu import errors
from dynemu.api.operations import tables
from dynemu.api.operations import ttl as ttl_ops
from dynemu.api.protocol import Context
from dynemu.engine.global_tables import membership as global_tables
from dynemu.engine.global_tables import rules as global_table_rules
from dynemu.engine.global_tables.membership import ReplicaCreate

log = logging.getLogger("dynemu.api.global_tables")
MEMBERS = ("ReplicaUpdates", "GlobalTableWitnessUpdates", "MultiRegionConsistency")


def _fields(ctx: Context, name: str) -> dict[str, Any]:
    table = ctx.db.lookup(name)
    group = global_tables.group_of(ctx.db, table) if table is not None else None
    if group is None or len(group.replicas) < 2:
        return {}
    return global_tables.describe(ctx.db.replication, group, _region(ctx))


def _region(ctx: Context) -> str:
    link = ctx.db.replicated
    return link.region if link is not None else ctx.region


def _action(a: dict[str, Any]) -> ReplicaCreate:
    return ReplicaCreate(
        region=a["RegionName"],
        table_class=a.get("TableClassOverride"),
        max_read=(a.get("OnDemandThroughputOverride") or {}).get("MaxReadRequestUnits"),
        read_capacity=(a.get("ProvisionedThroughputOverride") or {}).get("ReadCapacityUnits"),
    )


def _check_stream(ctx: Context, body: dict[str, Any]) -> None:
    """A replica's stream cannot be turned off while the table is an MREC global table."""
    stream = body.get("StreamSpecification")
    if stream is None or stream.get("StreamEnabled"):
        return
    table = ctx.db.lookup(body["TableName"])
    group = global_tables.group_of(ctx.db, table) if table is not None else None
    if group is not None and len(group.replicas) > 1 and group.consistency == "EVENTUAL":
        raise errors.invalid_parameter(errors.MSG_STREAM_DISABLE_REPLICA)


# What UpdateTable changes on every replica of a global table when asked of one: its GSIs and
# its capacity mode and throughput (developer guide, "Global tables: how it works"). Each
# replica keeps its own table class, deletion protection, stream and warm throughput.
SHARED_MEMBERS = ("GlobalSecondaryIndexUpdates", "AttributeDefinitions", "BillingMode", "ProvisionedThroughput")


def _propagate(ctx: Context, body: dict[str, Any]) -> None:
    """Apply the shared part of an UpdateTable to the other replicas (a replica that refuses
    it, e.g. a throughput it already has, keeps its own)."""
    shared = {k: body[k] for k in SHARED_MEMBERS if k in body}
    if not shared or not any(k in shared for k in ("GlobalSecondaryIndexUpdates", "BillingMode", "ProvisionedThroughput")):
        return
    table = ctx.db.lookup(body["TableName"])
    group = global_tables.group_of(ctx.db, table) if table is not None else None
    if group is None:
        return
    for region in group.replicas:
        if region == _region(ctx):
            continue
        other = ctx._replace(db=ctx.db.replication.open_namespace(region, group.access_key), region=region)
        try:
            tables.update_table(other, {"TableName": group.name, **shared})
        except errors.DynamoError as e:
            log.info("UpdateTable of %s not applied in %s: %s", group.name, region, e.message)


def update_table(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    _check_stream(ctx, body)
    if not body.get("ReplicaUpdates"):
        # MultiRegionConsistency or witnesses alone change nothing: the request is an ordinary
        # one (and without any other change, refused as one: "At least one of ...")
        if body.get("GlobalSecondaryIndexUpdates") and (t := ctx.db.lookup(body["TableName"])) is not None:
            global_table_rules.check_gsi_update(t, global_tables.group_of(ctx.db, t))  # auto scaled GSIs (aas28)
        out = tables.update_table(ctx, {k: v for k, v in body.items() if k not in MEMBERS})
        _propagate(ctx, body)
        out["TableDescription"].update(_fields(ctx, body["TableName"]))
        return out
    if ctx.settings.shared_db:
        raise errors.validation(errors.MSG_GLOBAL_TABLES_SHARED_DB)
    if any(k not in MEMBERS and k != "TableName" for k in body):
        raise errors.validation(errors.MSG_REPLICA_UPDATES_ALONE)
    table = ctx.db.get(body["TableName"], control_plane=True)
    creates: list[ReplicaCreate] = []
    updates: list[ReplicaCreate] = []
    deletes: list[str] = []
    for u in body.get("ReplicaUpdates") or ():
        if "Create" in u:
            creates.append(_action(u["Create"]))
        elif "Update" in u:
            updates.append(_action(u["Update"]))
        elif "Delete" in u:
            deletes.append(u["Delete"]["RegionName"])
    witnesses = body.get("GlobalTableWitnessUpdates") or ()
    rep = ctx.db.replication
    group, created = global_tables.update(
        rep, ctx.db, table, _region(ctx), ctx.access_key,
        creates=creates, updates=updates, deletes=deletes,
        consistency=body.get("MultiRegionConsistency"),
        witness_creates=[w["Create"]["RegionName"] for w in witnesses if "Create" in w],
        witness_deletes=[w["Delete"]["RegionName"] for w in witnesses if "Delete" in w],
    )  # fmt: skip
    description = tables.describe(table, "UPDATING")
    if len(group.replicas) > 1 or deletes:
        description.update(global_tables.describe(rep, group, _region(ctx), created, deletes))
    global_tables.activate(rep, group, created)  # CREATING in this answer, ACTIVE from now on
    return {"TableDescription": description}


def describe_table(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    out = tables.describe_table(ctx, body)
    out["Table"].update(_fields(ctx, body["TableName"]))
    return out


def delete_table(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    table = ctx.db.lookup(body["TableName"])
    group = global_tables.group_of(ctx.db, table) if table is not None else None
    if group is not None and group.consistency == "STRONG" and len(group.replicas) > 1:
        raise errors.validation(errors.MSG_MRSC_DELETE_ONE)  # the group is dissolved whole, by UpdateTable
    out = tables.delete_table(ctx, body)
    if table is not None and ctx.db.replicated is not None:
        global_tables.on_table_deleted(ctx.db.replication, ctx.db, table.name)
    return out


def update_time_to_live(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    """An MRSC table has no TTL (developer guide, "Multi-Region strong consistency")."""
    table = ctx.db.lookup(body["TableName"])
    group = global_tables.group_of(ctx.db, table) if table is not None else None
    if group is not None and group.consistency == "STRONG" and body["TimeToLiveSpecification"].get("Enabled"):
        raise errors.validation(errors.MSG_MRSC_TTL)
    return ttl_ops.update_time_to_live(ctx, body)


# --- version 2017.11.29 (Legacy) ---------------------------------------------------------------------


def create_global_table(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    raise errors.invalid_parameter(errors.MSG_LEGACY_VERSION)


def list_global_tables(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    return {"GlobalTables": []}


def describe_global_table(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    name = body["GlobalTableName"]
    raise errors.global_table_not_found("Global table not found: " + errors.msg_global_table_not_found(name))


def update_global_table(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    """A Create is refused as CreateGlobalTable is (before the name is looked up); an empty
    ReplicaUpdates is invalid; anything else finds no global table."""
    updates = body.get("ReplicaUpdates") or []
    if any("Create" in u for u in updates):
        raise errors.invalid_parameter(errors.MSG_LEGACY_VERSION)
    if not updates:
        raise errors.validation(errors.MSG_INVALID_PARAMETERS)
    raise errors.global_table_not_found(errors.msg_global_table_not_found(body["GlobalTableName"]))


def no_global_table(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    raise errors.global_table_not_found(errors.msg_global_table_not_found(body["GlobalTableName"]))


OPERATIONS = {
    "UpdateTable": update_table,
    "DescribeTable": describe_table,
    "DeleteTable": delete_table,
    "UpdateTimeToLive": update_time_to_live,
    "CreateGlobalTable": create_global_table,
    "ListGlobalTables": list_global_tables,
    "DescribeGlobalTable": describe_global_table,
    "UpdateGlobalTable": update_global_table,
    "DescribeGlobalTableSettings": no_global_table,
    "UpdateGlobalTableSettings": no_global_table,
}
