"""A traffic scenario: the tables and the phases of traffic, loaded from JSON and checked.

    {"name": "...", "look_for": "what the report shows", "model": "uniform", "seed": 7,
     "tables": [{"name": "t", "hash": ["pk", "S"], "range": ["sk", "N"],
                 "billing": "PROVISIONED", "read": 100, "write": 400,
                 "create": {"read": 1, "write": 3999},
                 "gsis": [{"name": "g", "hash": ["status", "S"], "read": 10, "write": 10}]}],
     "phases": [{"name": "steady", "duration": 60,
                 "update": [{"table": "t", "read": 100, "write": 100}],
                 "operations": [{"table": "t", "op": "write", "rate": 40, "ramp": [10, 80],
                                 "keys": {"distribution": "hot", "keys": 100, "hot_share": 0.5},
                                 "sort": {"distribution": "increasing"},
                                 "attributes": {"status": {"distribution": "uniform", "keys": 3}},
                                 "item_size": 1024}]}]}

``create`` (optional) is the throughput the table is created with, before its ``read``/
``write`` are applied with UpdateTable: how a table gets more partitions than its current
throughput needs (partitions are never merged). ``op`` is ``write`` (PutItem), ``read``
(GetItem; ``"consistent": true`` for strongly consistent reads) or ``query`` (a Query of one
partition key value, ``keys`` giving the values; with ``"index": NAME`` a Query on that GSI,
its hash key's values, eventually consistent as every GSI read is). Key distributions:
``uniform``, ``zipf`` (``s``), ``hot`` (``hot_share`` of the requests on ``hot_keys`` keys,
the rest uniform), ``sequential`` (0, 1, ... N-1, again), ``increasing`` (a new, larger key
each time), ``time`` (the clock's time in ``bucket`` seconds, optionally ``#shard`` of
``shards``). ``item_size`` is bytes, or ``[min, max]``. ``weighted`` names keys with their share of the
requests (``"weights": {"hot": 0.4}``), the rest uniform over ``keys`` keys.

An operation's ``"series": [r0, r1, ...]`` (requests per second for each ``series_period``
seconds of the phase, 1 by default) replaces ``rate``: the shape a measured series gives.
``"key_shards": N`` adds a random ``#0``..``#N-1`` suffix (write sharding) to the named keys
of a ``weighted`` distribution, read or written, else to every key written. A table's ``"warm": {"read": r, "write": w}`` creates it with that warm throughput. A scenario
built from AWS evidence (``dynemu scenario from-aws``, replay/from_aws.py) carries
``"notes"`` (the assumptions it made) and ``"evidence"`` (what production measured, per
minute, that ``dynemu replay --report`` sets beside the reproduction: replay/evidence_report.py).

Global tables: a table's ``"replicas": ["eu-west-1", ...]`` adds a replica in each region
(UpdateTable ReplicaUpdates) once it is created in the scenario's ``region``; an operation's
``"region"`` sends it to that region's replica (default: the scenario's region). A top-level
``"replication_lag_ms"`` sets the private server's --replication-lag-ms (an --endpoint
server keeps its own). The report then shows, second by second, what each region held.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from dynemu import errors
from dynemu.engine.capacity.policies import MODELS
from dynemu.engine.cloudwatch.metrics import THROTTLE_REASON_METRICS

DISTRIBUTIONS = ("uniform", "zipf", "hot", "sequential", "increasing", "time", "weighted")
OPS = ("write", "read", "query")
MAX_ITEM_SIZE = 400 * 1024


class ScenarioError(ValueError):
    pass


@dataclass
class KeySpec:
    distribution: str = "uniform"
    keys: int = 1000
    s: float = 1.1
    hot_share: float = 0.5
    hot_keys: int = 1
    bucket: float = 60.0
    shards: int = 0
    prefix: str = "k"
    weights: dict[str, float] = field(default_factory=dict)  # "weighted": key -> share of requests


@dataclass
class Index:
    name: str
    hash: tuple[str, str]
    range: tuple[str, str] | None = None
    read: int = 0
    write: int = 0
    projection: str = "KEYS_ONLY"


@dataclass
class Table:
    name: str
    hash: tuple[str, str]
    range: tuple[str, str] | None = None
    billing: str = "PROVISIONED"
    read: int = 0
    write: int = 0
    create: tuple[int, int] | None = None
    warm: tuple[int, int] | None = None  # WarmThroughput (read, write units per second)
    gsis: list[Index] = field(default_factory=list)
    replicas: list[str] = field(default_factory=list)  # regions besides the scenario's

    def attribute_type(self, name: str) -> str:
        for ks in [self.hash, self.range] + [k for g in self.gsis for k in (g.hash, g.range)]:
            if ks is not None and ks[0] == name:
                return ks[1]
        return "S"


@dataclass
class Operation:
    table: str
    op: str
    rate: float = 0.0
    ramp: tuple[float, float] | None = None
    keys: KeySpec = field(default_factory=KeySpec)
    sort: KeySpec = field(default_factory=lambda: KeySpec(distribution="increasing"))
    attributes: dict[str, KeySpec] = field(default_factory=dict)
    item_size: tuple[int, int] = (100, 100)
    consistent: bool = False
    region: str = ""  # where the requests go ("" until parse: the scenario's region)
    series: list[float] | None = None  # requests per second, one value per series_period seconds
    series_period: int = 1
    key_shards: int = 0  # write sharding: a "#0".."#N-1" suffix on every partition key (0: none)
    index: str = ""  # a query's GSI ("" : the table)

    def rate_at(self, elapsed: float, duration: float) -> float:
        if self.series is not None:
            return self.series[min(int(elapsed // self.series_period), len(self.series) - 1)]
        if self.ramp is None:
            return self.rate
        a, b = self.ramp
        return a + (b - a) * (elapsed / duration if duration else 0.0)


@dataclass
class Phase:
    name: str
    duration: int
    operations: list[Operation] = field(default_factory=list)
    update: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class Scenario:
    name: str
    tables: list[Table]
    phases: list[Phase]
    model: str = "gac"
    seed: int = 0
    look_for: str = ""
    region: str = "us-east-1"
    replication_lag_ms: float | None = None  # the private server's --replication-lag-ms
    notes: list[str] = field(default_factory=list)  # assumptions (from-aws), shown in the report
    evidence: dict[str, Any] | None = None  # production's measurements (from-aws)

    @property
    def duration(self) -> int:
        return sum(p.duration for p in self.phases)


SCENARIO_FIELDS = (
    "name", "look_for", "model", "seed", "region", "replication_lag_ms", "tables", "phases", "notes", "evidence",
)  # fmt: skip
TABLE_FIELDS = ("name", "hash", "range", "billing", "read", "write", "create", "warm", "gsis", "replicas")
INDEX_FIELDS = ("name", "hash", "range", "read", "write", "projection")
PHASE_FIELDS = ("name", "duration", "operations", "update")
OPERATION_FIELDS = (
    "table", "op", "rate", "ramp", "keys", "sort", "attributes", "item_size", "consistent", "region", "series",
    "series_period", "key_shards", "index",
)  # fmt: skip
EVIDENCE_FIELDS = ("table", "period", "start", "offset", "minutes", "throttled_keys", "gsis", "throttle_reasons")
# evidence.throttle_reasons' keys: the throttle metrics by reason (ReadKeyRangeThroughputThrottleEvents, ...)
REASONS = tuple(m.name for m in THROTTLE_REASON_METRICS)
MINUTE_FIELDS = ("minute", "consumed_read", "consumed_write", "read_throttle_events", "write_throttle_events")
UPDATE_FIELDS = ("table", "index", "read", "write")
CREATE_FIELDS = ("read", "write")


def _known(d: Any, fields: tuple[str, ...], where: str) -> dict[str, Any]:
    """``d`` as an object with only ``fields``: a misspelled field is an error, never ignored."""
    if not isinstance(d, dict):
        raise ScenarioError(f"{where}: expected an object")
    unknown = sorted(set(d) - set(fields))
    if unknown:
        raise ScenarioError(f"{where}: unknown fields {unknown} (expected some of {', '.join(fields)})")
    return d


def _list(d: dict[str, Any], key: str, where: str) -> list[Any]:
    v = d.get(key, [])
    if not isinstance(v, list):
        raise ScenarioError(f"{where}.{key}: expected a list")
    return v


def _need(d: dict[str, Any], key: str, where: str) -> Any:
    if key not in d:
        raise ScenarioError(f"{where}: missing {key!r}")
    return d[key]


def _num(v: Any, where: str, minimum: float = 0) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or v < minimum:
        raise ScenarioError(f"{where}: expected a number >= {minimum}, got {v!r}")
    return v


def _check_provisioned(d: dict[str, Any], where: str) -> None:
    """A PROVISIONED table's given ``read``/``write``: 1 or more (a missing one means 1)."""
    for k in ("read", "write"):
        if k in d:
            _num(d[k], f"{where}.{k}", 1)


def _keyschema(v: Any, where: str) -> tuple[str, str]:
    if not (isinstance(v, list) and len(v) == 2 and isinstance(v[0], str) and v[1] in ("S", "N", "B")):
        raise ScenarioError(f'{where}: expected [name, "S"|"N"|"B"], got {v!r}')
    return v[0], v[1]


def _keyspec(d: Any, where: str) -> KeySpec:
    spec = KeySpec(**_known(d, tuple(KeySpec.__dataclass_fields__), where))
    if spec.distribution not in DISTRIBUTIONS:
        raise ScenarioError(f"{where}: distribution must be one of {', '.join(DISTRIBUTIONS)}")
    _num(spec.keys, where + ".keys", 1)
    if not 0 <= spec.hot_share <= 1:
        raise ScenarioError(f"{where}: hot_share must be between 0 and 1")
    if not isinstance(spec.weights, dict) or not all(
        isinstance(k, str) and k and not isinstance(v, bool) and isinstance(v, int | float) and v >= 0
        for k, v in spec.weights.items()
    ):
        raise ScenarioError(f"{where}.weights: expected {{key: share}} with shares >= 0")
    if sum(spec.weights.values()) > 1 + 1e-9:
        raise ScenarioError(f"{where}.weights: the shares add up to more than 1")
    return spec


def _table(d: dict[str, Any], i: int) -> Table:
    where = f"tables[{i}]"
    _known(d, TABLE_FIELDS, where)
    for j, g in enumerate(_list(d, "gsis", where)):
        _known(g, INDEX_FIELDS, f"{where}.gsis[{j}]")
    gsis = [
        Index(
            name=_need(g, "name", f"{where}.gsis[{j}]"),
            hash=_keyschema(_need(g, "hash", f"{where}.gsis[{j}]"), f"{where}.gsis[{j}].hash"),
            range=_keyschema(g["range"], f"{where}.gsis[{j}].range") if g.get("range") else None,
            read=int(_num(g.get("read", 0), f"{where}.gsis[{j}].read")),
            write=int(_num(g.get("write", 0), f"{where}.gsis[{j}].write")),
            projection=g.get("projection", "KEYS_ONLY"),
        )
        for j, g in enumerate(d.get("gsis", []))
    ]
    billing = d.get("billing", "PROVISIONED")
    if billing not in ("PROVISIONED", "PAY_PER_REQUEST"):
        raise ScenarioError(f"{where}: billing must be PROVISIONED or PAY_PER_REQUEST")
    create = d.get("create")
    if create is not None:
        _known(create, CREATE_FIELDS, where + ".create")
    if billing == "PROVISIONED":  # DynamoDB's least provisioned throughput is 1 (no silent rounding up)
        _check_provisioned(d, where)
        if create is not None:
            _check_provisioned(create, where + ".create")
        for j, g in enumerate(d.get("gsis", [])):
            _check_provisioned(g, f"{where}.gsis[{j}]")
    warm = d.get("warm")
    if warm is not None:
        _known(warm, CREATE_FIELDS, where + ".warm")
        warm = (int(_num(warm.get("read", 0), where + ".warm.read")), int(_num(warm.get("write", 0), where + ".warm.write")))
    replicas = _list(d, "replicas", where)
    if not all(isinstance(r, str) and r for r in replicas) or len(set(replicas)) != len(replicas):
        raise ScenarioError(f"{where}.replicas: expected distinct region names, got {replicas!r}")
    return Table(
        name=_need(d, "name", where),
        hash=_keyschema(_need(d, "hash", where), where + ".hash"),
        range=_keyschema(d["range"], where + ".range") if d.get("range") else None,
        billing=billing,
        read=int(_num(d.get("read", 0), where + ".read")),
        write=int(_num(d.get("write", 0), where + ".write")),
        create=(int(create["read"]), int(create["write"])) if create else None,
        warm=warm,
        gsis=gsis,
        replicas=list(replicas),
    )


def _operation(d: dict[str, Any], where: str, tables: dict[str, Table]) -> Operation:
    table = _need(_known(d, OPERATION_FIELDS, where), "table", where)
    if table not in tables:
        raise ScenarioError(f"{where}: unknown table {table!r}")
    op = d.get("op", "write")
    if op not in OPS:
        raise ScenarioError(f"{where}: op must be one of {', '.join(OPS)}")
    if "rate" not in d and "ramp" not in d and "series" not in d:
        raise ScenarioError(f"{where}: give a rate, a ramp [from, to] or a series (requests per second)")
    series = d.get("series")
    if series is not None:
        if not isinstance(series, list) or not series:
            raise ScenarioError(f"{where}.series: expected a list of rates (requests per second)")
        series = [_num(v, f"{where}.series[{i}]") for i, v in enumerate(series)]
    ramp = d.get("ramp")
    if ramp is not None:
        if not (isinstance(ramp, list) and len(ramp) == 2):
            raise ScenarioError(f"{where}: ramp must be [from, to]")
        ramp = (_num(ramp[0], where + ".ramp"), _num(ramp[1], where + ".ramp"))
    index = d.get("index", "")
    if index and (op != "query" or index not in {g.name for g in tables[table].gsis}):
        raise ScenarioError(f"{where}.index: {index!r} is not a GSI of {table!r}" if op == "query"
                            else f"{where}.index: only a query reads an index")  # fmt: skip
    if index and d.get("consistent"):  # DynamoDB refuses it (GSI.md, "Reading data from a GSI")
        raise ScenarioError(f"{where}.consistent: {errors.MSG_CONSISTENT_GSI}")
    size = d.get("item_size", 100)
    sizes = (size, size) if not isinstance(size, list) else tuple(size)
    if len(sizes) != 2 or sizes[0] > sizes[1]:
        raise ScenarioError(f"{where}: item_size must be bytes or [min, max]")
    for s in sizes:
        _num(s, where + ".item_size", 1)
        if s > MAX_ITEM_SIZE:  # DynamoDB's item size limit (ServiceQuotas.html#limits-items)
            raise ScenarioError(f"{where}: item_size {s} is over DynamoDB's item size limit of {MAX_ITEM_SIZE} bytes")
    return Operation(
        table=table,
        op=op,
        rate=_num(d.get("rate", 0), where + ".rate"),
        ramp=ramp,
        keys=_keyspec(d.get("keys", {}), where + ".keys"),
        sort=_keyspec(d.get("sort", {"distribution": "increasing"}), where + ".sort"),
        attributes={k: _keyspec(v, f"{where}.attributes.{k}") for k, v in d.get("attributes", {}).items()},
        item_size=(int(sizes[0]), int(sizes[1])),
        consistent=bool(d.get("consistent", False)),
        region=d.get("region", ""),
        series=series,
        series_period=int(_num(d.get("series_period", 1), where + ".series_period", 1)),
        key_shards=int(_num(d.get("key_shards", 0), where + ".key_shards")),
        index=index,
    )


def parse(data: dict[str, Any]) -> Scenario:
    if not isinstance(data, dict):
        raise ScenarioError("a scenario is a JSON object")
    _known(data, SCENARIO_FIELDS, "scenario")
    _need(data, "tables", "scenario")
    tables = [_table(t, i) for i, t in enumerate(_list(data, "tables", "scenario"))]
    by_name = {t.name: t for t in tables}
    phases = []
    _need(data, "phases", "scenario")
    for i, p in enumerate(_list(data, "phases", "scenario")):
        where = f"phases[{i}]"
        _known(p, PHASE_FIELDS, where)
        ops = [
            _operation(o, f"{where}.operations[{j}]", by_name)
            for j, o in enumerate(_list(p, "operations", where))
        ]
        for j, u in enumerate(_list(p, "update", where)):
            _known(u, UPDATE_FIELDS, f"{where}.update[{j}]")
            if u.get("table") not in by_name:
                raise ScenarioError(f"{where}.update: unknown table {u.get('table')!r}")
        phases.append(
            Phase(
                name=p.get("name", f"phase {i + 1}"),
                duration=int(_num(_need(p, "duration", where), where + ".duration")),
                operations=ops,
                update=list(p.get("update", [])),
            )
        )
    if not tables:
        raise ScenarioError("scenario: no tables")
    model = data.get("model", "gac")
    if model not in MODELS:
        raise ScenarioError(f"scenario: model must be one of {', '.join(MODELS)}, got {model!r}")
    if not any(o.rate or (o.ramp and any(o.ramp)) or (o.series and any(o.series))
               for p in phases for o in p.operations if p.duration):  # fmt: skip
        raise ScenarioError("scenario: it sends nothing (no phase with a duration has an operation with a rate)")
    region = data.get("region", "us-east-1")
    _regions(tables, phases, region)
    lag = data.get("replication_lag_ms")
    return Scenario(
        name=data.get("name", "scenario"),
        tables=tables,
        phases=phases,
        model=model,
        seed=int(data.get("seed", 0)),
        look_for=data.get("look_for", ""),
        region=region,
        replication_lag_ms=None if lag is None else _num(lag, "scenario.replication_lag_ms"),
        notes=_notes(data.get("notes", [])),
        evidence=_evidence(data.get("evidence"), by_name),
    )


def _notes(v: Any) -> list[str]:
    if not isinstance(v, list) or not all(isinstance(n, str) for n in v):
        raise ScenarioError("scenario.notes: expected a list of strings")
    return list(v)


def _evidence(v: Any, tables: dict[str, Table]) -> dict[str, Any] | None:
    """Production's per-minute figures of one table, minute 0 at ``offset`` seconds into the
    scenario (0 by default): ``{"table", "period", "start", "offset",
    "minutes": [{"minute", "consumed_read", "consumed_write", "read_throttle_events",
    "write_throttle_events"}], "throttled_keys": {minute: [key, ...]}, "gsis": {...},
    "throttle_reasons": {"WriteKeyRangeThroughputThrottleEvents": events, ...}}`` (the table's
    throttle events by reason over the minutes, for the metrics the evidence has)."""
    if v is None:
        return None
    where = "scenario.evidence"
    _known(v, EVIDENCE_FIELDS, where)
    if v.get("table") not in tables:
        raise ScenarioError(f"{where}.table: unknown table {v.get('table')!r}")
    for i, m in enumerate(_list(v, "minutes", where)):
        _known(m, MINUTE_FIELDS, f"{where}.minutes[{i}]")
        for k in MINUTE_FIELDS:
            _num(_need(m, k, f"{where}.minutes[{i}]"), f"{where}.minutes[{i}].{k}")
    reasons = v.get("throttle_reasons", {})
    if not isinstance(reasons, dict):
        raise ScenarioError(f"{where}.throttle_reasons: expected {{metric: events}}")
    for name, n in reasons.items():
        if name not in REASONS:
            raise ScenarioError(f"{where}.throttle_reasons: {name!r} is not a throttle metric by reason")
        _num(n, f"{where}.throttle_reasons.{name}")
    gsis = v.get("gsis", {})
    names = {g.name for g in tables[v["table"]].gsis}
    if not isinstance(gsis, dict):
        raise ScenarioError(f"{where}.gsis: expected {{index: [minutes]}}")
    for ix, rows in gsis.items():
        if ix not in names:
            raise ScenarioError(f"{where}.gsis: {ix!r} is not a GSI of {v['table']!r}")
        if not isinstance(rows, list):
            raise ScenarioError(f"{where}.gsis.{ix}: expected a list of minutes")
        for i, m in enumerate(rows):
            _known(m, MINUTE_FIELDS, f"{where}.gsis.{ix}[{i}]")
            for k in MINUTE_FIELDS:
                _num(_need(m, k, f"{where}.gsis.{ix}[{i}]"), f"{where}.gsis.{ix}[{i}].{k}")
    return dict(v)


def _regions(tables: list[Table], phases: list[Phase], home: str) -> None:
    """Each replica is another region than the scenario's; each operation goes to a region
    that holds its table (resolving the default, the scenario's region)."""
    by_name = {t.name: t for t in tables}
    for i, t in enumerate(tables):
        if home in t.replicas:
            raise ScenarioError(f"tables[{i}].replicas: {home} is the scenario's region, where the table is created")
    for i, p in enumerate(phases):
        for j, o in enumerate(p.operations):
            o.region = o.region or home
            if o.region != home and o.region not in by_name[o.table].replicas:
                raise ScenarioError(
                    f"phases[{i}].operations[{j}]: table {o.table!r} has no replica in {o.region!r}"
                )


def load(path: str | Path) -> Scenario:
    try:
        data = orjson.loads(Path(path).read_bytes())
    except FileNotFoundError:
        raise ScenarioError(f"{path}: no such scenario file") from None
    except IsADirectoryError:
        raise ScenarioError(f"{path}: a directory, not a scenario file") from None
    except orjson.JSONDecodeError as e:
        raise ScenarioError(f"{path}: not valid JSON ({e})") from None
    return parse(data)
