"""A full disk under each on-disk store, and closing namespaces whatever fails (issue 31).

The disk is a small tmpfs (root only; the fixture skips elsewhere, saying why). The server-level
behaviour is tests/test_crash_durability.py."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from dynemu import errors
from dynemu.engine.clock import VirtualClock
from dynemu.engine.namespaces import Namespaces
from dynemu.storage.base import WriteBatch, out_of_space
from dynemu.storage.memory import MemoryStore
from dynemu.storage.select import open_store
from tests.test_crash_durability import _fill, small_disk  # noqa: F401 - the fixture

VALUE = os.urandom(4000)


def _put(store: Any, key: bytes) -> None:
    batch = WriteBatch()
    batch.put(key, VALUE)
    store.write(batch)


def _fill_store(store: Any) -> int:
    """Write keys k0, k1, ... until the disk refuses one; the number written."""
    for n in range(100_000):
        try:
            _put(store, b"k%06d" % n)
        except errors.DiskFull as e:
            assert e.status == 500 and e.type_name == "InternalServerError" and store.path in e.message
            return n
    raise AssertionError("the disk never filled")


@pytest.mark.parametrize("kind", ["leveldb", "sqlite"])
def test_refused_then_resumed_without_losing_a_write(small_disk: Path, kind: str) -> None:  # noqa: F811
    path = str(small_disk / "ns")
    store = open_store(kind, path)
    _put(store, b"a")
    filler = _fill(small_disk, 256 * 1024)
    n = _fill_store(store)
    for _ in range(3):  # refused again, nothing written
        with pytest.raises(errors.DiskFull):
            _put(store, b"refused")
    assert store.get(b"refused") is None
    assert store.get(b"a") == VALUE and store.get(b"k%06d" % (n - 1)) == VALUE  # reads keep working
    assert sum(1 for _ in store.iterate(b"k", b"l")) == n
    filler.unlink()
    _put(store, b"after")  # room again: the same store object writes (LevelDB: reopened inside)
    _put(store, b"after-2")
    assert store.get(b"after") == VALUE and store.get(b"a") == VALUE
    store.close()
    # What was acknowledged is all there after a reopen: LevelDB's log is not left with a torn
    # record that would swallow the writes made after the refusal.
    store = open_store(kind, path)
    try:
        assert store.get(b"after") == VALUE and store.get(b"after-2") == VALUE
        assert sum(1 for _ in store.iterate(b"k", b"l")) == n
    finally:
        store.close()


def test_out_of_space_recognises_each_store() -> None:
    assert out_of_space(OSError(28, "No space left on device"))
    assert out_of_space(OSError(b"IO error: /d/000003.log: No space left on device"))  # plyvel's IOError
    import sqlite3

    assert out_of_space(sqlite3.OperationalError("database or disk is full"))
    assert not out_of_space(OSError(b"IO error: /d/LOCK: Resource temporarily unavailable"))
    assert not out_of_space(sqlite3.OperationalError("database is locked"))


# --- closing --------------------------------------------------------------------------------------


class _Failing(MemoryStore):
    """A memory store whose writes and closing can fail."""

    def __init__(self, *, write: bool = False, close: bool = False) -> None:
        super().__init__()
        self.fail_write, self.fail_close = write, close
        self.was_closed = False

    def write(self, batch: WriteBatch) -> None:
        if self.fail_write:
            raise errors.disk_full("/data/ns")
        super().write(batch)

    def close(self) -> None:
        self.was_closed = True
        if self.fail_close:
            raise RuntimeError("cannot close")
        super().close()


def test_close_closes_every_namespace_and_reports_what_it_could_not_save() -> None:
    spaces = Namespaces(data_dir=None, clock=VirtualClock(1_700_000_000.0))
    stores = {"a": _Failing(close=True), "b": _Failing(), "c": _Failing()}
    for name, store in stores.items():
        spaces._open_store = lambda _name, store=store: store  # type: ignore[method-assign]
        db = spaces._open(name)
        tid, arn, uuid = db.new_spec_ids("t", "us-east-1")
        from dynemu.engine.schema import KeyAttr, TableSpec

        db.add_table(TableSpec(name="t", table_id=tid, arn=arn, uuid=uuid, created=db.now(),
                               hash_key=KeyAttr("pk", "S"), range_key=None,
                               attribute_definitions=[KeyAttr("pk", "S")], billing_mode="PAY_PER_REQUEST"))
    stores["b"].fail_write = True  # its partition sizes cannot be saved: a full disk
    unsaved = spaces.close()
    assert all(s.was_closed for s in stores.values())  # every store closed, whatever failed before
    assert spaces.databases == {}
    by_name = {u.namespace: u for u in unsaved}
    assert set(by_name) == {"a", "b"}
    assert by_name["a"].data_lost and "the store did not close (RuntimeError: cannot close)" in by_name["a"].what
    assert not by_name["b"].data_lost and by_name["b"].what.startswith("partition sizes")
    assert errors.disk_full("/data/ns").message in by_name["b"].what


def test_leveldb_reopen_that_fails_is_retried_by_reads_and_writes(tmp_path: Path, monkeypatch: Any) -> None:
    plyvel = pytest.importorskip("plyvel")
    from dynemu.storage import leveldb

    store = leveldb.LevelDBStore(tmp_path / "ns")
    _put(store, b"a")
    store._refused = True  # as after a write refused for lack of space
    real = plyvel.DB

    def no_room(*args: Any, **kwargs: Any) -> Any:
        raise plyvel.IOError(b"IO error: ns/000005.ldb: No space left on device")

    monkeypatch.setattr(leveldb.plyvel, "DB", no_room)
    with pytest.raises(errors.DiskFull):
        _put(store, b"b")  # the room check passed, the open did not
    with pytest.raises(errors.DiskFull):
        store.get(b"a")  # no handle: a read tries to open it again, and says why it cannot
    monkeypatch.setattr(leveldb.plyvel, "DB", real)
    assert store.get(b"a") == VALUE  # opened again by the read
    _put(store, b"b")
    assert store.get(b"b") == VALUE and not store.closed
    store.close()
    assert store.closed



def test_a_refused_write_leaves_no_trace_in_the_index_counters(monkeypatch: Any) -> None:
    from botocore.exceptions import ClientError

    from dynemu.testing import DynemuServer
    from tests.conftest import make_client

    name = "refused-gsi"
    with DynemuServer() as url:
        c = make_client(url)
        c.create_table(
            TableName=name, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexes=[{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                     "Projection": {"ProjectionType": "ALL"}}],
            BillingMode="PAY_PER_REQUEST",
        )  # fmt: skip
        c.put_item(TableName=name, Item={"pk": {"S": "a"}, "g": {"S": "x"}})
        written = MemoryStore.write

        def full(self: MemoryStore, batch: WriteBatch) -> None:
            raise errors.disk_full("/data/us-east-1")

        monkeypatch.setattr(MemoryStore, "write", full)
        with pytest.raises(ClientError):
            c.put_item(TableName=name, Item={"pk": {"S": "b"}, "g": {"S": "x"}})
        monkeypatch.setattr(MemoryStore, "write", written)
        c.put_item(TableName=name, Item={"pk": {"S": "c"}, "g": {"S": "x"}})
        table = c.describe_table(TableName=name)["Table"]
        assert table["ItemCount"] == 2
        assert table["GlobalSecondaryIndexes"][0]["ItemCount"] == 2  # today: 3


# --- a refused commit leaves memory as the store has it -------------------------------------------


def _refusing_namespace() -> tuple[Any, _Failing, Any]:
    from dynemu.api.operations import items, tables
    from dynemu.api.protocol import Context
    from dynemu.config import Settings
    from dynemu.engine.namespace import Namespace

    store = _Failing()
    db = Namespace(store, VirtualClock(1_700_000_000.0))
    ctx = Context(db=db, region="us-east-1", access_key="AKIDTEST", settings=Settings(in_memory=True), endpoint="")
    ops = {**tables.OPERATIONS, **items.OPERATIONS}

    def call(op: str, **body: Any) -> dict[str, Any]:
        return ops[op](ctx, body)

    call("CreateTable", TableName="t", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
         AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
         StreamSpecification={"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"})  # fmt: skip
    return db, store, call


def _put_refused(store: _Failing, call: Any, pk: str) -> None:
    store.fail_write = True
    with pytest.raises(errors.DynamoError):
        call("PutItem", TableName="t", Item={"pk": {"S": pk}, "v": {"S": "x" * 100}})
    store.fail_write = False


def test_a_refused_write_uses_no_stream_sequence_number() -> None:
    db, store, call = _refusing_namespace()
    call("PutItem", TableName="t", Item={"pk": {"S": "a"}})
    ((ts, _),) = db.streams.streams("t")
    first = ts.seq
    _put_refused(store, call, "b")
    assert ts.seq == first
    call("PutItem", TableName="t", Item={"pk": {"S": "c"}})
    assert ts.seq == first + 1
    records = sorted((r for shard in ts.open for r in ts.read(shard, shard.first_seq, 100, db.now())[0]),
                     key=lambda r: r.seq)  # fmt: skip
    assert [(r.keys["pk"]["S"], r.seq) for r in records] == [("a", first), ("c", first + 1)]
    assert max(shard.written for shard in ts.open) == first + 1


def test_a_refused_write_leaves_the_partition_sizes_as_stored() -> None:
    db, store, call = _refusing_namespace()
    call("PutItem", TableName="t", Item={"pk": {"S": "a"}})
    _put_refused(store, call, "b")
    call("PutItem", TableName="t", Item={"pk": {"S": "c"}})
    table = db.get("t")
    parts = table.capacity.state.pmap.parts
    assert table.item_count == 2
    assert sum(p.item_count for p in parts) == 2
    assert sum(p.size_bytes for p in parts) == table.size_bytes
