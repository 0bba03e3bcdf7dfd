"""What each region of a replayed global table saw, and when: the report's section and the
printed summary's lines, from the runner's per-second samples of ``/_dynemu/global-tables``
(``runner._sample_replication``). Every figure is cumulative at the end of its second."""

from __future__ import annotations

from html import escape
from typing import Any

from dynemu.replay.runner import Outcome


def _changes(samples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The seconds where something changed (and the last), so a long run stays readable."""
    out = []
    for i, s in enumerate(samples):
        same = i > 0 and {k: v for k, v in s.items() if k != "t"} == {k: v for k, v in samples[i - 1].items() if k != "t"}
        if not same or i == len(samples) - 1:
            out.append(s)
    return out


def _directions(samples: list[dict[str, Any]]) -> list[str]:
    regions = list(samples[-1]["items"])
    found = {d for s in samples for d in (*s["backlog"], *s["applied"])}
    return sorted(found | {f"{a} → {b}" for a in regions for b in regions if a != b})


def _settled(samples: list[dict[str, Any]], region: str) -> int:
    """The first second from which ``region`` held its final item count."""
    final = samples[-1]["items"].get(region)
    t = samples[-1]["t"]
    for s in reversed(samples):
        if s["items"].get(region) != final:
            break
        t = s["t"]
    return int(t)


def section(out: Outcome) -> str:
    parts = []
    for table, samples in sorted(out.replication.items()):
        regions = list(samples[-1]["items"])
        dirs = _directions(samples)
        head = "".join(f"<th>{escape(r)}: written</th><th>{escape(r)}: items</th>" for r in regions)
        head += "".join(f"<th>{escape(d)}: backlog</th><th>{escape(d)}: applied</th>" for d in dirs)
        rows = "".join(
            f'<tr class="sample"><td>{s["t"]}</td>'
            + "".join(f"<td>{s['written'].get(r, 0):,}</td><td>{s['items'].get(r, 0):,}</td>" for r in regions)
            + "".join(f"<td>{s['backlog'].get(d, 0):,}</td><td>{s['applied'].get(d, 0):,}</td>" for d in dirs)
            + f"<td>{s['conflicts']:,}</td></tr>"
            for s in _changes(samples)
        )
        parts.append(
            f'<section class="resource replication"><h2>{escape(table)} · what each region saw</h2>'
            f'<p class="note">replication lag {out.replication_lag_ms or 0:g} ms · figures at the end of each second '
            "since the start, cumulative; seconds where nothing changed are left out</p>"
            f'<table class="counts"><tr><th>second</th>{head}<th>conflicts resolved</th></tr>{rows}</table></section>'
        )
    return "".join(parts)


def summary_lines(out: Outcome) -> list[str]:
    lines = []
    for table, samples in sorted(out.replication.items()):
        last = samples[-1]
        lines.append(f"\nglobal table {table} (replication lag {out.replication_lag_ms or 0:g} ms):")
        for r, n in last["items"].items():
            lines.append(
                f"  {r}: {last['written'].get(r, 0):,} writes admitted, {n:,} items, "
                f"that count from second {_settled(samples, r)}"
            )
        for d in _directions(samples):
            lines.append(f"  {d}: {last['applied'].get(d, 0):,} applied, {last['backlog'].get(d, 0):,} pending at the end")
        lines.append(f"  conflicts resolved (last writer wins): {last['conflicts']:,}")
    return lines
