"""Account limits and control-plane throttling, in one place ("Service, account, and table
quotas in Amazon DynamoDB"; LimitExceededException in the API reference):

- tables per account in a region: 2,500 by default (CreateTable and restores beyond it);
- simultaneous table operations: 500 tables in CREATING, UPDATING or DELETING at once
  (CreateTable, UpdateTable, DeleteTable, UpdateTimeToLive, RestoreTableFromBackup,
  RestoreTableToPointInTime are refused beyond it). dynemu completes a create, delete or
  restore within its request, so the tables counted are those UPDATING (a GSI backfilling);
- one GSI created or deleted per UpdateTable, and none while another is being built;
- backups per account: DynamoDB has no such limit (``max_backups`` 0), settable to test one;
- provisioned throughput decreases: 4 in a UTC day, then one per hour;
- Time to Live: one change of a table's TTL setting per hour;
- the account's provisioned throughput per region: 80,000 read and 80,000 write capacity
  units by default over every provisioned table and GSI (DescribeLimits'
  AccountMaxRead/WriteCapacityUnits, "Throughput default quotas"); CreateTable, UpdateTable
  and restores that would reserve more are refused;
- per table: 40,000 read and 40,000 write capacity units, provisioned on a table or one of
  its GSIs, or served to an on-demand table (DescribeLimits' TableMaxRead/WriteCapacityUnits,
  ``TABLE_MAX_CAPACITY``: the one home of the figure);
- with ``--control-plane-throttling on``, the documented rates of control-plane calls:
  CreateBackup 50 a second, RestoreTableFromBackup 10, ListBackups 5, DescribeLimits once a
  minute (their API references), beyond which ThrottlingException. Off by default: a test
  suite polling these faster than the service allows would be throttled.

Each is a field of ``AccountLimits`` (a command-line flag, DynamoDB's default). The state
they count is derived from what the namespace already holds (its tables, their specs, the
backups' records); the rates keep one token bucket per account (namespace) and rated
operation: bounded records, nothing that grows with history.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, NamedTuple, Protocol

from dynemu import errors

HOUR = 3600.0
DAY_SECONDS = 86400
# The default per-table quota of read and of write capacity units ("Service, account, and
# table quotas in Amazon DynamoDB", "Throughput default quotas"): CreateTable and UpdateTable
# refuse more on a table or GSI (engine/ddl.py), DescribeLimits reports it, and an on-demand
# table is served at most this (engine/capacity/throughput.py: CapacityConfig).
TABLE_MAX_CAPACITY = 40000


class AccountLimits(NamedTuple):  # immutable: built at import for a fifth of a frozen dataclass's cost
    """The configured maxima (flags ``--max-tables`` ... ``--ttl-change-seconds``)."""

    max_tables: int = 2500
    max_table_operations: int = 500
    max_backups: int = 0  # 0: no limit (DynamoDB's)
    decreases_per_day: int = 4
    ttl_change_seconds: float = HOUR
    account_max_read: int = 80000  # DescribeLimits' account maxima
    account_max_write: int = 80000
    table_max_read: int = TABLE_MAX_CAPACITY
    table_max_write: int = TABLE_MAX_CAPACITY
    control_plane_throttling: bool = False  # the per-operation rates below
    # --transient-delays: CREATING, UPDATING and DELETING last a while (engine/transient.py)
    transient_delays: bool = False


DEFAULT = AccountLimits()

# Calls per second an account may make of these operations (each one's API reference).
CONTROL_RATES: dict[str, float] = {
    "CreateBackup": 50.0,  # "You can call CreateBackup at a maximum rate of 50 times per second"
    "RestoreTableFromBackup": 10.0,  # "at a maximum rate of 10 times per second"
    "ListBackups": 5.0,  # "You can call ListBackups a maximum of five times per second"
    "DescribeLimits": 1 / 60,  # "throttling errors if you call it more than once in a minute"
}


class ControlPlane:
    """One account's admission of rated control-plane calls: a token bucket per operation,
    holding up to one second of calls (at least one call), refilled at the operation's rate."""

    __slots__ = ("rates", "buckets")

    def __init__(self, limits: AccountLimits) -> None:
        self.rates = CONTROL_RATES if limits.control_plane_throttling else {}
        self.buckets: dict[str, tuple[float, float]] = {}  # operation -> (tokens, when)

    def admit(self, operation: str, now: float) -> None:
        """Take one call of ``operation``, else ThrottlingException."""
        rate = self.rates.get(operation)
        if rate is None:
            return
        most = max(1.0, rate)
        tokens, then = self.buckets.get(operation, (most, now))
        tokens = min(most, tokens + max(0.0, now - then) * rate)
        if tokens < 1.0:
            self.buckets[operation] = (tokens, now)
            raise errors.control_plane_throttled()
        self.buckets[operation] = (tokens - 1.0, now)


class _IndexSpec(Protocol):
    is_global: bool
    status: str


class _Spec(Protocol):
    indexes: list[Any]


class _Table(Protocol):
    spec: Any


def _busy(spec: _Spec) -> bool:
    """A table UPDATING: one of its GSIs is being built."""
    return any(s.is_global and s.status != "ACTIVE" for s in spec.indexes)


def check_new_table(limits: AccountLimits, tables: Iterable[_Table]) -> None:
    """CreateTable and restores: the account's table count, then simultaneous operations."""
    tables = list(tables)
    if len(tables) >= limits.max_tables:
        raise errors.limit_exceeded(errors.msg_table_limit(limits.max_tables))
    check_table_operation(limits, tables)


def check_table_operation(limits: AccountLimits, tables: Iterable[_Table], table: _Table | None = None) -> None:
    """Refuse a control-plane operation while ``max_table_operations`` tables are in a
    transitional state (``table``, the one operated on, does not count against itself)."""
    busy = sum(1 for t in tables if t is not table and _busy(t.spec))
    if busy >= limits.max_table_operations:
        raise errors.limit_exceeded(errors.msg_simultaneous_operations(limits.max_table_operations))


def check_index_changes(creates: int, deletes: int, building: bool) -> None:
    """UpdateTable: one GSI created or deleted per request, and none while another is being
    built (API_UpdateTable; the service's text)."""
    if creates + deletes > 1 or ((creates or deletes) and building):
        raise errors.limit_exceeded(errors.MSG_ONE_ONLINE_INDEX)


def reserved_units(spec: Any) -> tuple[int, int]:
    """Read and write units a table reserves against the account's maxima: its provisioned
    throughput and its GSIs' (an on-demand table reserves none)."""
    if spec.billing_mode == "PAY_PER_REQUEST":
        return 0, 0
    read, write = spec.throughput.read, spec.throughput.write
    for ix in spec.indexes:
        if ix.is_global:
            read, write = read + ix.throughput.read, write + ix.throughput.write
    return read, write


def check_account_throughput(limits: AccountLimits, tables: Iterable[_Table], spec: Any, old: Any = None) -> None:
    """CreateTable (``old`` None), UpdateTable (``old``: the spec it replaces) and restores:
    the provisioned units of every table and GSI of the account in the region stay within
    AccountMaxRead/WriteCapacityUnits ("Throughput default quotas": 80,000 each). A request
    that reserves no more than before is never refused."""
    new = reserved_units(spec)
    before = reserved_units(old) if old is not None else (0, 0)
    reserved = [0, 0]
    for t in tables:
        r, w = reserved_units(t.spec)
        reserved[0], reserved[1] = reserved[0] + r, reserved[1] + w
    region = spec.arn.split(":")[3]
    for k, which, limit in ((0, "ReadCapacityUnits", limits.account_max_read),
                            (1, "WriteCapacityUnits", limits.account_max_write)):  # fmt: skip
        more = new[k] - before[k]
        if more > 0 and reserved[k] + more > limit:
            raise errors.limit_exceeded(errors.msg_account_throughput(which, region, reserved[k], limit, more))


def check_backups(limits: AccountLimits, count: int) -> None:
    if limits.max_backups and count >= limits.max_backups:
        raise errors.limit_exceeded(errors.msg_backup_limit(limits.max_backups))


class _Decreases(Protocol):
    read: int
    write: int
    last_decrease: float | None
    decreases_today: int
    decrease_day: int


def check_decrease(tp: _Decreases, read: int, write: int, now: float, per_day: int = DEFAULT.decreases_per_day) -> None:
    """Provisioned throughput decreases: ``per_day`` in a UTC day, then at most one every
    hour ("Service, account, and table quotas": throughput decreases per day). Resets the
    day's counter of ``tp`` when the UTC day changed."""
    day = int(now // DAY_SECONDS)
    if tp.decrease_day != day:
        tp.decrease_day, tp.decreases_today = day, 0
    decrease = read < tp.read or write < tp.write
    if decrease and tp.decreases_today >= per_day and tp.last_decrease is not None:
        if now - tp.last_decrease < HOUR:
            raise errors.limit_exceeded(errors.msg_decreases_limited(
                tp.decreases_today, _utc_text(tp.last_decrease), _utc_text(tp.last_decrease + HOUR)
            ))


def check_ttl_change(changed_at: float | None, now: float, seconds: float = DEFAULT.ttl_change_seconds) -> None:
    """One change of a table's TTL setting per hour (API_UpdateTimeToLive)."""
    if changed_at is not None and now - changed_at < seconds:
        raise errors.validation(errors.MSG_COOLDOWN)


class _Account(Protocol):
    limits: AccountLimits
    control_plane: ControlPlane

    def now(self) -> float: ...


def describe_limits(db: _Account) -> dict[str, int]:
    """DescribeLimits: admitted at its documented rate (``ControlPlane``), then the configured
    account and table maxima."""
    db.control_plane.admit("DescribeLimits", db.now())
    limits = db.limits
    return {
        "AccountMaxReadCapacityUnits": limits.account_max_read,
        "AccountMaxWriteCapacityUnits": limits.account_max_write,
        "TableMaxReadCapacityUnits": limits.table_max_read,
        "TableMaxWriteCapacityUnits": limits.table_max_write,
    }


def _utc_text(t: float) -> str:
    """A time as the service writes it in quota messages: "Wednesday, July 25, 2018 8:48:14 PM UTC"."""
    d = datetime.fromtimestamp(t, tz=UTC)
    hour = d.hour % 12 or 12
    return f"{d:%A}, {d:%B} {d.day}, {d.year} {hour}:{d:%M:%S} {'AM' if d.hour < 12 else 'PM'} UTC"
