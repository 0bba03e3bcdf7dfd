"""Namespaces: which database a request reaches.

As in DynamoDB, each region has its own tables (the region comes from the request's
credential scope); ``--shared-db`` puts every region into one database (DynamoDB Local's
flag); ``--isolate-access-keys`` also separates access key ids (DynamoDB Local's default).
Each namespace is its own LevelDB under the data directory, or a memory store.

Names come from the client, so they are checked and turned into directory names that can
never leave the data directory. LevelDB namespaces are opened on first use and at most
``max_open`` stay open: the least recently used idle one is closed (its data is on disk and
it reopens transparently), so made-up regions cannot exhaust file descriptors. Idle means
its store is not compacting, when one such is open: closing a store waits for the slice its
compaction is in (``storage/compaction.py``), so the store is closed on a worker thread
(``storage/closing.py``), never on the request's path, and reopening it waits for that. A
closed namespace releases everything it registered (``Namespace.release``). Opening a store
writes and syncs files too, so when the server can wait for it (``open_off_loop``, set by the
HTTP front end) a request that names a namespace not open raises ``OpenPending``: its store
opens on a worker thread (``storage/opening.py``; requests for the same namespace share the
open, which waits for a close of the same store still under way), and the front end answers
the request again once it is open. A namespace
that has no directory yet is not created by reading it (ListTables, DescribeTable, ...): it
stays an empty stand-in until its first table is created, so made-up regions leave nothing
on disk.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import re
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from typing import Any

from dynemu import errors
from dynemu.cache import BoundedCache
from dynemu.engine.capacity.throughput import CapacityConfig
from dynemu.engine.clock import Clock
from dynemu.engine.cloudwatch.user_errors import UserErrors
from dynemu.engine.consistency import ConsistencyConfig
from dynemu.engine.exports.recovery import recover_imports
from dynemu.engine.global_tables import membership as global_tables
from dynemu.engine.global_tables.replication import Replication
from dynemu.engine.indexes import ITEM_COLLECTION_LIMIT
from dynemu.engine.limits import DEFAULT as DEFAULT_LIMITS
from dynemu.engine.limits import AccountLimits
from dynemu.engine.namespace import Namespace
from dynemu.storage.base import Store
from dynemu.storage.closing import Closer
from dynemu.storage.keyspace import AUTOSCALING_KEY
from dynemu.storage.lazy import LazyStore
from dynemu.storage.opening import Opener
from dynemu.storage.select import open_store, resolve

log = logging.getLogger("dynemu.engine.namespaces")

DEFAULT_REGION = "us-east-1"
SHARED = "shared"
DEFAULT_MAX_OPEN = 64
# What a region can be: AWS region names (us-east-1, us-gov-west-1, eu-isoe-west-1) and the
# local names clients use (local, localhost, ddblocal): letters, digits and hyphens, one DNS
# label long. No dots, slashes or other characters that could name another directory.
REGION_PATTERN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
# Access key ids: AWS's are [A-Z0-9]{16,128}; DynamoDB Local takes any alphanumerics.
ACCESS_KEY_PATTERN = re.compile(r"[A-Za-z0-9]{1,128}")
_PLAIN = re.compile(r"[a-z0-9-]{1,63}")  # directory names kept as they are (and as before)


def invalid_region(region: str) -> errors.DynamoError:
    """The service's answer to a credential scoped to a region that does not exist."""
    shown = region if len(region) <= 64 else region[:64] + "..."
    return errors.DynamoError(
        "InvalidSignatureException",
        errors.MSG_INVALID_REGION.format(region=shown),
        namespace=errors.CORAL_NS,
    )


# What the server takes as an access key id when a credential scope is given: visible ASCII,
# 1 to 128 characters (odd ones are hashed into directory names, never used as paths).
ANY_ACCESS_KEY = re.compile(r"[\x21-\x7e]{1,128}")


def check_access_key(access_key: str) -> str:
    """An access key id no account could have is answered as the service answers unknown keys."""
    if ANY_ACCESS_KEY.fullmatch(access_key) is None:
        raise errors.DynamoError(
            "UnrecognizedClientException",
            errors.MSG_UNKNOWN_ACCESS_KEY,
            namespace=errors.CORAL_NS,
        )
    return access_key


def check_region(region: str) -> str:
    if REGION_PATTERN.fullmatch(region) is None:
        raise invalid_region(region)
    return region


def _part(text: str) -> str:
    """A directory-name component: itself when plain lower-case, else a digest (case and
    odd characters cannot collide or escape)."""
    if _PLAIN.fullmatch(text):
        return text
    return "x" + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]


def namespace_name(region: str, access_key: str, *, shared_db: bool, isolate_access_keys: bool) -> str:
    region = _part(check_region(region or DEFAULT_REGION))
    if shared_db:
        return SHARED
    if isolate_access_keys:
        key = access_key if ACCESS_KEY_PATTERN.fullmatch(access_key) else _part(access_key or "anonymous")
        return f"{key}_{region}"
    return region


_NAMES_KEPT = 1024  # (region, access key) pairs whose namespace name is remembered


@dataclass(frozen=True, slots=True)
class Unsaved:
    """Something a namespace could not save when it was closed; ``data_lost``: whether it
    may be data (its store failed to close) rather than what the next start rebuilds."""

    namespace: str
    what: str
    data_lost: bool


def close_namespace(name: str, db: Namespace, close_store: Callable[[Store], None] | None = None) -> list[Unsaved]:
    """Close ``db`` (its store here, or through ``close_store``), logging (one line each, no
    traceback) and returning what it could not save."""
    try:
        unsaved = [Unsaved(name, what, False) for what in db.close(close_store)]
    except Exception as e:  # noqa: BLE001 - reported; the other namespaces are closed all the same
        unsaved = [store_not_closed(name, e)]
    for u in unsaved:
        _log_unsaved(u)
    return unsaved


def store_not_closed(name: str, e: BaseException) -> Unsaved:
    return Unsaved(name, f"the store did not close ({type(e).__name__}: {e})", True)


def _log_unsaved(u: Unsaved) -> None:
    (log.error if u.data_lost else log.warning)("namespace %s: could not save %s", u.namespace, u.what)


class OpenPending(BaseException):
    """The namespace a request names is being opened off the event loop: the caller answers the
    request again once ``future`` is done (which installs the namespace), or calls ``settle()``
    (on the loop) if it no longer will. A BaseException,
    as asyncio's CancelledError: it is no failure, and must pass the handlers that answer every
    Exception as the service's internal error (nothing of the request has run yet)."""

    def __init__(self, name: str, future: Future[Store], settle: Callable[[], None]) -> None:
        super().__init__(name)
        self.name = name
        self.future = future
        self.settle = settle


def _resume_autoscaling(db: Namespace) -> None:
    """A namespace holding auto scaling targets scales on from its opening (after a restart, or
    when an idle namespace reopens), not from the next auto scaling call."""
    if db.store.get(AUTOSCALING_KEY) is not None:
        from dynemu.engine.autoscaling import scaler as replica_autoscaler

        replica_autoscaler.attach(db)


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
        max_open: int = DEFAULT_MAX_OPEN,
        store: str = "leveldb",
        item_collection_limit: int = ITEM_COLLECTION_LIMIT,
        leveldb_open_files: int | None = None,
        leveldb_write_buffer: int | None = None,
        replication_lag_ms: float = 1000.0,
        mrsc_conflict_window_ms: float = 50.0,
        account_limits: AccountLimits = DEFAULT_LIMITS,
    ) -> None:
        """``data_dir`` None means in memory; ``store`` is the on-disk store's setting (memory
        namespaces hold no file descriptors and cannot be closed without losing them: only
        on-disk ones are bounded)."""
        self.data_dir = None if data_dir is None else os.path.realpath(data_dir)
        self.store_kind = "memory" if data_dir is None else resolve(store, False)  # --store auto|leveldb|sqlite
        self.clock = clock
        self.capacity = capacity
        self.consistency = consistency or ConsistencyConfig()
        self.item_collection_limit = item_collection_limit
        self.account_limits = account_limits  # every namespace's (engine.limits)
        self.leveldb_open_files = leveldb_open_files  # --leveldb-open-files (None: the store's default)
        self.leveldb_write_buffer = leveldb_write_buffer  # LevelDB's memory table (None: 4 MB); dynemu import's is larger
        self.shared_db = shared_db
        self.isolate_access_keys = isolate_access_keys
        self.max_open = max(1, max_open)
        self.databases: OrderedDict[str, Namespace] = OrderedDict()  # least recently used first
        # (region, access key) -> namespace name, for the pairs seen lately: every request
        # asks, and the name is a pure function of the pair (refused pairs are not kept)
        self._names: BoundedCache[str] = BoundedCache(_NAMES_KEPT)
        self.unsaved: list[Unsaved] = []  # what closing namespaces could not save (``close``)
        self._closer = Closer(self._close_failed)  # evicted namespaces' stores, off the loop
        # Opens off the loop (``for_request``), when the caller can wait for them: the stores
        # under way, by namespace, until installed (``settle``) or taken by a synchronous open.
        self.open_off_loop = False
        self._opener = Opener()
        self._opening: dict[str, Future[Store]] = {}
        # the namespaces used since the current request began (``for_request``): never evicted,
        # since the request may still hold them (a replica's region opened by UpdateTable)
        self._held: set[str] = set()
        # Global tables: replicas in other regions' namespaces, and the backlog between them.
        self.replication = Replication(self.get, clock, replication_lag_ms, mrsc_conflict_window_ms, self.open_later)
        # CloudWatch's UserErrors of each namespace (engine/cloudwatch/user_errors.py), counted
        # whether or not it is open; a namespace opened gets its own (``_open``).
        self.user_errors: dict[str, UserErrors] = {}
        # State control (engine/state.py): snapshots of memory namespaces, by name.
        # name -> (its description, the contents of each namespace's store)
        self.memory_snapshots: dict[str, tuple[dict[str, Any], dict[str, Any]]] = {}
        if self.data_dir is not None:
            os.makedirs(self.data_dir, exist_ok=True)
            from dynemu.storage import checkpoints

            checkpoints.recover(self.data_dir)  # a restore a crash interrupted: finished or undone
            # Reopen (up to the bound) the namespaces on disk so their TTL sweeps run.
            for entry in self.on_disk()[: self.max_open]:
                self._open(entry)

    def on_disk(self) -> list[str]:
        """The names of the namespaces with a directory (names never start with a dot: the
        dot folders are state control's, engine/state.py)."""
        if self.data_dir is None:
            return []
        return sorted(e.name for e in os.scandir(self.data_dir) if e.is_dir() and not e.name.startswith("."))

    def name_of(self, region: str, access_key: str) -> str:
        """The namespace a request of this region and access key reaches."""
        return namespace_name(region, access_key, shared_db=self.shared_db, isolate_access_keys=self.isolate_access_keys)

    def user_error(self, region: str, access_key: str) -> None:
        """A DynamoDB or Streams request of this region and access key was answered with one of
        UserErrors' HTTP 400s (the namespace is not opened for it)."""
        name = self.name_of(region, access_key)
        counts = self.user_errors.get(name)
        if counts is None:
            counts = self.user_errors[name] = UserErrors()
        counts.add(self.clock.now())

    def shut(self, name: str) -> None:
        """Close namespace ``name`` now if it is open (its store closed when this returns):
        state control replaces what is under it."""
        db = self.databases.pop(name, None)
        if db is not None:
            self.unsaved += close_namespace(name, db)
        self._drop_opening(name)
        self._closer.wait(name)  # evicted a moment ago: its store may still be closing

    def _drop_opening(self, name: str) -> None:
        """Close the store of an open of ``name`` under way off the loop (waiting for it)."""
        future = self._opening.pop(name, None)
        if future is not None and future.exception() is None:
            try:
                future.result().close()
            except Exception as e:  # noqa: BLE001 - reported, as any store that fails to close
                self._close_failed(name, e)

    def open(self, name: str) -> Namespace:
        """Namespace ``name``, opened if it is not."""
        return self._open(name)

    def install(self, name: str, store: Store) -> Namespace:
        """Open namespace ``name`` over ``store`` (a memory namespace restored), replacing it."""
        self.shut(name)
        return self._open(name, store)

    def _path(self, name: str) -> str:
        assert self.data_dir is not None
        path = os.path.realpath(os.path.join(self.data_dir, name))
        if os.path.dirname(path) != self.data_dir:  # never outside the data directory
            raise errors.validation(errors.msg_invalid_namespace(name))
        return path

    def _open_store(self, name: str) -> Store:
        path = self._path(name) if self.data_dir is not None else ""
        return open_store(self.store_kind, path, leveldb_open_files=self.leveldb_open_files,
                          leveldb_write_buffer=self.leveldb_write_buffer)

    def _close_failed(self, name: str, e: BaseException) -> None:
        """A store closing on the closer's worker failed (called there)."""
        u = store_not_closed(name, e)
        _log_unsaved(u)
        self.unsaved.append(u)

    def _evict(self) -> bool:
        """Close the least recently used idle namespace: the least recently used one whose
        store is not compacting, else the least recently used, never one the current request
        holds nor one with work running in steps (an import, an export, a backfill:
        engine/steps.py). False when every open one is held: the bound is then passed until
        the next open. Its store closes off the loop."""
        free = [n for n, db in self.databases.items() if n not in self._held and not db.steps_running]
        if not free:
            return False
        victim = next((n for n in free if not self.databases[n].store.busy), free[0])
        db = self.databases.pop(victim)
        self.unsaved += close_namespace(victim, db, functools.partial(self._closer.close, victim))
        return True

    def _open_later(self, name: str) -> Store:
        """The store of namespace ``name``, opened on the opener's worker thread."""
        self._closer.wait(name)  # evicted a moment ago: LevelDB locks its directory until closed
        return self._open_store(name)

    def _open_off_loop(self, name: str) -> Namespace:
        """Namespace ``name``, installed when its open off the loop is done; else OpenPending
        (the open started, or joined) for a store on disk; opened here when nothing on disk
        is (a memory namespace, or one never written: its LazyStore opens nothing yet)."""
        future = self._opening.get(name)
        if future is None:
            if self.data_dir is None or not os.path.isdir(self._path(name)):
                return self._open(name)
            future = self._opening[name] = self._opener.open(functools.partial(self._open_later, name))
        elif future.done():
            return self._open(name)  # installs it, or raises why it failed to open
        raise OpenPending(name, future, functools.partial(self.settle, name))

    def open_later(self, pairs: set[tuple[str, str]]) -> tuple[list[Future[Store]], Callable[[], None]] | None:
        """For a caller on a timer (the global tables' applier) about to use the namespaces of
        ``pairs`` (region, access key): the opens off the loop (started, or joined) of those
        whose store is on disk and not open, and what to call once they are done (installs
        them, none evicting another of ``pairs``); None when there is none to wait for (or
        not ``open_off_loop``)."""
        if not self.open_off_loop:
            return None
        names, futures = set(), []
        for region, access_key in pairs:
            name = self.name_of(region, access_key)
            names.add(name)
            if name not in self.databases:
                try:
                    self._open_off_loop(name)
                except OpenPending as pending:
                    futures.append(pending.future)
        return (futures, functools.partial(self._settle_all, names)) if futures else None

    def _settle_all(self, names: set[str]) -> None:
        self._held.update(names)  # used together next: not evicted by each other's install
        for name in names:
            self.settle(name)

    def settle(self, name: str) -> None:
        """An open of ``name`` off the loop is done and no request will ask for it again (called
        on the loop): install the namespace, unless it failed (the next request gets the
        failure) or was installed already."""
        future = self._opening.get(name)
        if future is not None and future.done() and future.exception() is None and name not in self.databases:
            self._open(name)

    def _open(self, name: str, given: Store | None = None) -> Namespace:
        db = self.databases.get(name)
        if db is not None:
            self.databases.move_to_end(name)
            return db
        if given is None and name in self._opening:  # opened off the loop: its store (waited for)
            given = self._opening.pop(name).result()
        if self.data_dir is not None:
            while len(self.databases) >= self.max_open and self._evict():
                pass
            self._closer.wait(name)  # its store, evicted a moment ago, may still be closing
        # The namespace attaches what lives beside the items (streams, TTL, the stale-read model).
        if given is not None:
            store: Store = given
        elif self.data_dir is None or os.path.isdir(self._path(name)):
            store = self._open_store(name)
        else:  # never written: its first write creates the store (read-only calls leave no trace)
            store = LazyStore(functools.partial(self._open_store, name))
        db = Namespace(store, self.clock, self.capacity, consistency=self.consistency,
                       item_collection_limit=self.item_collection_limit, account_limits=self.account_limits)
        self.databases[name] = db
        db.replication = self.replication
        db.user_errors = self.user_errors.setdefault(name, UserErrors())
        global_tables.load(self.replication, db)
        recover_imports(db)  # imports a stopped server left running: FAILED, their tables dropped
        _resume_autoscaling(db)
        return db

    def closing(self, name: str) -> bool:
        """Whether the store of namespace ``name``, evicted, is still closing (off the loop)."""
        return self._closer.pending(name)

    def resume_autoscaling(self) -> None:
        """The server's loop is running: auto scaling resumes in the namespaces opened before it."""
        for db in list(self.databases.values()):
            _resume_autoscaling(db)

    def get(self, region: str, access_key: str, *, off_loop: bool = False) -> Namespace:
        """The namespace of ``region`` and ``access_key``, opened if it is not (``off_loop``: on
        a worker thread, raising OpenPending meanwhile)."""
        name = self._names.get((region, access_key))
        if name is None:
            name = namespace_name(
                region, access_key, shared_db=self.shared_db, isolate_access_keys=self.isolate_access_keys
            )
            self._names.put((region, access_key), name)
        self._held.add(name)
        db = self.databases.get(name)
        if db is None:
            return self._open_off_loop(name) if off_loop else self._open(name)
        self.databases.move_to_end(name)
        return db

    def for_request(self, region: str, access_key: str, *, wait: bool = True) -> Namespace:
        """``get`` at the start of a request: what the previous request held is released. A
        store to open is opened off the loop (OpenPending) when the server can wait for it and
        ``wait`` (False: here, for callers that cannot answer later)."""
        self._held.clear()
        return self.get(region, access_key, off_loop=self.open_off_loop and wait)

    def close(self) -> list[Unsaved]:
        """Close every namespace, each whatever happened to the others; returns (and keeps in
        ``unsaved``) what could not be saved, which the server's shutdown reports."""
        for name, db in self.databases.items():
            self.unsaved += close_namespace(name, db)
        self.databases.clear()
        for name in list(self._opening):  # opened off the loop for requests that went away
            self._drop_opening(name)
        self._opener.drain()
        self._closer.drain()  # the evicted ones still closing
        return self.unsaved
