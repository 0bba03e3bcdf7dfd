"""UpdateContributorInsights, DescribeContributorInsights and ListContributorInsights
(API_UpdateContributorInsights.html, API_DescribeContributorInsights.html,
API_ListContributorInsights.html). The setting and the reports are engine/insights.py's;
the request's shapes and enum values are checked by the model-driven validation before
these run.
"""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.api.protocol import Context
from dynemu.engine import indexes, insights
from dynemu.engine.capacity.throughput import ThroughputState
from dynemu.engine.table import Table

LIST_PAGE = 100  # ListContributorInsights' MaxResults at most (and by default)
SUMMARY = ("TableName", "IndexName", "ContributorInsightsStatus", "ContributorInsightsMode")


def _gsi(table: Table, index: str) -> Any:
    ix = next((i for i in table.spec.indexes if i.is_global and i.name == index), None)
    if ix is None:  # the service's wording is not documented: UpdateTable's missing-index one
        raise errors.resource_not_found(errors.msg_index_not_found(index, table.name))
    return ix


def _state(table: Table, index: str | None, now: float, make: bool) -> ThroughputState | None:
    """The capacity state of the table or of GSI ``index`` (made when ``make``: a GSI's
    starts with its first request otherwise)."""
    cap = table.capacity
    if index is None:
        return cap.state
    ix = _gsi(table, index)
    if index in cap.index_states or not make:
        return cap.index_states.get(index)
    live = indexes.find(table, index)
    if live is None:
        raise errors.resource_not_found(errors.msg_index_not_found(ix.name, table.name))
    return cap.index_state(live, now)


def _has_sort(table: Table, index: str | None) -> bool:
    if index is None:
        return table.spec.range_key is not None
    return bool(_gsi(table, index).range_keys)


def update_contributor_insights(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    table = ctx.db.get(body["TableName"], control_plane=True)
    index = body.get("IndexName")
    now = ctx.db.now()
    state = _state(table, index, now, make=True)
    assert state is not None
    ins = insights.update(
        state.contributors, body["ContributorInsightsAction"], body.get("ContributorInsightsMode"),
        _has_sort(table, index), now,
    )  # fmt: skip
    table.capacity.save_model()  # the setting is kept across a restart
    out: dict[str, Any] = {"TableName": table.name, "ContributorInsightsStatus": ins.status(now)}
    if index is not None:
        out["IndexName"] = index
    if ins.enabled:
        out["ContributorInsightsMode"] = ins.mode
    return out


def _describe(table: Table, index: str | None, now: float) -> dict[str, Any]:
    state = _state(table, index, now, make=False)
    if state is not None:
        ins = state.contributors.insights
    else:  # a GSI not used since start: the setting the previous run kept
        ins = table.capacity.index_insights(index) if index is not None else None
    out: dict[str, Any] = {"TableName": table.name}
    if index is not None:
        out["IndexName"] = index
    if ins is None:
        out["ContributorInsightsStatus"] = "DISABLED"
        return out
    out["ContributorInsightsRuleList"] = ins.rules(table.name, index)
    out["ContributorInsightsStatus"] = ins.status(now)
    if ins.enabled:
        out["ContributorInsightsMode"] = ins.mode
    if ins.changed_at is not None:
        out["LastUpdateDateTime"] = ins.changed_at
    return out


def describe_contributor_insights(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    table = ctx.db.get(body["TableName"], control_plane=True)
    return _describe(table, body.get("IndexName"), ctx.db.now())


def list_contributor_insights(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    """One summary per table (or the one named) and per GSI, in name order; ``NextToken`` is
    the position after the page (an opaque string to the client)."""
    now = ctx.db.now()
    if body.get("TableName"):
        tables = [ctx.db.get(body["TableName"], control_plane=True)]
    else:
        tables = [t for _, t in sorted(ctx.db.tables.items())]
    rows: list[dict[str, Any]] = []
    for table in tables:
        names = [None] + sorted(i.name for i in table.spec.indexes if i.is_global)
        for index in names:
            d = _describe(table, index, now)
            rows.append({k: d[k] for k in SUMMARY if k in d})
    limit = min(int(body.get("MaxResults") or LIST_PAGE), LIST_PAGE)
    token = body.get("NextToken")
    start = int(token) if token and str(token).isdigit() else 0
    page = rows[start : start + limit]
    out: dict[str, Any] = {"ContributorInsightsSummaries": page}
    if start + limit < len(rows):
        out["NextToken"] = str(start + limit)
    return out


OPERATIONS = {
    "UpdateContributorInsights": update_contributor_insights,
    "DescribeContributorInsights": describe_contributor_insights,
    "ListContributorInsights": list_contributor_insights,
}
