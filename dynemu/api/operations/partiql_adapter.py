"""PartiQL's one door into the engine's read and write paths.

Every PartiQL read and write reaches storage only through the engine's executors, the ones
the other operations use: ``dynemu.engine.writes`` (``Database.execute``: single writes and
transactions) and ``dynemu.engine.reads`` (``read_range``, ``get_item``, ``transact_get``).
"""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.operations import transactions as tx
from dynemu.api.operations.common import render_ledger
from dynemu.api.protocol import Context
from dynemu.engine import capacity, indexes, reads
from dynemu.engine.capacity import ConsumedCapacity
from dynemu.engine.expressions import Compiled, Condition
from dynemu.engine.expressions import ast as ex
from dynemu.engine.expressions.keycondition import KeyCondition
from dynemu.engine.indexes import Index
from dynemu.engine.partiql.translate import KeyedPlan, ReadPlan
from dynemu.engine.reads import KeyRead, Page, RangeRead
from dynemu.engine.table import Mutation, Table
from dynemu.engine.transactions import TransactionCanceled, fingerprint
from dynemu.engine.writes import Write, replay

Item = dict[str, Any]
MSG_DUPLICATE = "Duplicate primary key exists in table"


def duplicate_item() -> errors.DynamoError:
    """PartiQL INSERT of an existing key (API reference, ExecuteStatement errors)."""
    return errors.DynamoError("DuplicateItemException", MSG_DUPLICATE)


# --- reads --------------------------------------------------------------------------------------


def index_of(table: Table, name: str | None, consistent: bool) -> Index | None:
    """The index FROM names, with Query's checks (unknown, backfilling, consistent GSI read)."""
    if name is None:
        return None
    return reads.find_index(table, name, consistent=consistent)


def read_range(ctx: Context, table: Table, ix: Index | None, plan: ReadPlan, partition: Item | None, *,
               consistent: bool, limit: int | None, after: Item | None) -> Page:
    """One page of a partition (Query) or of the whole table or index (Scan), admitted and
    charged by the read executor; ``plan.filter`` is applied to what is read."""
    kc = None
    if partition is not None:
        kc = KeyCondition({}, partition_value=partition, sort=plan.sort, partition_values=(partition,))
    r = RangeRead(table, table.name, ix, kc, start_key=after, limit=limit, reverse=not plan.forward,
                  consistent=consistent, filter=plan.filter, projection=plan.projection)
    return reads.read_range(ctx.db, r).page


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
    item, cc = reads.get_item(ctx.db, KeyRead(table, table.key_for_request(key), key, table.name, consistent),
                              consumed=True)
    assert cc is not None
    return item, cc.read_h


# --- single writes ------------------------------------------------------------------------------


def write_one(ctx: Context, table: Table, plan: KeyedPlan, *, return_old: bool) -> Mutation:
    """INSERT, UPDATE or DELETE of one item through the write executor (PutItem's path)."""
    if plan.kind == "put":
        item = plan.key
        write = Write("Put", table, table.key_for_item(item), item, size=plan.item_size,
                      condition=lambda old: old is None)
        try:
            ctx.db.execute([write])
        except errors.DynamoError as e:
            if e.type_name == "ConditionalCheckFailedException":
                raise duplicate_item() from None
            raise
    else:
        key = table.key_for_request(plan.key)
        condition = plan.condition
        if plan.kind == "update":
            assert plan.update is not None and condition is not None
            write = Write("Update", table, key, plan.key, update=plan.update, condition=condition.evaluate,
                          return_old_on_failure=return_old)
        else:
            # DELETE of a missing item deletes nothing; an existing one must satisfy the rest of WHERE
            check = (lambda old: old is None or condition.evaluate(old)) if condition is not None else None
            write = Write("Delete", table, key, plan.key, condition=check, return_old_on_failure=return_old)
        ctx.db.execute([write])
    assert write.mutation is not None
    return write.mutation


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


def _duplicates(e: TransactionCanceled, actions: list[tx._Action]) -> TransactionCanceled:
    """An INSERT whose key exists cancels with DuplicateItem, not ConditionalCheckFailed."""
    reasons = [
        {"Code": "DuplicateItem", "Message": MSG_DUPLICATE}
        if a.kind == "Put" and r.get("Code") == "ConditionalCheckFailed" else r
        for a, r in zip(actions, e.reasons, strict=True)
    ]
    return TransactionCanceled(reasons)


def transact_write(ctx: Context, body: dict[str, Any], plans: list[KeyedPlan], tables: list[Table],
                   return_old: list[bool], mode: str | None) -> dict[str, Any]:
    """All or nothing, exactly as TransactWriteItems (ClientRequestToken included)."""
    token: str | None = body.get("ClientRequestToken")
    idempotency = None
    if token is not None:
        idempotency = (token, fingerprint(body))
        repeat = replay(ctx.db, token, idempotency[1], mode is not None)
        if repeat is not None:
            return tx._render(repeat, mode)
    actions = [_action(p, t, r) for p, t, r in zip(plans, tables, return_old, strict=True)]
    try:
        writes = tx._resolve(ctx, actions)
        result = ctx.db.execute(writes, on_throttle="cancel", transactional=True, consumed=mode is not None,
                                token=idempotency)
    except TransactionCanceled as e:
        raise _duplicates(e, actions) from None
    return tx._render(result, mode)


def transact_get(ctx: Context, plans: list[KeyedPlan], tables: list[Table], mode: str | None) -> dict[str, Any]:
    """TransactGetItems' reads: one consistent snapshot, two units per 4 KB per item."""
    keyed = [KeyRead(t, t.key_for_request(p.key), p.key, p.table, True) for p, t in zip(plans, tables, strict=True)]
    found, ledger = reads.transact_get(ctx.db, keyed, consumed=mode is not None)
    responses: list[dict[str, Any]] = []
    for plan, item in zip(plans, found, strict=True):
        if item is not None and (plan.condition is None or plan.condition.evaluate(item)):
            responses.append({"Item": plan.projection.apply(item) if plan.projection is not None else item})
        else:
            responses.append({})
    out: dict[str, Any] = {"Responses": responses}
    if ledger is not None:
        out["ConsumedCapacity"] = render_ledger(ledger, mode)  # type: ignore[arg-type]
    return out
