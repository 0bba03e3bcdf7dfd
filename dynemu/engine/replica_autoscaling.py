"""Replica auto scaling (UpdateTableReplicaAutoScaling, DescribeTableReplicaAutoScaling): the
settings, their rules, where they are kept, and the capacity changes they make.

A scalable target is one provisioned dimension of one replica: its table's read or write
capacity, or one of its GSIs' (API reference, "AutoScalingSettingsUpdate"). Write settings are
the global table's, the same on every replica (ProvisionedWriteCapacityAutoScalingUpdate and
the GSIs' in GlobalSecondaryIndexUpdates); read settings are each replica's own
(ReplicaUpdates). "If provisioned with auto scaling, the write settings (minimum, maximum, and
target utilization) are replicated across Regions. Although the auto scaling settings are
synchronized, the actual provisioned write capacity can float independently between Regions"
(developer guide, "Throughput capacity planning for DynamoDB global tables"). A table that is
not global is its own only replica.

Rules (developer guide, "Managing throughput capacity automatically with DynamoDB auto
scaling"; API reference, "AutoScalingTargetTrackingScalingPolicyConfigurationUpdate"): a
target utilization between 20 and 90 percent; scale-in and scale-out cooldowns of at least 0
seconds, 0 by default; scale-in enabled by default. Auto scaling adjusts provisioned capacity
only, so an on-demand table refuses the update. dynemu's choices where the pages are silent:
a target is created with both MinimumUnits and MaximumUnits (Application Auto Scaling's
RegisterScalableTarget needs both); an update merges into what is set; a policy replaces the
previous one; and, as registering a scalable target does, setting bounds moves a capacity
outside them to the nearest bound at once.

Each replica's settings are kept in its own namespace's store, next to the table's other
metadata (a meta record keyed by table id, as TTL's and the stream's are; ids are never
reused, so a deleted table's record is never read again). Capacity changes go through
UpdateTable's own path, ``engine/ddl.py: update_table`` (its quotas included).
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from dynemu import errors
from dynemu.engine import ddl
from dynemu.engine.table import Table
from dynemu.storage import keyspace
from dynemu.storage.base import WriteBatch

if TYPE_CHECKING:
    from dynemu.engine.namespace import Namespace

log = logging.getLogger("dynemu.engine.replica_autoscaling")

MIN_TARGET = 20.0  # percent (developer guide, "Managing throughput capacity automatically ...")
MAX_TARGET = 90.0
READ, WRITE = "read", "write"
_RECORD = "autoscaling/"


@dataclass
class Policy:
    """A target tracking scaling policy (AutoScalingPolicyUpdate)."""

    name: str
    target: float  # TargetValue: consumed / provisioned, in percent
    disable_scale_in: bool = False
    scale_in_cooldown: int = 0  # seconds
    scale_out_cooldown: int = 0


@dataclass
class Target:
    """One scalable target's settings (AutoScalingSettingsDescription)."""

    min_units: int
    max_units: int
    disabled: bool = False
    role_arn: str | None = None
    policy: Policy | None = None


@dataclass
class TargetUpdate:
    """One AutoScalingSettingsUpdate; None: not in the request."""

    min_units: int | None = None
    max_units: int | None = None
    disabled: bool | None = None
    role_arn: str | None = None
    policy: Policy | None = None  # name "": the default name


@dataclass
class Scaling:
    """One replica's settings: its table's targets and its GSIs', by READ / WRITE."""

    table: dict[str, Target] = field(default_factory=dict)
    indexes: dict[str, dict[str, Target]] = field(default_factory=dict)

    def targets(self) -> list[tuple[str | None, str, Target]]:
        """(index name or None, READ | WRITE, target) of every target set."""
        out: list[tuple[str | None, str, Target]] = [(None, k, t) for k, t in self.table.items()]
        for name, kinds in self.indexes.items():
            out += [(name, k, t) for k, t in kinds.items()]
        return out

    def to_record(self) -> bytes:
        def one(t: Target) -> dict[str, Any]:
            return {**vars(t), "policy": vars(t.policy) if t.policy is not None else None}

        return orjson.dumps({
            "table": {k: one(t) for k, t in self.table.items()},
            "indexes": {n: {k: one(t) for k, t in kinds.items()} for n, kinds in self.indexes.items()},
        })  # fmt: skip

    @classmethod
    def from_record(cls, raw: bytes) -> Scaling:
        def one(r: dict[str, Any]) -> Target:
            p = r.get("policy")
            return Target(**{**r, "policy": Policy(**p) if p is not None else None})

        r = orjson.loads(raw)
        return cls(
            {k: one(t) for k, t in r["table"].items()},
            {n: {k: one(t) for k, t in kinds.items()} for n, kinds in r["indexes"].items()},
        )


@dataclass
class ScalingUpdate:
    """An UpdateTableReplicaAutoScaling request."""

    write: TargetUpdate | None = None  # every replica's table write capacity
    index_writes: dict[str, TargetUpdate] = field(default_factory=dict)  # every replica's GSI writes
    reads: dict[str, TargetUpdate] = field(default_factory=dict)  # region -> its table's reads
    index_reads: dict[str, dict[str, TargetUpdate]] = field(default_factory=dict)  # region -> GSI -> reads
    regions: list[str] = field(default_factory=list)  # every RegionName of ReplicaUpdates, as listed

    @property
    def empty(self) -> bool:
        return self.write is None and not self.index_writes and not self.regions


@dataclass
class Replica:
    """A replica as the operations see it: its region, namespace, table and status."""

    region: str
    db: Namespace
    table: Table
    status: str = "ACTIVE"


# --- where the settings are kept ----------------------------------------------------------------


PROBE_KEY = keyspace.meta_counter_key(_RECORD)  # no record's key: a read that tells a store still opens


def _key(table: Table) -> bytes:
    return keyspace.meta_counter_key(f"{_RECORD}{table.spec.table_id}")


def load(table: Table) -> Scaling:
    raw = table.store.get(_key(table))
    return Scaling.from_record(raw) if raw is not None else Scaling()


def save(table: Table, scaling: Scaling) -> None:
    batch = WriteBatch()
    batch.put(_key(table), scaling.to_record())
    table.store.write(batch)


# --- UpdateTableReplicaAutoScaling ----------------------------------------------------------------


def resource_id(table: str, index: str | None) -> str:
    """Application Auto Scaling's resource id: ``table/T`` or ``table/T/index/I``."""
    return f"table/{table}" if index is None else f"table/{table}/index/{index}"


def _policy(p: Policy, kind: str, resource: str) -> Policy:
    if not MIN_TARGET <= p.target <= MAX_TARGET:
        raise errors.validation(errors.msg_autoscaling_target_range(p.target, MIN_TARGET, MAX_TARGET))
    for which, value in (("ScaleInCooldown", p.scale_in_cooldown), ("ScaleOutCooldown", p.scale_out_cooldown)):
        if value < 0:
            raise errors.validation(errors.msg_autoscaling_negative_cooldown(which, value))
    if not p.name:  # the name Application Auto Scaling's console gives a DynamoDB policy (dynemu's choice)
        p = copy.copy(p)
        p.name = f"DynamoDB{kind.capitalize()}CapacityUtilization:{resource}"
    return p


def _merge(old: Target | None, u: TargetUpdate, kind: str, resource: str) -> Target | None:
    """The target after ``u``; None when nothing is set (disabled before it was ever set)."""
    lo = u.min_units if u.min_units is not None else (old.min_units if old else None)
    hi = u.max_units if u.max_units is not None else (old.max_units if old else None)
    if lo is None or hi is None:
        if old is None and u.disabled and u.policy is None:
            return None
        raise errors.validation(errors.msg_autoscaling_bounds_required(resource))
    if lo > hi:
        raise errors.validation(errors.msg_autoscaling_min_above_max(lo, hi))
    policy = _policy(u.policy, kind, resource) if u.policy is not None else (old.policy if old else None)
    return Target(
        lo, hi,
        disabled=u.disabled if u.disabled is not None else (old.disabled if old else False),
        role_arn=u.role_arn if u.role_arn is not None else (old.role_arn if old else None),
        policy=policy,
    )  # fmt: skip


def _set(targets: dict[str, Target], kind: str, old: Target | None, u: TargetUpdate, resource: str) -> None:
    t = _merge(old, u, kind, resource)
    if t is None:
        targets.pop(kind, None)
    else:
        targets[kind] = t


def _check(replicas: list[Replica], u: ScalingUpdate) -> None:
    home = replicas[0].table
    if u.empty:
        raise errors.validation(errors.MSG_AUTOSCALING_NO_UPDATES)
    if home.spec.billing_mode == "PAY_PER_REQUEST":
        raise errors.validation(errors.MSG_AUTOSCALING_ON_DEMAND)
    regions = {r.region for r in replicas}
    for i, region in enumerate(u.regions):
        if region not in regions:
            raise errors.validation(errors.msg_autoscaling_unknown_replica(region, home.name))
        if region in u.regions[:i]:
            raise errors.validation(errors.msg_autoscaling_duplicate("Region", region))
    gsis = {s.name for s in home.spec.indexes if s.is_global}
    for name in [*u.index_writes, *(n for per in u.index_reads.values() for n in per)]:
        if name not in gsis:
            raise errors.validation(errors.msg_autoscaling_unknown_index(name, home.name))


def update(replicas: list[Replica], u: ScalingUpdate) -> None:
    """Apply an UpdateTableReplicaAutoScaling to every replica (``replicas[0]``: the one asked):
    all is checked before anything is saved; then capacities outside new bounds move to them."""
    _check(replicas, u)
    name = replicas[0].table.name
    planned: list[tuple[Replica, Scaling]] = []
    for r in replicas:
        old = load(r.table)
        new = copy.deepcopy(old)
        table_id = resource_id(name, None)
        if u.write is not None:
            _set(new.table, WRITE, old.table.get(WRITE), u.write, table_id)
        if r.region in u.reads:
            _set(new.table, READ, old.table.get(READ), u.reads[r.region], table_id)
        per_index = [(n, WRITE, x) for n, x in u.index_writes.items()]
        per_index += [(n, READ, x) for n, x in u.index_reads.get(r.region, {}).items()]
        for index, kind, x in per_index:
            kinds = new.indexes.setdefault(index, {})
            _set(kinds, kind, old.indexes.get(index, {}).get(kind), x, resource_id(name, index))
            if not kinds:
                del new.indexes[index]
        planned.append((r, new))
    for r, scaling in planned:
        save(r.table, scaling)
    for r, scaling in planned:
        clamp(r.db, r.table, scaling)


# --- capacity, through UpdateTable's path -----------------------------------------------------------


def capacity(table: Table, index: str | None, kind: str) -> int:
    """The provisioned units of a table's (or GSI's) read or write capacity."""
    tp = table.spec.throughput if index is None else next(s.throughput for s in table.spec.indexes if s.name == index)
    return tp.read if kind == READ else tp.write


def set_capacity(db: Namespace, table: Table, index: str | None, kind: str, units: int) -> None:
    """Change one capacity as UpdateTable does (``ddl.update_table``: quotas, decreases per
    day, the capacity model following the new spec)."""
    if index is None:
        tp = table.spec.throughput
        pair = (units, tp.write) if kind == READ else (tp.read, units)
        u = ddl.TableUpdate(provisioned=pair)
    else:
        tp = next(s.throughput for s in table.spec.indexes if s.name == index)
        pair = (units, tp.write) if kind == READ else (tp.read, units)
        u = ddl.TableUpdate(gsi_changes={index: ddl.GsiChange(index, provisioned=pair)}, gsi_updates_given=True)
    region = table.spec.arn.split(":")[3]
    ddl.update_table(db, table, u, region)


def clamp(db: Namespace, table: Table, scaling: Scaling) -> None:
    """Move each enabled target's capacity into its bounds (as registering a scalable target
    does); a change the table refuses (its decrease quota) is logged and left."""
    if table.spec.billing_mode == "PAY_PER_REQUEST":
        return
    for index, kind, t in scaling.targets():
        if t.disabled or (index is not None and not any(s.name == index for s in table.spec.indexes)):
            continue
        now = capacity(table, index, kind)
        want = min(max(now, t.min_units), t.max_units)
        if want != now:
            try:
                set_capacity(db, table, index, kind, want)
            except errors.DynamoError as e:
                log.info("auto scaling of %s not applied: %s", resource_id(table.name, index), e.message)
