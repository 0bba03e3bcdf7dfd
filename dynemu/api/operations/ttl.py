"""UpdateTimeToLive, DescribeTimeToLive, and the background task that sweeps expired items.

The rules and messages are the engine's (``dynemu.engine.ttl``). UpdateTimeToLive echoes
the request's specification; DescribeTimeToLive reports the status, and the attribute
only while TTL is on (ack-api-quirks DDB-TABLE-144/145).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from dynemu import errors
from dynemu.api.protocol import Context
from dynemu.engine import ttl

log = logging.getLogger("dynemu")


def update_time_to_live(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    spec = body["TimeToLiveSpecification"]
    table = ctx.db.get(body["TableName"], control_plane=True)
    enabled = bool(spec["Enabled"])
    ttl.update(ctx.db, table, spec["AttributeName"], enabled, ctx.db.now())
    return {"TimeToLiveSpecification": {"Enabled": enabled, "AttributeName": spec["AttributeName"]}}


def describe_time_to_live(ctx: Context, body: dict[str, Any]) -> dict[str, Any]:
    table = ctx.db.get(body["TableName"], control_plane=True)
    now = ctx.db.now()
    state = ttl.describe(ctx.db, table, now)
    out: dict[str, Any] = {"TimeToLiveStatus": state.status(now)}
    if state.enabled and state.attribute is not None:
        out["AttributeName"] = state.attribute
    return {"TimeToLiveDescription": out}


OPERATIONS = {
    "UpdateTimeToLive": update_time_to_live,
    "DescribeTimeToLive": describe_time_to_live,
}


# --- scheduling ------------------------------------------------------------------------------------


def background(namespaces: Any, interval: float) -> Any:
    """An aiohttp ``cleanup_ctx`` entry running TTL sweeps and stream retention: after every
    advance of a virtual clock, else every ``interval`` seconds of clock time
    (``--ttl-interval``). Use: ``app.cleanup_ctx.append(ttl.background(namespaces, s.ttl_interval))``."""
    maintenance = ttl.Maintenance(namespaces, interval)

    async def lifecycle(app: Any) -> AsyncIterator[None]:
        task = None
        if not maintenance.install():
            task = asyncio.get_running_loop().create_task(_poll(maintenance))
        yield
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    return lifecycle


async def _poll(maintenance: ttl.Maintenance) -> None:
    while True:
        await asyncio.sleep(maintenance.real_seconds())
        try:
            maintenance.run()
        except errors.DiskFull:  # the store logged the episode once; sweeping resumes with space
            pass
        except Exception:  # a bug: log it and keep sweeping (never swallow it silently)
            log.exception("TTL sweep / stream retention failed")
