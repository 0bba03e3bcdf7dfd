"""Vector indexes in process: the backfill (state, searches refused, writes meanwhile, a
restart in the middle), the rebuild from storage when a namespace opens, the replication
lag, and numpy staying out of a server that has no vector index."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import numpy as np
import pytest

from dynemu.api.operations import items, tables, vectors
from dynemu.api.protocol import Context
from dynemu.config import Settings
from dynemu.engine import indexes
from dynemu.engine import vectors as engine_vectors
from dynemu.engine.clock import RealClock, VirtualClock
from dynemu.engine.consistency import ConsistencyConfig
from dynemu.engine.namespace import Namespace
from dynemu.engine.vectors.maintain import Backfill
from dynemu.engine.vectors.spec import VectorIndexSpec, catalog_key
from dynemu.errors import DynamoError
from dynemu.storage import keyspace
from dynemu.storage.memory import MemoryStore
from tests.test_vectors import qv, vec, vector_index

OPS = {**tables.OPERATIONS, **items.OPERATIONS, **vectors.OPERATIONS}


class Harness:
    def __init__(self, store: MemoryStore | None = None, clock: Any = None, lag_ms: float = 0) -> None:
        self.store = store if store is not None else MemoryStore()
        self.db = Namespace(self.store, clock or RealClock(), consistency=ConsistencyConfig(lag_ms, probability=1.0))
        self.ctx = Context(db=self.db, region="us-east-1", access_key="AKIDTEST", settings=Settings(in_memory=True),
                           endpoint="")

    def __call__(self, op: str, **body: Any) -> dict[str, Any]:
        return OPS[op](self.ctx, body)

    def table(self, name: str = "t", *ixs: dict[str, Any]) -> None:
        body: dict[str, Any] = {"TableName": name, "BillingMode": "PAY_PER_REQUEST",
                                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}
        if ixs:
            body["VectorIndexes"] = list(ixs)
        self("CreateTable", **body)

    def put(self, pk: str, *v: float, table: str = "t") -> None:
        self("PutItem", TableName=table, Item={"pk": {"S": pk}, "emb": vec(*v)})

    def search(self, k: int = 10, table: str = "t", q: tuple[float, ...] = (1, 0, 0)) -> list[str]:
        out = self("SearchVectors", TableName=table, IndexName="emb-idx", SearchVector=qv(*q), TopK=k)
        return [r["Item"]["pk"]["S"] for r in out["SearchResults"]]

    def describe(self, table: str = "t") -> dict[str, Any]:
        (ix,) = self("DescribeTable", TableName=table)["Table"]["VectorIndexes"]
        return ix


def creating(h: Harness) -> Backfill:
    """A vector index on ``emb`` of table ``t`` in state CREATING, saved, not backfilled yet."""
    t = h.db.get("t")
    spec = VectorIndexSpec("emb-idx", indexes.next_index_id(t), "emb", 3, "EUCLIDEAN", "KEYS_ONLY",
                           status="CREATING", backfilling=True, arn=f"{t.spec.arn}/index/emb-idx")
    vix = engine_vectors.ensure_maintainer(t).add(spec)
    engine_vectors.save(t)
    return Backfill(t, vix)


def test_backfill_state_searches_refused_and_writes_meanwhile() -> None:
    h = Harness()
    h.table()
    for i in range(30):
        h.put(f"k{i:02}", i, 0, 0)
    job = creating(h)
    assert not job.step(10)
    ix = h.describe()
    assert (ix["IndexStatus"], ix["Backfilling"]) == ("CREATING", True)
    with pytest.raises(DynamoError) as e:
        h.search()
    assert (e.value.type_name, e.value.message) == ("ValidationException",
                                                    "Cannot search backfilling vector index: emb-idx")
    # writes during the backfill: on both sides of its cursor, and an invalid vector refused
    for i in range(30):
        h.put(f"k{i:02}", i + 100, 0, 0)
    h.put("new", 0.5, 0, 0)
    h("DeleteItem", TableName="t", Key={"pk": {"S": "k05"}})
    while not job.step(10):
        pass
    ix = h.describe()
    assert (ix["IndexStatus"], ix["ItemCount"]) == ("ACTIVE", 30) and "Backfilling" not in ix
    assert h.search(3, q=(0, 0, 0)) == ["new", "k00", "k01"]


def test_restart_during_backfill_backfills_again() -> None:
    store = MemoryStore()
    h = Harness(store)
    h.table()
    for i in range(25):
        h.put(f"k{i:02}", i, 0, 0)
    job = creating(h)
    job.step(10)
    h2 = Harness(store)  # the namespace opens again: the index is rebuilt from scratch
    ix = h2.describe()
    assert ix["IndexStatus"] == "ACTIVE" and "Backfilling" not in ix
    assert ix["ItemCount"] == 25
    assert h2.search(2, q=(24, 0, 0)) == ["k24", "k23"]


def test_matrix_is_rebuilt_from_storage() -> None:
    store = MemoryStore()
    h = Harness(store)
    h.table("t", vector_index(distance="DOT_PRODUCT", schema=None))
    rng = np.random.default_rng(3)
    for i in range(200):
        h.put(f"k{i:03}", *rng.normal(size=3).tolist())
    for i in range(0, 200, 7):
        h("DeleteItem", TableName="t", Key={"pk": {"S": f"k{i:03}"}})
    before = h.search(20, q=(0.3, -1, 2))
    size = h.describe()
    h2 = Harness(store)
    assert h2.search(20, q=(0.3, -1, 2)) == before
    assert h2.describe() == size
    vix = engine_vectors.find(h2.db.get("t"), "emb-idx")
    assert vix is not None
    data = vix.matrix.data[: vix.matrix.n]
    assert data.dtype == np.float32 and data.flags["C_CONTIGUOUS"] and vix.matrix.n == size["ItemCount"]


def test_replication_lag_hides_fresh_writes() -> None:
    """With --eventual-lag-ms a write reaches the vector index only once the lag has passed
    (vector indexes are updated asynchronously)."""
    clock = VirtualClock(start=1000.0)
    h = Harness(clock=clock, lag_ms=500)
    h.table("t", vector_index())
    h.put("old", 1, 0, 0)
    clock.advance(1)
    h.put("fresh", 1, 0.1, 0)
    assert h.search() == ["old"]
    clock.advance(0.6)
    assert h.search() == ["old", "fresh"]


def test_dropping_the_table_drops_its_vector_indexes() -> None:
    store = MemoryStore()
    h = Harness(store)
    h.table("t", vector_index())
    h.put("a", 1, 0, 0)
    table_id = h.db.get("t").spec.table_id
    h("DeleteTable", TableName="t")
    assert store.get(catalog_key(table_id)) is None
    assert not list(store.iterate(keyspace.table_indexes_prefix(table_id), keyspace.prefix_end(
        keyspace.table_indexes_prefix(table_id))))
    h.table("t")
    assert "VectorIndexes" not in h("DescribeTable", TableName="t")["Table"]


def test_numpy_is_imported_only_once_a_vector_index_exists() -> None:
    """Start-up, item traffic and tables without vector indexes never import numpy."""
    script = """
import sys, boto3
from dynemu.testing import DynemuServer
s = DynemuServer(); url = s.start()
c = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b")
before = "numpy" in sys.modules
c.create_table(TableName="tbl", BillingMode="PAY_PER_REQUEST", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
               AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])
c.put_item(TableName="tbl", Item={"pk": {"S": "a"}, "emb": {"L": [{"N": "1"}]}})
c.get_item(TableName="tbl", Key={"pk": {"S": "a"}})
plain = "numpy" in sys.modules
c.update_table(TableName="tbl", VectorIndexUpdates=[{"Create": {"IndexName": "idx", "VectorAttribute": {"AttributeName": "emb"},
               "Dimensions": 1, "DistanceFunction": "COSINE", "Projection": {"ProjectionType": "ALL"}}}])
print(before, plain, "numpy" in sys.modules)
s.stop()
"""
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.split() == ["False", "False", "True"]


def test_readme_example_runs_as_written(tmp_path: Any) -> None:
    """README's "Vector search" example, against a server, prints what it says it prints."""
    import re
    from pathlib import Path

    from dynemu.testing import DynemuServer

    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text()
    example = next(b for b in re.findall(r"```python\n(.*?)```", readme, flags=re.S)
                   if b.startswith("# vector_search.py"))
    expected = example.strip().splitlines()[-1].removeprefix("# ")
    server = DynemuServer()
    url = server.start()
    try:
        script = tmp_path / "vector_search.py"
        script.write_text(example.replace("http://127.0.0.1:8000", url))
        out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    finally:
        server.stop()
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == expected
