"""``dynemu import`` / ``dynemu export`` (offline), ``--init DIR`` and ``DynemuServer.seed``:
the same loader as ImportTable, one-line errors naming file, line and field, no half-made table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dynemu.seeding import SeedError
from dynemu.testing import DynemuServer
from tests.conftest import make_client

ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
DESCRIBED = {"Table": {
    "TableName": "users", "TableStatus": "ACTIVE", "ItemCount": 0,
    "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
    "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}, {"AttributeName": "email", "AttributeType": "S"}],
    "BillingModeSummary": {"BillingMode": "PAY_PER_REQUEST"},
    "ProvisionedThroughput": {"ReadCapacityUnits": 0, "WriteCapacityUnits": 0, "NumberOfDecreasesToday": 0},
    "GlobalSecondaryIndexes": [{"IndexName": "by-email", "KeySchema": [{"AttributeName": "email", "KeyType": "HASH"}],
                                "Projection": {"ProjectionType": "ALL"}, "IndexStatus": "ACTIVE"}],
}}  # fmt: skip
LINES = '{"Item": {"id": {"S": "u1"}, "email": {"S": "a@x"}}}\n{"Item": {"id": {"S": "u2"}, "email": {"S": "b@x"}}}\n'


def dynemu(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dynemu", *args], capture_output=True, text=True, env=ENV, timeout=120)


def test_import_then_export_then_import_again(tmp_path: Path) -> None:
    (tmp_path / "items.jsonl").write_text(LINES + '{"Item": {"email": {"S": "no id"}}}\nnot json\n')
    schema = tmp_path / "users.json"
    schema.write_text(json.dumps(DESCRIBED))
    data = str(tmp_path / "data")
    done = dynemu("import", str(tmp_path / "items.jsonl"), "--table", "users", "--schema", str(schema), "--data-dir", data)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("imported 2 items into users (2 errors, 4 lines,")
    assert done.stderr.splitlines() == [
        f"dynemu: {tmp_path / 'items.jsonl'}:3: id: One or more parameter values were invalid: Missing the key id in the item",
        f"dynemu: {tmp_path / 'items.jsonl'}:4: not JSON: invalid literal, expected 'null': line 1 column 1 (char 0)",
    ]
    out = dynemu("export", "--table", "users", "--to", str(tmp_path / "dump"), "--data-dir", data)
    assert out.returncode == 0 and out.stdout.startswith("exported 2 items of users to ")
    again = dynemu("import", str(tmp_path / "dump"), "--table", "copy", "--key", "id:S", "--data-dir", data)
    assert again.returncode == 0 and again.stdout.startswith("imported 2 items into copy (0 errors")
    refused = dynemu("import", str(tmp_path / "dump"), "--table", "copy", "--key", "id:S", "--data-dir", data)
    assert refused.returncode == 2
    assert refused.stderr == "dynemu: error: copy: ResourceInUseException: Table already exists: copy\n"
    with DynemuServer(data_dir=data) as url:
        c = make_client(url)
        assert c.query(TableName="users", IndexName="by-email", KeyConditionExpression="email = :e",
                       ExpressionAttributeValues={":e": {"S": "b@x"}})["Count"] == 1
        assert sorted(i["id"]["S"] for i in c.scan(TableName="copy")["Items"]) == ["u1", "u2"]


def test_init_creates_seeds_and_is_idempotent(tmp_path: Path) -> None:
    init = tmp_path / "init"
    init.mkdir()
    (init / "users.json").write_text(json.dumps(DESCRIBED))
    (init / "users.jsonl").write_text(LINES)
    (init / "eu-west-1").mkdir()
    (init / "eu-west-1" / "orders.json").write_text(json.dumps({
        "TableName": "orders", "BillingMode": "PAY_PER_REQUEST", "KeySchema": [{"AttributeName": "o", "KeyType": "HASH"}],
        "AttributeDefinitions": [{"AttributeName": "o", "AttributeType": "N"}]}))
    data = str(tmp_path / "data")
    for expected in (2, 3):  # the second start creates nothing again and keeps the later write
        with DynemuServer(init=str(init), data_dir=data) as url:
            c = make_client(url)
            assert c.scan(TableName="users")["Count"] == expected
            assert make_client(url, region="eu-west-1").list_tables()["TableNames"] == ["orders"]
            c.put_item(TableName="users", Item={"id": {"S": f"later{expected}"}})
            if expected == 3:
                break


def test_init_bad_file_stops_start_up_with_one_line(tmp_path: Path) -> None:
    init = tmp_path / "init"
    init.mkdir()
    (init / "users.json").write_text(json.dumps(DESCRIBED))
    (init / "users.jsonl").write_text(LINES + '{"Item": {"id": {"N": "5"}}}\n')
    done = dynemu("--init", str(init), "--in-memory", "--port", "0")
    assert done.returncode == 2
    assert done.stderr == (f"dynemu: error: --init: {init / 'users.jsonl'}:3: id: One or more parameter values were "
                           "invalid: Type mismatch for key id expected: S actual: N\n")
    (init / "users.json").write_text('{"TableName": "users"}')
    done = dynemu("--init", str(init), "--in-memory", "--port", "0")
    assert done.stderr == f"dynemu: error: --init: {init / 'users.json'}: KeySchema: missing\n"


def test_seed_from_a_test_suite(tmp_path: Path) -> None:
    (tmp_path / "users.jsonl").write_text(LINES)
    s = DynemuServer()
    url = s.start()
    try:
        assert s.seed(DESCRIBED, str(tmp_path / "users.jsonl")) == 2
        assert make_client(url).scan(TableName="users")["Count"] == 2
        (tmp_path / "bad.jsonl").write_text('{"Item": {"nope": {"S": "x"}}}\n')
        with pytest.raises(SeedError) as e:
            s.seed({"Table": {**DESCRIBED["Table"], "TableName": "other"}}, str(tmp_path / "bad.jsonl"))
        assert str(e.value).endswith("bad.jsonl:1: id: One or more parameter values were invalid: Missing the key id in the item")
        assert make_client(url).list_tables()["TableNames"] == ["users"]  # no half-made table
    finally:
        s.stop()


def test_reset_brings_back_the_init_tables(tmp_path: Path) -> None:
    init = tmp_path / "init"
    init.mkdir()
    (init / "users.json").write_text(json.dumps(DESCRIBED))
    (init / "users.jsonl").write_text(LINES)
    s = DynemuServer(init=str(init))
    url = s.start()
    try:
        c = make_client(url)
        c.delete_item(TableName="users", Key={"id": {"S": "u1"}})
        c.create_table(TableName="scratch", BillingMode="PAY_PER_REQUEST",
                       KeySchema=[{"AttributeName": "k", "KeyType": "HASH"}],
                       AttributeDefinitions=[{"AttributeName": "k", "AttributeType": "S"}])
        s.reset()
        assert c.list_tables()["TableNames"] == ["users"] and c.scan(TableName="users")["Count"] == 2
    finally:
        s.stop()


def test_unreadable_file_leaves_no_table(tmp_path: Path) -> None:
    import gzip

    (tmp_path / "cut.json.gz").write_bytes(gzip.compress(LINES.encode() * 50)[:-30])  # truncated
    data = str(tmp_path / "data")
    done = dynemu("import", str(tmp_path / "cut.json.gz"), "--table", "cut", "--key", "id:S", "--data-dir", data)
    assert done.returncode == 2
    assert done.stderr == (f"dynemu: error: {tmp_path / 'cut.json.gz'}: EOFError: Compressed file ended before the "
                           "end-of-stream marker was reached (table cut not created)\n")
    with DynemuServer(data_dir=data) as url:
        assert make_client(url).list_tables()["TableNames"] == []


def test_dynemu_import_gives_its_store_a_larger_write_buffer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The bulk load's LevelDB memory table (io_cli.BULK_WRITE_BUFFER): this process only."""
    from dynemu import io_cli
    from dynemu.storage import leveldb

    opened: list[dict[str, object]] = []
    real = leveldb.LevelDBStore.__init__

    def spy(self: leveldb.LevelDBStore, path: str, **kw: object) -> None:
        opened.append(kw)
        real(self, path, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(leveldb.LevelDBStore, "__init__", spy)
    monkeypatch.setattr(io_cli, "_fewer_collections", lambda: None)  # the test process's collector stays as it is
    (tmp_path / "items.jsonl").write_text(LINES)
    data = str(tmp_path / "data")
    assert io_cli.import_main([str(tmp_path / "items.jsonl"), "--table", "users", "--key", "id:S", "--data-dir", data]) == 0
    assert opened and all(kw["write_buffer_size"] == io_cli.BULK_WRITE_BUFFER for kw in opened)
    opened.clear()
    with DynemuServer(data_dir=data) as url:  # a server's stores keep LevelDB's default
        assert make_client(url).scan(TableName="users")["Count"] == 2
    assert opened and all("write_buffer_size" not in kw for kw in opened)


def test_a_large_import_with_repeated_keys_keeps_the_later_lines(tmp_path: Path) -> None:
    """Past the loader's exact set of keys (``loader._EXACT``), the keys put are kept in a
    Bloom filter: a key repeated then (in another step) still replaces its item and its
    share of the table's count and size."""
    from dynemu.engine.exports import loader

    n = loader._EXACT + 2_000
    lines = [f'{{"Item": {{"id": {{"S": "k{i}"}}, "v": {{"N": "{i}"}}}}}}' for i in range(n)]
    lines += [f'{{"Item": {{"id": {{"S": "k{i}"}}, "v": {{"S": "again"}}}}}}' for i in range(0, n, 7)]
    (tmp_path / "items.jsonl").write_text("\n".join(lines) + "\n")
    data = str(tmp_path / "data")
    done = dynemu("import", str(tmp_path / "items.jsonl"), "--table", "tab", "--key", "id:S", "--data-dir", data)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"imported {len(lines):,} items into tab (0 errors, {len(lines):,} lines,")
    with DynemuServer(data_dir=data) as url:
        c = make_client(url)
        items = {i["id"]["S"]: i["v"] for page in c.get_paginator("scan").paginate(TableName="tab") for i in page["Items"]}
        assert len(items) == n
        assert all(items[f"k{i}"] == ({"S": "again"} if i % 7 == 0 else {"N": str(i)}) for i in range(n))
        size = sum(len("id") + len(f"k{i}") + len("v") + (5 if i % 7 == 0 else 0) for i in range(n))
        described = c.describe_table(TableName="tab")["Table"]
        assert described["ItemCount"] == n
        assert described["TableSizeBytes"] > size  # the numbers' sizes on top: no item counted twice
        assert described["TableSizeBytes"] < size + 5 * n


def test_the_table_is_checked_as_createtable_checks_it(tmp_path: Path) -> None:
    """``dynemu import``'s table goes through CreateTable's request validation: a name
    CreateTable refuses is refused with its message, and no table is made."""
    (tmp_path / "items.jsonl").write_text(LINES)
    data = str(tmp_path / "data")
    refused = dynemu("import", str(tmp_path / "items.jsonl"), "--table", "t", "--key", "id:S", "--data-dir", data)
    assert refused.returncode == 2
    assert refused.stderr == ("dynemu: error: t: ValidationException: 1 validation error detected: Value 't' at "
                              "'tableName' failed to satisfy constraint: Member must have length greater than or "
                              "equal to 3\n")
    with DynemuServer(data_dir=data) as url:
        assert make_client(url).list_tables()["TableNames"] == []
