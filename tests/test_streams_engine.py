"""The stream engine without HTTP: records in the item's batch, restart recovery, splits,
retention bookkeeping."""

from __future__ import annotations

from typing import Any

import pytest

from dynemu.api.operations.tables import stream_fields
from dynemu.engine import streams
from dynemu.engine.clock import VirtualClock
from dynemu.engine.namespace import Namespace
from dynemu.engine.schema import KeyAttr, TableSpec
from dynemu.engine.table import Table
from dynemu.storage import keyspace
from dynemu.storage.memory import MemoryStore

T0 = 1_700_000_000.0


def new_db(store: MemoryStore | None = None, clock: VirtualClock | None = None) -> Namespace:
    return Namespace(MemoryStore() if store is None else store, VirtualClock(T0) if clock is None else clock)


def new_table(db: Namespace, name: str = "things", range_key: bool = False) -> Table:
    tid, arn, uuid = db.new_spec_ids(name, "eu-west-1")
    spec = TableSpec(
        name=name, table_id=tid, arn=arn, uuid=uuid, created=db.now(),
        hash_key=KeyAttr("pk", "S"), range_key=KeyAttr("sk", "N") if range_key else None,
        attribute_definitions=[KeyAttr("pk", "S")] + ([KeyAttr("sk", "N")] if range_key else []),
        billing_mode="PAY_PER_REQUEST",
    )  # fmt: skip
    return db.add_table(spec)


def put(db: Namespace, table: Table, item: dict[str, Any]) -> None:
    db.commit([table.plan(table.key_for_item(item), item)])


def delete(db: Namespace, table: Table, pk: str) -> None:
    db.commit([table.plan(table.key_for_request({"pk": {"S": pk}}), None)])


def records(db: Namespace, table: Table) -> list[streams.Record]:
    ts = db.streams.tables[table.spec.table_id]
    out: list[streams.Record] = []
    for stream in ts.streams:
        for shard in stream.shards:
            out += ts.read(shard, 0, 1000, db.now())[0]
    return sorted(out, key=lambda r: r.seq)


def test_records_share_the_items_batch() -> None:
    db = new_db()
    table = new_table(db)
    streams.enable(db.streams, table, "NEW_AND_OLD_IMAGES", db.now())
    writes: list[int] = []
    real_write = db.store.write

    def counting(batch: Any) -> None:
        writes.append(sum(1 for k, _ in batch.ops if k.startswith(keyspace.STREAMS)))
        real_write(batch)

    db.store.write = counting  # type: ignore[method-assign]
    put(db, table, {"pk": {"S": "a"}})
    assert writes == [1]  # one batch holding the item and its record


def test_no_record_for_a_write_that_changes_nothing() -> None:
    db = new_db()
    table = new_table(db)
    streams.enable(db.streams, table, "KEYS_ONLY", db.now())
    put(db, table, {"pk": {"S": "a"}, "n": {"N": "1.0"}, "s": {"NS": ["1", "2"]}})
    put(db, table, {"pk": {"S": "a"}, "n": {"N": "1"}, "s": {"NS": ["2", "1.00"]}})
    delete(db, table, "missing")
    assert [r.event for r in records(db, table)] == ["INSERT"]


def test_restart_recovers_sequence_numbers_and_shards() -> None:
    store, clock = MemoryStore(), VirtualClock(T0)
    db = new_db(store, clock)
    table = new_table(db)
    streams.enable(db.streams, table, "NEW_IMAGE", db.now())
    for i in range(5):
        put(db, table, {"pk": {"S": f"k{i}"}})
    before = records(db, table)
    shard_ids = [s.shard_id for s in db.streams.tables[table.spec.table_id].streams[0].shards]
    db2 = new_db(store, clock)  # a restart: only storage survives
    table2 = db2.get("things")
    put(db2, table2, {"pk": {"S": "k9"}})
    after = records(db2, table2)
    assert [r.seq for r in after[:5]] == [r.seq for r in before]
    assert after[5].seq > before[-1].seq
    assert [s.shard_id for s in db2.streams.tables[table2.spec.table_id].streams[0].shards] == shard_ids
    assert stream_fields(table2)["StreamSpecification"] == {
        "StreamEnabled": True,
        "StreamViewType": "NEW_IMAGE",
    }


def test_split_closes_the_parent_in_the_same_batch() -> None:
    db = new_db()
    table = new_table(db)
    ts = streams.enable(db.streams, table, "KEYS_ONLY", db.now()) and db.streams.tables[table.spec.table_id]
    state = table.capacity.state
    n = len(state.pmap)
    put(db, table, {"pk": {"S": "a"}})
    state.split(0, state.pmap.hash_midpoint(0), db.now())
    for i in range(30):
        put(db, table, {"pk": {"S": f"x{i}"}})
    shards = ts.streams[0].shards
    assert len(shards) == n + 2
    closed = [s for s in shards if not s.is_open]
    assert len(closed) == 1 and closed[0].last_seq is not None and closed[0].closed_at == db.now()
    kids = [s for s in shards if s.parent_id == closed[0].shard_id]
    assert len(kids) == 2 and all(k.first_seq > closed[0].last_seq for k in kids)
    # the metadata written with the records is what a restart sees
    db2 = new_db(db.store, db.clock)  # type: ignore[arg-type]
    ts2 = db2.streams.tables[table.spec.table_id]
    assert [(s.shard_id, s.last_seq) for s in ts2.streams[0].shards] == [(s.shard_id, s.last_seq) for s in shards]


def test_retention_forgets_closed_shards_and_deleted_tables() -> None:
    db = new_db()
    table = new_table(db)
    streams.enable(db.streams, table, "KEYS_ONLY", db.now())
    put(db, table, {"pk": {"S": "a"}})
    streams.on_table_deleted(db.streams, table, db.now())
    db.drop_table(table)
    cat = db.streams
    assert cat.streams("things")[0][1].status == "DISABLED"
    db.clock.advance(streams.RETENTION_SECONDS + 1)  # type: ignore[attr-defined]
    db.streams.maintain(db.now())
    assert cat.streams("things") == []
    assert db.store.get(streams.meta_key(table.spec.table_id)) is None
    prefix = keyspace.stream_prefix(table.spec.table_id)
    assert list(db.store.iterate(prefix, keyspace.prefix_end(prefix))) == []


def test_labels_are_unique_on_a_still_clock() -> None:
    db = new_db()
    table = new_table(db)
    a = streams.enable(db.streams, table, "KEYS_ONLY", db.now())
    streams.disable(db.streams, table, db.now())
    b = streams.enable(db.streams, table, "KEYS_ONLY", db.now())
    assert a.arn != b.arn and a.label < b.label


def test_validate_spec_messages() -> None:
    from dynemu.errors import DynamoError

    assert streams.validate_spec({"StreamEnabled": True, "StreamViewType": "KEYS_ONLY"}, creating=True) == (
        True,
        "KEYS_ONLY",
    )
    assert streams.validate_spec({"StreamEnabled": False}, creating=False) == (False, None)
    with pytest.raises(DynamoError, match="If stream is being enabled then UpdateViewType is required"):
        streams.validate_spec({"StreamEnabled": True}, creating=False)
    with pytest.raises(DynamoError, match="Table is being created with a stream disabled"):
        streams.validate_spec({"StreamEnabled": False, "StreamViewType": "NEW_IMAGE"}, creating=True)


def test_describe_fields() -> None:
    db = new_db()
    table = new_table(db)
    assert stream_fields(table) == {}
    stream = streams.enable(db.streams, table, "OLD_IMAGE", db.now())
    assert stream_fields(table) == {
        "StreamSpecification": {"StreamEnabled": True, "StreamViewType": "OLD_IMAGE"},
        "LatestStreamArn": stream.arn,
        "LatestStreamLabel": stream.label,
    }
    assert stream.arn == f"{table.spec.arn}/stream/{stream.label}"
    streams.disable(db.streams, table, db.now())
    assert stream_fields(table) == {"LatestStreamArn": stream.arn, "LatestStreamLabel": stream.label}
