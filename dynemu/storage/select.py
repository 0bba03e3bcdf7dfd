"""Which store keeps a namespace: memory, LevelDB (plyvel) or SQLite (standard library).

``auto`` takes LevelDB where plyvel can be imported (it ships wheels for Linux x86-64 only)
and SQLite elsewhere, so an install without a compiler still keeps its data on disk. A
namespace directory written by one store is never opened by the other: that fails at start
with a message naming the flag to use.
"""

from __future__ import annotations

import os

from dynemu.storage.base import SQLITE_FILENAME, Store, out_of_space

LEVELDB_MARKER = "CURRENT"  # every LevelDB directory has it


class StoreOpenError(OSError):
    """A store that cannot be opened; the message is one line saying what to do."""


def plyvel_available() -> bool:
    try:
        import plyvel  # noqa: F401
    except ImportError:
        return False
    return True


def resolve(store: str, in_memory: bool) -> str:
    """``memory``, ``leveldb`` or ``sqlite`` for the settings ``--store`` and ``--in-memory``."""
    if in_memory:
        return "memory"
    if store == "auto":
        return "leveldb" if plyvel_available() else "sqlite"
    if store == "leveldb" and not plyvel_available():
        raise StoreOpenError(
            "--store leveldb needs plyvel, which is not installed: pip install 'dynemu[leveldb]' "
            "(needs a C++ compiler where plyvel has no wheel), or use --store sqlite"
        )
    return store


def describe(kind: str) -> str:
    if kind == "leveldb":
        return "leveldb"
    if kind == "sqlite":
        return "sqlite" + ("" if plyvel_available() else " (plyvel is not installed)")
    return "memory"


def open_store(kind: str, path: str, *, leveldb_open_files: int | None = None,
               leveldb_write_buffer: int | None = None) -> Store:
    """Open (creating if missing) the store of one namespace directory (``leveldb_open_files``:
    --leveldb-open-files, None for LevelDBStore's default; ``leveldb_write_buffer``: the size of
    LevelDB's memory table, None for LevelDB's 4 MB, larger for ``dynemu import``'s bulk load)."""
    if kind == "memory":
        from dynemu.storage.memory import MemoryStore

        return MemoryStore()
    if kind == "sqlite" and os.path.exists(os.path.join(path, LEVELDB_MARKER)):
        raise StoreOpenError(f"{path} holds a LevelDB store: start with --store leveldb, or use another --data-dir")
    if kind == "leveldb" and os.path.exists(os.path.join(path, SQLITE_FILENAME)):
        raise StoreOpenError(f"{path} holds a sqlite store: start with --store sqlite, or use another --data-dir")
    try:
        if kind == "sqlite":
            from dynemu.storage.sqlite import SQLiteStore

            return SQLiteStore(path)
        from dynemu.storage.leveldb import LevelDBStore

        options: dict[str, int] = {} if leveldb_write_buffer is None else {"write_buffer_size": leveldb_write_buffer}
        if leveldb_open_files is not None:
            options["open_files"] = leveldb_open_files
        return LevelDBStore(path, **options)
    except StoreOpenError:
        raise
    except Exception as e:  # plyvel.IOError, sqlite3.Error, OSError: one line for the user
        text = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        if out_of_space(e):  # opening replays the store's log into a new file: that needs room
            raise StoreOpenError(
                f"cannot open the store {path}: the disk of the data directory is full ({text}): "
                "free space on that disk, or use another --data-dir"
            ) from e
        if "lock" in text.lower():
            raise StoreOpenError(
                f"the store {path} is locked by another process ({text}): stop that process, "
                "or use another --data-dir"
            ) from e
        raise StoreOpenError(f"cannot open the store {path}: {text}") from e
