"""Secondary indexes on the wire: LocalSecondaryIndexes / GlobalSecondaryIndexes of
CreateTable, GlobalSecondaryIndexUpdates of UpdateTable (into ``dynemu.engine.ddl``'s
dataclasses, which apply them), the DescribeTable fragments, and ItemCollectionMetrics.

Messages, in the order the service checks them: dynalite's validations/createTable.js
(probed against the service) for the CreateTable rules it has; a 2026 lab of live probes
(ack-api-quirks, dynamodb table-indexes.md: DDB-TABLE-043/123/126/127/128/129/148/152/
159/160/162/164/165/169/174/380) for multi-attribute keys, projections, throughput by
billing mode, GlobalSecondaryIndexUpdates and the index state machine. Where no source
gives a text, the choice is marked UNSURE.
"""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.operations.common import describe_throughput
from dynemu.engine import ddl, indexes
from dynemu.engine.indexes import Index, IndexSpec
from dynemu.engine.schema import KeyAttr, TableSpec
from dynemu.engine.table import Mutation, Table

# --- from the wire ---------------------------------------------------------------------------


def _pairs(ks: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["AttributeName"], e["KeyType"]) for e in ks]


def gsi_definition(d: dict[str, Any]) -> ddl.GsiDefinition:
    """A GlobalSecondaryIndexes element, or the Create of a GlobalSecondaryIndexUpdate."""
    p = d["Projection"]
    pt = d.get("ProvisionedThroughput")
    odt = d.get("OnDemandThroughput") or {}
    return ddl.GsiDefinition(
        d["IndexName"], _pairs(d["KeySchema"]), p.get("ProjectionType"), p.get("NonKeyAttributes"),
        (pt["ReadCapacityUnits"], pt["WriteCapacityUnits"]) if pt is not None else None,
        odt.get("MaxReadRequestUnits"), odt.get("MaxWriteRequestUnits"),
    )  # fmt: skip


def gsi_change(c: dict[str, Any]) -> ddl.GsiChange:
    """The Update of a GlobalSecondaryIndexUpdate."""
    pt = c.get("ProvisionedThroughput")
    odt = c.get("OnDemandThroughput")
    return ddl.GsiChange(
        c["IndexName"],
        (pt["ReadCapacityUnits"], pt["WriteCapacityUnits"]) if pt is not None else None,
        odt is not None, (odt or {}).get("MaxReadRequestUnits"), (odt or {}).get("MaxWriteRequestUnits"),
        c.get("WarmThroughput") is not None,
    )  # fmt: skip


def add_gsi_updates(u: ddl.TableUpdate, body: dict[str, Any]) -> None:
    """GlobalSecondaryIndexUpdates (and the AttributeDefinitions new indexes use) into ``u``."""
    updates = body.get("GlobalSecondaryIndexUpdates")
    u.gsi_updates_given = updates is not None
    u.attribute_definitions = {d["AttributeName"]: d["AttributeType"] for d in body.get("AttributeDefinitions") or ()}
    for x in updates or ():
        if x.get("Create") is not None:
            u.gsi_creates.append(gsi_definition(x["Create"]))
        elif x.get("Delete") is not None:
            u.gsi_deletes.append(x["Delete"]["IndexName"])
        elif x.get("Update") is not None:
            u.gsi_changes[x["Update"]["IndexName"]] = gsi_change(x["Update"])


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
        raise errors.invalid_parameter(errors.msg_unused_definitions(listed, used))
    specs: list[IndexSpec] = []
    names: set[str] = set()
    if lsis is not None:
        specs += _parse_lsis(lsis, defs, listed, hash_name, range_name, names)
    if gsis is not None:
        if not gsis:
            raise errors.invalid_parameter(errors.MSG_GSI_LIST_EMPTY)
        for raw in gsis:
            d = gsi_definition(raw)
            name = d.index_name
            keys = [n for n, _ in d.key_schema]
            ddl.undefined(keys, defs, listed)
            hashes, ranges = ddl.gsi_key_schema(d.key_schema)
            kind, non_key = ddl.projection(d.projection_type, d.non_key_attributes)
            tp = ddl.gsi_throughput(d, mode, region, create_table=True)
            if name in names:
                raise errors.invalid_parameter(errors.msg_duplicate_index(name))
            names.add(name)
            specs.append(IndexSpec(
                name, len(specs) + 1, True,
                tuple(KeyAttr(n, defs[n]) for n in hashes), tuple(KeyAttr(n, defs[n]) for n in ranges),
                kind, non_key, tp, "ACTIVE", d.on_demand_max_read, d.on_demand_max_write,
            ))
        if len(gsis) > indexes.MAX_GSI:
            raise errors.invalid_parameter(errors.msg_gsi_count(indexes.MAX_GSI))
    ddl.check_projected_total(specs)
    return specs


def _parse_lsis(
    lsis: list[dict[str, Any]], defs: dict[str, str], listed: list[str], hash_name: str, range_name: str | None,
    names: set[str],
) -> list[IndexSpec]:
    if not lsis:
        raise errors.invalid_parameter(errors.MSG_LSI_LIST_EMPTY)
    if range_name is None:
        raise errors.invalid_parameter(errors.MSG_LSI_WITHOUT_RANGE_KEY)
    out: list[IndexSpec] = []
    for d in lsis:
        name = d["IndexName"]
        ks = d["KeySchema"]
        keys = [e["AttributeName"] for e in ks]
        ddl.undefined(keys, defs, listed)
        if len(ks) > 1 and keys[0] == keys[1]:
            raise errors.validation(errors.MSG_KEYS_SAME_NAME)
        if ks[0]["KeyType"] != "HASH":
            raise errors.validation(errors.MSG_FIRST_KEY_NOT_HASH)
        if len(ks) > 1 and ks[1]["KeyType"] != "RANGE":
            raise errors.validation(errors.MSG_SECOND_KEY_NOT_RANGE)
        if len(ks) != 2:
            raise errors.invalid_parameter(errors.msg_lsi_without_range_key(name))
        if keys[0] != hash_name:
            raise errors.invalid_parameter(errors.msg_lsi_hash_key(name, keys[0], hash_name))
        kind, non_key = ddl.projection(d["Projection"].get("ProjectionType"), d["Projection"].get("NonKeyAttributes"))
        if name in names:
            raise errors.invalid_parameter(errors.msg_duplicate_index(name))
        names.add(name)
        out.append(IndexSpec(
            name, len(out) + 1, False, (KeyAttr(keys[0], defs[keys[0]]),), (KeyAttr(keys[1], defs[keys[1]]),),
            kind, non_key,
        ))
    if len(lsis) > indexes.MAX_LSI:
        raise errors.invalid_parameter(errors.msg_lsi_count(indexes.MAX_LSI))
    return out


# --- DescribeTable ------------------------------------------------------------------------


def index_shape(s: IndexSpec) -> dict[str, Any]:
    """An index's name, key schema and projection: the part of its description that
    DescribeTable, DescribeBackup and a restore's index list share."""
    projection: dict[str, Any] = {"ProjectionType": s.projection_type}
    if s.projection_type == "INCLUDE":
        projection["NonKeyAttributes"] = sorted(s.non_key_attributes)  # sorted by name (DDB-TABLE-125)
    return {
        "IndexName": s.name,
        "KeySchema": [{"AttributeName": n, "KeyType": k} for n, k, _ in s.key_schema],
        "Projection": projection,
    }


def describe_index(spec: TableSpec, ix: Index, table_status: str = "ACTIVE") -> dict[str, Any]:
    s = ix.spec
    out = index_shape(s)
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
    seen_defs: set[str] = set()
    for d in body.get("AttributeDefinitions") or ():
        # one name with two types is refused as at CreateTable (scylladb/scylladb#13870)
        if d["AttributeName"] in seen_defs:
            raise errors.validation(errors.msg_duplicate_attribute_definition(d["AttributeName"]))
        seen_defs.add(d["AttributeName"])
    updates = body.get("GlobalSecondaryIndexUpdates")
    if not updates:
        return
    seen: set[str] = set()
    for u in updates:
        actions = [a for a in ("Update", "Create", "Delete") if u.get(a) is not None]
        if not actions:
            raise errors.invalid_parameter(errors.MSG_GSI_UPDATE_NO_ACTION)
        if len(actions) > 1:
            raise errors.invalid_parameter(errors.MSG_GSI_UPDATE_ACTIONS)
        name = u[actions[0]]["IndexName"]
        if name in seen:
            raise errors.invalid_parameter(errors.msg_one_update_per_index(name))
        seen.add(name)
        if actions[0] == "Update":
            continue
        if body.get("ProvisionedThroughput") is not None:
            raise errors.validation(errors.MSG_INDEX_WITH_IOPS)
        if actions[0] == "Create":
            if "DeletionProtectionEnabled" in body:
                raise errors.validation(errors.MSG_DELETION_PROTECTION_ALONE)
            if "TableClass" in body:
                raise errors.validation(errors.MSG_TABLE_CLASS_ALONE)
            c = u["Create"]
            ddl.gsi_key_schema(_pairs(c["KeySchema"]))
            ddl.projection(c["Projection"].get("ProjectionType"), c["Projection"].get("NonKeyAttributes"))
            if not body.get("AttributeDefinitions"):
                raise errors.invalid_parameter(errors.msg_index_definitions_missing(name))


def patch_response(description: dict[str, Any], plan: ddl.UpdatePlan) -> None:
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
            d["ProvisionedThroughput"] = describe_throughput(plan.updated[name])
    for _, deleted in plan.deleted:
        gone = describe_index(deleted.table_spec, deleted)  # type: ignore[arg-type]
        gone["IndexStatus"] = "DELETING"
        gone.pop("Backfilling", None)
        gsis.append(gone)
    if gsis:
        description["GlobalSecondaryIndexes"] = gsis


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
