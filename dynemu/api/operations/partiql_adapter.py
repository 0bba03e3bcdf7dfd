"""PartiQL's one door into the engine's read and write paths.

Every PartiQL read and write reaches storage only through the engine's executors, the ones
the other operations use: ``dynemu.engine.writes`` (``Namespace.execute``: as PutItem,
UpdateItem and DeleteItem one by one, as TransactWriteItems in a transaction, tokens
included) and ``dynemu.engine.reads`` (``read_range`` as Query and Scan, ``get_item`` as
GetItem, ``transact_get`` as TransactGetItems).
"""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.operations.common import render_ledger
from dynemu.api.protocol import Context
from dynemu.engine import indexes, reads, values
from dynemu.engine.cancellation import TransactionCanceled
from dynemu.engine.capacity import CapacityLedger, ConsumedCapacity
from dynemu.engine.expressions import ast as ex
from dynemu.engine.expressions.keycondition import KeyCondition
from dynemu.engine.indexes import Index
from dynemu.engine.partiql.translate import KeyedPlan, ReadPlan
from dynemu.engine.reads import KeyRead, Page, RangeRead
from dynemu.engine.table import Mutation, Table
from dynemu.engine.tokens import fingerprint
from dynemu.engine.writes import Write, replay

Item = dict[str, Any]


def duplicate_item() -> errors.DynamoError:
    """PartiQL INSERT of an existing key (API reference, ExecuteStatement errors)."""
    return errors.DynamoError("DuplicateItemException", errors.MSG_DUPLICATE)


# --- reads: the engine's read executor ----------------------------------------------------------


def index_of(table: Table, name: str | None, consistent: bool) -> Index | None:
    """The index FROM names: an unknown one first, then a consistent read of a GSI, in
    ExecuteStatement's own words (issue 36 §7), then Query's other checks (backfilling)."""
    if name is None:
        return None
    ix = indexes.find(table, name)
    if ix is None:
        raise errors.validation(errors.MSG_PARTIQL_NO_SUCH_INDEX)
    if ix.is_global and consistent:
        raise errors.validation(errors.MSG_PARTIQL_CONSISTENT_GSI)
    return reads.find_index(table, name, consistent=consistent)


def read_range(ctx: Context, table: Table, ix: Index | None, plan: ReadPlan, partition: Item | None, *,
               consistent: bool, limit: int | None, after: Item | None) -> tuple[Page, ConsumedCapacity]:
    """One page of a partition (a Query: ``partition`` is its key value) or of the whole table
    or index (a Scan), admitted and charged as Query and Scan are; ``plan.filter`` keeps items."""
    kc = None
    if partition is not None:
        source = ix.key_schema if ix is not None else table.spec.key_schema
        kc = KeyCondition({}, partition_name=source[0][0], partition_value=partition, sort=plan.sort,
                          partition_values=(partition,))
    r = RangeRead(table, table.name, ix, kc, start_key=after, limit=limit, reverse=not plan.forward,
                  consistent=consistent, filter=plan.filter, projection=plan.projection, consumed=True)
    result = reads.read_range(ctx.db, r)
    assert result.consumed is not None
    return result.page, result.consumed


def get_one(ctx: Context, table: Table, key: Item, consistent: bool) -> tuple[Item | None, ConsumedCapacity]:
    """GetItem's read of one item (BatchExecuteStatement's reads, as BatchGetItem's)."""
    result = reads.read_keys(ctx.db, [KeyRead(table, table.key_for_request(key), key, table.name, consistent)],
                             consumed=True)
    assert result.ledger is not None
    return result.items[0], result.ledger.for_table(table.name)


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
        if plan.kind == "put" and e.type_name == errors.CONDITIONAL_CHECK_FAILED:
            raise duplicate_item() from None
        raise
    assert write.mutation is not None
    return write.mutation, result.ledger


def _duplicates(e: TransactionCanceled, writes: list[Write]) -> TransactionCanceled:
    """An INSERT whose key exists cancels with DuplicateItem, not ConditionalCheckFailed."""
    reasons = [
        {"Code": "DuplicateItem", "Message": errors.MSG_DUPLICATE}
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
        result = ctx.db.execute(ws, on_throttle="cancel", consumed=consumed, token=idempotency)
    except TransactionCanceled as e:
        raise _duplicates(e, ws) from None
    return _render(result.ledger, mode)


def _render(ledger: CapacityLedger | None, mode: str | None) -> dict[str, Any]:
    """A transaction of writes answers an empty Responses list (issue 37, the service's)."""
    out: dict[str, Any] = {"Responses": []}
    if ledger is not None and mode is not None:
        out["ConsumedCapacity"] = render_ledger(ledger, mode)
    return out


def transact_get(ctx: Context, plans: list[KeyedPlan], tables: list[Table], mode: str | None) -> dict[str, Any]:
    """TransactGetItems' reads: one consistent snapshot, two units per 4 KB per item; the
    rest of a WHERE clause beyond the key filters the item read."""
    keyed = [KeyRead(t, t.key_for_request(p.key), p.key, t.name, True) for p, t in zip(plans, tables, strict=True)]
    result = reads.read_keys(ctx.db, keyed, on_throttle="cancel", consumed=mode is not None)
    ledger = result.ledger
    responses: list[dict[str, Any]] = []
    for plan, item in zip(plans, result.items, strict=True):
        if item is not None and (plan.condition is None or plan.condition.evaluate(item)):
            responses.append({"Item": plan.projection.apply(item) if plan.projection is not None else item})
        else:
            responses.append({})
    out: dict[str, Any] = {"Responses": responses}
    if ledger is not None and mode is not None:
        out["ConsumedCapacity"] = render_ledger(ledger, mode)
    return out
