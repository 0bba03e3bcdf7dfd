"""The target tracking scaler: Application Auto Scaling's targets and policies
(``engine/autoscaling/targets.py``, also set through replica auto scaling) acting on provisioned
capacity, on the namespace's clock. A target without a policy only holds its bounds; a target
with several is scaled by its first policy; SuspendedState's dynamic flags stop that direction.

How DynamoDB auto scaling acts (developer guide, "Managing throughput capacity automatically
with DynamoDB auto scaling"; AWS re:Post, "Why is DynamoDB auto scaling not working"):
DynamoDB publishes consumed capacity per minute; when consumption stays above the target
utilization for two consecutive one-minute datapoints, auto scaling raises the provisioned
capacity through UpdateTable so that utilization comes back to the target; when it stays low
for fifteen consecutive datapoints, it lowers it. Within MinimumUnits and MaximumUnits, after
the cooldowns, never lower with DisableScaleIn.

dynemu's timing choices where the guide is vague:

* A datapoint is one whole clock minute (``[60k, 60k + 60)``): the units the table (or GSI)
  consumed in it, from the capacity model's own per-second history
  (``engine/capacity/history.py``), divided by 60 and by the provisioned units.
* Scale out after 2 consecutive datapoints above the target, scale in after 15 consecutive
  datapoints more than 20 points below it (re:Post's example: target 70 %, lowered under 50 %).
* The new capacity is what brings the last minute's consumption to the target,
  ``ceil(consumed per second / target)``, within the bounds; throttled requests consume
  nothing, so under heavy throttling each step at most multiplies capacity by 100 / target.
* The change is applied when the deciding minute ends (no alarm delay, no minutes of
  UpdateTable), as a scaling activity, through ``engine/ddl.py: update_table`` as UpdateTable's own (the daily
  decrease quota included: a refused decrease is logged and tried again at the next datapoint).
  After a scaling activity both counts start again. The datapoint counts live in memory: a
  restarted server starts counting again.
* The scaler runs after every advance of a virtual clock, else once a clock minute on a timer;
  a namespace gets one at its first auto scaling call (either API), or when it opens holding
  targets. The namespace owns the scaler's clock subscription or timer, and cancels it when
  it closes (``Namespace.release``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from dynemu import errors
from dynemu.engine import indexes
from dynemu.engine.autoscaling import targets as aas
from dynemu.engine.autoscaling.replica_settings import targets_of
from dynemu.engine.autoscaling.targets import Policy, Target
from dynemu.engine.table import Table

if TYPE_CHECKING:
    from dynemu.engine.namespace import Namespace

log = logging.getLogger("dynemu.engine.autoscaling.scaler")

MINUTE = 60
SCALE_OUT_POINTS = 2
SCALE_IN_POINTS = 15
SCALE_IN_MARGIN = 20.0  # percentage points under the target
_HISTORY_MINUTES = 10  # the capacity history keeps 600 seconds
_MIN_PERIOD = 0.05  # real seconds between two passes, at most this often


@dataclass
class _Alarm:
    """One target's datapoint counts and last activities."""

    above: int = 0
    below: int = 0
    last_out: float | None = None
    last_in: float | None = None


def consumed(state: Any, kind: str, minute: int) -> float:
    """Units ``state`` consumed in clock minute ``minute``, from its per-second history."""
    lo, hi = minute * MINUTE, minute * MINUTE + MINUTE
    return float(sum(r[kind] for r in state.history.records if lo <= r["t"] < hi))


class Scaler:
    """The target tracking scaler of one namespace's tables."""

    def __init__(self, db: Namespace) -> None:
        self.db = db
        self.alarms: dict[tuple[int, str | None, str], _Alarm] = {}
        self.next_minute = int(db.now()) // MINUTE  # the first minute not yet evaluated
        self.activities = 0  # scaling activities applied, since start-up

    def run(self, now: float) -> None:
        """Evaluate every minute completed since the last pass."""
        current = int(now) // MINUTE
        if current <= self.next_minute:
            return
        first = max(self.next_minute, current - _HISTORY_MINUTES)
        self.next_minute = current
        for table in list(self.db.tables.values()):
            if table.spec.billing_mode == "PAY_PER_REQUEST":
                continue
            for (index, kind), t in targets_of(self.db, table).items():
                if not t.policies:  # a target without a policy only holds its bounds
                    continue
                state = self._state(table, index, now)
                if state is None:
                    continue
                state.history.sync(state, now)
                for minute in range(first, current):
                    self._datapoint(table, index, kind, t, consumed(state, kind, minute), minute)

    def _state(self, table: Table, index: str | None, now: float) -> Any:
        if index is None:
            return table.capacity.state
        ix = indexes.find(table, index)
        if ix is None or not ix.spec.is_global:
            return None
        return table.capacity.index_state(ix, now)

    def _datapoint(self, table: Table, index: str | None, kind: str, t: Target, units: float, minute: int) -> None:
        p = t.policies[0]  # dynemu tracks the first policy a target was given
        key = (table.spec.table_id, index, kind)
        alarm = self.alarms.setdefault(key, _Alarm())
        provisioned = aas.capacity(table, index, kind)
        per_second = units / MINUTE
        utilization = 100.0 * per_second / provisioned if provisioned > 0 else 0.0
        target = p.target
        alarm.above = alarm.above + 1 if utilization > target else 0
        alarm.below = alarm.below + 1 if utilization < target - SCALE_IN_MARGIN else 0
        end = float(minute * MINUTE + MINUTE)
        desired = math.ceil(per_second * 100.0 / target - 1e-9)
        if alarm.above >= SCALE_OUT_POINTS and not t.scale_out_suspended:
            if alarm.last_out is None or end - alarm.last_out >= (p.scale_out_cooldown or 0):
                new = min(max(desired, t.min_units), t.max_units)
                if new > provisioned and self._apply(table, index, kind, p, provisioned, new, end, "AlarmHigh"):
                    alarm.last_out = end
                    alarm.above = alarm.below = 0
        elif alarm.below >= SCALE_IN_POINTS and not p.disable_scale_in and not t.scale_in_suspended:
            if alarm.last_in is None or end - alarm.last_in >= (p.scale_in_cooldown or 0):
                new = min(max(desired, t.min_units), t.max_units)
                if new < provisioned and self._apply(table, index, kind, p, provisioned, new, end, "AlarmLow"):
                    alarm.last_in = end
                    alarm.above = alarm.below = 0

    def _apply(
        self, table: Table, index: str | None, kind: str, p: Policy, old: int, units: int, at: float, alarm: str
    ) -> bool:
        """Set the capacity through UpdateTable's path (a scaling activity); mark it on the
        capacity history's events (the dashboard's charts draw them)."""
        resource = aas.resource_id(table.name, index)
        name = next((a for a in p.alarms if f"-{alarm}-" in a), alarm)
        cause = f"monitor alarm {name} in state ALARM triggered policy {p.name}"
        if not aas.scale(self.db, table, index, kind, units, cause):
            return False
        self.activities += 1
        text = f"auto scaling: {kind} capacity {old} → {units}"
        log.info("%s: %s", resource, text)
        state = self._state(table, index, at)
        if state is not None:
            state.history.events.append({"t": int(at), "kind": "autoscaling", "text": text})
        return True


def on_replica_created(db: Namespace, source: Table, replica: Table) -> None:
    """A new replica of a global table gets the table's write targets and policies, copied
    into its Region's Application Auto Scaling (observed: DynamoDB mirrors them); its read
    settings start unset, as its own."""
    writes = [t for t in aas.load(source).of_table(source.name) if t.dimension.endswith("WriteCapacityUnits")]
    if not writes:
        return
    state = aas.load(db)
    region = replica.spec.arn.split(":")[3]
    for t in writes:
        arn = f"{t.arn.rsplit('/', 1)[0].replace(t.arn.split(':')[3], region)}/{uuid.uuid4().hex}"
        copy = aas.Target(t.resource, t.dimension, t.min_units, t.max_units, db.now(), arn, dict(t.suspended))
        copy.policies = [aas.make_policy(db, region, t.resource, t.dimension, dataclasses.replace(p)) for p in t.policies]
        state.targets[(t.resource, t.dimension)] = copy
    aas.save(db, state)
    attach(db)


def scaler_of(db: Namespace) -> Scaler | None:
    return db.scaler


def _pass(scaler: Scaler, now: float) -> None:
    """One pass (a closed namespace has cancelled the subscription or timer that calls it)."""
    try:
        scaler.run(now)
    except errors.DiskFull:  # the store logged the episode once; scaling resumes with space
        pass
    except Exception:  # a bug: log it and keep scaling (never swallow it silently)
        log.exception("replica auto scaling pass failed")


class _Every:
    """``tick()`` every ``period`` real seconds on ``loop``, until ``cancel``."""

    __slots__ = ("_loop", "_period", "_tick", "_handle")

    def __init__(self, loop: asyncio.AbstractEventLoop, period: float, tick: Callable[[], None]) -> None:
        self._loop, self._period, self._tick = loop, period, tick
        self._handle: asyncio.TimerHandle | None = loop.call_later(period, self._run)

    def _run(self) -> None:
        self._tick()
        if self._handle is not None:  # not cancelled by the tick
            self._handle = self._loop.call_later(self._period, self._run)

    def cancel(self) -> None:
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None


def attach(db: Namespace) -> Scaler:
    """The namespace's scaler, made and started when first attached (a namespace opening with
    targets, or the first call that sets any): it runs after every advance of a virtual
    clock, else once a clock minute on the running loop's timer (none without a loop: not
    kept then, so the next attach on the running loop starts it)."""
    if db.scaler is not None:
        return db.scaler
    scaler = Scaler(db)
    clock = db.clock
    if clock.mode == "virtual":
        db.own(clock.on_advance(lambda now: _pass(scaler, now)))
    else:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return scaler
        db.own(_Every(loop, max(_MIN_PERIOD, MINUTE / clock.scale), lambda: _pass(scaler, db.now())))
    if not db.closed:
        db.scaler = scaler
    return scaler
