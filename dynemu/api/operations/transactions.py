"""TransactWriteItems and TransactGetItems.

TransactWriteItems (API reference; developer guide transaction-apis.md) runs in passes:

1. the token: a repeat of a completed request within 10 minutes succeeds without writing
   (dynemu.engine.tokens);
2. checks that need no table, action by action: exactly one of ConditionCheck / Put /
   Update / Delete, attribute values, the Put item's 400 KB, expressions;
3. tables and keys: ResourceNotFoundException and empty or oversized key values are
   errors of the whole request; a key attribute that is missing or of the wrong type
   cancels the transaction, the first such action getting a ValidationError reason and
   every other action None (measured against the service: paritysuite/dynamodb-conformance
   #46 and #60, floci-io/floci#3674);
4. at most one action per item ("Transaction request cannot include multiple operations on
   one item"), then the 4 MB aggregate size;
5. every action is evaluated against the stored items (Table.plan, so Update behaves as
   UpdateItem); a failed condition or an error found while applying an action (an item
   grown past 400 KB, an update operand of the wrong type) cancels the whole transaction
   with TransactionCanceledException, one reason per action in request order;
6. otherwise all the mutations are committed in one ``Namespace.commit``: one storage write
   batch, so a transaction is all or nothing, also across a crash.

The engine is synchronous, so the reads of pass 5 and the commit happen in one turn of
the event loop: no other request can interleave (docs/rules.md, "Request isolation").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dynemu import errors
from dynemu.api.operations.batch import resolve_key
from dynemu.api.operations.common import render_ledger
from dynemu.api.operations.exprs import bind_to, compile_expressions
from dynemu.api.protocol import Context, Handler
from dynemu.engine import reads, values
from dynemu.engine.cancellation import cancellation_at
from dynemu.engine.expressions import Compiled
from dynemu.engine.reads import KeyRead
from dynemu.engine.table import Table
from dynemu.engine.tokens import fingerprint
from dynemu.engine.writes import Write, WriteResult, replay
from dynemu.errors import MSG_SCHEMA

Item = dict[str, Any]

ACTIONS = ("ConditionCheck", "Put", "Delete", "Update")



@dataclass(slots=True)
class _Action:
    kind: str  # ConditionCheck | Put | Delete | Update (| Get, in TransactGetItems)
    params: dict[str, Any]
    attrs: Item  # the item to put, else the Key
    size: int  # the Put item's size; the Key's size otherwise
    compiled: Compiled
    table: Table | None = None
    key: bytes = b""

    @property
    def table_name(self) -> str:
        return self.params["TableName"]

    @property
    def return_old(self) -> bool:
        return self.params.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD"


def _mode(body: dict[str, Any]) -> str | None:
    mode = body.get("ReturnConsumedCapacity")
    return mode if mode == "TOTAL" or mode == "INDEXES" else None


# --- TransactWriteItems: the passes ---------------------------------------------------------


def _parse_actions(transact_items: list[dict[str, Any]]) -> list[_Action]:
    """The checks that need no table, action by action in request order; a value nested too
    deep is refused only when no other check of any action fails (``values.nesting_last``;
    issue 36)."""
    return values.nesting_last(lambda: _check_actions(transact_items))


def _check_actions(transact_items: list[dict[str, Any]]) -> list[_Action]:
    actions = []
    for entry in transact_items:
        kinds = [k for k in ACTIONS if entry.get(k) is not None]
        if len(kinds) != 1:
            raise errors.validation(errors.MSG_ONE_ACTION if kinds else errors.MSG_NO_ACTION)
        kind = kinds[0]
        params = entry[kind]
        if kind == "Put":
            attrs = values.validate_item(params["Item"])
            size = values.item_size(attrs)
            values.check_item_size(size)
        else:
            attrs = values.validate_item(params["Key"])
            size = values.item_size(attrs)
        actions.append(_Action(kind, params, attrs, size, compile_expressions(kind, params)))
    return actions


def _resolve(ctx: Context, actions: list[_Action]) -> list[Write]:
    """Tables and keys, as the write executor's ``Write``s. A key that does not match its
    schema marks its write ``invalid``: the executor cancels on the first one, after every
    action was checked for errors of the whole request."""
    writes = []
    for a in actions:
        table = ctx.db.get(a.table_name)
        a.compiled = bind_to(a.compiled, table)
        a.table = table
        key, message = resolve_key(table, a.attrs, whole_item=a.kind == "Put")
        condition = a.compiled.condition
        writes.append(
            Write(
                a.kind, table, key or b"", a.attrs,
                size=a.size if a.kind == "Put" else None,
                update=a.compiled.update,
                condition=condition.evaluate if condition is not None else None,
                return_old_on_failure=a.return_old,
                table_name=a.table_name,
                request_size=_request_size(a),
                invalid=None if key is not None else message or "",
            )
        )  # fmt: skip
    return writes


def _request_size(a: _Action) -> int:
    """What an action adds to the 4 MB aggregate: the item put, else the key plus (for an
    Update) the values it writes."""
    if a.kind != "Update":
        return a.size
    eav = a.params.get("ExpressionAttributeValues") or {}
    return a.size + sum(values.value_size(v) for v in eav.values())


def transact_write_items(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    mode = _mode(body)
    token: str | None = body.get("ClientRequestToken")
    idempotency = None
    if token is not None:
        idempotency = (token, fingerprint(body))
        result = replay(ctx.db, token, idempotency[1], mode is not None)
        if result is not None:  # a repeat within the token's window: nothing written
            return _render(result, mode)
    actions = _parse_actions(body["TransactItems"])
    writes = _resolve(ctx, actions)
    result = ctx.db.execute(writes, on_throttle="cancel", consumed=mode is not None, token=idempotency)
    return _render(result, mode)


def _render(result: WriteResult, mode: str | None) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if result.ledger is not None and mode is not None:
        out["ConsumedCapacity"] = render_ledger(result.ledger, mode)
    return out


# --- TransactGetItems ----------------------------------------------------------------------


def transact_get_items(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    gets: list[_Action] = []
    for entry in body["TransactItems"]:
        get = entry["Get"]
        gets.append(_Action("Get", get, values.validate_item(get["Key"]), 0, compile_expressions("Get", get)))
    for g in gets:
        g.table = ctx.db.get(g.table_name)
    empty = [i for i, g in enumerate(gets) if not g.attrs]
    if empty:
        # An empty Key cancels the transaction with a ValidationError reason (issue 12);
        # other keys off the schema stay errors of the whole request.
        raise cancellation_at(len(gets), empty[0], MSG_SCHEMA)
    for g in gets:
        table = g.table
        assert table is not None
        g.key = table.key_for_request(g.attrs)
        g.compiled = bind_to(g.compiled, table)
    # At most one read per item: the engine's check (reads.read_keys), after every key and
    # expression above is validated (UNSURE: the service's order between the two is not
    # documented; TransactWriteItems validates its keys first too).
    mode = _mode(body)
    keyed = [KeyRead(g.table, g.key, g.attrs, g.table_name, True) for g in gets]  # type: ignore[arg-type]
    result = reads.read_keys(ctx.db, keyed, on_throttle="cancel", consumed=mode is not None)
    ledger = result.ledger
    responses: list[dict[str, Any]] = []
    for g, item in zip(gets, result.items, strict=True):
        if item is None:
            responses.append({})
        else:
            projection = g.compiled.projection
            responses.append({"Item": projection.apply(item) if projection is not None else item})
    out: dict[str, Any] = {"Responses": responses}
    if ledger is not None:
        out["ConsumedCapacity"] = render_ledger(ledger, mode)  # type: ignore[arg-type]
    return out


OPERATIONS: dict[str, Handler] = {
    "TransactWriteItems": transact_write_items,
    "TransactGetItems": transact_get_items,
}
