"""dynemu's hot-path benchmark: item operations, Query and batches against a bare aiohttp + orjson server.

    python bench/throughput.py --seconds 5            # the measurement (about a minute)
    python bench/throughput.py --seconds 0.5          # smoke run (a few seconds)
    python bench/throughput.py --dynemu-args "--throttling off" --leveldb

Starts the baseline server (bench/baseline_server.py) and ``python -m dynemu`` on free
loopback ports, each pinned to one core, with the load generator (bench/load.py, its own
process) pinned to the other. Creates a table (pk S), puts every key once, then runs each
operation against both servers in alternating order (A/B, then B/A, ...) for ``--rounds``
rounds and prints, per operation, the median throughput of each and the median of the
per-round ratios, next to the project's floor: GetItem >= 85 %, PutItem >= 60 %, Query (10 of
100 items under one key) >= 50 %, BatchWriteItem (25 puts) >= 10 % of the baseline served on
uvloop (``--baseline-uvloop``, the floor server the floors are set against); UpdateItem (ADD),
which has no floor of its own, is shown against 55 %.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from typing import Any

import orjson
from harness import (
    Server,
    baseline_argv,
    dynemu_argv,
    free_port,
    pick_cores,
    pin_self,
    prepare,
    run_load,
    temp_dir,
)
from workload import OPERATIONS

TARGETS = {"GetItem": 0.85, "PutItem": 0.60, "UpdateItem": 0.55, "Query": 0.50, "BatchWriteItem": 0.10}
SATURATED = 0.85  # server CPU share above which a run counts as server-bound ("clean")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=5.0, help="measured seconds per run (default 5)")
    p.add_argument("--rounds", type=int, help="A/B rounds (default 3; 1 when --seconds < 1)")
    p.add_argument("--max-rounds", type=int,
                   help="rounds at most, re-running operations whose rounds were noisy (default 2x --rounds)")
    p.add_argument("--warmup", type=float, help="unmeasured seconds before each run (default seconds/5, <= 1)")
    p.add_argument("--connections", type=int, default=64, help="concurrent keep-alive connections (default 64)")
    p.add_argument("--keys", type=int, help="distinct keys (default 10000; 1000 when --seconds < 1)")
    p.add_argument("--ops", default=",".join(OPERATIONS), help=f"comma-separated (default {','.join(OPERATIONS)})")
    p.add_argument("--dynemu-args", default="", help='extra dynemu flags, e.g. "--throttling off"')
    p.add_argument("--reference-args", default=None,
                   help='make the reference (100 %%) a dynemu with these flags instead of the bare server, '
                        'e.g. "--throttling off" to measure what capacity accounting costs')
    p.add_argument("--baseline-uvloop", action="store_true", help="serve the baseline on uvloop (installed)")
    p.add_argument("--leveldb", action="store_true", help="LevelDB in a temporary --data-dir, not --in-memory")
    p.add_argument("--provisioned", metavar="RCU:WCU", help="provisioned table (default on-demand)")
    p.add_argument("--no-pin", action="store_true", help="do not pin server and client to cores")
    p.add_argument("--json", metavar="PATH", help="also write every run's figures to PATH")
    return p


def _saturated(run: dict[str, Any]) -> bool:
    """The server had its core and was the bottleneck: the run measures the server."""
    cpu = run["server_cpu"]
    return cpu is not None and cpu >= SATURATED


def _measure(args: argparse.Namespace, ops: list[str], rounds: int, max_rounds: int,
             warmup: float) -> list[dict[str, Any]]:
    server_core, client_core = pick_cores(not args.no_pin)
    pin_self(client_core)
    provisioned = tuple(int(x) for x in args.provisioned.split(":")) if args.provisioned else None
    runs: list[dict[str, Any]] = []
    with temp_dir("dynemu-bench-") as tmp:
        data_dir = f"{tmp}/data" if args.leveldb else None
        servers: list[Server] = []
        try:
            if args.reference_args is None:
                argv = baseline_argv(port := free_port()) + (["--uvloop"] if args.baseline_uvloop else [])
                base = Server("baseline", argv, port, server_core, tmp)
            else:  # the reference is dynemu itself with other flags (still called "baseline" below)
                ref_dir = f"{tmp}/ref-data" if args.leveldb else None
                base = Server("baseline", dynemu_argv(port := free_port(), ref_dir, args.reference_args), port,
                              server_core, tmp)
            servers.append(base)
            base.wait_ready()
            if args.reference_args is not None:
                prepare(base.port, ops, args.keys, provisioned, client_core)  # type: ignore[arg-type]
            dyn = Server("dynemu", dynemu_argv(port := free_port(), data_dir, args.dynemu_args), port,
                         server_core, tmp)
            servers.append(dyn)
            dyn.wait_ready()
            loaded = prepare(dyn.port, ops, args.keys, provisioned, client_core)  # type: ignore[arg-type]
            print(f"preloaded {args.keys} items in {loaded['seconds']:.2f} s", flush=True)
            clean = dict.fromkeys(ops, 0)
            r = 0
            # Go on past --rounds (up to --max-rounds) while an operation lacks clean rounds.
            while r < max_rounds and (r < rounds or min(clean.values()) < rounds):
                r += 1
                for op in ops:
                    if r > rounds and clean[op] >= rounds:
                        continue
                    order = (base, dyn) if r % 2 == 1 else (dyn, base)
                    pair = []
                    for server in order:
                        res = run_load(server.port, op, core=client_core, server_pid=server.pid,
                                       seconds=args.seconds, warmup=warmup, keys=args.keys,
                                       connections=args.connections, server_core=server_core)
                        res.update(round=r, server=server.name)
                        runs.append(res)
                        pair.append(res)
                        _progress(res)
                    clean[op] += all(_saturated(x) for x in pair)
        except Exception:
            for server in servers:
                print(f"--- {server.name} log ---\n{server.log_tail()}", file=sys.stderr)
            raise
        finally:
            for server in servers:
                server.stop()
    return runs


def _progress(r: dict[str, Any]) -> None:
    print(f"  round {r['round']} {r['op']:<7} {r['server']:<8} {r['rps']:>9,.0f} req/s  "
          f"p50 {r['p50_ms']:6.2f} ms  p99 {r['p99_ms']:6.2f} ms  "
          f"cpu server {_pct(r['server_cpu'])} client {_pct(r['client_cpu'])}  "
          f"others on server core {_pct(r['server_core_other'])} client core {_pct(r['client_core_other'])}  "
          f"{r['errors']} errors", flush=True)
    if r["first_error"]:
        print(f"    first error: {r['first_error']}", flush=True)


def _pct(x: float | None) -> str:
    return "  n/a" if x is None or x != x else f"{x:5.0%}"


def _median(values: list[float]) -> float:
    values = [v for v in values if v is not None and v == v]
    return statistics.median(values) if values else float("nan")


def _summary(runs: list[dict[str, Any]], ops: list[str]) -> list[dict[str, Any]]:
    """Per operation, over the clean rounds (both runs server-bound) if there are any,
    else over all rounds: medians of each side and of the per-round ratios."""
    rows = []
    for op in ops:
        by_round: dict[int, dict[str, dict[str, Any]]] = {}
        for r in runs:
            if r["op"] == op:
                by_round.setdefault(r["round"], {})[r["server"]] = r
        every = [(v["baseline"], v["dynemu"]) for v in by_round.values() if len(v) == 2]
        clean = [(b, d) for b, d in every if _saturated(b) and _saturated(d)]
        pairs = clean or every
        ratios = [d["rps"] / b["rps"] for b, d in pairs if b["rps"]]
        cpu_ratios = [b["server_us_per_req"] / d["server_us_per_req"] for b, d in pairs
                      if b["server_us_per_req"] and d["server_us_per_req"]]
        rows.append({
            "op": op,
            "rounds": len(every),
            "clean_rounds": len(clean),
            "baseline_rps": _median([b["rps"] for b, _ in pairs]),
            "dynemu_rps": _median([d["rps"] for _, d in pairs]),
            "ratio": _median(ratios),
            "ratio_min": min(ratios, default=float("nan")),
            "ratio_max": max(ratios, default=float("nan")),
            "baseline_us": _median([b["server_us_per_req"] for b, _ in pairs]),
            "dynemu_us": _median([d["server_us_per_req"] for _, d in pairs]),
            "cpu_ratio": _median(cpu_ratios),
            "dynemu_p50_ms": _median([d["p50_ms"] for _, d in pairs]),
            "dynemu_p99_ms": _median([d["p99_ms"] for _, d in pairs]),
            "errors": sum(d["errors"] + b["errors"] for b, d in every),
            "target": TARGETS.get(op, float("nan")),
        })
    return rows


def _print_table(rows: list[dict[str, Any]]) -> None:
    print()
    print(f"{'operation':<10}{'clean':>6}{'baseline req/s':>16}{'dynemu req/s':>14}{'ratio':>8}"
          f"{'(min-max)':>12}{'target':>8}{'':>7}{'base µs/req':>13}{'dyn µs/req':>12}{'cpu ratio':>11}"
          f"{'dyn p50/p99 ms':>17}{'errors':>8}")
    for row in rows:
        verdict = "ok" if row["ratio"] >= row["target"] else "BELOW"
        spread = f"{row['ratio_min']:.0%}-{row['ratio_max']:.0%}"
        clean = f"{row['clean_rounds']}/{row['rounds']}"
        print(f"{row['op']:<10}{clean:>6}{row['baseline_rps']:>16,.0f}{row['dynemu_rps']:>14,.0f}"
              f"{row['ratio']:>8.1%}{spread:>12}{row['target']:>8.0%}{verdict:>7}"
              f"{row['baseline_us']:>13.1f}{row['dynemu_us']:>12.1f}{row['cpu_ratio']:>11.1%}"
              f"{row['dynemu_p50_ms']:>9.2f}/{row['dynemu_p99_ms']:<7.2f}{row['errors']:>8}")
    print(f"\nclean = rounds in which both servers used >= {SATURATED:.0%} of their core (server-bound); "
          "figures are medians over the clean rounds, or over all rounds when none was clean.\n"
          "ratio = dynemu req/s / baseline req/s within each round; cpu ratio = baseline / dynemu "
          "server CPU time per request.")
    if any(row["clean_rounds"] == 0 for row in rows):
        print("warning: an operation had no clean round (another process took the server's core, or the "
              "client was the bottleneck): its req/s ratio is unreliable, the cpu ratio less so.")
    if any(row["errors"] for row in rows):
        print("warning: some requests failed (see 'first error' above); failed requests are not counted.")


def main() -> None:
    args = _parser().parse_args()
    ops = [op.strip() for op in args.ops.split(",") if op.strip()]
    for op in ops:
        if op not in OPERATIONS:
            raise SystemExit(f"throughput.py: unknown operation {op}; known: {', '.join(OPERATIONS)}")
    smoke = args.seconds < 1  # a check that it works, in a few seconds: one round, fewer keys
    rounds = args.rounds if args.rounds is not None else (1 if smoke else 3)
    if args.keys is None:
        args.keys = 1000 if smoke else 10_000
    warmup = args.warmup if args.warmup is not None else min(1.0, args.seconds / 5)
    store = "LevelDB" if args.leveldb else "in-memory"
    reference = "bare aiohttp+orjson" if args.reference_args is None else f"dynemu {args.reference_args}"
    print(f"dynemu vs {reference}: {rounds} round(s) x {args.seconds:g} s (+{warmup:g} s warm-up), "
          f"{args.connections} connections, {args.keys} keys, {store}, "
          f"dynemu args: {args.dynemu_args or '(none)'}", flush=True)
    default_max = rounds if smoke else 2 * rounds
    max_rounds = max(rounds, args.max_rounds if args.max_rounds is not None else default_max)
    runs = _measure(args, ops, rounds, max_rounds, warmup)
    rows = _summary(runs, ops)
    _print_table(rows)
    if args.json:
        with open(args.json, "wb") as f:
            f.write(orjson.dumps({"args": vars(args), "runs": runs, "summary": rows},
                                 option=orjson.OPT_INDENT_2))


if __name__ == "__main__":
    main()
