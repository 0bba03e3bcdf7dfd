"""A restore interrupted by a crash leaves the store as it was before the restore or as the
snapshot had it, never a mix: the steps of storage/checkpoints.py one by one, then a server
killed with SIGKILL at random moments of a restore."""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from dynemu.storage import checkpoints
from dynemu.storage.base import WriteBatch
from dynemu.storage.leveldb import LevelDBStore
from dynemu.testing import DynemuServer
from tests.conftest import make_client

ROOT = Path(__file__).resolve().parent.parent


def _store(path: Path, marker: bytes, n: int) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    s = LevelDBStore(path)
    b = WriteBatch()
    for i in range(n):
        b.put(b"k%05d" % i, marker)
    s.write(b)
    s.close()


def _read(path: Path) -> set[bytes]:
    s = LevelDBStore(path)
    try:
        return {v for _, v in s.iterate(b"", b"\xff")}
    finally:
        s.close()


@pytest.mark.parametrize("crash_after", ["stage", "commit", "old_moved", "new_moved"])
def test_each_crash_point_recovers_to_one_whole_state(tmp_path: Path, crash_after: str) -> None:
    data = tmp_path / "data"
    _store(data / "ns", b"old", 500)
    _store(data / "gone", b"old", 10)
    _store(tmp_path / "snap", b"new", 300)
    checkpoints.stage(str(data), {"ns": str(tmp_path / "snap"), "gone": None})
    if crash_after != "stage":
        checkpoints.commit(str(data))
    if crash_after in ("old_moved", "new_moved"):  # part of step 3, by hand, as recover does it
        committed = data / checkpoints.COMMITTED
        (data / checkpoints.TRASH).mkdir()
        os.rename(data / "ns", data / checkpoints.TRASH / "ns.0")
        (committed / ".done-ns").touch()
        if crash_after == "new_moved":
            os.rename(committed / "ns", data / "ns")
    checkpoints.recover(str(data))
    checkpoints.recover(str(data))  # a crash during recovery: recovering again is harmless
    assert sorted(os.listdir(data)) == (["gone", "ns"] if crash_after == "stage" else ["ns"])
    assert _read(data / "ns") == ({b"old"} if crash_after == "stage" else {b"new"})


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve(data: Path) -> tuple[subprocess.Popen[bytes], str]:
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "dynemu", "--data-dir", str(data), "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=str(ROOT))  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            urllib.request.urlopen(url + "/", timeout=1).close()
            return proc, url
        except OSError:  # not listening yet, or slow to answer on a busy machine (a read timeout)
            time.sleep(0.05)
    proc.kill()
    raise AssertionError("the server did not start")


def _restore(url: str) -> None:
    req = urllib.request.Request(url + "/_dynemu/snapshots/base/restore", data=b"{}", method="POST",
                                 headers={"Content-Type": "application/json"})  # fmt: skip
    try:
        urllib.request.urlopen(req, timeout=60).close()
    except (urllib.error.URLError, ConnectionError, OSError):
        pass  # killed under it


def test_sigkill_during_a_restore(tmp_path: Path) -> None:
    data = tmp_path / "data"
    rows = tmp_path / "big.jsonl"
    with rows.open("w") as f:
        for i in range(20_000):
            f.write(json.dumps({"Item": {"pk": {"S": f"k{i}"}, "v": {"S": "x" * 500}}}) + "\n")
    definition = {"TableName": "big", "BillingMode": "PAY_PER_REQUEST",
                  "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                  "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}  # fmt: skip
    s = DynemuServer(data_dir=str(data))
    s.start()
    try:
        s.seed(definition, str(rows))
        s.snapshot("base")  # state A: big with 20,000 items
        c = make_client(s.url)
        c.delete_table(TableName="big")  # state B: only "small", with 3 items
        c.create_table(TableName="small", BillingMode="PAY_PER_REQUEST",
                       KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                       AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])  # fmt: skip
        for i in range(3):
            c.put_item(TableName="small", Item={"pk": {"S": str(i)}})
    finally:
        s.stop()
    rng = random.Random(7)
    outcomes = []
    for _ in range(6):
        proc, url = _serve(data)
        urllib.request.urlopen(url + "/_dynemu/snapshots", timeout=60).close()  # the admin app is built
        t = threading.Thread(target=_restore, args=(url,))
        t.start()
        time.sleep(rng.uniform(0.0, 0.2))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        t.join()
        proc, url = _serve(data)
        try:
            c = make_client(url)
            tables = c.list_tables()["TableNames"]
            if tables == ["big"]:  # the snapshot, whole
                assert c.describe_table(TableName="big")["Table"]["ItemCount"] == 20_000
                pages = c.get_paginator("scan").paginate(TableName="big", Select="COUNT")
                assert sum(page["Count"] for page in pages) == 20_000
                outcomes.append("restored")
            else:  # the state before, whole
                assert tables == ["small"]
                assert c.scan(TableName="small", Select="COUNT")["Count"] == 3
                outcomes.append("before")
            if tables == ["big"]:  # put state B back for the next round
                c.delete_table(TableName="big")
                c.create_table(TableName="small", BillingMode="PAY_PER_REQUEST",
                               KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                               AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}])  # fmt: skip
                for i in range(3):
                    c.put_item(TableName="small", Item={"pk": {"S": str(i)}})
            assert not [n for n in os.listdir(data) if n.startswith(".restore") or n == ".trash"]
        finally:
            proc.terminate()
            proc.wait()
    print("outcomes:", outcomes)  # which state each kill left depends on timing; both are whole
