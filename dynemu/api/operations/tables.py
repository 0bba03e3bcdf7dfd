"""CreateTable, DescribeTable, DeleteTable, UpdateTable (ListTables: list_tables.py)."""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.operations import index_specs, misc, policies, restore_fields, vector_specs
from dynemu.api.operations.common import describe_throughput
from dynemu.api.protocol import Context
from dynemu.engine import ddl, limits, streams, ttl
from dynemu.engine.schema import KeyAttr, TableSpec, Throughput
from dynemu.engine.table import Table
from dynemu.engine.vectors import define as vector_ddl

# --- wire form of a table -------------------------------------------------------------------------


def describe(table: Table, status: str = "ACTIVE") -> dict[str, Any]:
    spec = table.spec
    key_schema = [{"AttributeName": spec.hash_key.name, "KeyType": "HASH"}]
    if spec.range_key is not None:
        key_schema.append({"AttributeName": spec.range_key.name, "KeyType": "RANGE"})
    throughput = describe_throughput(spec.throughput)
    billing: dict[str, Any] = {"BillingMode": spec.billing_mode}
    if spec.billing_mode_updated is not None:
        billing["LastUpdateToPayPerRequestDateTime"] = spec.billing_mode_updated
    out: dict[str, Any] = {
        "AttributeDefinitions": [
            {"AttributeName": a.name, "AttributeType": a.type} for a in spec.attribute_definitions
        ],
        "TableName": spec.name,
        "KeySchema": key_schema,
        "TableStatus": status,
        "CreationDateTime": spec.created,
        "ProvisionedThroughput": throughput,
        "TableSizeBytes": table.size_bytes,
        "ItemCount": table.item_count,
        "TableArn": spec.arn,
        "TableId": spec.uuid,
        "DeletionProtectionEnabled": spec.deletion_protection,
    }
    # Absent for a table created without BillingMode that never changed mode.
    if spec.billing_mode_explicit:
        out["BillingModeSummary"] = billing
    if spec.billing_mode == "PAY_PER_REQUEST":
        out["OnDemandThroughput"] = {
            "MaxReadRequestUnits": spec.on_demand_max_read,
            "MaxWriteRequestUnits": spec.on_demand_max_write,
        }
    if spec.table_class != "STANDARD":
        out["TableClassSummary"] = {"TableClass": spec.table_class}
    # What the table's partitions sustain now (warm-throughput.html).
    reads, writes = table.capacity.state.warm_throughput()
    out["WarmThroughput"] = {"ReadUnitsPerSecond": reads, "WriteUnitsPerSecond": writes, "Status": "ACTIVE"}
    out.update(index_specs.describe_indexes(table, status))  # LocalSecondaryIndexes, GlobalSecondaryIndexes
    out.update(vector_specs.describe(table))  # VectorIndexes
    out.update(stream_fields(table))  # StreamSpecification, LatestStreamArn/Label
    out.update(restore_fields.describe_fields(table, status))  # RestoreSummary of a restored table
    return out


def stream_fields(table: Table) -> dict[str, Any]:
    """DescribeTable's StreamSpecification (only while enabled), LatestStreamArn and
    LatestStreamLabel (kept after a disable); empty for a table never streamed."""
    ts = streams.of_table(table)
    if ts is None or ts.latest is None:
        return {}
    out: dict[str, Any] = {}
    if ts.active is not None:
        out["StreamSpecification"] = {"StreamEnabled": True, "StreamViewType": ts.active.view_type}
    out["LatestStreamArn"], out["LatestStreamLabel"] = ts.latest
    return out


# --- CreateTable ------------------------------------------------------------------------------------


def _key_schema(body: dict[str, Any]) -> tuple[str, str | None]:
    """The HASH and optional RANGE attribute names of a KeySchema, with DynamoDB's checks."""
    ks = body["KeySchema"]
    # The definitions are counted first: one attribute as both HASH and RANGE with one
    # definition is "Some index key attribute have no definition" (issue 24, item 17).
    if len(ks) > len(body["AttributeDefinitions"]):
        raise errors.validation(errors.MSG_KEY_WITHOUT_DEFINITION)
    if len(ks) == 2 and ks[0]["AttributeName"] == ks[1]["AttributeName"]:
        raise errors.validation(errors.MSG_KEYS_SAME_NAME)
    hash_name = range_name = None
    for i, element in enumerate(ks):
        kt = element["KeyType"]
        if i == 0 and kt != "HASH":
            raise errors.validation(errors.MSG_FIRST_KEY_NOT_HASH)
        if i == 1 and kt != "RANGE":
            raise errors.validation(errors.MSG_SECOND_KEY_NOT_RANGE)
        if i == 0:
            hash_name = element["AttributeName"]
        else:
            range_name = element["AttributeName"]
    if range_name is not None and range_name == hash_name:
        raise errors.validation(errors.MSG_KEYS_SAME_NAME)
    assert hash_name is not None
    return hash_name, range_name


def _attribute_definitions(body: dict[str, Any], key_names: list[str], exact: bool = True) -> dict[str, str]:
    defs: dict[str, str] = {}
    for d in body["AttributeDefinitions"]:
        name = d["AttributeName"]
        if name in defs:  # the service's words, quoted in scylladb/scylladb#13870
            raise errors.validation(errors.msg_duplicate_attribute_definition(name))
        defs[name] = d["AttributeType"]
    missing = [k for k in key_names if k not in defs]
    if missing:
        raise errors.invalid_parameter(errors.msg_keys_not_defined(missing, list(defs)))
    if exact and len(defs) != len(key_names):  # with indexes: index_specs.parse_create
        raise errors.invalid_parameter(errors.MSG_DEFINITIONS_COUNT)
    return defs


def _billing(body: dict[str, Any]) -> tuple[str, int, int]:
    mode = body.get("BillingMode") or "PROVISIONED"
    pt = body.get("ProvisionedThroughput")
    if mode == "PAY_PER_REQUEST":
        if pt is not None:
            raise errors.invalid_parameter(errors.MSG_THROUGHPUT_ON_DEMAND)
        return mode, 0, 0
    if pt is None:
        raise errors.invalid_parameter(errors.MSG_THROUGHPUT_REQUIRED)
    return mode, pt["ReadCapacityUnits"], pt["WriteCapacityUnits"]


MAX_THROUGHPUT = 1_000_000_000_000  # the service's absolute bound, before any key-schema check


def _check_throughput_bounds(read: int, write: int) -> None:
    for name, value in (("ReadCapacityUnits", read), ("WriteCapacityUnits", write)):
        if value > MAX_THROUGHPUT:
            raise errors.validation(errors.msg_throughput_out_of_bounds(value, name))


def _required_for_new_tables(body: dict[str, Any]) -> None:
    """KeySchema and AttributeDefinitions: optional in the model only because a replica of a
    global table (GlobalTableSourceArn) takes them from its source, which dynemu does not do."""
    if body.get("GlobalTableSourceArn") is not None:
        raise errors.validation(errors.MSG_NO_GLOBAL_TABLES)
    missing = [
        errors.msg_constraint(None, label, errors.MSG_NOT_NULL)
        for member, label in (("AttributeDefinitions", "attributeDefinitions"), ("KeySchema", "keySchema"))
        if body.get(member) is None
    ]
    if missing:
        raise errors.validation(errors.msg_validation_errors(missing))


def create_table(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    # CreateTable answers CREATING; the table is ACTIVE by the next DescribeTable.
    return {"TableDescription": describe(create(ctx, body), "CREATING")}


def create(ctx: Context, body: dict[str, Any]) -> Table:
    """CreateTable's checks and its new table: also ImportTable's TableCreationParameters and
    the tables of ``--init`` (api/operations/exports.py, dynemu/seeding.py)."""
    _required_for_new_tables(body)
    # Order of checks as the service reports them: billing, then key schema and definitions.
    mode, read, write = _billing(body)
    _check_throughput_bounds(read, write)
    hash_name, range_name = _key_schema(body)
    key_names = [hash_name] + ([range_name] if range_name else [])
    has_indexes = body.get("LocalSecondaryIndexes") is not None or body.get("GlobalSecondaryIndexes") is not None
    has_indexes = has_indexes or body.get("VectorIndexes") is not None
    defs = _attribute_definitions(body, key_names, exact=not has_indexes)
    key_defs = vector_specs.definitions_for_keys(body, defs, key_names)
    index_defs = index_specs.parse_create(body, key_defs, hash_name, range_name, mode, ctx.region)
    vector_defs = vector_specs.parse_create(body, defs, key_names, mode, {s.name for s in index_defs})
    stream_spec = body.get("StreamSpecification")
    stream_on, stream_view = (
        streams.validate_spec(stream_spec, creating=True) if stream_spec is not None else (False, None)
    )
    ddl.check_throughput_limit(read, write)
    if body.get("Tags"):
        misc.check_tag_count(body["Tags"])
        misc.check_tags(body["Tags"])  # the tagging restrictions hold at creation too
    policy = policies.check_create(body)  # ResourcePolicy (engine/resource_policies.py)
    name = body["TableName"]
    if ctx.db.transient.status(name) == "DELETING":  # --transient-delays (engine/transient.py)
        raise errors.resource_in_use(errors.msg_table_busy("deleted", name))
    if ctx.db.lookup(name) is not None:
        raise errors.resource_in_use(errors.msg_table_exists(name))
    table_id, arn, uuid = ctx.db.new_spec_ids(name, ctx.region)
    now = ctx.db.now()
    odt = body.get("OnDemandThroughput") or {}
    spec = TableSpec(
        name=name,
        table_id=table_id,
        arn=arn,
        uuid=uuid,
        created=now,
        hash_key=KeyAttr(hash_name, defs[hash_name]),
        range_key=KeyAttr(range_name, defs[range_name]) if range_name else None,
        attribute_definitions=[KeyAttr(n, t) for n, t in defs.items()],
        billing_mode=mode,
        throughput=Throughput(read=read, write=write),
        billing_mode_updated=now if mode == "PAY_PER_REQUEST" else None,
        billing_mode_explicit="BillingMode" in body,
        deletion_protection=bool(body.get("DeletionProtectionEnabled", False)),
        tags={t["Key"]: t["Value"] for t in body.get("Tags") or ()},
        table_class=body.get("TableClass") or "STANDARD",
        on_demand_max_read=odt.get("MaxReadRequestUnits", -1),
        on_demand_max_write=odt.get("MaxWriteRequestUnits", -1),
        warm_read=(body.get("WarmThroughput") or {}).get("ReadUnitsPerSecond", 0),
        warm_write=(body.get("WarmThroughput") or {}).get("WriteUnitsPerSecond", 0),
        indexes=index_defs,
    )
    table = ctx.db.add_table(spec)
    ctx.db.transient.begin(name, "CREATING")  # under --transient-delays: CREATING a while
    policies.attach_at_create(ctx, table, policy)
    vector_ddl.create_table_indexes(table, vector_defs)
    if stream_on:
        streams.enable(ctx.db.streams, table, stream_view, now)  # type: ignore[arg-type]
    return table


# --- DescribeTable, ListTables, DeleteTable ---------------------------------------------------------------


def describe_table(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    table = ctx.db.get(body["TableName"], control_plane=True)
    out = describe(table, ctx.db.transient.status(table.spec.name) or "ACTIVE")
    for gsi in out.get("GlobalSecondaryIndexes", ()):  # a new GSI held CREATING (engine/transient.py)
        if ctx.db.transient.index_status(table.spec.name, gsi["IndexName"]) == "CREATING":
            gsi["IndexStatus"], gsi["Backfilling"] = "CREATING", True
    return {"Table": out}


DELETE_OMITS = ("AttributeDefinitions", "KeySchema", "CreationDateTime", "GlobalSecondaryIndexes",
                "LocalSecondaryIndexes")


def delete_table(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    table = ctx.db.get(body["TableName"], control_plane=True)
    status = ctx.db.transient.status(table.spec.name)
    if status == "DELETING":  # "If table is already in the DELETING state, no error is returned."
        return {"TableDescription": _deleting(table)}
    ctx.db.transient.check_changeable(table.spec.name)
    if table.spec.deletion_protection:
        raise errors.validation(errors.MSG_DELETION_PROTECTED)
    ddl.check_deletable(table)
    limits.check_table_operation(ctx.db.limits, ctx.db.tables.values(), table)
    restore_fields.on_table_deleted(ctx.db, table)  # PITR history and system backup (engine/pitr.py)
    description = _deleting(table)
    # The table's stream stays readable for 24 hours after the table is deleted.
    streams.on_table_deleted(ctx.db.streams, table, ctx.db.now())
    ttl.on_table_deleted(table)
    if ctx.db.transient.enabled:  # DELETING a while, then dropped (engine/transient.py)
        ctx.db.transient.begin(table.spec.name, "DELETING")
    else:
        ctx.db.drop_table(table)
    return {"TableDescription": description}


def _deleting(table: Table) -> dict[str, Any]:
    """DeleteTable's description, which leaves out what only DescribeTable reports: the key
    schema, the definitions and the indexes (the service's answer quoted in
    architect/dynalite#60 and scylladb/scylladb#14132; issue 24, item 11)."""
    description = describe(table, "DELETING")
    for member in DELETE_OMITS:
        description.pop(member, None)
    return description


# --- UpdateTable ----------------------------------------------------------------------------------------


def _table_update(body: dict[str, Any]) -> ddl.TableUpdate:
    """UpdateTable's parameters as the engine's TableUpdate (dynemu.engine.ddl)."""
    pt = body.get("ProvisionedThroughput")
    warm = body.get("WarmThroughput")
    odt = body.get("OnDemandThroughput") or {}
    u = ddl.TableUpdate(
        billing_mode=body.get("BillingMode"),
        provisioned=(pt["ReadCapacityUnits"], pt["WriteCapacityUnits"]) if pt is not None else None,
        deletion_protection=bool(body["DeletionProtectionEnabled"]) if "DeletionProtectionEnabled" in body else None,
        warm_given=bool(warm),
        warm_read=(warm or {}).get("ReadUnitsPerSecond", 0),
        warm_write=(warm or {}).get("WriteUnitsPerSecond", 0),
        table_class=body["TableClass"] if "TableClass" in body else None,
        on_demand_given="OnDemandThroughput" in body,
        on_demand_max_read=odt.get("MaxReadRequestUnits"),
        on_demand_max_write=odt.get("MaxWriteRequestUnits"),
        stream=body.get("StreamSpecification"),
    )
    index_specs.add_gsi_updates(u, body)
    vector_specs.add_updates(u, body)
    return u


def update_table(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    for p in ("ReplicaUpdates", "SSESpecification"):
        if body.get(p):
            raise errors.validation(errors.msg_not_supported(p))
    stream = body.get("StreamSpecification")
    if stream is not None:
        streams.validate_spec(stream, creating=False)
    index_specs.check_updates(body)
    table = ctx.db.get(body["TableName"], control_plane=True)
    ctx.db.transient.check_changeable(table.spec.name)
    limits.check_table_operation(ctx.db.limits, ctx.db.tables.values(), table)
    vectors_deleted = vector_specs.deleting(table, body)  # described before they go
    plan, table_changed = ddl.update_table(ctx.db, table, _table_update(body), ctx.region)
    if plan is None and not table_changed and body.get("StreamSpecification") is None:
        return {"TableDescription": describe(table, "ACTIVE")}  # a no-op: the table as it is
    # GSI throughput updates alone leave the table ACTIVE (lab DDB-TABLE-148)
    only_updates = plan is not None and plan.only_updates and not table_changed
    description = describe(table, "ACTIVE" if only_updates else "UPDATING")
    if not only_updates:  # under --transient-delays: UPDATING a while, an index's change longer
        ctx.db.transient.begin(table.spec.name, "UPDATING")
    if plan is not None:
        for name in plan.created:
            ctx.db.transient.begin_index(table.spec.name, name, "CREATING")
        for ix, _ in plan.deleted:
            ctx.db.transient.begin_index(table.spec.name, ix.spec.name, "DELETING")
        index_specs.patch_response(description, plan)
    vector_specs.patch_response(description, vectors_deleted)
    return {"TableDescription": description}


OPERATIONS = {
    "CreateTable": create_table,
    "DescribeTable": describe_table,
    "DeleteTable": delete_table,
    "UpdateTable": update_table,
}
