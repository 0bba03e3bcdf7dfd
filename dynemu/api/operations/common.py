"""Small pieces shared by the operation modules: parameter readers and response shapes."""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.engine.capacity import ConsumedCapacity
from dynemu.engine.schema import Throughput
from dynemu.engine.table import Table


def return_values(body: dict[str, Any], allowed: tuple[str, ...]) -> str:
    """ReturnValues, restricted to what the operation accepts (PutItem and DeleteItem take
    only NONE and ALL_OLD; the service's message for them)."""
    rv = body.get("ReturnValues") or "NONE"
    if rv not in allowed:
        raise errors.validation("ReturnValues can only be ALL_OLD or NONE")
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


def consumed_capacity(
    body: dict[str, Any], table: Table, *, read_h: int = 0, write_h: int = 0
) -> dict[str, Any] | None:
    """The ConsumedCapacity member for ReturnConsumedCapacity TOTAL / INDEXES, or None.
    Units are integer half-units (dynemu.engine.capacity)."""
    mode = body.get("ReturnConsumedCapacity")
    if mode != "TOTAL" and mode != "INDEXES":
        return None
    # TableName echoes the request's TableName, which may be the table's ARN.
    cc = ConsumedCapacity(body.get("TableName", table.name))
    if read_h:
        cc.add_read(read_h)
    if write_h:
        cc.add_write(write_h)
    return cc.render(mode)
