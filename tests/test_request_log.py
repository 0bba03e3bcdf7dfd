"""--log-requests: one line per request, text on stderr or JSON lines in a file; the units are
those the capacity model charged (the same as the request's own ConsumedCapacity); off, the
dispatcher's path is untouched."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from dynemu.api.protocol import ApiDispatcher
from dynemu.testing import DynemuServer, StartupError
from tests.conftest import make_client

ROOT = Path(__file__).resolve().parent.parent


def _table(c: Any) -> None:
    c.create_table(
        TableName="logged", BillingMode="PAY_PER_REQUEST",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"},
                              {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": "by_g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
    )


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_json_lines_to_a_file(tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    with DynemuServer(log_requests=str(log)) as url:
        c = make_client(url, region="eu-west-1")
        _table(c)
        put = c.put_item(TableName="logged", Item={"pk": {"S": "a"}, "g": {"S": "x"}, "pad": {"S": "p" * 1500}},
                         ReturnConsumedCapacity="TOTAL")
        got = c.get_item(TableName="logged", Key={"pk": {"S": "a"}}, ConsistentRead=True,
                         ReturnConsumedCapacity="TOTAL")
        with pytest.raises(c.exceptions.ResourceNotFoundException):
            c.get_item(TableName="missing", Key={"pk": {"S": "a"}})
        c.batch_write_item(RequestItems={"logged": [{"PutRequest": {"Item": {"pk": {"S": "b"}}}}]})
        c.transact_get_items(TransactItems=[{"Get": {"TableName": "logged", "Key": {"pk": {"S": "a"}}}}])
        c.execute_statement(Statement="SELECT * FROM logged WHERE pk = 'a'")
    lines = _lines(log)
    assert [(x["operation"], x["table"], x["status"], x["error"]) for x in lines] == [
        ("CreateTable", "logged", 200, None),
        ("PutItem", "logged", 200, None),
        ("GetItem", "logged", 200, None),
        ("GetItem", "missing", 400, "ResourceNotFoundException"),
        ("BatchWriteItem", "logged", 200, None),
        ("TransactGetItems", "logged", 200, None),
        ("ExecuteStatement", "-", 200, None),
    ]
    assert {x["region"] for x in lines} == {"eu-west-1"}
    assert all(set(x) == {"time", "region", "operation", "table", "status", "error", "read_units",
                          "write_units", "ms"} for x in lines)  # fmt: skip
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z", x["time"]) and x["ms"] >= 0 for x in lines)
    # the units the request itself reports: table and GSI together
    assert put["ConsumedCapacity"]["CapacityUnits"] == 4.0
    assert (lines[1]["read_units"], lines[1]["write_units"]) == (0.0, 4.0)
    assert (lines[2]["read_units"], lines[2]["write_units"]) == (0.0 + got["ConsumedCapacity"]["CapacityUnits"], 0.0)
    assert lines[2]["read_units"] == 1.0
    assert (lines[3]["read_units"], lines[3]["write_units"]) == (0.0, 0.0)
    assert (lines[4]["read_units"], lines[4]["write_units"]) == (0.0, 1.0)  # no "g": no GSI entry to write
    assert lines[5]["read_units"] == 2.0  # transactional: twice a strongly consistent read
    assert lines[6]["read_units"] == 0.5


def test_text_lines_on_stderr(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "dynemu", "--in-memory", "--port", str(port), "--log-requests"],
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, cwd=str(ROOT),
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))  # fmt: skip
    try:
        url = f"http://127.0.0.1:{port}"
        c = make_client(url)
        deadline = time.time() + 60
        while True:
            try:
                c.list_tables()
                break
            except Exception:
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        _table(c)
        c.put_item(TableName="logged", Item={"pk": {"S": "a"}})
        with pytest.raises(c.exceptions.ResourceNotFoundException):
            c.delete_item(TableName="gone", Key={"pk": {"S": "a"}})
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=60)
    stamp = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"
    logged = [line for line in err.splitlines() if re.match(stamp + " ", line)]
    assert re.fullmatch(stamp + r" us-east-1 ListTables - 200 - read=0 write=0 \d+\.\d\dms", logged[-4])
    assert re.fullmatch(stamp + r" us-east-1 CreateTable logged 200 - read=0 write=0 \d+\.\d\dms", logged[-3])
    assert re.fullmatch(stamp + r" us-east-1 PutItem logged 200 - read=0 write=1 \d+\.\d\dms", logged[-2])
    assert re.fullmatch(stamp + r" us-east-1 DeleteItem gone 400 ResourceNotFoundException read=0 write=0 \d+\.\d\dms",
                        logged[-1])  # fmt: skip


def test_off_leaves_the_path_untouched() -> None:
    server = DynemuServer()
    server.start()
    try:
        handle = server.app.dispatcher.handle
        assert handle.__func__ is ApiDispatcher.handle and server.app.dispatcher.request_log is None
    finally:
        server.stop()


def test_a_file_that_cannot_be_opened(tmp_path: Path) -> None:
    path = tmp_path / "no" / "such" / "dir.jsonl"
    with pytest.raises(StartupError) as e:
        DynemuServer(log_requests=str(path)).start()
    assert str(e.value) == f"--log-requests {path}: cannot open the file: No such file or directory"
