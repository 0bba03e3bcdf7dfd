"""ClientRequestToken records in the store (engine/tokens.py): written with the transaction's
own commit, expired after 10 minutes of the namespace's clock, pruned and bounded. The
restart cases with real server processes are in tests/test_crash_durability.py."""

from __future__ import annotations

from typing import Any

import pytest

from dynemu import errors
from dynemu.engine.clock import VirtualClock
from dynemu.engine.namespace import Namespace
from dynemu.engine.schema import KeyAttr, TableSpec
from dynemu.engine.tokens import TOKEN_TTL_SECONDS, Tokens, fingerprint
from dynemu.engine.writes import Write, execute, replay
from dynemu.storage import keyspace
from dynemu.storage.base import WriteBatch
from dynemu.storage.memory import MemoryStore

DIGEST = fingerprint({"TransactItems": []})
OTHER = fingerprint({"TransactItems": [1]})


def _records(store: MemoryStore) -> int:
    start = keyspace.TOKEN_RECORDS
    return sum(1 for _ in store.iterate(start, keyspace.prefix_end(start)))


def test_expired_records_are_pruned_by_later_ones() -> None:
    store = MemoryStore()
    tokens = Tokens(store)
    for i in range(40):
        store.write(tokens.record(f"t{i}", DIGEST, float(i), completed=True))
    assert len(tokens) == 40 == _records(store)
    now = 39 + TOKEN_TTL_SECONDS  # t0..t39 expired
    store.write(tokens.record("late", DIGEST, now, completed=True))
    assert _records(store) == len(tokens) == 41 - 16  # each new record deletes up to 16 expired ones
    for i in range(3):
        store.write(tokens.record(f"later{i}", DIGEST, now, completed=True))
    assert _records(store) == len(tokens) == 4  # and the rest go with the next ones
    assert Tokens(store).check("late", DIGEST, now) is not None


def test_records_are_bounded() -> None:
    store = MemoryStore()
    tokens = Tokens(store, limit=10)
    for i in range(25):
        store.write(tokens.record(f"t{i}", DIGEST, float(i), completed=True))
        assert _records(store) <= 10
    assert len(Tokens(store)) == _records(store)
    assert tokens.check("t24", DIGEST, 24.0) is not None  # the newest are kept
    assert tokens.check("t0", OTHER, 24.0) is None  # the oldest made room


def test_a_record_replaced_keeps_one_expiry_entry() -> None:
    store = MemoryStore()
    tokens = Tokens(store)
    store.write(tokens.record("tok", DIGEST, 0.0, completed=False))  # cancelled: reserved
    assert tokens.check("tok", DIGEST, 1.0) is None  # a retry runs again
    with pytest.raises(errors.DynamoError) as e:
        tokens.check("tok", OTHER, 1.0)
    assert e.value.type_name == "IdempotentParameterMismatchException"
    store.write(tokens.record("tok", DIGEST, 5.0, completed=True))  # the retry completed
    entry = tokens.check("tok", DIGEST, 5.0 + TOKEN_TTL_SECONDS - 1)
    assert entry is not None and entry.completed and entry.expires == 5.0 + TOKEN_TTL_SECONDS
    start = keyspace.TOKEN_EXPIRIES
    assert len(list(store.iterate(start, keyspace.prefix_end(start)))) == 1 == len(tokens)


# --- the record is written with the transaction's commit ---------------------------------------


def _namespace(store: Any) -> tuple[Namespace, Any]:
    db = Namespace(store, VirtualClock(1_700_000_000.0))
    tid, arn, uuid = db.new_spec_ids("t", "us-east-1")
    spec = TableSpec(name="t", table_id=tid, arn=arn, uuid=uuid, created=db.now(), hash_key=KeyAttr("pk", "S"),
                     range_key=None, attribute_definitions=[KeyAttr("pk", "S")], billing_mode="PAY_PER_REQUEST")
    return db, db.add_table(spec)


class _Refusing(MemoryStore):
    """A memory store whose writes can be refused as a full disk refuses them."""

    full = False

    def write(self, batch: WriteBatch) -> None:
        if self.full:
            raise errors.disk_full("/data/us-east-1")
        super().write(batch)


def test_token_and_items_are_one_write() -> None:
    store = _Refusing()
    db, table = _namespace(store)
    put = [Write.put(table, {"pk": {"S": "a"}}), Write.put(table, {"pk": {"S": "b"}})]
    store.full = True
    with pytest.raises(errors.DiskFull):
        execute(db, put, on_throttle="cancel", token=("tok", DIGEST))
    assert store.get(keyspace.token_key("tok")) is None  # neither the items nor the token
    assert table.store.get(put[0].key) is None
    store.full = False
    put = [Write.put(table, {"pk": {"S": "a"}}), Write.put(table, {"pk": {"S": "b"}})]
    execute(db, put, on_throttle="cancel", token=("tok", DIGEST))
    assert store.get(put[0].key) is not None and store.get(keyspace.token_key("tok")) is not None
    assert replay(Namespace(store, db.clock), "tok", DIGEST, False) is not None  # found by a new namespace


def test_a_transaction_that_changes_nothing_keeps_its_token() -> None:
    db, table = _namespace(MemoryStore())
    gone = [Write.delete(table, {"pk": {"S": "missing"}})]
    execute(db, gone, on_throttle="cancel", token=("tok", DIGEST))
    assert replay(db, "tok", DIGEST, False) is not None
