"""Secondary indexes on the wire: LocalSecondaryIndexes / GlobalSecondaryIndexes of
CreateTable, GlobalSecondaryIndexUpdates of UpdateTable, the DescribeTable fragments, and
ItemCollectionMetrics.

Messages, in the order the service checks them: dynalite's validations/createTable.js
(probed against the service) for the CreateTable rules it has; a 2026 lab of live probes
(ack-api-quirks, dynamodb table-indexes.md: DDB-TABLE-043/123/126/127/128/129/148/152/
159/160/162/164/165/169/174/380) for multi-attribute keys, projections, throughput by
billing mode, GlobalSecondaryIndexUpdates and the index state machine. Where no source
gives a text, the choice is marked UNSURE.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from dynemu import errors
from dynemu.api.operations.common import describe_throughput
from dynemu.api.protocol import Context
from dynemu.engine import indexes
from dynemu.engine.indexes import Index, IndexSpec
from dynemu.engine.schema import KeyAttr, TableSpec, Throughput
from dynemu.engine.table import Mutation, Table

MAX_CAPACITY = 40000  # default per-table (and per-index) provisioned capacity quota


# --- shared checks ------------------------------------------------------------------------


def _undefined(keys: list[str], defs: dict[str, str], listed: list[str]) -> None:
    if any(k not in defs for k in keys):
        raise errors.invalid_parameter(
            "Some index key attributes are not defined in AttributeDefinitions. "
            f"Keys: [{', '.join(keys)}], AttributeDefinitions: [{', '.join(listed)}]"
        )


def _gsi_key_schema(ks: list[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """(HASH names, RANGE names) of a GSI KeySchema: up to 4 of each, HASH first (lab
    DDB-TABLE-123/124; the 2-element same-name text is dynalite's)."""
    names = [e["AttributeName"] for e in ks]
    if len(names) == 2 and names[0] == names[1] and ks[1]["KeyType"] == "RANGE":
        raise errors.validation("Both the Hash Key and the Range Key element in the KeySchema have the same name")
    if ks[0]["KeyType"] != "HASH":
        raise errors.validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
    if len(set(names)) != len(names):
        raise errors.validation("The KeySchema contains multiple key attributes with the same name")
    hashes: list[str] = []
    ranges: list[str] = []
    for e in ks:
        if e["KeyType"] == "HASH":
            if ranges:
                raise errors.validation("All HASH key attributes must precede RANGE key attributes in the KeySchema")
            hashes.append(e["AttributeName"])
        else:
            ranges.append(e["AttributeName"])
    if len(hashes) > indexes.MAX_KEY_ATTRIBUTES:
        raise errors.validation("The KeySchema exceeds the maximum allowed number of HASH key attributes")
    if len(ranges) > indexes.MAX_KEY_ATTRIBUTES:
        raise errors.validation("The KeySchema exceeds the maximum allowed number of RANGE key attributes")
    return hashes, ranges


def _projection(p: dict[str, Any]) -> tuple[str, tuple[str, ...]]:
    kind = p.get("ProjectionType")
    non_key = p.get("NonKeyAttributes")
    if kind is None:
        raise errors.invalid_parameter("Unknown ProjectionType: null")
    if non_key is not None and kind != "INCLUDE":
        raise errors.invalid_parameter(f"ProjectionType is {kind}, but NonKeyAttributes is specified")
    if kind == "INCLUDE" and non_key is None:
        raise errors.invalid_parameter("ProjectionType is INCLUDE, but NonKeyAttributes is not specified")
    seen: set[str] = set()
    for a in non_key or ():
        if a in seen:
            raise errors.invalid_parameter(f"Duplicate element in NonKeyAttributes: {a}")
        seen.add(a)
    return kind, tuple(non_key or ())


def _gsi_throughput(d: dict[str, Any], mode: str, region: str, *, create_table: bool) -> Throughput:
    name = d["IndexName"]
    pt = d.get("ProvisionedThroughput")
    if mode == "PAY_PER_REQUEST":
        if pt is not None:
            raise errors.invalid_parameter(
                f"ProvisionedThroughput should not be specified for index: {name} when BillingMode is PAY_PER_REQUEST"
            )
        return Throughput()
    if pt is None:
        if create_table:
            raise errors.invalid_parameter(f"ProvisionedThroughput is not specified for index: {name}")
        raise errors.invalid_parameter(f"Both ReadCapacityUnits and WriteCapacityUnits must be specified for index: {name}")
    for which in ("ReadCapacityUnits", "WriteCapacityUnits"):
        if pt[which] > MAX_CAPACITY:  # lab DDB-TABLE-170
            raise errors.limit_exceeded(
                f"The requested {which} for index {name}, {pt[which]}, is above the per index maximum for the "
                f"account in {region}. Per table maximum: {MAX_CAPACITY}. Refer to the Amazon DynamoDB Developer "
                "Guide for current limits and how to request higher limits."
            )
    return Throughput(read=pt["ReadCapacityUnits"], write=pt["WriteCapacityUnits"])


def _check_projected_total(specs: list[IndexSpec]) -> None:
    # "You can project a total of up to 100 attributes into all of a table's local and
    # global secondary indexes" (quotas page). The service's text is unknown: UNSURE.
    if sum(len(s.non_key_attributes) for s in specs) > indexes.MAX_PROJECTED_ATTRIBUTES:
        raise errors.invalid_parameter(
            "The number of projected attributes in all secondary indexes of the table exceeds the per-table limit "
            f"of {indexes.MAX_PROJECTED_ATTRIBUTES}"
        )


def _odt(d: dict[str, Any]) -> tuple[int | None, int | None]:
    odt = d.get("OnDemandThroughput") or {}
    return odt.get("MaxReadRequestUnits"), odt.get("MaxWriteRequestUnits")


# --- CreateTable --------------------------------------------------------------------------


def parse_create(
    body: dict[str, Any], defs: dict[str, str], hash_name: str, range_name: str | None, mode: str, region: str
) -> list[IndexSpec]:
    """The LSIs and GSIs of a CreateTable request, with DynamoDB's checks in its order."""
    lsis = body.get("LocalSecondaryIndexes")
    gsis = body.get("GlobalSecondaryIndexes")
    if lsis is None and gsis is None:
        return []
    listed = list(defs)
    used = list(dict.fromkeys(
        [hash_name] + ([range_name] if range_name else [])
        + [e["AttributeName"] for d in (lsis or []) + (gsis or []) for e in d["KeySchema"]]
    ))
    if any(d not in used for d in defs):  # before every other index rule (lab DDB-TABLE-127)
        raise errors.invalid_parameter(
            f"Some AttributeDefinitions are not used. AttributeDefinitions: [{', '.join(listed)}], "
            f"keys used: [{', '.join(used)}]"
        )
    specs: list[IndexSpec] = []
    names: set[str] = set()
    if lsis is not None:
        specs += _parse_lsis(lsis, defs, listed, hash_name, range_name, names)
    if gsis is not None:
        if not gsis:
            raise errors.invalid_parameter("List of GlobalSecondaryIndexes is empty")
        for d in gsis:
            name = d["IndexName"]
            keys = [e["AttributeName"] for e in d["KeySchema"]]
            _undefined(keys, defs, listed)
            hashes, ranges = _gsi_key_schema(d["KeySchema"])
            kind, non_key = _projection(d["Projection"])
            tp = _gsi_throughput(d, mode, region, create_table=True)
            if name in names:
                raise errors.invalid_parameter(f"Duplicate index name: {name}")
            names.add(name)
            odr, odw = _odt(d)
            specs.append(IndexSpec(
                name, len(specs) + 1, True,
                tuple(KeyAttr(n, defs[n]) for n in hashes), tuple(KeyAttr(n, defs[n]) for n in ranges),
                kind, non_key, tp, "ACTIVE", odr, odw,
            ))
        if len(gsis) > indexes.MAX_GSI:
            raise errors.invalid_parameter(
                f"GlobalSecondaryIndex count exceeds the per-table limit of {indexes.MAX_GSI}"
            )
    _check_projected_total(specs)
    return specs


def _parse_lsis(
    lsis: list[dict[str, Any]], defs: dict[str, str], listed: list[str], hash_name: str, range_name: str | None,
    names: set[str],
) -> list[IndexSpec]:
    if not lsis:
        raise errors.invalid_parameter("List of LocalSecondaryIndexes is empty")
    if range_name is None:
        raise errors.invalid_parameter(
            "Table KeySchema does not have a range key, which is required when specifying a LocalSecondaryIndex"
        )
    out: list[IndexSpec] = []
    for d in lsis:
        name = d["IndexName"]
        ks = d["KeySchema"]
        keys = [e["AttributeName"] for e in ks]
        _undefined(keys, defs, listed)
        if len(ks) > 1 and keys[0] == keys[1]:
            raise errors.validation("Both the Hash Key and the Range Key element in the KeySchema have the same name")
        if ks[0]["KeyType"] != "HASH":
            raise errors.validation("Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
        if len(ks) > 1 and ks[1]["KeyType"] != "RANGE":
            raise errors.validation("Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
        if len(ks) != 2:
            raise errors.invalid_parameter(f"Index KeySchema does not have a range key for index: {name}")
        if keys[0] != hash_name:
            raise errors.invalid_parameter(
                f"Index KeySchema does not have the same leading hash key as table KeySchema for index: {name}. "
                f"index hash key: {keys[0]}, table hash key: {hash_name}"
            )
        kind, non_key = _projection(d["Projection"])
        if name in names:
            raise errors.invalid_parameter(f"Duplicate index name: {name}")
        names.add(name)
        out.append(IndexSpec(
            name, len(out) + 1, False, (KeyAttr(keys[0], defs[keys[0]]),), (KeyAttr(keys[1], defs[keys[1]]),),
            kind, non_key,
        ))
    if len(lsis) > indexes.MAX_LSI:
        raise errors.invalid_parameter(
            f"Number of LocalSecondaryIndexes exceeds per-table limit of {indexes.MAX_LSI}"
        )
    return out


# --- DescribeTable ------------------------------------------------------------------------




def describe_index(spec: TableSpec, ix: Index, table_status: str = "ACTIVE") -> dict[str, Any]:
    s = ix.spec
    projection: dict[str, Any] = {"ProjectionType": s.projection_type}
    if s.projection_type == "INCLUDE":
        projection["NonKeyAttributes"] = sorted(s.non_key_attributes)  # sorted by name (DDB-TABLE-125)
    out: dict[str, Any] = {
        "IndexName": s.name,
        "KeySchema": [{"AttributeName": n, "KeyType": k} for n, k, _ in s.key_schema],
        "Projection": projection,
    }
    if s.is_global:
        creating = table_status == "CREATING" or s.status == "CREATING"
        # a table being deleted takes its indexes with it (DeleteTable's response)
        out["IndexStatus"] = "DELETING" if table_status == "DELETING" else "CREATING" if creating else s.status
        if s.status == "CREATING" and table_status != "CREATING":
            out["Backfilling"] = True  # only for GSIs added by UpdateTable (DDB-TABLE-138)
        out["ProvisionedThroughput"] = describe_throughput(s.throughput)
    out["IndexSizeBytes"] = ix.size_bytes
    out["ItemCount"] = ix.item_count
    out["IndexArn"] = f"{spec.arn}/index/{s.name}"
    if s.is_global:
        if s.on_demand_max_read is not None or s.on_demand_max_write is not None:
            out["OnDemandThroughput"] = {
                "MaxReadRequestUnits": s.on_demand_max_read if s.on_demand_max_read is not None else -1,
                "MaxWriteRequestUnits": s.on_demand_max_write if s.on_demand_max_write is not None else -1,
            }
        on_demand = spec.billing_mode == "PAY_PER_REQUEST"
        # on-demand indexes report 12000/4000, provisioned ones their capacity (DDB-TABLE-134)
        out["WarmThroughput"] = {
            "ReadUnitsPerSecond": 12000 if on_demand else s.throughput.read,
            "WriteUnitsPerSecond": 4000 if on_demand else s.throughput.write,
            "Status": "ACTIVE",
        }
    return out


def describe_indexes(table: Table, table_status: str = "ACTIVE") -> dict[str, Any]:
    """The LocalSecondaryIndexes / GlobalSecondaryIndexes members of a TableDescription."""
    lsis: list[dict[str, Any]] = []
    gsis: list[dict[str, Any]] = []
    for ix in indexes.all_indexes(table):
        (gsis if ix.is_global else lsis).append(describe_index(table.spec, ix, table_status))
    out: dict[str, Any] = {}
    if lsis:
        out["LocalSecondaryIndexes"] = lsis
    if gsis:
        out["GlobalSecondaryIndexes"] = gsis
    return out


# --- UpdateTable: GlobalSecondaryIndexUpdates ------------------------------------------------


def check_updates(body: dict[str, Any]) -> None:
    """The checks of GlobalSecondaryIndexUpdates that need no table (DDB-TABLE-160/174)."""
    updates = body.get("GlobalSecondaryIndexUpdates")
    if not updates:
        return
    seen: set[str] = set()
    for u in updates:
        actions = [a for a in ("Update", "Create", "Delete") if u.get(a) is not None]
        if not actions:
            raise errors.invalid_parameter(
                "One of GlobalSecondaryIndexUpdate.Update, GlobalSecondaryIndexUpdate.Create, "
                "GlobalSecondaryIndexUpdate.Delete must not be null"
            )
        if len(actions) > 1:
            raise errors.invalid_parameter(
                "Only one global secondary index action is allowed per GlobalSecondaryIndexUpdate object"
            )
        name = u[actions[0]]["IndexName"]
        if name in seen:
            raise errors.invalid_parameter(
                f"Only one global secondary index update per index is allowed simultaneously. Index: {name}"
            )
        seen.add(name)
        if actions[0] == "Update":
            continue
        if body.get("ProvisionedThroughput") is not None:
            raise errors.validation("You cannot create or delete index while updating table IOPS")
        if actions[0] == "Create":
            if "DeletionProtectionEnabled" in body:
                raise errors.validation("DeletionProtection modification must be the only operation in the request")
            if "TableClass" in body:
                raise errors.validation("TableClass modification must be the only operation in the request")
            c = u["Create"]
            _gsi_key_schema(c["KeySchema"])
            _projection(c["Projection"])
            if not body.get("AttributeDefinitions"):
                raise errors.invalid_parameter(f"AttributeDefinitions is not specified for index: {name}")


@dataclass
class UpdatePlan:
    """What UpdateTable does to the indexes, applied by ``apply_updates`` once the new spec
    is saved; ``only_updates``: nothing but GSI throughput changes (TableStatus stays ACTIVE)."""

    created: list[str] = field(default_factory=list)
    deleted: list[tuple[Index, dict[str, Any]]] = field(default_factory=list)
    updated: dict[str, dict[str, Any]] = field(default_factory=dict)  # name -> throughput before

    @property
    def only_updates(self) -> bool:
        return not self.created and not self.deleted


def _not_found(name: str, table: str) -> errors.DynamoError:
    # "Requested resource not found: Index gsi1 for table T" (lab DDB-TABLE-375/380)
    return errors.resource_not_found(f"Requested resource not found: Index {name} for table {table}")


def update_indexes(
    ctx: Context, table: Table, spec: TableSpec, body: dict[str, Any], now: float, was_on_demand: bool
) -> UpdatePlan | None:
    """Apply GlobalSecondaryIndexUpdates (and a billing switch's effect on GSIs) to the
    copy ``spec``; None when the request does not touch the indexes."""
    updates = body.get("GlobalSecondaryIndexUpdates") or []
    gsis = {s.name: s for s in spec.indexes if s.is_global}
    on_demand = spec.billing_mode == "PAY_PER_REQUEST"
    switched = was_on_demand != on_demand
    if not updates and not (switched and gsis):
        return None
    plan = UpdatePlan()
    creates = [u["Create"] for u in updates if u.get("Create") is not None]
    deletes = [u["Delete"]["IndexName"] for u in updates if u.get("Delete") is not None]
    changes = {u["Update"]["IndexName"]: u["Update"] for u in updates if u.get("Update") is not None}
    for name in [*deletes, *changes]:
        if name not in gsis:
            raise _not_found(name, table.name)
    # a CREATING index may itself be deleted (once backfilling: DDB-TABLE-149)
    busy = any(s.status != "ACTIVE" and s.name not in deletes for s in gsis.values())
    if len(creates) + len(deletes) > 1 or ((creates or deletes) and busy):
        raise errors.limit_exceeded(
            "Subscriber limit exceeded: Only 1 online index can be created or deleted simultaneously per table"
        )
    if switched and not on_demand:
        missing = [n for n in gsis if (changes.get(n) or {}).get("ProvisionedThroughput") is None]
        if missing:  # the service's text (crossplane-contrib/provider-upjet-aws#1041)
            raise errors.invalid_parameter(f"ProvisionedThroughput must be specified for index: {','.join(missing)}")
    for name, change in changes.items():
        _update_gsi(gsis[name], change, on_demand, switched, now, plan)
    if switched and on_demand:
        for s in gsis.values():
            s.throughput.read = s.throughput.write = 0
    for c in creates:
        _create_gsi(ctx, table, spec, c, body, plan)
    for name in deletes:
        ix = indexes.find(table, name)
        assert ix is not None
        gone = describe_index(table.spec, ix)
        gone["IndexStatus"] = "DELETING"
        gone.pop("Backfilling", None)
        plan.deleted.append((ix, gone))
        spec.indexes = [s for s in spec.indexes if s.name != name]
    if plan.deleted:
        _prune_definitions(spec)
    return plan


def _update_gsi(s: IndexSpec, change: dict[str, Any], on_demand: bool, switched: bool, now: float,
                plan: UpdatePlan) -> None:
    pt = change.get("ProvisionedThroughput")
    odt = change.get("OnDemandThroughput")
    if on_demand and (pt is not None or (odt is None and change.get("WarmThroughput") is None)):
        raise errors.invalid_parameter(
            f"The only Updates for index: {s.name} when TableThroughputMode is PAY_PER_REQUEST can be to "
            "OnDemandThroughput, WarmThroughput"
        )
    plan.updated[s.name] = describe_throughput(s.throughput)
    if pt is not None:
        tp = s.throughput
        read, write = pt["ReadCapacityUnits"], pt["WriteCapacityUnits"]
        if not switched and read == tp.read and write == tp.write:  # lab DDB-TABLE-164
            raise errors.validation(
                f"The provisioned throughput for the index {s.name} will not change. The requested value equals the "
                f"current value. Current ReadCapacityUnits provisioned for index {s.name}: {tp.read}. Requested "
                f"ReadCapacityUnits: {read}. Current WriteCapacityUnits provisioned for index {s.name}: {tp.write}. "
                f"Requested WriteCapacityUnits: {write}. Refer to the Amazon DynamoDB Developer Guide for current "
                "limits and how to request higher limits."
            )
        if switched:
            tp.read, tp.write = read, write
        else:
            tp.change(read, write, now)
    if odt is not None:
        s.on_demand_max_read = odt.get("MaxReadRequestUnits", s.on_demand_max_read)
        s.on_demand_max_write = odt.get("MaxWriteRequestUnits", s.on_demand_max_write)


def _create_gsi(ctx: Context, table: Table, spec: TableSpec, c: dict[str, Any], body: dict[str, Any],
                plan: UpdatePlan) -> None:
    name = c["IndexName"]
    if any(s.name == name for s in spec.indexes):
        raise errors.invalid_parameter(f"Duplicate index name: {name}")  # UNSURE: no capture found
    if sum(1 for s in spec.indexes if s.is_global) >= indexes.MAX_GSI:  # lab DDB-TABLE-169
        raise errors.limit_exceeded(
            f"Subscriber limit exceeded: Number of global secondary indexes exceeds per-table limit of {indexes.MAX_GSI}"
        )
    requested = {d["AttributeName"]: d["AttributeType"] for d in body.get("AttributeDefinitions") or ()}
    # an attribute already defined keeps its type (paritysuite/dynamodb-conformance#78)
    defs = {**requested, **{a.name: a.type for a in spec.attribute_definitions}}
    keys = [e["AttributeName"] for e in c["KeySchema"]]
    _undefined(keys, defs, list(requested))
    hashes, ranges = _gsi_key_schema(c["KeySchema"])
    kind, non_key = _projection(c["Projection"])
    tp = _gsi_throughput(c, spec.billing_mode, ctx.region, create_table=False)
    odr, odw = _odt(c)
    s = IndexSpec(
        name, indexes.next_index_id(table), True,
        tuple(KeyAttr(n, defs[n]) for n in hashes), tuple(KeyAttr(n, defs[n]) for n in ranges),
        kind, non_key, tp, "CREATING", odr, odw,
    )
    spec.indexes.append(s)
    _check_projected_total(spec.indexes)
    known = {a.name for a in spec.attribute_definitions}
    for n in keys:
        if n not in known:
            spec.attribute_definitions.append(KeyAttr(n, defs[n]))
            known.add(n)
    plan.created.append(name)


def _prune_definitions(spec: TableSpec) -> None:
    """A deleted GSI's key attributes leave AttributeDefinitions when no key uses them any
    more (lab DDB-TABLE-151)."""
    used = set(spec.key_names)
    for s in spec.indexes:
        used.update(a.name for a in s.hash_keys + s.range_keys)
    spec.attribute_definitions = [a for a in spec.attribute_definitions if a.name in used]


def apply_updates(ctx: Context, table: Table, plan: UpdatePlan) -> None:
    """After the new spec is saved: follow it, drop deleted indexes, start backfills."""
    indexes.sync(table)
    for ix, _ in plan.deleted:
        ix.cursor = None  # stops a backfill still running
        indexes.clear(table, ix)
    for name in plan.created:
        ix = indexes.find(table, name)
        assert ix is not None
        _start_backfill(ctx, table, ix)


def patch_response(description: dict[str, Any], plan: UpdatePlan) -> None:
    """The UpdateTable response: a new index CREATING with Backfilling false (resource
    allocation), an updated one UPDATING with its former throughput, a deleted one
    DELETING (lab DDB-TABLE-148/165)."""
    gsis = description.get("GlobalSecondaryIndexes") or []
    for d in gsis:
        name = d["IndexName"]
        if name in plan.created:
            d["IndexStatus"] = "CREATING"
            d["Backfilling"] = False
        elif name in plan.updated:
            d["IndexStatus"] = "UPDATING"
            d["ProvisionedThroughput"] = plan.updated[name]
    gsis += [gone for _, gone in plan.deleted]
    if gsis:
        description["GlobalSecondaryIndexes"] = gsis


def _start_backfill(ctx: Context, table: Table, ix: Index) -> None:
    """Backfill in steps on the event loop, so that the index is CREATING (Backfilling)
    while the table is indexed and requests keep flowing; without a loop, at once."""
    job = indexes.Backfill(table, ix)
    db = ctx.db

    def step() -> None:
        if db.tables.get(table.name) is not table or indexes.find(table, ix.name) is not ix:
            ix.cursor = None  # the table or the index went away
            return
        if job.step():
            db.save_spec(table)
        else:
            loop.call_soon(step)

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        job.run()
        db.save_spec(table)
        return
    loop.call_soon(step)


def check_deletable(table: Table) -> None:
    """DeleteTable is refused while an index is being created (lab DDB-TABLE-150)."""
    if any(ix.spec.status != "ACTIVE" for ix in indexes.all_indexes(table)):
        raise errors.resource_in_use(
            "Attempt to change a resource which is still in use: Cannot delete table while indexes are being "
            "created, updated, or deleted."
        )


# --- ItemCollectionMetrics --------------------------------------------------------------------


def item_collection_metrics(body: dict[str, Any], table: Table, m: Mutation) -> dict[str, Any] | None:
    """ItemCollectionMetrics of a write with ReturnItemCollectionMetrics SIZE, on a table
    with an LSI (API_ItemCollectionMetrics: "not returned" otherwise)."""
    if body.get("ReturnItemCollectionMetrics") != "SIZE":
        return None
    found = indexes.item_collection(table, m)
    if found is None:
        return None
    key, size = found
    return {"ItemCollectionKey": key, "SizeEstimateRangeGB": indexes.size_estimate_gb(size)}
