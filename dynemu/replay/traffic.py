"""Deterministic traffic: the requests of each second of a scenario, and their batching.

Every operation of every phase draws from its own ``random.Random`` seeded from the
scenario's seed and its position, so the same scenario always sends the same requests.
A fractional rate is honoured over time: second ``i`` sends ``floor(R(i+1)) - floor(R(i))``
requests, ``R`` the cumulated rate.
"""

from __future__ import annotations

import base64
import random
from bisect import bisect_left
from dataclasses import dataclass
from itertools import accumulate
from typing import Any

from dynemu.replay.scenario import KeySpec, Operation, Phase, Scenario, Table

WRITE_BATCH = 25  # BatchWriteItem's limit
READ_BATCH = 100  # BatchGetItem's limit


@dataclass(slots=True)
class Request:
    table: str
    op: str  # write | read
    key: dict[str, Any]  # the item's primary key, wire format
    item: dict[str, Any] | None  # the whole item (writes)
    consistent: bool
    ident: bytes  # table + key, to keep duplicates out of one batch
    region: str = ""  # the region the request is sent to (a global table's replica)
    index: str = ""  # a query's GSI ("": the table)


class KeyGen:
    """Values of one key distribution."""

    def __init__(self, spec: KeySpec, rng: random.Random) -> None:
        self.spec, self.rng = spec, rng
        self.counter = 0
        self._cdf: list[float] | None = None
        if spec.distribution == "zipf":
            weights = [1.0 / (i**spec.s) for i in range(1, spec.keys + 1)]
            total = sum(weights)
            self._cdf = [w / total for w in accumulate(weights)]

    def next(self, now: float) -> str:
        spec, rng = self.spec, self.rng
        d = spec.distribution
        if d == "uniform":
            i = rng.randrange(spec.keys)
        elif d == "zipf":
            assert self._cdf is not None
            i = min(bisect_left(self._cdf, rng.random()), spec.keys - 1)
        elif d == "hot":
            if rng.random() < spec.hot_share:
                return f"{spec.prefix}hot{rng.randrange(spec.hot_keys)}"
            i = rng.randrange(spec.keys)
        elif d == "weighted":  # named keys with their shares, the rest uniform
            r = rng.random()
            for key, share in spec.weights.items():
                if r < share:
                    return key
                r -= share
            i = rng.randrange(spec.keys)
        elif d == "sequential":
            i = self.counter % spec.keys
            self.counter += 1
        elif d == "increasing":
            i = self.counter
            self.counter += 1
        else:  # time: the clock's time, in buckets (a date, an hour, a minute...)
            value = f"{spec.prefix}{int(now // spec.bucket):012d}"
            if spec.shards:
                value += f"#{rng.randrange(spec.shards)}"
            return value
        return f"{spec.prefix}{i:09d}"


def _wire(value: str, kind: str) -> dict[str, str]:
    if kind == "N":
        digits = "".join(c for c in value if c.isdigit()) or "0"
        return {"N": str(int(digits))}
    if kind == "B":
        return {"B": base64.b64encode(value.encode()).decode()}
    return {"S": value}


class OperationTraffic:
    """The requests of one operation of one phase."""

    def __init__(self, op: Operation, table: Table, rng: random.Random) -> None:
        self.op, self.table, self.rng = op, table, rng
        self.pk = KeyGen(op.keys, rng)
        self.sk = KeyGen(op.sort, rng) if table.range is not None else None
        self.attrs = {name: KeyGen(spec, rng) for name, spec in op.attributes.items()}
        self.sent = 0.0  # cumulated rate so far

    def second(self, elapsed: int, duration: int, now: float) -> list[Request]:
        # the mean rate over [elapsed, elapsed + 1) of a linear ramp is its value at the middle
        before = self.sent
        self.sent += self.op.rate_at(elapsed + 0.5, duration)
        count = int(self.sent + 1e-9) - int(before + 1e-9)
        return [self._request(now) for _ in range(count)]

    def _request(self, now: float) -> Request:
        t, op = self.table, self.op
        pk = self.pk.next(now)
        if op.op == "query":  # one partition key value of the table, or of the GSI
            hash_key = next(g.hash for g in t.gsis if g.name == op.index) if op.index else t.hash
            key = {hash_key[0]: _wire(pk, hash_key[1])}
            return Request(t.name, "query", key, None, False, b"", op.region, op.index)
        if op.key_shards and (pk in op.keys.weights if op.keys.weights else op.op == "write"):
            # write sharding: a named (hot) key, read or written, or else every key written, spread
            # over N suffixes (a read of a sharded key reads one shard)
            pk += f"#{self.rng.randrange(op.key_shards)}"
        key = {t.hash[0]: _wire(pk, t.hash[1])}
        if self.sk is not None and t.range is not None:
            key[t.range[0]] = _wire(self.sk.next(now), t.range[1])
        ident = (t.name + "\0" + repr(sorted((k, tuple(v.items())) for k, v in key.items()))).encode()
        item = None
        if op.op == "write":
            item = dict(key)
            for name, gen in self.attrs.items():
                item[name] = _wire(gen.next(now), t.attribute_type(name))
            lo, hi = op.item_size
            size = lo if lo == hi else self.rng.randint(lo, hi)
            overhead = sum(len(k) + len(next(iter(v.values()))) for k, v in item.items()) + 3
            item["pad"] = {"S": "x" * max(1, size - overhead)}
        return Request(t.name, op.op, key, item, op.consistent, ident, op.region)


class PhaseTraffic:
    def __init__(self, scenario: Scenario, index: int, phase: Phase) -> None:
        tables = {t.name: t for t in scenario.tables}
        self.phase = phase
        self.rng = random.Random(f"{scenario.seed}/{index}/shuffle")
        self.ops = [
            OperationTraffic(op, tables[op.table], random.Random(f"{scenario.seed}/{index}/{j}"))
            for j, op in enumerate(phase.operations)
        ]

    def second(self, elapsed: int, now: float) -> list[Request]:
        """The requests of one second, interleaved (shuffled) across operations."""
        out: list[Request] = []
        for ot in self.ops:
            out.extend(ot.second(elapsed, self.phase.duration, now))
        self.rng.shuffle(out)
        return out


def batches(requests: list[Request]) -> list[tuple[str, list[Request]]]:
    """Group one instant's requests into BatchWriteItem / BatchGetItem calls, in order,
    keeping a key's repeats in separate batches (a batch may not hold a key twice): the
    n-th request for a key goes to the n-th round of batches. A query is a call of its own,
    after the batches (Query has no batch form)."""
    rounds: list[dict[tuple[str, str], list[list[Request]]]] = []
    seen: dict[bytes, int] = {}
    queries: list[tuple[str, list[Request]]] = []
    for r in requests:
        if r.op == "query":
            queries.append(("query", [r]))
            continue
        n = seen.get(r.ident, 0)
        seen[r.ident] = n + 1
        while len(rounds) <= n:
            rounds.append({})
        kind = "write" if r.op == "write" else ("read-consistent" if r.consistent else "read")
        groups = rounds[n].setdefault((kind, r.region), [[]])  # one call goes to one region
        limit = WRITE_BATCH if r.op == "write" else READ_BATCH
        if len(groups[-1]) >= limit:
            groups.append([])
        groups[-1].append(r)
    out: list[tuple[str, list[Request]]] = []
    for rnd in rounds:
        for (kind, _), groups in rnd.items():
            out.extend((kind, g) for g in groups if g)
    return out + queries
