"""Where dynemu's hot path spends its time: cProfile of the server while it answers a fixed
number of GetItem and PutItem requests.

    python bench/hotpath_profile.py --count 20000 [--top 15] [--dynemu-args "..."] [--leveldb]

Starts dynemu in a wrapper process (this file with ``--serve``) whose profiler is switched on
by SIGUSR1 and off by SIGUSR2 (which also writes the stats), so set-up (table creation, the
preload) stays out of the figures. The load comes from bench/load.py in another process, as
in bench/throughput.py. Prints, per operation, the top functions by cumulative and by own
time, then dynemu's own functions by cumulative time, and keeps the ``.prof`` files with ``--keep DIR`` (for snakeviz, pstats, ...).
cProfile's own overhead inflates call-heavy code: read proportions, not absolute times.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import os
import pstats
import shlex
import shutil
import signal
import sys
import time
from pathlib import Path

from harness import (
    REPO_DIR,
    Server,
    free_port,
    pick_cores,
    pin_self,
    prepare,
    run_load,
    temp_dir,
)
from workload import OPERATIONS


def serve(profile_dir: str, dynemu_argv: list[str]) -> None:
    """Run dynemu in this process, profiled between SIGUSR1 and SIGUSR2."""
    sys.path.insert(0, str(REPO_DIR))  # the working tree this bench/ belongs to, as `-m dynemu` from it
    from dynemu.api.http import HttpListener
    from dynemu.api.service import Service
    from dynemu.config import load_settings
    from dynemu.startup import bind, loop_factory

    settings = load_settings(dynemu_argv)
    service = Service(settings)
    state: dict[str, object] = {"profiler": None, "n": 0}

    def start() -> None:
        profiler = cProfile.Profile()
        state["profiler"] = profiler
        Path(profile_dir, "on").touch()
        profiler.enable()

    def stop() -> None:
        profiler = state["profiler"]
        if not isinstance(profiler, cProfile.Profile):
            return
        profiler.disable()
        n = int(state["n"])  # type: ignore[call-overload]
        state["n"] = n + 1
        tmp = os.path.join(profile_dir, f".{n}.prof")
        profiler.dump_stats(tmp)
        os.replace(tmp, os.path.join(profile_dir, f"{n}.prof"))
        os.unlink(os.path.join(profile_dir, "on"))

    async def run() -> None:  # as `python -m dynemu` serves (dynemu/cli.py)
        server = HttpListener(service)
        await server.start(bind(settings.host, settings.port))
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGUSR1, start)
        loop.add_signal_handler(signal.SIGUSR2, stop)
        done = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, done.set)
        await done.wait()
        await server.stop()

    with asyncio.Runner(loop_factory=loop_factory(settings)) as runner:
        runner.run(run())


def _wait_for(path: Path, present: bool, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while path.exists() != present:
        if time.monotonic() > deadline:
            raise RuntimeError(f"profiled server did not {'write' if present else 'remove'} {path}")
        time.sleep(0.02)


def _report(op: str, prof: Path, top: int, result: dict[str, object]) -> None:
    print(f"\n=== {op}: {result['requests']} requests ({result['errors']} errors), "
          f"{result['rps']:,.0f} req/s under the profiler ===", flush=True)
    for key in ("cumulative", "tottime"):
        print(f"--- top {top} by {key} ---", flush=True)
        stats = pstats.Stats(str(prof), stream=sys.stdout)
        stats.strip_dirs().sort_stats(key).print_stats(top)
        sys.stdout.flush()
    # The same without asyncio and aiohttp: dynemu's own functions (full paths kept to filter).
    print(f"--- top {top} of dynemu's own functions by cumulative ---", flush=True)
    pstats.Stats(str(prof), stream=sys.stdout).sort_stats("cumulative").print_stats(r"/dynemu/", top)
    sys.stdout.flush()


def profile(args: argparse.Namespace) -> None:
    server_core, client_core = pick_cores(True)
    pin_self(client_core)
    with temp_dir("dynemu-profile-") as tmp:
        profile_dir = Path(tmp, "profiles")
        profile_dir.mkdir()
        store = ["--data-dir", f"{tmp}/data"] if args.leveldb else ["--in-memory"]
        port = free_port()
        argv = [sys.executable, __file__, "--serve", str(profile_dir), "--host", "127.0.0.1",
                "--port", str(port), *store, *shlex.split(args.dynemu_args)]
        server = Server("dynemu-profiled", argv, port, server_core, tmp)
        try:
            server.wait_ready()
            prepare(port, args.ops.split(","), args.keys, None, client_core)
            for n, op in enumerate(args.ops.split(",")):
                server.proc.send_signal(signal.SIGUSR1)
                _wait_for(profile_dir / "on", True)
                result = run_load(port, op, core=client_core, count=args.count, seconds=300.0,
                                  warmup=0.0, keys=args.keys, connections=args.connections)
                server.proc.send_signal(signal.SIGUSR2)
                prof = profile_dir / f"{n}.prof"
                _wait_for(prof, True)
                _report(op, prof, args.top, result)
                if args.keep:
                    os.makedirs(args.keep, exist_ok=True)
                    shutil.copy(prof, os.path.join(args.keep, f"{op}.prof"))
        except Exception:
            print(f"--- server log ---\n{server.log_tail()}", file=sys.stderr)
            raise
        finally:
            server.stop()


def main() -> None:
    if len(sys.argv) > 2 and sys.argv[1] == "--serve":
        serve(sys.argv[2], sys.argv[3:])
        return
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--count", type=int, default=20_000, help="requests per operation (default 20000)")
    p.add_argument("--keys", type=int, default=10_000, help="distinct keys (default 10000)")
    p.add_argument("--connections", type=int, default=64)
    p.add_argument("--ops", default=",".join(OPERATIONS), help="comma-separated (default GetItem,PutItem)")
    p.add_argument("--top", type=int, default=15, help="rows per table (default 15)")
    p.add_argument("--dynemu-args", default="", help="extra dynemu flags")
    p.add_argument("--leveldb", action="store_true", help="LevelDB in a temporary --data-dir")
    p.add_argument("--keep", metavar="DIR", help="copy the .prof files here")
    profile(p.parse_args())


if __name__ == "__main__":
    main()
