"""``dynemu replay SCENARIO [--report DIR] [--check] [--endpoint URL | --model MODEL]``.

A scenario that carries evidence (``dynemu scenario from-aws``) also gets, with ``--report DIR``,
``DIR/summary.json`` and ``DIR/evidence.html`` (replay/evidence_report.py), and the per-minute
comparison printed; ``--check`` exits 1 when the reproduction is off (consumed units over 10 %
in some minute, or other minutes with throttle events) and says which minutes.

``--variant NAME=CHANGE`` (repeatable) replays the same traffic under each variant too, each on
a private server, and writes ``DIR/variants.json`` and ``DIR/variants.html`` with a column per
variant (replay/variants.py).

Every mistake (a missing file, a bad scenario, an unknown model, a report path that is a
file, an endpoint that does not answer) is one line on stderr and exit code 2, never a
traceback.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dynemu.engine.capacity.policies import MODELS
from dynemu.replay import evidence_report, report, runner, scenario, variants
from dynemu.testing import DynemuServer

EXIT_ERROR = 2
EXIT_CHECK = 1


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="dynemu replay",
        description="Replay a traffic scenario (JSON) on a virtual clock; print a per-partition summary "
        "and write DIR/report.html with charts.",
    )
    p.add_argument("scenario", help="the scenario file (see examples/scenarios/)")
    p.add_argument("--report", metavar="DIR", help="write DIR/report.html")
    p.add_argument("--force", action="store_true", help="replace a report.html that --report DIR already holds")
    p.add_argument(
        "--endpoint",
        help="a running `dynemu --clock virtual` server (default: a private in-memory one); "
        "its --capacity-model applies, not the scenario's",
    )
    p.add_argument(
        "--check",
        action="store_true",
        help="with a scenario from evidence: exit 1 when consumed units are over 10%% off in a minute or the "
        "throttled minutes differ",
    )
    p.add_argument(
        "--variant",
        action="append",
        metavar="NAME=CHANGE",
        help="what-if: replay under a change too (on-demand, read=N, write=N, warm=N, shards=N, "
        "gsi:INDEX:read=N, gsi:INDEX:write=N, model=NAME; several joined by commas); the private server only",
    )
    p.add_argument("--admin-token", help="the --admin-token of the --endpoint server, if it has one")
    p.add_argument(
        "--model",
        choices=MODELS,
        help="override the scenario's capacity model (the private server only: refused with --endpoint)",
    )
    return p


PRIVATE_START = "2026-01-01T00:00:00Z"  # the private server's clock starts here


def replay(
    path: str, endpoint: str | None = None, model: str | None = None, admin_token: str | None = None
) -> runner.Outcome:
    if model and endpoint:
        raise scenario.ScenarioError(
            "--model applies to the private server only; the --endpoint server's own --capacity-model applies"
        )
    sc = scenario.load(path)
    if model:
        sc.model = model
    if endpoint:
        if not endpoint.startswith(("http://", "https://")):
            raise runner.ReplayError(f"--endpoint {endpoint}: give the scheme, as in http://{endpoint}")
        return runner.run(sc, endpoint.rstrip("/"), _progress, admin_token)
    return run_private(sc)


def run_private(sc: scenario.Scenario) -> runner.Outcome:
    """Replay ``sc`` on a private in-memory server on a virtual clock."""
    lag = {} if sc.replication_lag_ms is None else {"replication_lag_ms": sc.replication_lag_ms}
    # a fixed first instant: the report's clock times are then the same on every run
    with DynemuServer(clock="virtual", clock_start=PRIVATE_START, capacity_model=sc.model, throttling=True, **lag) as url:
        return runner.run(sc, url, _progress)


def _progress(elapsed: int, total: int) -> None:
    print(f"  replayed {elapsed:,} of {total:,} s", file=sys.stderr, flush=True)


def _report_dir(path: str | None, force: bool = False) -> str | None:
    """Why ``--report`` cannot be written, before the replay spends its time."""
    if path is None:
        return None
    d = Path(path)
    if d.exists() and not d.is_dir():
        return f"--report {path}: a file of that name exists; give a directory"
    if (d / "report.html").is_dir():
        return f"--report {path}: {d / 'report.html'} is a directory"
    if (d / "report.html").exists() and not force:
        return f"--report {path}: {d / 'report.html'} exists; give --force to replace it"
    return None


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    problem = _report_dir(args.report, args.force)
    if problem:
        print(f"dynemu replay: {problem}", file=sys.stderr)
        return EXIT_ERROR
    try:
        wanted = [variants.parse(v) for v in args.variant or ()]
        if wanted and args.endpoint:
            raise scenario.ScenarioError("--variant replays on private servers only: drop --endpoint")
        out = replay(args.scenario, args.endpoint, args.model, args.admin_token)
        written = report.write(out, args.report) if args.report else None
        what_if = _variants(out, wanted, args.report) if wanted else None
    except (scenario.ScenarioError, runner.ReplayError) as e:
        print(f"dynemu replay: {e}", file=sys.stderr)
        return EXIT_ERROR
    except OSError as e:  # a file that cannot be read or written
        print(f"dynemu replay: {e.filename or ''}: {e.strerror or e}", file=sys.stderr)
        return EXIT_ERROR
    print(report.summary_text(out))
    items = sum(out.sent.values())
    print(f"\n{items:,} requests in {out.wall_seconds:.1f} s of wall time")
    if written is not None:
        print(f"report: {written}")
    if what_if is not None:
        print("\n" + variants.text(what_if[0]))
        if what_if[1] is not None:
            print(f"what-if report: {what_if[1]}")
    return _compare(out, args.report, args.check)


def _variants(
    out: runner.Outcome, wanted: list[tuple[str, list[tuple[str, str]]]], directory: str | None
) -> tuple[dict[str, Any], Path | None]:
    """Each variant replayed on its own private server; the report beside the scenario as it is."""
    runs = [(variants.BASELINE, "", variants.figures(out))]
    for name, changes in wanted:
        print(f"variant {name}:", file=sys.stderr, flush=True)
        changed = variants.apply(out.scenario, changes)
        change = ",".join(f"{w}={v}" if v else w for w, v in changes)
        runs.append((name, change, variants.figures(run_private(changed))))
    rep = variants.report(runs, out.scenario)
    return rep, variants.write(rep, directory) if directory else None


def _compare(out: runner.Outcome, directory: str | None, check: bool) -> int:
    """The evidence beside the reproduction (a scenario from evidence), and ``--check``."""
    s = evidence_report.summary(out)
    if s is None:
        if check:
            print("dynemu replay: --check needs a scenario with evidence (dynemu scenario from-aws)", file=sys.stderr)
            return EXIT_ERROR
        return 0
    print("\n" + evidence_report.text(s))
    if directory is not None:
        print(f"summary: {evidence_report.write(s, out.scenario.notes, directory)}")
    problems = evidence_report.check(s) if check else []
    for p in problems:
        print(f"check failed: {p}")
    if check and not problems:
        what = " (the table and each GSI)" if s.get("gsis") else ""
        print(f"check passed: consumed within 10 % per minute, the same throttled minutes{what}")
    return EXIT_CHECK if problems else 0
