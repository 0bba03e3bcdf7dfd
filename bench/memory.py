"""Memory with the data on disk (issue 18): the server's RSS while N items of about 1 KB are
loaded through the HTTP API, its peak, and a restart on the loaded data.

    python bench/memory.py --items 100000               # LevelDB in a temporary directory
    nice python bench/memory.py --items 1000000 --data-dir /tmp/mem1m   # kept afterwards
    python bench/memory.py --data-dir /tmp/mem1m --restart-only   # restart on data kept before

A fresh ``python -m dynemu --throttling off`` (plus ``--dynemu-args``) on a free port gets one
PAY_PER_REQUEST table (string hash key ``pk``) and ``--items`` items, 25 per BatchWriteItem,
each with a ``body`` string of ``--item-bytes`` bytes. RSS (VmRSS in /proc/<pid>/status) is
printed every ``--every`` items; the peak is the kernel's VmHWM. Then the server is stopped
(SIGTERM), started again on the same directory, and timed from exec to its first answered
ListTables; its RSS is read then and after a DescribeTable and a sample of GetItems.
The target: under 80 MB at 1 M items, flat with the data on disk; a restart under 0.3 s.
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import cpu_seconds, status_mb  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
TABLE = "memory"
AUTH = "AWS4-HMAC-SHA256 Credential=AKID/20250101/us-east-1/dynamodb/aws4_request, SignedHeaders=host, Signature=x"


def split(pid: int) -> str:
    """RSS's anonymous part (heaps) and its file part (mapped files: LevelDB maps its tables)."""
    return f"anon {status_mb(pid, 'RssAnon'):.1f} file {status_mb(pid, 'RssFile'):.1f}"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return int(s.getsockname()[1])


class PeakWatch:
    """Samples the server's RssAnon and RssFile every ``interval`` seconds in a thread: the
    kernel's VmHWM says how high RSS went, this says which part rose, and when (the items
    loaded by then), to match against LevelDB's LOG of compactions."""

    def __init__(self, pid: int, interval: float = 0.02) -> None:
        self.pid, self.interval = pid, interval
        self.items = 0  # set by the loader as it goes
        self.anon = (0.0, 0)  # (MB, items loaded then)
        self.file = (0.0, 0)
        self.total = (0.0, 0, "")  # the highest RSS sampled: (MB, items, its split)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                anon, file = status_mb(self.pid, "RssAnon"), status_mb(self.pid, "RssFile")
            except OSError:
                return
            if anon > self.anon[0]:
                self.anon = (anon, self.items)
            if file > self.file[0]:
                self.file = (file, self.items)
            if anon + file > self.total[0]:
                self.total = (anon + file, self.items, f"anon {anon:.1f} file {file:.1f}")

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def describe(self) -> str:
        return (f"sampled peak {self.total[0]:.1f} MB at {self.total[1]:,} items ({self.total[2]}); "
                f"highest anon {self.anon[0]:.1f} MB at {self.anon[1]:,}, file {self.file[0]:.1f} MB at {self.file[1]:,}")


class Client:
    def __init__(self, port: int) -> None:
        self.port = port
        self.conn = http.client.HTTPConnection(HOST, port, timeout=120)

    def call(self, op: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        headers = {"Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": f"DynamoDB_20120810.{op}",
                   "Authorization": AUTH}  # fmt: skip
        self.conn.request("POST", "/", body=orjson.dumps(body), headers=headers)
        resp = self.conn.getresponse()
        data = resp.read()
        return resp.status, (orjson.loads(data) if data else {})

    def ok(self, op: str, body: dict[str, Any]) -> dict[str, Any]:
        status, answer = self.call(op, body)
        if status != 200:
            raise RuntimeError(f"{op}: {status} {answer}")
        return answer


def start(data_dir: str, extra: list[str]) -> tuple[subprocess.Popen[bytes], int, float]:
    """A server on ``data_dir``, and the seconds from exec to its first answered ListTables."""
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    argv = [sys.executable, "-m", "dynemu", "--port", str(port), "--data-dir", data_dir, *extra]
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    while True:
        try:
            status, _ = Client(port).call("ListTables", {})
            if status == 200:
                return proc, port, time.perf_counter() - t0
        except OSError:
            pass
        if proc.poll() is not None or time.perf_counter() - t0 > 120:
            proc.kill()
            raise RuntimeError(f"dynemu did not start: {proc.stderr.read().decode() if proc.stderr else ''}")
        time.sleep(0.002)


def stop(proc: subprocess.Popen[bytes]) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def load(
    proc: subprocess.Popen[bytes], port: int, items: int, item_bytes: int, every: int,
    watch: PeakWatch | None = None,
) -> list[tuple[int, float]]:
    c = Client(port)
    c.ok("CreateTable", {"TableName": TABLE, "BillingMode": "PAY_PER_REQUEST",
                         "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                         "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]})  # fmt: skip
    rng = random.Random(1)
    filler = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(4096))
    samples: list[tuple[int, float]] = []
    started = time.monotonic()
    for first in range(0, items, 25):
        puts = [{"PutRequest": {"Item": {"pk": {"S": f"item-{i:09d}"}, "n": {"N": str(i)},
                                          "body": {"S": filler[i % 1024 : i % 1024 + item_bytes]}}}}
                for i in range(first, min(items, first + 25))]  # fmt: skip
        answer = c.ok("BatchWriteItem", {"RequestItems": {TABLE: puts}})
        if answer.get("UnprocessedItems"):
            raise RuntimeError(f"unprocessed items at {first}")
        done = min(items, first + 25)
        if watch is not None:
            watch.items = done
        if done % every < 25 or done == items:
            samples.append((done, status_mb(proc.pid, "VmRSS")))
            rate = done / max(1e-9, time.monotonic() - started)
            highs = "" if watch is None else f" (highest anon {watch.anon[0]:.1f}, file {watch.file[0]:.1f})"
            print(f"  {done:>10,} items  rss {samples[-1][1]:7.1f} MB ({split(proc.pid)})"
                  f"  peak {status_mb(proc.pid, 'VmHWM'):7.1f} MB{highs}  ({rate:,.0f} items/s)", flush=True)  # fmt: skip
    return samples


def restart(data_dir: str, extra: list[str], items: int) -> dict[str, float]:
    proc, port, seconds = start(data_dir, extra)
    try:
        cpu = cpu_seconds(proc.pid)
        first = status_mb(proc.pid, "VmRSS")
        first_split = split(proc.pid)
        c = Client(port)
        described = c.ok("DescribeTable", {"TableName": TABLE})["Table"]
        rng = random.Random(2)
        for _ in range(1000):
            c.ok(
                "GetItem",
                {"TableName": TABLE, "Key": {"pk": {"S": f"item-{rng.randrange(max(1, items)):09d}"}}},
            )
        return {"seconds": seconds, "cpu_seconds": cpu, "rss_first": first, "rss_first_split": first_split,
                "rss_after_reads": status_mb(proc.pid, "VmRSS"), "rss_after_reads_split": split(proc.pid),
                "rss_peak": status_mb(proc.pid, "VmHWM"), "item_count": described.get("ItemCount", 0)}  # fmt: skip
    finally:
        stop(proc)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--items", type=int, default=100_000, help="items to load (default 100,000)")
    p.add_argument("--item-bytes", type=int, default=1000, help="size of each item's body attribute")
    p.add_argument("--every", type=int, default=50_000, help="print RSS every this many items")
    p.add_argument("--data-dir", help="the data directory (kept; default: a temporary one, removed)")
    p.add_argument("--restart-only", action="store_true", help="only restart on --data-dir, loaded before")
    p.add_argument("--restarts", type=int, default=3, help="restarts timed after the load")
    p.add_argument("--dynemu-args", default="", help="extra dynemu flags")
    p.add_argument("--json", help="write the figures here")
    args = p.parse_args()
    extra = ["--throttling", "off", *args.dynemu_args.split()]
    data_dir = args.data_dir or tempfile.mkdtemp(prefix="dynemu-memory-")
    result: dict[str, Any] = {"items": args.items, "item_bytes": args.item_bytes}
    try:
        if not args.restart_only:
            proc, port, seconds = start(data_dir, extra)
            print(f"started in {seconds:.3f} s, rss {status_mb(proc.pid, 'VmRSS'):.1f} MB", flush=True)
            watch = PeakWatch(proc.pid)
            try:
                result["samples"] = load(proc, port, args.items, args.item_bytes, args.every, watch)
                result["rss_loaded"] = status_mb(proc.pid, "VmRSS")
                result["rss_loaded_split"] = split(proc.pid)
                result["rss_peak"] = status_mb(proc.pid, "VmHWM")
            finally:
                watch.stop()
                stop(proc)
            result["peak_watch"] = watch.describe()
            print(
                f"loaded: rss {result['rss_loaded']:.1f} MB ({result['rss_loaded_split']}), "
                f"peak {result['rss_peak']:.1f} MB\n{watch.describe()}",
                flush=True,
            )
        result["restarts"] = [restart(data_dir, extra, args.items) for _ in range(max(1, args.restarts))]
        for r in result["restarts"]:
            print(f"restart: first ListTables after {r['seconds']:.3f} s (server CPU {r['cpu_seconds']:.2f} s), rss {r['rss_first']:.1f} MB "
                  f"({r['rss_first_split']}); after DescribeTable + 1000 GetItems {r['rss_after_reads']:.1f} MB "
                  f"({r['rss_after_reads_split']}), peak {r['rss_peak']:.1f} MB; ItemCount {r['item_count']:,}",
                  flush=True)  # fmt: skip
    finally:
        if not args.data_dir:
            shutil.rmtree(data_dir, ignore_errors=True)
    if args.json:
        Path(args.json).write_text(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())


if __name__ == "__main__":
    main()
