"""Shared plumbing of the benchmark drivers: start servers pinned to a core, wait for them,
create and fill the table, and run the load generator in its own pinned process."""

from __future__ import annotations

import http.client
import os
import random
import shlex
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import orjson
from workload import (
    AUTHORIZATION,
    BATCH_SIZE,
    CONTENT_TYPE,
    DEFAULT_TABLE,
    QUERY_ITEMS_PER_KEY,
    QUERY_PARTITIONS,
    QUERY_TABLE,
    TARGET_PREFIX,
    query_item,
    table_definition,
)

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
HOST = "127.0.0.1"


def pick_cores(pin: bool) -> tuple[int | None, int | None]:
    """(server core, client core): two distinct cores we may run on, or no pinning."""
    if not pin or not hasattr(os, "sched_getaffinity"):
        return None, None
    available = sorted(os.sched_getaffinity(0))
    if len(available) < 2:
        print("note: fewer than 2 cores available; server and client are not pinned", file=sys.stderr)
        return None, None
    return available[0], available[1]


def pin_self(core: int | None) -> None:
    if core is not None:
        os.sched_setaffinity(0, {core})


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


class Server:
    """A server subprocess pinned to one core, its output kept in a log file."""

    def __init__(self, name: str, argv: Sequence[str], port: int, core: int | None, log_dir: str):
        self.name = name
        self.port = port
        self.log_path = os.path.join(log_dir, f"{name}.log")
        self._log = open(self.log_path, "wb")  # noqa: SIM115 - closed in stop()
        preexec = (lambda: os.sched_setaffinity(0, {core})) if core is not None else None
        self.proc = subprocess.Popen(
            list(argv), cwd=REPO_DIR, stdout=self._log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, preexec_fn=preexec,
        )
        self.pid = self.proc.pid

    def wait_ready(self, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                conn = http.client.HTTPConnection(HOST, self.port, timeout=2)
                conn.request("GET", "/")
                conn.getresponse().read()
                conn.close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"{self.name} did not answer on port {self.port} within {timeout} s")

    def log_tail(self, lines: int = 30) -> str:
        self._log.flush()
        with open(self.log_path, "rb") as f:
            return b"\n".join(f.read().splitlines()[-lines:]).decode("utf-8", "replace")

    def stop(self) -> None:
        """SIGINT lets aiohttp's run_app shut down cleanly (and LevelDB close); kill if stuck."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log.close()


def dynemu_argv(port: int, data_dir: str | None, extra: str) -> list[str]:
    store = ["--data-dir", data_dir] if data_dir else ["--in-memory"]
    return [sys.executable, "-m", "dynemu", "--host", HOST, "--port", str(port), *store, *shlex.split(extra)]


def baseline_argv(port: int) -> list[str]:
    return [sys.executable, str(BENCH_DIR / "baseline_server.py"), "--host", HOST, "--port", str(port)]


def call(port: int, op: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    """One DynamoDB call over http.client (set-up only, not measured)."""
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        conn.request("POST", "/", orjson.dumps(body), {
            "X-Amz-Target": TARGET_PREFIX + op,
            "Content-Type": CONTENT_TYPE,
            "Authorization": AUTHORIZATION,
        })
        response = conn.getresponse()
        raw = response.read()
        return response.status, orjson.loads(raw) if raw else {}
    finally:
        conn.close()


def create_table(port: int, table: str, provisioned: tuple[int, int] | None, sort_key: bool = False) -> None:
    status, answer = call(port, "CreateTable", table_definition(table, provisioned, sort_key))
    if status != 200:
        raise RuntimeError(f"CreateTable failed: {status} {answer}")
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        status, answer = call(port, "DescribeTable", {"TableName": table})
        if status == 200 and answer["Table"]["TableStatus"] == "ACTIVE":
            return
        time.sleep(0.05)
    raise RuntimeError(f"table {table} did not become ACTIVE: {status} {answer}")


def run_load(port: int, op: str, *, core: int | None, server_pid: int | None = None,
             seconds: float = 5.0, warmup: float = 0.5, count: int | None = None,
             sequential: bool = False, keys: int = 10_000, connections: int = 64,
             table: str | None = None, server_core: int | None = None) -> dict[str, Any]:
    """Run bench/load.py in its own (pinned) process and return its JSON result."""
    argv = [sys.executable, str(BENCH_DIR / "load.py"), "--json", "--host", HOST, "--port", str(port),
            "--op", op, "--keys", str(keys), "--connections", str(connections),
            "--seconds", str(seconds), "--warmup", str(warmup)]
    if count is not None:
        argv += ["--count", str(count)]
    if sequential:
        argv.append("--sequential")
    if server_pid is not None:
        argv += ["--server-pid", str(server_pid)]
    if table is not None:
        argv += ["--table", table]
    if server_core is not None and core is not None:
        argv += ["--server-core", str(server_core), "--client-core", str(core)]
    preexec = (lambda: os.sched_setaffinity(0, {core})) if core is not None else None
    done = subprocess.run(argv, capture_output=True, timeout=warmup + seconds + 60, preexec_fn=preexec)
    if done.returncode != 0:
        raise RuntimeError(f"load.py failed ({done.returncode}): {done.stderr.decode(errors='replace')}")
    return orjson.loads(done.stdout)


def preload(port: int, keys: int, core: int | None, table: str | None = None) -> dict[str, Any]:
    """Put every key once (the same items GetItem will read) and check none failed."""
    result = run_load(port, "PutItem", core=core, count=keys, sequential=True, keys=keys,
                      seconds=120.0, warmup=0.0, table=table)
    if result["errors"] or result["requests"] != keys:
        raise RuntimeError(f"preload failed: {result}")
    return result


def fill_query_table(port: int) -> None:
    """Put QUERY_ITEMS_PER_KEY items under each of QUERY_PARTITIONS keys, 25 at a time,
    resending what comes back unprocessed (the table's capacity may push back)."""
    rng = random.Random(7)
    items = [query_item(p, s, rng) for p in range(QUERY_PARTITIONS) for s in range(QUERY_ITEMS_PER_KEY)]
    deadline = time.monotonic() + 300
    for i in range(0, len(items), BATCH_SIZE):
        pending = {QUERY_TABLE: [{"PutRequest": {"Item": it}} for it in items[i : i + BATCH_SIZE]]}
        while pending:
            if time.monotonic() > deadline:
                raise RuntimeError("filling the Query table took over 300 s")
            status, answer = call(port, "BatchWriteItem", {"RequestItems": pending})
            if status != 200 and answer.get("__type", "").rpartition("#")[2] not in (
                    "ProvisionedThroughputExceededException", "ThrottlingException"):
                raise RuntimeError(f"BatchWriteItem failed: {status} {answer}")
            pending = answer.get("UnprocessedItems") or {} if status == 200 else pending
            if pending:
                time.sleep(0.05)


def prepare(port: int, ops: Sequence[str], keys: int, provisioned: tuple[int, int] | None,
            core: int | None) -> dict[str, Any]:
    """Create and fill the tables the operations need; returns the preload's figures."""
    create_table(port, DEFAULT_TABLE, provisioned)
    loaded = preload(port, keys, core)
    if "Query" in ops:
        create_table(port, QUERY_TABLE, provisioned, sort_key=True)
        fill_query_table(port)
    return loaded


def temp_dir(prefix: str) -> tempfile.TemporaryDirectory[str]:
    return tempfile.TemporaryDirectory(prefix=prefix)


def cpu_seconds(pid: int) -> float:
    """User plus system CPU seconds of every thread of process ``pid`` (steadier than wall
    time on a shared machine)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def status_mb(pid: int, field: str) -> float:
    """A /proc/<pid>/status figure in MB (RssAnon, RssFile, VmRSS: now; VmHWM: the peak so far)."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024
    return 0.0
