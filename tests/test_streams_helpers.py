"""Helpers shared by the stream, TTL and consistency tests (no tests here).

``Harness`` reaches into a running DynemuServer (virtual clock) to do what the control
plane wiring does — enable a stream, attach observers, move the clock — always on the
server's own event loop, so the engine never runs on two threads at once.
"""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import Callable, Iterator
from typing import Any

from dynemu.api.admin.app import NAMESPACES
from dynemu.engine import lifecycle, streams
from dynemu.testing import DynemuServer
from tests.conftest import make_client

_names = itertools.count()
REGION = "us-east-1"
KEY_ID = "AKIDTEST"


class Harness:
    def __init__(self, server: DynemuServer) -> None:
        self.server = server
        self.ns = server.app[NAMESPACES]
        self.ddb = make_client(server.url)
        self.streams = make_client(server.url, service="dynamodbstreams")

    def call(self, fn: Callable[..., Any], *args: Any) -> Any:
        async def run() -> Any:
            return fn(*args)

        return asyncio.run_coroutine_threadsafe(run(), self.server._loop).result(120)  # generous: a busy machine

    def db(self) -> Any:
        return self.ns.get(REGION, KEY_ID)

    def table(self, name: str) -> Any:
        return self.db().get(name)

    def now(self) -> float:
        return self.ns.clock.now()

    def advance(self, seconds: float) -> float:
        return self.call(self.ns.clock.advance, seconds)

    def create(self, hash: tuple[str, str] = ("pk", "S"), range: tuple[str, str] | None = None, **extra: Any) -> str:
        name = f"strm-{next(_names)}"
        keys = [{"AttributeName": hash[0], "KeyType": "HASH"}]
        defs = [{"AttributeName": hash[0], "AttributeType": hash[1]}]
        if range is not None:
            keys.append({"AttributeName": range[0], "KeyType": "RANGE"})
            defs.append({"AttributeName": range[0], "AttributeType": range[1]})
        kwargs: dict[str, Any] = {"BillingMode": "PAY_PER_REQUEST", **extra}
        self.ddb.create_table(TableName=name, KeySchema=keys, AttributeDefinitions=defs, **kwargs)
        return name

    def enable(self, name: str, view: str = "NEW_AND_OLD_IMAGES") -> str:
        def run() -> str:
            db = self.db()
            return streams.enable(db.streams, db.get(name), view, db.now()).arn

        return self.call(run)

    def disable(self, name: str) -> None:
        def run() -> None:
            db = self.db()
            streams.disable(db.streams, db.get(name), db.now())

        self.call(run)

    def streamed(self, view: str = "NEW_AND_OLD_IMAGES", **kw: Any) -> tuple[str, str]:
        name = self.create(**kw)
        return name, self.enable(name, view)

    # reading ---------------------------------------------------------------------------

    def shards(self, arn: str) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        kwargs: dict[str, Any] = {"StreamArn": arn}
        while True:
            desc = self.streams.describe_stream(**kwargs)["StreamDescription"]
            out += desc["Shards"]
            if "LastEvaluatedShardId" not in desc:
                return out
            kwargs["ExclusiveStartShardId"] = desc["LastEvaluatedShardId"]

    def read_shard(self, arn: str, shard_id: str, kind: str = "TRIM_HORIZON", limit: int | None = None,
                   **kw: Any) -> list[dict[str, Any]]:  # fmt: skip
        """Every record from the iterator to the end of the shard (or, for an open shard,
        until a call returns nothing)."""
        it = self.streams.get_shard_iterator(StreamArn=arn, ShardId=shard_id, ShardIteratorType=kind, **kw)
        iterator: str | None = it["ShardIterator"]
        out: list[dict[str, Any]] = []
        while iterator is not None:
            page = self.streams.get_records(ShardIterator=iterator, **({"Limit": limit} if limit else {}))
            out += page["Records"]
            iterator = page.get("NextShardIterator")
            if not page["Records"]:
                break
        return out

    def read_all(self, arn: str) -> list[dict[str, Any]]:
        """Every record of the stream, following lineage: a parent shard before its children."""
        shards = self.shards(arn)
        ids = {s["ShardId"] for s in shards}
        done: set[str] = set()
        out: list[dict[str, Any]] = []
        pending = list(shards)
        while pending:
            ready = [s for s in pending if s.get("ParentShardId") not in ids or s["ParentShardId"] in done]
            assert ready, "a lineage cycle"
            for s in ready:
                out += self.read_shard(arn, s["ShardId"])
                done.add(s["ShardId"])
                pending.remove(s)
        return out


def seq(record: dict[str, Any]) -> int:
    return int(record["dynamodb"]["SequenceNumber"])


def by_sequence(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return sorted(records, key=seq)


def serve() -> Iterator[Harness]:
    """Body of a module-scoped ``harness`` fixture: a server of its own on a virtual clock,
    with TTL sweeps and stream retention run on every clock advance (what the server
    wiring does)."""
    server = DynemuServer(clock="virtual", throttling=False)
    server.start()
    h = Harness(server)
    h.call(lifecycle.Lifecycle(h.ns, 60.0).start)
    try:
        yield h
    finally:
        server.stop()
