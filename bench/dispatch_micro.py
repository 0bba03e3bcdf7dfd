"""dynemu's own cost per request, without HTTP: ``ApiDispatcher._dispatch`` called in-process on
the benchmark's request bodies, timed in CPU time (``time.process_time``), so it is steadier
than ``throughput.py`` on a busy machine. Read it as "the µs dynemu adds on top of what any
aiohttp server costs"; confirm with ``throughput.py``.

    python bench/dispatch_micro.py [--count 20000] [--ops GetItem,PutItem,...] [--profile OP]

Besides ``workload.OPERATIONS``, ``--ops`` takes ``QueryFP`` (the Query with a filter and a
projection) and ``Scan`` (a filtered, projected page of ten from a random start).

For differences of a few percent on a shared machine, count instructions instead: run it
under ``valgrind --tool=callgrind`` with ``--rounds 1`` at two ``--count`` values and divide
the difference of the totals by the difference of the counts (bench/README.md).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import random
import sys
import time
from typing import Any

import orjson
from harness import REPO_DIR
from multidict import CIMultiDict
from workload import (
    AUTHORIZATION,
    CONTENT_TYPE,
    DEFAULT_TABLE,
    OPERATIONS,
    QUERY_ITEMS_PER_KEY,
    QUERY_PARTITIONS,
    QUERY_TABLE,
    TARGET_PREFIX,
    body_for,
    make_item,
    query_item,
)


class FakeRequest:
    """What ``ApiDispatcher._dispatch`` reads from an aiohttp request."""

    def __init__(self, op: str) -> None:
        self.headers = CIMultiDict(
            {"X-Amz-Target": TARGET_PREFIX + op, "Content-Type": CONTENT_TYPE, "Authorization": AUTHORIZATION,
             "X-Amz-Date": "20250101T000000Z"}
        )
        self.host = "localhost:8000"
        self.method = "POST"


def setup(keys: int, query: bool = True, partitions: int = QUERY_PARTITIONS, throttling: str = "off") -> Any:
    sys.path.insert(0, str(REPO_DIR))
    from dynemu.api.admin.app import DISPATCHER, create_app
    from dynemu.config import load_settings

    app = create_app(load_settings(["--in-memory", "--throttling", throttling]))
    protocol = app[DISPATCHER]

    def call(op: str, body: dict[str, Any]) -> Any:
        return protocol._dispatch(FakeRequest(op), orjson.dumps(body))

    for table, sort in ((DEFAULT_TABLE, False), (QUERY_TABLE, True)):
        schema = [{"AttributeName": "pk", "KeyType": "HASH"}]
        attrs = [{"AttributeName": "pk", "AttributeType": "S"}]
        if sort:
            schema.append({"AttributeName": "sk", "KeyType": "RANGE"})
            attrs.append({"AttributeName": "sk", "AttributeType": "N"})
        create = {"TableName": table, "KeySchema": schema, "AttributeDefinitions": attrs,
                  "BillingMode": "PAY_PER_REQUEST"}
        if throttling == "on":  # warm enough that the loop's rate is never throttled
            create["WarmThroughput"] = {"ReadUnitsPerSecond": 40000, "WriteUnitsPerSecond": 40000}
        call("CreateTable", create)
    rng = random.Random(1)
    for i in range(keys):
        call("PutItem", {"TableName": DEFAULT_TABLE, "Item": make_item(i, rng)})
    for p in range(partitions if query else 0):
        for s in range(QUERY_ITEMS_PER_KEY):
            call("PutItem", {"TableName": QUERY_TABLE, "Item": query_item(p, s, rng)})
    return protocol


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=20_000)
    p.add_argument("--keys", type=int, default=2_000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--ops", default=",".join(OPERATIONS))
    p.add_argument("--profile", metavar="OP", help="cProfile this operation instead of timing")
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--throttling", choices=("on", "off"), default="off",
                   help="the server's --throttling (on: the capacity model admits, as by default)")
    p.add_argument("--query-partitions", type=int, default=QUERY_PARTITIONS,
                   help="partition keys of the Query table to fill (requests use key %% 100 < --keys: "
                        "under callgrind, --keys 5 --query-partitions 5 starts much faster)")
    args = p.parse_args()
    protocol = setup(args.keys, bool({"Query", "QueryFP", "Scan"} & set(args.ops.split(","))), args.query_partitions,
                     args.throttling)
    gc.collect()
    gc.freeze()  # as the server does after start-up (startup.serve)
    rng = random.Random(2)
    for op in args.ops.split(","):
        raws = [orjson.dumps(body_for(op, DEFAULT_TABLE, rng.randrange(args.keys), rng, args.keys))
                for _ in range(min(args.count, 2000))]
        request = FakeRequest("Query" if op == "QueryFP" else op)
        n = args.count if op != "BatchWriteItem" else max(1, args.count // 10)
        if args.profile == op:
            prof = cProfile.Profile()
            prof.enable()
            for i in range(n):
                protocol._dispatch(request, raws[i % len(raws)])
            prof.disable()
            pstats.Stats(prof).sort_stats("cumulative").print_stats(args.top)
            pstats.Stats(prof).sort_stats("tottime").print_stats(args.top)
            continue
        best: list[float] = []
        for _ in range(args.rounds):
            t0 = time.process_time()
            for i in range(n):
                protocol._dispatch(request, raws[i % len(raws)])
            best.append((time.process_time() - t0) / n * 1e6)
        print(f"{op:15s} {min(best):8.1f} µs/req (min of {args.rounds}; max {max(best):.1f})", flush=True)


if __name__ == "__main__":
    main()
