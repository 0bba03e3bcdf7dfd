"""Run a scenario against a dynemu server on a virtual clock and collect what happened.

The server is a private in-memory one (or ``--endpoint``, a ``dynemu --clock virtual``).
Each second of traffic is sent at one instant of the virtual clock, then the clock moves
one second. Requests are batched -- BatchWriteItem (25 puts) and BatchGetItem (100 keys) --
which the capacity model admits item by item exactly as single requests (a throttled item
comes back unprocessed), so batching changes the HTTP cost, not the outcome; a query (of the
table or of a GSI) is a Query call of its own. Rates are
never scaled. The per-second history is read from ``/_dynemu/tables/<t>/history`` every
five minutes of virtual time (the server keeps ten).

A scenario with evidence (``dynemu scenario from-aws``) starts on a whole clock minute, so that
its minutes are CloudWatch's, and has Contributor Insights (THROTTLED_KEYS) enabled on the
evidence's table: the throttled keys of each minute are read with the history.

A scenario with global tables sends each operation to its region's replica (a client per
region) and, after each second, reads ``/_dynemu/global-tables``: what each region held
(items), the backlog and the changes applied per direction, and the conflicts resolved.
"""

from __future__ import annotations

import math
import socket
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote, urlsplit

import orjson

from dynemu import errors
from dynemu.replay.scenario import Scenario, Table
from dynemu.replay.traffic import PhaseTraffic, Request, batches

PULL_EVERY = 300
THROTTLE_ERRORS = tuple(errors.THROTTLE_ERRORS)  # for str.endswith on a wire "__type"


class ReplayError(RuntimeError):
    pass


class Client:
    """A minimal keep-alive HTTP/1.1 client for the data plane and the admin API (a replay
    spends its client-side time here: no header objects, one ``sendall`` per request)."""

    def __init__(self, endpoint: str, region: str, admin_token: str | None = None) -> None:
        u = urlsplit(endpoint)
        self.address = (u.hostname or "127.0.0.1", u.port or 80)
        self.host = f"{self.address[0]}:{self.address[1]}"
        self.admin_headers = {"X-Dynemu-Admin-Token": admin_token} if admin_token else {}
        self.auth = (
            f"AWS4-HMAC-SHA256 Credential=dynemu-replay/20260101/{region}/dynamodb/aws4_request, "
            "SignedHeaders=host;x-amz-date, Signature=0"
        )
        self.sock: socket.socket | None = None
        self.buf = b""

    def _connect(self) -> socket.socket:
        sock = socket.create_connection(self.address, timeout=120)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.sock, self.buf = sock, b""
        return sock

    def _read_until(self, sock: socket.socket, marker: bytes) -> bytes:
        while (i := self.buf.find(marker)) < 0:
            chunk = sock.recv(65536)
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buf += chunk
        head, self.buf = self.buf[:i], self.buf[i + len(marker) :]
        return head

    def _read_exactly(self, sock: socket.socket, n: int) -> bytes:
        while len(self.buf) < n:
            chunk = sock.recv(max(65536, n - len(self.buf)))
            if not chunk:
                raise ConnectionError("the server closed the connection")
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def _send(self, method: str, path: str, body: bytes | None, headers: dict[str, str]) -> tuple[int, Any]:
        body = body or b""
        lines = [f"{method} {path} HTTP/1.1", f"Host: {self.host}", f"Authorization: {self.auth}"]
        lines += [f"{k}: {v}" for k, v in headers.items()]
        lines.append(f"Content-Length: {len(body)}")
        request = ("\r\n".join(lines) + "\r\n\r\n").encode() + body
        sock = self.sock or self._connect()
        try:
            sock.sendall(request)
            head = self._read_until(sock, b"\r\n\r\n")
        except (ConnectionError, BrokenPipeError):  # a keep-alive connection the server closed
            sock = self._connect()
            sock.sendall(request)
            head = self._read_until(sock, b"\r\n\r\n")
        status_line, *fields = head.decode("latin-1").split("\r\n")
        status = int(status_line.split(" ", 2)[1])
        meta = {k.strip().lower(): v.strip() for k, _, v in (f.partition(":") for f in fields)}
        if meta.get("transfer-encoding", "").lower() == "chunked":
            data = b""
            while size := int(self._read_until(sock, b"\r\n").split(b";")[0], 16):
                data += self._read_exactly(sock, size + 2)[:-2]
            self._read_until(sock, b"\r\n")
        else:
            data = self._read_exactly(sock, int(meta.get("content-length", "0")))
        if meta.get("connection", "").lower() == "close":
            sock.close()
            self.sock = None
        try:
            return status, orjson.loads(data) if data else {}
        except orjson.JSONDecodeError:  # e.g. aiohttp's own "404: Not Found"
            return status, {"error": data.decode("utf-8", "replace")}

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def call(self, operation: str, body: dict[str, Any]) -> tuple[int, Any]:
        headers = {
            "Content-Type": "application/x-amz-json-1.0",
            "X-Amz-Target": f"DynamoDB_20120810.{operation}",
        }
        return self._send("POST", "/", orjson.dumps(body), headers)

    def must(self, operation: str, body: dict[str, Any]) -> Any:
        status, out = self.call(operation, body)
        if status != 200:
            raise ReplayError(f"{operation} failed: {out.get('__type', status)}: {out.get('message', out)}")
        return out

    def admin(self, path: str, body: dict[str, Any] | None = None) -> Any:
        if body is None:
            status, out = self._send("GET", path, None, self.admin_headers)
        else:
            headers = {"Content-Type": "application/json", **self.admin_headers}
            status, out = self._send("POST", path, orjson.dumps(body), headers)
        if status != 200:
            raise ReplayError(f"{path}: {status} {out}")
        return out


@dataclass
class Resource:
    """What was seen of one table or GSI."""

    table: str
    index: str | None
    history: dict[int, dict[str, Any]] = field(default_factory=dict)
    splits: list[dict[str, Any]] = field(default_factory=list)
    events: list[dict[str, Any]] = field(default_factory=list)  # the model's moments (history.py)
    final: dict[str, Any] = field(default_factory=dict)

    @property
    def label(self) -> str:
        return self.table if self.index is None else f"{self.table} / {self.index}"


@dataclass
class Outcome:
    scenario: Scenario
    start: float = 0.0
    resources: list[Resource] = field(default_factory=list)
    sent: Counter[tuple[str, str]] = field(default_factory=Counter)
    admitted: Counter[tuple[str, str]] = field(default_factory=Counter)
    throttled: Counter[tuple[str, str]] = field(default_factory=Counter)
    phases: list[tuple[int, str]] = field(default_factory=list)  # (start second, name)
    model: str = ""  # the capacity model the server really ran (an --endpoint's own)
    wall_seconds: float = 0.0
    written: Counter[tuple[str, str]] = field(default_factory=Counter)  # (table, region): writes admitted
    replication: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # table: a sample a second
    replication_lag_ms: float | None = None  # the server's, as its admin API reports it
    throttled_keys: dict[int, list[str]] = field(default_factory=dict)  # clock minute: keys (with evidence)

    def reasons(self) -> Counter[str]:
        out: Counter[str] = Counter()
        for r in self.resources:
            out.update(r.final.get("summary", {}).get("throttles", {}))
        return out


def _create_table(client: Client, t: Table) -> None:
    defs = {t.hash[0]: t.hash[1]}
    keys = [{"AttributeName": t.hash[0], "KeyType": "HASH"}]
    if t.range:
        defs[t.range[0]] = t.range[1]
        keys.append({"AttributeName": t.range[0], "KeyType": "RANGE"})
    body: dict[str, Any] = {"TableName": t.name, "KeySchema": keys, "BillingMode": t.billing}
    read, write = t.create or (t.read, t.write)
    if t.billing == "PROVISIONED":
        body["ProvisionedThroughput"] = {
            "ReadCapacityUnits": max(1, read),
            "WriteCapacityUnits": max(1, write),
        }
    if t.warm is not None:
        body["WarmThroughput"] = {"ReadUnitsPerSecond": t.warm[0], "WriteUnitsPerSecond": t.warm[1]}
    gsis = []
    for g in t.gsis:
        defs[g.hash[0]] = g.hash[1]
        gkeys = [{"AttributeName": g.hash[0], "KeyType": "HASH"}]
        if g.range:
            defs[g.range[0]] = g.range[1]
            gkeys.append({"AttributeName": g.range[0], "KeyType": "RANGE"})
        spec: dict[str, Any] = {
            "IndexName": g.name,
            "KeySchema": gkeys,
            "Projection": {"ProjectionType": g.projection},
        }
        if t.billing == "PROVISIONED":
            spec["ProvisionedThroughput"] = {
                "ReadCapacityUnits": max(1, g.read),
                "WriteCapacityUnits": max(1, g.write),
            }
        gsis.append(spec)
    if gsis:
        body["GlobalSecondaryIndexes"] = gsis
    body["AttributeDefinitions"] = [{"AttributeName": k, "AttributeType": v} for k, v in defs.items()]
    status, out = client.call("CreateTable", body)
    if status != 200:
        if out.get("__type", "").endswith("ResourceInUseException"):
            raise ReplayError(
                f"table {t.name} already exists at the endpoint: delete it or rename it in the scenario"
            )
        raise ReplayError(f"CreateTable {t.name}: {out.get('__type')}: {out.get('message')}")
    if t.create and t.billing == "PROVISIONED":
        update(client, {"table": t.name, "read": t.read, "write": t.write})


def update(client: Client, u: dict[str, Any]) -> None:
    """A phase's UpdateTable: ``{"table", "read", "write"}``, with ``"index"`` for a GSI."""
    pt = {
        "ReadCapacityUnits": max(1, int(u.get("read", 1))),
        "WriteCapacityUnits": max(1, int(u.get("write", 1))),
    }
    body: dict[str, Any] = {"TableName": u["table"]}
    if u.get("index"):
        body["GlobalSecondaryIndexUpdates"] = [
            {"Update": {"IndexName": u["index"], "ProvisionedThroughput": pt}}
        ]
    else:
        body["ProvisionedThroughput"] = pt
    client.must("UpdateTable", body)


def _query(client: Client, r: Request, out: Outcome) -> None:
    """One Query of one partition key value (of the table, or of the GSI ``r.index``)."""
    (name, value), = r.key.items()
    body: dict[str, Any] = {"TableName": r.table, "KeyConditionExpression": "#k = :v",
                            "ExpressionAttributeNames": {"#k": name}, "ExpressionAttributeValues": {":v": value}}  # fmt: skip
    if r.index:
        body["IndexName"] = r.index
    status, resp = client.call("Query", body)
    refused = status != 200
    if refused and not resp.get("__type", "").endswith(THROTTLE_ERRORS):
        raise ReplayError(f"query: {resp.get('__type', status)}: {resp.get('message', resp)}")
    key = (r.table, f"query {r.index}" if r.index else "query")
    out.sent[key] += 1
    out.throttled[key] += refused
    out.admitted[key] += not refused


def _send(client: Client, kind: str, group: list[Request], out: Outcome) -> None:
    if kind == "query":
        _query(client, group[0], out)
        return
    table_counts: Counter[str] = Counter(r.table for r in group)
    op = "write" if kind == "write" else "read"
    if op == "write":
        items: dict[str, list[Any]] = {}
        for r in group:
            items.setdefault(r.table, []).append({"PutRequest": {"Item": r.item}})
        status, resp = client.call("BatchWriteItem", {"RequestItems": items})
        left = resp.get("UnprocessedItems", {}) if status == 200 else None
        if status == 200 or resp.get("__type", "").endswith(THROTTLE_ERRORS):
            for table, n in table_counts.items():
                out.written[(table, group[0].region)] += n - (n if left is None else len(left.get(table, ())))
    else:
        keys: dict[str, Any] = {}
        for r in group:
            keys.setdefault(r.table, {"Keys": [], "ConsistentRead": r.consistent})["Keys"].append(r.key)
        status, resp = client.call("BatchGetItem", {"RequestItems": keys})
        left = {t: v["Keys"] for t, v in resp.get("UnprocessedKeys", {}).items()} if status == 200 else None
    if status != 200 and not resp.get("__type", "").endswith(THROTTLE_ERRORS):
        raise ReplayError(f"{op}: {resp.get('__type', status)}: {resp.get('message', resp)}")
    for table, n in table_counts.items():
        refused = n if left is None else len(left.get(table, ()))
        out.sent[(table, op)] += n
        out.throttled[(table, op)] += refused
        out.admitted[(table, op)] += n - refused


def _resources(client: Client, scenario: Scenario) -> list[Resource]:
    res = []
    for t in scenario.tables:
        res.append(Resource(t.name, None))
        res.extend(Resource(t.name, g.name) for g in t.gsis)
    return res


def _pull(client: Client, out: Outcome, final: bool = False) -> None:
    for r in out.resources:
        q = f"?index={quote(r.index)}" if r.index else ""
        try:
            h = client.admin(f"/_dynemu/tables/{quote(r.table)}/history{q}")
        except ReplayError:
            continue  # a GSI's state exists once something reached it
        for rec in h["seconds"]:
            r.history[rec["t"]] = rec
        known = {(s["t"], s["to"]) for s in r.splits}
        r.splits.extend(s for s in h["splits"] if (s["t"], s["to"]) not in known)
        seen = {(e["t"], e["text"]) for e in r.events}
        r.events.extend(e for e in h.get("events", ()) if (e["t"], e["text"]) not in seen)
        if final:
            whole = ("&" if q else "?") + "window=all"  # hot keys over the whole run
            r.final = client.admin(f"/_dynemu/tables/{quote(r.table)}/partitions{q}{whole}")


def key_text(v: Any) -> str:
    """A key as the admin API shows it ({"S": "a"}, an item's {"partition", "sort"}) as text."""
    if isinstance(v, dict) and len(v) == 1:
        return key_text(next(iter(v.values())))
    if isinstance(v, dict) and "partition" in v:
        return key_text(v["partition"])
    return str(v)


def _pull_throttled_keys(client: Client, out: Outcome) -> None:
    """The evidence table's most throttled partition keys of each kept minute (its PKT report)."""
    ev = out.scenario.evidence
    if ev is None:
        return
    got = client.admin(f"/_dynemu/tables/{quote(ev['table'])}/contributor-insights")
    for rep in got.get("reports", ()):
        if rep.get("kind") != "PKT":
            continue
        for m in rep["minutes"]:
            keys = sorted({key_text(row["key"]) for row in m["top"]})
            if keys:
                out.throttled_keys[int(m["t"])] = keys


def _sample_replication(client: Client, out: Outcome, second: int) -> None:
    """What each region of each global table held at the end of ``second`` (cumulative
    figures: writes admitted per region, changes applied per direction, conflicts)."""
    view = client.admin("/_dynemu/global-tables")
    out.replication_lag_ms = view["replication_lag_ms"]
    names = {t.name for t in out.scenario.tables if t.replicas}
    for g in view["global_tables"]:
        if g["table"] not in names:
            continue
        regions = [r["region"] for r in g["replicas"]]
        out.replication.setdefault(g["table"], []).append({
            "t": second,
            "written": {r: out.written[(g["table"], r)] for r in regions},
            "items": {r["region"]: r["item_count"] for r in g["replicas"]},
            "backlog": {f"{b['from']} → {b['to']}": b["pending"] for b in g["backlog"]},
            "applied": {f"{a['from']} → {a['to']}": a["count"] for a in g["applied"]},
            "conflicts": g["conflicts_resolved"],
        })  # fmt: skip


def run(scenario: Scenario, endpoint: str, progress: Any = None, admin_token: str | None = None) -> Outcome:
    """Replay ``scenario`` against ``endpoint`` (a dynemu server on a virtual clock)."""
    regions = [scenario.region] + sorted({r for t in scenario.tables for r in t.replicas})
    clients = {r: Client(endpoint, r, admin_token) for r in regions}
    try:
        return _run(clients, scenario, progress)
    except OSError as e:  # refused, reset, timed out: one line that names the endpoint
        raise ReplayError(f"cannot reach {endpoint}: {e.strerror or e}") from None
    finally:
        for c in clients.values():
            c.close()


def _run(clients: dict[str, Client], scenario: Scenario, progress: Any) -> Outcome:
    client = clients[scenario.region]
    replicated = any(t.replicas for t in scenario.tables)
    clock = client.admin("/_dynemu/clock")
    if clock["mode"] != "virtual":
        raise ReplayError(f"the server's clock is {clock['mode']}: start it with --clock virtual")
    # start on a whole minute, so per-second accounting and the per-minute lists (hot keys,
    # CloudWatch's minutes) cut the traffic at the same places on every run
    now = client.admin("/_dynemu/clock", {"advance": math.ceil(clock["now"] / 60) * 60 - clock["now"]})["now"]
    out = Outcome(scenario, start=now)
    began = time.perf_counter()
    for t in scenario.tables:
        _create_table(client, t)
        for region in t.replicas:  # a global table: a replica in each region (UpdateTable)
            client.must("UpdateTable", {"TableName": t.name, "ReplicaUpdates": [{"Create": {"RegionName": region}}]})
    out.resources = _resources(client, scenario)
    if scenario.evidence is not None:  # the throttled keys per minute, to set beside production's
        client.must("UpdateContributorInsights", {"TableName": scenario.evidence["table"],
                                                  "ContributorInsightsAction": "ENABLE",
                                                  "ContributorInsightsMode": "THROTTLED_KEYS"})  # fmt: skip
    elapsed = 0
    for index, phase in enumerate(scenario.phases):
        out.phases.append((elapsed, phase.name))
        for u in phase.update:
            update(client, u)
        traffic = PhaseTraffic(scenario, index, phase)
        for second in range(phase.duration):
            for kind, group in batches(traffic.second(second, 1_700_000_000 + elapsed)):
                _send(clients[group[0].region], kind, group, out)
            now = client.admin("/_dynemu/clock", {"advance": 1})["now"]
            elapsed += 1
            if replicated:
                _sample_replication(client, out, elapsed)
            if elapsed % PULL_EVERY == 0:
                _pull(client, out)
                _pull_throttled_keys(client, out)
                if progress:
                    progress(elapsed, scenario.duration)
    # the loop's last advance closed the last second of traffic: one more would add an idle
    # second that reads as "traffic stopped" on a live dashboard
    _pull(client, out, final=True)
    _pull_throttled_keys(client, out)
    out.model = next((r.final["summary"]["model"] for r in out.resources if r.final), scenario.model)
    out.wall_seconds = time.perf_counter() - began
    return out
