"""Start-up time: from exec of ``python -m dynemu`` to its first answered ListTables.

    python bench/startup.py                      # in memory and on an empty LevelDB, 5 runs each
    python bench/startup.py --items 1000000      # also LevelDB holding that many items (slow to fill)
    python bench/startup.py --items 1000000 --data-dir /tmp/full  # filled once, kept, reused
    python bench/startup.py --data-dir /tmp/mem1m  # also a data directory filled before
                                                 # (e.g. by bench/memory.py --data-dir)
    python bench/startup.py --callgrind          # instructions per start (valgrind; noise-free)

Each run starts a fresh server process on a free loopback port, polls ListTables until it
answers 200, records the elapsed wall time and the server's CPU time, and stops the server.
Prints min / median / max per store, and the same for ``python -c pass`` (the interpreter and
this environment's ``site``, which dynemu does not control) with dynemu's own share: the
median minus that of ``python -c pass``. The goal: under 0.15 s in memory and on LevelDB with
1 M items.

The package's bytecode is compiled first (``compileall``), as an installed package's is:
with ``PYTHONDONTWRITEBYTECODE`` set and no ``__pycache__``, every start would compile
dynemu's sources again (about 0.15 s more CPU). A start also reads dynemu's cache in
``$XDG_CACHE_HOME/dynemu`` (the validators' model); the first start
writes it and is not representative, so one unmeasured start runs first.

``--callgrind`` runs one start per store under ``valgrind --tool=callgrind`` and prints the
instructions of the whole process (exec, start-up, one ListTables, SIGINT, stop), next to
``python -c pass`` (the interpreter and this environment's ``site``, which dynemu does not
control). Instruction counts do not depend on the machine's other load.
"""

from __future__ import annotations

import argparse
import compileall
import http.client
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

import orjson
from harness import HOST, REPO_DIR, Server, call, create_table, dynemu_argv, free_port, temp_dir
from workload import AUTHORIZATION, CONTENT_TYPE, DEFAULT_TABLE, TARGET_PREFIX, make_item

GOAL_SECONDS = 0.15
FILLED_MARK = "bench-startup-items"  # in a --data-dir this script filled: the item count


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


def time_start(data_dir: str | None, extra: str, log_dir: str, timeout: float = 60.0,
               wrapper: list[str] | None = None) -> tuple[float, float]:
    """(wall seconds, server CPU seconds) from exec to the first answered ListTables; the CPU
    figure is less disturbed by other load on a shared machine (nan where /proc is missing)."""
    port = free_port()
    t0 = time.perf_counter()
    server = Server("startup", [*(wrapper or []), *dynemu_argv(port, data_dir, extra)], port, None, log_dir)
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


def instructions(data_dir: str | None, extra: str, log_dir: str) -> int:
    """Instructions of one whole run under callgrind: start, one ListTables, stop."""
    out = os.path.join(log_dir, "callgrind.out")
    time_start(data_dir, extra, log_dir, timeout=300.0,
               wrapper=["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"])
    with open(os.path.join(log_dir, "startup.log"), encoding="utf-8", errors="replace") as f:
        found = re.findall(r"Collected : (\d+)", f.read())
    if not found:
        raise RuntimeError("no instruction count in the server's log (valgrind missing?)")
    return int(found[-1])


def interpreter_instructions() -> int:
    done = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           sys.executable, "-c", "pass"], capture_output=True, text=True, timeout=120)
    return int(re.findall(r"Collected : (\d+)", done.stderr)[-1])


def fill(data_dir: str, items: int, log_dir: str) -> None:
    """Put ``items`` items into a LevelDB data directory, 25 per BatchWriteItem, throttling off;
    a directory this script filled with as many items before is used as it is."""
    import random

    mark = os.path.join(data_dir, FILLED_MARK)
    if os.path.exists(mark):
        with open(mark) as f:
            if f.read().strip() == str(items):
                print(f"using {data_dir}, filled before with {items:,} items", flush=True)
                return
        raise RuntimeError(f"{data_dir} was filled with another item count: choose another --data-dir")
    print(f"filling LevelDB in {data_dir} with {items:,} items ...", flush=True)
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
    with open(mark, "w") as f:
        f.write(str(items))


def compile_bytecode() -> None:
    """Write dynemu's __pycache__ (as installing the package does); quiet, idempotent."""
    if not compileall.compile_dir(str(REPO_DIR / "dynemu"), quiet=1):
        raise RuntimeError("compileall failed")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=5, help="starts per store (default 5)")
    p.add_argument("--items", type=int, default=0, help="also time LevelDB holding this many items")
    p.add_argument("--data-dir", help="with --items: fill this directory once and keep it; "
                   "without: also time this data directory, filled before")
    p.add_argument("--only-data-dir", action="store_true", help="time only the --items / --data-dir store")
    p.add_argument("--callgrind", action="store_true", help="instructions of one start per store (valgrind)")
    p.add_argument("--dynemu-args", default="", help="extra dynemu flags")
    args = p.parse_args()
    compile_bytecode()
    with temp_dir("dynemu-startup-") as tmp:
        cases: list[tuple[str, str | None]] = []
        if not args.only_data_dir:
            cases += [("in memory", None), ("LevelDB, empty", f"{tmp}/empty")]
        if args.items:
            full = args.data_dir or f"{tmp}/full"
            fill(full, args.items, tmp)
            cases.append((f"LevelDB, {args.items:,} items", full))
        elif args.data_dir:
            cases.append((f"LevelDB, {os.path.basename(os.path.normpath(args.data_dir))}", args.data_dir))
        time_start(None, args.dynemu_args, tmp)  # writes the caches if they are cold
        if args.callgrind:
            report_instructions(cases, args.dynemu_args, tmp)
        else:
            report_times(cases, args.runs, args.dynemu_args, tmp)
        shutil.rmtree(f"{tmp}/empty", ignore_errors=True)


def interpreter_seconds() -> float:
    """Wall seconds of ``python -c pass``, exec to exit."""
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - t0


def report_times(cases: list[tuple[str, str | None]], runs: int, extra: str, tmp: str) -> None:
    rows: list[tuple[str, list[float], list[float]]] = []
    floor = [interpreter_seconds() for _ in range(runs)]
    print("  python -c pass: " + " ".join(f"{t:.3f}" for t in floor), flush=True)
    for name, data_dir in cases:
        timed = [time_start(data_dir, extra, tmp) for _ in range(runs)]
        times, cpus = [w for w, _ in timed], [c for _, c in timed]
        rows.append((name, times, cpus))
        print(f"  {name}: " + " ".join(f"{t:.3f}" for t in times) + "  cpu " + " ".join(f"{c:.2f}" for c in cpus),
              flush=True)
    base = statistics.median(floor)
    print(f"\n{'store':<28}{'min s':>8}{'median s':>10}{'max s':>8}{'cpu min-max s':>16}{'cpu median s':>14}"
          f"{'dynemu s':>10}  goal < {GOAL_SECONDS} s")
    print(f"{'python -c pass':<28}{min(floor):>8.3f}{base:>10.3f}{max(floor):>8.3f}")
    for name, times, cpus in rows:
        med = statistics.median(times)
        verdict = "ok" if med < GOAL_SECONDS else "ABOVE"
        print(f"{name:<28}{min(times):>8.3f}{med:>10.3f}{max(times):>8.3f}{min(cpus):>8.2f}-{max(cpus):<7.2f}"
              f"{statistics.median(cpus):>14.3f}{med - base:>10.3f}  {verdict}")
    sys.stdout.flush()


def report_instructions(cases: list[tuple[str, str | None]], extra: str, tmp: str) -> None:
    floor = interpreter_instructions()
    print(f"{'python -c pass':<28}{floor / 1e6:>10,.1f} M instructions", flush=True)
    for name, data_dir in cases:
        count = instructions(data_dir, extra, tmp)
        print(f"{name:<28}{count / 1e6:>10,.1f} M instructions ({(count - floor) / 1e6:,.1f} M above the interpreter)",
              flush=True)


if __name__ == "__main__":
    main()
