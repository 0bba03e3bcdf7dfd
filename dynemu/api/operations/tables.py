"""CreateTable, DescribeTable, ListTables, DeleteTable, UpdateTable."""

from __future__ import annotations

import copy
from typing import Any

from dynemu import errors
from dynemu.api.operations import index_specs, misc
from dynemu.api.operations.common import describe_throughput
from dynemu.api.protocol import Context
from dynemu.engine import streams, ttl
from dynemu.engine.schema import KeyAttr, TableSpec, Throughput
from dynemu.engine.table import Table

DAY = 86400


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
    out.update(streams.describe_fields(table))  # StreamSpecification, LatestStreamArn/Label
    return out


# --- CreateTable ------------------------------------------------------------------------------------


def _key_schema(body: dict[str, Any]) -> tuple[str, str | None]:
    """The HASH and optional RANGE attribute names of a KeySchema, with DynamoDB's checks."""
    ks = body["KeySchema"]
    if len(ks) == 2 and ks[0]["AttributeName"] == ks[1]["AttributeName"]:
        # reported before the definitions are counted (issue 12)
        raise errors.validation("Both the Hash Key and the Range Key element in the KeySchema have the same name")
    if len(ks) > len(body["AttributeDefinitions"]):
        raise errors.validation("Invalid KeySchema: Some index key attribute have no definition")
    hash_name = range_name = None
    for i, element in enumerate(ks):
        kt = element["KeyType"]
        if i == 0 and kt != "HASH":
            raise errors.validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
        if i == 1 and kt != "RANGE":
            raise errors.validation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
        if i == 0:
            hash_name = element["AttributeName"]
        else:
            range_name = element["AttributeName"]
    if range_name is not None and range_name == hash_name:
        raise errors.validation("Both the Hash Key and the Range Key element in the KeySchema have the same name")
    assert hash_name is not None
    return hash_name, range_name


def _attribute_definitions(body: dict[str, Any], key_names: list[str], exact: bool = True) -> dict[str, str]:
    defs: dict[str, str] = {}
    for d in body["AttributeDefinitions"]:
        name = d["AttributeName"]
        if name in defs:  # the service's words, quoted in scylladb/scylladb#13870
            raise errors.validation(f"Attribute Name is duplicated: {name}")
        defs[name] = d["AttributeType"]
    missing = [k for k in key_names if k not in defs]
    if missing:
        raise errors.invalid_parameter(
            "Some index key attributes are not defined in AttributeDefinitions. "
            f"Keys: [{', '.join(missing)}], AttributeDefinitions: [{', '.join(defs)}]"
        )
    if exact and len(defs) != len(key_names):  # with indexes: index_specs.parse_create
        raise errors.invalid_parameter(
            "Number of attributes in KeySchema does not exactly match number of attributes defined in "
            "AttributeDefinitions"
        )
    return defs


def _billing(body: dict[str, Any]) -> tuple[str, int, int]:
    mode = body.get("BillingMode") or "PROVISIONED"
    pt = body.get("ProvisionedThroughput")
    if mode == "PAY_PER_REQUEST":
        if pt is not None:
            raise errors.invalid_parameter(
                "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is "
                "PAY_PER_REQUEST"
            )
        return mode, 0, 0
    if pt is None:
        raise errors.invalid_parameter(
            "ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is PROVISIONED"
        )
    return mode, pt["ReadCapacityUnits"], pt["WriteCapacityUnits"]


MAX_THROUGHPUT = 1_000_000_000_000  # the service's absolute bound, before any key-schema check


def _check_throughput_bounds(read: int, write: int) -> None:
    for name, value in (("ReadCapacityUnits", read), ("WriteCapacityUnits", write)):
        if value > MAX_THROUGHPUT:
            raise errors.validation(f"Given value {value} for {name} is out of bounds")


def _check_throughput_limit(read: int, write: int) -> None:
    # Default per-table quota: 40,000 read and 40,000 write capacity units
    # (developer guide, "Service, account, and table quotas").
    if read > 40000 or write > 40000:
        which = "ReadCapacityUnits" if read > 40000 else "WriteCapacityUnits"
        value = read if read > 40000 else write
        raise errors.limit_exceeded(
            f"Subscriber limit exceeded: Provisioned throughput for {which} cannot exceed 40000 "
            f"(requested {value})"
        )


def _required_for_new_tables(body: dict[str, Any]) -> None:
    """KeySchema and AttributeDefinitions: optional in the model only because a replica of a
    global table (GlobalTableSourceArn) takes them from its source, which dynemu does not do."""
    if body.get("GlobalTableSourceArn") is not None:
        raise errors.validation("dynemu does not support GlobalTableSourceArn (global table replicas) yet")
    missing = [
        f"Value null at '{label}' failed to satisfy constraint: Member must not be null"
        for member, label in (("AttributeDefinitions", "attributeDefinitions"), ("KeySchema", "keySchema"))
        if body.get(member) is None
    ]
    if missing:
        count = f"{len(missing)} validation error{'s' if len(missing) > 1 else ''} detected"
        raise errors.validation(f"{count}: {'; '.join(missing)}")


def create_table(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    _required_for_new_tables(body)
    # Order of checks as the service reports them: billing, then key schema and definitions.
    mode, read, write = _billing(body)
    _check_throughput_bounds(read, write)
    hash_name, range_name = _key_schema(body)
    key_names = [hash_name] + ([range_name] if range_name else [])
    has_indexes = body.get("LocalSecondaryIndexes") is not None or body.get("GlobalSecondaryIndexes") is not None
    defs = _attribute_definitions(body, key_names, exact=not has_indexes)
    index_defs = index_specs.parse_create(body, defs, hash_name, range_name, mode, ctx.region)
    stream_spec = body.get("StreamSpecification")
    stream_on, stream_view = (
        streams.validate_spec(stream_spec, creating=True) if stream_spec is not None else (False, None)
    )
    _check_throughput_limit(read, write)
    if body.get("Tags"):
        misc.check_tags(body["Tags"])  # the tagging restrictions hold at creation too
    name = body["TableName"]
    if ctx.db.lookup(name) is not None:
        raise errors.resource_in_use(f"Table already exists: {name}")
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
    if stream_on:
        streams.enable(ctx.db, table, stream_view, now)  # type: ignore[arg-type]
    # CreateTable answers CREATING; the table is ACTIVE by the next DescribeTable.
    return {"TableDescription": describe(table, "CREATING")}


# --- DescribeTable, ListTables, DeleteTable ---------------------------------------------------------------


def describe_table(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    return {"Table": describe(ctx.db.get(body["TableName"], control_plane=True))}


def list_tables(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    limit = body.get("Limit") or 100
    start = body.get("ExclusiveStartTableName")
    names = sorted(ctx.db.tables)
    if start is not None:
        names = [n for n in names if n > start]
    page = names[:limit]
    out: dict[str, Any] = {"TableNames": page}
    if len(names) > limit:
        out["LastEvaluatedTableName"] = page[-1]
    return out


DELETE_OMITS = ("AttributeDefinitions", "KeySchema", "CreationDateTime")


def delete_table(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    table = ctx.db.get(body["TableName"], control_plane=True)
    if table.spec.deletion_protection:
        raise errors.validation(
            "Resource cannot be deleted as it is currently protected against deletion. "
            "Disable deletion protection first."
        )
    index_specs.check_deletable(table)
    description = describe(table, "DELETING")
    # DeleteTable's description leaves out what only DescribeTable reports (the service's
    # answer quoted in architect/dynalite#60 and scylladb/scylladb#14132).
    for member in DELETE_OMITS:
        description.pop(member, None)
    # The table's stream stays readable for 24 hours after the table is deleted.
    streams.on_table_deleted(ctx.db, table, ctx.db.now())
    ttl.on_table_deleted(ctx.db, table)
    ctx.db.drop_table(table)
    return {"TableDescription": description}


# --- UpdateTable ----------------------------------------------------------------------------------------


def _update_throughput(tp: Throughput, read: int, write: int, now: float) -> None:
    if read == tp.read and write == tp.write:
        raise errors.validation(
            "The provisioned throughput for the table will not change. The requested value equals the current "
            f"value. Current ReadCapacityUnits provisioned for the table: {tp.read}. Requested ReadCapacityUnits: "
            f"{read}. Current WriteCapacityUnits provisioned for the table: {tp.write}. Requested "
            f"WriteCapacityUnits: {write}. Refer to the Amazon DynamoDB Developer Guide for current limits and how "
            "to request higher limits."
        )
    _check_throughput_limit(read, write)
    tp.change(read, write, now)


def update_table(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    for p in ("ReplicaUpdates", "SSESpecification"):
        if body.get(p):
            raise errors.validation(f"dynemu does not support {p} yet")
    stream = body.get("StreamSpecification")
    if stream is not None:
        streams.validate_spec(stream, creating=False)
    index_specs.check_updates(body)
    table = ctx.db.get(body["TableName"], control_plane=True)
    # Work on a copy so that a request refused half-way changes nothing.
    was_on_demand = table.spec.billing_mode == "PAY_PER_REQUEST"
    spec = copy.deepcopy(table.spec)
    now = ctx.db.now()
    mode = body.get("BillingMode")
    pt = body.get("ProvisionedThroughput")
    changed = False
    if mode is not None and mode != spec.billing_mode:
        if mode == "PAY_PER_REQUEST":
            if pt is not None:
                raise errors.invalid_parameter(
                    "Neither ReadCapacityUnits nor WriteCapacityUnits can be specified when BillingMode is "
                    "PAY_PER_REQUEST"
                )
            # A table may switch to on-demand once per 24 hours (developer guide, "Considerations
            # when switching capacity modes").
            last = spec.billing_mode_updated
            if last is not None and now - last < DAY:
                raise errors.limit_exceeded(
                    "Subscriber limit exceeded: Update to PayPerRequest mode are limited to once in 1 day(s)."
                )
            spec.billing_mode = mode
            spec.billing_mode_explicit = True
            spec.billing_mode_updated = now
            spec.throughput.read = spec.throughput.write = 0
        else:
            if pt is None:
                raise errors.invalid_parameter(
                    "ReadCapacityUnits and WriteCapacityUnits must both be specified when BillingMode is "
                    "PROVISIONED"
                )
            spec.billing_mode = mode
            spec.billing_mode_explicit = True
            _check_throughput_limit(pt["ReadCapacityUnits"], pt["WriteCapacityUnits"])
            spec.throughput.read = pt["ReadCapacityUnits"]
            spec.throughput.write = pt["WriteCapacityUnits"]
        changed = True
    elif pt is not None:
        if spec.billing_mode == "PAY_PER_REQUEST":
            raise errors.validation(
                "One or more parameter values were invalid: Neither ReadCapacityUnits nor WriteCapacityUnits can "
                "be specified when BillingMode is PAY_PER_REQUEST"
            )
        _update_throughput(spec.throughput, pt["ReadCapacityUnits"], pt["WriteCapacityUnits"], now)
        changed = True
    if "DeletionProtectionEnabled" in body:
        spec.deletion_protection = bool(body["DeletionProtectionEnabled"])
        changed = True
    if body.get("WarmThroughput"):
        warm = body["WarmThroughput"]
        spec.warm_read = max(spec.warm_read, warm.get("ReadUnitsPerSecond", 0))
        spec.warm_write = max(spec.warm_write, warm.get("WriteUnitsPerSecond", 0))
        changed = True
    if "TableClass" in body:
        spec.table_class = body["TableClass"]
        changed = True
    if "OnDemandThroughput" in body:
        odt = body["OnDemandThroughput"] or {}
        spec.on_demand_max_read = odt.get("MaxReadRequestUnits", spec.on_demand_max_read)
        spec.on_demand_max_write = odt.get("MaxWriteRequestUnits", spec.on_demand_max_write)
        changed = True
    # GlobalSecondaryIndexUpdates, and what a billing switch does to GSIs (index_specs)
    table_changed = changed
    plan = index_specs.update_indexes(ctx, table, spec, body, now, was_on_demand)
    gsi_updates = body.get("GlobalSecondaryIndexUpdates")
    if gsi_updates:
        changed = True
    elif gsi_updates is not None and changed:
        raise errors.invalid_parameter("List of GlobalSecondaryIndexUpdates is empty")
    if stream is not None:
        # Enabling or disabling the stream is the last check that can refuse the request
        # ("Table already has an enabled stream", "Table has no stream to disable").
        streams.update(ctx.db, table, stream, now)
        changed = True
    if not changed and mode is not None and mode == spec.billing_mode:
        # The billing mode the table already has: a no-op, answered with the table as it is
        # (issue 12, as the service answers).
        return {"TableDescription": describe(table, "ACTIVE")}
    if not changed:
        raise errors.validation(
            "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates "
            "or SSESpecification or ReplicaUpdates is required"
        )
    table.spec = spec
    ctx.db.save_spec(table)
    if plan is None:
        return {"TableDescription": describe(table, "UPDATING")}
    index_specs.apply_updates(ctx, table, plan)
    # GSI throughput updates alone leave the table ACTIVE (lab DDB-TABLE-148)
    description = describe(table, "ACTIVE" if plan.only_updates and not table_changed else "UPDATING")
    index_specs.patch_response(description, plan)
    return {"TableDescription": description}


OPERATIONS = {
    "CreateTable": create_table,
    "DescribeTable": describe_table,
    "ListTables": list_tables,
    "DeleteTable": delete_table,
    "UpdateTable": update_table,
}
