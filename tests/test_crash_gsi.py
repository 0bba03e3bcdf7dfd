"""SIGKILL during writes to a table with a GSI and a stream (LevelDB) loses nothing: after a
restart every acknowledged write has its one stream record, the records chain per item and
end at the table's state, and the GSI holds exactly the table's items (issue 17)."""

from __future__ import annotations

import random
import threading
from pathlib import Path
from typing import Any

from tests.conftest import make_client
from tests.test_crash import _records, _start, kill_while_writing

TABLE = "crash-gsi"
INDEX = "by-g"
WORKERS = 4
KEYS = 25
GROUPS = ["g0", "g1", "g2"]

LAUNCHER = """
import sys
from aiohttp import web
from dynemu.api.admin.app import create_app
from dynemu.config import load_settings

settings = load_settings(sys.argv[1:])
app = create_app(settings)
print("ready", flush=True)
web.run_app(app, host="127.0.0.1", port=settings.port, print=None, access_log=None)
"""


def _create(url: str) -> None:
    make_client(url).create_table(
        TableName=TABLE,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "g", "AttributeType": "S"}],
        GlobalSecondaryIndexes=[{"IndexName": INDEX, "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                                 "Projection": {"ProjectionType": "ALL"}}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )  # fmt: skip


class Writer(threading.Thread):
    """Puts, updates (moving the item between GSI keys) and deletes until the server dies."""

    def __init__(self, url: str, n: int, acked: dict[str, str]) -> None:
        super().__init__(daemon=True)
        self.client = make_client(url)
        self.n, self.acked = n, acked
        self.rng = random.Random(100 + n)

    def run(self) -> None:
        for i in range(1_000_000):
            op_id = f"w{self.n}-{i}"
            pk = {"S": f"k{self.rng.randrange(KEYS)}"}
            g = {"S": self.rng.choice(GROUPS)}
            kind = self.rng.choices(("put", "update", "delete"), (5, 3, 2))[0]
            try:
                if kind == "put":
                    self.client.put_item(TableName=TABLE, Item={"pk": pk, "g": g, "v": {"S": op_id}})
                elif kind == "update":
                    self.client.update_item(TableName=TABLE, Key={"pk": pk}, UpdateExpression="SET v = :v, g = :g",
                                            ExpressionAttributeValues={":v": {"S": op_id}, ":g": g})  # fmt: skip
                else:
                    self.client.delete_item(TableName=TABLE, Key={"pk": pk})
            except Exception:  # the server is gone
                return
            self.acked[op_id] = kind



def _scan(client: Any, **kwargs: Any) -> dict[str, dict[str, Any]]:
    items: dict[str, dict[str, Any]] = {}
    page: dict[str, Any] = {}
    while True:
        page = client.scan(TableName=TABLE, **kwargs, **({"ExclusiveStartKey": page["LastEvaluatedKey"]}
                                                         if "LastEvaluatedKey" in page else {}))  # fmt: skip
        items.update({i["pk"]["S"]: i for i in page["Items"]})
        if "LastEvaluatedKey" not in page:
            return items


def test_sigkill_with_a_gsi_and_a_stream_loses_nothing(tmp_path: Path) -> None:
    script = tmp_path / "serve.py"
    script.write_text(LAUNCHER)
    data = tmp_path / "data"
    proc, url = _start(script, data)
    acked: dict[str, str] = {}
    try:
        _create(url)
    except BaseException:
        proc.kill()
        raise
    kill_while_writing(proc, [Writer(url, n, acked) for n in range(WORKERS)], acked)

    proc, url = _start(script, data)
    try:
        client = make_client(url)
        table = _scan(client, ConsistentRead=True)
        # The GSI holds exactly the table's items, with their current GSI key.
        assert _scan(client, IndexName=INDEX) == {k: v for k, v in table.items() if "g" in v}
        for g in GROUPS:
            got = client.query(TableName=TABLE, IndexName=INDEX, KeyConditionExpression="g = :g",
                               ExpressionAttributeValues={":g": {"S": g}})["Items"]  # fmt: skip
            assert sorted(i["pk"]["S"] for i in got) == sorted(k for k, v in table.items() if v["g"]["S"] == g)
        # Stream records chain per item and end at the table's state.
        state: dict[str, dict[str, Any] | None] = {}
        written: list[str] = []
        for r in _records(url, TABLE):
            pk = r["dynamodb"]["Keys"]["pk"]["S"]
            assert r["dynamodb"].get("OldImage") == state.get(pk), (pk, r)
            state[pk] = r["dynamodb"].get("NewImage")
            if state[pk] is not None:
                written.append(state[pk]["v"]["S"])
        assert {k: v for k, v in state.items() if v is not None} == table
        # Every acknowledged put/update has exactly one record.
        assert len(written) == len(set(written))
        assert {op for op, kind in acked.items() if kind != "delete"} <= set(written)
        assert len(set(written) - set(acked)) <= WORKERS  # only writes in flight at the kill
    finally:
        proc.kill()
        proc.wait(20)
