"""Global tables (version 2019.11.21): which tables are replicas of which, and UpdateTable's
ReplicaUpdates / GlobalTableWitnessUpdates / MultiRegionConsistency.

A replica is an ordinary table, of the same name, in another region's namespace. Its key
schema, attribute definitions and secondary indexes are the source's; it has its own table
class and on-demand maximums where the request overrides them (API reference,
"CreateReplicationGroupMemberAction"). It is backfilled from the source's items through the
write executor (as the service's writes: no capacity, no stream records, since the replica's
stream starts after the backfill). Adding a replica turns on a NEW_AND_OLD_IMAGES stream on a
table that has none and keeps an existing stream as it is; a replica's stream cannot be
disabled (developer guide, "Global tables: how it works"; the errors are in
``dynemu/errors/replication.py``).

The membership is saved in every replica's store (a meta counter ``global/<name>``), and the
running side (the backlog, the item versions) is ``engine/global_tables/replication.py``'s.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from dynemu.engine import streams, ttl
from dynemu.engine.global_tables import rules as global_table_rules
from dynemu.engine.global_tables.replication import REPLICATED, RegionLink, Replication
from dynemu.engine.table import Table, decode_stored
from dynemu.engine.writes import Write
from dynemu.storage import keyspace, replication_keys
from dynemu.storage.base import WriteBatch, delete_range

if TYPE_CHECKING:
    from dynemu.engine.namespace import Namespace

VERSION = "2019.11.21"
SETTINGS_REPLICATION = "ENABLED_WITH_OVERRIDES"  # GlobalTableSettingsReplicationMode while replicas exist
_RECORD_PREFIX = "global/"
_BACKFILL_CHUNK = 100


@dataclass
class Replica:
    """One region of a global table, as DescribeTable's Replicas shows it."""

    region: str
    status: str = "ACTIVE"
    table_class: str | None = None  # ReplicaTableClass / TableClassOverride
    max_read: int | None = None  # OnDemandThroughputOverride.MaxReadRequestUnits


@dataclass
class GlobalTable:
    """A global table: its replicas by region and its multi-Region consistency."""

    name: str
    access_key: str
    consistency: str = "EVENTUAL"  # MultiRegionConsistency
    replicas: dict[str, Replica] = field(default_factory=dict)  # every region, the first one included
    witness: str | None = None
    conflicts: int = 0  # MREC: changes lost to a newer write (last writer wins), since start-up
    refused: int = 0  # MRSC: writes refused with ReplicatedWriteConflictException (retries each count)

    def record(self, region: str) -> bytes:
        return orjson.dumps({
            "name": self.name, "access_key": self.access_key, "consistency": self.consistency,
            "witness": self.witness, "self": region,
            "replicas": [[r.region, r.status, r.table_class, r.max_read] for r in self.replicas.values()],
        })  # fmt: skip


@dataclass
class ReplicaCreate:
    """A Create of ReplicaUpdates."""

    region: str
    table_class: str | None = None
    max_read: int | None = None
    read_capacity: int | None = None  # ProvisionedThroughputOverride.ReadCapacityUnits


def group_of(db: Namespace, table: Table) -> GlobalTable | None:
    link: RegionLink | None = db.replicated
    if link is None:
        return None
    group: GlobalTable | None = link.tables.get(table.name)
    return group


def _link(rep: Replication, db: Namespace, region: str) -> RegionLink:
    if db.replicated is None:
        db.replicated = RegionLink(rep, region, db.store)
    link: RegionLink = db.replicated
    return link


def _save(rep: Replication, group: GlobalTable) -> None:
    """Write the membership into every replica's store (or remove it when the table is no
    longer global)."""
    key = keyspace.meta_counter_key(_RECORD_PREFIX + group.name)
    alone = len(group.replicas) < 2
    for region in group.replicas:
        db = rep.open_namespace(region, group.access_key)
        batch = WriteBatch()
        if alone:
            batch.delete(key)
        else:
            batch.put(key, group.record(region))
        db.store.write(batch)
    if alone:
        rep.groups.pop((group.access_key, group.name), None)
        for region in group.replicas:
            link = rep.open_namespace(region, group.access_key).replicated
            if link is not None:
                link.tables.pop(group.name, None)


def load(rep: Replication, db: Namespace) -> None:
    """A namespace opened: join its replicas to their global tables (the first replica read
    defines the group; the others find it)."""
    start = keyspace.meta_counter_key(_RECORD_PREFIX)
    for _, raw in db.store.iterate(start, keyspace.prefix_end(start)):
        r = orjson.loads(raw)
        if r["name"] not in db.tables:
            continue
        gkey = (r["access_key"], r["name"])
        group = rep.groups.get(gkey)
        if group is None:
            group = GlobalTable(r["name"], r["access_key"], r["consistency"], witness=r.get("witness"))
            for region, status, table_class, max_read in r["replicas"]:
                group.replicas[region] = Replica(region, status, table_class, max_read)
            rep.groups[gkey] = group
        _link(rep, db, r["self"]).tables[group.name] = group
    if db.replicated is not None:
        rep.reload(db, db.replicated)  # the changes not yet applied everywhere (replication_log)


# --- UpdateTable ---------------------------------------------------------------------------------


def update(
    rep: Replication, db: Namespace, table: Table, region: str, access_key: str, *,
    creates: list[ReplicaCreate], updates: list[ReplicaCreate], deletes: list[str],
    consistency: str | None, witness_creates: list[str], witness_deletes: list[str],
) -> tuple[GlobalTable, list[str]]:
    """Apply the replica and witness updates; returns the group and the regions created now
    (the answer shows them CREATING; they are ACTIVE from then on)."""
    group = group_of(db, table)
    existing = group if group is not None and len(group.replicas) > 1 else None
    req = global_table_rules.Request(
        region, [c.region for c in creates], [u.region for u in updates], deletes,
        consistency, witness_creates, witness_deletes,
    )  # fmt: skip
    global_table_rules.check(req, existing, table, lambda r: table.name in rep.open_namespace(r, access_key).tables)
    if group is None:
        group = GlobalTable(table.name, access_key, replicas={region: Replica(region, table_class=None)})
    if existing is None and consistency is not None:
        group.consistency = consistency
    creates = list({c.region: c for c in creates}.values())  # two Creates of one region are one
    for u in updates:
        rr = group.replicas[u.region]
        rr.table_class = u.table_class or rr.table_class
        rr.max_read = u.max_read if u.max_read is not None else rr.max_read
        _apply_overrides(rep, group, rr, u)
    group.witness = (witness_creates or [None])[0] if witness_creates else (
        None if group.witness in witness_deletes else group.witness)
    rep.groups[(group.access_key, table.name)] = group
    _link(rep, db, region).tables[table.name] = group
    ts = streams.of_table(table)
    if creates and group.consistency == "EVENTUAL" and (ts is None or ts.active is None):
        # MREC replicates through the stream; an existing one is kept as it is. MRSC needs none.
        streams.enable(db.streams, table, "NEW_AND_OLD_IMAGES", db.now())
    created = []
    for c in creates:
        _create_replica(rep, db, table, group, c)
        created.append(c.region)
    for r in deletes:
        drop_replica(rep, group, r)
    _save(rep, group)
    return group, created


def _apply_overrides(rep: Replication, group: GlobalTable, rr: Replica, c: ReplicaCreate) -> None:
    """A replica's own settings on its table: table class, on-demand maximum reads, provisioned reads."""
    db = rep.open_namespace(rr.region, group.access_key)
    table = db.tables.get(group.name)
    if table is None:
        return
    spec = table.spec
    if c.table_class is not None:
        spec.table_class = c.table_class
    if c.max_read is not None:
        spec.on_demand_max_read = c.max_read
    if c.read_capacity is not None and spec.billing_mode == "PROVISIONED":
        spec.throughput.read = c.read_capacity
    db.save_spec(table)


def _create_replica(rep: Replication, source_db: Namespace, source: Table, group: GlobalTable, c: ReplicaCreate) -> None:
    db = rep.open_namespace(c.region, group.access_key)
    now = db.now()
    spec = copy.deepcopy(source.spec)
    spec.table_id, spec.arn, spec.uuid = db.new_spec_ids(source.name, c.region)
    spec.created = now
    spec.tags = {}
    spec.deletion_protection = False
    spec.pitr_since = None
    for ix in spec.indexes:
        ix.status = "ACTIVE"  # filled by the backfill's writes, through the index maintenance
    table = db.add_table(spec)
    rr = Replica(c.region, "CREATING", c.table_class, c.max_read)
    group.replicas[c.region] = rr
    _apply_overrides(rep, group, rr, c)
    # auto scaling's modules wait for their first use (start-up)
    from dynemu.engine.autoscaling import scaler as replica_autoscaler

    replica_autoscaler.on_replica_created(db, source, table)  # the global write auto scaling settings
    _link(rep, db, c.region).tables[group.name] = group
    _backfill(db, source, table)
    assert source_db.replicated is not None  # linked by ``update`` before the replicas are created
    rep.include(group, source_db.replicated.region, c.region)  # what is on its way to the source
    view = streams.of_table(source)
    if view is not None and view.active is not None:  # the replica streams as the source does
        streams.enable(db.streams, table, view.active.view_type, db.now())
    state = ttl.describe(source)
    if state.enabled and state.attribute:
        ttl.update(table, state.attribute, True, now)


def _backfill(db: Namespace, source: Table, table: Table) -> None:
    """Copy the source's items into the new replica through the write executor."""
    prefix = keyspace.items_prefix(source.spec.table_id)
    chunk: list[Write] = []
    for _, raw in source.store.iterate(prefix, keyspace.prefix_end(prefix)):
        item, size = decode_stored(raw)
        chunk.append(Write.put(table, item, size=size, marks={REPLICATED: None}))
        if len(chunk) >= _BACKFILL_CHUNK:
            db.execute(chunk, on_throttle="service")
            chunk = []
    if chunk:
        db.execute(chunk, on_throttle="service")


def drop_replica(rep: Replication, group: GlobalTable, region: str, *, table_gone: bool = False) -> None:
    """Remove ``region``'s replica: its table is deleted (unless DeleteTable already did)."""
    db = rep.open_namespace(region, group.access_key)
    table = db.tables.get(group.name)
    if table is not None and not table_gone:
        now = db.now()
        streams.on_table_deleted(db.streams, table, now)
        ttl.on_table_deleted(table)
        db.drop_table(table)
    delete_range(db.store, *replication_keys.applied_range(group.name))  # the positions it kept
    group.replicas.pop(region, None)
    rep.forget_region(group, region)
    if db.replicated is not None:
        db.replicated.tables.pop(group.name, None)


def on_table_deleted(rep: Replication, db: Namespace, name: str) -> None:
    """DeleteTable of a replica in its own region: the others stay, without it."""
    link: RegionLink | None = db.replicated
    group = link.tables.get(name) if link is not None else None
    if group is None or link is None:
        return
    drop_replica(rep, group, link.region, table_gone=True)
    _save(rep, group)


def leave(rep: Replication, db: Namespace) -> None:
    """Namespace ``db`` is about to be emptied (state control's reset of one region): each
    global table it holds a replica of goes on without it, as after DeleteTable of that
    replica (``on_table_deleted``)."""
    link: RegionLink | None = db.replicated
    for name in list(link.tables) if link is not None else ():
        on_table_deleted(rep, db, name)


def activate(rep: Replication, group: GlobalTable, regions: list[str]) -> None:
    for r in regions:
        if r in group.replicas:
            group.replicas[r].status = "ACTIVE"
    _save(rep, group)


def describe(
    rep: Replication, group: GlobalTable, region: str, creating: tuple[str, ...] | list[str] = (),
    deleting: tuple[str, ...] | list[str] = (),
) -> dict[str, Any]:
    """DescribeTable's members of a global table seen from ``region``. Replicas lists the other
    replicas only, never the table itself, in the order they joined; an entry carries a
    replica's own settings only where it overrides them; MultiRegionConsistency is shown only
    when STRONG; GlobalTableSettingsReplicationMode is ENABLED_WITH_OVERRIDES, on the table and
    on each entry (the service's observed answers: ack-api-quirks DDB-TABLE-229, -201, -320)."""
    replicas = []
    for r in group.replicas.values():
        if r.region == region:
            continue
        d: dict[str, Any] = {"RegionName": r.region, "ReplicaStatus": "CREATING" if r.region in creating else r.status}
        db = rep.open_namespace(r.region, group.access_key)
        table = db.tables.get(group.name)
        if table is not None:
            if r.table_class is not None:
                d["ReplicaTableClassSummary"] = {"TableClass": r.table_class}
            if r.max_read is not None:
                d["OnDemandThroughputOverride"] = {"MaxReadRequestUnits": r.max_read}
            gsis = [{"IndexName": ix.name} for ix in table.spec.indexes if ix.is_global]
            if gsis:
                d["GlobalSecondaryIndexes"] = gsis
            reads, writes = table.capacity.state.warm_throughput()
            d["WarmThroughput"] = {"ReadUnitsPerSecond": reads, "WriteUnitsPerSecond": writes, "Status": "ACTIVE"}
        d["GlobalTableSettingsReplicationMode"] = SETTINGS_REPLICATION
        replicas.append(d)
    replicas += [{"RegionName": r, "ReplicaStatus": "DELETING"} for r in deleting]
    out: dict[str, Any] = {"GlobalTableVersion": VERSION, "Replicas": replicas}
    if group.consistency == "STRONG":
        out["MultiRegionConsistency"] = "STRONG"
    if group.witness is not None:
        out["GlobalTableWitnesses"] = [{"RegionName": group.witness, "WitnessStatus": "ACTIVE"}]
    out["GlobalTableSettingsReplicationMode"] = SETTINGS_REPLICATION
    return out


def summary(rep: Replication) -> list[dict[str, Any]]:
    """Every global table: its replicas, the backlog and the changes applied per direction,
    and the conflicts resolved (the admin API's ``/_dynemu/global-tables``)."""
    out = []
    for group in sorted(rep.groups.values(), key=lambda g: (g.access_key, g.name)):
        replicas = []
        for r in group.replicas.values():
            table = rep.open_namespace(r.region, group.access_key).tables.get(group.name)
            replicas.append({"region": r.region, "status": r.status,
                             "item_count": table.item_count if table is not None else 0})  # fmt: skip
        backlog = rep.backlog(group)
        out.append({
            "table": group.name,
            "consistency": group.consistency,
            "witness": group.witness,
            "replicas": replicas,
            "backlog": [{"from": a, "to": b, "pending": n} for (a, b), n in sorted(backlog.items())],
            "applied": [{"from": a, "to": b, "count": n} for (t, a, b), n in sorted(rep.applied.items()) if t == group.name],
            "conflicts_resolved": group.conflicts,
            "writes_refused": group.refused,
        })  # fmt: skip
    return out
