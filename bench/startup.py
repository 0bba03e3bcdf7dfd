"""Start-up time: from exec of ``python -m dynemu`` to its first answered ListTables.

    python bench/startup.py                      # in memory and on an empty LevelDB, 5 runs each
    python bench/startup.py --items 1000000      # also LevelDB holding that many items (slow to fill)

Each run starts a fresh server process on a free loopback port, polls ListTables until it
answers 200, records the elapsed wall time, and stops the server. Prints min / median / max per
store. The goal (issue 18): under 0.3 s in memory and on LevelDB with 1 M items.
"""

from __future__ import annotations

import argparse
import http.client
import os
import statistics
import sys
import time

import orjson
from harness import HOST, Server, call, create_table, dynemu_argv, free_port, temp_dir
from workload import AUTHORIZATION, CONTENT_TYPE, DEFAULT_TABLE, TARGET_PREFIX, make_item

GOAL_SECONDS = 0.3


def _answers_list_tables(port: int) -> bool:
    try:
        conn = http.client.HTTPConnection(HOST, port, timeout=2)
        conn.request("POST", "/", b"{}", {"X-Amz-Target": TARGET_PREFIX + "ListTables",
                                          "Content-Type": CONTENT_TYPE, "Authorization": AUTHORIZATION})
        ok = conn.getresponse().status == 200
        conn.close()
        return ok
    except OSError:
        return False


def _cpu_seconds(pid: int) -> float:
    """CPU seconds (user + system) the process has used so far."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        fields = f.read().rsplit(b")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def time_start(data_dir: str | None, extra: str, log_dir: str, timeout: float = 60.0) -> tuple[float, float]:
    """(wall seconds, server CPU seconds) from exec to the first answered ListTables; the CPU
    figure is less disturbed by other load on a shared machine (nan where /proc is missing)."""
    port = free_port()
    t0 = time.perf_counter()
    server = Server("startup", dynemu_argv(port, data_dir, extra), port, None, log_dir)
    try:
        while not _answers_list_tables(port):
            if server.proc.poll() is not None or time.perf_counter() - t0 > timeout:
                raise RuntimeError(f"dynemu did not start:\n{server.log_tail()}")
            time.sleep(0.002)
        wall = time.perf_counter() - t0
        try:
            cpu = _cpu_seconds(server.pid)
        except OSError:
            cpu = float("nan")
        return wall, cpu
    finally:
        server.stop()


def fill(data_dir: str, items: int, log_dir: str) -> None:
    """Put ``items`` items into a LevelDB data directory, 25 per BatchWriteItem, throttling off."""
    import random

    port = free_port()
    server = Server("fill", dynemu_argv(port, data_dir, "--throttling off"), port, None, log_dir)
    try:
        server.wait_ready()
        create_table(port, DEFAULT_TABLE, None)
        rng = random.Random(1)
        for first in range(0, items, 25):
            puts = [{"PutRequest": {"Item": make_item(i, rng)}} for i in range(first, min(items, first + 25))]
            status, answer = call(port, "BatchWriteItem", {"RequestItems": {DEFAULT_TABLE: puts}})
            if status != 200 or answer.get("UnprocessedItems"):
                raise RuntimeError(f"fill failed at {first}: {status} {orjson.dumps(answer)[:200]!r}")
    finally:
        server.stop()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5, help="starts per store (default 5)")
    p.add_argument("--items", type=int, default=0, help="also time LevelDB holding this many items")
    p.add_argument("--dynemu-args", default="", help="extra dynemu flags")
    args = p.parse_args()
    rows: list[tuple[str, list[float], list[float]]] = []
    with temp_dir("dynemu-startup-") as tmp:
        cases: list[tuple[str, str | None]] = [("in memory", None), ("LevelDB, empty", f"{tmp}/empty")]
        if args.items:
            print(f"filling LevelDB with {args.items:,} items ...", flush=True)
            fill(f"{tmp}/full", args.items, tmp)
            cases.append((f"LevelDB, {args.items:,} items", f"{tmp}/full"))
        for name, data_dir in cases:
            runs = [time_start(data_dir, args.dynemu_args, tmp) for _ in range(args.runs)]
            times, cpus = [w for w, _ in runs], [c for _, c in runs]
            rows.append((name, times, cpus))
            print(f"  {name}: " + " ".join(f"{t:.3f}" for t in times), flush=True)
    print(f"\n{'store':<28}{'min s':>8}{'median s':>10}{'max s':>8}{'cpu median s':>14}  goal < {GOAL_SECONDS} s")
    for name, times, cpus in rows:
        med = statistics.median(times)
        verdict = "ok" if med < GOAL_SECONDS else "ABOVE"
        print(f"{name:<28}{min(times):>8.3f}{med:>10.3f}{max(times):>8.3f}{statistics.median(cpus):>14.3f}  {verdict}")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
