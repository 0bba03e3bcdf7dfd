"""``reads.read_page``, the one page of every Query and Scan, follows the page rules on every
store: the items in key order (decoded, or as their stored JSON when read ``as_stored``, the
same once written out), counts, bytes read and LastEvaluatedKey, at the Limit and at the 1 MB
page limit, with and without a filter."""

from __future__ import annotations

from typing import Any

import orjson

from dynemu.engine import reads
from dynemu.engine.table import decode_stored
from dynemu.storage import keyspace
from dynemu.storage.base import Store
from tests import test_storage
from tests.test_streams_engine import new_db, new_table, put

store = test_storage.store  # the fixture: every store kind


def _page(page: reads.Page) -> tuple[Any, ...]:
    return orjson.loads(orjson.dumps(page.items)), page.scanned, page.read_bytes, page.last_key


def _reference(table: Any, start: bytes, stop: bytes, *, reverse: bool, limit: int | None,
               after: bytes | None, keep: Any = None) -> tuple[Any, ...]:
    """The page rules on ``Store.iterate``: items in key order after ``after``, stopping at
    the first item that reaches Limit items or 1 MB read (LastEvaluatedKey: that item's key)."""
    items, scanned, read, last = [], 0, 0, None
    for key, raw in table.store.iterate(start, stop, reverse=reverse):
        if after is not None and (key >= after if reverse else key <= after):
            continue
        item, size = decode_stored(raw)
        scanned += 1
        if keep is None or keep(item):
            items.append(item)
        read += size
        if (limit is not None and scanned >= limit) or read >= reads.MAX_PAGE_BYTES:
            last = table.key_attributes(item)
            break
    return items, scanned, read, last


def _odd(item: dict[str, Any]) -> bool:
    return int(item["sk"]["N"]) % 2 == 1


def test_pages_follow_the_page_rules(store: Store) -> None:
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
    for i in range(300):  # past the 1 MB page limit in a later chunk of read_page's
        put(db, table, {"pk": {"S": "c"}, "sk": {"N": str(i)}, "pad": {"S": "y" * (4000 + i)}})
    for i in range(300):
        put(db, table, {"pk": {"S": "d"}, "sk": {"N": str(i)}})
    tid = table.spec.table_id
    for pk in ("a", "b", "c", "d"):
        start = keyspace.partition_prefix(tid, {"S": pk})
        stop = keyspace.prefix_end(start)
        after_key = keyspace.item_key(tid, {"S": pk}, {"N": "2"})
        for reverse in (False, True):
            for limit in (None, 0, 1, 3, 5, 12, 50, 128, 129, 250, 300, 400):
                for after in (None, after_key):
                    kwargs: dict[str, Any] = {"reverse": reverse, "limit": limit, "after": after}
                    expected = _reference(table, start, stop, **kwargs)
                    assert _page(reads.read_page(table, start, stop, **kwargs)) == expected, (pk, kwargs)
                    assert _page(reads.read_page(table, start, stop, as_stored=True, **kwargs)) == expected, (pk, kwargs)
                    expected = _reference(table, start, stop, keep=_odd, **kwargs)
                    for as_stored in (False, True):  # a filter needs the items decoded either way
                        page = reads.read_page(table, start, stop, keep=_odd, as_stored=as_stored, **kwargs)
                        assert _page(page) == expected, (pk, kwargs)
    whole = keyspace.items_prefix(tid)
    expected = _reference(table, whole, keyspace.prefix_end(whole), reverse=False, limit=None, after=None)
    assert _page(reads.read_page(table, whole, keyspace.prefix_end(whole), as_stored=True)) == expected
    assert _page(reads.read_page(table, whole, keyspace.prefix_end(whole))) == expected
    empty = keyspace.partition_prefix(tid, {"S": "none"})
    assert _page(reads.read_page(table, empty, keyspace.prefix_end(empty), limit=3, as_stored=True)) == ([], 0, 0, None)


def test_fetched_items_count_toward_the_page_limit(store: Store) -> None:
    """An LSI's fetched table items count toward the 1 MB, each rounded up to 4 KB; the
    page holds the fetched items, and LastEvaluatedKey is the last entry's key."""
    db = new_db(store)  # type: ignore[arg-type]
    table = new_table(db, range_key=True)
    for i in range(40):
        put(db, table, {"pk": {"S": "a"}, "sk": {"N": str(i)}})
    tid = table.spec.table_id
    start = keyspace.partition_prefix(tid, {"S": "a"})
    stop = keyspace.prefix_end(start)

    def fetch(entry: dict[str, Any]) -> tuple[dict[str, Any] | None, int]:
        if int(entry["sk"]["N"]) % 3 == 0:
            return None, 0  # not found: the entry stays, nothing is counted
        return {**entry, "full": {"BOOL": True}}, 100_000  # 100,000 B -> 102,400 B

    page = reads.read_page(table, start, stop, fetch=fetch)
    items, read, fetched, fetch_bytes = [], 0, 0, 0
    for _, raw in table.store.iterate(start, stop):
        entry, size = decode_stored(raw)
        full, _ = fetch(entry)
        read += size
        if full is not None:
            fetched += 1
            fetch_bytes += 102_400
        items.append(full or entry)
        if read + fetch_bytes >= reads.MAX_PAGE_BYTES:
            break
    assert (page.items, page.scanned, page.read_bytes, page.fetched, page.fetch_bytes) == (
        items, len(items), read, fetched, fetch_bytes)
    assert page.last_key == table.key_attributes(decode_stored(raw)[0])
    assert 0 < len(items) < 40
