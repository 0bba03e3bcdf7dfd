"""BatchGetItem and BatchWriteItem.

Both run in three passes, so that a request is refused whole, before anything is read or
written, when any part of it is invalid (API reference, BatchWriteItem: "DynamoDB
rejects the entire batch write operation" for a missing table, a key that does not match
the schema, two operations on one item, more than 25 requests, an item over 400 KB):

1. checks that need no table, in request order (attribute values, expressions, sizes,
   counts; dynalite's validations/batch*.js, which were probed against the service);
2. table look-ups and key checks, table by table (ResourceNotFoundException, schema);
3. the reads, or the writes: every write goes through ``Table.plan`` and all of them are
   committed by one ``Database.commit``.

Each key or write request is admitted by its table's capacity model on its own (as the
service processes a batch item by item): a throttled one goes to UnprocessedKeys /
UnprocessedItems, and the request fails with the throttling error only when nothing at
all could be read or written (API reference, BatchGetItem and BatchWriteItem). Keys past
BatchGetItem's 16 MB response limit are left unprocessed too.
"""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.operations.exprs import bind_to, compile_expressions
from dynemu.api.protocol import Context, Handler
from dynemu.engine import capacity, consistency, values
from dynemu.engine.capacity import CapacityLedger
from dynemu.engine.table import MAX_ITEM_BYTES, Table
from dynemu.engine.transactions import THROTTLE_ERRORS
from dynemu.engine.writes import Write

Item = dict[str, Any]

MAX_BATCH_GET_KEYS = 100  # "A single operation can retrieve up to 16 MB of data, ... up to 100 items"
MAX_BATCH_WRITE_REQUESTS = 25  # "as many as 25 put or delete requests"
# "BatchGetItem returns a partial result if the response size limit is exceeded ... if you
# ask to retrieve 100 items, but each individual item is 300 KB in size, the system
# returns 52 items (so as not to exceed the 16 MB limit)": 52 x 300 KiB fits and 53 does
# not only if the limit is 16,000,000 bytes, so that is the limit used.
MAX_BATCH_GET_BYTES = 16_000_000

MSG_DUPLICATES = "Provided list of item keys contains duplicates"
MSG_TOO_MANY_GET = "Too many items requested for the BatchGetItem call"
MSG_TOO_MANY_WRITE = "Too many items requested for the BatchWriteItem call"
MSG_SCHEMA = "The provided key element does not match the schema"
MSG_ITEM_SIZE = "Item size has exceeded the maximum allowed size"
# A WriteRequest with neither or both of PutRequest / DeleteRequest: the service answers
# with its AttributeValue union message (dynalite validations/batchWriteItem.js; the same
# text from DynamoDB Local for both cases).
MSG_ONE_REQUEST = (
    "Supplied AttributeValue has more than one datatypes set, must contain exactly one of the supported datatypes"
)


# --- keys ----------------------------------------------------------------------------------


def _schema_mismatch(table: Table, attrs: Item, *, exact: bool) -> bool:
    """True when a key attribute is missing or of the wrong type (or, for a ``Key``,
    when attributes other than the key are present)."""
    spec = table.spec
    if exact and len(attrs) != len(spec.key_names):
        return True
    for attr in (spec.hash_key, spec.range_key):
        if attr is None:
            continue
        v = attrs.get(attr.name)
        if type(v) is not dict or len(v) != 1 or attr.type not in v:
            return True
    return False


def resolve_key(table: Table, attrs: Item, *, whole_item: bool) -> tuple[bytes | None, str | None]:
    """``(storage key, None)``, or ``(None, message)`` when the attributes do not match the
    table's key schema. Other key errors (an empty or oversized key value) raise: they are
    input validation wherever the key appears. ``whole_item`` means ``attrs`` is an item to
    put (extra attributes allowed; the message is PutItem's), else a ``Key``."""
    if _schema_mismatch(table, attrs, exact=not whole_item):
        if whole_item:
            try:
                table.key_for_item(attrs)
            except errors.DynamoError as e:
                return None, e.message
        return None, MSG_SCHEMA
    return (table.key_for_item(attrs) if whole_item else table.key_for_request(attrs)), None


def _key_identity(key: Item) -> tuple[Any, ...]:
    """A table-independent identity of a requested key, numbers compared by value."""
    parts = []
    for name in sorted(key):
        ((t, v),) = key[name].items()
        parts.append((name, t, values.normalize_number(v) if t == "N" else v if isinstance(v, str) else repr(v)))
    return tuple(parts)


def _throttle(e: errors.DynamoError) -> errors.DynamoError:
    """``e`` if it is a throttling refusal, else re-raise it."""
    if e.type_name not in THROTTLE_ERRORS:
        raise e
    return e


def _ledger(body: dict[str, Any]) -> tuple[str | None, CapacityLedger | None]:
    mode = body.get("ReturnConsumedCapacity")
    if mode == "TOTAL" or mode == "INDEXES":
        return mode, CapacityLedger()
    return None, None


# --- BatchGetItem --------------------------------------------------------------------------


def batch_get_item(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    request_items: dict[str, Any] = body["RequestItems"]
    # 1. no table needed: expressions, attribute values, duplicates, the 100-key limit
    staged = []
    count = 0
    for name, spec in request_items.items():
        compiled = compile_expressions("BatchGetItem", spec)
        seen: set[tuple[Any, ...]] = set()
        keys: list[Item] = []
        for raw in spec["Keys"]:
            key = values.validate_item(raw)
            identity = _key_identity(key)
            if identity in seen:
                raise errors.validation(MSG_DUPLICATES)
            seen.add(identity)
            count += 1
            if count > MAX_BATCH_GET_KEYS:
                raise errors.validation(MSG_TOO_MANY_GET)
            keys.append(key)
        staged.append((name, spec, compiled, keys))
    # 2. tables and keys
    resolved = []
    for name, spec, compiled, keys in staged:
        table = ctx.db.get(name)
        compiled = bind_to(compiled, table)
        resolved.append((name, spec, compiled, table, [(k, table.key_for_request(k)) for k in keys]))
    # 3. reads, in request order: each key admitted by its partition (a throttled key is
    # left unprocessed), until the response would pass 16 MB (the rest left unprocessed)
    mode, ledger = _ledger(body)
    responses: dict[str, list[Item]] = {}
    unprocessed: dict[str, Any] = {}
    budget = MAX_BATCH_GET_BYTES
    full = False
    throttle: errors.DynamoError | None = None
    now = ctx.db.now()
    for name, spec, compiled, table, keys in resolved:
        consistent = bool(spec.get("ConsistentRead"))
        projection = compiled.projection
        left: list[Item] = []
        for i, (attrs, key) in enumerate(keys):
            if full:
                left.extend(k for k, _ in keys[i:])
                break
            try:
                p = table.capacity.check(key, now)
            except errors.DynamoError as e:
                throttle = _throttle(e)
                left.append(attrs)
                continue
            item, size = table.read(key)
            if not consistent:  # the replication-lag model, when --eventual-lag-ms is set
                item = consistency.stale_item(table, key, item, now)
            if item is not None and size > budget:
                full = True
                left.extend(k for k, _ in keys[i:])
                break
            found = responses.setdefault(name, [])
            if item is not None:
                budget -= size
                found.append(projection.apply(item) if projection is not None else item)
            read_h = capacity.read_units_h(size, consistent)
            table.capacity.debit(p, key, now, read=read_h / 2)
            if ledger is not None:
                ledger.for_table(name).add_read(read_h)
        if left:  # in the request's per-table shape
            unprocessed[name] = {**{k: v for k, v in spec.items() if k != "Keys"}, "Keys": left}
    if throttle is not None and not responses:
        raise throttle  # throttled only when no key at all could be read
    out: dict[str, Any] = {"Responses": responses, "UnprocessedKeys": unprocessed}
    if ledger is not None:
        out["ConsumedCapacity"] = ledger.render(mode)  # type: ignore[arg-type]
    return out


# --- BatchWriteItem ------------------------------------------------------------------------


def _one_request(request: dict[str, Any]) -> bool:
    return (request.get("PutRequest") is not None) != (request.get("DeleteRequest") is not None)


def batch_write_item(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    request_items: dict[str, list[dict[str, Any]]] = body["RequestItems"]
    # 1. no table needed: the request kinds, attribute values, item sizes, the 25 limit
    staged = []
    count = 0
    for name, requests in request_items.items():
        if not all(_one_request(r) for r in requests):
            raise errors.validation(MSG_ONE_REQUEST)
        ops: list[tuple[Item, int | None]] = []  # (item, size) to put, (key, None) to delete
        for r in requests:
            put = r.get("PutRequest")
            if put is not None:
                item = values.validate_item(put["Item"])
                size = values.item_size(item)
                if size > MAX_ITEM_BYTES:
                    raise errors.validation(MSG_ITEM_SIZE)
                ops.append((item, size))
            else:
                ops.append((values.validate_item(r["DeleteRequest"]["Key"]), None))
            count += 1
            if count > MAX_BATCH_WRITE_REQUESTS:
                raise errors.validation(MSG_TOO_MANY_WRITE)
        staged.append((name, ops))
    # 2. tables, keys (every mismatch worded as the schema mismatch), duplicates
    seen: set[bytes] = set()
    writes: list[Write] = []
    for name, ops in staged:
        table = ctx.db.get(name)
        for attrs, size in ops:
            key, _ = resolve_key(table, attrs, whole_item=size is not None)
            if key is None:  # a missing or mistyped key attribute, in a Put too (dynalite)
                raise errors.validation(MSG_SCHEMA)
            if key in seen:
                raise errors.validation(MSG_DUPLICATES)
            seen.add(key)
            kind = "Delete" if size is None else "Put"
            writes.append(Write(kind, table, key, attrs, size=size, table_name=name))
    # 3. each write admitted by its partition (a throttled one is left unprocessed), planned
    # and charged; all of them committed together (dynemu.engine.writes)
    mode = body.get("ReturnConsumedCapacity")
    result = ctx.db.execute(writes, on_throttle="unprocess", consumed=mode == "TOTAL" or mode == "INDEXES")
    unprocessed: dict[str, list[dict[str, Any]]] = {}
    for w in result.unprocessed:
        request = {"PutRequest": {"Item": w.attrs}} if w.kind == "Put" else {"DeleteRequest": {"Key": w.attrs}}
        unprocessed.setdefault(w.table_name, []).append(request)
    out: dict[str, Any] = {"UnprocessedItems": unprocessed}
    if result.ledger is not None:
        out["ConsumedCapacity"] = result.ledger.render(mode)  # type: ignore[arg-type]
    return out


OPERATIONS: dict[str, Handler] = {
    "BatchGetItem": batch_get_item,
    "BatchWriteItem": batch_write_item,
}
