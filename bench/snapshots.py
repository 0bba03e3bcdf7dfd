"""Restore time of a snapshot (POST /_dynemu/snapshots/<name>/restore) for 10k and 100k items,
beside the time loading those items took, on each store.

    python bench/snapshots.py [--sizes 10000,100000] [--stores memory,leveldb,sqlite] [--rounds 3]

A restore copies a store (a memory store's contents, or a closed store's files), it never
replays items: its time grows with the bytes, and is far below loading the items again.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
import urllib.request
from pathlib import Path

from dynemu.testing import DynemuServer

DEFINITION = {"TableName": "bench", "BillingMode": "PAY_PER_REQUEST",
              "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
              "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}  # fmt: skip


def post(url: str, path: str, body: dict[str, str]) -> float:
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})  # fmt: skip
    started = time.perf_counter()
    with urllib.request.urlopen(req, timeout=600) as r:
        r.read()
    return time.perf_counter() - started


def run(store: str, n: int, rounds: int, work: Path) -> tuple[float, float, float]:
    rows = work / f"rows-{n}.jsonl"
    if not rows.exists():
        with rows.open("w") as f:
            for i in range(n):
                f.write(json.dumps({"Item": {"pk": {"S": f"key-{i:08d}"}, "v": {"S": "x" * 200}}}) + "\n")
    extra = {} if store == "memory" else {"data_dir": str(work / f"{store}-{n}"), "store": store}
    with_server = DynemuServer(throttling="off", **extra)
    url = with_server.start()
    try:
        urllib.request.urlopen(url + "/_dynemu/snapshots", timeout=60).close()  # the admin routes are built
        started = time.perf_counter()
        with_server.seed(DEFINITION, str(rows))
        load = time.perf_counter() - started
        snap = post(url, "/_dynemu/snapshots", {"name": "base"})
        times = []
        for _ in range(rounds):
            with_server.seed({**DEFINITION, "TableName": "later"}, None)  # a later write to undo
            times.append(post(url, "/_dynemu/snapshots/base/restore", {}))
        return load, snap, statistics.median(times)
    finally:
        with_server.stop()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="10000,100000")
    p.add_argument("--stores", default="memory,leveldb,sqlite")
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args()
    print("| store | items | load (s) | snapshot (s) | restore, median (s) | load / restore |")
    print("| --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for store in args.stores.split(","):
            for n in map(int, args.sizes.split(",")):
                load, snap, restore = run(store, n, args.rounds, Path(tmp))
                print(f"| {store} | {n:,} | {load:.2f} | {snap:.3f} | {restore:.3f} | {load / restore:.0f}x |",
                      flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
