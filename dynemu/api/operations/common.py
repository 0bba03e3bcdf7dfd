"""Small pieces shared by the operation modules: parameter readers and response shapes."""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.engine.schema import Throughput


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
