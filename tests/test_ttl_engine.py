"""The TTL engine without HTTP: the expiry index, the sweeper's cost, restarts."""

from __future__ import annotations

import asyncio
from typing import Any

from dynemu.engine import lifecycle, streams, ttl
from dynemu.engine.clock import RealClock, VirtualClock
from dynemu.engine.namespaces import Namespaces
from dynemu.storage import keyspace
from dynemu.storage.memory import MemoryStore
from tests.test_streams_engine import T0, new_db, new_table, put


def _entries(db: Any, table: Any) -> list[bytes]:
    prefix = keyspace.ttl_prefix(table.spec.table_id)
    return [k for k, _ in db.store.iterate(prefix, keyspace.prefix_end(prefix))]


def test_index_follows_every_write() -> None:
    db = new_db()
    table = new_table(db)
    ttl.update(table, "exp", True, db.now())
    put(db, table, {"pk": {"S": "a"}, "exp": {"N": "100"}})
    assert len(_entries(db, table)) == 1
    put(db, table, {"pk": {"S": "a"}, "exp": {"N": "200"}})  # moved: old entry gone
    assert len(_entries(db, table)) == 1
    put(db, table, {"pk": {"S": "a"}, "exp": {"S": "200"}})  # no longer a Number: unindexed
    assert _entries(db, table) == []
    put(db, table, {"pk": {"S": "b"}, "exp": {"N": "1e3"}})
    db.commit([table.plan(table.key_for_request({"pk": {"S": "b"}}), None)])
    assert _entries(db, table) == []


def test_sweep_cost_follows_the_expired_items() -> None:
    db = new_db()
    table = new_table(db)
    ttl.update(table, "exp", True, db.now())
    for i in range(2000):
        put(db, table, {"pk": {"S": f"live{i}"}, "exp": {"N": str(int(T0) + 10_000)}})
    for i in range(3):
        put(db, table, {"pk": {"S": f"dead{i}"}, "exp": {"N": str(int(T0) - 1)}})
    touched: list[bytes] = []
    store = db.store
    real_get, real_iterate = store.get, store.iterate

    def get(key: bytes) -> Any:
        touched.append(key)
        return real_get(key)

    def iterate(start: bytes, stop: bytes, **kw: Any) -> Any:
        for k, v in real_iterate(start, stop, **kw):
            touched.append(k)
            yield k, v

    store.get, store.iterate = get, iterate  # type: ignore[method-assign]
    assert lifecycle.sweep(db, db.now()) == 3
    assert len([k for k in touched if k.startswith(keyspace.ITEMS)]) <= 6
    assert len(touched) < 30
    assert table.item_count == 2000


def test_settings_survive_a_restart() -> None:
    store = MemoryStore()
    db = new_db(store)
    table = new_table(db)
    ttl.update(table, "exp", True, db.now())
    db2 = new_db(store, db.clock)  # type: ignore[arg-type]
    t2 = db2.get("things")
    state = ttl.describe(t2)
    assert (state.attribute, state.enabled, state.status(db2.now())) == ("exp", True, "ENABLED")
    put(db2, t2, {"pk": {"S": "x"}, "exp": {"N": str(int(T0) - 1)}})
    assert lifecycle.sweep(db2, db2.now()) == 1


def test_sweeper_marks_stream_records_as_the_service() -> None:
    db = new_db()
    table = new_table(db)
    streams.enable(db.streams, table, "KEYS_ONLY", db.now())
    ttl.update(table, "exp", True, db.now())
    put(db, table, {"pk": {"S": "x"}, "exp": {"N": str(int(T0) - 1)}})
    db.commit([table.plan(table.key_for_item({"pk": {"S": "y"}}), {"pk": {"S": "y"}})])
    db.commit([table.plan(table.key_for_request({"pk": {"S": "y"}}), None)])
    lifecycle.sweep(db, db.now())
    ts = db.streams.tables[table.spec.table_id]
    recs = sorted((r for s in ts.streams[0].shards for r in ts.read(s, 1, 100, db.now())[0]), key=lambda r: r.seq)
    assert [(r.event, r.keys["pk"]["S"], r.service) for r in recs] == [
        ("INSERT", "x", False), ("INSERT", "y", False), ("REMOVE", "y", False), ("REMOVE", "x", True),
    ]  # fmt: skip


def test_table_deletion_drops_the_index() -> None:
    db = new_db()
    table = new_table(db)
    ttl.update(table, "exp", True, db.now())
    put(db, table, {"pk": {"S": "x"}, "exp": {"N": "5"}})
    ttl.on_table_deleted(table)
    assert _entries(db, table) == []


def test_background_task_sweeps_on_a_real_clock() -> None:
    ns = Namespaces(data_dir=None, clock=RealClock())
    db = ns.get("us-east-1", "k")
    table = new_table(db)
    ttl.update(table, "exp", True, db.now())
    put(db, table, {"pk": {"S": "x"}, "exp": {"N": str(int(db.now()) - 1)}})

    async def main() -> None:
        passes = lifecycle.Lifecycle(ns, 0.05)
        passes.start(asyncio.get_running_loop())
        for _ in range(100):
            await asyncio.sleep(0.02)
            if table.item_count == 0:
                break
        passes.stop()

    asyncio.run(main())
    assert table.item_count == 0
    ns.close()


def test_virtual_clock_runs_maintenance_on_advance() -> None:
    ns = Namespaces(data_dir=None, clock=VirtualClock(T0))
    db = ns.get("us-east-1", "k")
    table = new_table(db)
    ttl.update(table, "exp", True, db.now())
    put(db, table, {"pk": {"S": "x"}, "exp": {"N": str(int(T0) + 10)}})
    passes = lifecycle.Lifecycle(ns, 60)
    passes.start()
    assert passes.follows_advances
    ns.clock.advance(5)
    assert table.item_count == 1
    ns.clock.advance(6)
    assert table.item_count == 0
