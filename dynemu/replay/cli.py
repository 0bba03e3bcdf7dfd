"""``dynemu replay SCENARIO [--report DIR] [--endpoint URL]``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from dynemu.replay import report, runner, scenario
from dynemu.testing import DynemuServer


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dynemu replay",
        description="Replay a traffic scenario (JSON) on a virtual clock; print a per-partition summary "
        "and write DIR/report.html with charts.",
    )
    p.add_argument("scenario", help="the scenario file (see examples/scenarios/)")
    p.add_argument("--report", metavar="DIR", help="write DIR/report.html")
    p.add_argument(
        "--endpoint",
        help="a running `dynemu --clock virtual` server (default: a private in-memory one); "
        "its --capacity-model applies, not the scenario's",
    )
    p.add_argument("--admin-token", help="the --admin-token of the --endpoint server, if it has one")
    p.add_argument("--model", help="override the scenario's capacity model (private server only)")
    return p


def replay(
    path: str, endpoint: str | None = None, model: str | None = None, admin_token: str | None = None
) -> runner.Outcome:
    sc = scenario.load(path)
    if model:
        sc.model = model
    if endpoint:
        return runner.run(sc, endpoint.rstrip("/"), _progress, admin_token)
    with DynemuServer(clock="virtual", capacity_model=sc.model, throttling=True) as url:
        return runner.run(sc, url, _progress)


def _progress(elapsed: int, total: int) -> None:
    print(f"  replayed {elapsed:,} of {total:,} s", file=sys.stderr, flush=True)


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        out = replay(args.scenario, args.endpoint, args.model, args.admin_token)
    except (scenario.ScenarioError, runner.ReplayError, OSError) as e:
        print(f"dynemu replay: {e}", file=sys.stderr)
        return 2
    print(report.summary_text(out))
    items = sum(out.sent.values())
    print(f"\n{items:,} requests in {out.wall_seconds:.1f} s of wall time")
    if args.report:
        print(f"report: {report.write(out, args.report)}")
    return 0
