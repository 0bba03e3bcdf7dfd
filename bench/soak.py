"""Soak: the server's RSS under a steady mixed load on a fixed key set, for both stores, and
what is left once every table is deleted (issue 17).

    python bench/soak.py                      # 10 minutes per store, memory then LevelDB
    python bench/soak.py --minutes 2 --stores memory --keys 5000

Each store gets a fresh ``python -m dynemu`` on a free port. A client (one thread per
connection) puts, gets, updates (SET and ADD), queries and deletes items of a fixed key set
in a table with a GSI (and a stream with ``--stream``), filled with the whole key set first (items with
every attribute the load writes, so the data set does not grow); the server's RSS (/proc/<pid>/status) is sampled every
``--interval`` seconds. Then the table is deleted and RSS sampled again after a pause. A
flat run shows a small rise over the first samples (warm-up) and none after; the figure
to read is the slope over the second half, in MB per minute.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
AUTH = "AWS4-HMAC-SHA256 Credential=AKID/20250101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x"
TABLE = "soak"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


class Conn:
    def __init__(self, port: int) -> None:
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)

    def call(self, op: str, body: dict[str, Any]) -> dict[str, Any]:
        headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": f"DynamoDB_20120810.{op}",
                   "Authorization": AUTH}  # fmt: skip
        self.conn.request("POST", "/", body=json.dumps(body), headers=headers)
        resp = self.conn.getresponse()
        data = json.loads(resp.read())
        if resp.status != 200 and "ConditionalCheckFailed" not in data.get("__type", ""):
            raise RuntimeError(f"{op}: {resp.status} {data}")
        return data


def create_table(c: Conn, stream: bool) -> None:
    extra = {"StreamSpecification": {"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"}} if stream else {}
    c.call("CreateTable", {**extra,
        "TableName": TABLE, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        "AttributeDefinitions": [{"AttributeName": a, "AttributeType": "S"} for a in ("pk", "sk", "g")],
        "GlobalSecondaryIndexes": [{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                    "Projection": {"ProjectionType": "ALL"}}],
    })  # fmt: skip


def worker(port: int, keys: int, seed: int, stop: threading.Event, counts: list[int]) -> None:
    rng = random.Random(seed)
    c = Conn(port)
    while not stop.is_set():
        k = rng.randrange(keys)
        key = {"pk": {"S": f"p{k % 97}"}, "sk": {"S": f"s{k}"}}
        r = rng.random()
        if r < 0.3:
            c.call("PutItem", {"TableName": TABLE, "Item": {**key, "g": {"S": f"g{k % 13}"}, "n": {"N": str(k)},
                                                             "body": {"S": "x" * rng.randrange(50, 400)}}})
        elif r < 0.55:
            c.call("GetItem", {"TableName": TABLE, "Key": key})
        elif r < 0.75:
            c.call("UpdateItem", {"TableName": TABLE, "Key": key, "UpdateExpression": "SET #t = :t ADD c :one",
                                  "ExpressionAttributeNames": {"#t": "t"},
                                  "ExpressionAttributeValues": {":t": {"S": str(rng.random())}, ":one": {"N": "1"}}})
        elif r < 0.9:
            c.call("Query", {"TableName": TABLE, "KeyConditionExpression": "pk = :p", "Limit": 20,
                             "ExpressionAttributeValues": {":p": {"S": f"p{k % 97}"}}})
        else:
            c.call("DeleteItem", {"TableName": TABLE, "Key": key})
        counts[0] += 1


def soak(store: str, minutes: float, interval: float, keys: int, connections: int, stream: bool) -> dict[str, Any]:
    port = _free_port()
    tmp = tempfile.TemporaryDirectory()
    args = ["--in-memory"] if store == "memory" else ["--data-dir", tmp.name]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "dynemu", "--port", str(port), "--throttling", "off", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)  # fmt: skip
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        fill = Conn(port)
        create_table(fill, stream)
        for start in range(0, keys, 25):  # the whole key set first: growth after it is not data
            fill.call("BatchWriteItem", {"RequestItems": {TABLE: [
                {"PutRequest": {"Item": {"pk": {"S": f"p{k % 97}"}, "sk": {"S": f"s{k}"}, "g": {"S": f"g{k % 13}"},
                                         "n": {"N": str(k)}, "body": {"S": "x" * 225},
                                         "t": {"S": "0.5"}, "c": {"N": "1"}}}}
                for k in range(start, min(keys, start + 25))]}})  # fmt: skip
        stop = threading.Event()
        counts = [0]
        threads = [threading.Thread(target=worker, args=(port, keys, n, stop, counts), daemon=True)
                   for n in range(connections)]  # fmt: skip
        for t in threads:
            t.start()
        samples: list[tuple[float, float]] = []
        started = time.monotonic()
        while (elapsed := time.monotonic() - started) < minutes * 60:
            samples.append((elapsed, rss_mb(proc.pid)))
            print(f"  {store:7s} t={elapsed:6.0f}s rss={samples[-1][1]:7.1f} MB requests={counts[0]}", flush=True)
            time.sleep(interval)
        stop.set()
        for t in threads:
            t.join(60)
        loaded = rss_mb(proc.pid)
        c = Conn(port)
        c.call("DeleteTable", {"TableName": TABLE})
        time.sleep(max(2.0, interval))
        c.call("ListTables", {})
        after = rss_mb(proc.pid)
        half = [s for s in samples if s[0] >= samples[-1][0] / 2]
        slope = (half[-1][1] - half[0][1]) / max(1e-9, (half[-1][0] - half[0][0]) / 60) if len(half) > 1 else 0.0
        return {"store": store, "requests": counts[0], "first": samples[0][1], "loaded": loaded, "after_delete": after,
                "slope_mb_per_min_second_half": slope, "samples": samples}  # fmt: skip
    finally:
        proc.terminate()
        proc.wait(30)
        tmp.cleanup()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--minutes", type=float, default=10.0, help="per store (default 10)")
    p.add_argument("--interval", type=float, default=10.0, help="seconds between samples")
    p.add_argument("--keys", type=int, default=20_000, help="the fixed key set")
    p.add_argument("--connections", type=int, default=4)
    p.add_argument("--stores", default="memory,leveldb")
    p.add_argument("--stream", action="store_true", help="give the table a stream: its records are kept 24 hours, "
                   "as DynamoDB keeps them, so in memory RSS then grows with every write by design")
    p.add_argument("--json", help="write every sample here")
    args = p.parse_args()
    results = [soak(s, args.minutes, args.interval, args.keys, args.connections, args.stream) for s in args.stores.split(",")]
    print(f"{'store':8s} {'requests':>9s} {'first MB':>9s} {'loaded MB':>10s} {'MB/min (2nd half)':>18s} "
          f"{'after DeleteTable MB':>21s}")  # fmt: skip
    for r in results:
        print(f"{r['store']:8s} {r['requests']:9d} {r['first']:9.1f} {r['loaded']:10.1f} "
              f"{r['slope_mb_per_min_second_half']:18.2f} {r['after_delete']:21.1f}")  # fmt: skip
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
