"""What RestoreTableFromBackup and RestoreTableToPointInTime share: the restored table's
definition from the source's and the request's overrides (API_RestoreTableFromBackup:
BillingModeOverride, ProvisionedThroughputOverride, OnDemandThroughputOverride,
GlobalSecondaryIndexOverride, LocalSecondaryIndexOverride, SSESpecificationOverride), and the
RestoreSummary / SSEDescription members of the restored table's description.

Index overrides are checked by CreateTable's own rules (``index_specs.parse_create``); an
override naming an index the source did not have is refused ("The indexes provided should
match existing secondary indexes"). An omitted override keeps every index of the source.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dynemu import errors
from dynemu.api.operations import index_specs, tables
from dynemu.api.protocol import Context
from dynemu.engine import backups, ddl
from dynemu.engine.namespace import ACCOUNT_ID
from dynemu.engine.schema import IndexSpec, TableSpec


def _wire_index(s: IndexSpec, mode: str, table_pt: tuple[int, int]) -> dict[str, Any]:
    out = index_specs.index_shape(s)
    if s.is_global and mode == "PROVISIONED":
        tp = s.throughput
        read, write = (tp.read, tp.write) if tp.read or tp.write else table_pt
        out["ProvisionedThroughput"] = {"ReadCapacityUnits": read, "WriteCapacityUnits": write}
    return out


def _chosen(body: dict[str, Any], member: str, source: list[IndexSpec], mode: str,
            table_pt: tuple[int, int]) -> list[dict[str, Any]] | None:
    """The request's override (checked against the source's names) or the source's indexes."""
    names = {s.name for s in source}
    override = body.get(member)
    if override is None:
        chosen = [_wire_index(s, mode, table_pt) for s in source]
    else:
        for d in override:
            if d.get("IndexName") not in names:
                raise errors.validation(errors.msg_index_override_unknown(str(d.get("IndexName"))))
        chosen = list(override)
    return chosen or None


def _billing(body: dict[str, Any], source: TableSpec) -> tuple[str, tuple[int, int]]:
    mode = body.get("BillingModeOverride") or source.billing_mode
    pt = body.get("ProvisionedThroughputOverride")
    if mode == "PAY_PER_REQUEST":
        if pt is not None:
            raise errors.invalid_parameter(errors.MSG_THROUGHPUT_ON_DEMAND)
        return mode, (0, 0)
    if pt is not None:
        read, write = pt["ReadCapacityUnits"], pt["WriteCapacityUnits"]
    elif source.billing_mode == "PROVISIONED":
        read, write = source.throughput.read, source.throughput.write
    else:
        raise errors.invalid_parameter(errors.MSG_THROUGHPUT_REQUIRED)
    ddl.check_throughput_limit(read, write)
    return mode, (read, write)


def _sse(ctx: Context, body: dict[str, Any]) -> dict[str, Any] | None:
    """SSESpecificationOverride as the restored table's SSEDescription (None: owned by
    DynamoDB, which DescribeTable does not report)."""
    sse = body.get("SSESpecificationOverride")
    if not sse or not sse.get("Enabled"):
        return None
    key = sse.get("KMSMasterKeyId") or "alias/aws/dynamodb"
    if not key.startswith("arn:"):
        key = f"arn:aws:kms:{ctx.region}:{ACCOUNT_ID}:key/{key.rpartition('/')[2]}"
    return {"Status": "ENABLED", "SSEType": "KMS", "KMSMasterKeyArn": key}


def restored_spec(ctx: Context, source: TableSpec, body: dict[str, Any]) -> TableSpec:
    """The restored table's TableSpec: the source's keys with the request's overrides."""
    mode, pt = _billing(body, source)
    lsis = _chosen(body, "LocalSecondaryIndexOverride", [s for s in source.indexes if not s.is_global], mode, pt)
    gsis = _chosen(body, "GlobalSecondaryIndexOverride", [s for s in source.indexes if s.is_global], mode, pt)
    wire = {"LocalSecondaryIndexes": lsis, "GlobalSecondaryIndexes": gsis}
    used = set(source.key_names) | {e["AttributeName"] for d in (lsis or []) + (gsis or []) for e in d["KeySchema"]}
    defs = {a.name: a.type for a in source.attribute_definitions if a.name in used}
    range_name = source.range_key.name if source.range_key is not None else None
    specs = index_specs.parse_create(wire, defs, source.hash_key.name, range_name, mode, ctx.region)
    odt = body.get("OnDemandThroughputOverride")
    on_demand = (odt.get("MaxReadRequestUnits", -1), odt.get("MaxWriteRequestUnits", -1)) if odt else None
    return backups.restored_spec(ctx.db, source, body["TargetTableName"], ctx.region, billing_mode=mode,
                                 throughput=pt, index_specs=specs, on_demand=on_demand)


def restore(ctx: Context, spec: TableSpec, items: Iterable[bytes], body: dict[str, Any],
            summary: dict[str, Any]) -> dict[str, Any]:
    """Create and fill the table; the response's TableDescription (CREATING, restore in progress)."""
    record: dict[str, Any] = {"RestoreSummary": summary}
    sse = _sse(ctx, body)
    if sse is not None:
        record["SSEDescription"] = sse
    table = backups.restore(ctx.db, spec, items, record)
    return {"TableDescription": tables.describe(table, "CREATING")}
