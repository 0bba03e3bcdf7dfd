"""Vector index definitions: CreateTable's VectorIndexes and UpdateTable's
VectorIndexUpdates, checked and applied (called by ``engine/ddl.py`` and the CreateTable
operation).

Rules ("Requirements and limitations", "Quotas in Amazon DynamoDB", API reference
``CreateVectorIndexAction``): on-demand tables only; at most 5 vector indexes per table;
1 to 4,096 dimensions; every SearchSchema attribute declared in AttributeDefinitions
(S, N or B), at most one HASH and 18 INLINE_FILTER attributes; an index name unique among
the table's indexes; indexes of one attribute share one dimension count.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dynemu import errors
from dynemu.engine import indexes
from dynemu.engine.schema import KeyAttr, TableSpec
from dynemu.engine.table import Table
from dynemu.engine.vectors import ensure_maintainer, find, maintainer, save, start_backfill
from dynemu.engine.vectors.spec import MAX_DIMENSIONS, MAX_INLINE_FILTERS, MAX_VECTOR_INDEXES, VectorIndexSpec


@dataclass
class VectorIndexDefinition:
    """A vector index to create, as the request gives it."""

    name: str
    attribute: str
    dimensions: int
    distance: str
    projection_type: str  # checked by the operation (``ddl.projection``, the rules of GSIs)
    non_key: tuple[str, ...] = ()
    search_schema: list[tuple[str, str]] = field(default_factory=list)  # (name, HASH | INLINE_FILTER)


@dataclass
class VectorUpdatePlan:
    """The vector indexes an UpdateTable creates and deletes."""

    creates: list[VectorIndexSpec] = field(default_factory=list)
    deletes: list[str] = field(default_factory=list)


def check_billing(billing_mode: str, has_vector_indexes: bool) -> None:
    """Vector indexes use on-demand capacity only, on an on-demand table."""
    if has_vector_indexes and billing_mode != "PAY_PER_REQUEST":
        raise errors.validation(errors.MSG_VECTOR_ON_DEMAND_ONLY)


def _spec(d: VectorIndexDefinition, types: dict[str, str], index_id: int, arn: str) -> VectorIndexSpec:
    """Check one definition (the checks that need no other index)."""
    if not 1 <= d.dimensions <= MAX_DIMENSIONS:
        raise errors.validation(errors.msg_vector_dimensions_range(d.dimensions, MAX_DIMENSIONS))
    schema: list[tuple[str, str, str]] = []
    for name, role in d.search_schema:
        if name not in types:
            raise errors.validation(errors.MSG_SEARCH_SCHEMA_UNDEFINED)
        schema.append((name, role, types[name]))
    if sum(1 for _, role, _ in schema if role == "HASH") > 1:
        raise errors.validation(errors.msg_search_schema_hash_count(d.name))
    if sum(1 for _, role, _ in schema if role == "INLINE_FILTER") > MAX_INLINE_FILTERS:
        raise errors.validation(errors.msg_inline_filter_limit(d.name, MAX_INLINE_FILTERS))
    return VectorIndexSpec(
        d.name, index_id, d.attribute, d.dimensions, d.distance, d.projection_type, d.non_key, tuple(schema),
        arn=f"{arn}/index/{d.name}",
    )  # fmt: skip


def _check_set(specs: list[VectorIndexSpec], other_names: set[str]) -> None:
    if len(specs) > MAX_VECTOR_INDEXES:
        raise errors.limit_exceeded(errors.msg_vector_index_limit(MAX_VECTOR_INDEXES))
    seen = set(other_names)
    dims: dict[str, int] = {}
    for s in specs:
        if s.name in seen:
            raise errors.invalid_parameter(errors.msg_duplicate_index(s.name))
        seen.add(s.name)
        known = dims.setdefault(s.attribute, s.dimensions)
        if known != s.dimensions:
            raise errors.validation(errors.msg_vector_attribute_dimensions(s.attribute, known, s.dimensions))


def create_table_specs(
    defs: list[VectorIndexDefinition], types: dict[str, str], billing_mode: str, other_names: set[str]
) -> list[VectorIndexSpec]:
    """The vector indexes of a CreateTable request, checked (their ids are given once the
    table exists, ``create_table_indexes``)."""
    check_billing(billing_mode, bool(defs))
    specs = [_spec(d, types, 0, "") for d in defs]
    _check_set(specs, other_names)
    return specs


def create_table_indexes(table: Table, specs: list[VectorIndexSpec]) -> None:
    """Attach the vector indexes of a new (empty) table: ACTIVE at once."""
    if not specs:
        return
    m = ensure_maintainer(table)
    for s in specs:
        s.index_id = indexes.next_index_id(table)  # ids are never reused within a table
        s.arn = f"{table.spec.arn}/index/{s.name}"
        m.add(s)
    save(table)


def schema_attributes(table: Table) -> set[str]:
    """Attributes the search schemas of ``table``'s vector indexes use (they stay in its
    AttributeDefinitions while an index uses them)."""
    m = maintainer(table)
    return {n for vix in (m.indexes if m is not None else ()) for n in vix.spec.schema_names}


def _prune(spec: TableSpec, kept: list[VectorIndexSpec]) -> None:
    """Search attributes of deleted vector indexes leave AttributeDefinitions when no key and
    no other index uses them (as a deleted GSI's keys do)."""
    used = set(spec.key_names) | {n for s in kept for n in s.schema_names}
    for s in spec.indexes:
        used.update(a.name for a in s.hash_keys + s.range_keys)
    spec.attribute_definitions = [a for a in spec.attribute_definitions if a.name in used]


def plan_update(
    table: Table, spec: TableSpec, creates: list[VectorIndexDefinition], deletes: list[str],
    requested: dict[str, str],
) -> VectorUpdatePlan | None:
    """Check VectorIndexUpdates against ``spec`` (UpdateTable's edited copy of the table's
    spec, whose billing mode it also checks); search-schema attributes of new indexes join
    its AttributeDefinitions. None when the request has no vector index update."""
    existing = [vix.spec for vix in (maintainer(table).indexes if maintainer(table) is not None else [])]
    if not creates and not deletes:
        check_billing(spec.billing_mode, bool(existing))
        return None
    plan = VectorUpdatePlan()
    for name in deletes:
        if find(table, name) is None:
            raise errors.resource_not_found(errors.msg_index_not_found(name, table.name))
        plan.deletes.append(name)
    kept = [s for s in existing if s.name not in deletes]
    types = {**requested, **{a.name: a.type for a in spec.attribute_definitions}}
    for d in creates:
        plan.creates.append(_spec(d, types, indexes.next_index_id(table), spec.arn))
    _check_set(kept + plan.creates, {s.name for s in spec.indexes})
    check_billing(spec.billing_mode, bool(kept or plan.creates))
    if plan.deletes:
        _prune(spec, kept)
    known = {a.name for a in spec.attribute_definitions}
    for s in plan.creates:
        s.status, s.backfilling = "CREATING", True
        for name, _, type_ in s.search_schema:
            if name not in known:
                spec.attribute_definitions.append(KeyAttr(name, type_))
                known.add(name)
    return plan


def apply_update(db: Any, table: Table, plan: VectorUpdatePlan) -> None:
    """After UpdateTable saved the table's spec: drop deleted indexes, start backfills."""
    from dynemu.engine.vectors import maintain

    m = ensure_maintainer(table)
    for name in plan.deletes:
        vix = m.remove(name)
        if vix is not None:
            maintain.drop_entries(table, vix)
    fresh = [m.add(s) for s in plan.creates]
    if not m.indexes:
        table.vectors = None
    save(table)
    for vix in fresh:
        start_backfill(db, table, vix)
