"""``reads.read_page_raw`` (Query and Scan pages written out from the stored JSON) gives the
page ``reads.read_page`` gives: the same items once written out, counts, bytes read and
LastEvaluatedKey, at the Limit and at the 1 MB page limit, on every store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest

from dynemu.engine import reads
from dynemu.storage import keyspace
from dynemu.storage.base import Store
from dynemu.storage.memory import MemoryStore
from dynemu.storage.sqlite import SQLiteStore
from tests.test_streams_engine import new_db, new_table, put


@pytest.fixture(params=["memory", "leveldb", "sqlite"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Store]:
    s: Store
    if request.param == "memory":
        s = MemoryStore()
    elif request.param == "sqlite":
        s = SQLiteStore(tmp_path / "db")
    else:
        plyvel = pytest.importorskip("plyvel")
        assert plyvel
        from dynemu.storage.leveldb import LevelDBStore

        s = LevelDBStore(tmp_path / "db")
    yield s
    s.close()


def _page(page: reads.Page) -> tuple[Any, ...]:
    return orjson.loads(orjson.dumps(page.items)), page.scanned, page.read_bytes, page.last_key


def test_raw_pages_match_decoded_pages(store: Store) -> None:
    db = new_db(store)  # type: ignore[arg-type]
    table = new_table(db, range_key=True)
    big = "x" * 300_000  # four of these pass the 1 MB page limit
    for pk in ("a", "b"):
        for i in range(12):
            item: dict[str, Any] = {"pk": {"S": pk}, "sk": {"N": str(i - 3)}, "n": {"N": "1.5"},
                                    "m": {"M": {"l": {"L": [{"BOOL": True}, {"NULL": True}]}}}}
            if pk == "b" and i % 2 == 0:
                item["big"] = {"S": big}
            put(db, table, item)
    tid = table.spec.table_id
    for pk in ("a", "b"):
        start = keyspace.partition_prefix(tid, {"S": pk})
        stop = keyspace.prefix_end(start)
        after_key = keyspace.item_key(tid, {"S": pk}, {"N": "2"})
        for reverse in (False, True):
            for limit in (None, 1, 3, 5, 12, 50):
                for after in (None, after_key):
                    kwargs = {"reverse": reverse, "limit": limit, "after": after}
                    assert _page(reads.read_page_raw(table, start, stop, **kwargs)) == _page(
                        reads.read_page(table, start, stop, **kwargs)), (pk, kwargs)
    whole = keyspace.items_prefix(tid)
    assert _page(reads.read_page_raw(table, whole, keyspace.prefix_end(whole))) == _page(
        reads.read_page(table, whole, keyspace.prefix_end(whole)))
    empty = keyspace.partition_prefix(tid, {"S": "none"})
    assert _page(reads.read_page_raw(table, empty, keyspace.prefix_end(empty), limit=3)) == ([], 0, 0, None)
