"""Soak (issues 17 and 38): a LevelDB server under mixed traffic across many regions, with
namespaces opened and evicted all along, for 30 minutes by default.

    python bench/soak.py                                  # 30 minutes, 200 regions, 8 open
    python bench/soak.py --minutes 0.25 --regions 12 --max-open 4 --interval 5   # the short form

A fresh ``python -m dynemu --data-dir <tmp> --max-open-namespaces 8 --ttl-interval 10`` (its
stderr kept in ``--server-log``) gets one table in each of ``--regions`` regions (each region
is its own namespace and LevelDB store), with a stream and TTL on, and a global table in
us-east-1 replicated to eu-west-1. Then, until the time is up:

* traffic threads put (a tenth of the items already expired, for the TTL sweeps), get,
  update (SET and ADD), query, delete and batch-write items of a fixed key set: 90 % of
  requests go to a working set of ``max-open - 4`` regions that moves every ``--rotate``
  seconds, 10 % to any region, so namespaces are evicted and reopened all the time;
* a bulk writer puts ``--burst-mb`` MB into a region outside the working set every
  ``--rotate`` seconds, then keeps reading it until its LevelDB log shows the background
  compaction (``storage/compaction.py``; at most a minute): compactions meet evictions;
* a stream reader reads each working-set region's stream (DescribeStream, GetShardIterator,
  GetRecords) and counts the TTL deletions among the records;
* a global-table writer puts items in us-east-1 and reads them back in eu-west-1 once the
  replication lag has passed;
* a probe sends the health check (``GET /``) every 10 ms on its own connection: its worst
  answer time bounds the event loop's worst stall (a request under way delays it too, and
  so does a machine shared with other jobs: each sample also says what share of the
  interval the server's loop thread waited for a core, from /proc/<pid>/task/<pid>/schedstat).

Every ``--interval`` seconds (default 60) it prints the server's anonymous and file-backed
memory (/proc/<pid>/status), open file descriptors, the worst probe time of the interval,
requests and errors. An error is any answer other than 200 or a throttle (throttles are
counted apart and retried by the bulk writer), a dropped connection, a replicated item
missing, or an ERROR line or traceback in the server's stderr. At the end: the anonymous
memory's slope over the run after the warm-up (its first third), the file descriptors' range
after the warm-up, the worst stall, compactions, TTL deletions seen in streams, items
replicated. The exit status is 1 on any error. ``--json`` writes every figure.
"""

from __future__ import annotations

import argparse
import glob
import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _server import memory, run_dirs  # noqa: E402
from _server import start as start_dynemu  # noqa: E402

HOST = "127.0.0.1"
TABLE, GLOBAL_TABLE = "soak", "soak-global"
GLOBAL = ("us-east-1", "eu-west-1")
KEYS = 400  # per region: a fixed key set, so the data does not grow
THROTTLES = ("ThrottlingException", "ProvisionedThroughputExceededException", "RequestLimitExceeded")
IDLE = 30.0  # seconds after which a keep-alive connection is opened again (the server closes at 37.5-75 s)


class Errors:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.count = 0
        self.first: list[str] = []

    def add(self, what: str) -> None:
        with self.lock:
            self.count += 1
            if len(self.first) < 20:
                self.first.append(what[:400])


class Conn:
    """A keep-alive connection, opened again when idle (or after a failure)."""

    def __init__(self, port: int, errors: Errors) -> None:
        self.port, self.errors = port, errors
        self.conn: http.client.HTTPConnection | None = None
        self.used = 0.0

    def _raw(self, method: str, body: bytes | None, headers: dict[str, str]) -> tuple[int, bytes]:
        if self.conn is None or time.monotonic() - self.used > IDLE:
            if self.conn is not None:
                self.conn.close()
            self.conn = http.client.HTTPConnection(HOST, self.port, timeout=120)
        try:
            self.conn.request(method, "/", body=body, headers=headers)
            resp = self.conn.getresponse()
            data = resp.read()
        except (OSError, http.client.HTTPException) as e:
            self.conn.close()
            self.conn = None
            raise ConnectionError(f"{method}: {type(e).__name__}: {e}") from e
        self.used = time.monotonic()
        return resp.status, data

    def call(self, region: str, target: str, body: dict[str, Any]) -> dict[str, Any] | None:
        """The answer, or None for a throttle; an error is counted and raised."""
        headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": target,
                   "Authorization": f"AWS4-HMAC-SHA256 Credential=AKID/20250101/{region}/dynamodb/aws4_request, "
                                    "SignedHeaders=host, Signature=x"}  # fmt: skip
        try:
            status, data = self._raw("POST", json.dumps(body).encode(), headers)
        except ConnectionError as e:
            self.errors.add(str(e))
            raise
        out = json.loads(data) if data else {}
        if status == 200:
            return out  # type: ignore[no-any-return]
        if status == 400 and any(t in out.get("__type", "") for t in THROTTLES):
            return None
        self.errors.add(f"{target} in {region}: {status} {out}")
        raise RuntimeError(f"{target}: {status}")

    def ddb(self, region: str, op: str, body: dict[str, Any]) -> dict[str, Any] | None:
        return self.call(region, f"DynamoDB_20120810.{op}", body)

    def health(self) -> float:
        t0 = time.perf_counter()
        status, _ = self._raw("GET", None, {})
        if status != 200:
            self.errors.add(f"health check: {status}")
        return time.perf_counter() - t0


class Soak:
    def __init__(self, args: argparse.Namespace, port: int, data_dir: str) -> None:
        self.args, self.port, self.data_dir = args, port, data_dir
        self.regions = [*GLOBAL, *(f"soak-{i:03d}" for i in range(max(0, args.regions - len(GLOBAL))))]
        self.errors = Errors()
        self.stop = threading.Event()
        self.lock = threading.Lock()
        # the working set leaves room among the open namespaces for the global table's two and the bulk writer's
        self.hot = self.regions[len(GLOBAL) : len(GLOBAL) + max(1, args.max_open - 4)]
        self.requests = self.throttled = 0
        self.worst = 0.0  # probe's worst answer time in the current interval
        self.counts = {"stream_records": 0, "ttl_deletes_seen": 0, "replicated": 0, "bursts": 0, "compactions": 0}

    def conn(self) -> Conn:
        return Conn(self.port, self.errors)

    def count(self, answered: dict[str, Any] | None) -> None:
        with self.lock:
            self.requests += 1
            self.throttled += answered is None

    # --- set-up -----------------------------------------------------------------------------

    def setup(self) -> None:
        c = self.conn()
        for region in self.regions:
            c.ddb(region, "CreateTable", {
                "TableName": TABLE, "BillingMode": "PAY_PER_REQUEST",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                         {"AttributeName": "sk", "AttributeType": "S"}],
                "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
            })  # fmt: skip
            c.ddb(region, "UpdateTimeToLive", {"TableName": TABLE,
                                               "TimeToLiveSpecification": {"Enabled": True, "AttributeName": "exp"}})
        c.ddb(GLOBAL[0], "CreateTable", {
            "TableName": GLOBAL_TABLE, "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}],
            "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
        })  # fmt: skip
        c.ddb(GLOBAL[0], "UpdateTable", {"TableName": GLOBAL_TABLE,
                                         "ReplicaUpdates": [{"Create": {"RegionName": GLOBAL[1]}}]})

    # --- the threads ------------------------------------------------------------------------

    def _region(self, rng: random.Random) -> str:
        return rng.choice(self.hot) if rng.random() < 0.9 else rng.choice(self.regions)

    def traffic(self, seed: int) -> None:
        rng, c = random.Random(seed), self.conn()
        while not self.stop.is_set():
            region, k = self._region(rng), rng.randrange(KEYS)
            key = {"pk": {"S": f"p{k % 40}"}, "sk": {"S": f"s{k}"}}
            r = rng.random()
            try:
                if r < 0.3:
                    item = {**key, "n": {"N": str(k)}, "body": {"S": "x" * rng.randrange(50, 400)}}
                    if rng.random() < 0.1:  # expired already: the next TTL sweep deletes it
                        item["exp"] = {"N": str(int(time.time()) - 60)}
                    self.count(c.ddb(region, "PutItem", {"TableName": TABLE, "Item": item}))
                elif r < 0.55:
                    self.count(c.ddb(region, "GetItem", {"TableName": TABLE, "Key": key}))
                elif r < 0.7:
                    self.count(c.ddb(region, "UpdateItem", {
                        "TableName": TABLE, "Key": key, "UpdateExpression": "SET t = :t ADD c :one",
                        "ExpressionAttributeValues": {":t": {"S": str(rng.random())}, ":one": {"N": "1"}}}))
                elif r < 0.85:
                    self.count(c.ddb(region, "Query", {"TableName": TABLE, "KeyConditionExpression": "pk = :p",
                                                       "Limit": 20, "ExpressionAttributeValues": {":p": key["pk"]}}))
                elif r < 0.95:
                    self.count(c.ddb(region, "DeleteItem", {"TableName": TABLE, "Key": key}))
                else:
                    puts = [{"PutRequest": {"Item": {"pk": {"S": f"p{j % 40}"}, "sk": {"S": f"s{j}"},
                                                     "body": {"S": "y" * 200}}}}
                            for j in rng.sample(range(KEYS), 10)]  # fmt: skip
                    self.count(c.ddb(region, "BatchWriteItem", {"RequestItems": {TABLE: puts}}))
            except (RuntimeError, ConnectionError):
                time.sleep(0.05)

    def rotate(self) -> None:
        """Move the working set every ``--rotate`` seconds."""
        rng = random.Random(7)
        while not self.stop.wait(self.args.rotate):
            self.hot = rng.sample(self.regions[len(GLOBAL) :], len(self.hot))

    def bulk(self) -> None:
        """A burst of writes into a region outside the working set, read until its compaction
        shows in LevelDB's log (at most a minute), then the next one a ``--rotate`` later."""
        rng, c = random.Random(11), self.conn()
        while not self.stop.is_set():
            began = time.monotonic()
            region = rng.choice([r for r in self.regions[len(GLOBAL) :] if r not in self.hot])
            try:
                self._burst(c, region)
            except (RuntimeError, ConnectionError):
                pass
            self.stop.wait(max(0.0, self.args.rotate - (time.monotonic() - began)))

    def _burst(self, c: Conn, region: str) -> None:
        before = self._compactions(region)
        items = int(self.args.burst_mb * 1024)  # 1 KB each
        body = "z" * 1000
        for lo in range(0, items, 25):
            puts = [{"PutRequest": {"Item": {"pk": {"S": f"bulk{i % 500}"}, "sk": {"S": f"{i}"}, "body": {"S": body}}}}
                    for i in range(lo, min(items, lo + 25))]  # fmt: skip
            while puts and not self.stop.is_set():
                out = c.ddb(region, "BatchWriteItem", {"RequestItems": {TABLE: puts}})
                self.count(out)
                if out is not None:  # None: throttled, the whole batch again
                    puts = out.get("UnprocessedItems", {}).get(TABLE, [])
                if puts:
                    time.sleep(0.05)
        with self.lock:
            self.counts["bursts"] += 1
        deadline = time.monotonic() + 60
        while not self.stop.is_set() and time.monotonic() < deadline:  # kept open (recently used)
            self.count(c.ddb(region, "GetItem", {"TableName": TABLE, "Key": {"pk": {"S": "bulk1"}, "sk": {"S": "1"}}}))
            if self._compactions(region) > before:
                with self.lock:
                    self.counts["compactions"] += 1
                return
            time.sleep(0.05)

    def _compactions(self, region: str) -> int:
        """The background compactor's compact_range calls in the region's LevelDB logs (a
        close's, which writes the memory table out, names a range past every key)."""
        n = 0
        for log in glob.glob(os.path.join(self.data_dir, region, "LOG*")):
            try:
                with open(log, errors="replace") as f:
                    n += sum(1 for line in f if "Manual compaction" in line and "\\xff\\xff\\xff\\xff" not in line)
            except OSError:
                pass
        return n

    def streams(self) -> None:
        """Every second, each working-set region's stream read on from where it was left
        (each shard's next iterator; a new shard from its trim horizon), as a consumer does."""
        c = self.conn()
        iterators: dict[tuple[str, str], str | None] = {}  # (region, shard) -> next iterator; None: read to its end
        read: dict[str, float] = {}  # region -> when its stream was last read
        while not self.stop.wait(1.0):
            for region, at in list(read.items()):
                if time.monotonic() - at > 300:  # an iterator expires after 15 minutes: start again
                    del read[region]
                    for key in [k for k in iterators if k[0] == region]:
                        del iterators[key]
            for region in list(self.hot):
                read[region] = time.monotonic()
                try:
                    self._read_stream(c, region, iterators)
                except (RuntimeError, ConnectionError):
                    pass

    def _read_stream(self, c: Conn, region: str, iterators: dict[tuple[str, str], str | None]) -> None:
        table = c.ddb(region, "DescribeTable", {"TableName": TABLE})
        arn = table and table["Table"]["LatestStreamArn"]
        desc = arn and c.call(region, "DynamoDBStreams_20120810.DescribeStream", {"StreamArn": arn})
        for shard in desc["StreamDescription"]["Shards"] if desc else []:
            key = (region, shard["ShardId"])
            if key not in iterators:
                it = c.call(region, "DynamoDBStreams_20120810.GetShardIterator",
                            {"StreamArn": arn, "ShardId": shard["ShardId"], "ShardIteratorType": "TRIM_HORIZON"})
                iterators[key] = it["ShardIterator"] if it else None
            if iterators[key] is None:
                continue
            out = c.call(region, "DynamoDBStreams_20120810.GetRecords", {"ShardIterator": iterators[key], "Limit": 1000})
            if out is None:
                continue
            iterators[key] = out.get("NextShardIterator")
            records = out["Records"]
            ttl = sum(1 for r in records if r.get("userIdentity", {}).get("PrincipalId") == "dynamodb.amazonaws.com")
            with self.lock:
                self.counts["stream_records"] += len(records)
                self.counts["ttl_deletes_seen"] += ttl

    def global_table(self) -> None:
        c, n = self.conn(), 0
        pending: list[tuple[float, str]] = []
        while not self.stop.wait(0.2):
            try:
                n += 1
                self.count(c.ddb(GLOBAL[0], "PutItem", {"TableName": GLOBAL_TABLE, "Item": {"pk": {"S": f"g{n % 1000}"},
                                                        "n": {"N": str(n)}}}))  # fmt: skip
                pending.append((time.monotonic(), f"g{n % 1000}:{n}"))
                while pending and time.monotonic() - pending[0][0] > 5.0:  # the lag is 1 s
                    _, tag = pending.pop(0)
                    pk, want = tag.split(":")
                    out = c.ddb(GLOBAL[1], "GetItem", {"TableName": GLOBAL_TABLE, "Key": {"pk": {"S": pk}},
                                                       "ConsistentRead": True})  # fmt: skip
                    got = int(out["Item"]["n"]["N"]) if out and "Item" in out else -1
                    if got < int(want):
                        self.errors.add(f"replica in {GLOBAL[1]} has {pk} at {got}, written {want} 5 s ago")
                    else:
                        with self.lock:
                            self.counts["replicated"] += 1
            except (RuntimeError, ConnectionError):
                pass

    def probe(self) -> None:
        c = self.conn()
        while not self.stop.wait(0.01):
            try:
                took = c.health()
            except ConnectionError:
                continue
            with self.lock:
                self.worst = max(self.worst, took)


# --- the server and the run ---------------------------------------------------------------------


def start_server(args: argparse.Namespace, data_dir: str, log: Any) -> tuple[subprocess.Popen[bytes], int]:
    return start_dynemu(["--data-dir", data_dir, "--max-open-namespaces", str(args.max_open),
                         "--ttl-interval", str(args.ttl_interval), *args.dynemu_args.split()], log)  # fmt: skip


def run_queue_s(pid: int) -> float:
    """Seconds the server's main thread (its event loop) has waited for a core: on a shared
    machine, the part of a stall that is the other jobs' (schedstat's second field, ns)."""
    with open(f"/proc/{pid}/task/{pid}/schedstat") as f:
        return int(f.read().split()[1]) / 1e9


def server_errors(log_path: str) -> list[str]:
    with open(log_path, errors="replace") as f:
        return [line.rstrip() for line in f if " ERROR " in line or line.startswith("Traceback") or "ERROR:" in line]


def run(args: argparse.Namespace, data_dir: str, log: Any) -> dict[str, Any]:
    proc, port = start_server(args, data_dir, log)
    soak = Soak(args, port, data_dir)
    result: dict[str, Any] = {"minutes": args.minutes, "regions": len(soak.regions), "max_open": args.max_open,
                              "samples": []}  # fmt: skip
    try:
        t0 = time.monotonic()
        soak.setup()
        result["setup_s"] = time.monotonic() - t0
        print(f"  set up {len(soak.regions)} regions in {result['setup_s']:.0f} s; start: {memory(proc.pid)}", flush=True)
        threads = [threading.Thread(target=soak.traffic, args=(n,), daemon=True) for n in range(args.connections)]
        threads += [threading.Thread(target=f, daemon=True) for f in (soak.rotate, soak.bulk, soak.streams, soak.global_table, soak.probe)]
        for t in threads:
            t.start()
        started = time.monotonic()
        end = started + args.minutes * 60
        waited = run_queue_s(proc.pid)
        while (now := time.monotonic()) < end and proc.poll() is None:
            time.sleep(min(args.interval, end - now))
            last = time.monotonic()
            waited, waited_before = run_queue_s(proc.pid), waited
            queued = (waited - waited_before) / (last - now)  # share of the interval the loop waited for a core
            with soak.lock:
                worst, soak.worst = soak.worst, 0.0
                requests, throttled, counts = soak.requests, soak.throttled, dict(soak.counts)
            row = {"t": last - started, **memory(proc.pid), "worst_stall_ms": 1000 * worst, "run_queue": queued,
                   "requests": requests,
                   "throttled": throttled, "errors": soak.errors.count, **counts}  # fmt: skip
            result["samples"].append(row)
            print(f"  t={row['t']:6.0f}s anon {row['anon_mb']:6.1f} MB file {row['file_mb']:6.1f} MB "
                  f"fds {row['fds']:4d} worst stall {row['worst_stall_ms']:6.1f} ms (loop waiting for a core "
                  f"{100 * queued:3.0f} % of the time) requests {requests:8d} "
                  f"throttled {throttled:5d} errors {row['errors']} compactions {counts['compactions']} "
                  f"stream records {counts['stream_records']} ttl {counts['ttl_deletes_seen']} "
                  f"replicated {counts['replicated']}", flush=True)  # fmt: skip
        soak.stop.set()
        for t in threads:
            t.join(120)
        if proc.poll() is not None:
            soak.errors.add(f"the server exited with {proc.returncode}")
    finally:
        soak.stop.set()
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(60)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    log.flush()
    for line in server_errors(log.name):
        soak.errors.add(f"server: {line}")
    result.update(summary(result["samples"]), errors=soak.errors.count, first_errors=soak.errors.first)
    return result


def summary(samples: list[dict[str, Any]]) -> dict[str, Any]:
    """After the warm-up (the first third): anonymous memory's slope (MB per minute, least
    squares) and range, file descriptors' range; the worst stall of the whole run."""
    if not samples:
        return {}
    settled = samples[len(samples) // 3 :] or samples
    xs, ys = [s["t"] / 60 for s in settled], [s["anon_mb"] for s in settled]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mx) ** 2 for x in xs)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / var if var else 0.0
    last = samples[-1]
    return {"anon_slope_mb_per_min": slope, "anon_after_warmup": [min(ys), max(ys)],
            "fds_after_warmup": [min(s["fds"] for s in settled), max(s["fds"] for s in settled)],
            "worst_stall_ms": max(s["worst_stall_ms"] for s in samples), "requests": last["requests"],
            "throttled": last["throttled"], **{k: last[k] for k in ("compactions", "bursts", "stream_records",
                                                                    "ttl_deletes_seen", "replicated")}}  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=30.0, help="traffic time after the set-up (default 30)")
    p.add_argument("--interval", type=float, default=60.0, help="seconds between samples (default 60)")
    p.add_argument("--regions", type=int, default=200, help="regions, each its own namespace (default 200)")
    p.add_argument("--max-open", type=int, default=8, help="--max-open-namespaces (default 8)")
    p.add_argument("--connections", type=int, default=3, help="traffic threads (default 3)")
    p.add_argument("--rotate", type=float, default=60.0, help="seconds between moves of the working set (default 60)")
    p.add_argument("--burst-mb", type=float, default=10.0, help="MB written by each burst (default 10)")
    p.add_argument("--ttl-interval", type=float, default=10.0, help="the server's --ttl-interval (default 10)")
    p.add_argument("--dynemu-args", default="", help="extra dynemu flags")
    p.add_argument("--data-dir", help="the data directory (kept; default: a temporary one, removed)")
    p.add_argument("--server-log", help="the server's stderr (kept; default: in a temporary directory)")
    p.add_argument("--json", help="write every figure here")
    args = p.parse_args()
    with run_dirs("dynemu-soak", args.data_dir, args.server_log) as (data_dir, log_path):
        print(f"soak: {args.minutes} min, {args.regions} regions, --max-open-namespaces {args.max_open}; "
              f"server stderr: {log_path}", flush=True)  # fmt: skip
        with open(log_path, "ab") as log:
            result = run(args, data_dir, log)
    print(f"anonymous memory after the warm-up {result['anon_after_warmup'][0]:.1f}-{result['anon_after_warmup'][1]:.1f} MB, "
          f"slope {result['anon_slope_mb_per_min']:+.3f} MB/min; fds {result['fds_after_warmup'][0]}-"
          f"{result['fds_after_warmup'][1]}; worst stall {result['worst_stall_ms']:.1f} ms; "
          f"{result['requests']} requests ({result['throttled']} throttled); {result['compactions']} compactions "
          f"of {result['bursts']} bursts; {result['stream_records']} stream records read "
          f"({result['ttl_deletes_seen']} TTL deletions); {result['replicated']} items replicated; "
          f"errors {result['errors']}", flush=True)  # fmt: skip
    for e in result["first_errors"]:
        print(f"  error: {e}")
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    sys.exit(1 if result["errors"] else 0)


if __name__ == "__main__":
    main()
