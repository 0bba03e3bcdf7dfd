"""A server writing continuously (streams on, LevelDB) is killed with SIGKILL; after a
restart every acknowledged write has exactly one stream record, and no record exists for a
write that was not applied: per item, the records chain (each OldImage is the previous
NewImage) and end at the item's state in the table."""

from __future__ import annotations

import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from tests.conftest import make_client

ROOT = Path(__file__).resolve().parent.parent
TABLE = "crash"
WORKERS = 4
KEYS = 25

# The server with what the control-plane wiring does for streams: on the first start create
# the table with its stream enabled (the database attaches loaded tables' writers itself).
LAUNCHER = """
import sys
from aiohttp import web
from dynemu.api.admin.app import NAMESPACES, create_app
from dynemu.config import load_settings
from dynemu.engine import streams
from dynemu.engine.schema import KeyAttr, TableSpec

settings = load_settings(sys.argv[1:])
app = create_app(settings)
db = app[NAMESPACES].get("us-east-1", "AKIDTEST")
if "crash" not in db.tables:
    tid, arn, uuid = db.new_spec_ids("crash", "us-east-1")
    spec = TableSpec(name="crash", table_id=tid, arn=arn, uuid=uuid, created=db.now(),
                     hash_key=KeyAttr("pk", "S"), range_key=None,
                     attribute_definitions=[KeyAttr("pk", "S")], billing_mode="PAY_PER_REQUEST")
    table = db.add_table(spec)
    streams.enable(db.streams, table, "NEW_AND_OLD_IMAGES", db.now())
print("ready", flush=True)
web.run_app(app, host="127.0.0.1", port=settings.port, print=None, access_log=None)
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _start(script: Path, data: Path) -> tuple[subprocess.Popen[str], str]:
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen(
        [sys.executable, str(script), "--data-dir", str(data), "--port", str(port), "--throttling", "off"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env, cwd=str(ROOT),
    )  # fmt: skip
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.strip() == "ready", line + proc.stdout.read()
    deadline = time.time() + 120  # "ready" comes before run_app starts the app and binds: generous
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return proc, f"http://127.0.0.1:{port}"
        except OSError:
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError("server did not start")


class Writer(threading.Thread):
    """Puts, updates and deletes random keys until the server dies; ``v`` carries the id
    of the write that set it."""

    def __init__(self, url: str, n: int, acked: dict[str, str], attempted: set[str]) -> None:
        super().__init__(daemon=True)
        self.client = make_client(url)
        self.n, self.acked, self.attempted = n, acked, attempted
        self.rng = random.Random(n)

    def run(self) -> None:
        for i in range(1_000_000):
            op_id = f"w{self.n}-{i}"
            pk = {"S": f"k{self.rng.randrange(KEYS)}"}
            kind = self.rng.choices(("put", "update", "delete"), (5, 3, 2))[0]
            self.attempted.add(op_id)
            try:
                if kind == "put":
                    self.client.put_item(TableName=TABLE, Item={"pk": pk, "v": {"S": op_id}, "n": {"N": str(i)}})
                elif kind == "update":
                    self.client.update_item(TableName=TABLE, Key={"pk": pk}, UpdateExpression="SET v = :v ADD c :one",
                                            ExpressionAttributeValues={":v": {"S": op_id}, ":one": {"N": "1"}})  # fmt: skip
                else:
                    self.client.delete_item(TableName=TABLE, Key={"pk": pk})
            except Exception:  # the server is gone
                return
            self.acked[op_id] = kind


def _records(url: str, table: str = TABLE) -> list[dict[str, Any]]:
    """Every stream record of ``table``, in sequence order, read through the Streams API."""
    s = make_client(url, service="dynamodbstreams")
    (stream,) = s.list_streams(TableName=table)["Streams"]
    arn = stream["StreamArn"]
    out: list[dict[str, Any]] = []
    for shard in s.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"]:
        it = s.get_shard_iterator(StreamArn=arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON")
        iterator = it["ShardIterator"]
        while iterator:
            page = s.get_records(ShardIterator=iterator)
            out += page["Records"]
            iterator = page.get("NextShardIterator") if page["Records"] else None
    return sorted(out, key=lambda r: int(r["dynamodb"]["SequenceNumber"]))


def kill_while_writing(proc: subprocess.Popen[str], writers: list[threading.Thread],
                       acked: dict[str, str], count: int = 400) -> None:
    """Start the writers, SIGKILL the server once ``count`` writes are acknowledged (or 120 s
    passed: a generous deadline, since a busy machine acknowledges far fewer writes a second),
    and wait for the writers to notice."""
    try:
        for w in writers:
            w.start()
        deadline = time.time() + 120
        while len(acked) < count and time.time() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.wait(20)
    finally:
        if proc.poll() is None:
            proc.kill()
    for w in writers:
        w.join(30)
    assert len(acked) >= count


def test_sigkill_neither_loses_nor_invents_stream_records(tmp_path: Path) -> None:
    script = tmp_path / "serve.py"
    script.write_text(LAUNCHER)
    data = tmp_path / "data"
    proc, url = _start(script, data)
    acked: dict[str, str] = {}
    attempted: set[str] = set()
    kill_while_writing(proc, [Writer(url, n, acked, attempted) for n in range(WORKERS)], acked)

    proc, url = _start(script, data)
    try:
        records = _records(url)
        client = make_client(url)
        table = {i["pk"]["S"]: i for i in client.scan(TableName=TABLE, ConsistentRead=True)["Items"]}
        # Records per key chain: each OldImage is the image the previous record left.
        state: dict[str, dict[str, Any] | None] = {}
        writes_seen: list[str] = []
        for r in records:
            pk = r["dynamodb"]["Keys"]["pk"]["S"]
            assert r["dynamodb"].get("OldImage") == state.get(pk), (pk, r)
            new = r["dynamodb"].get("NewImage")
            assert (new is None) == (r["eventName"] == "REMOVE")
            state[pk] = new
            if new is not None:
                writes_seen.append(new["v"]["S"])
        # ...and end where the table is: no applied change lacks its record, none is invented.
        assert {k: v for k, v in state.items() if v is not None} == table
        # Every acknowledged put/update has exactly one record; a record without an
        # acknowledgement can only be a write in flight when the server died.
        assert len(writes_seen) == len(set(writes_seen))
        acked_writes = {op for op, kind in acked.items() if kind != "delete"}
        assert acked_writes <= set(writes_seen)
        unacked = set(writes_seen) - set(acked)
        assert unacked <= attempted and len(unacked) <= WORKERS
        # and the restarted server goes on writing records after the recovered ones
        client.put_item(TableName=TABLE, Item={"pk": {"S": "after"}, "v": {"S": "after"}})
        again = _records(url)
        assert again[-1]["dynamodb"]["NewImage"]["v"]["S"] == "after"
        assert int(again[-1]["dynamodb"]["SequenceNumber"]) > int(records[-1]["dynamodb"]["SequenceNumber"])
    finally:
        proc.kill()
        proc.wait(20)
