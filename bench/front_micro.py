"""The HTTP connection's own cost per request: the benchmark's raw HTTP/1.1 request bytes fed to
``http.Connection.data_received`` in-process (a fake transport, no sockets, no event loop),
timed in CPU time (``time.process_time``). Three figures per operation:

- ``full``: the whole request, llhttp's framing to answer bytes (connection + dispatcher +
  operation);
- ``front``: the same with ``ApiDispatcher._dispatch`` stubbed to return the answer a real
  call gave, so what is left is the framing, the dispatcher's wrapper (authentication,
  metrics, request id, crc32, headers) and the render: the cost outside ``_dispatch``;
- ``dispatch``: ``ApiDispatcher._dispatch`` alone on the same requests (as ``dispatch_micro.py``).

    python bench/front_micro.py [--count 20000] [--ops GetItem,PutItem,...] [--modes full,front,dispatch]
    python bench/front_micro.py --profile GetItem [--modes front]   # cProfile instead of timing

The event loop and the socket calls are not in these figures (``throughput.py`` has them).
For differences of a few percent on a shared machine, count instructions: run it under
``valgrind --tool=callgrind`` with ``--rounds 1 --modes front`` at two ``--count`` values and
divide the difference of the totals by the difference of the counts (bench/README.md).
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import random
import sys
import time
from collections.abc import Callable
from typing import Any

import orjson
from harness import REPO_DIR
from workload import (
    DEFAULT_TABLE,
    OPERATIONS,
    QUERY_ITEMS_PER_KEY,
    QUERY_TABLE,
    TARGET_PREFIX,
    build_requests,
    http_request,
    make_item,
    query_item,
    table_definition,
)

sys.path.insert(0, str(REPO_DIR))

from dynemu.api import http  # noqa: E402
from dynemu.api.protocol import ApiDispatcher  # noqa: E402
from dynemu.api.service import Service  # noqa: E402
from dynemu.config import load_settings  # noqa: E402

HOST, PORT = "localhost", 8000


class Transport:
    """What a Connection calls on its transport; keeps the last answer for the sanity check."""

    def __init__(self) -> None:
        self.last = b""

    def write(self, data: bytes) -> None:
        self.last = data

    def close(self) -> None:
        raise AssertionError("the benchmark's connection was closed")

    abort = close

    def is_closing(self) -> bool:
        return False


class Listener:
    """What a Connection reads from its HttpListener; its outbox writes when ``turn`` is called,
    as the event loop's end of a turn would."""

    def __init__(self, dispatcher: ApiDispatcher) -> None:
        self.dispatcher = dispatcher
        self.connections: set[Any] = set()
        self._due: list[Any] = []
        self.outbox = http.Outbox(self._due.append)

    def turn(self) -> None:
        for callback in self._due:
            callback()
        self._due.clear()


def connect(protocol: ApiDispatcher) -> tuple[Callable[[bytes], None], Transport]:
    """A connection's ``feed``: bytes received in one turn of the loop, and that turn's end."""
    listener = Listener(protocol)
    conn = http.Connection(listener)  # type: ignore[arg-type]
    transport = Transport()
    conn.connection_made(transport)  # type: ignore[arg-type]
    received, turn = conn.data_received, listener.turn

    def feed(data: bytes) -> None:
        received(data)
        turn()

    return feed, transport


def send(feed: Callable[[bytes], None], transport: Transport, op: str, body: dict[str, Any]) -> bytes:
    feed(http_request(HOST, PORT, TARGET_PREFIX + op, orjson.dumps(body)))
    if not transport.last.startswith(b"HTTP/1.1 200 "):
        raise SystemExit(f"{op} was not answered 200:\n{transport.last[:600]!r}")
    return transport.last


def setup(keys: int, query: bool, extra: list[str] | None = None) -> ApiDispatcher:
    """A server in memory with throttling off (and ``extra`` flags), filled through the front
    end itself."""
    service = Service(load_settings(["--in-memory", "--throttling", "off", *(extra or [])]))
    feed, transport = connect(service.dispatcher)
    send(feed, transport, "CreateTable", table_definition(DEFAULT_TABLE, None))
    send(feed, transport, "CreateTable", table_definition(QUERY_TABLE, None, sort_key=True))
    rng = random.Random(1)
    for i in range(keys):
        send(feed, transport, "PutItem", {"TableName": DEFAULT_TABLE, "Item": make_item(i, rng)})
    for p in range(min(keys, 100) if query else 0):  # requests read key i % 100
        for s in range(QUERY_ITEMS_PER_KEY):
            send(feed, transport, "PutItem", {"TableName": QUERY_TABLE, "Item": query_item(p, s, rng)})
    return service.dispatcher


def requests_for(op: str, keys: int, count: int) -> list[bytes]:
    table = QUERY_TABLE if op == "Query" else DEFAULT_TABLE
    reqs = build_requests(HOST, PORT, op, table, keys, 1)
    random.Random(2).shuffle(reqs)
    return reqs[: min(count, 2000)]


def run(fn: Any, n: int, rounds: int) -> list[float]:
    best: list[float] = []
    for _ in range(rounds):
        t0 = time.process_time()
        fn(n)
        best.append((time.process_time() - t0) / n * 1e6)
    return best


def measure(protocol: ApiDispatcher, op: str, mode: str, reqs: list[bytes], n: int, rounds: int,
            profile: bool, top: int) -> None:
    feed, transport = connect(protocol)
    real = protocol._dispatch
    answers: list[Any] = []
    calls: list[tuple[Any, bytes]] = []

    def record(request: Any, raw: bytes) -> Any:
        calls.append((request, raw))
        answers.append(real(request, raw))
        return answers[-1]

    protocol._dispatch = record  # type: ignore[method-assign]
    for data in reqs:  # a warm-up round, recording what _dispatch gets and answers
        feed(data)
        if not transport.last.startswith(b"HTTP/1.1 200 "):
            raise SystemExit(f"{op} was not answered 200:\n{transport.last[:600]!r}")
    del protocol._dispatch
    size = len(reqs)

    def loop(n: int) -> None:
        for i in range(n):
            feed(reqs[i % size])

    if mode == "front":  # _dispatch answers what a real call answered, without running the operation
        answer = answers[0]
        protocol._dispatch = lambda request, raw: answer  # type: ignore[method-assign]
    elif mode == "dispatch":

        def loop(n: int) -> None:  # noqa: F811 - _dispatch alone
            for i in range(n):
                request, raw = calls[i % size]
                real(request, raw)

    try:
        if profile:
            prof = cProfile.Profile()
            prof.enable()
            loop(n)
            prof.disable()
            print(f"--- {op} ({mode})")
            pstats.Stats(prof).sort_stats("tottime").print_stats(top)
            pstats.Stats(prof).sort_stats("cumulative").print_stats(top)
            return
        best = run(loop, n, rounds)
        print(f"{op:15s} {mode:9s} {min(best):8.1f} µs/req (min of {rounds}; max {max(best):.1f})", flush=True)
    finally:
        protocol.__dict__.pop("_dispatch", None)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--count", type=int, default=20_000, help="requests per round (per mode)")
    p.add_argument("--keys", type=int, default=2_000)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--ops", default="GetItem,PutItem,UpdateItem,Query")
    p.add_argument("--modes", default="full,front,dispatch", help="any of full, front, dispatch")
    p.add_argument("--profile", metavar="OP", help="cProfile this operation (each mode) instead of timing")
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--dynemu-args", default="", help='extra dynemu flags, e.g. "--time-scale 0.02" under valgrind')
    args = p.parse_args()
    ops = args.ops.split(",")
    for op in ops:
        if op not in OPERATIONS:
            raise SystemExit(f"unknown operation {op}; one of {', '.join(OPERATIONS)}")
    protocol = setup(args.keys, "Query" in ops, args.dynemu_args.split())
    gc.collect()
    gc.freeze()  # as the server does after start-up (cli.serve)
    for op in ops:
        if args.profile and args.profile != op:
            continue
        reqs = requests_for(op, args.keys, args.count)
        n = args.count if op != "BatchWriteItem" else max(1, args.count // 10)
        for mode in args.modes.split(","):
            measure(protocol, op, mode, reqs, n, args.rounds, bool(args.profile), args.top)


if __name__ == "__main__":
    main()
