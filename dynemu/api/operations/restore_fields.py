"""The members of a restored table's description: RestoreSummary (API_RestoreSummary) and
the SSEDescription its SSESpecificationOverride asked for. DescribeTable adds them."""

from __future__ import annotations

from typing import Any

from dynemu.engine import backups
from dynemu.engine.table import Table


def describe_fields(table: Table, status: str) -> dict[str, Any]:
    """RestoreSummary (in progress while the table is CREATING) and SSEDescription of a
    restored table; empty for any other."""
    record = backups.restore_summary(table)
    if record is None:
        return {}
    out: dict[str, Any] = {"RestoreSummary": {**record["RestoreSummary"], "RestoreInProgress": status == "CREATING"}}
    if "SSEDescription" in record:
        out["SSEDescription"] = record["SSEDescription"]
    return out
