"""The cost of a request as the table grows (issue 29): load N items, time each tenth, and
measure GetItem, Query, UpdateItem and PutItem at N/10 and at N, in one run.

    python bench/scaling.py                                   # 1,000,000 items on LevelDB
    python bench/scaling.py --items 100000 --seconds 3        # a quick look
    python bench/scaling.py --store sqlite                    # the SQLite store
    python bench/scaling.py --dynemu-args "--leveldb-open-files 64"   # any server flag
    python bench/scaling.py --data-dir D --measure-only       # the paired turns again, on D

A fresh ``python -m dynemu --throttling off --store <store>`` on a temporary data directory
(``--data-dir`` keeps it) gets one PAY_PER_REQUEST table (``pk`` string hash key, ``sk``
string range key, ten items per partition key) and N items of about ``--item-bytes`` bytes,
25 per BatchWriteItem over one keep-alive connection in raw HTTP. Keys are stored in hash
order, so the load writes all over the key space, as real data does.

Each tenth of the load is timed in wall-clock items/s and in the server process's CPU
microseconds per item (utime + stime of every thread, from /proc/<pid>/stat; LevelDB's
compaction thread included). The machine may be shared, so the CPU figure is the steady one:
it does not grow when other processes take the core. After the first tenth and after the
whole load, random GetItems, Queries (one partition key, its ten items), UpdateItems
(``SET n = n + 1``) and PutItems (an item loaded, written again whole) each run for ``--seconds`` over the keys loaded so far, on one
connection. Before each measurement the server is left to finish its compactions (its CPU
falls idle and it writes no file for 1.5 s), and the time and CPU that took are printed.
Printed at each tenth: RSS split into anonymous and file-backed memory (RssAnon / RssFile),
open file descriptors, and the size of the data on disk (the figures at the end of the load
are the N table's alone).

Then a second table of N/10 items is loaded in another region (its own namespace and store),
and the three operations run on it and on the N table in turns (``--rounds``), so that the
other load of a shared machine falls on both alike: the "paired" ratios. The ratios at the
end are N against N/10 (1.0: flat), wall-clock and CPU, during the load and paired.
``--measure-only`` runs only the paired turns, on a ``--data-dir`` a run kept (its item
counts read from DescribeTable).

The server's stderr goes to ``--server-log`` (default: ``server.log`` beside the data
directory's temporary parent, printed at the start) and is kept. Each measurement opens a
new connection after the settling: the server closes a keep-alive connection idle for
37.5-75 s (``dynemu/api/http.py``), and settling a large store takes longer (the 10 M run
of issue 29 read that close as the server's exit). A connection that fails says whether the
server process is still running.
"""

from __future__ import annotations

import argparse
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _server import memory, run_dirs  # noqa: E402
from _server import start as start_dynemu  # noqa: E402
from harness import cpu_seconds, status_mb  # noqa: E402

HOST = "127.0.0.1"
TABLE = "scaling"
PER_KEY = 10  # items under one partition key (what a Query returns)
BATCH = 25
AUTH = "AWS4-HMAC-SHA256 Credential=AKID/20250101/{}/dynamodb/aws4_request, SignedHeaders=host, Signature=x"
BIG, SMALL = "us-east-1", "eu-west-1"  # one namespace, so one store, per region
OPS = ("GetItem", "Query", "UpdateItem", "PutItem")
FILLER = "".join(random.Random(1).choices("abcdefghijklmnopqrstuvwxyz0123456789", k=1 << 20))
ITEM_BYTES = [1000]  # --item-bytes (PutItem's items are the load's)


# --- the server process ---------------------------------------------------------------------


def disk(path: str) -> dict[str, float]:
    """Bytes under ``path`` and the number of LevelDB table files among them."""
    size, tables = 0, 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                size += os.stat(os.path.join(root, name)).st_size
            except OSError:
                continue  # removed by a compaction meanwhile
            tables += name.endswith((".ldb", ".sst"))
    return {"disk_mb": size / 2**20, "table_files": tables}


def tables(row: dict[str, Any]) -> str:
    return f" in {row['table_files']} table files" if row["table_files"] else ""


def written_bytes(pid: int) -> int:
    """Bytes the process has passed to write() (wchar): a compaction writes table files."""
    with open(f"/proc/{pid}/io") as f:
        for line in f:
            if line.startswith("wchar:"):
                return int(line.split()[1])
    return 0


def settle(pid: int, limit: float = 120.0) -> tuple[float, float]:
    """Wait until the server falls idle, its compactions done: no CPU to speak of and no file
    written for 1.5 s (the store's background compaction starts within 1 s of the last
    write, storage/compaction.py). Returns (seconds, CPU seconds)."""
    t0, c0 = time.monotonic(), cpu_seconds(pid)
    last, wrote, idle = c0, written_bytes(pid), 0
    while time.monotonic() - t0 < limit and idle < 3:
        time.sleep(0.5)
        now, out = cpu_seconds(pid), written_bytes(pid)
        idle = idle + 1 if now - last < 0.03 and out - wrote < 2**20 else 0
        last, wrote = now, out
    return time.monotonic() - t0, cpu_seconds(pid) - c0


# --- a raw HTTP/1.1 client --------------------------------------------------------------------


class Client:
    """One keep-alive connection; requests are bytes built in advance, answers read whole."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection((HOST, port))
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buf = b""

    @staticmethod
    def request(op: str, body: dict[str, Any], region: str = BIG) -> bytes:
        payload = orjson.dumps(body)
        head = (f"POST / HTTP/1.1\r\nHost: {HOST}\r\nContent-Type: application/x-amz-json-1.0\r\n"
                f"X-Amz-Target: DynamoDB_20120810.{op}\r\nAuthorization: {AUTH.format(region)}\r\n"
                f"Content-Length: {len(payload)}\r\n\r\n")  # fmt: skip
        return head.encode() + payload

    def send(self, request: bytes) -> tuple[int, bytes]:
        self.sock.sendall(request)
        while (end := self.buf.find(b"\r\n\r\n")) < 0:
            self._more()
        head, self.buf = self.buf[:end], self.buf[end + 4 :]
        status = int(head[9:12])
        length = 0
        for line in head.split(b"\r\n")[1:]:
            name, _, value = line.partition(b":")
            if name.strip().lower() == b"content-length":
                length = int(value)
        while len(self.buf) < length:
            self._more()
        body, self.buf = self.buf[:length], self.buf[length:]
        return status, body

    def _more(self) -> None:
        chunk = self.sock.recv(1 << 20)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        self.buf += chunk

    def ok(self, op: str, body: dict[str, Any], region: str = BIG) -> dict[str, Any]:
        status, answer = self.send(self.request(op, body, region))
        if status != 200:
            raise RuntimeError(f"{op}: {status} {answer[:300]!r}")
        return orjson.loads(answer) if answer else {}


# --- the workload -----------------------------------------------------------------------------


def key(i: int) -> dict[str, Any]:
    return {"pk": {"S": f"user-{i // PER_KEY:09d}"}, "sk": {"S": f"{i % PER_KEY:03d}"}}


def item(i: int, filler: str, size: int) -> dict[str, Any]:
    at = i * 7919 % (len(filler) - size)  # far from its neighbours' text: no compression
    return {**key(i), "n": {"N": str(i)}, "body": {"S": filler[at : at + size]}}


def op_request(op: str, i: int, region: str) -> bytes:
    if op == "GetItem":
        return Client.request(op, {"TableName": TABLE, "Key": key(i)}, region)
    if op == "Query":
        return Client.request(op, {"TableName": TABLE, "KeyConditionExpression": "pk = :p",
                                   "ExpressionAttributeValues": {":p": key(i)["pk"]}}, region)  # fmt: skip
    if op == "PutItem":
        return Client.request(op, {"TableName": TABLE, "Item": item(i, FILLER, ITEM_BYTES[0])}, region)
    return Client.request(op, {"TableName": TABLE, "Key": key(i), "UpdateExpression": "SET n = n + :one",
                               "ExpressionAttributeValues": {":one": {"N": "1"}}}, region)  # fmt: skip


def create_table(c: Client, region: str) -> None:
    c.ok("CreateTable", {"TableName": TABLE, "BillingMode": "PAY_PER_REQUEST",
                         "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"},
                                       {"AttributeName": "sk", "KeyType": "RANGE"}],
                         "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                                  {"AttributeName": "sk", "AttributeType": "S"}]}, region)  # fmt: skip


def load_range(c: Client, first: int, stop: int, filler: str, size: int, region: str = BIG) -> None:
    for lo in range(first, stop, BATCH):
        puts = [{"PutRequest": {"Item": item(i, filler, size)}} for i in range(lo, min(stop, lo + BATCH))]
        if c.ok("BatchWriteItem", {"RequestItems": {TABLE: puts}}, region).get("UnprocessedItems"):
            raise RuntimeError(f"unprocessed items at {lo}")


def measure(c: Client, pid: int, op: str, loaded: int, seconds: float, rng: random.Random,
            region: str = BIG) -> dict[str, float]:
    """``op`` on random keys among the ``loaded`` items for ``seconds``: rate and CPU per op."""
    requests = [op_request(op, rng.randrange(loaded), region) for _ in range(4096)]
    for r in requests[:200]:  # warm-up, not counted
        c.send(r)
    done, t0, c0 = 0, time.perf_counter(), cpu_seconds(pid)
    while (elapsed := time.perf_counter() - t0) < seconds:
        for r in requests[done % 4096 : done % 4096 + 64]:
            status, answer = c.send(r)
            if status != 200:
                raise RuntimeError(f"{op}: {status} {answer[:300]!r}")
        done += len(requests[done % 4096 : done % 4096 + 64])
    cpu = cpu_seconds(pid) - c0
    return {"ops": done, "seconds": elapsed, "cpu_s": cpu, "rate": done / elapsed, "cpu_us": 1e6 * cpu / done}


def settle_limit(items: int) -> float:
    """How long to wait for the server to fall idle: a full compaction of the N table
    rewrites it (about 1 GB per million items)."""
    return max(120.0, items / 2000)


def phase(port: int, pid: int, loaded: int, seconds: float, rng: random.Random) -> dict[str, Any]:
    waited, spent = settle(pid, settle_limit(loaded))
    c = Client(port)  # the one used before may have idled past the server's keep-alive
    result: dict[str, Any] = {"items": loaded, "settle_s": waited, "settle_cpu_s": spent}
    print(f"  at {loaded:,} items (settled in {waited:.1f} s, {spent:.1f} s CPU):", flush=True)
    for op in OPS:
        result[op] = r = measure(c, pid, op, loaded, seconds, rng)
        print(f"    {op:<11} {r['rate']:>8,.0f}/s  {r['cpu_us']:>7,.0f} us CPU/op  ({r['ops']:,} ops)", flush=True)
    return result


def paired(port: int, pid: int, small: int, big: int, args: argparse.Namespace,
           rng: random.Random) -> dict[str, Any]:
    """Each operation on the N/10 table (its own namespace) and the N table in turns of
    ``--seconds / --rounds``, summed: whatever else the machine runs falls on both alike."""
    waited, spent = settle(pid, settle_limit(big))
    c = Client(port)
    print(f"  paired, {small:,} items ({SMALL}) and {big:,} ({BIG}) in {args.rounds} turns each "
          f"(settled in {waited:.1f} s, {spent:.1f} s CPU):", flush=True)  # fmt: skip
    result: dict[str, Any] = {}
    for op in OPS:
        sums = {n: {"ops": 0, "seconds": 0.0, "cpu_s": 0.0} for n in (small, big)}
        for _ in range(args.rounds):
            for n, region in ((small, SMALL), (big, BIG)):
                r = measure(c, pid, op, n, args.seconds / args.rounds, rng, region)
                for field in sums[n]:
                    sums[n][field] += r[field]
        for n in (small, big):
            t = sums[n]
            t.update(rate=t["ops"] / t["seconds"], cpu_us=1e6 * t["cpu_s"] / t["ops"])
        result[op] = {"small": sums[small], "big": sums[big]}
        print(f"    {op:<11} {sums[small]['rate']:>8,.0f}/s {sums[small]['cpu_us']:>6,.0f} us CPU/op at {small:,}; "
              f"{sums[big]['rate']:>8,.0f}/s {sums[big]['cpu_us']:>6,.0f} us at {big:,}", flush=True)  # fmt: skip
    return result


# --- the run ----------------------------------------------------------------------------------


def start(data_dir: str, store: str, extra: list[str], log: Any) -> tuple[subprocess.Popen[bytes], int]:
    flags = ["--data-dir", data_dir, "--store", store, "--throttling", "off", *extra]
    return start_dynemu(flags, log, ready=lambda port: Client(port).ok("ListTables", {}))


def run(args: argparse.Namespace, data_dir: str, log: Any) -> dict[str, Any]:
    proc, port = start(data_dir, args.store, args.dynemu_args.split(), log)
    pid, rng = proc.pid, random.Random(29)
    filler = FILLER
    result: dict[str, Any] = {"items": args.items, "store": args.store, "dynemu_args": args.dynemu_args,
                              "tenths": [], "phases": []}  # fmt: skip
    try:
        c = Client(port)
        create_table(c, BIG)
        tenth = max(BATCH, args.items // 10 // BATCH * BATCH)
        loaded, t_all = 0, time.perf_counter()
        while loaded < args.items:
            stop_at = min(args.items, loaded + tenth)
            t0, c0 = time.perf_counter(), cpu_seconds(pid)
            load_range(c, loaded, stop_at, filler, args.item_bytes)
            wall, cpu = time.perf_counter() - t0, cpu_seconds(pid) - c0
            row = {"items": stop_at, "rate": (stop_at - loaded) / wall, "cpu_us": 1e6 * cpu / (stop_at - loaded),
                   **memory(pid), **disk(data_dir)}  # fmt: skip
            result["tenths"].append(row)
            print(f"  {stop_at:>11,} items  {row['rate']:>7,.0f} items/s  {row['cpu_us']:>5,.0f} us CPU/item  "
                  f"anon {row['anon_mb']:6.1f} MB  file {row['file_mb']:6.1f} MB  fds {row['fds']:>5}  "
                  f"disk {row['disk_mb']:8.1f} MB{tables(row)}", flush=True)  # fmt: skip
            loaded = stop_at
            if len(result["tenths"]) == 1:
                result["phases"].append(phase(port, pid, loaded, args.seconds, rng))
                c = Client(port)
        result["load_s"] = time.perf_counter() - t_all
        result["phases"].append(phase(port, pid, loaded, args.seconds, rng))
        result["end"] = {**memory(pid), "peak_mb": status_mb(pid, "VmHWM"), **disk(data_dir)}
        if args.rounds:
            c = Client(port)
            create_table(c, SMALL)
            load_range(c, 0, tenth, filler, args.item_bytes, SMALL)
            result["paired"] = paired(port, pid, tenth, loaded, args, rng)
    except OSError as e:
        code = proc.poll()
        state = "still running" if code is None else f"exited with {code}"
        raise RuntimeError(f"{e}: the server {state}; its stderr is in {log.name}") from e
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    return result


def measure_only(args: argparse.Namespace, data_dir: str, log: Any) -> dict[str, Any]:
    """The paired turns on a data directory an earlier run kept."""
    proc, port = start(data_dir, args.store, args.dynemu_args.split(), log)
    try:
        c = Client(port)
        count = {region: c.ok("DescribeTable", {"TableName": TABLE}, region)["Table"]["ItemCount"]
                 for region in (SMALL, BIG)}  # fmt: skip
        paired_ = paired(port, proc.pid, count[SMALL], count[BIG], args, random.Random(29))
        return {"paired": paired_, "end": {**memory(proc.pid), "peak_mb": status_mb(proc.pid, "VmHWM"), **disk(data_dir)}}
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(60)


def report(r: dict[str, Any]) -> None:
    if "tenths" not in r:  # --measure-only
        for op in OPS:
            a, b = r["paired"][op]["small"], r["paired"][op]["big"]
            print(f"  {op:<26} {b['rate'] / a['rate']:5.2f} / {a['cpu_us'] / b['cpu_us']:5.2f}  (paired)")
        return
    first, last = r["tenths"][0], r["tenths"][-1]
    small, big = r["phases"][0], r["phases"][-1]
    end = r["end"]
    print(f"load: {r['items']:,} items in {r['load_s']:.0f} s; at the end anon {end['anon_mb']:.1f} MB, "
          f"file {end['file_mb']:.1f} MB (peak RSS {end['peak_mb']:.1f} MB), {end['fds']} fds, "
          f"disk {end['disk_mb']:.1f} MB{tables(end)}")  # fmt: skip
    print(f"ratios, {big['items']:,} items against {small['items']:,} (1.0 = flat; wall-clock / CPU):")
    print(f"  load, last tenth / first   {last['rate'] / first['rate']:5.2f} / {first['cpu_us'] / last['cpu_us']:5.2f}")
    for op in OPS:
        a, b = small[op], big[op]
        print(f"  {op:<26} {b['rate'] / a['rate']:5.2f} / {a['cpu_us'] / b['cpu_us']:5.2f}  (during the load)")
        if "paired" in r:
            a, b = r["paired"][op]["small"], r["paired"][op]["big"]
            print(f"  {op:<26} {b['rate'] / a['rate']:5.2f} / {a['cpu_us'] / b['cpu_us']:5.2f}  (paired)")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--items", type=int, default=1_000_000, help="items to load (default 1,000,000)")
    p.add_argument("--item-bytes", type=int, default=1000, help="size of each item's body attribute")
    p.add_argument("--store", choices=("leveldb", "sqlite"), default="leveldb")
    p.add_argument("--seconds", type=float, default=8.0, help="each operation's measurement (default 8)")
    p.add_argument("--rounds", type=int, default=4,
                   help="turns of the paired measurement after the load (default 4; 0: none)")
    p.add_argument("--data-dir", help="the data directory (kept; default: a temporary one, removed)")
    p.add_argument("--dynemu-args", default="", help="extra dynemu flags")
    p.add_argument("--json", help="write the figures here")
    p.add_argument("--server-log", help="the server's stderr (kept; default: server.log in a temporary directory)")
    p.add_argument("--measure-only", action="store_true", help="only the paired turns, on the tables of --data-dir")
    args = p.parse_args()
    ITEM_BYTES[0] = args.item_bytes
    if args.measure_only and not args.data_dir:
        p.error("--measure-only needs the --data-dir of an earlier run")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # stop the server and clean up
    with run_dirs("dynemu-scaling", args.data_dir, args.server_log) as (data_dir, log_path):
        print(f"dynemu --store {args.store} --throttling off {args.dynemu_args}: {args.items:,} items; "
              f"server stderr: {log_path}", flush=True)  # fmt: skip
        with open(log_path, "ab") as log:
            result = (measure_only if args.measure_only else run)(args, data_dir, log)
    report(result)
    if args.json:
        Path(args.json).write_text(orjson.dumps(result, option=orjson.OPT_INDENT_2).decode())


if __name__ == "__main__":
    main()
