"""BatchGetItem and BatchWriteItem.

Both run in three passes, so that a request is refused whole, before anything is read or
written, when any part of it is invalid (API reference, BatchWriteItem: "DynamoDB
rejects the entire batch write operation" for a missing table, a key that does not match
the schema, two operations on one item, more than 25 requests, an item over 400 KB):

1. checks that need no table, in request order (attribute values, expressions, sizes,
   counts; dynalite's validations/batch*.js, which were probed against the service);
2. table look-ups and key checks, table by table (ResourceNotFoundException, schema);
3. the reads, or the writes: every write goes through ``Table.plan`` and all of them are
   committed by one ``Namespace.commit``.

Each key or write request is admitted by its table's capacity model on its own (as the
service processes a batch item by item): a throttled one goes to UnprocessedKeys /
UnprocessedItems, and the request fails with the throttling error only when nothing at
all could be read or written (API reference, BatchGetItem and BatchWriteItem). Keys past
BatchGetItem's 16 MB response limit are left unprocessed too.
"""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.operations.common import render_ledger
from dynemu.api.operations.exprs import bind_to, compile_expressions
from dynemu.api.protocol import Context, Handler
from dynemu.engine import reads, values
from dynemu.engine.expressions import Compiled
from dynemu.engine.reads import KeyRead
from dynemu.engine.table import Table
from dynemu.engine.writes import Write

Item = dict[str, Any]

MAX_BATCH_GET_KEYS = 100  # "A single operation can retrieve up to 16 MB of data, ... up to 100 items"
MAX_BATCH_WRITE_REQUESTS = 25  # "as many as 25 put or delete requests"


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
        return None, errors.MSG_SCHEMA
    return (table.key_for_item(attrs) if whole_item else table.key_for_request(attrs)), None


def _key_identity(key: Item) -> tuple[Any, ...]:
    """A table-independent identity of a requested key, numbers compared by value."""
    parts = []
    for name in sorted(key):
        ((t, v),) = key[name].items()
        parts.append((name, t, values.normalize_number(v) if t == "N" else v if isinstance(v, str) else repr(v)))
    return tuple(parts)


# --- BatchGetItem --------------------------------------------------------------------------


def batch_get_item(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    request_items: dict[str, Any] = body["RequestItems"]
    for name, spec in request_items.items():  # the model's limits on one table's Keys, checked first
        if len(spec["Keys"]) > MAX_BATCH_GET_KEYS:
            raise errors.validation(errors.MSG_BATCH_GET_KEYS_OVER_100.format(name))
        if not spec["Keys"]:
            raise errors.validation(errors.MSG_BATCH_GET_KEYS_EMPTY.format(name))
    _check_projection_kinds(request_items)
    staged = values.nesting_last(lambda: _stage_gets(request_items))
    # 2. tables and keys
    resolved: dict[str, tuple[dict[str, Any], Compiled]] = {}
    keyed: list[KeyRead] = []
    for name, spec, compiled, keys in staged:
        table = ctx.db.get(name)
        resolved[name] = (spec, bind_to(compiled, table))
        consistent = bool(spec.get("ConsistentRead"))
        keyed.extend(KeyRead(table, table.key_for_request(k), k, name, consistent) for k in keys)
    # 3. reads, in request order, a throttled key left unprocessed (dynemu.engine.reads.read_keys)
    mode = body.get("ReturnConsumedCapacity")
    result = reads.read_keys(ctx.db, keyed, on_throttle="unprocess", consumed=mode == "TOTAL" or mode == "INDEXES")
    responses: dict[str, list[Item]] = {}
    for r, item in zip(result.done, result.items, strict=True):
        found = responses.get(r.table_name)
        if found is None:  # a table with a key read answers, found or not
            found = responses[r.table_name] = []
        if item is not None:
            projection = resolved[r.table_name][1].projection
            found.append(projection.apply(item) if projection is not None else item)
    unprocessed: dict[str, Any] = {}
    for r in result.unprocessed:  # in the request's per-table shape
        left = unprocessed.get(r.table_name)
        if left is None:
            spec = resolved[r.table_name][0]
            left = unprocessed[r.table_name] = {**{k: v for k, v in spec.items() if k != "Keys"}, "Keys": []}
        left["Keys"].append(r.attrs)
    out: dict[str, Any] = {"Responses": responses, "UnprocessedKeys": unprocessed}
    if result.ledger is not None:
        out["ConsumedCapacity"] = render_ledger(result.ledger, mode)  # type: ignore[arg-type]
    return out


def _stage_gets(request_items: dict[str, Any]) -> list[tuple[str, dict[str, Any], Compiled, list[Item]]]:
    """1. no table needed: expressions, attribute values, duplicates, the 100-key limit (a
    value nested too deep last, ``values.nesting_last``)."""
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
                raise errors.validation(errors.MSG_DUPLICATES)
            seen.add(identity)
            count += 1
            if count > MAX_BATCH_GET_KEYS:
                raise errors.validation(errors.MSG_TOO_MANY_GET)
            keys.append(key)
        staged.append((name, spec, compiled, keys))
    return staged


def _check_projection_kinds(request_items: dict[str, Any]) -> None:
    """One request, one kind of projection: ProjectionExpression on one table and
    AttributesToGet on another is refused as within one table (issue 36, observed against
    the service; UNSURE: the service's text for the two-table case is not known, this is the
    one-table message)."""
    expression = any(spec.get("ProjectionExpression") is not None for spec in request_items.values())
    if expression and any(spec.get("AttributesToGet") is not None for spec in request_items.values()):
        raise errors.validation(errors.msg_mixed_parameters(["AttributesToGet"], ["ProjectionExpression"]))


# --- BatchWriteItem ------------------------------------------------------------------------


def _older_wording(check: Any, *args: Any) -> Any:
    """A value check of BatchWriteItem, which still answers an empty number in the older
    wording, without the colon (issue 36, observed against the service)."""
    try:
        return check(*args)
    except errors.DynamoError as e:
        if e.message == _EMPTY_NUMBER:
            raise errors.validation(errors.MSG_NOT_A_NUMBER) from None
        raise


_EMPTY_NUMBER = errors.msg_not_a_number("")


def _one_request(request: dict[str, Any]) -> bool:
    return (request.get("PutRequest") is not None) != (request.get("DeleteRequest") is not None)


def _stage_writes(request_items: dict[str, list[dict[str, Any]]]) -> list[tuple[str, list[tuple[Item, int | None]]]]:
    """1. no table needed: the request kinds, attribute values, item sizes, the 25 limit (a
    value nested too deep last, ``values.nesting_last``)."""
    staged = []
    count = 0
    for name, requests in request_items.items():
        if not all(_one_request(r) for r in requests):
            raise errors.validation(errors.MSG_MULTI_VALUE)
        ops: list[tuple[Item, int | None]] = []  # (item, size) to put, (key, None) to delete
        for r in requests:
            put = r.get("PutRequest")
            if put is not None:
                item, size = _older_wording(values.validate_item_sized, put["Item"])
                values.check_item_size(size)
                ops.append((item, size))
            else:
                ops.append((_older_wording(values.validate_item, r["DeleteRequest"]["Key"]), None))
            count += 1
            if count > MAX_BATCH_WRITE_REQUESTS:
                raise errors.validation(errors.MSG_TOO_MANY_WRITE)
        staged.append((name, ops))
    return staged


def batch_write_item(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    request_items: dict[str, list[dict[str, Any]]] = body["RequestItems"]
    staged = values.nesting_last(lambda: _stage_writes(request_items))
    # 2. tables, keys (every mismatch worded as the schema mismatch), duplicates
    seen: set[bytes] = set()
    writes: list[Write] = []
    for name, ops in staged:
        table = ctx.db.get(name)
        for attrs, size in ops:
            key, _ = resolve_key(table, attrs, whole_item=size is not None)
            if key is None:  # a missing or mistyped key attribute, in a Put too (dynalite)
                raise errors.validation(errors.MSG_SCHEMA)
            if key in seen:
                raise errors.validation(errors.MSG_DUPLICATES)
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
        out["ConsumedCapacity"] = render_ledger(result.ledger, mode)  # type: ignore[arg-type]
    return out


OPERATIONS: dict[str, Handler] = {
    "BatchGetItem": batch_get_item,
    "BatchWriteItem": batch_write_item,
}
