"""What the table operations ask of backups: the members of a restored table's description
(RestoreSummary, API_RestoreSummary, and the SSEDescription its SSESpecificationOverride
asked for), which DescribeTable adds; and DeleteTable's hook (a table with point-in-time
recovery keeps its history and gets a system backup)."""

from __future__ import annotations

from typing import Any

from dynemu.engine import backups, pitr, resource_policies
from dynemu.engine.namespace import Namespace
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


def on_table_deleted(db: Namespace, table: Table) -> None:
    pitr.on_table_deleted(db, table, backups.source_features(table))
    resource_policies.on_table_deleted(db.store, table)
