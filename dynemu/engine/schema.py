"""A table's definition and the key rules DynamoDB enforces on every item and key.

Key rules (DynamoDB developer guide, "Service, account, and table quotas" and
"Supported data types"): key attributes are scalars of the declared type (S, N or B),
string and binary key values may not be empty, a partition key value is at most 2048
bytes and a sort key value at most 1024 bytes.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from dynemu import errors
from dynemu.engine import limits

Value = dict[str, Any]
Item = dict[str, Value]

MAX_HASH_KEY_BYTES = 2048
MAX_RANGE_KEY_BYTES = 1024
TYPE_NAMES = {"S": "string", "N": "number", "B": "binary"}


class KeyAttr(NamedTuple):  # immutable: built at import for a fifth of a frozen dataclass's cost
    """A key attribute and its scalar type."""

    name: str
    type: str  # "S" | "N" | "B"


@dataclass
class Throughput:
    """Provisioned read and write units, with what the decrease quota needs."""

    read: int = 0
    write: int = 0
    last_increase: float | None = None
    last_decrease: float | None = None
    decreases_today: int = 0
    decrease_day: int = 0  # UTC day number the counter belongs to

    def change(self, read: int, write: int, now: float, per_day: int = limits.DEFAULT.decreases_per_day) -> None:
        """Apply a provisioned-throughput change, within the daily decrease quota
        (``limits.check_decrease``: ``per_day`` decreases in a UTC day, then one an hour)."""
        limits.check_decrease(self, read, write, now, per_day)
        decrease = read < self.read or write < self.write
        if read > self.read or write > self.write:
            self.last_increase = now
        if decrease:
            self.last_decrease = now
            self.decreases_today += 1
        self.read, self.write = read, write


@dataclass
class TableSpec:
    """Everything DescribeTable reports that is not derived from the data."""

    name: str
    table_id: int
    arn: str
    uuid: str
    created: float
    hash_key: KeyAttr
    range_key: KeyAttr | None
    attribute_definitions: list[KeyAttr]
    billing_mode: str = "PROVISIONED"  # or PAY_PER_REQUEST
    throughput: Throughput = field(default_factory=Throughput)
    billing_mode_updated: float | None = None
    billing_mode_explicit: bool = True  # BillingModeSummary is absent when BillingMode was never given
    deletion_protection: bool = False
    tags: dict[str, str] = field(default_factory=dict)
    table_class: str = "STANDARD"
    on_demand_max_read: int = -1
    on_demand_max_write: int = -1
    warm_read: int = 0  # WarmThroughput asked for (units per second); 0: none
    warm_write: int = 0
    indexes: list[IndexSpec] = field(default_factory=list)  # LSIs, then GSIs
    pitr_since: float | None = None  # point-in-time recovery: when enabled; None: disabled
    pitr_days: int = 35  # its RecoveryPeriodInDays

    @property
    def key_schema(self) -> list[tuple[str, str, str]]:
        """``[(name, "HASH"|"RANGE", type)]``, HASH first."""
        out = [(self.hash_key.name, "HASH", self.hash_key.type)]
        if self.range_key is not None:
            out.append((self.range_key.name, "RANGE", self.range_key.type))
        return out

    @property
    def key_names(self) -> tuple[str, ...]:
        if self.range_key is None:
            return (self.hash_key.name,)
        return (self.hash_key.name, self.range_key.name)

    def to_record(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "table_id": self.table_id,
            "arn": self.arn,
            "uuid": self.uuid,
            "created": self.created,
            "hash_key": [self.hash_key.name, self.hash_key.type],
            "range_key": [self.range_key.name, self.range_key.type] if self.range_key else None,
            "attribute_definitions": [[a.name, a.type] for a in self.attribute_definitions],
            "billing_mode": self.billing_mode,
            "throughput": vars(self.throughput),
            "billing_mode_updated": self.billing_mode_updated,
            "billing_mode_explicit": self.billing_mode_explicit,
            "deletion_protection": self.deletion_protection,
            "tags": self.tags,
            "table_class": self.table_class,
            "on_demand_max_read": self.on_demand_max_read,
            "on_demand_max_write": self.on_demand_max_write,
            "warm_read": self.warm_read,
            "warm_write": self.warm_write,
            "indexes": [i.to_record() for i in self.indexes],
            "pitr_since": self.pitr_since,
            "pitr_days": self.pitr_days,
        }

    @classmethod
    def from_record(cls, r: dict[str, Any]) -> TableSpec:
        rk = r.get("range_key")
        return cls(
            name=r["name"],
            table_id=r["table_id"],
            arn=r["arn"],
            uuid=r["uuid"],
            created=r["created"],
            hash_key=KeyAttr(*r["hash_key"]),
            range_key=KeyAttr(*rk) if rk else None,
            attribute_definitions=[KeyAttr(*a) for a in r["attribute_definitions"]],
            billing_mode=r["billing_mode"],
            throughput=Throughput(**r["throughput"]),
            billing_mode_updated=r.get("billing_mode_updated"),
            billing_mode_explicit=r.get("billing_mode_explicit", True),
            deletion_protection=r.get("deletion_protection", False),
            tags=r.get("tags", {}),
            table_class=r.get("table_class", "STANDARD"),
            on_demand_max_read=r.get("on_demand_max_read", -1),
            on_demand_max_write=r.get("on_demand_max_write", -1),
            warm_read=r.get("warm_read", 0),
            warm_write=r.get("warm_write", 0),
            indexes=_indexes_from(r.get("indexes") or ()),
            pitr_since=r.get("pitr_since"),
            pitr_days=r.get("pitr_days", 35),
        )


def _indexes_from(records: Any) -> list[IndexSpec]:
    return [IndexSpec.from_record(r) for r in records]


def _key_value_size(attr: KeyAttr, v: Value) -> int:
    raw = v[attr.type]
    if attr.type == "S":
        return len(raw.encode("utf-8"))
    if attr.type == "B":
        try:
            return len(base64.b64decode(raw, validate=True))
        except (ValueError, TypeError):
            return len(raw)
    return len(raw)


def check_key_value(attr: KeyAttr, v: Value, is_hash: bool) -> None:
    """A key value of the right type: not empty (S, B) and within the key size limits
    (https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/ServiceQuotas.html)."""
    raw = v[attr.type]
    if attr.type in ("S", "B") and raw == "":
        raise errors.validation(errors.msg_empty_key_value(TYPE_NAMES[attr.type], attr.name))
    size = _key_value_size(attr, v)
    if is_hash and size > MAX_HASH_KEY_BYTES:
        raise errors.invalid_parameter(errors.msg_hash_key_too_large(MAX_HASH_KEY_BYTES))
    if not is_hash and size > MAX_RANGE_KEY_BYTES:
        raise errors.invalid_parameter(errors.msg_range_key_too_large(MAX_RANGE_KEY_BYTES))


def check_request_key_value(attr: KeyAttr, v: Any, is_hash: bool) -> None:
    """A key attribute's value as a request names it (``Key``): of the declared type,
    else the schema ValidationException; then ``check_key_value``."""
    if value_type_of(v) != attr.type:
        raise errors.validation(errors.MSG_SCHEMA)
    check_key_value(attr, v, is_hash)


def value_type_of(v: Any) -> str | None:
    """The type of ``v`` where it is an AttributeValue of one type, else None."""
    if isinstance(v, dict) and len(v) == 1:
        return next(iter(v))
    return None


def key_of_item(spec: TableSpec, item: Item) -> tuple[Value, Value | None]:
    """The (partition, sort) key of an item to be written (PutItem rules)."""
    out: list[Value | None] = []
    for attr, is_hash in ((spec.hash_key, True), (spec.range_key, False)):
        if attr is None:
            out.append(None)
            continue
        v = item.get(attr.name)
        if v is None:
            raise errors.invalid_parameter(errors.msg_missing_key(attr.name))
        t = value_type_of(v)
        if t != attr.type:
            raise errors.invalid_parameter(errors.msg_key_type_mismatch(attr.name, attr.type, t))
        check_key_value(attr, v, is_hash)
        out.append(v)
    return out[0], out[1]  # type: ignore[return-value]


def key_of_request(spec: TableSpec, key: Item) -> tuple[Value, Value | None]:
    """The (partition, sort) key given as ``Key`` (GetItem, UpdateItem, DeleteItem rules):
    exactly the key attributes, of the declared types."""
    n = 1 if spec.range_key is None else 2
    if len(key) != n:
        raise errors.validation(errors.MSG_SCHEMA)
    out: list[Value | None] = []
    for attr, is_hash in ((spec.hash_key, True), (spec.range_key, False)):
        if attr is None:
            out.append(None)
            continue
        v = key.get(attr.name)
        check_request_key_value(attr, v, is_hash)
        out.append(v)
    return out[0], out[1]  # type: ignore[return-value]


@dataclass
class IndexSpec:
    """One index as DescribeTable reports it (what is not derived from the data)."""

    name: str
    index_id: int
    is_global: bool
    hash_keys: tuple[KeyAttr, ...]
    range_keys: tuple[KeyAttr, ...]
    projection_type: str  # KEYS_ONLY | INCLUDE | ALL
    non_key_attributes: tuple[str, ...] = ()
    throughput: Throughput = field(default_factory=Throughput)  # GSIs only
    status: str = "ACTIVE"  # GSIs: CREATING while UpdateTable's backfill runs
    on_demand_max_read: int | None = None
    on_demand_max_write: int | None = None

    @property
    def key_schema(self) -> list[tuple[str, str, str]]:
        """``[(name, "HASH"|"RANGE", type)]``, HASH entries first."""
        return [(a.name, "HASH", a.type) for a in self.hash_keys] + [(a.name, "RANGE", a.type) for a in self.range_keys]

    def to_record(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "id": self.index_id,
            "global": self.is_global,
            "hash": [[a.name, a.type] for a in self.hash_keys],
            "range": [[a.name, a.type] for a in self.range_keys],
            "projection": self.projection_type,
            "non_key": list(self.non_key_attributes),
            "throughput": vars(self.throughput),
            "status": self.status,
            "odr": self.on_demand_max_read,
            "odw": self.on_demand_max_write,
        }

    @classmethod
    def from_record(cls, r: dict[str, Any]) -> IndexSpec:
        return cls(
            name=r["name"],
            index_id=r["id"],
            is_global=r["global"],
            hash_keys=tuple(KeyAttr(*a) for a in r["hash"]),
            range_keys=tuple(KeyAttr(*a) for a in r["range"]),
            projection_type=r["projection"],
            non_key_attributes=tuple(r.get("non_key", ())),
            throughput=Throughput(**r.get("throughput", {})),
            status=r.get("status", "ACTIVE"),
            on_demand_max_read=r.get("odr"),
            on_demand_max_write=r.get("odw"),
        )
