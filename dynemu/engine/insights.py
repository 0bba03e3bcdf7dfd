"""CloudWatch Contributor Insights for DynamoDB, as far as DynamoDB shows it
(contributorinsights_HowItWorks.html, API_UpdateContributorInsights.html).

Modelled: the status of a table's or GSI's Contributor Insights (ENABLE gives ``ENABLING``,
then ``ENABLED`` at the next clock reading; DISABLE gives ``DISABLING``, then ``DISABLED``),
its ``ContributorInsightsMode`` (``ACCESSED_AND_THROTTLED_KEYS``, the default, or
``THROTTLED_KEYS``), the rules DynamoDB would create (``DynamoDBContributorInsights-<kind>-
<table>[-<index>]-<creation time in ms>``: PKC most accessed and PKT most throttled partition
keys, SKC and SKT the same by partition and sort key where the resource has a sort key;
THROTTLED_KEYS mode has the throttled rules only), and the four reports as top-N per clock
minute, counted from the requests themselves (engine/capacity/contributors.py): "accessed"
counts every request (admitted or throttled, each item of a batch as one), "throttled" the
throttled ones.

Not modelled: CloudWatch itself (no GetInsightRuleReport, no rules in a CloudWatch API) and
the FAILED status. The settings are kept across a restart with the table's capacity record
(engine/capacity/snapshot.py); the per-key counts are not.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dynemu.engine.capacity.contributors import Contributors, SpaceSaving, describe, key_namer

ACCESSED = "ACCESSED_AND_THROTTLED_KEYS"
THROTTLED = "THROTTLED_KEYS"
# rule kind -> (report title, counter)
RULES = {
    "PKC": ("Most accessed items (partition key)", "pk_requests"),
    "PKT": ("Most throttled items (partition key)", "pk_throttles"),
    "SKC": ("Most accessed items (partition and sort key)", "item_requests"),
    "SKT": ("Most throttled items (partition and sort key)", "item_throttles"),
}
TOP_N = 10  # contributors per minute in a report


@dataclass
class Insights:
    """One table's or GSI's Contributor Insights setting."""

    enabled: bool = False
    mode: str = ACCESSED
    changed_at: float | None = None  # LastUpdateDateTime
    created_ms: int = 0  # the rules' creation time
    since: float = 0.0  # reports cover the minutes from here (the last ENABLE)
    rule_kinds: list[str] = field(default_factory=list)

    def status(self, now: float) -> str:
        if self.changed_at is None:
            return "DISABLED"
        settled = now > self.changed_at
        if self.enabled:
            return "ENABLED" if settled else "ENABLING"
        return "DISABLED" if settled else "DISABLING"

    def rules(self, table: str, index: str | None) -> list[str]:
        if not self.enabled:
            return []
        name = table if index is None else f"{table}-{index}"
        return [f"DynamoDBContributorInsights-{k}-{name}-{self.created_ms}" for k in self.rule_kinds]


def of(contributors: Contributors) -> Insights:
    """The setting kept with a table's or GSI's per-key counters (made on first use)."""
    if contributors.insights is None:
        contributors.insights = Insights()
    return contributors.insights  # type: ignore[no-any-return]


def update(contributors: Contributors, action: str, mode: str | None, has_sort: bool, now: float) -> Insights:
    """UpdateContributorInsights: ENABLE (with ``mode``, default ACCESSED_AND_THROTTLED_KEYS)
    or DISABLE. Accessed counts start with the ENABLE; throttles are always counted."""
    ins = of(contributors)
    if action == "ENABLE":
        if not ins.enabled:
            ins.created_ms = int(now * 1000)
            ins.since = now
        ins.enabled = True
        ins.mode = mode or ACCESSED
        kinds = ["PKC", "PKT"] if ins.mode == ACCESSED else ["PKT"]
        if has_sort:
            kinds += ["SKC", "SKT"] if ins.mode == ACCESSED else ["SKT"]
        ins.rule_kinds = kinds
    else:
        ins.enabled = False
    ins.changed_at = now
    contributors.count_requests = ins.enabled and ins.mode == ACCESSED
    return ins


def restore(contributors: Contributors, rec: dict[str, Any] | None) -> None:
    """Put back a setting kept across a restart (``snapshot.insights_record``)."""
    if not rec:
        return
    ins = of(contributors)
    ins.enabled, ins.mode, ins.changed_at = bool(rec["enabled"]), str(rec["mode"]), float(rec["changed_at"])
    ins.created_ms, ins.since, ins.rule_kinds = int(rec["created_ms"]), float(rec["since"]), list(rec["rule_kinds"])
    contributors.count_requests = ins.enabled and ins.mode == ACCESSED


def reports(c: Contributors, spec: Any, index: str | None, now: float, n: int = TOP_N) -> list[dict[str, Any]]:
    """The reports of the enabled rules: per rule its name, title and, per clock minute since
    the ENABLE (the kept minutes), the top ``n`` contributors with their counts."""
    ins = c.insights
    if ins is None or not ins.enabled:
        return []
    names = ins.rules(spec.name, index)
    minutes = [(t, counters) for t, counters in c.per_minute(now) if t + 60 > ins.since]
    kept = minutes[0][0] if minutes else now
    # the minutes before the kept ones: their archived top keys (engine/capacity/contributors.py)
    older = [(t, rows) for t, rows in c.archive if t < kept and t + 60 > ins.since]
    out = []
    for kind, name in zip(ins.rule_kinds, names, strict=True):
        title, counter = RULES[kind]
        namer = key_namer(spec, index, item=kind.startswith("S"))
        series = [{"t": t, "top": _archived(rows.get(counter, ()), n, namer)} for t, rows in older]
        for t, counters in minutes:
            d = describe(counters.get(counter, SpaceSaving(1)), n, namer, "count")
            series.append({"t": t, "top": d["rows"]})
        out.append({"rule": name, "kind": kind, "title": title, "minutes": series})
    return out


def _archived(rows: tuple[tuple[bytes, float], ...], n: int, name: Any) -> list[dict[str, Any]]:
    """An archived minute's top keys as ``describe`` gives a kept minute's (rows naming the
    same key added up)."""
    merged: dict[str, dict[str, Any]] = {}
    for suffix, count in rows:
        label = name(suffix)
        row = merged.setdefault(repr(label), {"key": label, "count": 0.0})
        row["count"] += count
    out = sorted(merged.values(), key=lambda r: (-r["count"], repr(r["key"])))[:n]
    for r in out:
        r["count"] = int(r["count"])
    return out
