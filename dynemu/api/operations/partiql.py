"""ExecuteStatement, BatchExecuteStatement and ExecuteTransaction (PartiQL).

Each statement is parsed (syntax errors first, as DynamoDB reports them before looking the
table up), its ``?`` parameters bound, its table looked up, and it is translated into the
engine's requests (``dynemu.engine.partiql.translate``); ``partiql_adapter`` runs them on
the same paths as Query/Scan, PutItem/UpdateItem/DeleteItem, GetItem and the transactions.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

import orjson

from dynemu import errors
from dynemu.api.operations import partiql_adapter as run
from dynemu.api.operations.common import render_consumed, render_ledger
from dynemu.api.protocol import Context, Handler
from dynemu.engine import values
from dynemu.engine.capacity import CapacityLedger, ConsumedCapacity
from dynemu.engine.partiql import ast
from dynemu.engine.partiql.parser import parse
from dynemu.engine.partiql.translate import KeyedPlan, bind, plan_get, plan_select, plan_write
from dynemu.engine.table import Mutation, Table

Item = dict[str, Any]
IN_PAGE_ITEMS = 10
# error types -> BatchStatementError codes (API reference, BatchStatementError)
_BATCH_CODES = {
    errors.CONDITIONAL_CHECK_FAILED: "ConditionalCheckFailed",
    "DuplicateItemException": "DuplicateItem",
    "ValidationException": "ValidationError",
    "ResourceNotFoundException": "ResourceNotFound",
    errors.PROVISIONED_THROUGHPUT_EXCEEDED: "ProvisionedThroughputExceeded",
    errors.THROTTLING: "ThrottlingError",
    "RequestLimitExceeded": "RequestLimitExceeded",
    "ItemCollectionSizeLimitExceededException": "ItemCollectionSizeLimitExceeded",
    "TransactionConflictException": "TransactionConflict",
}


def _mode(body: dict[str, Any]) -> str | None:
    mode = body.get("ReturnConsumedCapacity")
    return mode if mode == "TOTAL" or mode == "INDEXES" else None


def _prepare(ctx: Context, entry: dict[str, Any]) -> tuple[ast.Statement, Table]:
    """Parse, bind the parameters, look the table up — in that order."""
    statement = bind(parse(entry["Statement"]), entry.get("Parameters"))
    return statement, ctx.db.get(ast.table_of(statement))


# --- ExecuteStatement ---------------------------------------------------------------------------


def execute_statement(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    statement, table = _prepare(ctx, body)
    mode = _mode(body)
    if isinstance(statement, ast.Select):
        return _select(ctx, body, statement, table, mode)
    if isinstance(statement, ast.Exists):
        raise errors.validation(errors.MSG_EXISTS_OUTSIDE_TRANSACTION)
    plan = plan_write(statement, table.spec.key_schema)
    return_old = body.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD"
    m, ledger = run.write_one(ctx, table, plan, return_old=return_old, consumed=mode is not None)
    out: dict[str, Any] = {"Items": _returning(plan, m)}
    if ledger is not None and mode is not None:
        out["ConsumedCapacity"] = render_consumed(ledger.for_table(table.name), mode)
    return out


def _returning(plan: KeyedPlan, m: Mutation) -> list[Item]:
    """RETURNING ALL OLD * | MODIFIED OLD * | ALL NEW * | MODIFIED NEW * (UPDATE, DELETE)."""
    item: Item | None = None
    if plan.returning == "ALL_OLD":
        item = m.old
    elif plan.returning == "ALL_NEW":
        item = m.new
    elif plan.returning == "UPDATED_OLD" and plan.update is not None:
        item = plan.update.touched.apply(m.old)
    elif plan.returning == "UPDATED_NEW" and plan.update is not None:
        item = plan.update.touched_new.apply(m.new)
    return [item] if item else []


def _select(ctx: Context, body: dict[str, Any], s: ast.Select, table: Table, mode: str | None) -> dict[str, Any]:
    consistent = bool(body.get("ConsistentRead"))
    ix = run.index_of(table, s.source.index, consistent)
    plan = plan_select(s, ix.key_schema if ix is not None else table.spec.key_schema)
    position, after = _decode_token(body)
    partitions: tuple[Item | None, ...] = plan.partitions if plan.partitions is not None else (None,)
    limit: int | None = body.get("Limit")
    if len(partitions) > 1:
        # several partitions (IN, OR): "Results are returned in pages of up to 10 items"
        # ("PartiQL ... operators", IN); here: at most 10 items evaluated per page
        limit = min(limit, IN_PAGE_ITEMS) if limit is not None else IN_PAGE_ITEMS
    cc = ConsumedCapacity(s.source.table)
    items: list[Item] = []
    out: dict[str, Any] = {}
    while position < len(partitions):
        page, consumed = run.read_range(ctx, table, ix, plan, partitions[position], consistent=consistent,
                                        limit=limit, after=after)
        cc.merge(consumed)
        items.extend(page.items)
        after = page.last_key
        if after is not None:  # stopped at Limit or 1 MB: continue here
            out["LastEvaluatedKey"] = after
            out["NextToken"] = _encode_token(body, position, after)
            break
        position += 1
        if limit is not None:
            limit -= page.scanned
            if limit <= 0 and position < len(partitions):
                out["NextToken"] = _encode_token(body, position, None)
                break
    projection = plan.projection
    out["Items"] = [projection.apply(i) for i in items] if projection is not None else items
    if mode is not None:
        out["ConsumedCapacity"] = render_consumed(cc, mode)
    return out


def _statement_id(body: dict[str, Any]) -> str:
    raw = orjson.dumps([body.get("Statement"), body.get("Parameters")], option=orjson.OPT_SORT_KEYS)
    return hashlib.sha256(raw).hexdigest()[:16]


def _encode_token(body: dict[str, Any], position: int, after: Item | None) -> str:
    """NextToken: opaque to the client; it names the statement, the partition (for IN and
    OR) and the key to continue after."""
    raw = orjson.dumps({"s": _statement_id(body), "p": position, "k": after})
    return base64.urlsafe_b64encode(raw).decode()


def _decode_token(body: dict[str, Any]) -> tuple[int, Item | None]:
    token = body.get("NextToken")
    if token is None:
        return 0, None
    try:
        data = orjson.loads(base64.urlsafe_b64decode(token.encode()))
        ok = data["s"] == _statement_id(body) and isinstance(data["p"], int) and data["p"] >= 0
        after = data["k"]
        if after is not None:
            after = values.validate_item(after)
    except (ValueError, TypeError, KeyError, orjson.JSONDecodeError, errors.DynamoError):
        ok = False
    if not ok:
        raise errors.validation(errors.MSG_INVALID_NEXT_TOKEN)
    return data["p"], after


# --- BatchExecuteStatement ----------------------------------------------------------------------


def batch_execute_statement(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    """Each statement runs on its own, its failure an Error entry (API reference,
    BatchStatementError); reads are GetItems by full key, writes single-item writes."""
    entries = body["Statements"]
    kinds = set()
    for entry in entries:
        try:
            kinds.add(isinstance(parse(entry["Statement"]).statement, ast.Select))
        except errors.DynamoError:
            continue  # reported as that statement's Error
    if len(kinds) > 1:
        raise errors.validation(errors.MSG_MIXED_BATCH)
    mode = _mode(body)
    ledger = CapacityLedger()
    responses = [_batch_one(ctx, entry, ledger) for entry in entries]
    out: dict[str, Any] = {"Responses": responses}
    if mode is not None:
        out["ConsumedCapacity"] = render_ledger(ledger, mode) or []
    return out


def _batch_one(ctx: Context, entry: dict[str, Any], ledger: CapacityLedger) -> dict[str, Any]:
    response: dict[str, Any] = {}
    try:
        statement, table = _prepare(ctx, entry)
        response["TableName"] = table.name
        if isinstance(statement, ast.Select):
            plan = plan_get(statement, table.spec.key_schema, errors.MSG_BATCH_SELECT_KEY)
            consistent = bool(entry.get("ConsistentRead"))
            item, consumed = run.get_one(ctx, table, plan.key, consistent)
            ledger.for_table(table.name).merge(consumed)
            if item is not None and (plan.condition is None or plan.condition.evaluate(item)):
                response["Item"] = plan.projection.apply(item) if plan.projection is not None else item
            return response
        if isinstance(statement, ast.Exists):
            raise errors.validation(errors.MSG_EXISTS_OUTSIDE_TRANSACTION)
        plan = plan_write(statement, table.spec.key_schema)
        return_old = entry.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD"
        _, consumed = run.write_one(ctx, table, plan, return_old=return_old, consumed=True)
        assert consumed is not None
        ledger.for_table(table.name).merge(consumed.for_table(table.name))
    except errors.DynamoError as e:
        code = _BATCH_CODES.get(e.type_name)
        if code is None:
            raise
        error: dict[str, Any] = {"Code": code, "Message": e.message}
        item = (e.extra or {}).get("Item")
        if item is not None:
            error["Item"] = item
        response["Error"] = error
    return response


# --- ExecuteTransaction -------------------------------------------------------------------------


def execute_transaction(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    """All reads (TransactGetItems) or all writes with EXISTS checks (TransactWriteItems)
    (developer guide, "Performing transactions with PartiQL for DynamoDB")."""
    entries = body["TransactStatements"]
    prepared = [_in_statement(i, _prepare, ctx, entry) for i, entry in enumerate(entries)]
    reads = [isinstance(s, ast.Select) for s, _ in prepared]
    if any(reads) and not all(reads):
        raise errors.validation(errors.MSG_MIXED_TRANSACTION)
    tables = [t for _, t in prepared]
    mode = _mode(body)
    if all(reads):
        plans = [_in_statement(i, plan_get, s, t.spec.key_schema, errors.MSG_TRANSACTION_SELECT_KEY)
                 for i, (s, t) in enumerate(prepared)]
        return run.transact_get(ctx, plans, tables, mode)
    plans = [_in_statement(i, plan_write, s, t.spec.key_schema) for i, (s, t) in enumerate(prepared)]
    return_old = [e.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD" for e in entries]
    return run.transact_write(ctx, body, plans, tables, return_old, mode)


def _in_statement(index: int, step: Any, *args: Any) -> Any:
    """One statement's step of a transaction: its ValidationException names the statement
    ("Validation failed in TransactStatements[0]: ...", issue 37)."""
    try:
        return step(*args)
    except errors.DynamoError as e:
        if e.type_name != "ValidationException":
            raise
        raise errors.validation(errors.msg_transaction_statement(index, e.message)) from None


OPERATIONS: dict[str, Handler] = {
    "ExecuteStatement": execute_statement,
    "BatchExecuteStatement": batch_execute_statement,
    "ExecuteTransaction": execute_transaction,
}
