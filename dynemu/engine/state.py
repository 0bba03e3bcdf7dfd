"""State control for test suites: reset, snapshots and restores of whole namespaces.

These are storage-level operations, never a replay of items: a reset removes a namespace's
store; a snapshot copies it (a memory store's contents, or a closed on-disk store's files,
``storage/checkpoints.py``); a restore puts the copy in its place. Everything a namespace
holds lives in its store (tables, items, indexes, streams, TTL, backups, PITR history,
Contributor Insights, auto scaling targets, global table membership, resource policies), so
replacing the store replaces all of it, and the namespace reopened over it rebuilds the rest
(capacity, links) as after a restart.

Each operation runs between two requests: the event loop waits for it, so no request sees a
half-restored namespace. A scope is one namespace (by name) or None: every namespace. A
snapshot of every namespace restores every namespace: one that did not exist then is
removed. On disk, snapshots are kept in ``<data dir>/.snapshots/<name>/`` and survive a
restart; in memory, in the server's memory.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from typing import Any

import orjson

from dynemu import errors
from dynemu.engine.global_tables import membership as global_tables
from dynemu.engine.namespaces import Namespaces, Unsaved

SNAPSHOTS = ".snapshots"
MANIFEST = "snapshot.json"
EVERY = "*"  # the scope of a snapshot of every namespace (no namespace is called that)
NAME_PATTERN = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}")


class StateError(Exception):
    """A refused state-control request; ``status`` is the admin API's HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.message = message
        self.status = status


def check_name(name: Any) -> str:
    """``name`` if it can name a snapshot (a directory name of its own), else StateError."""
    if not isinstance(name, str) or NAME_PATTERN.fullmatch(name) is None:
        raise StateError(errors.MSG_ADMIN_BAD_SNAPSHOT_NAME)
    return name


class StateControl:
    """Reset, snapshot and restore the namespaces of ``namespaces``; ``reinit`` creates the
    tables of ``--init`` again after a reset."""

    def __init__(self, namespaces: Namespaces, reinit: Callable[[], None] | None = None) -> None:
        self.namespaces = namespaces
        self.reinit = reinit

    # --- which namespaces ---------------------------------------------------------------

    def _existing(self) -> list[str]:
        ns = self.namespaces
        return sorted(set(ns.databases) | set(ns.on_disk()))

    def _scope(self, scope: str | None) -> list[str]:
        return self._existing() if scope is None else [scope]

    def _snapshot_dir(self, name: str) -> str:
        assert self.namespaces.data_dir is not None
        return os.path.join(self.namespaces.data_dir, SNAPSHOTS, name)

    # --- reset --------------------------------------------------------------------------

    def reset(self, scope: str | None = None) -> list[str]:
        """Drop every table, backup, stream and setting of the namespaces in ``scope`` at once;
        returns their names. The tables of ``--init`` are created again. A reset of one
        namespace removes its replicas from their global tables in the other regions."""
        names = self._scope(scope)
        if scope is not None:
            self._leave_global_tables(scope)
        else:  # also the UserErrors of regions that never held a table
            self.namespaces.user_errors.clear()
        self._replace(dict.fromkeys(names))
        if self.reinit is not None:
            self.reinit()
        return names

    def _leave_global_tables(self, name: str) -> None:
        """Namespace ``name`` is reset while others are not: its replicas leave their global
        tables first, as DeleteTable of each would remove it, so that no other region's
        replica lists a region that no longer holds the table."""
        ns = self.namespaces
        if name in ns.databases or name in ns.on_disk():
            global_tables.leave(ns.replication, ns.open(name))

    # --- snapshots ----------------------------------------------------------------------

    def snapshot(self, name: str, scope: str | None = None) -> dict[str, Any]:
        """Save the namespaces of ``scope`` as snapshot ``name`` (replacing one of that name)."""
        check_name(name)
        ns = self.namespaces
        names = self._scope(scope)
        info = {"name": name, "scope": scope if scope is not None else EVERY, "created": ns.clock.now()}
        if ns.data_dir is None:
            saved = {}
            for n in names:
                db = ns.databases.get(n)
                if db is not None:
                    ns.unsaved += [Unsaved(n, what, False) for what in db.save()]
                    saved[n] = db.store.contents()  # type: ignore[attr-defined]
            info["namespaces"] = sorted(saved)
            ns.memory_snapshots[name] = (info, saved)
            return info
        from dynemu.storage import checkpoints

        final = self._snapshot_dir(name)
        building = self._snapshot_dir(".building-" + name)  # no snapshot name starts with a dot
        shutil.rmtree(building, ignore_errors=True)
        os.makedirs(building)
        kept = []
        for n in names:
            ns.shut(n)  # a closed store is a consistent set of files
            src = os.path.join(ns.data_dir, n)
            if os.path.isdir(src):
                checkpoints.copy_store(src, os.path.join(building, n))
                kept.append(n)
        info["namespaces"] = kept
        with open(os.path.join(building, MANIFEST), "wb") as f:
            f.write(orjson.dumps(info))
        shutil.rmtree(final, ignore_errors=True)
        os.rename(building, final)
        for n in kept[: ns.max_open]:
            ns.open(n)  # open again: its TTL sweeps go on
        return info

    def list(self) -> list[dict[str, Any]]:
        ns = self.namespaces
        if ns.data_dir is None:
            return [ns.memory_snapshots[n][0] for n in sorted(ns.memory_snapshots)]
        root = os.path.join(ns.data_dir, SNAPSHOTS)
        out = []
        for entry in sorted(os.listdir(root)) if os.path.isdir(root) else []:
            manifest = os.path.join(root, entry, MANIFEST)
            if not entry.startswith(".") and os.path.isfile(manifest):
                with open(manifest, "rb") as f:
                    out.append(orjson.loads(f.read()))
        return out

    def _info(self, name: str) -> dict[str, Any]:
        check_name(name)
        found = next((i for i in self.list() if i["name"] == name), None)
        if found is None:
            raise StateError(errors.MSG_ADMIN_NO_SNAPSHOT.format(name=name), 404)
        return found

    def delete(self, name: str) -> dict[str, Any]:
        info = self._info(name)
        ns = self.namespaces
        if ns.data_dir is None:
            del ns.memory_snapshots[name]
        else:
            shutil.rmtree(self._snapshot_dir(name))
        return info

    def restore(self, name: str) -> dict[str, Any]:
        """Put back the namespaces snapshot ``name`` saved: every later write is gone. A
        snapshot of every namespace also removes the namespaces made since."""
        info = self._info(name)
        scope = self._existing() if info["scope"] == EVERY else [info["scope"]]
        names = sorted(set(scope) | set(info["namespaces"]))
        ns = self.namespaces
        if ns.data_dir is None:
            saved = ns.memory_snapshots[name][1]
            self._replace({n: saved.get(n) for n in names})
        else:
            root = self._snapshot_dir(name)
            self._replace({n: os.path.join(root, n) if n in info["namespaces"] else None for n in names})
        return info

    # --- the one replacement --------------------------------------------------------------

    def _replace(self, sources: dict[str, Any]) -> None:
        """Make each namespace of ``sources`` hold its source (a memory store's contents, a
        store directory) or nothing (None), then let global tables join again."""
        ns = self.namespaces
        for n in sources:
            ns.shut(n)
            ns.user_errors.pop(n, None)  # its CloudWatch UserErrors start again
        if ns.data_dir is None:
            from dynemu.storage.memory import MemoryStore

            for n, contents in sources.items():
                if contents is not None:
                    ns.install(n, MemoryStore.from_contents(contents))
        else:
            from dynemu.storage import checkpoints

            checkpoints.replace(ns.data_dir, sources)
            for n in [n for n, src in sources.items() if src is not None][: ns.max_open]:
                ns.open(n)  # open again: its TTL sweeps go on
        ns.replication.forget()
        for db in list(ns.databases.values()):
            db.replicated = None
            global_tables.load(ns.replication, db)

