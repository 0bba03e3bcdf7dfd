"""The dynemu command: start-up line, persistence across a restart, clean shutdown, namespaces."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from tests.conftest import make_client


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Process:
    def __init__(self, *args: str, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        full_env = dict(os.environ, **(env or {}))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "dynemu", "--port", str(self.port), *args],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=full_env,
        )
        assert self.proc.stdout is not None
        self.first_line = self.proc.stdout.readline()
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("server did not start: " + self.first_line)

    def stop(self, sig: int = signal.SIGTERM) -> int:
        self.proc.send_signal(sig)
        return self.proc.wait(20)


def test_restart_keeps_everything(tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    p = Process("--data-dir", data, "--throttling", "off")
    try:
        assert p.url in p.first_line and data in p.first_line and "per-region" in p.first_line
        c = make_client(p.url)
        c.create_table(
            TableName="persist",
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
            ProvisionedThroughput={"ReadCapacityUnits": 7, "WriteCapacityUnits": 3},
        )
        for i in range(50):
            c.put_item(TableName="persist", Item={"pk": {"S": f"p{i % 5}"}, "sk": {"N": str(i)}, "v": {"S": "x" * i}})
        c.delete_item(TableName="persist", Key={"pk": {"S": "p0"}, "sk": {"N": "0"}})
        before = c.describe_table(TableName="persist")["Table"]
        make_client(p.url, region="eu-west-1").create_table(
            TableName="other-region", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
        )
    finally:
        assert p.stop() == 0
    p = Process("--data-dir", data, "--throttling", "off")
    try:
        c = make_client(p.url)
        after = c.describe_table(TableName="persist")["Table"]
        for field in ("ItemCount", "TableSizeBytes", "TableArn", "TableId", "ProvisionedThroughput", "CreationDateTime"):
            assert after[field] == before[field], field
        assert after["ItemCount"] == 49
        for i in range(1, 50):
            item = c.get_item(TableName="persist", Key={"pk": {"S": f"p{i % 5}"}, "sk": {"N": str(i)}})["Item"]
            assert item["v"] == {"S": "x" * i}
        assert c.list_tables()["TableNames"] == ["persist"]
        assert make_client(p.url, region="eu-west-1").list_tables()["TableNames"] == ["other-region"]
        # A new table after restart never reuses an id: its items are its own.
        c.create_table(
            TableName="fresh", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
        )
        assert c.describe_table(TableName="fresh")["Table"]["ItemCount"] == 0
    finally:
        assert p.stop(signal.SIGINT) == 0


def test_in_memory_and_env_flags(tmp_path: Path) -> None:
    p = Process(env={"DYNEMU_IN_MEMORY": "1", "DYNEMU_SHARED_DB": "true"})
    try:
        assert "in memory" in p.first_line and "shared-db" in p.first_line
        a = make_client(p.url, region="us-west-2")
        a.create_table(
            TableName="everywhere", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
        )
        assert make_client(p.url, region="eu-central-1", key="OTHER").list_tables()["TableNames"] == ["everywhere"]
    finally:
        p.stop()


def test_isolate_access_keys() -> None:
    p = Process("--in-memory", "--isolate-access-keys")
    try:
        assert "isolate-access-keys" in p.first_line
        a: Any = make_client(p.url, key="WORKERA")
        b: Any = make_client(p.url, key="WORKERB")
        a.create_table(
            TableName="mine", KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}], BillingMode="PAY_PER_REQUEST",
        )
        assert a.list_tables()["TableNames"] == ["mine"]
        assert b.list_tables()["TableNames"] == []
    finally:
        p.stop()
