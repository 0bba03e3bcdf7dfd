"""PartiQL's one door into the engine's read and write paths.

Every PartiQL read and write reaches storage only through the functions here, and they only
call the paths the other operations use: every write goes to the engine's write executor
(``dynemu.engine.writes``: as PutItem, UpdateItem and DeleteItem one by one, as
TransactWriteItems in a transaction); reads use Query's page reader and GetItem's and
TransactGetItems' reads. When the engine's read executor lands (issue 11) the read half of
this file is the one part to switch.
"""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.operations import query as q
from dynemu.api.protocol import Context
from dynemu.engine import capacity, consistency, values
from dynemu.engine.capacity import CapacityLedger, ConsumedCapacity
from dynemu.engine.expressions import Compiled
from dynemu.engine.expressions import ast as ex
from dynemu.engine.indexes import Index
from dynemu.engine.partiql.translate import KeyedPlan, ReadPlan
from dynemu.engine.reads import Page
from dynemu.engine.table import Mutation, Table
from dynemu.engine.transactions import TransactionCanceled, fingerprint
from dynemu.engine.writes import MSG_MULTIPLE_OPERATIONS, Write, admit_or_cancel, replay
from dynemu.storage import keyspace

Item = dict[str, Any]
MSG_DUPLICATE = "Duplicate primary key exists in table"
MSG_UPDATE_SIZE = "Item size to update has exceeded the maximum allowed size"


def duplicate_item() -> errors.DynamoError:
    """PartiQL INSERT of an existing key (API reference, ExecuteStatement errors)."""
    return errors.DynamoError("DuplicateItemException", MSG_DUPLICATE)


# --- reads --------------------------------------------------------------------------------------


def index_of(table: Table, name: str | None, consistent: bool) -> Index | None:
    """The index FROM names, with Query's checks (unknown, backfilling, consistent GSI read)."""
    if name is None:
        return None
    return q._index(table, {"IndexName": name, "ConsistentRead": consistent})


def read_range(ctx: Context, table: Table, ix: Index | None, plan: ReadPlan, partition: Item | None, *,
               consistent: bool, limit: int | None, after: Item | None) -> Page:
    """One page of a partition (Query) or of the whole table or index (Scan), admitted and
    charged by Query's reader; ``plan.filter`` is applied to what is read."""
    body = {"ConsistentRead": consistent}
    keep = plan.filter.evaluate if plan.filter is not None else None
    now = ctx.db.now()
    reverse = not plan.forward
    if ix is None:
        tid = table.spec.table_id
        if partition is None:
            start = keyspace.items_prefix(tid)
            stop = keyspace.prefix_end(start)
        elif plan.sort is None:
            start = keyspace.partition_prefix(tid, partition)
            stop = keyspace.prefix_end(start)
        else:
            start, stop = keyspace.sort_key_range(tid, partition, plan.sort.op, plan.sort.values)
        after_key = table.key_for_request(after) if after is not None else None
        return q._read(table, None, body, now, start, stop, reverse=reverse, limit=limit, after=after_key, keep=keep)
    fetch = q._index_fetch(body, table, ix, Compiled(filter=plan.filter, projection=plan.projection))
    if partition is None:
        start, stop = ix.prefix, keyspace.prefix_end(ix.prefix)
    else:
        prefix = ix.partition_prefix((partition,))
        if plan.sort is None:
            start, stop = prefix, keyspace.prefix_end(prefix)
        else:
            start, stop = keyspace.condition_range(prefix, plan.sort.op, plan.sort.values)
    after_key = None
    if after is not None:
        after_key = q._index_start_key(table, ix, {"ExclusiveStartKey": after}, "The provided starting key is invalid")
    return q._read(table, ix, body, now, start, stop, reverse=reverse, limit=limit, after=after_key, keep=keep,
                   key_of=ix.key_of, fetch=fetch)


def charge_read(cc: ConsumedCapacity, ix: Index | None, page: Page, consistent: bool) -> None:
    """What a Query or Scan page reports (Query's rule: the sizes read, summed, rounded once)."""
    units = capacity.query_read_units_h(page.read_bytes, consistent)
    if ix is None:
        cc.add_read(units)
        return
    cc.add_index(ix.name, is_global=ix.is_global, read_h=units)
    if page.fetched:
        cc.add_read(capacity.query_read_units_h(page.fetch_bytes, consistent))


def get_one(ctx: Context, table: Table, key: Item, consistent: bool) -> tuple[Item | None, int]:
    """GetItem's read of one item: admitted, read, charged; (item, read half-units)."""
    k = table.key_for_request(key)
    now = ctx.db.now()
    p = table.capacity.check(k, now)
    item, size = table.read(k)
    if ctx.settings.eventual_lag_ms and not consistent:
        item = consistency.stale_item(table, k, item, now)
    read_h = capacity.read_units_h(size, consistent)
    table.capacity.debit(p, k, now, read=read_h / 2)
    return item, read_h


# --- writes: the engine's write executor ------------------------------------------------------------


def to_write(table: Table, plan: KeyedPlan, *, return_old: bool, table_name: str) -> Write:
    """The write executor's ``Write`` of an INSERT, UPDATE, DELETE or EXISTS."""
    rest = plan.condition
    kw: dict[str, Any] = {"return_old_on_failure": return_old, "table_name": table_name}
    if plan.kind == "put":  # only where no item has the key (a failure is DuplicateItem)
        return Write.put(table, plan.key, size=plan.item_size, condition=_absent, request_size=plan.item_size, **kw)
    kw["request_size"] = values.item_size(plan.key) + _update_values_size(plan)
    if plan.kind == "update":  # an existing item satisfying the rest of WHERE
        assert rest is not None
        return Write.update_item(table, plan.key, plan.update, condition=rest.evaluate, **kw)
    if plan.kind == "delete":  # a missing item: nothing to delete; an existing one must satisfy WHERE
        condition = (lambda old: old is None or rest.evaluate(old)) if rest is not None else None
        return Write.delete(table, plan.key, condition=condition, **kw)
    # EXISTS: the item exists and satisfies the rest of WHERE (a ConditionCheck)
    return Write.condition_check(
        table, plan.key, lambda old: old is not None and (rest is None or rest.evaluate(old)), **kw)


def _absent(old: Item | None) -> bool:
    return old is None


def _update_values_size(plan: KeyedPlan) -> int:
    """An UPDATE's share of the transaction's 4 MB beyond its key: the values it writes."""
    if plan.update is None:
        return 0
    return sum(values.value_size(a.value.value) for a in plan.update.actions if isinstance(a.value, ex.Literal))


def write_one(ctx: Context, table: Table, plan: KeyedPlan, *, return_old: bool,
              consumed: bool) -> tuple[Mutation, CapacityLedger | None]:
    """One INSERT, UPDATE or DELETE, as PutItem, UpdateItem or DeleteItem run: a throttle is
    the statement's error; an INSERT of an existing key is DuplicateItemException."""
    write = to_write(table, plan, return_old=return_old, table_name=table.name)
    try:
        result = ctx.db.execute([write], on_throttle="raise", consumed=consumed)
    except errors.DynamoError as e:
        if plan.kind == "put" and e.type_name == "ConditionalCheckFailedException":
            raise duplicate_item() from None
        raise
    assert write.mutation is not None
    return write.mutation, result.ledger


def _duplicates(e: TransactionCanceled, writes: list[Write]) -> TransactionCanceled:
    """An INSERT whose key exists cancels with DuplicateItem, not ConditionalCheckFailed."""
    reasons = [
        {"Code": "DuplicateItem", "Message": MSG_DUPLICATE}
        if w.kind == "Put" and r.get("Code") == "ConditionalCheckFailed" else r
        for w, r in zip(writes, e.reasons, strict=True)
    ]
    return TransactionCanceled(reasons)


def transact_write(ctx: Context, body: dict[str, Any], plans: list[KeyedPlan], tables: list[Table],
                   return_old: list[bool], mode: str | None) -> dict[str, Any]:
    """All or nothing through the executor's transaction, as TransactWriteItems
    (ClientRequestToken included)."""
    consumed = mode is not None
    token: str | None = body.get("ClientRequestToken")
    idempotency = None
    if token is not None:
        idempotency = (token, fingerprint(body))
        result = replay(ctx.db, token, idempotency[1], consumed)
        if result is not None:  # a repeat within the token's window: nothing written
            return _render(result.ledger, mode)
    ws = [to_write(t, p, return_old=r, table_name=t.name) for p, t, r in zip(plans, tables, return_old, strict=True)]
    try:
        result = ctx.db.execute(ws, on_throttle="cancel", transactional=True, consumed=consumed, token=idempotency)
    except TransactionCanceled as e:
        raise _duplicates(e, ws) from None
    return _render(result.ledger, mode)


def _render(ledger: CapacityLedger | None, mode: str | None) -> dict[str, Any]:
    if ledger is None or mode is None:
        return {}
    return {"ConsumedCapacity": ledger.render(mode)}


def transact_get(ctx: Context, plans: list[KeyedPlan], tables: list[Table], mode: str | None) -> dict[str, Any]:
    """TransactGetItems' reads: one consistent snapshot, two units per 4 KB per item."""
    keys = [t.key_for_request(p.key) for p, t in zip(plans, tables, strict=True)]
    if len(set(keys)) != len(keys):
        raise errors.validation(MSG_MULTIPLE_OPERATIONS)
    now = ctx.db.now()
    parts = admit_or_cancel(list(zip(tables, keys, strict=True)), now, write=False)
    ledger = CapacityLedger(split=True) if mode is not None else None
    responses: list[dict[str, Any]] = []
    for table, key, p, plan in zip(tables, keys, parts, plans, strict=True):
        item, size = table.read(key)
        if item is not None and (plan.condition is None or plan.condition.evaluate(item)):
            responses.append({"Item": plan.projection.apply(item) if plan.projection is not None else item})
        else:
            responses.append({})
        read_h = capacity.read_units_h(size, True, transactional=True)
        table.capacity.debit(p, key, now, read=read_h / 2)
        if ledger is not None:
            ledger.for_table(table.name).add_read(read_h)
    out: dict[str, Any] = {"Responses": responses}
    if ledger is not None:
        out["ConsumedCapacity"] = ledger.render(mode)  # type: ignore[arg-type]
    return out
