"""The one read executor: GetItem, BatchGetItem, TransactGetItems, Query and Scan.

It owns what a read means once the request is parsed. Every read goes admit -> read ->
stale model -> charge: admission by the partition of the item or where the range starts
(``TableCapacity.admit``), the stale-read model of eventually consistent reads
(``dynemu.engine.consistency``; a GSI's lag), and the one debit of what it consumed
(``TableCapacity.charge``; ``dynemu.engine.capacity.units`` for the rules).

Keyed reads (GetItem, BatchGetItem, TransactGetItems, PartiQL's) go through one loop,
``read_keys``, with what to do on a throttle (``on_throttle``), as writes do
(``engine.writes``). A Query or Scan page (``read_range``) also owns its source (the table
or one of its indexes, ``find_index``), the storage range (key condition, segment),
ExclusiveStartKey, an LSI's fetch of attributes it does not project, and the page limits
below. It returns items and the ConsumedCapacity; projection of the returned items and
their wire shape are the API layer's.

The page loop shared by Query and Scan:

A page reads items in key order from one storage range and stops at ``Limit`` items
evaluated or once 1 MB has been read, measured before any filter is applied (developer
guide, "Paginating table query results": "a single Query only returns a result set that
fits within the 1 MB size limit"; "the Limit is the number of items evaluated").
When a page stops early its LastEvaluatedKey is the key of the last item evaluated, even
if no item follows it, as the service answers.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import accumulate, islice
from math import inf
from typing import TYPE_CHECKING, Any, Literal

from orjson import Fragment, loads

from dynemu import errors
from dynemu.engine import capacity, consistency, indexes, values
from dynemu.engine.capacity import CapacityLedger, ConsumedCapacity
from dynemu.engine.capacity.admission import throttled_requests
from dynemu.engine.capacity.units import read_block_bytes
from dynemu.engine.expressions.keycondition import KeyCondition
from dynemu.engine.indexes import Index
from dynemu.engine.schema import Item
from dynemu.engine.table import Table, decode_stored, stored_size
from dynemu.engine.vectors import search as vector_search
from dynemu.engine.writes import admit_or_cancel
from dynemu.errors import MSG_MULTIPLE_OPERATIONS
from dynemu.storage import keyspace

if TYPE_CHECKING:
    from dynemu.engine.namespace import Namespace

_CHUNK = 128  # values read at a time (a larger Limit, or none, is read in chunks of this)
MAX_PAGE_BYTES = 1024 * 1024  # "a single Query only returns a result set that fits within the 1 MB size limit"
Fetch = Callable[[Item], tuple[Item | None, int]]


@dataclass(slots=True)
class Page:
    # evaluated items that passed the filter (``orjson.Fragment``s when read ``as_stored``)
    items: list[Any] = field(default_factory=list)
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
    fetch: Fetch | None = None,
    as_stored: bool = False,
) -> Page:
    """Read ``[start, stop)`` (backwards when ``reverse``), strictly after the storage key
    ``after`` in the direction of reading; ``keep`` is the filter.

    Index reads pass ``key_of`` (the LastEvaluatedKey of an entry: index and table key)
    and, on an LSI asked for attributes it does not project, ``fetch`` (the table item of
    an entry and its size); the 1 MB then counts the entries plus every fetched item
    rounded up to 4 KB (LSI.md, "Read capacity units").

    Values are read in chunks (of ``_CHUNK``, or the Limit); where a chunk's page ends is
    found from the stored sizes alone, and only then are its items decoded (an LSI fetch
    needs the entries first, so a chunk's fetches are made before its end is known). With
    ``as_stored`` (the caller writes the items out as they are) and neither filter nor
    fetch, they are not decoded at all: each is its stored JSON as an ``orjson.Fragment``
    and only the last one evaluated is decoded, for LastEvaluatedKey."""
    if after is not None:
        if reverse:
            stop = min(stop, after)
        else:
            start = max(start, after + b"\x00")
    if limit is not None:
        limit = max(limit, 1)  # any Limit below 1 stops the page after its first item
    small = limit is not None and limit <= _CHUNK
    # nothing writes to the store while the page is read (one synchronous engine call)
    raws = table.store.read_values(start, stop, reverse=reverse, limit=limit if small else None)
    small = small or (type(raws) is list and len(raws) <= _CHUNK)  # a short range, read at once
    decode = not as_stored or keep is not None or fetch is not None
    page = Page()
    for chunk in ((raws,) if small else _chunks(raws, _CHUNK, limit)):
        if not chunk:
            break
        if _evaluate(table, page, chunk, limit, decode, keep, key_of, fetch):
            break
    return page


def _evaluate(
    table: Table,
    page: Page,
    chunk: list[bytes],
    limit: int | None,
    decode: bool,
    keep: Callable[[Item], bool] | None,
    key_of: Callable[[Item], Item] | None,
    fetch: Fetch | None,
) -> bool:
    """Evaluate ``chunk`` into ``page`` up to the item that reaches ``limit`` items or 1 MB
    read; True when the page stops there (its LastEvaluatedKey set)."""
    # a stored value is its size (4 bytes) then its JSON (``table.encode_stored``)
    entries: list[Item] | None = None
    fulls: list[tuple[Item | None, int]] | None = None
    base = page.read_bytes + page.fetch_bytes
    if fetch is None:
        totals = list(accumulate(map(stored_size, chunk), initial=base))
    else:  # an LSI's fetches count toward the 1 MB, each rounded to 4 KB
        entries = [loads(raw[4:]) for raw in chunk]
        fulls = [fetch(e) for e in entries]
        sizes = [stored_size(raw) for raw in chunk]
        totals = list(accumulate((s + (read_block_bytes(fs) if f is not None else 0)
                                  for s, (f, fs) in zip(sizes, fulls, strict=True)), initial=base))
    n = len(chunk) if totals[-1] < MAX_PAGE_BYTES else bisect_left(totals, MAX_PAGE_BYTES, 1)
    whole = n == len(chunk)
    page.scanned += n
    page.read_bytes += totals[n] - base if fulls is None else sum(sizes[:n])
    if decode:
        if entries is None:
            entries = [loads(raw[4:]) for raw in (chunk if whole else chunk[:n])]
        evaluated = entries[:n] if fulls is None else _fetched(page, entries[:n], fulls[:n])
        page.items.extend(evaluated if keep is None else filter(keep, evaluated))
    else:
        page.items.extend([Fragment(raw[4:]) for raw in (chunk if whole else chunk[:n])])
    if totals[n] < MAX_PAGE_BYTES and page.scanned != limit:
        return False
    last = entries[n - 1] if entries is not None else decode_stored(chunk[n - 1])[0]
    page.last_key = table.key_attributes(last) if key_of is None else key_of(last)
    return True


def _fetched(page: Page, entries: list[Item], fulls: list[tuple[Item | None, int]]) -> list[Item]:
    """The entries with each fetched table item in place of its entry, counted in ``page``."""
    out = []
    for entry, (full, size) in zip(entries, fulls, strict=True):
        if full is None:
            out.append(entry)
            continue
        out.append(full)
        page.fetched += 1
        page.fetch_bytes += read_block_bytes(size)
    return out


def _chunks(values: Iterable[bytes], size: int, limit: int | None) -> Iterator[list[bytes]]:
    """Lists of at most ``size`` values, ``limit`` values in all."""
    it = iter(values)
    left = limit
    while chunk := list(islice(it, size if left is None else min(size, left))):
        yield chunk
        if left is not None:
            left -= len(chunk)


# --- sources: the table or one of its indexes ---------------------------------------------------


def find_index(table: Table, name: str, *, consistent: bool) -> Index:
    """The index a Query or Scan names, with the checks DynamoDB makes first (dynalite's
    actions/query.js and scan.js; the backfill message: aws-cloudformation/cloudformation-
    coverage-roadmap#1075, quoting the service)."""
    ix = indexes.find(table, name)
    if ix is None:
        raise errors.validation(errors.msg_no_such_index(name))
    if ix.spec.status == "CREATING":
        raise errors.validation(errors.MSG_BACKFILLING_INDEX)
    if ix.is_global and consistent:
        raise errors.validation(errors.MSG_CONSISTENT_GSI)
    return ix


@dataclass(slots=True)
class RangeRead:
    """One Query (``key_condition`` set, bound to the source's key schema) or Scan page."""

    table: Table
    table_name: str  # as the request named it: ConsumedCapacity's TableName
    index: Index | None = None
    key_condition: KeyCondition | None = None
    start_key: Item | None = None  # ExclusiveStartKey, as sent
    segment: int | None = None
    total_segments: int | None = None
    limit: int | None = None
    reverse: bool = False  # read backwards (Query's ScanIndexForward false)
    consistent: bool = False
    filter: Any = None  # a compiled condition: ``evaluate(item)``, ``names``
    projection: Any = None  # a compiled projection: ``top_names``
    select: str | None = None  # Select as sent
    consumed: bool = False  # build the ConsumedCapacity
    # the caller writes the items out as they are (no projection): a table page without a
    # filter or a pending stale image returns them undecoded (``read_page``'s ``as_stored``)
    as_stored: bool = False


@dataclass(slots=True)
class RangeResult:
    page: Page
    consumed: ConsumedCapacity | None


def read_range(db: Namespace, r: RangeRead) -> RangeResult:
    """One page of a Query or Scan on the table or an index."""
    table, ix = r.table, r.index
    query = r.key_condition is not None
    if query:
        start, stop, partition = _query_range(table, ix, r.key_condition)  # type: ignore[arg-type]
    else:
        start, stop = _scan_range(table, ix, r.segment, r.total_segments)
    after = _start_key(table, ix, r.start_key, errors.MSG_INVALID_START if query else errors.MSG_INVALID_START_SCHEMA)
    if after is not None and query and not after.startswith(partition):
        raise errors.validation(errors.MSG_OUTSIDE)
    if after is not None and r.total_segments is not None and not (start <= after < stop):
        raise errors.validation(errors.msg_start_key_wrong_segment(r.total_segments, r.segment))
    fetch, trim = _index_fetch(r, table, ix) if ix is not None else (None, None)
    keep = r.filter.evaluate if r.filter is not None else None
    reverse = r.reverse
    now = db.now()
    cap = table.capacity
    # Admission on the partition where the read starts: the table's capacity for the table
    # and its LSIs (LSI.md), a GSI's own for the GSI.
    state = cap.index_state(ix, now) if ix is not None and ix.is_global else cap.state
    suffix = keyspace.hashed_part(start) if ix is None else keyspace.index_hashed_part(start)
    p = cap.admit(suffix, now, state=state, whole=True)  # a refusal: a ThrottledRequests of the table
    stale = not r.consistent and table.recent is not None and bool(table.recent.recent)
    page = read_page(
        table, start, stop, reverse=reverse, limit=r.limit, after=after, keep=keep,
        key_of=ix.key_of if ix is not None else None, fetch=fetch, as_stored=r.as_stored and ix is None and not stale,
    )  # fmt: skip
    if trim is not None:  # an LSI Query filtered on fetched attributes returns what the index projects
        page.items = [{k: v for k, v in item.items() if k in trim} for item in page.items]
    if stale and ix is None:  # the replication-lag model, when --eventual-lag-ms is set
        page.items = consistency.stale_items(table, page.items, now)
    elif ix is not None and ix.is_global:  # a GSI shows a write only once the lag has passed
        page.items = consistency.lagging_index_page(
            table, ix, page.items, start, stop, reverse=reverse, keep=keep, now=now
        )
    # Query and Scan: the sizes of the items read, summed and rounded up to 4 KB once; an
    # LSI's fetches are the table's, each item rounded to 4 KB (LSI.md).
    units_h = capacity.query_read_units_h(page.read_bytes, r.consistent)
    fetch_h = capacity.query_read_units_h(page.fetch_bytes, r.consistent) if page.fetched else 0
    cap.charge(p, suffix, now, read=(units_h + fetch_h) / 2, state=state)
    cc = None
    if r.consumed:
        cc = ConsumedCapacity(r.table_name)
        if ix is None:
            cc.add_read(units_h)
        else:
            cc.add_index(ix.name, is_global=ix.is_global, read_h=units_h)
            if fetch_h:
                cc.add_read(fetch_h)
    return RangeResult(page, cc)


def _query_range(table: Table, ix: Index | None, kc: KeyCondition) -> tuple[bytes, bytes, bytes]:
    """``(start, stop, partition prefix)`` of a key condition: one partition, narrowed by
    the sort key condition (and a multi-attribute sort key's leading ``=`` values)."""
    if ix is None:
        partition = keyspace.partition_prefix(table.spec.table_id, kc.partition_value)  # type: ignore[arg-type]
    else:
        partition = ix.partition_prefix(kc.partition_values)
    prefix = partition + keyspace.encode_values(kc.sort_prefix) if kc.sort_prefix else partition
    if kc.sort is None:
        return prefix, keyspace.prefix_end(prefix), partition
    start, stop = keyspace.condition_range(prefix, kc.sort.op, kc.sort.values)
    return start, stop, partition


def _scan_range(table: Table, ix: Index | None, segment: int | None, total: int | None) -> tuple[bytes, bytes]:
    prefix = keyspace.items_prefix(table.spec.table_id) if ix is None else ix.prefix
    if total is None:
        return prefix, keyspace.prefix_end(prefix)
    return keyspace.segment_range(prefix, segment or 0, total)


def _start_key(table: Table, ix: Index | None, esk: Item | None, invalid: str) -> bytes | None:
    """ExclusiveStartKey as a storage key: the table key, or for an index exactly the index
    and table key attributes (the LastEvaluatedKey an index page returns). Key attributes
    of the wrong type answer the schema message in Query as in Scan (issue 24, observed
    against the service), a broken value rule its own message; other malformed keys
    ``invalid``, the operation's own."""
    if esk is None:
        return None
    spec = table.spec
    names = ix.lek_names if ix is not None else spec.key_names
    try:
        esk = values.validate_item(esk)
    except errors.DynamoError as err:
        if err.type_name != "ValidationException" or err.envelope:
            raise  # a value rule (a number, a set) is said as in a key (issue 36)
        raise errors.validation(invalid) from None
    if len(esk) != len(names) or any(n not in esk for n in names):
        raise errors.validation(invalid)
    types = {a.name: a.type for a in spec.attribute_definitions}
    if any(types.get(n) not in esk[n] for n in names):
        raise errors.validation(errors.MSG_INVALID_START_SCHEMA)
    if ix is None:
        try:
            return table.key_for_request(esk)
        except errors.DynamoError as err:  # an empty or oversized key value
            if err.type_name != "ValidationException":
                raise
            raise errors.validation(invalid) from None
    sk = esk[spec.range_key.name] if spec.range_key is not None else None
    key = ix.entry_key(esk, keyspace.encode_table_key(esk[spec.hash_key.name], sk))
    if key is None:
        raise errors.validation(invalid)
    return key


def _index_fetch(r: RangeRead, table: Table, ix: Index) -> tuple[Fetch | None, frozenset[str] | None]:
    """How an index read gets attributes its projection lacks, and the attributes to trim
    its items to (an LSI Query fetched only for its filter). An LSI fetches the table item
    (LSI.md, "Read capacity units"); a GSI refuses them with the service's messages
    (dynalite's probes; localstack/localstack#478 and sensedeep/dynamodb-onetable#377 quote
    the two "does not project" texts). A filter on attributes the index lacks: a GSI Query
    is refused, an LSI Query fetches them at the fetch's cost, and a Scan evaluates the
    filter on what the index holds, where they are absent (issue 45)."""
    projected = ix.projected
    if projected is None:
        return None, None
    projection = r.projection
    needs = r.select == "ALL_ATTRIBUTES" or (projection is not None and not projection.top_names <= projected)
    if ix.is_global and needs:
        if r.select == "ALL_ATTRIBUTES":
            raise errors.invalid_parameter(errors.msg_gsi_select_all(ix.name))
        missing = sorted(projection.top_names - projected)
        raise errors.invalid_parameter(errors.msg_gsi_not_projected(ix.name, missing))
    trim = None
    if not needs:
        if r.key_condition is None or r.filter is None or r.filter.names <= projected:
            return None, None
        if ix.is_global:
            missing = sorted(r.filter.names - projected)
            raise errors.invalid_parameter(errors.msg_filter_not_projected(ix.name, missing))
        trim = projected
    tid = table.spec.table_id
    hk = table.spec.hash_key.name
    rk = table.spec.range_key.name if table.spec.range_key is not None else None

    def fetch(entry: Item) -> tuple[Item | None, int]:
        return table.read(keyspace.item_key(tid, entry[hk], entry[rk] if rk else None))

    return fetch, trim


# --- single items: GetItem, BatchGetItem, TransactGetItems -------------------------------------------

# "BatchGetItem returns a partial result if the response size limit is exceeded ... if you
# ask to retrieve 100 items, but each individual item is 300 KB in size, the system
# returns 52 items (so as not to exceed the 16 MB limit)": 52 x 300 KiB fits and 53 does
# not only if the limit is 16,000,000 bytes, so that is the limit used.
MAX_BATCH_GET_BYTES = 16_000_000

# What happens to a refused key read (API reference of each operation): ``raise`` the error
# (GetItem); ``unprocess`` it (BatchGetItem); ``cancel`` the transaction (TransactGetItems).
OnThrottle = Literal["raise", "unprocess", "cancel"]


@dataclass(slots=True)
class KeyRead:
    """One item to read, keyed (``Table.key_for_request``)."""

    table: Table
    key: bytes
    attrs: Item  # the Key as sent
    table_name: str = ""  # as the request named it: ConsumedCapacity's TableName; "": the table's name
    consistent: bool = False


class KeyReadResult:
    """What ``read_keys`` did: the keys read (``done``) and their items (``items``, None
    where no item has the key), in request order; ``unprocessed`` (policy ``unprocess``);
    the ConsumedCapacity ``ledger`` when asked (``consumed=True``)."""

    __slots__ = ("done", "items", "unprocessed", "ledger")

    def __init__(self, ledger: CapacityLedger | None) -> None:
        self.done: list[KeyRead] = []
        self.items: list[Item | Fragment | None] = []  # Fragments: read ``as_stored``
        self.unprocessed: list[KeyRead] = []
        self.ledger = ledger


def read_keys(
    db: Namespace, reads: list[KeyRead], *, on_throttle: OnThrottle = "raise", consumed: bool = False,
    as_stored: bool = False,
) -> KeyReadResult:
    """Run ``reads`` through admit -> read -> stale model -> charge, in request order.

    Each key is admitted by its item's partition, read (an eventually consistent read
    through the replication-lag model, ``engine.consistency``) and charged per 4 KB, a
    missing item the minimum (``engine.capacity.units``). ``on_throttle`` is the policy:
    ``raise`` (GetItem): a refusal is the request's error, one ThrottledRequests;
    ``unprocess`` (BatchGetItem): a throttled key is left unprocessed, and so is every key
    from the first whose item would take the response past 16 MB; the request is throttled
    only when no key at all could be read (API reference); ``cancel`` (TransactGetItems):
    at most one read per item, every key admitted before any is read (a throttle cancels
    the whole request), then all read in this one synchronous call, a consistent snapshot
    at 2 units per 4 KB (transaction-apis.md). ``as_stored``: items the caller returns whole
    come as their stored JSON (``Table.read_stored``), unless the lag model may replace them."""
    now = db.now()
    cancel = on_throttle == "cancel"
    whole = on_throttle == "raise"
    result = KeyReadResult(CapacityLedger(split=cancel) if consumed else None)
    parts = _admit_transaction(db, reads, now) if cancel else None
    budget = MAX_BATCH_GET_BYTES if on_throttle == "unprocess" else inf
    throttle: errors.DynamoError | None = None
    ledger = result.ledger
    for i, r in enumerate(reads):
        table, key = r.table, r.key
        cap = table.capacity
        suffix = keyspace.hashed_part(key)
        if parts is not None:
            p = parts[i]
        else:
            try:
                p = cap.admit(suffix, now, whole=whole)
            except errors.DynamoError as e:
                if whole or e.type_name not in errors.THROTTLE_ERRORS:
                    raise
                throttle = e
                result.unprocessed.append(r)
                continue
        consistent = r.consistent or cancel
        if consistent or table.recent is None:
            item, size = table.read_stored(key) if as_stored else table.read(key)
        else:  # the replication-lag model (--eventual-lag-ms)
            item, size = table.read(key)
            item = consistency.stale_item(table, key, item, now)
        if item is not None:
            if size > budget:
                result.unprocessed.extend(reads[i:])
                break
            budget -= size
        result.done.append(r)
        result.items.append(item)
        read_h = capacity.read_units_h(size, consistent, cancel)  # each item rounded to 4 KB
        cap.charge(p, suffix, now, read=read_h / 2)
        if ledger is not None:
            ledger.for_table(r.table_name or table.name).add_read(read_h)
    if throttle is not None and not result.done:  # every key refused: one ThrottledRequests
        throttled_requests(r.table.capacity for r in reads)  # of each table (metrics-dimensions.html)
        raise throttle
    return result


def _admit_transaction(db: Namespace, reads: list[KeyRead], now: float) -> list[int]:
    """TransactGetItems' checks before any read: at most one read per item, MRSC's refusal
    of transactions (``engine.global_tables``), then every key admitted (``admit_or_cancel``)."""
    seen: set[bytes] = set()
    for r in reads:
        if r.key in seen:
            raise errors.validation(MSG_MULTIPLE_OPERATIONS)
        seen.add(r.key)
    if db.replicated is not None:
        db.replicated.refuse_transaction(r.table for r in reads)
    return admit_or_cancel(reads, now, write=False)


# --- SearchVectors ---------------------------------------------------------------------------------


def search_vectors(db: Namespace, r: vector_search.VectorSearch) -> vector_search.SearchResult:
    """SearchVectors: admitted on the table's capacity where a Scan starts, the search
    (``engine/vectors/search.py``), then VectorSearchRequestBytes debited as read units of
    4 KB (eventually consistent: vector indexes are updated asynchronously)."""
    table = r.table
    now = db.now()
    cap = table.capacity
    suffix = keyspace.hashed_part(keyspace.items_prefix(table.spec.table_id))
    p = cap.admit(suffix, now, whole=True)
    result = vector_search.run(r, now)
    cap.charge(p, suffix, now, read=capacity.query_read_units_h(result.request_bytes, False) / 2)
    return result
