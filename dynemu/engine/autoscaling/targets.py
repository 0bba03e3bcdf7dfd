"""Application Auto Scaling for DynamoDB: scalable targets, target tracking policies and scaling
activities -- the one home of every auto scaling setting.

Application Auto Scaling (API reference, "RegisterScalableTarget", "PutScalingPolicy") keeps,
per account and Region, scalable targets -- one provisioned dimension of a table
(``table/T``) or of a GSI (``table/T/index/I``): ``dynamodb:{table,index}:{Read,Write}CapacityUnits``
-- each with its minimum and maximum, and the scaling policies attached to it. DynamoDB's
replica auto scaling operations are a facade over the same objects: settings made either way
appear in the other at once (observed service answers (aws-controllers-k8s ack-api-quirks,
DynamoDB, 2026-10-09)); ``engine/autoscaling/replica_settings.py`` reads and writes them here, and the
scaler (``engine/autoscaling/scaler.py``) acts on them.

Observed rules kept here: a DynamoDB predefined metric's target value lies between 10 and 90
(any target tracking policy's between 8.51592E-109 and 1.174271E108); cooldowns are taken as
given, negative or huge; the role is always the service-linked role; a target outlives its
table (DeleteTable orphans it); registering bounds moves a capacity outside them into them at
once (the minimum is enforced even without a policy), which is a scaling activity.

The state of a namespace (one account and Region) is one record in its store.
"""

from __future__ import annotations

import decimal
import logging
import uuid
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from dynemu import errors
from dynemu.engine import ddl
from dynemu.engine.namespace import ACCOUNT_ID
from dynemu.engine.table import Table
from dynemu.storage import keyspace
from dynemu.storage.base import WriteBatch

if TYPE_CHECKING:
    from dynemu.engine.namespace import Namespace

log = logging.getLogger("dynemu.engine.autoscaling.targets")

NAMESPACE = "dynamodb"
READ, WRITE = "read", "write"
METRICS = {READ: "DynamoDBReadCapacityUtilization", WRITE: "DynamoDBWriteCapacityUtilization"}
ROLE = (
    f"arn:aws:iam::{ACCOUNT_ID}:role/aws-service-role/dynamodb.application-autoscaling.amazonaws.com/"
    "AWSServiceRoleForApplicationAutoScaling_DynamoDBTable"
)
MIN_METRIC_TARGET, MAX_METRIC_TARGET = 10.0, 90.0
MIN_TARGET, MAX_TARGET = 8.51592e-109, 1.174271e108
MAX_ACTIVITIES = 100  # kept per namespace, the newest
RECORD_KEY = keyspace.AUTOSCALING_KEY


def dimension(index: str | None, kind: str) -> str:
    return f"dynamodb:{'table' if index is None else 'index'}:{'Read' if kind == READ else 'Write'}CapacityUnits"


def resource_id(table: str, index: str | None) -> str:
    return f"table/{table}" if index is None else f"table/{table}/index/{index}"


def parse(resource: str, dim: str) -> tuple[str, str | None, str]:
    """(table name, index name or None, READ | WRITE) of a DynamoDB resource id and dimension."""
    parts = resource.split("/")
    kinds = {"ReadCapacityUnits": READ, "WriteCapacityUnits": WRITE}
    d = dim.split(":")
    ok = len(d) == 3 and d[0] == "dynamodb" and d[2] in kinds
    if ok and len(parts) == 2 and parts[0] == "table" and parts[1] and d[1] == "table":
        return parts[1], None, kinds[d[2]]
    if ok and len(parts) == 4 and parts[0] == "table" and parts[2] == "index" and parts[1] and parts[3] and d[1] == "index":
        return parts[1], parts[3], kinds[d[2]]
    raise errors.aas_validation(errors.MSG_AAS_UNSUPPORTED)


def java_double(x: float) -> str:
    """``Double.toString``: plain between 10^-3 and 10^7, else ``d.dddE<n>``."""
    if x != x or x in (float("inf"), float("-inf")):
        return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")
    if x == 0 or 1e-3 <= abs(x) < 1e7:
        s = repr(float(x))
        return s if "e" not in s else f"{decimal.Decimal(s):f}"
    sign, digits, exp = decimal.Decimal(repr(float(x))).as_tuple()
    ds = "".join(map(str, digits)).rstrip("0") or "0"
    power = len(digits) + int(exp) - 1
    return f"{'-' if sign else ''}{ds[0]}.{ds[1:] or '0'}E{power}"


# --- the objects ------------------------------------------------------------------------------------


@dataclass
class Policy:
    """A target tracking scaling policy; None: a member not given (not described)."""

    name: str
    target: float
    metric: str
    disable_scale_in: bool | None = None
    scale_in_cooldown: int | None = None
    scale_out_cooldown: int | None = None
    arn: str = ""
    alarms: list[str] = field(default_factory=list)
    created: float = 0.0


@dataclass
class Target:
    """A scalable target and its policies, in the order they were put."""

    resource: str
    dimension: str
    min_units: int
    max_units: int
    created: float = 0.0
    arn: str = ""
    suspended: dict[str, bool] = field(default_factory=dict)  # SuspendedState
    policies: list[Policy] = field(default_factory=list)

    @property
    def scale_out_suspended(self) -> bool:
        return bool(self.suspended.get("DynamicScalingOutSuspended"))

    @property
    def scale_in_suspended(self) -> bool:
        return bool(self.suspended.get("DynamicScalingInSuspended"))


@dataclass
class Activity:
    id: str
    resource: str
    dimension: str
    description: str
    cause: str
    start: float
    end: float
    status: str  # Successful | Failed
    message: str


@dataclass
class State:
    """One namespace's Application Auto Scaling objects."""

    targets: dict[tuple[str, str], Target] = field(default_factory=dict)
    activities: list[Activity] = field(default_factory=list)  # oldest first

    def target(self, resource: str, dim: str) -> Target | None:
        return self.targets.get((resource, dim))

    def of_table(self, table: str) -> list[Target]:
        """The targets of a table and of its indexes."""
        own, prefix = f"table/{table}", f"table/{table}/index/"
        return [t for t in self.targets.values() if t.resource == own or t.resource.startswith(prefix)]

    def to_record(self) -> bytes:
        return orjson.dumps({
            "targets": [asdict(t) for t in self.targets.values()],
            "activities": [asdict(a) for a in self.activities],
        })  # fmt: skip

    @classmethod
    def from_record(cls, raw: bytes) -> State:
        r = orjson.loads(raw)
        state = cls()
        for t in r["targets"]:
            target = Target(**{**t, "policies": [Policy(**p) for p in t["policies"]]})
            state.targets[(target.resource, target.dimension)] = target
        state.activities = [Activity(**a) for a in r["activities"]]
        return state


def load(owner: Any) -> State:
    """The state of a namespace (``owner``: the namespace, or any of its tables)."""
    raw = owner.store.get(RECORD_KEY)
    return State.from_record(raw) if raw is not None else State()


def save(db: Namespace, state: State) -> None:
    batch = WriteBatch()
    batch.put(RECORD_KEY, state.to_record())
    db.store.write(batch)


# --- checks -------------------------------------------------------------------------------------------


def check_bounds(lo: int, hi: int) -> None:
    if hi < lo:
        raise errors.aas_validation(errors.MSG_AAS_MAX_BELOW_MIN)


def check_target_value(value: float, metric: str) -> None:
    if not MIN_TARGET <= value <= MAX_TARGET:
        raise errors.aas_validation(errors.msg_aas_target_value(java_double(value)))
    if metric in METRICS.values() and not MIN_METRIC_TARGET <= value <= MAX_METRIC_TARGET:
        raise errors.aas_validation(errors.msg_aas_metric_target_value(metric, java_double(value)))


def _resource_table(db: Namespace, resource: str, dim: str) -> tuple[Table, str | None, str]:
    name, index, kind = parse(resource, dim)
    table = db.tables.get(name)
    if table is None:
        raise errors.aas_validation(errors.msg_aas_no_table(f"table/{name}"))
    if index is not None and not any(s.name == index and s.is_global for s in table.spec.indexes):
        raise errors.aas_validation(errors.msg_aas_no_index(resource))
    return table, index, kind


def _region(table: Table) -> str:
    return table.spec.arn.split(":")[3]


# --- RegisterScalableTarget / DeregisterScalableTarget ---------------------------------------------------


def register(
    db: Namespace, resource: str, dim: str, lo: int | None, hi: int | None, suspended: dict[str, bool] | None = None
) -> Target:
    """Register a target, or change an existing one's bounds / suspended state (the members
    given); then move the capacity into the bounds."""
    table, index, kind = _resource_table(db, resource, dim)
    state = load(db)
    old = state.target(resource, dim)
    if old is None and (lo is None or hi is None):
        raise errors.aas_validation(errors.msg_aas_new_target_bounds(resource))
    new_lo = lo if lo is not None else old.min_units  # type: ignore[union-attr]
    new_hi = hi if hi is not None else old.max_units  # type: ignore[union-attr]
    check_bounds(new_lo, new_hi)
    if old is None:
        region = _region(table)
        arn = f"arn:aws:application-autoscaling:{region}:{ACCOUNT_ID}:scalable-target/{uuid.uuid4().hex}"
        old = state.targets[(resource, dim)] = Target(resource, dim, new_lo, new_hi, db.now(), arn)
    old.min_units, old.max_units = new_lo, new_hi
    if suspended is not None:
        old.suspended.update(suspended)
    save(db, state)
    clamp(db, table, index, kind)
    return old


def deregister(db: Namespace, resource: str, dim: str) -> None:
    """Remove a target and its policies (ObjectNotFoundException when none is registered)."""
    parse(resource, dim)
    state = load(db)
    if state.targets.pop((resource, dim), None) is None:
        raise errors.aas_not_found(errors.msg_aas_no_target(NAMESPACE, resource, dim))
    save(db, state)


# --- PutScalingPolicy / DeleteScalingPolicy ---------------------------------------------------------------


def make_policy(db: Namespace, region: str, resource: str, dim: str, p: Policy) -> Policy:
    """``p`` with its ARN and alarms (a target tracking policy's four CloudWatch alarms)."""
    stamp = uuid.uuid4()
    p.arn = (
        f"arn:aws:autoscaling:{region}:{ACCOUNT_ID}:scalingPolicy:{stamp}:resource/dynamodb/{resource}"
        f":policyName/{p.name}"
    )
    p.alarms = [
        f"TargetTracking-{resource}-{kind}-{uuid.uuid5(stamp, kind)}"
        for kind in ("AlarmHigh", "AlarmLow", "ProvisionedCapacityHigh", "ProvisionedCapacityLow")
    ]
    p.created = db.now()
    return p


def check_policy(dim: str, p: Policy) -> None:
    kind = READ if dim.endswith("ReadCapacityUnits") else WRITE
    check_target_value(p.target, p.metric)
    if p.metric != METRICS[kind]:
        raise errors.aas_validation(errors.msg_aas_metric_mismatch(p.metric, dim))


def find_target(db: Namespace, resource: str, dim: str) -> Target:
    """The registered target (ObjectNotFoundException when none is)."""
    parse(resource, dim)
    target = load(db).target(resource, dim)
    if target is None:
        raise errors.aas_not_found(errors.msg_aas_no_target(NAMESPACE, resource, dim))
    return target


def put_policy(db: Namespace, resource: str, dim: str, p: Policy, *, replace_others: bool = False) -> Policy:
    """Attach (or update, by name) a target tracking policy to a registered target.
    ``replace_others``: the policy becomes the target's only one (the replica operations)."""
    parse(resource, dim)
    state = load(db)
    target = state.target(resource, dim)
    if target is None:
        raise errors.aas_not_found(errors.msg_aas_no_target(NAMESPACE, resource, dim))
    check_policy(dim, p)
    same = next((q for q in target.policies if q.name == p.name), None)
    region = target.arn.split(":")[3]
    if same is not None:
        p.arn, p.alarms, p.created = same.arn, same.alarms, same.created
    else:
        make_policy(db, region, resource, dim, p)
    if replace_others:
        target.policies = [p]
    elif same is not None:
        target.policies[target.policies.index(same)] = p
    else:
        target.policies.append(p)
    save(db, state)
    return p


def delete_policy(db: Namespace, name: str, resource: str, dim: str) -> None:
    parse(resource, dim)
    state = load(db)
    target = state.target(resource, dim)
    found = [q for q in target.policies if q.name == name] if target is not None else []
    if target is None or not found:
        raise errors.aas_not_found(errors.msg_aas_no_policy(NAMESPACE, resource, dim, name))
    target.policies.remove(found[0])
    save(db, state)


# --- capacity changes: through UpdateTable's path, each a scaling activity ----------------------------------


def capacity(table: Table, index: str | None, kind: str) -> int:
    """The provisioned units of a table's (or GSI's) read or write capacity."""
    tp = table.spec.throughput if index is None else next(s.throughput for s in table.spec.indexes if s.name == index)
    return tp.read if kind == READ else tp.write


def scale(db: Namespace, table: Table, index: str | None, kind: str, units: int, cause: str) -> bool:
    """Set one capacity as UpdateTable does (``ddl.update_table``: quotas, decreases per day,
    the capacity model following the new spec) and record the scaling activity."""
    if index is None:
        tp = table.spec.throughput
        pair = (units, tp.write) if kind == READ else (tp.read, units)
        u = ddl.TableUpdate(provisioned=pair)
    else:
        tp = next(s.throughput for s in table.spec.indexes if s.name == index)
        pair = (units, tp.write) if kind == READ else (tp.read, units)
        u = ddl.TableUpdate(gsi_changes={index: ddl.GsiChange(index, provisioned=pair)}, gsi_updates_given=True)
    what = f"{'read' if kind == READ else 'write'} capacity units"
    started = db.now()
    try:
        ddl.update_table(db, table, u, _region(table))
        ok, message = True, f"Successfully set {what} to {units}. Change successfully fulfilled by dynamodb."
    except errors.DynamoError as e:
        log.info("auto scaling of %s not applied: %s", resource_id(table.name, index), e.message)
        ok, message = False, f"Failed to set {what} to {units}. Reason: {e.message}"
    state = load(db)
    state.activities.append(Activity(
        str(uuid.uuid4()), resource_id(table.name, index), dimension(index, kind), f"Setting {what} to {units}.",
        cause, started, db.now(), "Successful" if ok else "Failed", message,
    ))  # fmt: skip
    del state.activities[:-MAX_ACTIVITIES]
    save(db, state)
    return ok


def clamp(db: Namespace, table: Table, index: str | None, kind: str) -> None:
    """Move one capacity into its target's bounds (a minimum is enforced even without a policy)."""
    if table.spec.billing_mode == "PAY_PER_REQUEST":
        return
    if index is not None and not any(s.name == index for s in table.spec.indexes):
        return
    target = load(db).target(resource_id(table.name, index), dimension(index, kind))
    if target is None:
        return
    now = capacity(table, index, kind)
    if now < target.min_units:
        scale(db, table, index, kind, target.min_units, f"minimum capacity was set to {target.min_units}")
    elif now > target.max_units:
        scale(db, table, index, kind, target.max_units, f"maximum capacity was set to {target.max_units}")
