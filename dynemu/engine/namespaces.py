"""Namespaces: which database a request reaches.

As in DynamoDB, each region has its own tables (the region comes from the request's
credential scope); ``--shared-db`` puts every region into one database (DynamoDB Local's
flag); ``--isolate-access-keys`` also separates access key ids (DynamoDB Local's default).
Each namespace is its own LevelDB under the data directory, or a memory store.
"""

from __future__ import annotations

import os
import re

from dynemu.engine import consistency, streams, ttl
from dynemu.engine.capacity.throughput import CapacityConfig
from dynemu.engine.clock import Clock
from dynemu.engine.consistency import ConsistencyConfig
from dynemu.engine.database import Database
from dynemu.storage.base import Store
from dynemu.storage.select import open_store

DEFAULT_REGION = "us-east-1"
SHARED = "shared"
_SAFE = re.compile(r"[^A-Za-z0-9_.-]")


def namespace_name(region: str, access_key: str, *, shared_db: bool, isolate_access_keys: bool) -> str:
    if shared_db:
        return SHARED
    region = _SAFE.sub("_", region) or DEFAULT_REGION
    if isolate_access_keys:
        return f"{_SAFE.sub('_', access_key) or 'anonymous'}_{region}"
    return region


class Namespaces:
    def __init__(
        self,
        *,
        data_dir: str | None,
        clock: Clock,
        shared_db: bool = False,
        isolate_access_keys: bool = False,
        capacity: CapacityConfig | None = None,
        consistency: ConsistencyConfig | None = None,
        store: str = "leveldb",
    ) -> None:
        """``data_dir`` None means in memory; ``store`` is the on-disk store's kind."""
        self.data_dir = data_dir
        self.store_kind = "memory" if data_dir is None else store
        self.clock = clock
        self.capacity = capacity
        self.consistency = consistency or ConsistencyConfig()
        self.shared_db = shared_db
        self.isolate_access_keys = isolate_access_keys
        self.databases: dict[str, Database] = {}
        if data_dir is not None:
            os.makedirs(data_dir, exist_ok=True)
            # Reopen the namespaces that exist on disk so their tables are known at start.
            for entry in sorted(os.listdir(data_dir)):
                if os.path.isdir(os.path.join(data_dir, entry)):
                    self._open(entry)

    def _open_store(self, name: str) -> Store:
        return open_store(self.store_kind, os.path.join(self.data_dir or "", name))

    def _open(self, name: str) -> Database:
        db = self.databases.get(name)
        if db is None:
            db = Database(self._open_store(name), self.clock, self.capacity)
            # What lives beside the items: streams and TTL state saved in the store, and the
            # stale-read model; tables created later get them through the table hooks.
            streams.attach_all(db)
            ttl.attach_all(db)
            consistency.attach_all(db, self.consistency)
            db.table_hooks.append(lambda table: consistency.attach(table, self.consistency))
            self.databases[name] = db
        return db

    def get(self, region: str, access_key: str) -> Database:
        name = namespace_name(
            region, access_key, shared_db=self.shared_db, isolate_access_keys=self.isolate_access_keys
        )
        db = self.databases.get(name)
        return db if db is not None else self._open(name)

    def close(self) -> None:
        for db in self.databases.values():
            db.store.close()
        self.databases.clear()
