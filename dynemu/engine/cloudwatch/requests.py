"""The per-operation request metrics of one table, by TableName + Operation
(metrics-dimensions.html, "DynamoDB Metrics" and "Dimensions for DynamoDB Metrics"):

* SuccessfulRequestLatency (Milliseconds): each successful request's latency. dynemu measures
  its own server-side time of the request with a monotonic performance counter, from the
  operation's start (its body parsed and validated) to its answer built, so neither the
  network nor the client is in it, as DynamoDB's "reflects activity only within DynamoDB";
* ReturnedItemCount (Count): the items each Query or Scan returned (its ``Count``: after the
  filter, not the items evaluated), one sample per request;
* ThrottledRequests (Count): the requests refused as a whole (the executors count them on
  the table's capacity state; here they are split by operation);
* SystemErrors (Count): the requests answered with an HTTP 500;
* ConditionalCheckFailedRequests (Count, by TableName alone): the writes refused with
  ConditionalCheckFailedException ("If this condition evaluates to false,
  ConditionalCheckFailedRequests is incremented by one"), kept per operation here and served
  as the table's sum. # UNSURE: a transaction cancelled by a condition is not counted (the
  doc names PutItem, UpdateItem and DeleteItem; a PartiQL write's refusal is the same error
  and is counted).

Operations counted: GetItem, PutItem, UpdateItem, DeleteItem, Query, Scan, BatchGetItem,
BatchWriteItem, TransactGetItems, TransactWriteItems, and PartiQL's ExecuteStatement,
BatchExecuteStatement and ExecuteTransaction (a batch or a transaction counts once on each
table it names; a statement's table is read from its parse, which the operation made and
the parser's cache keeps; a statement that does not parse names no table).

The request path only adds to counters kept per table and operation, preallocated (one list
per operation slot): no object is made per request. The clock's tick (the table's maintenance,
at most once per clock second with traffic; each advance of a virtual clock; a read) closes a
minute that is over into a ring of packed rows, one per operation active that minute: DynamoDB's metrics are one-minute metrics in CloudWatch, so
these are kept per minute only, for ``MINUTE_KEEP`` minutes and at most ``ROW_KEEP`` rows per
table (about 4.1 MB), freed with the table.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from math import inf
from typing import Any

from dynemu import errors
from dynemu.engine.capacity.retention import MINUTE_KEEP, Ring

OPERATIONS = (
    "GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan",
    "BatchGetItem", "BatchWriteItem", "TransactGetItems", "TransactWriteItems",
    "ExecuteStatement", "BatchExecuteStatement", "ExecuteTransaction",
)  # fmt: skip
_STATEMENTS = {"ExecuteStatement": None, "BatchExecuteStatement": "Statements", "ExecuteTransaction": "TransactStatements"}
SLOT = {name: i for i, name in enumerate(OPERATIONS)}
RETURNS_ITEMS = ("Query", "Scan")  # ReturnedItemCount: "items returned by Query or Scan operations"
ROW_KEEP = 43_200  # 15 days of three operations active every minute
# a row: minute, slot, then an operation's counters: requests, latency sum, min, max, items
# sum, min, max, throttled requests, system errors, conditional checks failed
WIDTH = 12
# each metric's (Sum, SampleCount, Minimum, Maximum) in a row; a count's samples are its
# requests, each of value 1  # UNSURE: DynamoDB's own sample shape for these counts is not documented
FIELDS = {"SuccessfulRequestLatency": (3, 2, 4, 5), "ReturnedItemCount": (6, 2, 7, 8), "ThrottledRequests": (9,),
          "SystemErrors": (10,), "ConditionalCheckFailedRequests": (11,)}  # fmt: skip


def aggregate(metric: str, row: Sequence[float]) -> tuple[float, float, float, float] | None:
    """One metric's (Sum, SampleCount, Minimum, Maximum) in a minute's row (None: no sample)."""
    f = FIELDS[metric]
    if len(f) == 1:
        n = row[f[0]]
        return (n, n, 1.0, 1.0) if n else None
    if not row[2]:
        return None
    return row[f[0]], row[f[1]], row[f[2]], row[f[3]]


_EMPTY = (0.0, 0.0, inf, -inf, 0.0, inf, -inf, 0.0, 0.0, 0.0)  # an operation's counters of a minute


class RequestCounters:
    """One table's counters of the open minute, one list per operation slot (``_EMPTY``'s
    layout), and its closed minutes (``rows``)."""

    __slots__ = ("minute", "slots", "seen", "rows")

    def __init__(self, now: float) -> None:
        second = int(now)
        self.minute = second - second % 60  # the open minute: the requests since the last tick
        self.slots = [list(_EMPTY) for _ in OPERATIONS]
        self.seen = 0  # the table's ThrottledRequests already split by operation
        self.rows = Ring(WIDTH, ROW_KEEP)

    def tick(self, now: float) -> None:
        """On the clock's tick (the table's maintenance, an advance, a read): once the open
        minute is over, close it into a row per operation that had requests."""
        second = int(now)
        minute = second - second % 60
        if minute == self.minute:
            return
        for i, acc in enumerate(self.slots):
            if acc[0] or acc[7] or acc[8] or acc[9]:
                self.rows.append((float(self.minute), float(i), *acc))
                acc[:] = _EMPTY
        self.minute = minute

    def minutes(self, now: float, start: int) -> Iterator[Sequence[float]]:
        """The rows of the minutes from ``start`` on (the open one's included)."""
        self.tick(now)
        yield from self.rows.since(max(start, int(now) - MINUTE_KEEP * 60))
        if self.minute >= start:
            for i, acc in enumerate(self.slots):
                if acc[0] or acc[7] or acc[8] or acc[9]:
                    yield (float(self.minute), float(i), *acc)


def _table(db: Any, name: Any) -> Any:
    table = db.tables.get(name)
    if table is None and type(name) is str:
        table = db.lookup(name)  # a table's ARN
    return table


def _statement_table(statement: Any) -> str | None:
    """The table a PartiQL statement names (None: not a statement that parses)."""
    from dynemu.engine.partiql import ast, parser

    if type(statement) is not str:
        return None
    try:
        return ast.table_of(parser.parse(statement).statement)
    except errors.DynamoError:
        return None


def _names(operation: str) -> Callable[[dict[str, Any]], Sequence[Any]]:
    """The table names a request of ``operation`` names (a batch's or transaction's, each once)."""
    if operation in _STATEMENTS:
        member = _STATEMENTS[operation]
        if member is None:
            return lambda body: (_statement_table(body.get("Statement")),)
        return lambda body: list(dict.fromkeys(
            _statement_table(s.get("Statement")) for s in body.get(member) or () if type(s) is dict))  # fmt: skip
    if operation.startswith("Batch"):
        return lambda body: list(body.get("RequestItems") or ())
    if operation.startswith("Transact"):
        return lambda body: list(dict.fromkeys(
            a.get("TableName") for item in body.get("TransactItems") or () if type(item) is dict
            for a in item.values() if type(a) is dict))  # fmt: skip
    return lambda body: (body.get("TableName"),)


class Recorder:
    """What the registry calls around one data-plane operation's handler: ``ok`` after its
    answer (the hot path: one table lookup and a few additions to the open minute's counters,
    which the clock's tick closes: a successful request was charged, and the charge ran the
    tick of its second), ``failed`` after an error (it reads the clock: a throttled request
    was not charged)."""

    __slots__ = ("ok", "failed")

    def __init__(self, operation: str) -> None:
        slot = SLOT[operation]
        names = _names(operation)
        returns = operation in RETURNS_ITEMS  # single-table operations only

        def ok(db: Any, body: dict[str, Any], out: dict[str, Any], seconds: float) -> None:
            ms = seconds * 1000.0
            for name in names(body):
                table = db.tables.get(name)
                if table is None:
                    table = _table(db, name)
                    if table is None:
                        continue
                acc = table.capacity.requests.slots[slot]
                acc[0] += 1.0
                acc[1] += ms
                if ms < acc[2]:
                    acc[2] = ms
                if ms > acc[3]:
                    acc[3] = ms
                if returns:
                    k = float(out.get("Count", 0))
                    acc[4] += k
                    if k < acc[5]:
                        acc[5] = k
                    if k > acc[6]:
                        acc[6] = k

        def failed(db: Any, body: dict[str, Any], error: BaseException) -> None:
            system = getattr(error, "status", 500) >= 500  # a DynamoError's status; any other: a 500
            now = db.now()
            for name in names(body):
                table = _table(db, name)
                if table is None:
                    continue
                c = table.capacity.requests
                c.tick(now)
                acc = c.slots[slot]
                total = table.capacity.state.throttled_requests
                acc[7] += max(0, total - c.seen)  # the request's own, counted by the executors
                c.seen = total
                if system:
                    acc[8] += 1.0
                elif getattr(error, "type_name", None) == errors.CONDITIONAL_CHECK_FAILED:
                    acc[9] += 1.0

        self.ok = ok
        self.failed = failed


def recorder(operation: str) -> Recorder | None:
    """The recorder of a data-plane operation that has per-operation metrics, else None."""
    return Recorder(operation) if operation in SLOT else None
