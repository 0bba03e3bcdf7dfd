"""Wire form of vector indexes: CreateTable's VectorIndexes, UpdateTable's
VectorIndexUpdates, and DescribeTable's VectorIndexDescription (API reference:
``VectorIndex``, ``CreateVectorIndexAction``, ``VectorIndexDescription``)."""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.engine import ddl, vectors
from dynemu.engine.table import Table
from dynemu.engine.vectors import define
from dynemu.engine.vectors.spec import VectorIndexSpec


def definition(raw: dict[str, Any]) -> define.VectorIndexDefinition:
    """A VectorIndex (or CreateVectorIndexAction); the projection rules are GSIs'."""
    projection = raw.get("Projection") or {}
    kind, non_key = ddl.projection(projection.get("ProjectionType"), projection.get("NonKeyAttributes"))
    return define.VectorIndexDefinition(
        name=raw["IndexName"],
        attribute=raw["VectorAttribute"]["AttributeName"],
        dimensions=raw["Dimensions"],
        distance=raw["DistanceFunction"],
        projection_type=kind,
        non_key=non_key,
        search_schema=[(e["AttributeName"], e["SearchSchemaElementType"]) for e in raw.get("SearchSchema") or ()],
    )


def search_attributes(body: dict[str, Any]) -> set[str]:
    """Attributes CreateTable's VectorIndexes name in their search schemas."""
    return {e["AttributeName"] for v in body.get("VectorIndexes") or () for e in v.get("SearchSchema") or ()}


def definitions_for_keys(body: dict[str, Any], defs: dict[str, str], key_names: list[str]) -> dict[str, str]:
    """``defs`` without the attributes only search schemas use (for the key and index
    checks of CreateTable, which refuse definitions no key uses)."""
    only_search = search_attributes(body) - set(key_names) - {
        e["AttributeName"]
        for ix in (body.get("LocalSecondaryIndexes") or []) + (body.get("GlobalSecondaryIndexes") or [])
        for e in ix.get("KeySchema") or ()
    }
    return {k: v for k, v in defs.items() if k not in only_search}


def parse_create(
    body: dict[str, Any], defs: dict[str, str], key_names: list[str], mode: str, other_names: set[str]
) -> list[VectorIndexSpec]:
    """The vector indexes of a CreateTable request, checked."""
    raw = body.get("VectorIndexes")
    if raw is None:
        return []
    if not (body.get("LocalSecondaryIndexes") or body.get("GlobalSecondaryIndexes")):
        used = list(dict.fromkeys(key_names + [n for n in defs if n in search_attributes(body)]))
        if any(d not in used for d in defs):
            raise errors.invalid_parameter(errors.msg_unused_definitions(list(defs), used))
    return define.create_table_specs([definition(v) for v in raw], defs, mode, other_names)


def add_updates(u: ddl.TableUpdate, body: dict[str, Any]) -> None:
    """VectorIndexUpdates into ``u``."""
    for x in body.get("VectorIndexUpdates") or ():
        if x.get("Create") is not None:
            u.vector_creates.append(definition(x["Create"]))
        elif x.get("Delete") is not None:
            u.vector_deletes.append(x["Delete"]["IndexName"])


def describe(table: Table) -> dict[str, Any]:
    """DescribeTable's VectorIndexes (absent for a table without one)."""
    out = []
    for vix in vectors.all_indexes(table):
        s = vix.spec
        projection: dict[str, Any] = {"ProjectionType": s.projection_type}
        if s.non_key:
            projection["NonKeyAttributes"] = list(s.non_key)
        d: dict[str, Any] = {
            "IndexName": s.name,
            "VectorAttribute": {"AttributeName": s.attribute},
            "Dimensions": s.dimensions,
            "DistanceFunction": s.distance,
            "Projection": projection,
            "IndexStatus": s.status,
            "IndexSizeBytes": vix.size_bytes,
            "ItemCount": vix.item_count,
            "IndexArn": s.arn,
        }
        if s.search_schema:
            d["SearchSchema"] = [{"AttributeName": n, "SearchSchemaElementType": k} for n, k, _ in s.search_schema]
        if s.backfilling:  # reported only while the index is being backfilled
            d["Backfilling"] = True
        out.append(d)
    return {"VectorIndexes": out} if out else {}


def deleting(table: Table, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The vector indexes an UpdateTable deletes, described as they are before it, DELETING
    (VectorIndexDescription's IndexStatus: "The index is being deleted"), for its response,
    as a deleted GSI is described (``index_specs.patch_response``)."""
    names = {x["Delete"]["IndexName"] for x in body.get("VectorIndexUpdates") or () if x.get("Delete") is not None}
    if not names:
        return []
    gone = [{**d, "IndexStatus": "DELETING"} for d in describe(table).get("VectorIndexes", ()) if d["IndexName"] in names]
    for d in gone:
        d.pop("Backfilling", None)
    return gone


def patch_response(description: dict[str, Any], deleted: list[dict[str, Any]]) -> None:
    """UpdateTable's response: ``deleted`` (``deleting``) after the indexes that remain."""
    if deleted:
        description["VectorIndexes"] = description.get("VectorIndexes", []) + deleted
