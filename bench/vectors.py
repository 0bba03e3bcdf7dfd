"""Vector search at scale: 100,000 vectors of 1,024 dimensions, SearchVectors with TopK=10.

    python bench/vectors.py [--vectors 100000] [--dims 1024] [--searches 20]

In process, on a LevelDB store in a temporary directory, with throttling off. The items are
committed by ``Namespace.commit`` (the one storage write of item changes; their sizes are
estimated from the first item's, which only DescribeTable's TableSizeBytes sees, since
measuring 100 million numbers one by one would take most of an hour), then UpdateTable adds
the vector index and its backfill (the product's path) writes the entries and fills the
matrix; ``--load batch`` writes the items through BatchWriteItem's handler instead (the write
executor and the index's write observer; about 25 ms of CPU per 1,024-number item, most of
it the attribute-value validation every item gets). Then the namespace is opened again,
which rebuilds the index's float32 matrix from its stored entries (traced with tracemalloc: the memory per vector is what the
index holds in memory, matrix and bookkeeping, divided by the vector count), then
SearchVectors is called through its operation handler (the read executor; HTTP framing,
measured by bench/throughput.py, is not included). Prints the load time, the rebuild
time, the memory per vector and the search latency (median and worst of ``--searches``),
unfiltered and with an INLINE_FILTER equality keeping a tenth of the items
(``--matrix-only``: the search on a matrix filled directly, without storage). Targets
(issue 26): under 50 ms per search, under 5 KB per 1,024-dimension vector.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from typing import Any

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from dynemu.api.operations import batch, tables, vectors  # noqa: E402
from dynemu.api.protocol import Context  # noqa: E402
from dynemu.config import Settings  # noqa: E402
from dynemu.engine import values  # noqa: E402
from dynemu.engine.capacity.throughput import CapacityConfig  # noqa: E402
from dynemu.engine.clock import RealClock  # noqa: E402
from dynemu.engine.namespace import Namespace  # noqa: E402
from dynemu.engine.table import Mutation  # noqa: E402
from dynemu.storage.select import open_store  # noqa: E402

TABLE = "embeddings"


def namespace(path: str) -> tuple[Namespace, Context]:
    db = Namespace(open_store("leveldb", path), RealClock(), CapacityConfig(throttling=False))
    ctx = Context(db=db, region="us-east-1", access_key="bench", settings=Settings(), endpoint="")
    return db, ctx


def vector_index(dims: int) -> dict[str, Any]:
    return {
        "IndexName": "emb-idx", "VectorAttribute": {"AttributeName": "emb"}, "Dimensions": dims,
        "DistanceFunction": "COSINE", "Projection": {"ProjectionType": "KEYS_ONLY"},
        "SearchSchema": [{"AttributeName": "cat", "SearchSchemaElementType": "INLINE_FILTER"}],
    }  # fmt: skip


DEFINITIONS = [{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "cat", "AttributeType": "S"}]


def create(ctx: Context, dims: int, with_index: bool) -> None:
    body: dict[str, Any] = {
        "TableName": TABLE, "BillingMode": "PAY_PER_REQUEST",
        "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
        "AttributeDefinitions": DEFINITIONS if with_index else DEFINITIONS[:1],
    }  # fmt: skip
    if with_index:
        body["VectorIndexes"] = [vector_index(dims)]
    tables.create_table(ctx, body)


def items(n: int, dims: int, rng: np.random.Generator, size: int = 25) -> Any:
    for start in range(0, n, size):
        block = rng.standard_normal((min(size, n - start), dims), dtype=np.float32)
        yield [
            {"pk": {"S": f"doc-{start + i:07d}"}, "cat": {"S": f"c{(start + i) % 10}"},
             "emb": {"L": [{"N": repr(x)} for x in row.tolist()]}}
            for i, row in enumerate(block)
        ]  # fmt: skip


def load_batch(ctx: Context, n: int, dims: int, rng: np.random.Generator) -> float:
    t0 = time.perf_counter()
    for block in items(n, dims, rng):
        requests = [{"PutRequest": {"Item": item}} for item in block]
        out = batch.batch_write_item(ctx, {"RequestItems": {TABLE: requests}})
        assert not out.get("UnprocessedItems"), "throttling is off: nothing is left unprocessed"
    return time.perf_counter() - t0


def load_commit(db: Namespace, ctx: Context, n: int, dims: int, rng: np.random.Generator) -> float:
    """Items committed as they are, then the index added by UpdateTable (its backfill)."""
    table = db.get(TABLE)
    size = 0
    t0 = time.perf_counter()
    for block in items(n, dims, rng, 500):
        size = size or values.item_size(block[0])
        db.commit([Mutation(table, table.key_for_item(item), None, 0, item, size) for item in block])
    tables.update_table(ctx, {"TableName": TABLE, "AttributeDefinitions": DEFINITIONS,
                              "VectorIndexUpdates": [{"Create": vector_index(dims)}]})
    return time.perf_counter() - t0


def timed_searches(
    ctx: Context, dims: int, runs: int, rng: np.random.Generator, **extra: Any
) -> list[tuple[float, float]]:
    """(wall, CPU) seconds of each search (CPU: of every thread of the process, numpy's too)."""
    out = []
    for _ in range(runs):
        q = [{"N": repr(x)} for x in rng.standard_normal(dims, dtype=np.float32).tolist()]
        t0 = time.perf_counter()
        c0 = time.process_time()
        r = vectors.search_vectors(ctx, {"TableName": TABLE, "IndexName": "emb-idx", "SearchVector": q, "TopK": 10,
                                         **extra})
        out.append((time.perf_counter() - t0, time.process_time() - c0))
        assert len(r["SearchResults"]) == 10
    return out


def matrix_only(n: int, dims: int, runs: int, rng: np.random.Generator) -> None:
    """The search on an index's matrix alone (``VectorMatrix.top``), filled directly: minutes
    instead of the hour a full run takes on a loaded machine."""
    from dynemu.engine.vectors.matrix import VectorMatrix

    m = VectorMatrix(dims, "COSINE", ("cat",))
    for start in range(0, n, 1000):
        block = rng.standard_normal((min(1000, n - start), dims), dtype=np.float32)
        for i, row in enumerate(block):
            m.put(f"doc-{start + i:07d}".encode(), row.astype("<f4").tobytes(), {"cat": ("S", f"c{(start + i) % 10}")})
    m.trim()
    for label, keep in (("search", None), ("search with a filter keeping 1/10", True)):
        runs_ = []
        for _ in range(runs):
            q = rng.standard_normal(dims, dtype=np.float32)
            t0, c0 = time.perf_counter(), time.process_time()
            mask = m.mask_equal("cat", ("S", "c3")) if keep else None
            assert len(m.top(q, 10, mask)) == 10
            runs_.append((time.perf_counter() - t0, time.process_time() - c0))
        wall, cpu = [w for w, _ in runs_], [c for _, c in runs_]
        print(f"{label} (matrix only): median {statistics.median(wall) * 1000:.1f} ms, worst {max(wall) * 1000:.1f} ms"
              f" (CPU: median {statistics.median(cpu) * 1000:.1f} ms)")
    print(f"matrix: {m.nbytes / n / 1024:.2f} KB per vector (float32 data and norms)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--vectors", type=int, default=100_000)
    ap.add_argument("--dims", type=int, default=1024)
    ap.add_argument("--searches", type=int, default=20)
    ap.add_argument("--load", choices=("commit", "batch"), default="commit")
    ap.add_argument("--matrix-only", action="store_true", help="time the search on the index's matrix alone")
    a = ap.parse_args()
    rng = np.random.default_rng(26)
    if a.matrix_only:
        matrix_only(a.vectors, a.dims, a.searches, rng)
        return
    with tempfile.TemporaryDirectory() as tmp:
        db, ctx = namespace(tmp)
        create(ctx, a.dims, with_index=a.load == "batch")
        if a.load == "batch":
            loaded = load_batch(ctx, a.vectors, a.dims, rng)
        else:
            loaded = load_commit(db, ctx, a.vectors, a.dims, rng)
        count = tables.describe_table(ctx, {"TableName": TABLE})["Table"]["VectorIndexes"][0]["ItemCount"]
        assert count == a.vectors, count
        db.close()
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        t0 = time.perf_counter()
        db, ctx = namespace(tmp)  # rebuilds the matrix from the stored entries
        rebuilt = time.perf_counter() - t0
        held = tracemalloc.get_traced_memory()[0] - base
        tracemalloc.stop()
        plain = timed_searches(ctx, a.dims, a.searches, rng)
        filtered = timed_searches(ctx, a.dims, a.searches, rng, SearchConditionExpression="cat = :c",
                                  ExpressionAttributeValues={":c": {"S": "c3"}})
        db.close()
    def ms(runs: list[tuple[float, float]]) -> str:
        wall, cpu = [w for w, _ in runs], [c for _, c in runs]
        return (f"median {statistics.median(wall) * 1000:.1f} ms, worst {max(wall) * 1000:.1f} ms "
                f"(CPU: median {statistics.median(cpu) * 1000:.1f} ms)")

    print(f"{a.vectors:,} vectors x {a.dims} dims, COSINE, TopK=10")
    how = "BatchWriteItem, 25 a request" if a.load == "batch" else "items committed, then UpdateTable's backfill"
    print(f"load ({how}): {loaded:.1f} s ({a.vectors / loaded:,.0f} vectors/s)")
    print(f"rebuild on open: {rebuilt:.2f} s")
    print(f"memory per vector: {held / a.vectors / 1024:.2f} KB (float32 alone: {4 * a.dims / 1024:.2f} KB)")
    print(f"search: {ms(plain)} (target < 50 ms)")
    print(f"search with a filter keeping 1/10: {ms(filtered)}")


if __name__ == "__main__":
    main()
