"""Work that runs a step per turn of the server's event loop, so that requests are answered
meanwhile: ImportTable and ExportTableToPointInTime (``engine/exports/jobs.py``), and the
backfill of an index created by UpdateTable (``engine/ddl.py``, ``engine/vectors``), which
stays CREATING ("Backfilling") until its last step.

While such work runs, its namespace is not evicted (``Namespaces._evict``): its store stays
open under it. A namespace closed all the same (the server stopping, a state reset or
restore) ends the work at its next step; the next open of the store settles what it left
(``engine/exports/recovery.py``; a backfill goes on from the index's saved spec).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator
from typing import Any

Done = Callable[[BaseException | None], None]


def run_steps(db: Any, work: Iterator[None], done: Done | None = None) -> None:
    """Run ``work`` a step per turn of the event loop, then ``done`` (with the exception that
    stopped it, if any); without a running loop (the engine driven directly), at once.
    ``db`` (the namespace) counts it in ``steps_running`` until it ends."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        _finish(work, done)
        return
    db.steps_running += 1

    def step() -> None:
        if db.closed:  # the namespace went away under the work
            db.steps_running -= 1
            return
        try:
            next(work)
        except StopIteration:
            _ended(db, done, None)
            return
        except Exception as e:  # noqa: BLE001 - the work fails; the loop goes on
            _ended(db, done, e)
            return
        loop.call_soon(step)

    loop.call_soon(step)


def _ended(db: Any, done: Done | None, error: BaseException | None) -> None:
    db.steps_running -= 1
    if done is not None:
        done(error)


def _finish(work: Iterator[None], done: Done | None) -> None:
    try:
        for _ in work:
            pass
    except Exception as e:  # noqa: BLE001
        if done is None:
            raise
        done(e)
        return
    if done is not None:
        done(None)
