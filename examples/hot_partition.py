"""Reproduce a hot-partition throttling incident locally, in seconds of virtual time.

    python examples/hot_partition.py                   # an embedded server on a virtual clock
    python examples/hot_partition.py --endpoint http://127.0.0.1:8000   # a running
                                                       # `dynemu --clock virtual` server

A provisioned table of 400 WCU has 4 partitions (the table's throughput over the
partitions: 100 WCU each under the `uniform` model). Three keys write 50 WCU/s each, one
hot key 150 WCU/s: the table uses 300 of its 400 WCU, yet the hot key's partition is
throttled. The script prints the throttles it saw (error, ThrottlingReasons) and the
partition table from the admin API, then the same traffic under `gac`.
"""

from __future__ import annotations

import argparse
import collections
import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError

ITEM_KB = 10  # each write is a 10 KB item: 10 WCU
WHY_GAC = (
    "   (gac, dynemu's default, has no per-partition share: a partition is limited by its ceiling,\n"
    "    1,000 WCU/s, and by the table's bucket, which holds 300 s of unused throughput. The hot key's\n"
    "    150 WCU/s fit both, so nothing is throttled here; start dynemu with --capacity-model uniform\n"
    "    (or run this script without --endpoint) to see the hot partition throttled.)"
)


def admin(endpoint: str, path: str, body: dict[str, Any] | None = None) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(
        endpoint + path, data=data, method="POST" if data else "GET", headers={"Content-Type": "application/json"}
    )
    with urllib.request.urlopen(req) as resp:
        return json.loads(resp.read())


def check_endpoint(endpoint: str) -> str | None:
    """Why ``endpoint`` cannot take this script's traffic, before anything is changed there:
    no scheme, nothing listening, or a clock that is not virtual (the admin API's answer)."""
    if urlsplit(endpoint).scheme not in ("http", "https") or not urlsplit(endpoint).netloc:
        return f"--endpoint {endpoint}: give a URL with its scheme, as in http://127.0.0.1:8000"
    try:
        clock = admin(endpoint, "/_dynemu/clock")
    except urllib.error.HTTPError as e:
        return f"--endpoint {endpoint}: the admin API answered HTTP {e.code}: is this a dynemu server?"
    except (urllib.error.URLError, OSError) as e:
        return f"--endpoint {endpoint}: cannot reach it ({getattr(e, 'reason', e)})"
    if clock.get("mode") != "virtual":
        return f"--endpoint {endpoint}: its clock is {clock.get('mode')}; start it with --clock virtual"
    return None


def run(endpoint: str, table: str, seconds: int) -> None:
    ddb = boto3.client(
        "dynamodb", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="example",
        aws_secret_access_key="example", config=Config(retries={"total_max_attempts": 1}),
    )
    try:  # an endpoint that already has the table from an earlier run: start it afresh
        ddb.delete_table(TableName=table)
    except ddb.exceptions.ResourceNotFoundException:
        pass
    ddb.create_table(
        TableName=table,
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        # ceil(1/3000 + 3999/1000) = 4 partitions; the table's 400 WCU are split among them.
        ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 3999},
    )
    ddb.update_table(TableName=table, ProvisionedThroughput={"ReadCapacityUnits": 1, "WriteCapacityUnits": 400})
    payload = "x" * (ITEM_KB * 1024 - 64)
    traffic = {"cool-a": 5, "cool-b": 5, "cool-c": 5, "hot": 15}  # writes per second: 50, 50, 50, 150 WCU/s
    throttles: collections.Counter[tuple[str, str, str]] = collections.Counter()
    written = 0
    for _second in range(seconds):
        for key, per_second in traffic.items():
            for _ in range(per_second):
                try:
                    ddb.put_item(TableName=table, Item={"pk": {"S": key}, "v": {"S": payload}})
                    written += 1
                except ClientError as err:
                    reasons = err.response.get("ThrottlingReasons") or err.response.get("throttlingReasons") or []
                    reason = reasons[0]["reason"] if reasons else "-"
                    throttles[(key, err.response["Error"]["Code"], reason)] += 1
        admin(endpoint, "/_dynemu/clock", {"advance": 1})
    report(admin(endpoint, f"/_dynemu/tables/{table}/partitions"), table, seconds, written, throttles)


def report(
    view: dict[str, Any], table: str, seconds: int, written: int, throttles: collections.Counter[tuple[str, str, str]]
) -> None:
    """The throttles seen, then one line per partition and the hottest keys."""
    model = view["summary"]["model"]
    print(f"\n== {table}: model {model}, {seconds} s of traffic, {written} writes admitted")
    if model == "gac":
        print(WHY_GAC)
    print("throttled requests (key, error, ThrottlingReasons.reason):")
    for (key, code, reason), n in sorted(throttles.items()):
        print(f"  {n:5d}  {key:7s} {code}  {reason}")
    if not throttles:
        print("  none")
    print("partitions:")
    limit = "WCU limit" if model == "gac" else "WCU alloc"  # gac: ceiling and table rate, not a share
    print(f"  {'#':>2}  {'hash range':<19} {'items':>5} {'KB':>6} {limit:>9} {'WCU/s':>7} {'throttled':>9}")
    for p in view["partitions"]:
        start, end = p["start"][:8] or "00000000", (p["end"] or "ffffffff")[:8]
        print(f"  {p['index']:>2}  {start}..{end:<9} {p['item_count']:>5} {p['size_bytes'] / 1024:>6.0f} "
              f"{p['max_write'] if model == 'gac' else p['allocated_write']:>9.1f} "
              f"{p['consumed_write_per_second']:>7.1f} {sum(p['throttles'].values()):>9}")
    hot = view["hot_keys"]
    print("hottest keys (units consumed, last 5 minutes):",
          ", ".join(f"{k['key']['S']} {k['units']:.0f}" for k in hot["by_consumed_units"][:4]) or "none")
    print("most throttled keys:", ", ".join(f"{k['key']['S']} ({k['throttles']})" for k in hot["by_throttles"]) or "none")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--endpoint", help="a running dynemu started with --clock virtual")
    parser.add_argument("--seconds", type=int, default=30, help="virtual seconds of traffic (1 or more)")
    args = parser.parse_args()
    if args.seconds < 1:
        parser.exit(2, f"{parser.prog}: --seconds must be 1 or more, got {args.seconds}\n")
    if args.endpoint:
        problem = check_endpoint(args.endpoint.rstrip("/"))
        if problem:
            parser.exit(2, f"{parser.prog}: {problem}\n")
        print(f"replaying against {args.endpoint}: its --capacity-model decides what throttles "
              "(under gac, the default, this traffic is not throttled)")
        run(args.endpoint.rstrip("/"), "hot-partition-demo", args.seconds)
        return
    from dynemu.testing import DynemuServer

    for model in ("uniform", "gac"):
        with DynemuServer(clock="virtual", capacity_model=model) as url:
            run(url, f"hot-partition-{model}", args.seconds)


if __name__ == "__main__":
    main()
