"""Durability edges with real server processes (issue 31), on LevelDB and on SQLite:

* a TransactWriteItems ClientRequestToken survives a SIGKILL and a SIGTERM: the repeat after
  the restart writes nothing (the API reference: a token is valid for 10 minutes after the
  first request that uses it completes, and SDKs retry a timed-out transaction with it);
* a full disk: a write refused for lack of space answers 500 InternalServerError saying
  where, logged once rather than as a traceback per request; reads keep working; writes work
  again once space is freed, without a restart; SIGTERM then exits 0 with "dynemu stopped".
  The disk is a small tmpfs, which only root can mount (CI runs as root).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import urllib.request
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from tests.conftest import make_client
from tests.test_server_process import Process

STORES = ["leveldb", "sqlite"]
TABLE = "durable"
MSG_FULL_START = "The disk of dynemu's data directory is full: no space left to write "
MSG_FULL_END = (
    ". Nothing was written; reads keep working, and writes resume by themselves once space is freed on that disk."
)


def _create(c: Any) -> None:
    c.create_table(TableName=TABLE, KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
                   AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                   BillingMode="PAY_PER_REQUEST")


def _add_one(c: Any, token: str) -> dict[str, Any]:
    return c.transact_write_items(  # type: ignore[no-any-return]
        ClientRequestToken=token, ReturnConsumedCapacity="TOTAL",
        TransactItems=[{"Update": {"TableName": TABLE, "Key": {"pk": {"S": "counter"}},
                                   "UpdateExpression": "ADD v :one",
                                   "ExpressionAttributeValues": {":one": {"N": "1"}}}}],
    )  # fmt: skip


WRITTEN = [{"TableName": TABLE, "CapacityUnits": 2.0, "WriteCapacityUnits": 2.0}]  # 1 KB, x2 in a transaction
REPEATED = [{"TableName": TABLE, "CapacityUnits": 2.0, "ReadCapacityUnits": 2.0}]  # reading it: 4 KB, x2


def _v(c: Any) -> str:
    item = c.get_item(TableName=TABLE, Key={"pk": {"S": "counter"}}, ConsistentRead=True)["Item"]
    return item["v"]["N"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("store", STORES)
@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM], ids=["SIGKILL", "SIGTERM"])
def test_token_survives_a_restart(tmp_path: Path, store: str, sig: int) -> None:
    data = str(tmp_path / "data")
    token = f"tok-{uuid.uuid4().hex[:12]}"
    p = Process("--data-dir", data, "--store", store, "--throttling", "off")
    try:
        c = make_client(p.url)
        _create(c)
        assert _add_one(c, token)["ConsumedCapacity"] == WRITTEN
        assert _add_one(c, token)["ConsumedCapacity"] == REPEATED  # a repeat in the same process
        assert _v(c) == "1"
    finally:
        code = p.stop(sig)
    assert code == (0 if sig == signal.SIGTERM else -signal.SIGKILL)
    p = Process("--data-dir", data, "--store", store, "--throttling", "off")
    try:
        c = make_client(p.url)
        # the SDK's retry after the restart: success with the read units, nothing written
        assert _add_one(c, token)["ConsumedCapacity"] == REPEATED
        assert _v(c) == "1"
        # ... and its parameters are remembered: a different payload is a mismatch
        with pytest.raises(ClientError) as e:
            c.transact_write_items(ClientRequestToken=token, TransactItems=[
                {"Put": {"TableName": TABLE, "Item": {"pk": {"S": "other"}}}}])
        assert e.value.response["Error"]["Code"] == "IdempotentParameterMismatchException"
        assert _add_one(c, f"tok-{uuid.uuid4().hex[:12]}")["ConsumedCapacity"] == WRITTEN  # a new token runs
        assert _v(c) == "2"
    finally:
        assert p.stop() == 0


# --- a full disk --------------------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 24 MB tmpfs, mounted for the test (root only: skipped elsewhere, saying why)."""
    mount = tmp_path / "disk"
    mount.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs for the full-disk test needs root (CI runs as root)")
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(mount)],
                          capture_output=True, text=True)  # fmt: skip
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here ({done.stderr.strip() or done.returncode}): "
                    "the full-disk test needs one")  # fmt: skip
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def _fill(disk: Path, leave: int) -> Path:
    """A file taking the disk's free space but ``leave`` bytes (all of it when 0)."""
    filler = disk / f"filler-{leave}"
    chunk = b"\0" * 4096
    with open(filler, "wb") as f:
        while True:
            st = os.statvfs(disk)
            if st.f_bavail * st.f_frsize <= leave:
                return filler
            try:
                f.write(chunk)
                f.flush()
            except OSError:  # ENOSPC: full
                return filler


def _raw_put(url: str, n: int) -> tuple[int, dict[str, Any]]:
    """PutItem over plain HTTP (boto3 would retry a 500): status and body."""
    body = json.dumps({"TableName": TABLE, "Item": {"pk": {"S": f"k{n}"}, "v": {"S": "x" * 8000}}}).encode()
    req = urllib.request.Request(url, data=body, method="POST", headers={
        "Content-Type": "application/x-amz-json-1.0", "X-Amz-Target": "DynamoDB_20120810.PutItem",
        "Authorization": "AWS4-HMAC-SHA256 Credential=AKIDTEST/20240101/us-east-1/dynamodb/aws4_request, "
                         "SignedHeaders=host, Signature=0"})  # fmt: skip
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read() or b"{}")
    except urllib.error.HTTPError as e:
        return e.code, json.loads(e.read() or b"{}")


@pytest.mark.parametrize("store", STORES)
def test_full_disk(small_disk: Path, store: str) -> None:
    data = small_disk / "data"
    p = Process("--data-dir", str(data), "--store", store, "--throttling", "off")
    stopped = False
    try:
        c = make_client(p.url)
        _create(c)
        for n in range(20):
            assert _raw_put(p.url, n)[0] == 200
        filler = _fill(small_disk, 64 * 1024)
        refused = None
        for n in range(20, 2000):  # until the disk refuses a write
            status, body = _raw_put(p.url, n)
            if status != 200:
                refused = (n, status, body)
                break
        assert refused is not None, "the disk never filled"
        n, status, body = refused
        assert status == 500
        assert body["__type"] == "com.amazonaws.dynamodb.v20120810#InternalServerError"
        where = os.path.join(os.path.realpath(data), "us-east-1")
        assert body["message"] == MSG_FULL_START + where + MSG_FULL_END
        for _ in range(3):  # every write is refused the same way, and logged once
            assert _raw_put(p.url, n)[0] == 500
        # reads keep working: every acknowledged write is there
        for i in range(n):
            assert c.get_item(TableName=TABLE, Key={"pk": {"S": f"k{i}"}})["Item"]["v"]["S"] == "x" * 8000
        assert c.describe_table(TableName=TABLE)["Table"]["TableName"] == TABLE
        filler.unlink()  # space returns: writes work again, without a restart
        for i in range(n, n + 20):
            assert _raw_put(p.url, i) == (200, {})
        filler = _fill(small_disk, 0)  # full again, then a shutdown: the stores close all the same
        assert any(_raw_put(p.url, n + 20 + i)[0] == 500 for i in range(200))
        code = p.stop()
        stopped = True
        out = p.proc.stdout.read() if p.proc.stdout else ""
        assert code == 0, out
        assert "dynemu stopped" in out, out
        assert "Traceback" not in out, out
        # one line per episode of refused writes (two here), not one per request
        assert out.count("writes are refused with InternalServerError until then") == 2, out
        assert out.count("writes resumed") == 1, out
        if store == "leveldb":  # its refused handle is not reopened without room: the save is refused
            assert out.count("could not save partition sizes") == 1, out
        filler.unlink()
    finally:
        if not stopped:
            p.stop(signal.SIGKILL)
    p = Process("--data-dir", str(data), "--store", store, "--throttling", "off")
    try:  # nothing acknowledged was lost
        c = make_client(p.url)
        for i in range(n + 20):
            assert c.get_item(TableName=TABLE, Key={"pk": {"S": f"k{i}"}})["Item"]["v"]["S"] == "x" * 8000, i
    finally:
        assert p.stop() == 0
