"""ImportTable across a restart of a real server process on LevelDB (--data-dir): an import
the server stopped midway (SIGKILL or SIGTERM) reads FAILED after the restart and leaves no
table; an import whose work was done keeps its table CREATING until the job ends. No timed
assertion: the tests poll DescribeImport, a bounded number of times."""

from __future__ import annotations

import gzip
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from dynemu.engine.exports import jobs
from tests.conftest import make_client
from tests.test_server_process import Process

N = 300_000  # lines of the large import: far more than one step (512) imports


def _params(name: str) -> dict[str, Any]:
    return {"TableName": name, "BillingMode": "PAY_PER_REQUEST", "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
            "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"},
                                     {"AttributeName": "g", "AttributeType": "S"}],
            "GlobalSecondaryIndexes": [{"IndexName": "by-g", "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                        "Projection": {"ProjectionType": "ALL"}}]}  # fmt: skip


def _source(s3: Path, bucket: str, n: int) -> None:
    folder = s3 / bucket / "in"
    folder.mkdir(parents=True)
    lines = b"".join(b'{"Item":{"pk":{"S":"k%06d"},"g":{"S":"g%d"}}}\n' % (i, i % 7) for i in range(n))
    (folder / "items.json.gz").write_bytes(gzip.compress(lines, compresslevel=1))


def _import(client: Any, bucket: str, name: str) -> str:
    d = client.import_table(S3BucketSource={"S3Bucket": bucket, "S3KeyPrefix": "in/"}, InputFormat="DYNAMODB_JSON",
                            InputCompressionType="GZIP", TableCreationParameters=_params(name))["ImportTableDescription"]
    assert d["ImportStatus"] == "IN_PROGRESS"
    return d["ImportArn"]  # type: ignore[no-any-return]


def _describe(client: Any, arn: str) -> dict[str, Any]:
    return client.describe_import(ImportArn=arn)["ImportTableDescription"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("sig", [signal.SIGKILL, signal.SIGTERM])
def test_a_restart_mid_import_fails_it_and_leaves_no_table(tmp_path: Path, sig: int) -> None:
    data, s3 = str(tmp_path / "data"), tmp_path / "s3"
    _source(s3, "big", N)
    args = ("--data-dir", data, "--s3-dir", str(s3), "--import-export-seconds", "0")
    p = Process(*args)
    try:
        c = make_client(p.url)
        arn = _import(c, "big", "half")
        for _ in range(100_000):  # until the first steps are written
            d = _describe(c, arn)
            if d.get("ImportedItemCount", 0) > 0:
                break
            time.sleep(0.005)
        assert d["ImportStatus"] == "IN_PROGRESS" and 0 < d["ImportedItemCount"] < N
        assert c.describe_table(TableName="half")["Table"]["TableStatus"] == "CREATING"
    finally:
        p.stop(sig)
    p = Process(*args)
    try:
        c = make_client(p.url)
        d = _describe(c, arn)
        assert d["ImportStatus"] == "FAILED"
        assert (d["FailureCode"], d["FailureMessage"]) == jobs.INTERRUPTED
        assert d["EndTime"] >= d["StartTime"]
        assert c.list_tables()["TableNames"] == []
        with pytest.raises(c.exceptions.ResourceNotFoundException):
            c.describe_table(TableName="half")
        assert [s["ImportStatus"] for s in c.list_imports()["ImportSummaryList"]] == ["FAILED"]
        # the name is free again, and nothing of the half-made table is left in the new one
        _source(s3, "small", 10)
        again = _import(c, "small", "half")
        for _ in range(10_000):
            d = _describe(c, again)
            if d["ImportStatus"] != "IN_PROGRESS":
                break
            time.sleep(0.01)
        assert d["ImportStatus"] == "COMPLETED" and d["ImportedItemCount"] == 10
        t = c.describe_table(TableName="half")["Table"]
        assert (t["TableStatus"], t["ItemCount"]) == ("ACTIVE", 10)
        assert c.scan(TableName="half", Select="COUNT")["Count"] == 10
        assert c.scan(TableName="half", IndexName="by-g", Select="COUNT")["Count"] == 10
    finally:
        assert p.stop() == 0


def test_an_import_done_but_not_ended_keeps_its_table_creating_across_a_restart(tmp_path: Path) -> None:
    data, s3 = str(tmp_path / "data"), tmp_path / "s3"
    _source(s3, "small", 20)
    args = ("--data-dir", data, "--s3-dir", str(s3), "--import-export-seconds", "3600")
    p = Process(*args)
    try:
        c = make_client(p.url)
        arn = _import(c, "small", "done")
        for _ in range(10_000):  # until its work is done (the job lasts an hour of clock time)
            d = _describe(c, arn)
            if d.get("ImportedItemCount", 0) == 20:
                break
            time.sleep(0.01)
        assert d["ImportStatus"] == "IN_PROGRESS" and d["ImportedItemCount"] == 20
    finally:
        assert p.stop() == 0
    p = Process(*args)
    try:
        c = make_client(p.url)
        d = _describe(c, arn)
        assert d["ImportStatus"] == "IN_PROGRESS" and d["ImportedItemCount"] == 20 and "FailureCode" not in d
        assert c.describe_table(TableName="done")["Table"]["TableStatus"] == "CREATING"
        with pytest.raises(c.exceptions.ResourceNotFoundException):
            c.get_item(TableName="done", Key={"pk": {"S": "k000000"}})
    finally:
        assert p.stop() == 0


def test_a_killed_dynemu_import_leaves_no_table(tmp_path: Path) -> None:
    """``dynemu import`` reads a named pipe: once the test has written 3 MB into it, the
    command has read all but the pipe's buffer, so it has created the table and written the
    steps of the first 1 MB; then it is killed. The next open drops the half-made table."""
    import os
    import subprocess
    import sys

    data, fifo = str(tmp_path / "data"), str(tmp_path / "items.jsonl")
    os.mkfifo(fifo)
    cmd = subprocess.Popen([sys.executable, "-m", "dynemu", "import", fifo, "--table", "seeded", "--key", "pk:S",
                            "--data-dir", data], stderr=subprocess.PIPE)  # fmt: skip
    fd = -1
    for _ in range(100_000):  # until the command opens the pipe (or stops)
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError:
            assert cmd.poll() is None, cmd.communicate()[1]
            time.sleep(0.01)
    assert fd >= 0
    os.set_blocking(fd, True)
    line = b'{"Item":{"pk":{"S":"k%07d"},"pad":{"S":"' + b"x" * 40 + b'"}}}\n'
    try:
        with open(fd, "wb") as pipe:
            pipe.write(b"".join(line % i for i in range(3 * 1024 * 1024 // len(line))))
            pipe.flush()
            cmd.kill()
            cmd.wait(30)
    except BrokenPipeError:  # the command stopped before reading it all: it says why
        raise AssertionError(cmd.communicate()[1]) from None
    p = Process("--data-dir", data)
    try:
        c = make_client(p.url)
        assert c.list_tables()["TableNames"] == []
    finally:
        assert p.stop() == 0
