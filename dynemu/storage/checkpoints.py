"""Copies of whole stores, for state control (engine/state.py): snapshots and restores.

A closed LevelDB or SQLite store is a directory of files, and a copy of it is a checkpoint:
LevelDB's table files (``.ldb``/``.sst``) are never changed once written, so they are
hard-linked (a copy where a link is impossible) and the other files (its log, MANIFEST,
CURRENT; SQLite's database) are copied. Time is proportional to the data, never to the number
of items written into it.

A restore replaces namespace directories under the data directory so that a crash (SIGKILL)
at any point leaves either the state before it or the state after it, never a mix:

1. the new directories are staged in ``.restore.tmp/`` (a crash here: it is removed on open);
2. the plan (which namespaces go, which come) is written and synced in it, and the folder is
   renamed to ``.restore/``: from this rename on, the restore has happened;
3. each namespace's old directory is moved into ``.trash/`` and the staged one into its place;
4. ``.restore/`` and ``.trash/`` are removed.

``recover`` (called before any namespace opens) finishes step 3 and 4 of a restore that had
passed step 2, and drops a staging that had not. Step 3 is idempotent: a namespace is only
replaced while its staged directory is still in ``.restore/``.
"""

from __future__ import annotations

import os
import shutil

import orjson

STAGING = ".restore.tmp"
COMMITTED = ".restore"
TRASH = ".trash"
PLAN = "plan.json"
_IMMUTABLE = (".ldb", ".sst")  # LevelDB table files: written once, never changed


def copy_store(src: str, dst: str) -> None:
    """Copy the closed store in directory ``src`` to ``dst`` (which must not exist), synced."""
    os.makedirs(dst)
    for entry in os.scandir(src):
        if not entry.is_file() or entry.name == "LOCK":
            continue
        target = os.path.join(dst, entry.name)
        if entry.name.endswith(_IMMUTABLE):
            try:
                os.link(entry.path, target)
                continue
            except OSError:
                pass  # another file system, or no links: copy
        shutil.copyfile(entry.path, target)
        _fsync(target)
    _fsync(dst)


def _fsync(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def replace(data_dir: str, sources: dict[str, str | None]) -> None:
    """Make each namespace directory ``data_dir/<name>`` a copy of ``sources[name]`` (a closed
    store's directory), or remove it where that is None, as one step for a crash (see the
    module's docstring). The namespaces must be closed."""
    stage(data_dir, sources)
    commit(data_dir)
    recover(data_dir)


def stage(data_dir: str, sources: dict[str, str | None]) -> None:
    """Step 1: copy the sources into the staging folder, with the plan, all synced."""
    staging = os.path.join(data_dir, STAGING)
    shutil.rmtree(staging, ignore_errors=True)
    os.makedirs(staging)
    for name, src in sources.items():
        if src is not None:
            copy_store(src, os.path.join(staging, name))
    plan = os.path.join(staging, PLAN)
    with open(plan, "wb") as f:
        f.write(orjson.dumps(sorted(sources)))
        f.flush()
        os.fsync(f.fileno())
    _fsync(staging)


def commit(data_dir: str) -> None:
    """Step 2: the one rename after which the restore has happened."""
    os.rename(os.path.join(data_dir, STAGING), os.path.join(data_dir, COMMITTED))
    _fsync(data_dir)


def recover(data_dir: str) -> None:
    """Finish a restore that had committed, or drop one that had not (see the module)."""
    shutil.rmtree(os.path.join(data_dir, STAGING), ignore_errors=True)
    committed = os.path.join(data_dir, COMMITTED)
    trash = os.path.join(data_dir, TRASH)
    if os.path.isdir(committed):
        with open(os.path.join(committed, PLAN), "rb") as f:
            names = orjson.loads(f.read())
        os.makedirs(trash, exist_ok=True)
        for name in names:
            staged = os.path.join(committed, name)
            live = os.path.join(data_dir, name)
            if not _replaced_already(committed, name):
                if os.path.exists(live):
                    os.rename(live, os.path.join(trash, f"{name}.{len(os.listdir(trash))}"))
                _mark_done(committed, name)  # the old one is gone: never move ``live`` again
            if os.path.isdir(staged):
                os.rename(staged, live)
        _fsync(data_dir)
        shutil.rmtree(committed)
    shutil.rmtree(trash, ignore_errors=True)


def _replaced_already(committed: str, name: str) -> bool:
    return os.path.exists(os.path.join(committed, f".done-{name}"))


def _mark_done(committed: str, name: str) -> None:
    """Namespace ``name``'s old directory is in the trash: a second recovery must not move
    what is then in its place (the staged copy, or nothing for a namespace the plan removes)."""
    with open(os.path.join(committed, f".done-{name}"), "wb"):
        pass
