"""``--log-requests [FILE]``: one line per DynamoDB API request.

Each line gives the time (the server's clock, UTC), the region, the operation, the table (the
tables of a batch or transaction, comma-separated; "-" when the request names none, as a
PartiQL statement), the HTTP status, the error type ("-" on success), the capacity units
consumed (read and write, tables and indexes together) and the milliseconds spent. Without
FILE the lines go to stderr as text; with FILE they are appended to it as JSON lines.

Off, it costs nothing: the dispatcher's ``handle`` is replaced by ``RequestLog.wrap``'s at
start-up only when the flag is given. The units are read from the capacity model's own
counters (``ThroughputState.consumed_total``, which every charge adds to and the Prometheus
view reports): the sum over the namespace's tables and indexes after the request less the sum
before, so there is no second accounting path.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from time import perf_counter
from typing import IO, Any

import orjson

from dynemu import errors
from dynemu.engine.namespace import Namespace
from dynemu.engine.namespaces import Namespaces

STDERR = "-"  # --log-requests without FILE


def consumed(db: Namespace | None) -> tuple[float, float]:
    """Read and write units the capacity model has charged to every table and index of ``db``."""
    r = w = 0.0
    if db is not None:
        for table in db.tables.values():
            cap = table.capacity
            r += cap.state.consumed_total[0]
            w += cap.state.consumed_total[1]
            for state in cap.index_states.values():
                r += state.consumed_total[0]
                w += state.consumed_total[1]
    return r, w


def tables_of(body: bytes) -> str:
    """The table (or tables) a request body names; "-" when it names none or is unreadable."""
    try:
        data = orjson.loads(body)
    except orjson.JSONDecodeError:
        return "-"
    if not isinstance(data, dict):
        return "-"
    name = data.get("TableName")
    if isinstance(name, str):
        return name
    names: list[str] = []
    items = data.get("RequestItems")
    if isinstance(items, dict):
        names = list(items)
    for entry in data.get("TransactItems") or ():
        for op in entry.values() if isinstance(entry, dict) else ():
            t = op.get("TableName") if isinstance(op, dict) else None
            if isinstance(t, str) and t not in names:
                names.append(t)
    return ",".join(names) or "-"


def error_type(reply: Any) -> str:
    """The error type of a reply (protocol.Reply), "-" for a success."""
    if reply.status < 400 or not reply.body:
        return "-"
    try:
        kind = orjson.loads(reply.body).get("__type", "")
    except (orjson.JSONDecodeError, AttributeError):
        return "-"
    return str(kind).rpartition("#")[2] or "-"


class RequestLog:
    """Writes one line per request to ``target`` (a file name, or ``STDERR``);
    ``credential_of(Authorization header)`` is (access key, region), as the dispatcher reads it."""

    def __init__(self, target: str, namespaces: Namespaces,
                 credential_of: Callable[[str], tuple[str, str]]) -> None:  # fmt: skip
        self.namespaces = namespaces
        self.credential_of = credential_of
        self.json = target != STDERR
        try:
            self._out: IO[str] = open(target, "a", buffering=1, encoding="utf-8") if self.json else sys.stderr  # noqa: SIM115
        except OSError as e:
            from dynemu.config import SettingsError

            raise SettingsError(errors.MSG_LOG_REQUESTS_FILE.format(path=target, reason=e.strerror)) from None

    def close(self) -> None:
        if self.json:
            self._out.close()

    def wrap(self, handle: Callable[[Any], Any]) -> Callable[[Any], Any]:
        """``handle`` (the dispatcher's: a protocol.Request in, a Reply out), logging each
        request it answers."""

        def logged(request: Any) -> Any:
            headers = request.headers
            access_key, region = self.credential_of(headers.get("authorization") or "")
            db = self._open_namespace(region, access_key)
            before = consumed(db)
            started = perf_counter()
            reply = handle(request)
            ms = (perf_counter() - started) * 1000.0
            after = consumed(db or self._open_namespace(region, access_key))
            operation = (headers.get("x-amz-target") or "").rpartition(".")[2] or "-"
            self.write(region, operation, tables_of(request.body), reply, after[0] - before[0],
                       after[1] - before[1], ms)  # fmt: skip
            return reply

        return logged

    def _open_namespace(self, region: str, access_key: str) -> Namespace | None:
        """The request's namespace if it is open (never opened for the log's sake)."""
        try:
            return self.namespaces.databases.get(self.namespaces.name_of(region, access_key))
        except errors.DynamoError:
            return None

    def write(self, region: str, operation: str, table: str, reply: Any, read: float, write: float,
              ms: float) -> None:  # fmt: skip
        now = self.namespaces.clock.now()
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(now)) + f".{int(now % 1 * 1000):03d}Z"
        err = error_type(reply)
        if self.json:
            line = orjson.dumps({"time": stamp, "region": region, "operation": operation, "table": table,
                                 "status": reply.status, "error": None if err == "-" else err,
                                 "read_units": round(read, 3), "write_units": round(write, 3),
                                 "ms": round(ms, 3)}).decode()  # fmt: skip
        else:
            line = (f"{stamp} {region} {operation} {table} {reply.status} {err} "
                    f"read={read:g} write={write:g} {ms:.2f}ms")  # fmt: skip
        self._out.write(line + "\n")
