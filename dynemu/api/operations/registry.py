"""The one registry of operation handlers, by X-Amz-Target prefix and operation name."""

from __future__ import annotations

from dynemu.api.protocol import DYNAMODB_PREFIX, STREAMS_PREFIX, Handler


def handlers() -> dict[str, dict[str, Handler]]:
    from dynemu.api.operations import (
        backups,
        batch,
        items,
        misc,
        partiql,
        query,
        streams,
        tables,
        transactions,
        ttl,
    )

    dynamodb: dict[str, Handler] = {}
    for module in (tables, items, query, batch, transactions, misc, ttl, partiql, backups):
        dynamodb.update(module.OPERATIONS)
    return {DYNAMODB_PREFIX: dynamodb, STREAMS_PREFIX: dict(streams.OPERATIONS)}
