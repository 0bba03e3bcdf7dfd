"""LevelDB's memory is bounded (issue 18): each namespace keeps at most --leveldb-open-files
table files open, and so mapped (LevelDB maps the files it keeps open; their touched pages
count in RSS), instead of LevelDB's default of about a thousand."""

from __future__ import annotations

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


def test_open_files_are_bounded_by_default(tmp_path: Path, opened: list[dict[str, Any]]) -> None:
    store = leveldb.LevelDBStore(tmp_path / "db")
    batch = WriteBatch()
    batch.put(b"k", b"v")
    store.write(batch)
    assert store.get(b"k") == b"v"
    store.close()
    assert opened[0]["max_open_files"] == leveldb.OPEN_FILES + 10  # LevelDB keeps 10 for itself
    assert opened[0]["max_file_size"] * leveldb.OPEN_FILES <= 32 * 1024 * 1024  # what can stay mapped
    assert opened[0]["bloom_filter_bits"] == 10


def test_the_setting_reaches_every_namespace(tmp_path: Path, opened: list[dict[str, Any]]) -> None:
    settings = load_settings(["--data-dir", str(tmp_path), "--leveldb-open-files", "200"], environ={})
    namespaces = Namespaces(data_dir=settings.data_dir, clock=make_clock("real", 1.0),
                            leveldb_open_files=settings.leveldb_open_files)  # fmt: skip
    for region in ("us-east-1", "eu-west-1"):  # a namespace's store is made by its first table
        new_table(namespaces.get(region, ""))
    namespaces.close()
    assert [o["max_open_files"] for o in opened] == [210, 210]


def test_the_setting_is_checked() -> None:
    assert load_settings([], environ={}).leveldb_open_files == leveldb.OPEN_FILES
    with pytest.raises(SettingsError, match="--leveldb-open-files"):
        load_settings(["--leveldb-open-files", "0"], environ={})
    assert load_settings([], environ={"DYNEMU_LEVELDB_OPEN_FILES": "500"}).leveldb_open_files == 500
