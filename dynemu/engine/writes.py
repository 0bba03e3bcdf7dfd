"""The one write executor: every item write of every operation goes through ``execute``.

PutItem, UpdateItem and DeleteItem (``on_throttle="raise"``), BatchWriteItem
(``"unprocess"``), TransactWriteItems (``"cancel"``, ``transactional=True``), PartiQL
statements and the TTL sweeper (``service=True``) hand it already parsed and keyed
``Write``s. It owns, in this order:

1. admission of each write by its item's partition on the table (``TableCapacity.check``);
2. planning (``Table.plan``: old image, condition, new image, 400 KB, index keys) and
   ConditionCheck (``Table.check``);
3. admission by every GSI the write changes: an under-provisioned GSI throttles the table's
   writes (GSI.md, "Throttling considerations");
4. the charges: 1 KB blocks of the larger image (x2 in a transaction), plus LSI units,
   which are the table's own write capacity (LSI.md); GSI units to the GSI's capacity;
   a failed condition of a single write still consumes the old item's units ("Write
   capacity unit consumption"). The units rules are ``dynemu.engine.capacity.units``;
5. the one ``Namespace.commit`` of all the mutations, in one storage batch;
6. the ConsumedCapacity ledger and, for transactions, the idempotency token.

What happens on a throttle depends on the operation (API reference): a single write
raises it; a batch leaves the write unprocessed and raises only when nothing at all could
be written; a transaction is cancelled whole, each refused action carrying its reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from dynemu import errors
from dynemu.engine import capacity, indexes
from dynemu.engine.cancellation import (
    THROTTLE_ERRORS,
    TransactionCanceled,
    cancel_one,
    failure_reason,
    throttle_reason,
)
from dynemu.engine.capacity import CapacityLedger
from dynemu.engine.expressions.update import Update
from dynemu.engine.schema import Item
from dynemu.engine.table import Apply, Condition, Mutation, Table, stored_size
from dynemu.engine.tokens import TokenEntry
from dynemu.storage import keyspace

if TYPE_CHECKING:
    from dynemu.engine.namespace import Namespace

OnThrottle = Literal["raise", "unprocess", "cancel"]

MAX_TRANSACTION_BYTES = 4 * 1024 * 1024  # "The aggregate size of the items in the transaction cannot exceed 4 MB"
MSG_ITEM_SIZE = "Item size has exceeded the maximum allowed size"
MSG_UPDATE_SIZE = "Item size to update has exceeded the maximum allowed size"
# The multiple-operations message is quoted by AWS's knowledge-center article "Why is my
# TransactWriteItems API call failing"; the 4 MB message is dynoxide's, checked against the
# service by its conformance suite.
MSG_MULTIPLE_OPERATIONS = "Transaction request cannot include multiple operations on one item"
MSG_TOO_LARGE = (
    "Collection size of items exceeded, which can also be caused by the aggregate size of the items in the "
    "transaction exceeding the 4MB limit"
)


@dataclass(slots=True)
class Write:
    """One item write, parsed and keyed. Build it with ``put`` / ``update`` / ``delete`` /
    ``condition_check``; ``execute`` fills ``mutation`` (None for a ConditionCheck)."""

    kind: str  # "Put" | "Update" | "Delete" | "ConditionCheck"
    table: Table
    key: bytes  # the storage key (Table.key_for_item / key_for_request)
    attrs: Item  # Put: the item; otherwise the key attributes
    size: int | None = None  # Put: the item's size when the caller measured (and checked) it
    update: Any = None  # Update: ``apply(old, key) -> (new or None, touched)`` (engine.expressions.Update);
    # None creates the item with its key only
    condition: Condition | None = None
    return_old_on_failure: bool = False  # ReturnValuesOnConditionCheckFailure ALL_OLD
    table_name: str = ""  # as the request named it (may be an ARN): ConsumedCapacity's TableName; "": the table's name
    request_size: int = 0  # transactions: this action's share of the 4 MB aggregate
    invalid: str | None = None  # transactions: the key does not match the schema (cancels)
    marks: dict[str, Any] | None = None  # added to Mutation.derived (the TTL sweeper's deletes)
    request: Any = None  # opaque: what the caller wants back for an unprocessed write
    mutation: Mutation | None = None
    read_size: int = 0  # the stored item's size (ConditionCheck: what it read)

    # --- constructors (the PartiQL translator's entry points) ---------------------------

    @classmethod
    def put(cls, table: Table, item: Item, *, size: int | None = None, **kw: Any) -> Write:
        """Put ``item`` (validated values); ``size``: its DynamoDB size, already checked
        against 400 KB."""
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

    def _apply(self) -> Apply:
        if self.kind == "Delete":
            return _delete
        update, key_attrs = self.update, self.attrs
        if update is None:  # no update: DynamoDB still creates the item with just its key
            return lambda old: dict(old) if old is not None else dict(key_attrs)
        return lambda old: update.apply(old, key_attrs)[0]

    def plan(self) -> Mutation | None:
        """Evaluate against the stored item: the mutation (None for a ConditionCheck), or
        ConditionalCheckFailedException / ValidationException."""
        table = self.table
        kind = self.kind
        if kind == "Put":
            m = table.plan_put(
                self.key, self.attrs, self.size, self.condition, return_item_on_failure=self.return_old_on_failure
            )
        elif kind == "ConditionCheck":
            _, self.read_size = table.check(self.key, self.condition, return_item_on_failure=self.return_old_on_failure)
            return None
        else:
            m = self._plan_other()
        if self.marks:
            m.derived = {**(m.derived or {}), **self.marks}
        self.read_size = m.old_size
        self.mutation = m
        return m

    def _plan_other(self) -> Mutation:
        """``plan`` of an Update or a Delete (a Put: ``Table.plan_put``)."""
        if type(self.update) is Update:
            return self.table.plan_update(
                self.key, self.update, self.attrs, self.condition, return_item_on_failure=self.return_old_on_failure,
                size_error=MSG_UPDATE_SIZE,
            )  # fmt: skip
        return self.table.plan(
            self.key,
            self._apply(),
            self.condition,
            return_item_on_failure=self.return_old_on_failure,
            size_error=MSG_UPDATE_SIZE if self.kind == "Update" else MSG_ITEM_SIZE,
            blind=self.kind != "Update",
        )


def _delete(old: Item | None) -> None:
    return None


class WriteResult:
    """What ``execute`` did: ``done`` in request order, ``unprocessed`` (on_throttle
    "unprocess"), ``failed`` (service writes whose condition failed), and the
    ConsumedCapacity ``ledger`` when asked (``consumed=True``)."""

    __slots__ = ("done", "unprocessed", "failed", "ledger")

    def __init__(
        self,
        done: list[Write] | None = None,
        unprocessed: list[Write] | None = None,
        failed: list[Write] | None = None,
        ledger: CapacityLedger | None = None,
    ) -> None:
        self.done = [] if done is None else done
        self.unprocessed = [] if unprocessed is None else unprocessed
        self.failed = [] if failed is None else failed
        self.ledger = ledger


# (GSI throughput state, its partition, the entry's key suffix, units)
_IndexCharge = tuple[Any, int, bytes, float]


def admit_index_writes(table: Table, m: Mutation, now: float) -> list[_IndexCharge]:
    """A base-table write also needs capacity on every GSI it changes (GSI.md,
    "Throttling considerations"). Raises the throttling error, or returns the charges."""
    cap = table.capacity
    charged = []
    for w in indexes.writes_of(m):
        if w.is_global and w.write_h:
            state = cap.index_state(w.index, now)
            ikey = w.new_key if w.new_key is not None else w.old_key
            suffix = keyspace.index_hashed_part(ikey)
            charged.append((state, cap.check_index(state, suffix, now, write=True), suffix, w.write_h / 2))
    return charged


def _debit_index_writes(charged: list[_IndexCharge], now: float) -> None:
    for state, gp, suffix, units in charged:
        state.debit(gp, 0.0, units, now, suffix)


def _table_write_h(w: Write, transactional: bool) -> int:
    """The table arm of a write: 1 KB blocks of the larger image (a ConditionCheck: of the
    item it read), doubled in a transaction (transaction-apis.md)."""
    m = w.mutation
    if m is None:
        return capacity.write_units_h(w.read_size, None, transactional=transactional)
    return capacity.write_units_h(m.old_size, m.new_size, transactional=transactional)


def _record(ledger: CapacityLedger | None, w: Write, write_h: int) -> None:
    if ledger is not None:
        cc = ledger.for_table(w.table_name or w.table.name)
        cc.add_write(write_h)
        if w.mutation is not None:  # index arms at the plain rate: only the table's arm doubles
            indexes.charge(cc, w.mutation)


# --- the entry point ---------------------------------------------------------------------------


def execute(
    db: Namespace,
    writes: list[Write],
    *,
    on_throttle: OnThrottle = "raise",
    transactional: bool = False,
    consumed: bool = False,
    token: tuple[str, bytes] | None = None,
    service: bool = False,
) -> WriteResult:
    """Run ``writes`` and commit them in one storage batch.

    ``on_throttle``: ``raise`` the throttling error (single writes), ``unprocess`` the
    throttled writes (BatchWriteItem; raises only when none was written), or ``cancel``
    the whole transaction. ``transactional`` is all-or-nothing with TransactWriteItems'
    rules and charges; ``token`` is its ClientRequestToken and request fingerprint
    (``replay`` first). ``consumed`` builds the ConsumedCapacity ledger. ``service``
    writes (TTL deletes) consume no capacity, and a failed condition skips the write."""
    if service:
        return _service(db, writes)
    if transactional:
        return _transaction(db, writes, consumed, token)
    if on_throttle == "raise" and len(writes) == 1:
        return single(db, writes[0], consumed)
    return _one_by_one(db, writes, on_throttle, consumed)


def single(db: Namespace, w: Write, consumed: bool) -> WriteResult:
    """``_one_by_one`` of one write whose throttle is the request's error (PutItem,
    UpdateItem, DeleteItem): the same steps in the same order, with the key's partition
    suffix taken once and the commit's time the request's."""
    table, key = w.table, w.key
    cap = table.capacity
    suffix = keyspace.hashed_part(key)
    now = db.now()
    p = cap.check_write(suffix, now)
    m = _plan_charged(w, p, now)
    write_h = capacity.write_units_h(m.old_size, m.new_size)
    if m.derived is None:  # no index entry to write (derived: engine.indexes, streams, ttl)
        cap.debit_write(p, suffix, now, write_h / 2)
    else:
        gsi_charges = admit_index_writes(table, m, now)
        # LSI writes consume the table's own write capacity (LSI.md).
        cap.debit(p, key, now, write=(write_h + indexes.lsi_write_units_h(m)) / 2)
        _debit_index_writes(gsi_charges, now)
    ledger = None
    if consumed:
        ledger = CapacityLedger()
        _record(ledger, w, write_h)
    db.commit_one(m, now)
    return WriteResult([w], ledger=ledger)


def _plan_charged(w: Write, p: Any, now: float) -> Mutation:
    """``w.plan()``, admitted on partition ``p``. A failed condition still consumes write
    capacity, by the existing item's size, at least 1 (WorkingWithItems.html, conditional writes)."""
    try:
        m = w.plan()
    except errors.DynamoError as err:
        if err.type_name == "ConditionalCheckFailedException":
            old = w.table.store.get(w.key)
            w.table.capacity.debit(p, w.key, now, write=capacity.write_units(stored_size(old) if old else 0, 0))
        raise
    assert m is not None
    return m


def _service(db: Namespace, writes: list[Write]) -> WriteResult:
    result = WriteResult()
    for w in writes:
        try:
            w.plan()
        except errors.DynamoError:
            result.failed.append(w)
            continue
        result.done.append(w)
    db.commit([w.mutation for w in result.done if w.mutation is not None])
    return result


def _one_by_one(db: Namespace, writes: list[Write], on_throttle: OnThrottle, consumed: bool) -> WriteResult:
    """Single writes and BatchWriteItem: each write admitted, planned and charged on its own
    (the service processes a batch item by item)."""
    result = WriteResult(ledger=CapacityLedger() if consumed else None)
    throttle: errors.DynamoError | None = None
    now = db.now()
    for w in writes:
        table, key = w.table, w.key
        cap = table.capacity
        suffix = keyspace.hashed_part(key)
        try:
            p = cap.check_write(suffix, now)
        except errors.DynamoError as e:
            if on_throttle != "unprocess" or e.type_name not in THROTTLE_ERRORS:
                raise
            throttle = e
            result.unprocessed.append(w)
            continue
        m = _plan_charged(w, p, now)
        write_h = capacity.write_units_h(m.old_size, m.new_size)
        if m.derived is None:  # no index entry to write (derived: engine.indexes, streams, ttl)
            cap.debit_write(p, suffix, now, write_h / 2)
        else:
            try:
                gsi_charges = admit_index_writes(table, m, now)
            except errors.DynamoError as e:
                if on_throttle != "unprocess" or e.type_name not in THROTTLE_ERRORS:
                    raise
                throttle = e
                w.mutation = None
                result.unprocessed.append(w)
                continue
            # LSI writes consume the table's own write capacity (LSI.md).
            cap.debit(p, key, now, write=(write_h + indexes.lsi_write_units_h(m)) / 2)
            _debit_index_writes(gsi_charges, now)
        if result.ledger is not None:
            _record(result.ledger, w, write_h)
        result.done.append(w)
    if throttle is not None and not result.done:
        raise throttle  # throttled only when nothing at all could be written
    db.commit([w.mutation for w in result.done if w.mutation is not None])
    return result


# --- transactions ------------------------------------------------------------------------------


def replay(db: Namespace, token: str, digest: bytes, consumed: bool) -> WriteResult | None:
    """A repeat of a completed TransactWriteItems within its token's window: success,
    nothing written, and the read units of reading the items (API reference,
    ClientRequestToken); None to run the request. IdempotentParameterMismatchException when
    the token was used with other parameters."""
    entry: TokenEntry | None = db.tokens.check(token, digest, db.now())
    if entry is None:
        return None
    result = WriteResult(ledger=CapacityLedger(split=True) if consumed else None)
    if result.ledger is not None:
        for table_name, size in entry.replay:
            result.ledger.for_table(table_name).add_read(capacity.read_units_h(size, True, transactional=True))
    return result


def _transaction(
    db: Namespace, writes: list[Write], consumed: bool, token: tuple[str, bytes] | None
) -> WriteResult:
    try:
        now = db.now()
        _check_request(writes)
        parts = admit_or_cancel([(w.table, w.key) for w in writes], now, write=True)
        _plan_or_cancel(writes)
        gsi_charges = _admit_indexes(writes, now)
    except TransactionCanceled:
        if token is not None:  # a cancelled request keeps its token for its own parameters
            db.tokens.remember_cancelled(token[0], token[1], db.now())
        raise
    result = WriteResult(done=list(writes), ledger=CapacityLedger(split=True) if consumed else None)
    for w, p in zip(writes, parts, strict=True):
        write_h = _table_write_h(w, True)
        # LSI units are the table's, at the plain rate, as in a single write (LSI.md).
        lsi_h = indexes.lsi_write_units_h(w.mutation) if w.mutation is not None else 0
        w.table.capacity.debit(p, w.key, now, write=(write_h + lsi_h) / 2)
        _record(result.ledger, w, write_h)
    _debit_index_writes(gsi_charges, now)
    record = None  # the token's record, written in the transaction's own batch (engine.tokens)
    if token is not None:
        sizes = [(w.table_name or w.table.name, max(w.read_size, w.mutation.new_size if w.mutation else 0)) for w in writes]
        record = db.tokens.record(token[0], token[1], now, completed=True, replay=sizes)
    db.commit([w.mutation for w in writes if w.mutation is not None], batch=record)  # the one batch: all or nothing
    return result


def _check_request(writes: list[Write]) -> None:
    """The first key that does not match its schema cancels; then at most one action per
    item, and the 4 MB aggregate (errors of the whole request)."""
    for i, w in enumerate(writes):
        if w.invalid is not None:
            raise cancel_one(len(writes), i, w.invalid)
    seen: set[bytes] = set()
    for w in writes:
        if w.key in seen:
            raise errors.validation(MSG_MULTIPLE_OPERATIONS)
        seen.add(w.key)
    if sum(w.request_size for w in writes) > MAX_TRANSACTION_BYTES:
        raise errors.validation(MSG_TOO_LARGE)


def admit_or_cancel(targets: list[tuple[Table, bytes]], now: float, *, write: bool) -> list[int]:
    """Admission of every action of a transaction by its item's partition: the partitions,
    or a cancellation whose throttled actions carry their reason (transaction-apis.md)."""
    parts: list[int] = []
    reasons: list[dict[str, Any]] = []
    throttled = False
    for table, key in targets:
        try:
            parts.append(table.capacity.check(key, now, write=write))
            reasons.append({"Code": "None"})
        except errors.DynamoError as e:
            reasons.append(throttle_reason(e))
            parts.append(-1)
            throttled = True
    if throttled:
        raise TransactionCanceled(reasons)
    return parts


def _plan_or_cancel(writes: list[Write]) -> None:
    """Evaluate every action; a failed condition or an error found while applying one (an
    item grown past 400 KB, an operand of the wrong type) cancels the whole transaction."""
    reasons: list[dict[str, Any]] = []
    failed = False
    for w in writes:
        try:
            w.plan()
        except errors.DynamoError as e:
            reasons.append(failure_reason(e))
            failed = True
            continue
        reasons.append({"Code": "None"})
    if failed:
        raise TransactionCanceled(reasons)


def _admit_indexes(writes: list[Write], now: float) -> list[_IndexCharge]:
    """Every GSI the transaction writes must admit it too; a refusal cancels the whole
    transaction, the refused actions carrying the GSI's throttling reason."""
    charges: list[_IndexCharge] = []
    reasons: list[dict[str, Any]] = [{"Code": "None"} for _ in writes]
    throttled = False
    for i, w in enumerate(writes):
        if w.mutation is None:
            continue
        try:
            charges.extend(admit_index_writes(w.table, w.mutation, now))
        except errors.DynamoError as e:
            reasons[i] = throttle_reason(e)
            throttled = True
    if throttled:
        raise TransactionCanceled(reasons)
    return charges
