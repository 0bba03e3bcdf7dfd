"""Small pieces shared by the operation modules: parameter readers and response shapes."""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.engine.capacity import CapacityLedger, ConsumedCapacity
from dynemu.engine.schema import Throughput
from dynemu.engine.vectors import reported_write_bytes


def return_values(body: dict[str, Any], allowed: tuple[str, ...]) -> str:
    """ReturnValues, restricted to what the operation accepts (PutItem and DeleteItem take
    only NONE and ALL_OLD; the service's message for them)."""
    rv = body.get("ReturnValues") or "NONE"
    if rv not in allowed:
        raise errors.request_check(errors.MSG_RETURN_VALUES_OLD_OR_NONE)
    return rv


def describe_throughput(tp: Throughput) -> dict[str, Any]:
    """ProvisionedThroughput as DescribeTable reports it, for a table or a GSI."""
    out: dict[str, Any] = {
        "NumberOfDecreasesToday": tp.decreases_today,
        "ReadCapacityUnits": tp.read,
        "WriteCapacityUnits": tp.write,
    }
    if tp.last_increase is not None:
        out["LastIncreaseDateTime"] = tp.last_increase
    if tp.last_decrease is not None:
        out["LastDecreaseDateTime"] = tp.last_decrease
    return out


# --- ConsumedCapacity on the wire ---------------------------------------------------------


def _arm(read_h: int, write_h: int, split: bool, has_read: bool, has_write: bool) -> dict[str, float]:
    arm: dict[str, float] = {"CapacityUnits": (read_h + write_h) / 2}
    if split:
        if has_read:
            arm["ReadCapacityUnits"] = read_h / 2
        if has_write:
            arm["WriteCapacityUnits"] = write_h / 2
    return arm


def render_consumed(cc: ConsumedCapacity, mode: str) -> dict[str, Any] | None:
    """The ``ConsumedCapacity`` member for ``ReturnConsumedCapacity=mode`` (None for NONE).

    Transactional (``cc.split``) responses fill ReadCapacityUnits / WriteCapacityUnits (top
    level and in ``Table``); the others only CapacityUnits (measured against the service:
    paritysuite/dynamodb-conformance#69, ExtendDB/extenddb#77). Under INDEXES the ``Table``
    arm is always present (0.0 for a GSI query), an index arm only for an index charged,
    and the LocalSecondaryIndexes / GlobalSecondaryIndexes maps only when not empty."""
    if mode not in ("TOTAL", "INDEXES"):
        return None
    ir, iw = cc.index_totals()
    has_index_read = has_index_write = False
    for arms in (cc.lsi, cc.gsi):
        for r, w in (arms or {}).values():
            has_index_read = has_index_read or r > 0
            has_index_write = has_index_write or w > 0
    split = cc.split
    out: dict[str, Any] = {"TableName": cc.table_name}
    out.update(
        _arm(cc.read_h + ir, cc.write_h + iw, split, cc.has_read or has_index_read, cc.has_write or has_index_write)
    )
    if mode == "INDEXES":
        out["Table"] = _arm(cc.read_h, cc.write_h, split, cc.has_read, cc.has_write)
        if cc.lsi:
            out["LocalSecondaryIndexes"] = {n: _arm(r, w, split, r > 0, w > 0) for n, (r, w) in cc.lsi.items()}
        if cc.gsi:
            out["GlobalSecondaryIndexes"] = {n: _arm(r, w, split, r > 0, w > 0) for n, (r, w) in cc.gsi.items()}
        if cc.vector:  # "Monitoring vector index capacity": write operations, under INDEXES
            out["VectorIndexes"] = {n: {"VectorWriteRequestBytes": float(reported_write_bytes(b))}
                                    for n, b in cc.vector.items()}  # fmt: skip
    return out


def render_ledger(ledger: CapacityLedger, mode: str) -> list[dict[str, Any]] | None:
    """The ``ConsumedCapacity`` list of a multi-table request, one entry per table."""
    if mode not in ("TOTAL", "INDEXES"):
        return None
    return [render_consumed(cc, mode) for cc in ledger.tables.values()]  # type: ignore[misc]
