"""Query cost against table size: flat, because Query reads one partition key's items as a
range scan and never touches the rest of the table.

    python bench/query_scaling.py                  # 10,000 / 100,000 / 1,000,000 items (~1-2 min)
    python bench/query_scaling.py --sizes 10000,100000

The table is filled through the engine's own write path (Table.plan + Namespace.commit, in
batches) on the default LevelDB store, which is then compacted (the steady state of a table
that was not just bulk-loaded); then the Query operation handler (everything below
HTTP: expression compilation, key range, storage scan, filter, response) is timed for
random partition keys that hold 10 items each. Prints microseconds per Query at each size
and the ratio to the smallest table.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from dynemu.api.operations.query import query  # noqa: E402
from dynemu.api.operations.tables import create_table  # noqa: E402
from dynemu.api.protocol import Context  # noqa: E402
from dynemu.config import Settings  # noqa: E402
from dynemu.engine.capacity.throughput import CapacityConfig  # noqa: E402
from dynemu.engine.clock import RealClock  # noqa: E402
from dynemu.engine.namespace import Namespace  # noqa: E402
from dynemu.storage.leveldb import LevelDBStore  # noqa: E402

ITEMS_PER_KEY = 10


def fill(db: Namespace, ctx: Context, table_name: str, start: int, stop: int) -> None:
    table = db.get(table_name)
    batch = []
    for n in range(start, stop):
        item = {"pk": {"S": f"user-{n // ITEMS_PER_KEY}"}, "sk": {"N": str(n % ITEMS_PER_KEY)},
                "payload": {"S": "x" * 100}}
        batch.append(table.plan(table.key_for_item(item), item))
        if len(batch) == 5000:
            db.commit(batch)
            batch = []
    if batch:
        db.commit(batch)


def time_queries(ctx: Context, table_name: str, keys: int, count: int) -> float:
    rng = random.Random(7)
    samples = []
    for _ in range(5):
        bodies = [{"TableName": table_name, "KeyConditionExpression": "pk = :p",
                   "ExpressionAttributeValues": {":p": {"S": f"user-{rng.randrange(keys)}"}}} for _ in range(count)]
        t = time.perf_counter()
        for body in bodies:
            out = query(ctx, body)
            assert out["Count"] == ITEMS_PER_KEY
        samples.append((time.perf_counter() - t) / count * 1e6)
    return statistics.median(samples)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="10000,100000,1000000", help="table sizes in items")
    p.add_argument("--queries", type=int, default=2000, help="queries per sample (5 samples per size)")
    args = p.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    with tempfile.TemporaryDirectory(prefix="dynemu-qbench-") as tmp:
        db = Namespace(LevelDBStore(tmp), RealClock(), CapacityConfig(throttling=False))
        ctx = Context(db, "us-east-1", "bench", Settings(), "localhost")
        create_table(ctx, {
            "TableName": "scaling", "BillingMode": "PAY_PER_REQUEST",
            "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "sk", "AttributeType": "N"}],
        })
        loaded = 0
        first = None
        print(f"{'items in table':>15} {'load s':>8} {'us per Query':>13} {'vs smallest':>12}")
        for size in sizes:
            t = time.perf_counter()
            fill(db, ctx, "scaling", loaded, size)
            # Measure the steady state: let LevelDB compact what the bulk load left in level 0.
            db.store._db.compact_range()  # type: ignore[attr-defined]
            load_s = time.perf_counter() - t
            loaded = size
            us = time_queries(ctx, "scaling", size // ITEMS_PER_KEY, args.queries)
            first = first or us
            print(f"{size:>15,} {load_s:>8.1f} {us:>13.1f} {us / first:>11.2f}x", flush=True)
        db.store.close()


if __name__ == "__main__":
    main()
