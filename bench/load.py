"""Load generator: DynamoDB requests over keep-alive HTTP/1.1 connections, on loopback only.

    python bench/load.py --port 8000 --op GetItem --seconds 5 --connections 64

Each connection sends one pre-built request, waits for the whole response (no pipelining),
then sends the next; keys follow a shuffled order over ``--keys`` keys. Run it in its own
process (``bench/throughput.py`` does, pinned to the other core) so that the client and the
server each get a core. It is an ``asyncio.Protocol`` over pre-built bytes: per response it
finds the header end, reads Content-Length and the status, and records the latency, which
keeps it at about half the CPU per request of the bare baseline server. Its own CPU use, the
server's (``--server-pid``) and other load on both cores (``--server-core``, ``--client-core``)
are reported, so a client-bound or disturbed run is visible.

Bounded in time (``--seconds``, plus a hard cap) and optionally in count (``--count``).
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import os
import random
import sys
import time
from dataclasses import asdict, dataclass, field

import orjson
from workload import DEFAULT_TABLE, OPERATIONS, build_requests

_CLOCK_TICK = os.sysconf("SC_CLK_TCK")


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system, all threads) a process has used, from /proc."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / _CLOCK_TICK


def core_busy(core: int) -> float:
    """Seconds core ``core`` has been busy (anything but idle and iowait, steal included)."""
    with open("/proc/stat", "rb") as f:
        for line in f:
            if line.startswith(b"cpu%d " % core):
                ticks = [int(x) for x in line.split()[1:]]
                return (sum(ticks[:8]) - ticks[3] - ticks[4]) / _CLOCK_TICK
    return float("nan")


@dataclass
class Result:
    op: str
    requests: int = 0  # 200 answers inside the measured window
    errors: int = 0  # anything else inside it
    seconds: float = 0.0
    rps: float = 0.0
    p50_ms: float = 0.0
    p90_ms: float = 0.0
    p99_ms: float = 0.0
    max_ms: float = 0.0
    client_cpu: float = 0.0  # fraction of one core the generator used
    server_cpu: float = float("nan")  # same, for --server-pid
    server_us_per_req: float = float("nan")  # server CPU microseconds per answered request
    # Share of a core used by everything else on the server's / the client's core (with
    # --server-core / --client-core): other processes and hypervisor steal, i.e. noise.
    server_core_other: float = float("nan")
    client_core_other: float = float("nan")
    first_error: str = ""
    extra: dict[str, str] = field(default_factory=dict)


class _Run:
    """Shared state of one load run (single-threaded: the event loop serialises access)."""

    def __init__(self, requests: list[bytes], order: list[int], count: int | None,
                 warmup: float, seconds: float, server_pid: int | None, cores: tuple[int | None, int | None]):
        self.requests = requests
        self.order = order
        self.cursor = 0
        self.count = count
        self.server_pid = server_pid
        self.cores = cores
        now = time.perf_counter()
        self.measure_from = now + warmup
        self.deadline = now + warmup + seconds
        self.measuring = False
        self.stopping = False
        self.latencies: list[float] = []
        self.errors = 0
        self.first_error = ""
        self.t_begin = now
        self.t_end = 0.0
        self.cpu_begin = self.cpu_end = (0.0, 0.0, 0.0, 0.0)
        self.open = 0
        self.done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if warmup <= 0:
            self._begin(now)

    def _cpu(self) -> tuple[float, float, float, float]:
        """(client CPU, server CPU, server core busy, client core busy), in seconds."""
        server = process_cpu(self.server_pid) if self.server_pid else float("nan")
        busy = [core_busy(c) if c is not None else float("nan") for c in self.cores]
        return time.process_time(), server, busy[0], busy[1]

    def _begin(self, now: float) -> None:
        self.measuring = True
        self.t_begin = now
        self.cpu_begin = self._cpu()

    def _stop(self, now: float) -> None:
        if not self.stopping:
            self.stopping = True
            self.t_end = now
            self.cpu_end = self._cpu()

    def next_request(self) -> bytes | None:
        if self.stopping:
            return None
        i = self.cursor
        if self.count is not None and i >= self.count:
            return None
        self.cursor = i + 1
        order = self.order
        return self.requests[order[i % len(order)]]

    def record(self, status: int, latency: float, now: float, body: bytes) -> None:
        if now >= self.deadline:
            self._stop(now)
            return
        if not self.measuring:
            if now < self.measure_from:
                return
            self._begin(now)
        if status == 200:
            self.latencies.append(latency)
        else:
            self.errors += 1
            if not self.first_error:
                self.first_error = f"{status} {body[:300].decode('utf-8', 'replace')}"
        if self.count is not None and len(self.latencies) + self.errors >= self.count:
            self._stop(now)

    def closed(self) -> None:
        self.open -= 1
        if self.open == 0 and not self.done.done():
            self._stop(time.perf_counter())
            self.done.set_result(None)


class _Connection(asyncio.Protocol):
    """One keep-alive connection: send, read one whole response, record, repeat."""

    def __init__(self, run: _Run):
        self.run = run
        self.buf = b""
        self.need = -1  # total bytes of the current response once its head is parsed
        self.status = 0
        self.sent_at = 0.0
        self.transport: asyncio.Transport | None = None
        self.closing = False  # we closed it (run over); the loss is then expected

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        self._send()

    def _send(self) -> None:
        request = self.run.next_request()
        assert self.transport is not None
        if request is None:
            self.closing = True
            self.transport.close()
            return
        self.sent_at = time.perf_counter()
        self.transport.write(request)

    def data_received(self, data: bytes) -> None:
        buf = self.buf + data if self.buf else data
        if self.need < 0:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                self.buf = buf
                return
            head = buf[:end].lower()
            self.status = int(head[9:12])
            i = head.find(b"\r\ncontent-length:")
            if i < 0:
                self._fail("response without Content-Length")
                return
            j = head.find(b"\r\n", i + 17)
            self.need = end + 4 + int(head[i + 17 : j if j >= 0 else len(head)])
        if len(buf) < self.need:
            self.buf = buf
            return
        now = time.perf_counter()
        body = buf[buf.find(b"\r\n\r\n") + 4 : self.need] if self.status != 200 else b""
        self.buf = b""
        self.need = -1
        self.run.record(self.status, now - self.sent_at, now, body)
        self._send()

    def _fail(self, why: str) -> None:
        run = self.run
        run.errors += 1
        run.first_error = run.first_error or why
        run._stop(time.perf_counter())
        assert self.transport is not None
        self.closing = True
        self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.closing and not self.run.stopping:
            self._fail(f"connection lost: {exc!r}")
        self.run.closed()


def _percentile(sorted_values: list[float], q: float) -> float:
    if not sorted_values:
        return float("nan")
    return sorted_values[min(len(sorted_values) - 1, int(q * len(sorted_values)))] * 1000.0


async def run_load(host: str, port: int, op: str, *, table: str = DEFAULT_TABLE, keys: int = 10_000,
                   connections: int = 64, seconds: float = 5.0, warmup: float = 0.5,
                   count: int | None = None, sequential: bool = False, seed: int = 1,
                   server_pid: int | None = None, server_core: int | None = None,
                   client_core: int | None = None) -> Result:
    """Drive ``op`` against host:port and measure it. With ``count``, stop after that many
    answers (``seconds`` is then only a time cap); ``sequential`` sends the keys in order."""
    requests = build_requests(host, port, op, table, keys, seed)
    order = list(range(keys))
    if not sequential:
        random.Random(seed + 1).shuffle(order)
    loop = asyncio.get_running_loop()
    run = _Run(requests, order, count, 0.0 if count is not None else warmup, seconds, server_pid,
               (server_core, client_core))
    transports = []
    try:
        for _ in range(connections):
            run.open += 1
            transport, _protocol = await loop.create_connection(lambda: _Connection(run), host, port)
            transports.append(transport)
        await asyncio.wait_for(asyncio.shield(run.done), timeout=warmup + seconds + 30.0)
    finally:
        run.stopping = True
        for transport in transports:
            transport.close()
    return _result(op, run)


def _result(op: str, run: _Run) -> Result:
    lat = sorted(run.latencies)
    elapsed = max(run.t_end - run.t_begin, 1e-9)
    client_cpu_s, server_cpu_s, server_core_s, client_core_s = (
        end - begin for begin, end in zip(run.cpu_begin, run.cpu_end, strict=True))
    client_cpu = client_cpu_s / elapsed
    return Result(
        op=op,
        requests=len(lat),
        errors=run.errors,
        seconds=elapsed,
        rps=len(lat) / elapsed,
        p50_ms=_percentile(lat, 0.50),
        p90_ms=_percentile(lat, 0.90),
        p99_ms=_percentile(lat, 0.99),
        max_ms=lat[-1] * 1000.0 if lat else float("nan"),
        client_cpu=client_cpu,
        server_cpu=server_cpu_s / elapsed,
        server_us_per_req=server_cpu_s * 1e6 / len(lat) if lat else float("nan"),
        server_core_other=max(0.0, (server_core_s - server_cpu_s) / elapsed),
        client_core_other=max(0.0, (client_core_s - client_cpu_s) / elapsed),
        first_error=run.first_error,
    )


def check_loopback(host: str) -> None:
    """Refuse anything but this machine: the generator must never load a remote host."""
    if host == "localhost":
        return
    try:
        if ipaddress.ip_address(host).is_loopback:
            return
    except ValueError:
        pass
    raise SystemExit(f"load.py: refusing non-loopback host {host!r}")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--host", default="127.0.0.1", help="loopback address only (default 127.0.0.1)")
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--op", choices=OPERATIONS, default="GetItem")
    p.add_argument("--table", default=DEFAULT_TABLE)
    p.add_argument("--keys", type=int, default=10_000, help="distinct keys (default 10000)")
    p.add_argument("--connections", type=int, default=64, help="concurrent connections (default 64)")
    p.add_argument("--seconds", type=float, default=5.0, help="measured duration; time cap with --count")
    p.add_argument("--warmup", type=float, default=0.5, help="unmeasured seconds first (default 0.5)")
    p.add_argument("--count", type=int, help="stop after this many answers instead")
    p.add_argument("--sequential", action="store_true", help="keys in order (with --count KEYS: preload)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--server-pid", type=int, help="also report this process's CPU use")
    p.add_argument("--server-core", type=int, help="the core the server is pinned to: report other load on it")
    p.add_argument("--client-core", type=int, help="the core this generator is pinned to: same")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    return p


def main() -> None:
    args = _parser().parse_args()
    check_loopback(args.host)
    result = asyncio.run(run_load(
        args.host, args.port, args.op, table=args.table, keys=args.keys, connections=args.connections,
        seconds=args.seconds, warmup=args.warmup, count=args.count, sequential=args.sequential,
        seed=args.seed, server_pid=args.server_pid, server_core=args.server_core,
        client_core=args.client_core,
    ))
    if args.json:
        sys.stdout.buffer.write(orjson.dumps(asdict(result)) + b"\n")
        return
    r = result
    print(f"{r.op}: {r.requests} ok, {r.errors} errors in {r.seconds:.2f} s = {r.rps:,.0f} req/s; "
          f"latency ms p50 {r.p50_ms:.2f} p90 {r.p90_ms:.2f} p99 {r.p99_ms:.2f} max {r.max_ms:.2f}; "
          f"cpu client {r.client_cpu:.0%} server {r.server_cpu:.0%}; "
          f"other load on server core {r.server_core_other:.0%}, client core {r.client_core_other:.0%}")
    if r.first_error:
        print(f"first error: {r.first_error}")


if __name__ == "__main__":
    main()
