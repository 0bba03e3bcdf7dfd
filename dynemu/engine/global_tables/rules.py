"""What UpdateTable may ask of a global table's membership: the refusals, in the service's order.

The rules and texts are the service's observed answers (``dynemu/errors/replication.py`` gives
the sources) and the developer guide's ("Global tables: how it works", "Multi-Region strong
consistency"):

* a replica is never in the table's own region;
* multi-Region eventual consistency (MREC): one Create or Delete per request; a Create of a
  region that has the table already, or a Delete / Update of a region that is not a member,
  is refused;
* multi-Region strong consistency (MRSC): the group is created whole, in one request, from a
  table that is empty and has neither TTL nor local secondary indexes: three Regions, that is
  two replica Creates, or one Create and a witness (``GlobalTableWitnessUpdates``, which needs
  ``MultiRegionConsistency: STRONG``), all of them Regions that offer MRSC. Afterwards it is
  frozen: no replica is added, and the only Delete is of every replica and the witness at once;
  the consistency mode of an existing global table never changes.

And a prerequisite of provisioned tables (observed service answers (aws-controllers-k8s
ack-api-quirks, DynamoDB, 2026-10-09)): a replica is added to a PROVISIONED table only when
its write capacity, and every GSI's, is auto scaled -- an Application Auto Scaling target with
a scaling policy (a target alone is not enough); afterwards, on the global table, a GSI update
needs every GSI's write capacity auto scaled the same way.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dynemu import errors
from dynemu.engine import ttl
from dynemu.engine.table import Table

if TYPE_CHECKING:
    from dynemu.engine.autoscaling import targets as scalable_targets

# The Regions that offer MRSC (API reference, "CreateGlobalTableWitnessGroupMemberAction"; the
# service accepts a group across these sets, and refuses e.g. us-west-1).
MRSC_REGIONS = frozenset((
    "us-east-1", "us-east-2", "us-west-2",
    "eu-west-1", "eu-west-2", "eu-west-3", "eu-central-1",
    "ap-northeast-1", "ap-northeast-2", "ap-northeast-3",
))  # fmt: skip


@dataclass
class Request:
    """One UpdateTable's membership changes, by region."""

    region: str  # the table's own
    creates: list[str]
    updates: list[str]
    deletes: list[str]
    consistency: str | None
    witness_creates: list[str]
    witness_deletes: list[str]


def check(req: Request, group: Any, table: Table, exists_in: Any) -> None:
    """Refuse what the service refuses. ``group``: the table's GlobalTable while it has other
    replicas, else None; ``exists_in(region)``: whether that region has a table of the name."""
    for r in (*req.creates, *req.deletes):
        if r == req.region:
            raise errors.validation(errors.MSG_LOCAL_REGION_REPLICA)
    if req.region in req.updates:
        raise errors.validation(errors.MSG_LOCAL_REGION_REPLICA_UPDATE)
    if group is None:
        _check_new(req, table, exists_in)
    elif group.consistency == "STRONG":
        _check_strong_group(req, group)
    else:
        _check_eventual_group(req, group, exists_in)
    if req.creates:
        check_write_autoscaled(table, gsis_only=False)


def _autoscaled(state: scalable_targets.State, table: str, index: str | None) -> bool:
    from dynemu.engine.autoscaling import targets as scalable_targets

    kind = scalable_targets.WRITE
    resource = scalable_targets.resource_id(table, index)
    t = state.target(resource, scalable_targets.dimension(index, kind))
    return t is not None and bool(t.policies)


def check_write_autoscaled(table: Table, *, gsis_only: bool) -> None:
    """A PROVISIONED table's write capacity, and every GSI's, auto scaled (a target with a
    policy in the table's Region); ``gsis_only``: the GSIs' alone (a GSI update of a global table)."""
    if table.spec.billing_mode != "PROVISIONED":
        return
    from dynemu.engine.autoscaling import targets as scalable_targets

    state = scalable_targets.load(table)
    if not gsis_only and not _autoscaled(state, table.name, None):
        raise errors.validation(errors.MSG_TABLE_WRITE_NOT_AUTOSCALED)
    if any(ix.is_global and not _autoscaled(state, table.name, ix.name) for ix in table.spec.indexes):
        raise errors.validation(errors.MSG_GSI_WRITE_NOT_AUTOSCALED)


def check_gsi_update(table: Table, group: Any) -> None:
    """A GSI update (GlobalSecondaryIndexUpdates) of a provisioned global table."""
    if group is not None and len(group.replicas) > 1:
        check_write_autoscaled(table, gsis_only=True)


def _check_new(req: Request, table: Table, exists_in: Any) -> None:
    """The first replicas of a regional table."""
    if (req.witness_creates or req.witness_deletes) and req.consistency != "STRONG":
        raise errors.validation(errors.MSG_WITNESS_WITHOUT_STRONG)
    missing = [r for r in (*req.updates, *req.deletes)]
    if req.consistency != "STRONG":
        if len(set(req.creates)) + len(req.deletes) > 1:
            raise errors.validation(errors.MSG_ONE_REPLICA_ACTION)
        if missing:
            raise errors.validation(errors.msg_replica_not_found(missing))
        _check_absent(req, table, exists_in)
        return
    if missing:
        raise errors.validation(errors.MSG_MRSC_ONLY_CREATES)
    every = [req.region, *req.creates, *req.witness_creates]
    if len(req.witness_creates) > 1 or len(every) != 3:
        raise errors.validation(errors.MSG_MRSC_REGION_COUNT)
    for w in req.witness_creates:
        if w == req.region:
            raise errors.validation(errors.MSG_WITNESS_IN_LOCAL_REGION)
        if w in req.creates:
            raise errors.validation(errors.MSG_WITNESS_IN_REPLICA_REGION)
    if len(set(every)) != 3:
        raise errors.validation(errors.MSG_MRSC_REGION_COUNT)
    unsupported = [r for r in every if r not in MRSC_REGIONS]
    if unsupported:
        raise errors.validation(errors.msg_mrsc_regions(unsupported))
    _check_absent(req, table, exists_in)
    if table.item_count > 0:
        raise errors.validation(errors.MSG_MRSC_NOT_EMPTY)
    if any(not ix.is_global for ix in table.spec.indexes):
        raise errors.validation(errors.MSG_MRSC_LSI)
    if ttl.describe(table).enabled:
        raise errors.validation(errors.MSG_MRSC_TTL)


def _check_absent(req: Request, table: Table, exists_in: Any) -> None:
    for r in req.creates:
        if exists_in(r):
            raise errors.validation(errors.msg_replica_exists(table.name))


def _check_eventual_group(req: Request, group: Any, exists_in: Any) -> None:
    if req.consistency == "STRONG":
        raise errors.validation(errors.MSG_MRSC_REGION_COUNT if len(req.creates) < 2 else errors.MSG_CONSISTENCY_FIXED)
    if req.consistency is not None:
        raise errors.validation(errors.MSG_CONSISTENCY_FIXED)
    if req.witness_creates or req.witness_deletes:
        raise errors.validation(errors.MSG_WITNESS_WITHOUT_STRONG)
    if len(set(req.creates)) + len(req.deletes) > 1:
        raise errors.validation(errors.MSG_ONE_REPLICA_ACTION)
    for r in req.creates:
        if r in group.replicas or exists_in(r):
            raise errors.validation(errors.msg_replica_exists(group.name))
    missing = [r for r in (*req.updates, *req.deletes) if r not in group.replicas]
    if missing:
        raise errors.validation(errors.msg_replica_not_found(missing))


def _check_strong_group(req: Request, group: Any) -> None:
    """An MRSC group is frozen: only its whole teardown is accepted."""
    if req.consistency is not None:
        if req.consistency == "STRONG" and (req.deletes or req.updates):
            raise errors.validation(errors.MSG_MRSC_ONLY_CREATES)
        raise errors.validation(
            errors.MSG_MRSC_REGION_COUNT if req.consistency == "STRONG" else errors.MSG_CONSISTENCY_FIXED
        )
    if req.creates:
        raise errors.validation(errors.MSG_MRSC_ADD_REPLICA)
    missing = [r for r in req.deletes if r not in group.replicas]
    if missing:
        raise errors.validation(errors.msg_replica_not_found(missing))
    stray = [w for w in req.witness_deletes if w != group.witness]
    if stray:
        raise errors.validation(errors.msg_witness_not_found(stray))
    if req.witness_creates:
        raise errors.validation(errors.MSG_MRSC_REGION_COUNT)
    if req.deletes:
        if group.witness is not None and group.witness not in req.witness_deletes:
            raise errors.validation(errors.MSG_MRSC_DELETE_WITNESSES)
        others = {r for r in group.replicas if r != req.region}
        if set(req.deletes) != others:
            raise errors.validation(errors.MSG_MRSC_DELETE_ONE)
