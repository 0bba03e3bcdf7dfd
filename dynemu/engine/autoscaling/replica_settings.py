"""Replica auto scaling (UpdateTableReplicaAutoScaling, DescribeTableReplicaAutoScaling): a facade
over Application Auto Scaling's objects (``engine/autoscaling/targets.py``), which hold every setting.

What the service is observed to do (observed service answers (aws-controllers-k8s
ack-api-quirks, DynamoDB, 2026-10-09)), restated:

* The operations answer only for a global table: a table without replicas, like a missing
  one, is "Global table with name ... does not exist" (ResourceNotFoundException). TableName
  may be the table's ARN.
* Write settings are the global table's: an update sets them on every replica
  (ProvisionedWriteCapacityAutoScalingUpdate, and each GSI's in GlobalSecondaryIndexUpdates);
  read settings are each replica's own (ReplicaUpdates). A replica added later gets the write
  targets and policies.
* Each update of a dimension carries the whole setting -- MinimumUnits, MaximumUnits and
  ScalingPolicyUpdate -- unless it disables auto scaling (which removes the target and its
  policies, and is accepted on a dimension that never had any). The setting becomes one
  scalable target with one target tracking policy (a new PolicyName replaces the old policy);
  the role is always the service-linked one, whatever the request says.
* Application Auto Scaling's own refusals (maximum below minimum, a target value out of range)
  come back as DynamoDB ValidationExceptions carrying AAS's text.
* An unknown region or index is a ResourceNotFoundException; a region listed without an
  update, a ValidationException; an on-demand global table accepts only AutoScalingDisabled.
* The answer to an update is the description from before it (observed: the change shows in
  the next Describe); Replicas are listed by region name.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from dynemu import errors
from dynemu.engine.autoscaling import targets as aas
from dynemu.engine.autoscaling.targets import READ, WRITE, dimension, resource_id
from dynemu.engine.table import Table

if TYPE_CHECKING:
    from dynemu.engine.namespace import Namespace

__all__ = ["READ", "WRITE", "Replica", "ScalingUpdate", "TargetUpdate", "PolicyUpdate", "update", "targets_of"]

# UpdateGlobalTableSettings' names of the members an on-demand table refuses (the first two
# observed; the GSI ones dynemu's choice)
_PPR_PARAMETERS = {
    (False, WRITE): "GlobalTableProvisionedWriteCapacityAutoScalingSettingsUpdate",
    (True, WRITE): "ProvisionedWriteCapacityAutoScalingSettingsUpdate",
    (False, READ): "ReplicaProvisionedReadCapacityAutoScalingSettingsUpdate",
    (True, READ): "ProvisionedReadCapacityAutoScalingSettingsUpdate",
}


@dataclass
class PolicyUpdate:
    """A ScalingPolicyUpdate; None: not given."""

    name: str | None
    target: float
    disable_scale_in: bool | None = None
    scale_in_cooldown: int | None = None
    scale_out_cooldown: int | None = None


@dataclass
class TargetUpdate:
    """One AutoScalingSettingsUpdate; None: not in the request."""

    min_units: int | None = None
    max_units: int | None = None
    disabled: bool | None = None
    policy: PolicyUpdate | None = None

    def missing(self) -> list[str]:
        """What a non-disabling update lacks, in the service's order."""
        if self.disabled:
            return []
        given = {"MaximumUnits": self.max_units, "ScalingPolicyUpdate": self.policy, "MinimumUnits": self.min_units}
        return [k for k, v in given.items() if v is None]


@dataclass
class ScalingUpdate:
    """An UpdateTableReplicaAutoScaling request."""

    write: TargetUpdate | None = None  # every replica's table write capacity
    index_writes: dict[str, TargetUpdate] = field(default_factory=dict)  # every replica's GSI writes
    reads: dict[str, TargetUpdate] = field(default_factory=dict)  # region -> its table's reads
    index_reads: dict[str, dict[str, TargetUpdate]] = field(default_factory=dict)  # region -> GSI -> reads
    regions: list[str] = field(default_factory=list)  # every RegionName of ReplicaUpdates, as listed
    index_names: list[str] = field(default_factory=list)  # every IndexName named, as listed

    @property
    def empty(self) -> bool:
        return self.write is None and not self.index_writes and not self.regions

    def of(self, region: str) -> list[tuple[str | None, str, TargetUpdate]]:
        """(index or None, READ | WRITE, update) of every dimension of the replica in ``region``."""
        out: list[tuple[str | None, str, TargetUpdate]] = []
        if self.write is not None:
            out.append((None, WRITE, self.write))
        out += [(n, WRITE, x) for n, x in self.index_writes.items()]
        if region in self.reads:
            out.append((None, READ, self.reads[region]))
        out += [(n, READ, x) for n, x in self.index_reads.get(region, {}).items()]
        return out


@dataclass
class Replica:
    """A replica as the operations see it: its region, namespace, table and status."""

    region: str
    db: Namespace
    table: Table
    status: str = "ACTIVE"


def targets_of(db: Namespace, table: Table) -> dict[tuple[str | None, str], aas.Target]:
    """The table's scalable targets and its GSIs', by (index or None, READ | WRITE)."""
    out: dict[tuple[str | None, str], aas.Target] = {}
    state = aas.load(db)
    for index in [None, *(s.name for s in table.spec.indexes if s.is_global)]:
        for kind in (READ, WRITE):
            t = state.target(resource_id(table.name, index), dimension(index, kind))
            if t is not None:
                out[(index, kind)] = t
    return out


# --- UpdateTableReplicaAutoScaling ----------------------------------------------------------------


def _relayed(e: errors.DynamoError) -> errors.DynamoError:
    """An AAS ValidationException as DynamoDB answers it (the SDK's rendering, AAS's request id)."""
    return errors.validation(errors.msg_aas_relayed(e.message, str(uuid.uuid4())))


def _check_dimension(name: str, kind: str, u: TargetUpdate) -> None:
    missing = u.missing()
    if missing:
        raise errors.validation(errors.msg_autoscaling_parameters_required(name, missing))
    if u.disabled:
        return
    assert u.min_units is not None and u.max_units is not None and u.policy is not None
    try:
        aas.check_bounds(u.min_units, u.max_units)
        aas.check_target_value(u.policy.target, aas.METRICS[kind])
    except errors.DynamoError as e:
        raise _relayed(e) from None


def _check(replicas: list[Replica], u: ScalingUpdate) -> None:
    home = replicas[0].table
    name = home.name
    regions = {r.region for r in replicas}
    unknown = [r for r in dict.fromkeys(u.regions) if r not in regions]
    if unknown:
        raise errors.resource_not_found(errors.msg_autoscaling_unknown_regions(name, unknown))
    gsis = {s.name for s in home.spec.indexes if s.is_global}
    unknown = [n for n in dict.fromkeys(u.index_names) if n not in gsis]
    if unknown:
        raise errors.resource_not_found(errors.msg_autoscaling_unknown_indexes(name, unknown))
    if u.empty:
        raise errors.validation(errors.MSG_AUTOSCALING_NO_UPDATES)
    for i, region in enumerate(u.regions):
        if region in u.regions[:i]:
            raise errors.validation(errors.msg_autoscaling_duplicate_region(name, region))
        if region not in u.reads and not u.index_reads.get(region):
            raise errors.validation(errors.msg_autoscaling_region_without_update(name, region))
    every: dict[int, tuple[str | None, str, TargetUpdate]] = {}  # each update once (writes are shared)
    for region in sorted(regions):
        every.update((id(x), (index, kind, x)) for index, kind, x in u.of(region))
    if home.spec.billing_mode == "PAY_PER_REQUEST":
        refused = [_PPR_PARAMETERS[(index is not None, kind)] for index, kind, x in every.values() if not x.disabled]
        if refused:
            raise errors.validation(errors.msg_autoscaling_on_demand(name, sorted(regions), list(dict.fromkeys(refused))))
        return
    for _index, kind, x in every.values():
        _check_dimension(name, kind, x)


def _apply(r: Replica, index: str | None, kind: str, x: TargetUpdate) -> None:
    resource, dim = resource_id(r.table.name, index), dimension(index, kind)
    if x.disabled:
        if aas.load(r.db).target(resource, dim) is not None:
            aas.deregister(r.db, resource, dim)
        return
    assert x.policy is not None
    p = x.policy
    aas.register(r.db, resource, dim, x.min_units, x.max_units)
    name = p.name or f"{aas.METRICS[kind]}:{resource}"
    policy = aas.Policy(name, p.target, aas.METRICS[kind], p.disable_scale_in, p.scale_in_cooldown, p.scale_out_cooldown)
    aas.put_policy(r.db, resource, dim, policy, replace_others=True)


def update(replicas: list[Replica], u: ScalingUpdate) -> None:
    """Apply an UpdateTableReplicaAutoScaling to every replica: all is checked before anything
    is changed; a bound registered moves the capacity into it."""
    _check(replicas, u)
    for r in replicas:
        for index, kind, x in u.of(r.region):
            if r.table.spec.billing_mode == "PAY_PER_REQUEST" and not x.disabled:
                continue
            _apply(r, index, kind, x)
