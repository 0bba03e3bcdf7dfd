"""The one write executor: every item write of every operation goes through ``execute``.

PutItem, UpdateItem and DeleteItem, BatchWriteItem, TransactWriteItems, PartiQL statements
and the TTL sweeper hand it already parsed and keyed ``Write``s, with what to do on a throttle
(``on_throttle``). Each write goes through one loop:

1. admission by its item's partition on the table (``TableCapacity.admit``);
2. the plan (``Table.plan``: old image, condition, new image, the 400 KB rule, index keys), or
   a transaction's ConditionCheck (``Table.check``);
3. admission by every GSI the write changes: an under-provisioned GSI throttles the table's
   writes (GSI.md, "Throttling considerations");
4. the charges: 1 KB blocks of the larger image (x2 in a transaction), plus LSI units,
   which are the table's own write capacity (LSI.md); GSI units to the GSI's capacity;
   a failed condition of a write outside a transaction still consumes the old item's units
   ("Write capacity unit consumption"). The units rules are ``dynemu.engine.capacity.units``;
5. the one ``Namespace.commit`` of all the mutations, in one storage batch, and the
   ConsumedCapacity ledger (and, for a transaction, its token).

What happens to a refused write is the policy (API reference of each operation): ``raise``
the error (a single write); ``unprocess`` it (BatchWriteItem: the write is left unprocessed,
and the request fails only when nothing at all could be written); ``cancel`` the transaction
(TransactWriteItems: all-or-nothing, every step run over all its actions before the next, each
refused action carrying its reason); ``service`` writes (TTL deletes) consume no capacity, and
one whose condition fails is skipped.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from dynemu import errors
from dynemu.engine import capacity, indexes
from dynemu.engine.cancellation import (
    TransactionCanceled,
    cancellation_at,
    failure_reason,
    throttle_reason,
)
from dynemu.engine.capacity import CapacityLedger
from dynemu.engine.capacity.admission import throttled_requests
from dynemu.engine.schema import Item
from dynemu.engine.table import KEEP_OR_CREATE, Condition, Mutation, Table, stored_size
from dynemu.engine.tokens import TokenEntry, Tokens
from dynemu.engine.vectors import billed_sizes as vector_billed_sizes
from dynemu.engine.vectors import charge as vector_charge
from dynemu.engine.vectors import write_units_h as vector_write_units_h
from dynemu.errors import MSG_MULTIPLE_OPERATIONS, MSG_TRANSACTION_TOO_LARGE
from dynemu.storage import keyspace
from dynemu.storage.base import WriteBatch

OnThrottle = Literal["raise", "unprocess", "cancel", "service"]


class WriteTarget(Protocol):
    """What the loop needs of the namespace it writes to (``engine.namespace.Namespace``):
    its clock, its transaction tokens and its one commit."""

    @property
    def tokens(self) -> Tokens: ...

    @property
    def replicated(self) -> Any: ...  # engine.replication.RegionLink of a namespace holding a replica, or None

    def now(self) -> float: ...

    def commit(self, mutations: Iterable[Mutation], now: float | None = None, batch: WriteBatch | None = None) -> None: ...

MAX_TRANSACTION_BYTES = 4 * 1024 * 1024  # "The aggregate size of the items in the transaction cannot exceed 4 MB"


@dataclass(slots=True)
class Write:
    """One item write, parsed and keyed. Build it with ``put`` / ``update`` / ``delete`` /
    ``condition_check``; ``execute`` fills ``mutation`` (None for a ConditionCheck)."""

    kind: str  # "Put" | "Update" | "Delete" | "ConditionCheck"
    table: Table
    key: bytes  # the storage key (Table.key_for_item / key_for_request)
    attrs: Item  # Put: the item; otherwise the key attributes
    size: int | None = None  # Put: the item's size as ``values`` measured it (validate_item_sized,
    # item_size), so it is not walked twice; the plan applies the 400 KB rule to it all the same
    update: Any = None  # Update: a ``table.Change`` (engine.expressions.Update, LegacyUpdate);
    # None keeps the item, or creates it with its key only
    condition: Condition | None = None
    return_old_on_failure: bool = False  # ReturnValuesOnConditionCheckFailure ALL_OLD
    table_name: str = ""  # as the request named it (may be an ARN): ConsumedCapacity's TableName; "": the table's name
    request_size: int = 0  # transactions: this action's share of the 4 MB aggregate
    invalid: str | None = None  # transactions: the key does not match the schema (cancels)
    marks: dict[str, Any] | None = None  # added to Mutation.derived (the TTL sweeper's deletes)
    request: Any = None  # opaque: what the caller wants back for an unprocessed write
    mutation: Mutation | None = None
    read_size: int = 0  # the stored item's size (ConditionCheck: what it read)
    suffix: bytes = b""  # the key's ``keyspace.hashed_part``, taken once at admission
    partition: int = -1  # the table partition that admitted it
    charged: bool = False  # UpdateItem: its statement's size charge is checked before the condition
    fresh: bool = False  # Put without a condition: no item is stored at its key, as its caller
    # proved (an import into the table it created, engine/exports/loader.py): the plan reads no old image

    # --- constructors (the PartiQL translator's entry points) ---------------------------

    @classmethod
    def put(cls, table: Table, item: Item, *, size: int | None = None, **kw: Any) -> Write:
        """Put ``item`` (validated values); ``size``: its size as ``values`` measured it."""
        return cls("Put", table, table.key_for_item(item), item, size=size, **kw)

    @classmethod
    def update_item(cls, table: Table, key: Item, update: Any, **kw: Any) -> Write:
        return cls("Update", table, table.key_for_request(key), key, update=update, **kw)

    @classmethod
    def delete(cls, table: Table, key: Item, **kw: Any) -> Write:
        return cls("Delete", table, table.key_for_request(key), key, **kw)

    @classmethod
    def condition_check(cls, table: Table, key: Item, condition: Condition, **kw: Any) -> Write:
        return cls("ConditionCheck", table, table.key_for_request(key), key, condition=condition, **kw)

    # --- planning -----------------------------------------------------------------------

    def plan(self) -> Mutation | None:
        """Evaluate against the stored item (``Table.plan``): the mutation (None for a
        ConditionCheck), or ConditionalCheckFailedException / ValidationException."""
        kind = self.kind
        if kind == "ConditionCheck":
            _, self.read_size = self.table.check(self.key, self.condition, return_item_on_failure=self.return_old_on_failure)
            return None
        if kind == "Put":
            image, update = self.attrs, None
        elif kind == "Delete":
            image, update = None, None
        else:
            image, update = self.attrs, (KEEP_OR_CREATE if self.update is None else self.update)
        before = self.update.check_charge if self.charged and self.update is not None else None
        m = self.table.plan(
            self.key, image, update, self.condition, return_item_on_failure=self.return_old_on_failure, size=self.size,
            before=before, absent=self.fresh,
        )
        if self.marks:
            m.derived = {**(m.derived or {}), **self.marks}
        self.read_size = m.old_size
        self.mutation = m
        return m


class WriteResult:
    """What ``execute`` did: ``done`` in request order, ``unprocessed`` (on_throttle
    "unprocess"), ``failed`` (service writes whose condition failed), and the
    ConsumedCapacity ``ledger`` when asked (``consumed=True``)."""

    __slots__ = ("done", "unprocessed", "failed", "ledger", "mutations")

    def __init__(self, ledger: CapacityLedger | None = None) -> None:
        self.done: list[Write] = []
        self.mutations: list[Mutation] = []  # of the done writes, for the commit
        self.unprocessed: list[Write] = []
        self.failed: list[Write] = []
        self.ledger = ledger


# --- the loop ----------------------------------------------------------------------------------


def execute(
    db: WriteTarget,
    writes: list[Write],
    *,
    on_throttle: OnThrottle = "raise",
    consumed: bool = False,
    token: tuple[str, bytes] | None = None,
) -> WriteResult:
    """Run ``writes`` through admit -> plan -> charge and commit them in one storage batch.

    ``on_throttle`` is the policy for a refused write (see the module's docstring); with
    ``cancel`` the writes are one transaction, with TransactWriteItems' rules and charges, and
    ``token`` is its ClientRequestToken and request fingerprint (``replay`` first).
    ``consumed`` builds the ConsumedCapacity ledger."""
    now = db.now()
    cancel = on_throttle == "cancel"
    result = WriteResult(CapacityLedger(split=cancel) if consumed else None)
    throttle: errors.DynamoError | None = None
    if cancel:
        try:
            _check_request(writes)
            _run(writes, on_throttle, now, result)  # all or nothing: each step over every action
        except TransactionCanceled:
            if token is not None:  # a cancelled request keeps its token for its own parameters
                db.tokens.remember_cancelled(token[0], token[1], db.now())
            raise
    else:
        for w in writes:  # one by one, as the service processes a batch
            refused = _run((w,), on_throttle, now, result)
            if refused is not None:
                throttle = refused
        if throttle is not None and not result.done:
            # a batch is throttled only when nothing at all could be written, and only then
            # is it a ThrottledRequests (metrics-dimensions.html)
            throttled_requests(w.table.capacity for w in writes)
            raise throttle
    record = None  # the token's record, written in the transaction's own batch (engine.tokens)
    if token is not None:
        sizes = [(w.table_name or w.table.name, max(w.read_size, w.mutation.new_size if w.mutation else 0))
                 for w in writes]  # fmt: skip
        record = db.tokens.record(token[0], token[1], now, completed=True, replay=sizes)
    link = db.replicated  # global tables: MRSC checks before, replication after (engine.replication)
    if link is not None:  # and the backlog entries and applied positions, in the same batch
        record = link.check(result.mutations, on_throttle, now, record)
    db.commit(result.mutations, now, batch=record)  # the one batch: all or nothing
    if link is not None:
        link.written(result.mutations, now)
    return result


def _run(
    group: tuple[Write, ...] | list[Write], policy: OnThrottle, now: float, result: WriteResult
) -> errors.DynamoError | None:
    """Admit, plan, admit on the GSIs and charge one write, or a whole transaction (policy
    ``cancel``: each step over all its actions before the next, a refusal cancelling it).
    Returns the throttle that left the write unprocessed. A single write's refusal (policy
    ``raise``) is one ThrottledRequests of its table, its GSIs' refusals included."""
    metered = policy != "service"
    cancel = policy == "cancel"
    whole = policy == "raise"
    reasons: list[dict[str, Any]] | None = None  # a transaction's, once an action is refused
    if cancel:  # 1. admission by the item's partition on the table: every action, or a cancellation
        for w, p in zip(group, admit_or_cancel(group, now, write=True), strict=True):
            w.suffix, w.partition = keyspace.hashed_part(w.key), p
    elif metered:
        for w in group:
            w.suffix = keyspace.hashed_part(w.key)
            try:
                w.partition = w.table.capacity.admit(w.suffix, now, write=True, whole=whole)
            except errors.DynamoError as e:
                return _leave(policy, e, w, result)
    for w in group:  # 2. the plan: old image, condition, new image, 400 KB, index keys
        try:
            w.plan()
        except errors.DynamoError as e:
            if cancel:
                reasons = _reason(reasons, group, w, failure_reason(e))
            elif not metered:
                result.failed.append(w)
                return None
            else:
                if e.type_name == errors.CONDITIONAL_CHECK_FAILED:
                    _charge_failed_condition(w, now)
                raise
    if reasons is not None:
        raise TransactionCanceled(reasons)
    gsi: list[_IndexCharge] | None = None
    if metered:  # 3. admission by every GSI the writes change
        for w in group:
            m = w.mutation
            if m is None or m.derived is None:
                continue  # no index entry to write (derived: engine.indexes, streams, ttl)
            try:
                charges = _admit_index_writes(w.table, m, now, whole)
                gsi = charges if gsi is None else gsi + charges
            except errors.DynamoError as e:
                if not cancel:
                    w.mutation = None
                    return _leave(policy, e, w, result)
                reasons = _reason(reasons, group, w, throttle_reason(e))
        if reasons is not None:
            raise _throttled([w.table for w in group], reasons)
    for w in group:  # 4. the charges
        if metered:
            _charge(w, now, cancel, result.ledger)
        result.done.append(w)
        if w.mutation is not None:
            result.mutations.append(w.mutation)
    if gsi is not None:
        for cap, state, gp, suffix, units in gsi:
            cap.charge(gp, suffix, now, write=units, state=state)
    return None


def _leave(policy: OnThrottle, e: errors.DynamoError, w: Write, result: WriteResult) -> errors.DynamoError:
    """A write refused by a throttle outside a transaction: the request's error, or in a
    batch (``unprocess``) the write left unprocessed."""
    if policy != "unprocess" or e.type_name not in errors.THROTTLE_ERRORS:
        raise e
    result.unprocessed.append(w)
    return e


def _reason(
    reasons: list[dict[str, Any]] | None, group: Sequence[Any], w: Any, reason: dict[str, Any]
) -> list[dict[str, Any]]:
    """A transaction's cancellation reasons with action ``w``'s set (every other: None)."""
    if reasons is None:
        reasons = [{"Code": "None"} for _ in group]
    reasons[next(i for i, x in enumerate(group) if x is w)] = reason
    return reasons


def _throttled(tables: Sequence[Table], reasons: list[dict[str, Any]]) -> TransactionCanceled:
    """A transaction cancelled by throttles (``tables``: its actions'): one ThrottledRequests
    of each table that refused an action, on the table or one of its GSIs."""
    throttled_requests(t.capacity for t, r in zip(tables, reasons, strict=True) if r["Code"] != "None")
    return TransactionCanceled(reasons)


# (the table's capacity, the GSI's throughput state, its partition, the entry's key suffix, units)
_IndexCharge = tuple[Any, Any, int, bytes, float]


def _admit_index_writes(table: Table, m: Mutation, now: float, whole: bool) -> list[_IndexCharge]:
    """A base-table write also needs capacity on every GSI it changes (GSI.md,
    "Throttling considerations"). Raises the throttling error (``whole``: counting the
    table's ThrottledRequests, ``TableCapacity.admit``), or returns the charges."""
    cap = table.capacity
    charged = []
    for w in indexes.writes_of(m):
        if w.is_global and w.write_h:
            state = cap.index_state(w.index, now)
            ikey = w.new_key if w.new_key is not None else w.old_key
            suffix = keyspace.index_hashed_part(ikey)
            p = cap.admit(suffix, now, write=True, state=state, whole=whole)
            charged.append((cap, state, p, suffix, w.write_h / 2))
    return charged


def _charge(w: Write, now: float, transactional: bool, ledger: CapacityLedger | None) -> None:
    """The table's arm: 1 KB blocks of the larger image (a ConditionCheck: of the item it
    read), doubled in a transaction (transaction-apis.md), plus its LSI units at the plain
    rate, which are the table's own (LSI.md), and its vector index units (``engine.vectors``)."""
    m = w.mutation
    if m is None:
        write_h = capacity.write_units_h(w.read_size, None, transactional=transactional)
        lsi_h = 0
    else:
        if m.derived is None:
            write_h = capacity.write_units_h(m.old_size, m.new_size, transactional=transactional)
            lsi_h = 0
        else:  # vectors are billed at 4 bytes per dimension (engine.vectors.billed_sizes)
            write_h = capacity.write_units_h(*vector_billed_sizes(m), transactional=transactional)
            lsi_h = indexes.lsi_write_units_h(m) + vector_write_units_h(m)
    w.table.capacity.charge(w.partition, w.suffix, now, write=(write_h + lsi_h) / 2)
    if ledger is not None:
        cc = ledger.for_table(w.table_name or w.table.name)
        cc.add_write(write_h)
        if m is not None:  # index arms at the plain rate: only the table's arm doubles
            indexes.charge(cc, m)
            vector_charge(cc, m)  # VectorWriteRequestBytes (engine.vectors)


def _charge_failed_condition(w: Write, now: float) -> None:
    """A failed condition still consumes write capacity, by the existing item's size, at
    least 1 (WorkingWithItems.html, conditional writes)."""
    old = w.table.store.get(w.key)
    units = capacity.write_units(stored_size(old) if old else 0, 0)
    w.table.capacity.charge(w.partition, w.suffix, now, write=units)


# --- transactions ------------------------------------------------------------------------------


def replay(db: WriteTarget, token: str, digest: bytes, consumed: bool) -> WriteResult | None:
    """A repeat of a completed TransactWriteItems within its token's window: success,
    nothing written, and the read units of reading the items (API reference,
    ClientRequestToken); None to run the request. IdempotentParameterMismatchException when
    the token was used with other parameters."""
    entry: TokenEntry | None = db.tokens.check(token, digest, db.now())
    if entry is None:
        return None
    result = WriteResult(CapacityLedger(split=True) if consumed else None)
    if result.ledger is not None:
        for table_name, size in entry.replay:
            result.ledger.for_table(table_name).add_read(capacity.read_units_h(size, True, transactional=True))
    return result


def _check_request(writes: list[Write]) -> None:
    """The first key that does not match its schema cancels; then at most one action per
    item, and the 4 MB aggregate (errors of the whole request)."""
    for i, w in enumerate(writes):
        if w.invalid is not None:
            raise cancellation_at(len(writes), i, w.invalid)
    seen: set[bytes] = set()
    for w in writes:
        if w.key in seen:
            raise errors.validation(MSG_MULTIPLE_OPERATIONS)
        seen.add(w.key)
    if sum(w.request_size for w in writes) > MAX_TRANSACTION_BYTES:
        raise errors.validation(MSG_TRANSACTION_TOO_LARGE)


class Keyed(Protocol):
    """An action of a transaction: a ``Write`` or an ``engine.reads.KeyRead``."""

    table: Table
    key: bytes


def admit_or_cancel(actions: Sequence[Keyed], now: float, *, write: bool) -> list[int]:
    """Admission of every action of a transaction (TransactWriteItems, TransactGetItems) by
    its item's partition, before any is planned or read: the partitions, or a cancellation
    whose throttled actions carry their reason (transaction-apis.md)."""
    parts: list[int] = []
    reasons: list[dict[str, Any]] | None = None
    for a in actions:
        try:
            parts.append(a.table.capacity.admit(keyspace.hashed_part(a.key), now, write=write))
        except errors.DynamoError as e:
            reasons = _reason(reasons, actions, a, throttle_reason(e))
            parts.append(-1)
    if reasons is not None:
        raise _throttled([a.table for a in actions], reasons)
    return parts
