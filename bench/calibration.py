"""Calibration: an application-like workload within DynamoDB's documented allowances.

    python bench/calibration.py                 # 5 rounds on each server, ~2 min
    python bench/calibration.py --rounds 9

Two dynemu servers run side by side, one with the defaults (throttling on, `gac`) and one
with `--throttling off` (DynamoDB Local's behaviour). Each round runs the same workload on
both, alternating which goes first: on a small provisioned table (5 RCU / 5 WCU, so 300 s
x 5 units of burst) and on an on-demand table, bursts of BatchWriteItem, 100-300 KB items,
TransactWriteItems, Query, Scan and GetItem, all within what the tables document as
available (the table's throughput, the 300 s of burst savings, the partition ceilings,
on-demand warm throughput), then on a new on-demand table the large-request sequence a
suite passing on DynamoDB runs, about 50 ms apart (issue 23): 50 PutItems of 100 KB, one
TransactWriteItems deleting them, one of 30 Puts of 100 KB, a small PutItem and a
TransactGetItems, then 700 small items by BatchWriteItem in calls of 25, resending what
comes back unprocessed. boto3's retries are off, so every throttle is seen.

It prints the throttles seen on the default server (must be 0: throttled requests and
unprocessed batch items) and the server's CPU time per request on each server, read from
/proc (Linux), per round; the model's cost is the ratio of the least disturbed rounds
(must stay under 10 %; on a shared machine single rounds vary by +-10 %).
"""

from __future__ import annotations

import argparse
import itertools
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from harness import HOST, Server, cpu_seconds, dynemu_argv, free_port  # noqa: E402

THROTTLES = {"ProvisionedThroughputExceededException", "ThrottlingException", "RequestLimitExceeded"}
_names = itertools.count()


def client(port: int) -> Any:
    return boto3.client(
        "dynamodb", endpoint_url=f"http://{HOST}:{port}", region_name="us-east-1", aws_access_key_id="bench",
        aws_secret_access_key="bench", config=Config(retries={"total_max_attempts": 1}),
    )


class Workload:
    """The requests of one round, counting requests and throttles."""

    def __init__(self, ddb: Any) -> None:
        self.ddb = ddb
        self.requests = 0
        self.throttles = 0

    def call(self, op: str, **kwargs: Any) -> Any:
        self.requests += 1
        try:
            out = getattr(self.ddb, op)(**kwargs)
        except ClientError as err:
            if err.response["Error"]["Code"] in THROTTLES:
                self.throttles += 1
                return {}
            raise
        self.throttles += sum(len(v) for v in out.get("UnprocessedItems", {}).values())
        self.throttles += sum(len(v["Keys"]) for v in out.get("UnprocessedKeys", {}).values())
        return out

    def table(self, provisioned: bool) -> str:
        name = f"calibration-{next(_names)}"
        extra: dict[str, Any] = (
            {"ProvisionedThroughput": {"ReadCapacityUnits": 5, "WriteCapacityUnits": 5}}
            if provisioned else {"BillingMode": "PAY_PER_REQUEST"}
        )
        self.ddb.create_table(
            TableName=name,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}, {"AttributeName": "sk", "AttributeType": "N"}],
            **extra,
        )
        return name

    def run(self, t: str, *, users: int, batches: int, large: int, large_kb: int, txs: int, scans: int) -> None:
        """Sign-ups in batches, a few large documents, orders as transactions, then reads."""
        for b in range(batches):
            puts = [{"PutRequest": {"Item": {"pk": {"S": f"user-{b}-{i}"}, "sk": {"N": "0"},
                                             "name": {"S": f"user {i}"}, "n": {"N": str(i)}}}} for i in range(25)]
            self.call("batch_write_item", RequestItems={t: puts})
        blob = "x" * (large_kb * 1024 - 100)
        for i in range(large):
            self.call("put_item", TableName=t, Item={"pk": {"S": f"doc-{i}"}, "sk": {"N": "0"}, "body": {"S": blob}})
        for i in range(txs):
            self.call("transact_write_items", TransactItems=[
                {"Put": {"TableName": t, "Item": {"pk": {"S": f"order-{i}"}, "sk": {"N": str(j)}, "qty": {"N": "1"}}}}
                for j in range(4)
            ])
        for i in range(users):
            self.call("get_item", TableName=t, Key={"pk": {"S": f"user-0-{i % 25}"}, "sk": {"N": "0"}})
            self.call("query", TableName=t, KeyConditionExpression="pk = :p",
                      ExpressionAttributeValues={":p": {"S": f"order-{i % max(1, txs)}"}})
        for _ in range(scans):
            page: dict[str, Any] = {"TableName": t, "Limit": 200}
            while True:
                out = self.call("scan", **page)
                if "LastEvaluatedKey" not in out:
                    break
                page["ExclusiveStartKey"] = out["LastEvaluatedKey"]


    def large_requests(self, t: str, gap: float = 0.05) -> None:
        """The large-request sequence of a new on-demand table, ``gap`` seconds apart."""
        blob = "x" * (100 * 1024 - 40)
        for i in range(50):
            self.call("put_item", TableName=t, Item={"pk": {"S": f"big-{i}"}, "sk": {"N": "0"}, "v": {"S": blob}})
            time.sleep(gap)
        self.call("transact_write_items", TransactItems=[
            {"Delete": {"TableName": t, "Key": {"pk": {"S": f"big-{i}"}, "sk": {"N": "0"}}}} for i in range(50)
        ])
        time.sleep(gap)
        self.call("transact_write_items", TransactItems=[
            {"Put": {"TableName": t, "Item": {"pk": {"S": f"tx-{i}"}, "sk": {"N": "0"}, "v": {"S": blob}}}}
            for i in range(30)
        ])
        time.sleep(gap)
        self.call("put_item", TableName=t, Item={"pk": {"S": "small"}, "sk": {"N": "0"}})
        time.sleep(gap)
        self.call("transact_get_items", TransactItems=[{"Get": {"TableName": t, "Key": {"pk": {"S": "small"}, "sk": {"N": "0"}}}}])
        todo = [{"PutRequest": {"Item": {"pk": {"S": f"small-{i}"}, "sk": {"N": "0"}}}} for i in range(700)]
        pending: list[dict[str, Any]] = []
        for _ in range(200):  # a throttled call (nothing processed) is counted and resent
            if not (todo or pending):
                break
            time.sleep(gap)
            take = 25 - len(pending)
            batch, todo = pending + todo[:take], todo[take:]
            out = self.call("batch_write_item", RequestItems={t: batch})
            pending = out["UnprocessedItems"].get(t, []) if out else batch


def round_on(ddb: Any) -> Workload:
    w = Workload(ddb)
    # provisioned 5 RCU / 5 WCU: ~75 + 200 + 40 WCU and ~150 RCU, inside its 1,500 saved units
    w.run(w.table(True), users=60, batches=3, large=2, large_kb=100, txs=5, scans=2)
    # on-demand: ~2,500 + 3,000 + 400 WRU in bursts, inside 4 partitions' ceilings
    w.run(w.table(False), users=300, batches=100, large=10, large_kb=300, txs=50, scans=3)
    # a new on-demand table: ~21,700 WRU of large requests in ~3 s, then 700 small items
    w.large_requests(w.table(False))
    return w


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    logs = Path(os.environ.get("TMPDIR", "/tmp"))
    servers = {}
    for name, extra in (("default", ""), ("throttling-off", "--throttling off")):
        port = free_port()
        servers[name] = Server(f"calibration-{name}", dynemu_argv(port, None, extra), port, None, str(logs))
    try:
        for s in servers.values():
            s.wait_ready()
        per_request: dict[str, list[float]] = {name: [] for name in servers}
        throttles = {name: 0 for name in servers}
        requests = 0
        for r in range(args.rounds):
            order = list(servers) if r % 2 == 0 else list(reversed(servers))
            for name in order:
                s = servers[name]
                before = cpu_seconds(s.pid)
                w = round_on(client(s.port))
                per_request[name].append((cpu_seconds(s.pid) - before) / w.requests)
                throttles[name] += w.throttles
                requests = w.requests
        print(f"rounds: {args.rounds}, requests per round per server: {requests}")
        print(f"throttles seen (default server; throttled requests + unprocessed items): {throttles['default']}")
        for name in servers:
            rounds = " ".join(f"{x * 1e6:.0f}" for x in per_request[name])
            print(f"server CPU per request, {name:>14}: min {min(per_request[name]) * 1e6:6.1f} us, "
                  f"median {statistics.median(per_request[name]) * 1e6:6.1f} us  (rounds: {rounds})")
        # the least disturbed round of each: the machine is shared, noise only adds CPU time
        on, off = min(per_request["default"]), min(per_request["throttling-off"])
        print(f"capacity model cost (min against min): {100 * (on - off) / off:+.1f} %")
    finally:
        for s in servers.values():
            s.stop()


if __name__ == "__main__":
    main()
