"""The incident path's speed: ``dynemu scenario from-aws`` and ``dynemu replay`` of one hour of
evidence at 1 s resolution.

    python bench/incidents.py                     # 10 writes and 10 reads a second, a hot key in minutes 20-40
    python bench/incidents.py --writes 40 --reads 40
    python bench/incidents.py --keep /tmp/incident  # keep the evidence, scenario and report

The evidence is synthetic, written as the AWS CLI prints it: a describe-table output, a
get-metric-data output with six AWS/DynamoDB metrics at Period 1 (3,600 datapoints each) and
its queries file, and a most-accessed-keys report. Prints the wall time of from-aws (in
process) and of the replay (a ``python -m dynemu replay`` process, its private server
included), and the replay's requests.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from dynemu.replay.from_aws import main as from_aws  # noqa: E402

START = 1_772_460_000  # 2026-03-02T14:00:00Z
SECONDS = 3600
METRICS = (("ConsumedReadCapacityUnits", "Sum"), ("ConsumedWriteCapacityUnits", "Sum"),
           ("ProvisionedReadCapacityUnits", "Average"), ("ProvisionedWriteCapacityUnits", "Average"),
           ("ReadThrottleEvents", "Sum"), ("WriteThrottleEvents", "Sum"))  # fmt: skip


def iso(t: int) -> str:
    return datetime.fromtimestamp(t, UTC).isoformat()


def evidence(d: Path, writes: float, reads: float) -> None:
    table = {"Table": {"TableName": "events", "KeySchema": [{"AttributeName": "id", "KeyType": "HASH"}],
                       "AttributeDefinitions": [{"AttributeName": "id", "AttributeType": "S"}],
                       "ProvisionedThroughput": {"ReadCapacityUnits": 200, "WriteCapacityUnits": 100},
                       "BillingModeSummary": {"BillingMode": "PROVISIONED"},
                       "ItemCount": 100_000, "TableSizeBytes": 50_000_000}}  # fmt: skip
    (d / "table.json").write_text(json.dumps(table))
    queries, results = [], []
    hot = range(1200, 2400)  # minutes 20-40: the hot key doubles the writes
    values = {
        "ConsumedReadCapacityUnits": [reads * 0.5] * SECONDS,
        "ConsumedWriteCapacityUnits": [writes * (2 if s in hot else 1) for s in range(SECONDS)],
        "ProvisionedReadCapacityUnits": [200.0] * SECONDS,
        "ProvisionedWriteCapacityUnits": [100.0] * SECONDS,
        "ReadThrottleEvents": [0.0] * SECONDS,
        "WriteThrottleEvents": [0.0] * SECONDS,
    }
    for i, (name, stat) in enumerate(METRICS):
        queries.append({"Id": f"m{i}", "MetricStat": {"Metric": {"Namespace": "AWS/DynamoDB", "MetricName": name,
                        "Dimensions": [{"Name": "TableName", "Value": "events"}]}, "Period": 1, "Stat": stat}})  # fmt: skip
        pts = [(iso(START + s), v) for s, v in enumerate(values[name]) if v][::-1]
        results.append({"Id": f"m{i}", "Label": name, "Timestamps": [p[0] for p in pts],
                        "Values": [p[1] for p in pts], "StatusCode": "Complete"})  # fmt: skip
    (d / "queries.json").write_text(json.dumps(queries))
    (d / "metrics.json").write_text(json.dumps({"MetricDataResults": results, "Messages": []}, indent=4))
    contributors = [{"Keys": ["event#hot"], "ApproximateAggregateValue": writes * 1200,
                     "Datapoints": [{"Timestamp": iso(START + m * 60), "ApproximateValue": writes * 60}
                                    for m in range(20, 40)]}]  # fmt: skip
    (d / "accessed.json").write_text(json.dumps({"KeyLabels": ["id"], "AggregationStatistic": "Sum",
                                                 "Contributors": contributors, "MetricDatapoints": []}))  # fmt: skip


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--writes", type=float, default=10.0, help="writes a second (default 10)")
    p.add_argument("--reads", type=float, default=10.0, help="reads a second (default 10)")
    p.add_argument("--keep", help="a directory to keep the files in (default: a temporary one)")
    args = p.parse_args()
    d = Path(args.keep or tempfile.mkdtemp(prefix="dynemu-incident-"))
    d.mkdir(parents=True, exist_ok=True)
    evidence(d, args.writes, args.reads)
    began = time.perf_counter()
    code = from_aws(["from-aws", "--table", str(d / "table.json"), "--metrics", str(d / "metrics.json"),
                     "--queries", str(d / "queries.json"), "--insights", str(d / "accessed.json"),
                     "--out", str(d / "scenario.json")])  # fmt: skip
    built = time.perf_counter() - began
    if code:
        sys.exit(code)
    began = time.perf_counter()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    run = subprocess.run([sys.executable, "-m", "dynemu", "replay", str(d / "scenario.json"), "--report",
                          str(d / "report")], capture_output=True, text=True, env=env)  # fmt: skip
    replayed = time.perf_counter() - began
    if run.returncode:
        print(run.stderr, file=sys.stderr)
        sys.exit(run.returncode)
    requests = next((line for line in run.stdout.splitlines() if "requests in" in line), "").strip()
    print(f"from-aws, one hour at 1 s ({len(METRICS)} metrics x {SECONDS} datapoints): {built:.2f} s")
    print(f"replay of it (preload, settle and the hour, private server included): {replayed:.1f} s ({requests})")
    print(f"files: {d}")


if __name__ == "__main__":
    main()
