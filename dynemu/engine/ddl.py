"""Table and index definitions: what UpdateTable changes, and the rules it checks.

The API layer turns CreateTable / UpdateTable requests into the snake_case dataclasses
here (``GsiDefinition``, ``GsiChange``, ``TableUpdate``) and renders the results; this
module applies them to a copy of the table's spec, so that a request refused half-way
changes nothing, then saves it and runs what follows (dropping deleted indexes' entries,
backfilling new ones).

Messages, in the order the service checks them: dynalite's validations/createTable.js
(probed against the service) for the rules it has; a 2026 lab of live probes
(ack-api-quirks, dynamodb table-indexes.md: DDB-TABLE-043/123/126/127/128/129/148/152/
159/160/162/164/165/169/174/380) for multi-attribute keys, projections, throughput by
billing mode, GlobalSecondaryIndexUpdates and the index state machine. Where no source
gives a text, the choice is marked UNSURE.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dynemu import errors
from dynemu.engine import indexes, limits, streams
from dynemu.engine.indexes import Index
from dynemu.engine.schema import IndexSpec, KeyAttr, TableSpec, Throughput
from dynemu.engine.steps import run_steps
from dynemu.engine.table import Table
from dynemu.engine.vectors import define as vector_ddl

if TYPE_CHECKING:
    from dynemu.engine.namespace import Namespace

DAY = 86400.0


# --- what a request asks for --------------------------------------------------------------------


@dataclass
class GsiDefinition:
    """A GSI to create (CreateTable's GlobalSecondaryIndexes, UpdateTable's Create)."""

    index_name: str
    key_schema: list[tuple[str, str]]  # (attribute name, "HASH" | "RANGE"), as given
    projection_type: str | None
    non_key_attributes: list[str] | None = None
    provisioned: tuple[int, int] | None = None  # (read, write) capacity units
    on_demand_max_read: int | None = None
    on_demand_max_write: int | None = None


@dataclass
class GsiChange:
    """An Update of GlobalSecondaryIndexUpdates."""

    index_name: str
    provisioned: tuple[int, int] | None = None
    on_demand: bool = False  # OnDemandThroughput given
    on_demand_max_read: int | None = None  # None: unchanged
    on_demand_max_write: int | None = None
    warm: bool = False  # WarmThroughput given


@dataclass
class TableUpdate:
    """An UpdateTable request. ``None`` (or False for the ``*_given`` flags) means "not in
    the request"; ``gsi_updates_given`` without any GSI create, delete or change is an empty
    GlobalSecondaryIndexUpdates list."""

    billing_mode: str | None = None
    provisioned: tuple[int, int] | None = None
    deletion_protection: bool | None = None
    warm_read: int | None = None  # WarmThroughput, when given (not empty)
    warm_write: int | None = None
    warm_given: bool = False
    table_class: str | None = None
    on_demand_given: bool = False
    on_demand_max_read: int | None = None  # None: unchanged
    on_demand_max_write: int | None = None
    attribute_definitions: dict[str, str] = field(default_factory=dict)
    gsi_creates: list[GsiDefinition] = field(default_factory=list)
    gsi_deletes: list[str] = field(default_factory=list)
    gsi_changes: dict[str, GsiChange] = field(default_factory=dict)
    gsi_updates_given: bool = False  # GlobalSecondaryIndexUpdates present, maybe empty
    stream: dict[str, object] | None = None  # StreamSpecification (engine.streams.update)
    # VectorIndexUpdates (engine.vectors.define)
    vector_creates: list[vector_ddl.VectorIndexDefinition] = field(default_factory=list)
    vector_deletes: list[str] = field(default_factory=list)


@dataclass
class DeletedIndex:
    """A GSI deleted by UpdateTable, as it was (the response still describes it)."""

    table_spec: TableSpec
    spec: IndexSpec
    item_count: int
    size_bytes: int


@dataclass
class UpdatePlan:
    """What UpdateTable does to the indexes, applied by ``apply_plan`` once the new spec is
    saved; ``only_updates``: nothing but GSI throughput changes (TableStatus stays ACTIVE)."""

    created: list[str] = field(default_factory=list)
    deleted: list[tuple[Index, DeletedIndex]] = field(default_factory=list)
    updated: dict[str, Throughput] = field(default_factory=dict)  # name -> throughput before

    @property
    def only_updates(self) -> bool:
        return not self.created and not self.deleted


# --- shared checks ------------------------------------------------------------------------------


def check_throughput_limit(read: int, write: int) -> None:
    most = limits.TABLE_MAX_CAPACITY  # the per-table quota of capacity units
    if read > most or write > most:
        which = "ReadCapacityUnits" if read > most else "WriteCapacityUnits"
        value = read if read > most else write
        raise errors.limit_exceeded(errors.msg_table_throughput_limit(which, most, value))


def undefined(keys: list[str], defs: dict[str, str], listed: list[str]) -> None:
    if any(k not in defs for k in keys):
        raise errors.invalid_parameter(errors.msg_keys_not_defined(keys, listed))


def gsi_key_schema(ks: list[tuple[str, str]]) -> tuple[list[str], list[str]]:
    """(HASH names, RANGE names) of a GSI KeySchema: up to 4 of each, HASH first (lab
    DDB-TABLE-123/124; the 2-element same-name text is dynalite's)."""
    names = [n for n, _ in ks]
    if len(names) == 2 and names[0] == names[1] and ks[1][1] == "RANGE":
        raise errors.validation(errors.MSG_KEYS_SAME_NAME)
    if ks[0][1] != "HASH":
        raise errors.validation(errors.MSG_FIRST_KEY_NOT_HASH)
    if len(set(names)) != len(names):
        raise errors.validation(errors.MSG_KEY_NAMES_REPEATED)
    hashes: list[str] = []
    ranges: list[str] = []
    for name, kind in ks:
        if kind == "HASH":
            if ranges:
                raise errors.validation(errors.MSG_HASH_AFTER_RANGE)
            hashes.append(name)
        else:
            ranges.append(name)
    if len(hashes) > indexes.MAX_KEY_ATTRIBUTES:
        raise errors.validation(errors.MSG_TOO_MANY_HASH_KEYS)
    if len(ranges) > indexes.MAX_KEY_ATTRIBUTES:
        raise errors.validation(errors.MSG_TOO_MANY_RANGE_KEYS)
    return hashes, ranges


def projection(kind: str | None, non_key: list[str] | None) -> tuple[str, tuple[str, ...]]:
    if kind is None:
        raise errors.invalid_parameter(errors.MSG_PROJECTION_TYPE_NULL)
    if non_key is not None and kind != "INCLUDE":
        raise errors.invalid_parameter(errors.msg_non_key_with_projection(kind))
    if kind == "INCLUDE" and non_key is None:
        raise errors.invalid_parameter(errors.MSG_INCLUDE_WITHOUT_NON_KEY)
    seen: set[str] = set()
    for a in non_key or ():
        if a in seen:
            raise errors.invalid_parameter(errors.msg_duplicate_non_key(a))
        seen.add(a)
    return kind, tuple(non_key or ())


def gsi_throughput(d: GsiDefinition, mode: str, region: str, *, create_table: bool) -> Throughput:
    name = d.index_name
    pt = d.provisioned
    if mode == "PAY_PER_REQUEST":
        if pt is not None:
            raise errors.invalid_parameter(errors.msg_index_throughput_on_demand(name))
        return Throughput()
    if pt is None:
        if create_table:
            raise errors.invalid_parameter(errors.msg_index_throughput_missing(name))
        raise errors.invalid_parameter(errors.msg_index_throughput_partial(name))
    for which, units in (("ReadCapacityUnits", pt[0]), ("WriteCapacityUnits", pt[1])):
        most = limits.TABLE_MAX_CAPACITY  # the per-table quota holds per GSI too: lab DDB-TABLE-170
        if units > most:
            raise errors.limit_exceeded(errors.msg_index_throughput_limit(which, name, units, region, most))
    return Throughput(read=pt[0], write=pt[1])


def check_projected_total(specs: list[IndexSpec]) -> None:
    # "You can project a total of up to 100 attributes into all of a table's local and
    # global secondary indexes" (quotas page). The service's text is unknown: UNSURE.
    if sum(len(s.non_key_attributes) for s in specs) > indexes.MAX_PROJECTED_ATTRIBUTES:
        raise errors.invalid_parameter(errors.msg_projected_total(indexes.MAX_PROJECTED_ATTRIBUTES))


def check_deletable(table: Table) -> None:
    """DeleteTable is refused while an index is being created (lab DDB-TABLE-150)."""
    if any(ix.spec.status != "ACTIVE" for ix in indexes.all_indexes(table)):
        raise errors.resource_in_use(errors.MSG_CANNOT_DELETE_WHILE_INDEXING)


# --- UpdateTable: the table's own settings ----------------------------------------------------------

def _switch_billing(spec: TableSpec, u: TableUpdate, now: float) -> None:
    mode, pt = u.billing_mode, u.provisioned
    if mode == "PAY_PER_REQUEST":
        if pt is not None:
            raise errors.invalid_parameter(errors.MSG_THROUGHPUT_ON_DEMAND)
        # A table may switch to on-demand once per 24 hours (developer guide, "Considerations
        # when switching capacity modes").
        last = spec.billing_mode_updated
        if last is not None and now - last < DAY:
            raise errors.limit_exceeded(errors.MSG_ON_DEMAND_ONCE_A_DAY)
        spec.billing_mode = mode
        spec.billing_mode_explicit = True
        spec.billing_mode_updated = now
        spec.throughput.read = spec.throughput.write = 0
        return
    if pt is None:
        raise errors.invalid_parameter(errors.MSG_THROUGHPUT_REQUIRED)
    spec.billing_mode = mode  # type: ignore[assignment]
    spec.billing_mode_explicit = True
    check_throughput_limit(*pt)
    spec.throughput.read, spec.throughput.write = pt


def _change_throughput(tp: Throughput, read: int, write: int, now: float, per_day: int) -> None:
    if read == tp.read and write == tp.write:
        raise errors.validation(errors.msg_table_throughput_unchanged(tp.read, read, tp.write, write))
    check_throughput_limit(read, write)
    tp.change(read, write, now, per_day)


def _table_settings(spec: TableSpec, u: TableUpdate, now: float, per_day: int) -> bool:
    """Apply the table's own settings to ``spec``; whether any was given."""
    changed = False
    if u.billing_mode is not None and u.billing_mode != spec.billing_mode:
        _switch_billing(spec, u, now)
        changed = True
    elif u.provisioned is not None:
        if spec.billing_mode == "PAY_PER_REQUEST":
            raise errors.invalid_parameter(errors.MSG_THROUGHPUT_ON_DEMAND)
        _change_throughput(spec.throughput, *u.provisioned, now, per_day)
        changed = True
    if u.deletion_protection is not None:
        spec.deletion_protection = u.deletion_protection
        changed = True
    if u.warm_given:
        spec.warm_read = max(spec.warm_read, u.warm_read or 0)
        spec.warm_write = max(spec.warm_write, u.warm_write or 0)
        changed = True
    if u.table_class is not None:
        spec.table_class = u.table_class
        changed = True
    if u.on_demand_given:
        if u.on_demand_max_read is not None:
            spec.on_demand_max_read = u.on_demand_max_read
        if u.on_demand_max_write is not None:
            spec.on_demand_max_write = u.on_demand_max_write
        changed = True
    return changed


def update_table(db: Namespace, table: Table, u: TableUpdate, region: str) -> tuple[UpdatePlan | None, bool]:
    """Apply an UpdateTable: the table's settings, its GSIs, its stream; then save. Returns
    the index plan (None when the indexes are untouched) and whether the table's own
    settings changed. Nothing changes when the request is refused."""
    was_on_demand = table.spec.billing_mode == "PAY_PER_REQUEST"
    spec = copy.deepcopy(table.spec)  # a request refused half-way changes nothing
    now = db.now()
    changed = table_changed = _table_settings(spec, u, now, db.limits.decreases_per_day)
    # GlobalSecondaryIndexUpdates, and what a billing switch does to GSIs
    plan = update_indexes(table, spec, u, now, was_on_demand, region, db.limits.decreases_per_day)
    vplan = vector_ddl.plan_update(table, spec, u.vector_creates, u.vector_deletes, u.attribute_definitions)
    if u.gsi_creates or u.gsi_deletes or u.gsi_changes or vplan is not None:
        changed = True
    elif u.gsi_updates_given and changed:
        raise errors.invalid_parameter(errors.MSG_GSI_UPDATES_EMPTY)
    # the account's provisioned maxima, before the stream (which changes state when it passes)
    limits.check_account_throughput(db.limits, db.tables.values(), spec, table.spec)
    if u.stream is not None:
        # Enabling or disabling the stream is the last check that can refuse the request
        # ("Table already has an enabled stream", "Table has no stream to disable").
        streams.update(db.streams, table, u.stream, now)
        changed = True
    if not changed and u.billing_mode is not None and u.billing_mode == spec.billing_mode:
        return None, False  # the billing mode the table already has: a no-op (issue 12)
    if not changed:
        raise errors.validation(errors.MSG_NO_CHANGE)
    table.spec = spec
    db.save_spec(table)
    if plan is not None:
        apply_plan(db, table, plan)
    if vplan is not None:
        vector_ddl.apply_update(db, table, vplan)
        table_changed = True
    return plan, table_changed


# --- UpdateTable: GlobalSecondaryIndexUpdates ------------------------------------------------------


def _not_found(name: str, table: str) -> errors.DynamoError:
    # "Requested resource not found: Index gsi1 for table T" (lab DDB-TABLE-375/380)
    return errors.resource_not_found(errors.msg_index_not_found(name, table))


def update_indexes(
    table: Table, spec: TableSpec, u: TableUpdate, now: float, was_on_demand: bool, region: str,
    per_day: int = limits.DEFAULT.decreases_per_day,
) -> UpdatePlan | None:
    """Apply GlobalSecondaryIndexUpdates (and a billing switch's effect on GSIs) to the
    copy ``spec``; None when the request does not touch the indexes."""
    gsis = {s.name: s for s in spec.indexes if s.is_global}
    on_demand = spec.billing_mode == "PAY_PER_REQUEST"
    switched = was_on_demand != on_demand
    creates, deletes, changes = u.gsi_creates, u.gsi_deletes, u.gsi_changes
    if not (creates or deletes or changes) and not (switched and gsis):
        return None
    # one GSI created or deleted per request, checked before anything else about them
    # (engine.limits); a CREATING index may itself be deleted (once backfilling: DDB-TABLE-149)
    busy = any(s.status != "ACTIVE" and s.name not in deletes for s in gsis.values())
    limits.check_index_changes(len(creates), len(deletes), busy)
    plan = UpdatePlan()
    for name in [*deletes, *changes]:
        if name not in gsis:
            raise _not_found(name, table.name)
    if switched and not on_demand:
        missing = [n for n in gsis if n not in changes or changes[n].provisioned is None]
        if missing:  # the service's text (crossplane-contrib/provider-upjet-aws#1041)
            raise errors.invalid_parameter(errors.msg_index_throughput_required(missing))
    for name, change in changes.items():
        _update_gsi(gsis[name], change, on_demand, switched, now, plan, per_day)
    if switched and on_demand:
        for s in gsis.values():
            s.throughput.read = s.throughput.write = 0
    for c in creates:
        _create_gsi(table, spec, c, u.attribute_definitions, region, plan)
    for name in deletes:
        ix = indexes.find(table, name)
        assert ix is not None
        plan.deleted.append((ix, DeletedIndex(table.spec, ix.spec, ix.item_count, ix.size_bytes)))
        spec.indexes = [s for s in spec.indexes if s.name != name]
    if plan.deleted:
        _prune_definitions(spec, vector_ddl.schema_attributes(table))
    return plan


def _update_gsi(s: IndexSpec, change: GsiChange, on_demand: bool, switched: bool, now: float,
                plan: UpdatePlan, per_day: int) -> None:
    pt = change.provisioned
    if on_demand and (pt is not None or (not change.on_demand and not change.warm)):
        raise errors.invalid_parameter(errors.msg_on_demand_index_updates(s.name))
    plan.updated[s.name] = copy.copy(s.throughput)
    if pt is not None:
        tp = s.throughput
        read, write = pt
        if not switched and read == tp.read and write == tp.write:  # lab DDB-TABLE-164
            raise errors.validation(errors.msg_index_throughput_unchanged(s.name, tp.read, read, tp.write, write))
        if switched:
            tp.read, tp.write = read, write
        else:
            tp.change(read, write, now, per_day)
    if change.on_demand:
        if change.on_demand_max_read is not None:
            s.on_demand_max_read = change.on_demand_max_read
        if change.on_demand_max_write is not None:
            s.on_demand_max_write = change.on_demand_max_write


def _create_gsi(table: Table, spec: TableSpec, c: GsiDefinition, requested: dict[str, str], region: str,
                plan: UpdatePlan) -> None:
    name = c.index_name
    if any(s.name == name for s in spec.indexes):
        raise errors.validation(errors.MSG_INDEX_EXISTS)
    if sum(1 for s in spec.indexes if s.is_global) >= indexes.MAX_GSI:  # lab DDB-TABLE-169
        raise errors.limit_exceeded(errors.msg_gsi_limit_exceeded(indexes.MAX_GSI))
    # The request's own AttributeDefinitions must define the new index's keys, even one the
    # table already defines ("must include the key element(s) of the new index", API
    # reference; observed in eu-west-2, nubo-db/dynoxide#144). A definition of another
    # attribute the table has keeps that attribute's type (paritysuite/dynamodb-conformance#78),
    # but the new index's own keys cannot change type (issue 24, item 18).
    keys = [n for n, _ in c.key_schema]
    undefined(keys, requested, list(requested))
    stored = {a.name: a.type for a in spec.attribute_definitions}
    for n in keys:
        if n in stored and stored[n] != requested[n]:
            raise errors.invalid_parameter(errors.msg_index_key_type_conflict(n, stored[n], requested[n]))
    defs = {**requested, **{a.name: a.type for a in spec.attribute_definitions}}
    hashes, ranges = gsi_key_schema(c.key_schema)
    kind, non_key = projection(c.projection_type, c.non_key_attributes)
    tp = gsi_throughput(c, spec.billing_mode, region, create_table=False)
    s = IndexSpec(
        name, indexes.next_index_id(table), True,
        tuple(KeyAttr(n, defs[n]) for n in hashes), tuple(KeyAttr(n, defs[n]) for n in ranges),
        kind, non_key, tp, "CREATING", c.on_demand_max_read, c.on_demand_max_write,
    )  # fmt: skip
    spec.indexes.append(s)
    check_projected_total(spec.indexes)
    known = {a.name for a in spec.attribute_definitions}
    for n in keys:
        if n not in known:
            spec.attribute_definitions.append(KeyAttr(n, defs[n]))
            known.add(n)
    plan.created.append(name)


def _prune_definitions(spec: TableSpec, keep: frozenset[str] | set[str] = frozenset()) -> None:
    """A deleted GSI's key attributes leave AttributeDefinitions when no key uses them any
    more (lab DDB-TABLE-151); ``keep``: those vector indexes' search schemas use."""
    used = set(spec.key_names) | keep
    for s in spec.indexes:
        used.update(a.name for a in s.hash_keys + s.range_keys)
    spec.attribute_definitions = [a for a in spec.attribute_definitions if a.name in used]


def apply_plan(db: Namespace, table: Table, plan: UpdatePlan) -> None:
    """After the new spec is saved: follow it, drop deleted indexes, start backfills."""
    indexes.sync(table)
    for ix, _ in plan.deleted:
        ix.cursor = None  # stops a backfill still running
        indexes.clear(table, ix)
    for name in plan.created:
        ix = indexes.find(table, name)
        assert ix is not None
        start_backfill(db, table, ix)


def start_backfill(db: Namespace, table: Table, ix: Index) -> None:
    """Backfill in steps on the event loop (``engine/steps.py``), so that the index is
    CREATING (Backfilling) while the table is indexed and requests keep flowing; without a
    loop, at once."""
    job = indexes.Backfill(table, ix)

    def work() -> Iterator[None]:
        while True:
            if db.tables.get(table.name) is not table or indexes.find(table, ix.name) is not ix:
                ix.cursor = None  # the table or the index went away
                return
            if job.step():
                db.save_spec(table)
                return
            yield

    run_steps(db, work())
