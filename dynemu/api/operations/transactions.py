"""TransactWriteItems and TransactGetItems.

TransactWriteItems (API reference; developer guide transaction-apis.md) runs in passes:

1. the token: a repeat of a completed request within 10 minutes succeeds without writing
   (dynemu.engine.transactions);
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
6. otherwise all the mutations are committed in one ``Database.commit``: one storage write
   batch, so a transaction is all or nothing, also across a crash.

The engine is synchronous, so the reads of pass 5 and the commit happen in one turn of
the event loop: no other request can interleave (DESIGN.md, "Request path").
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dynemu import errors
from dynemu.api.operations.batch import THROTTLE_ERRORS, resolve_key
from dynemu.api.operations.exprs import bind_to, compile_expressions
from dynemu.api.protocol import Context, Handler
from dynemu.engine import capacity, indexes, values
from dynemu.engine.capacity import CapacityLedger
from dynemu.engine.expressions import Compiled
from dynemu.engine.table import MAX_ITEM_BYTES, Mutation, Table
from dynemu.engine.transactions import TokenEntry, fingerprint, tokens_for

Item = dict[str, Any]

ACTIONS = ("ConditionCheck", "Put", "Delete", "Update")
MAX_TRANSACTION_BYTES = 4 * 1024 * 1024  # "The aggregate size of the items in the transaction cannot exceed 4 MB"

# Messages: the multiple-operations one is quoted by AWS's knowledge-center article
# "Why is my TransactWriteItems API call failing"; the one-of message was captured from the
# service for moto (getmoto/moto#5496); the zero-action message is DynamoDB Local's; the
# 4 MB message is dynoxide's, checked against the service by its conformance suite.
MSG_MULTIPLE_OPERATIONS = "Transaction request cannot include multiple operations on one item"
MSG_ONE_ACTION = "TransactItems can only contain one of Check, Put, Update or Delete"
MSG_NO_ACTION = "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request"
MSG_TOO_LARGE = (
    "Collection size of items exceeded, which can also be caused by the aggregate size of the items in the "
    "transaction exceeding the 4MB limit"
)
MSG_ITEM_SIZE = "Item size has exceeded the maximum allowed size"
MSG_UPDATE_SIZE = "Item size to update has exceeded the maximum allowed size"


class TransactionCanceled(errors.DynamoError):
    """TransactionCanceledException: its body spells ``Message`` with a capital M and
    carries ``CancellationReasons`` (real responses quoted in aws/aws-sdk-net#1292,
    erlcloud/erlcloud#607, boto/boto3#2657); botocore parses both."""

    __slots__ = ("reasons",)

    def __init__(self, reasons: list[dict[str, Any]]) -> None:
        codes = ", ".join(r["Code"] for r in reasons)
        super().__init__(
            "TransactionCanceledException",
            f"Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]",
        )
        self.reasons = reasons

    def body(self) -> dict[str, Any]:
        return {
            "__type": f"{self.namespace}#{self.type_name}",
            "CancellationReasons": self.reasons,
            "Message": self.message,
        }


def _cancel_one(count: int, index: int, message: str) -> TransactionCanceled:
    reasons: list[dict[str, Any]] = [{"Code": "None"} for _ in range(count)]
    reasons[index] = {"Code": "ValidationError", "Message": message}
    return TransactionCanceled(reasons)


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
    actions = []
    for entry in transact_items:
        kinds = [k for k in ACTIONS if entry.get(k) is not None]
        if len(kinds) != 1:
            raise errors.validation(MSG_ONE_ACTION if kinds else MSG_NO_ACTION)
        kind = kinds[0]
        params = entry[kind]
        if kind == "Put":
            attrs = values.validate_item(params["Item"])
            size = values.item_size(attrs)
            if size > MAX_ITEM_BYTES:
                raise errors.validation(MSG_ITEM_SIZE)
        else:
            attrs = values.validate_item(params["Key"])
            size = values.item_size(attrs)
        actions.append(_Action(kind, params, attrs, size, compile_expressions(kind, params)))
    return actions


def _resolve(ctx: Context, actions: list[_Action]) -> None:
    """Tables and keys; the first schema mismatch cancels, after every action was checked
    for errors of the whole request."""
    mismatch: tuple[int, str] | None = None
    for i, a in enumerate(actions):
        table = ctx.db.get(a.table_name)
        a.compiled = bind_to(a.compiled, table)
        a.table = table
        key, message = resolve_key(table, a.attrs, whole_item=a.kind == "Put")
        if key is None:
            if mismatch is None:
                mismatch = (i, message or "")
            continue
        a.key = key
    if mismatch is not None:
        raise _cancel_one(len(actions), *mismatch)
    seen: set[bytes] = set()
    for a in actions:
        if a.key in seen:
            raise errors.validation(MSG_MULTIPLE_OPERATIONS)
        seen.add(a.key)


def _request_size(a: _Action) -> int:
    """What an action adds to the 4 MB aggregate: the item put, else the key plus (for an
    Update) the values it writes."""
    if a.kind != "Update":
        return a.size
    eav = a.params.get("ExpressionAttributeValues") or {}
    return a.size + sum(values.value_size(v) for v in eav.values())


def _plan(a: _Action) -> tuple[Mutation | None, int]:
    """The mutation of one action (None for a ConditionCheck) and the size of the stored
    item it read. Raises ConditionalCheckFailedException or ValidationException."""
    table = a.table
    assert table is not None
    condition = a.compiled.condition
    if a.kind == "ConditionCheck":
        old, old_size = table.read(a.key)
        if condition is not None and not condition.evaluate(old):
            raise errors.conditional_check_failed(old if a.return_old and old is not None else None)
        return None, old_size
    check = condition.evaluate if condition is not None else None
    if a.kind == "Put":
        item = a.attrs
        m = table.plan(a.key, lambda old: item, check, return_item_on_failure=a.return_old, new_size=a.size)
    elif a.kind == "Delete":
        m = table.plan(a.key, lambda old: None, check, return_item_on_failure=a.return_old)
    else:  # Update: UpdateItem's semantics (UpdateExpression is required in a transaction)
        update, key_attrs = a.compiled.update, a.attrs
        assert update is not None

        def apply(old: Item | None) -> Item | None:
            return update.apply(old, key_attrs)[0]

        m = table.plan(a.key, apply, check, return_item_on_failure=a.return_old, size_error=MSG_UPDATE_SIZE)
    return m, m.old_size


def _admit(actions: list[_Action], now: float, *, write: bool) -> list[int]:
    """Admission of every action by its item's partition: the partitions, or a cancellation
    whose throttled actions carry ProvisionedThroughputExceeded (ThrottlingError on an
    on-demand table) with the table's throttling message (transaction-apis.md; the codes of
    API_CancellationReason)."""
    parts: list[int] = []
    reasons: list[dict[str, Any]] = []
    throttled = False
    for a in actions:
        assert a.table is not None
        try:
            parts.append(a.table.capacity.check(a.key, now, write=write))
            reasons.append({"Code": "None"})
        except errors.DynamoError as e:
            if e.type_name not in THROTTLE_ERRORS:
                raise
            code = "ThrottlingError" if e.type_name == "ThrottlingException" else "ProvisionedThroughputExceeded"
            reasons.append({"Code": code, "Message": e.message})
            parts.append(-1)
            throttled = True
    if throttled:
        raise TransactionCanceled(reasons)
    return parts


def _admit_indexes(ctx: Context, actions: list[_Action], mutations: list[Mutation], now: float) -> list[Any]:
    """Every GSI the transaction writes must admit it too (back-pressure, GSI.md); a refusal
    cancels the whole transaction, the refused actions carrying the GSI's throttling reason."""
    charges: list[Any] = []
    reasons: list[dict[str, Any]] = [{"Code": "None"} for _ in actions]
    where = {(id(a.table), a.key): i for i, a in enumerate(actions)}
    throttled = False
    for m in mutations:
        try:
            charges.extend(ctx.db.admit_index_writes(m.table, m, now))
        except errors.DynamoError as e:
            if e.type_name not in THROTTLE_ERRORS:
                raise
            code = "ThrottlingError" if e.type_name == "ThrottlingException" else "ProvisionedThroughputExceeded"
            reasons[where[(id(m.table), m.key)]] = {"Code": code, "Message": e.message}
            throttled = True
    if throttled:
        raise TransactionCanceled(reasons)
    return charges


def _reason(e: errors.DynamoError) -> dict[str, Any]:
    if e.type_name == "ConditionalCheckFailedException":
        reason: dict[str, Any] = {"Code": "ConditionalCheckFailed", "Message": e.message}
        item = (e.extra or {}).get("Item")
        if item is not None:
            reason["Item"] = item
        return reason
    if e.type_name == "ValidationException":
        return {"Code": "ValidationError", "Message": e.message}
    raise e


def _run(actions: list[_Action]) -> tuple[list[Mutation], list[tuple[int, int]]]:
    """Evaluate every action; the mutations to commit and each action's (old, new) sizes,
    or TransactionCanceled with one reason per action."""
    mutations: list[Mutation] = []
    sizes: list[tuple[int, int]] = []
    reasons: list[dict[str, Any]] = []
    failed = False
    for a in actions:
        try:
            m, old_size = _plan(a)
        except errors.DynamoError as e:
            reasons.append(_reason(e))
            failed = True
            continue
        reasons.append({"Code": "None"})
        if m is not None:
            mutations.append(m)
            sizes.append((m.old_size, m.new_size))
        else:
            sizes.append((old_size, 0))
    if failed:
        raise TransactionCanceled(reasons)
    return mutations, sizes


def transact_write_items(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    token: str | None = body.get("ClientRequestToken")
    cache = digest = None
    if token is not None:
        cache, digest = tokens_for(ctx.db), fingerprint(body)
        entry = cache.check(token, digest, ctx.db.now())
        if entry is not None:
            return _replay(body, entry)
    actions = _parse_actions(body["TransactItems"])
    try:
        _resolve(ctx, actions)
        if sum(_request_size(a) for a in actions) > MAX_TRANSACTION_BYTES:
            raise errors.validation(MSG_TOO_LARGE)
        now = ctx.db.now()
        parts = _admit(actions, now, write=True)
        mutations, sizes = _run(actions)
        gsi_charges = _admit_indexes(ctx, actions, mutations, now)
    except TransactionCanceled:
        if cache is not None:  # a cancelled request keeps its token for its own parameters
            cache.remember(token, digest, ctx.db.now(), completed=False)  # type: ignore[arg-type]
        raise
    # Twice the units of a plain write, per item (transaction-apis.md); a ConditionCheck is
    # charged as a write of the item it read (dynemu.engine.capacity).
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
    mode = _mode(body)
    if mode is not None:
        ledger = CapacityLedger(split=True)
        for a, write_h in zip(actions, charges, strict=True):
            ledger.for_table(a.table_name).add_write(write_h)
        names = {id(a.table): a.table_name for a in actions}
        for m in mutations:  # index arms at the plain rate: only the table's arm doubles
            indexes.charge(ledger.for_table(names[id(m.table)]), m)
        out["ConsumedCapacity"] = ledger.render(mode)
    return out


def _replay(body: dict[str, Any], entry: TokenEntry) -> dict[str, Any]:
    """A repeat within the token's window: success, nothing written, and the read units of
    reading the items (API reference, ClientRequestToken)."""
    out: dict[str, Any] = {}
    mode = _mode(body)
    if mode is not None:
        ledger = CapacityLedger(split=True)
        for table_name, size in entry.replay:
            ledger.for_table(table_name).add_read(capacity.read_units_h(size, True, transactional=True))
        out["ConsumedCapacity"] = ledger.render(mode)
    return out


# --- TransactGetItems ----------------------------------------------------------------------


def transact_get_items(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    gets: list[_Action] = []
    for entry in body["TransactItems"]:
        get = entry["Get"]
        gets.append(_Action("Get", get, values.validate_item(get["Key"]), 0, compile_expressions("Get", get)))
    seen: set[bytes] = set()
    for g in gets:
        table = g.table = ctx.db.get(g.table_name)
        g.key = table.key_for_request(g.attrs)
        if g.key in seen:
            raise errors.validation(MSG_MULTIPLE_OPERATIONS)
        seen.add(g.key)
        g.compiled = bind_to(g.compiled, table)
    now = ctx.db.now()
    parts = _admit(gets, now, write=False)
    mode = _mode(body)
    ledger = CapacityLedger(split=True) if mode is not None else None
    responses: list[dict[str, Any]] = []
    # All reads happen in this one synchronous call: a consistent snapshot of every item.
    for g, p in zip(gets, parts, strict=True):
        table = g.table
        assert table is not None
        item, size = table.read(g.key)
        if item is None:
            responses.append({})
        else:
            projection = g.compiled.projection
            responses.append({"Item": projection.apply(item) if projection is not None else item})
        read_h = capacity.read_units_h(size, True, transactional=True)  # 2 units per 4 KB
        table.capacity.debit(p, g.key, now, read=read_h / 2)
        if ledger is not None:
            ledger.for_table(g.table_name).add_read(read_h)
    out: dict[str, Any] = {"Responses": responses}
    if ledger is not None:
        out["ConsumedCapacity"] = ledger.render(mode)  # type: ignore[arg-type]
    return out


OPERATIONS: dict[str, Handler] = {
    "TransactWriteItems": transact_write_items,
    "TransactGetItems": transact_get_items,
}
