"""What the table operations ask of backups: the members of a restored table's description
(RestoreSummary, API_RestoreSummary, and the SSEDescription its SSESpecificationOverride
asked for), which DescribeTable adds; the source features a backup keeps; and DeleteTable's
hook (a table with point-in-time recovery keeps its history and gets a system backup)."""

from __future__ import annotations

from typing import Any

from dynemu.engine import backups, pitr, resource_policies, streams, ttl
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


def source_features(table: Table) -> dict[str, Any]:
    """SourceTableFeatureDetails kept with a backup: the stream and TTL settings it had."""
    out: dict[str, Any] = {}
    ts = streams.of_table(table)
    if ts is not None and ts.active is not None:
        out["StreamDescription"] = {"StreamEnabled": True, "StreamViewType": ts.active.view_type}
    state = ttl.describe(table)
    if state.enabled and state.attribute is not None:
        out["TimeToLiveDescription"] = {"TimeToLiveStatus": "ENABLED", "AttributeName": state.attribute}
    return out


def on_table_deleted(db: Namespace, table: Table) -> None:
    pitr.on_table_deleted(db, table, source_features(table))
    resource_policies.on_table_deleted(db.store, table)
