"""PartiQL's one door into the engine's read and write paths.

Every PartiQL read and write reaches storage only through the functions here, and they only
call the paths the other operations use: ``Database.write`` (PutItem, UpdateItem,
DeleteItem), the passes of TransactWriteItems / TransactGetItems and Query's page reader.
When the engine's write and read executors land (issue 11: ``engine/writes.py``,
``engine/reads.py``) this is the one file to switch. Until then the transaction tail below
mirrors ``transactions.transact_write_items`` step for step (token, resolve, 4 MB, admit,
run, GSI admission, debit, one commit), because that function parses its own request body.
"""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.operations import query as q
from dynemu.api.operations import transactions as tx
from dynemu.api.protocol import Context
from dynemu.engine import capacity, consistency, indexes
from dynemu.engine.capacity import CapacityLedger, ConsumedCapacity
from dynemu.engine.expressions import Compiled, Condition
from dynemu.engine.expressions import ast as ex
from dynemu.engine.indexes import Index
from dynemu.engine.partiql.translate import KeyedPlan, ReadPlan
from dynemu.engine.reads import Page
from dynemu.engine.table import Mutation, Table
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


# --- single writes ------------------------------------------------------------------------------


def write_one(ctx: Context, table: Table, plan: KeyedPlan, *, return_old: bool) -> Mutation:
    """INSERT, UPDATE or DELETE of one item through ``Database.write`` (PutItem's path)."""
    if plan.kind == "put":
        item = plan.key
        try:
            return ctx.db.write(table, table.key_for_item(item), lambda old: item, lambda old: old is None,
                                new_size=plan.item_size)
        except errors.DynamoError as e:
            if e.type_name == "ConditionalCheckFailedException":
                raise duplicate_item() from None
            raise
    key = table.key_for_request(plan.key)
    condition = plan.condition
    if plan.kind == "update":
        update, key_attrs = plan.update, plan.key
        assert update is not None and condition is not None
        return ctx.db.write(table, key, lambda old: update.apply(old, key_attrs)[0], condition.evaluate,
                            return_item_on_failure=return_old, size_error=MSG_UPDATE_SIZE)
    # DELETE of a missing item deletes nothing; an existing one must satisfy the rest of WHERE
    check = (lambda old: old is None or condition.evaluate(old)) if condition is not None else None
    return ctx.db.write(table, key, lambda old: None, check, return_item_on_failure=return_old)


def write_capacity(cc: ConsumedCapacity, m: Mutation) -> None:
    cc.add_write(capacity.write_units_h(m.old_size, m.new_size))
    indexes.charge(cc, m)


# --- transactions -------------------------------------------------------------------------------


def _key_exists(names: tuple[str, ...], exists: bool) -> ex.Node:
    return ex.Func("attribute_exists" if exists else "attribute_not_exists", (ex.Path((names[0],)),))


def _action(plan: KeyedPlan, table: Table, return_old: bool) -> tx._Action:
    """A TransactWriteItems action with the plan's trees in place of compiled expressions."""
    params: dict[str, Any] = {"TableName": plan.table}
    if return_old:
        params["ReturnValuesOnConditionCheckFailure"] = "ALL_OLD"
    names = table.spec.key_names
    rest = plan.condition.tree if plan.condition is not None else None
    if plan.kind == "put":
        compiled = Compiled(condition=Condition(_key_exists(names, False)))
        return tx._Action("Put", params, plan.key, plan.item_size, compiled)
    if plan.kind == "update":
        return tx._Action("Update", params, plan.key, 0, Compiled(condition=plan.condition, update=plan.update))
    if plan.kind == "delete":
        tree = None if rest is None else ex.Or((_key_exists(names, False), rest))
        return tx._Action("Delete", params, plan.key, 0, Compiled(condition=Condition(tree) if tree else None))
    tree = _key_exists(names, True) if rest is None else ex.And((_key_exists(names, True), rest))
    return tx._Action("ConditionCheck", params, plan.key, 0, Compiled(condition=Condition(tree)))


def _duplicates(e: tx.TransactionCanceled, actions: list[tx._Action]) -> tx.TransactionCanceled:
    """An INSERT whose key exists cancels with DuplicateItem, not ConditionalCheckFailed."""
    reasons = [
        {"Code": "DuplicateItem", "Message": MSG_DUPLICATE}
        if a.kind == "Put" and r.get("Code") == "ConditionalCheckFailed" else r
        for a, r in zip(actions, e.reasons, strict=True)
    ]
    return tx.TransactionCanceled(reasons)


def transact_write(ctx: Context, body: dict[str, Any], plans: list[KeyedPlan], tables: list[Table],
                   return_old: list[bool], mode: str | None) -> dict[str, Any]:
    """All or nothing, exactly as TransactWriteItems (ClientRequestToken included)."""
    token: str | None = body.get("ClientRequestToken")
    cache = digest = None
    if token is not None:
        from dynemu.engine.transactions import fingerprint, tokens_for  # type: ignore[attr-defined]  # until the executor switch

        cache, digest = tokens_for(ctx.db), fingerprint(body)
        entry = cache.check(token, digest, ctx.db.now())
        if entry is not None:
            return tx._replay(body, entry)
    actions = [_action(p, t, r) for p, t, r in zip(plans, tables, return_old, strict=True)]
    try:
        try:
            tx._resolve(ctx, actions)
            if sum(tx._request_size(a) for a in actions) > tx.MAX_TRANSACTION_BYTES:
                raise errors.validation(tx.MSG_TOO_LARGE)
            now = ctx.db.now()
            parts = tx._admit(actions, now, write=True)
            mutations, sizes = tx._run(actions)
            gsi_charges = tx._admit_indexes(ctx, actions, mutations, now)
        except tx.TransactionCanceled as e:
            raise _duplicates(e, actions) from None
    except tx.TransactionCanceled:
        if cache is not None:
            cache.remember(token, digest, ctx.db.now(), completed=False)  # type: ignore[arg-type]
        raise
    charges = [
        capacity.write_units_h(old, new if a.kind != "ConditionCheck" else None, transactional=True)
        for a, (old, new) in zip(actions, sizes, strict=True)
    ]
    for a, p, write_h in zip(actions, parts, charges, strict=True):
        a.table.capacity.debit(p, a.key, now, write=write_h / 2)  # type: ignore[union-attr]
    ctx.db.debit_index_writes(gsi_charges, now)
    ctx.db.commit(mutations)  # the one storage write batch of the whole transaction
    if cache is not None:
        replay = [(a.table_name, max(old, new)) for a, (old, new) in zip(actions, sizes, strict=True)]
        cache.remember(token, digest, ctx.db.now(), completed=True, replay=replay)  # type: ignore[arg-type]
    out: dict[str, Any] = {}
    if mode is not None:
        ledger = CapacityLedger(split=True)
        for a, write_h in zip(actions, charges, strict=True):
            ledger.for_table(a.table_name).add_write(write_h)
        names = {id(a.table): a.table_name for a in actions}
        for m in mutations:
            indexes.charge(ledger.for_table(names[id(m.table)]), m)
        out["ConsumedCapacity"] = ledger.render(mode)
    return out


def transact_get(ctx: Context, plans: list[KeyedPlan], tables: list[Table], mode: str | None) -> dict[str, Any]:
    """TransactGetItems' reads: one consistent snapshot, two units per 4 KB per item."""
    gets = [tx._Action("Get", {"TableName": p.table}, p.key, 0, Compiled(projection=p.projection), t,
                       t.key_for_request(p.key)) for p, t in zip(plans, tables, strict=True)]
    seen: set[tuple[int, bytes]] = set()
    for g in gets:
        if (id(g.table), g.key) in seen:
            raise errors.validation(tx.MSG_MULTIPLE_OPERATIONS)
        seen.add((id(g.table), g.key))
    now = ctx.db.now()
    parts = tx._admit(gets, now, write=False)
    ledger = CapacityLedger(split=True) if mode is not None else None
    responses: list[dict[str, Any]] = []
    for g, p, plan in zip(gets, parts, plans, strict=True):
        table = g.table
        assert table is not None
        item, size = table.read(g.key)
        if item is not None and (plan.condition is None or plan.condition.evaluate(item)):
            responses.append({"Item": plan.projection.apply(item) if plan.projection is not None else item})
        else:
            responses.append({})
        read_h = capacity.read_units_h(size, True, transactional=True)
        table.capacity.debit(p, g.key, now, read=read_h / 2)
        if ledger is not None:
            ledger.for_table(g.table_name).add_read(read_h)
    out: dict[str, Any] = {"Responses": responses}
    if ledger is not None:
        out["ConsumedCapacity"] = ledger.render(mode)  # type: ignore[arg-type]
    return out
