"""A restart on LevelDB does not read every item (issue 18): a clean stop saves each table's
partition sizes, so the next start finds them matching the table's counters. After a crash
the sizes are measured again from the items, exactly, and the measure's memory does not grow
with the partition."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dynemu.api.admin.app import NAMESPACES
from dynemu.engine.capacity.admission import TableCapacity
from dynemu.testing import DynemuServer
from tests.conftest import make_client

KB = 1024


def _load(url: str) -> None:
    ddb = make_client(url)
    ddb.create_table(
        TableName="tab", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
    )  # fmt: skip
    for i in range(240):  # about 240 KB: several 64 KB partitions
        ddb.put_item(TableName="tab", Item={"pk": {"S": f"k{i}"}, "v": {"S": "x" * 1000}})
    for i in range(0, 240, 7):  # sizes move on after the last split
        ddb.delete_item(TableName="tab", Key={"pk": {"S": f"k{i}"}})
    for i in range(1, 240, 11):
        ddb.put_item(TableName="tab", Item={"pk": {"S": f"k{i}"}, "v": {"S": "y" * 10}})


def _partitions(server: DynemuServer) -> list[tuple[bytes, int, int]]:
    db = server.app[NAMESPACES].databases["us-east-1"]
    return list(db.tables["tab"].capacity.state.pmap.snapshot())


def _server(data_dir: Path) -> DynemuServer:
    return DynemuServer(data_dir=str(data_dir), partition_size=64 * KB, throttling="off")


def _spy(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []
    measure = TableCapacity._measure

    def spy(self: TableCapacity, *args: Any) -> tuple[int, int]:
        calls.append(args)
        return measure(self, *args)

    monkeypatch.setattr(TableCapacity, "_measure", spy)
    return calls


def test_clean_restart_measures_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = _server(tmp_path)
    _load(server.start())
    before = _partitions(server)
    assert len(before) > 2
    server.stop()
    calls = _spy(monkeypatch)
    server = _server(tmp_path)
    url = server.start()
    try:
        assert make_client(url).list_tables()["TableNames"] == ["tab"]
        assert _partitions(server) == before
        assert calls == []
    finally:
        server.stop()


def test_restart_after_a_crash_measures_the_exact_sizes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    server = _server(tmp_path)
    url = server.start()
    _load(url)
    before = _partitions(server)
    server.app[NAMESPACES].databases["us-east-1"].store.close()  # as a crash: nothing saved at the stop
    server.stop()
    calls = _spy(monkeypatch)
    server = _server(tmp_path)
    url = server.start()
    try:
        assert _partitions(server) == before
        assert len(calls) == len(before)
        table = make_client(url).describe_table(TableName="tab")["Table"]
        assert table["ItemCount"] == sum(count for _, _, count in before)
    finally:
        server.stop()
