"""In memory, a deleted table's memory goes back to the operating system (issue 17): a dict
never shrinks by itself and the C allocator keeps freed pages, so the store compacts itself
once it has shrunk below half its peak. Bulk deletes stay consistent on both stores."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path

import pytest

from dynemu.storage.base import Store, WriteBatch
from dynemu.storage.leveldb import LevelDBStore
from dynemu.storage.memory import MemoryStore

ROOT = Path(__file__).resolve().parent.parent

# Run in a fresh interpreter, so that nothing else of the test session shares its heap.
PROBE = """
import sys
from dynemu.storage.base import WriteBatch
from dynemu.storage.memory import MemoryStore

def rss():
    for line in open("/proc/self/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) // 1024

store = MemoryStore()
base = rss()
for b in range(40):
    batch = WriteBatch()
    for i in range(1000):
        batch.put(b"t1/%06d/%06d" % (b, i), bytes(1000) + b"%d" % i)
    store.write(batch)
full = rss()
keys = [k for k, _ in store.iterate(b"t1/", b"t2")]
for start in range(0, len(keys), 10_000):  # as Namespace.drop_table deletes a table's range
    batch = WriteBatch()
    for k in keys[start:start + 10_000]:
        batch.delete(k)
    store.write(batch)
del keys
print(base, full, rss())
"""


def test_a_deleted_tables_memory_is_returned() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, cwd=ROOT, timeout=120,
                         env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"})  # fmt: skip
    assert out.returncode == 0, out.stderr
    base, full, after = map(int, out.stdout.split())
    assert full - base >= 35  # about 40 MB of values held
    assert after - base <= (full - base) // 3, (base, full, after)  # most of it given back


@pytest.fixture(params=["memory", "leveldb"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Store:
    return MemoryStore() if request.param == "memory" else LevelDBStore(str(tmp_path / "db"))


def test_bulk_deletes_mixed_with_puts_stay_consistent(store: Store) -> None:
    rng = random.Random(3)
    model: dict[bytes, bytes] = {}
    for _ in range(30):
        batch = WriteBatch()
        for _ in range(rng.choice([5, 70, 300])):
            key = b"k%04d" % rng.randrange(600)
            if rng.random() < 0.5:
                batch.delete(key)
                model.pop(key, None)
            else:
                value = b"%d" % rng.randrange(10**6)
                batch.put(key, value)
                model[key] = value
        store.write(batch)
        assert list(store.iterate(b"", b"\xff")) == sorted(model.items())
        assert all(store.get(k) == v for k, v in model.items())
    store.close()
