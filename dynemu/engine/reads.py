"""Reading many items: the page loop shared by Query and Scan.

A page reads items in key order from one storage range and stops at ``Limit`` items
evaluated or once 1 MB has been read, measured before any filter is applied (developer
guide, "Paginating table query results": "a single Query only returns a result set that
fits within the 1 MB size limit"; "the Limit is the number of items evaluated").
When a page stops early its LastEvaluatedKey is the key of the last item evaluated, even
if no item follows it, as the service answers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from dynemu.engine.schema import Item
from dynemu.engine.table import Table, decode_stored
from dynemu.storage import keyspace

MAX_PAGE_BYTES = 1024 * 1024
_READ_BLOCK = 4096
_HASH_SPACE = 1 << 64


@dataclass(slots=True)
class Page:
    items: list[Item] = field(default_factory=list)  # evaluated items that passed the filter
    scanned: int = 0
    read_bytes: int = 0
    last_key: Item | None = None  # set when the page stopped before the end of its range
    fetched: int = 0  # index reads: table items fetched for non-projected attributes (LSIs)
    fetch_bytes: int = 0  # their sizes, each rounded up to 4 KB (LSI.md)


def read_page(
    table: Table,
    start: bytes,
    stop: bytes,
    *,
    reverse: bool = False,
    limit: int | None = None,
    after: bytes | None = None,
    keep: Callable[[Item], bool] | None = None,
    key_of: Callable[[Item], Item] | None = None,
    fetch: Callable[[Item], tuple[Item | None, int]] | None = None,
) -> Page:
    """Read ``[start, stop)`` (backwards when ``reverse``), strictly after the storage key
    ``after`` in the direction of reading; ``keep`` is the filter.

    Index reads pass ``key_of`` (the LastEvaluatedKey of an entry: index and table key)
    and, on an LSI asked for attributes it does not project, ``fetch`` (the table item of
    an entry and its size); the 1 MB then counts the entries plus every fetched item
    rounded up to 4 KB (LSI.md, "Read capacity units")."""
    if after is not None:
        if reverse:
            stop = min(stop, after)
        else:
            start = max(start, after + b"\x00")
    page = Page()
    items = page.items
    for _key, raw in table.store.iterate(start, stop, reverse=reverse):
        item, size = decode_stored(raw)
        page.scanned += 1
        page.read_bytes += size
        last = item
        if fetch is not None:
            full, full_size = fetch(item)
            if full is not None:
                item = full
                page.fetched += 1
                page.fetch_bytes += -(-full_size // _READ_BLOCK) * _READ_BLOCK
        if keep is None or keep(item):
            items.append(item)
        if (limit is not None and page.scanned >= limit) or page.read_bytes + page.fetch_bytes >= MAX_PAGE_BYTES:
            page.last_key = table.key_attributes(last) if key_of is None else key_of(last)
            break
    return page


def segment_bounds(table_id: int, segment: int, total: int, prefix: bytes | None = None) -> tuple[bytes, bytes]:
    """The storage range of one parallel-scan segment: an equal share of the hash space, so
    that the segments together cover every item exactly once (``prefix``: an index's)."""
    if prefix is None:
        prefix = keyspace.items_prefix(table_id)
    lo = segment * _HASH_SPACE // total
    start = prefix + lo.to_bytes(8, "big")
    if segment == total - 1:
        return start, keyspace.prefix_end(prefix)
    hi = (segment + 1) * _HASH_SPACE // total
    return start, prefix + hi.to_bytes(8, "big")
