"""What a table's capacity model keeps across a restart (docs/capacity.md, "Across a
restart"): one record per table in the store, written at a clean stop, with the table's
writes at most once a clock second, and at once when a Contributor Insights setting changes.

* the model's state of the table and of each GSI used since start: the table buckets'
  balances, each partition's ceiling balance and spike allowance and its share balances
  (keyed by the partition's first key), and the on-demand previous peak with the busier
  seconds not yet old enough to count. Balances are restored with the clock time they were
  taken at, so the lazy refill adds exactly the time that passed: a restart in the middle of
  a burst resumes with what the burst left, not with a fresh allowance. A partition the
  record does not know (the map changed after the record was written) takes the state of the
  recorded partition that held its first key: a split's halves share their parent's;
* each GSI's partition map (its boundaries; the sizes are measured again from storage when
  the GSI is first used after the start);
* the Contributor Insights settings of the table and its GSIs (engine/insights.py).
"""

from __future__ import annotations

from bisect import bisect_right
from typing import Any

from dynemu.engine.capacity.throughput import READ, WRITE, ThroughputState

SAVE_EVERY = 1.0  # clock seconds between two saves with the table's writes


def state_record(state: ThroughputState) -> dict[str, Any]:
    """The model's state of one table or GSI, as JSON-able lists."""
    parts = {}
    for part in state.pmap.parts:
        b = part.buckets
        c = b.ceil
        parts[part.start.hex()] = [c.tokens, c.stamp, c.spare, *(x for k in (READ, WRITE)
                                                                 for x in (b.share[k].tokens, b.share[k].stamp))]  # fmt: skip
    return {
        "table": [[b.tokens, b.stamp] for b in state.table_buckets],
        "parts": parts,
        "peak": list(state.peak),
        "pending": [[sec, list(units), load] for sec, units, load in state._pending],
    }


def restore_state(state: ThroughputState, rec: dict[str, Any]) -> None:
    """Put the balances of ``rec`` (``state_record``) back into ``state``, whose buckets were
    configured from its settings (a balance never exceeds the capacity they give)."""
    for bucket, (tokens, stamp) in zip(state.table_buckets, rec.get("table", ()), strict=False):
        bucket.tokens, bucket.stamp = min(tokens, bucket.cap), stamp
    saved = sorted((bytes.fromhex(k), v) for k, v in rec.get("parts", {}).items())
    starts = [s for s, _ in saved]
    for part in state.pmap.parts:
        i = bisect_right(starts, part.start) - 1
        if i < 0:
            continue
        tokens, stamp, spare, r_tokens, r_stamp, w_tokens, w_stamp = saved[i][1]
        b = part.buckets
        b.ceil.tokens, b.ceil.stamp, b.ceil.spare = min(tokens, b.ceil.cap), stamp, min(spare, b.ceil.spare_cap)
        for k, (t, s) in ((READ, (r_tokens, r_stamp)), (WRITE, (w_tokens, w_stamp))):
            b.share[k].tokens, b.share[k].stamp = min(t, b.share[k].cap), s
    state.peak = [float(x) for x in rec.get("peak", state.peak)]
    state._pending.extend((int(sec), (float(u[0]), float(u[1])), float(load)) for sec, u, load in rec.get("pending", ()))


def restore_insights(contributors: Any, rec: dict[str, Any] | None) -> None:
    """Put back a Contributor Insights setting (``insights_record``); engine/insights.py is
    imported only when there is one (start-up stays lean)."""
    if rec:
        from dynemu.engine import insights

        insights.restore(contributors, rec)


def insights_record(ins: Any) -> dict[str, Any] | None:
    """A Contributor Insights setting (engine.insights.Insights), or None when never set."""
    if ins is None or ins.changed_at is None:
        return None
    return {"enabled": ins.enabled, "mode": ins.mode, "changed_at": ins.changed_at, "created_ms": ins.created_ms,
            "since": ins.since, "rule_kinds": list(ins.rule_kinds)}  # fmt: skip
