"""LevelDB's table cache (issues 18 and 29): by default it holds every table file, so a read
never reopens one however large the table grows (bench/scaling.py); --leveldb-open-files
bounds it; LevelDB bounds the file handles and maps it keeps either way."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from dynemu.config import SettingsError, load_settings
from dynemu.engine.clock import make_clock
from dynemu.engine.namespaces import Namespaces
from dynemu.storage import leveldb
from dynemu.storage.base import WriteBatch
from tests.test_streams_engine import new_table


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    seen: list[dict[str, Any]] = []
    real = leveldb.plyvel.DB

    def spy(path: str, **options: Any) -> Any:
        seen.append(options)
        return real(path, **options)

    monkeypatch.setattr(leveldb.plyvel, "DB", spy)
    return seen


def test_every_table_file_stays_cached_by_default(tmp_path: Path, opened: list[dict[str, Any]]) -> None:
    store = leveldb.LevelDBStore(tmp_path / "db")
    batch = WriteBatch()
    batch.put(b"k", b"v")
    store.write(batch)
    assert store.get(b"k") == b"v"
    store.close()
    assert opened[0]["max_open_files"] == leveldb.OPEN_FILES + 10 == 50_000  # LevelDB's ceiling, 10 its own
    assert opened[0]["max_file_size"] == leveldb.MAX_FILE_SIZE == 4 * 1024 * 1024
    assert opened[0]["bloom_filter_bits"] == 10
    assert opened[0]["compression"] is None


def test_a_full_table_cache_holds_few_file_handles(tmp_path: Path) -> None:
    """Many table files, all in the cache and all read: LevelDB maps them and closes their
    handles, so the handles the process holds do not grow with the number of tables."""
    path = tmp_path / "db"
    # 1 MB: the least table size LevelDB takes
    store = leveldb.LevelDBStore(path, write_buffer_size=256 * 1024, max_file_size=1024 * 1024)
    value = os.urandom(1024)
    for first in range(0, 20_000, 100):
        batch = WriteBatch()
        for i in range(first, first + 100):
            batch.put(b"k%06d" % (i * 7919 % 20_000), value)
        store.write(batch)
    before = len(os.listdir("/proc/self/fd"))
    assert all(store.get(b"k%06d" % i) == value for i in range(20_000))
    tables = sum(name.endswith(".ldb") for name in os.listdir(path))
    assert tables >= 15
    assert len(os.listdir("/proc/self/fd")) <= before + 4
    store.close()


def test_the_setting_reaches_every_namespace(tmp_path: Path, opened: list[dict[str, Any]]) -> None:
    settings = load_settings(["--data-dir", str(tmp_path), "--leveldb-open-files", "200"], environ={})
    namespaces = Namespaces(data_dir=settings.data_dir, clock=make_clock("real", 1.0),
                            leveldb_open_files=settings.leveldb_open_files)  # fmt: skip
    for region in ("us-east-1", "eu-west-1"):  # a namespace's store is made by its first table
        new_table(namespaces.get(region, ""))
    namespaces.close()
    assert [o["max_open_files"] for o in opened] == [210, 210]


def test_the_setting_is_checked() -> None:
    assert load_settings([], environ={}).leveldb_open_files == leveldb.OPEN_FILES  # the store's default
    with pytest.raises(SettingsError, match="--leveldb-open-files"):
        load_settings(["--leveldb-open-files", "0"], environ={})
    assert load_settings([], environ={"DYNEMU_LEVELDB_OPEN_FILES": "500"}).leveldb_open_files == 500
