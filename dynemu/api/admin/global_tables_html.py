"""The dashboard's "global tables" section: each global table's replicas, the replication
backlog and the changes applied per direction, and the conflicts resolved. It renders the
admin API's ``/_dynemu/global-tables`` view (``api/global_tables_admin.view``), so the page
and the JSON show the same figures.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any


def _directions(g: dict[str, Any]) -> str:
    """One row per direction (from region -> to region) between the replicas: the changes
    pending and the changes applied (a change that loses last-writer-wins is not applied)."""
    pending = {(b["from"], b["to"]): b["pending"] for b in g["backlog"]}
    applied = {(a["from"], a["to"]): a["count"] for a in g["applied"]}
    regions = [r["region"] for r in g["replicas"]]
    pairs = {(a, b) for a in regions for b in regions if a != b} | set(pending) | set(applied)
    rows = "".join(
        f'<tr class="direction"><td>{escape(a)} → {escape(b)}</td>'
        f'<td class="pending">{pending.get((a, b), 0):,}</td><td class="applied">{applied.get((a, b), 0):,}</td></tr>'
        for a, b in sorted(pairs)
    )
    if not rows:
        return ""
    return f'<table class="counts"><tr><th>direction</th><th>backlog</th><th>applied</th></tr>{rows}</table>'


def _global_table(g: dict[str, Any]) -> str:
    replicas = "".join(
        f'<tr class="replica"><td>{escape(r["region"])}</td><td>{escape(r["status"])}</td><td>{r["item_count"]:,}</td></tr>'
        for r in g["replicas"]
    )
    witness = f" · witness {escape(g['witness'])}" if g.get("witness") else ""
    return (
        f'<div class="global-table"><h3>{escape(g["table"])}</h3>'
        f'<p class="figures">consistency {escape(g["consistency"])}{witness} · '
        f'conflicts resolved (last writer wins) <span class="conflicts">{g["conflicts_resolved"]:,}</span>'
        + (
            f' · writes refused (ReplicatedWriteConflictException) <span class="refused">{g["writes_refused"]:,}</span>'
            if g["consistency"] == "STRONG"
            else ""
        )
        + "</p>"
        f'<div class="row"><table class="counts"><tr><th>replica</th><th>status</th><th>items</th></tr>{replicas}</table>'
        f"{_directions(g)}</div></div>"
    )


def section(view: dict[str, Any], tables: Sequence[dict[str, Any]]) -> str:
    """``view`` is global_tables_admin.view's; ``tables`` the global tables to show."""
    if not tables:
        return ""
    return (
        '<section class="resource global-tables"><h2>global tables</h2>'
        f'<p class="note">replication lag {view["replication_lag_ms"]:g} ms · MRSC conflict window '
        f'{view["mrsc_conflict_window_ms"]:g} ms · JSON: <a href="/_dynemu/global-tables">/_dynemu/global-tables</a></p>'
        f"{''.join(_global_table(g) for g in tables)}</section>"
    )
