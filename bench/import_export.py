"""Import and export speed and memory (issue 41): ``dynemu import`` of N items of about 1 KB
from a ``.jsonl.gz`` file into a fresh LevelDB data directory, then ``dynemu export`` of the
table, each as its own process; with ``--api``, also ImportTable of the same file by a server
on a fresh LevelDB data directory (``--s3-dir``), timed from the request to COMPLETED. Prints
items/s (wall, and per CPU second of the process, its LevelDB threads included) and the peak
anonymous memory (RssAnon in /proc/<pid>/status, sampled every 50 ms): flat memory means the
files are streamed.

    python bench/import_export.py --items 1000000     # the issue's size (target: >= 50,000 items/s on import)
    python bench/import_export.py --items 100000 --api  # a quicker run, and the API's import
"""

from __future__ import annotations

import argparse
import gzip
import os
import random
import resource
import string
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from harness import Server, call, cpu_seconds, dynemu_argv, free_port, status_mb  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def make_file(path: str, items: int, item_bytes: int) -> None:
    rnd = random.Random(7)
    body = "".join(rnd.choices(string.ascii_letters, k=item_bytes))
    with gzip.open(path, "wb", compresslevel=1) as f:
        chunk = []
        for i in range(items):
            chunk.append(b'{"Item":{"pk":{"S":"user#%08d"},"n":{"N":"%d"},"body":{"S":"%s"}}}\n'
                         % (i, i, body[i % 50 :].encode() + body[: i % 50].encode()))
            if len(chunk) == 2000:
                f.write(b"".join(chunk))
                chunk = []
        f.write(b"".join(chunk))


def run(argv: list[str]) -> tuple[float, float, float, str]:
    """(seconds, CPU seconds, peak RssAnon MB, stdout) of ``python -m dynemu ARGV``. CPU
    seconds (user + system of the child) are the figure a shared machine does not distort."""
    env = {**os.environ, "PYTHONPATH": ROOT}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "dynemu", *argv], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            env=env, text=True)
    peak = [0.0]

    def sample() -> None:
        while proc.poll() is None:
            try:
                peak[0] = max(peak[0], status_mb(proc.pid, "RssAnon"))
            except OSError:
                return
            time.sleep(0.05)

    t = threading.Thread(target=sample, daemon=True)
    t.start()
    out, err = proc.communicate()
    seconds = time.perf_counter() - start
    t.join()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    if proc.returncode != 0:
        raise SystemExit(f"dynemu {argv[0]} failed: {err.strip()}")
    return seconds, cpu, peak[0], out.strip()


def api_import(tmp: str, source: str) -> tuple[float, float, float, dict]:  # type: ignore[type-arg]
    """(seconds, server CPU seconds, peak RssAnon MB, DescribeImport) of ImportTable of
    ``source`` by a server on a fresh LevelDB data directory."""
    s3 = os.path.join(tmp, "s3")
    os.makedirs(os.path.join(s3, "bench", "in"))
    os.link(source, os.path.join(s3, "bench", "in", "items.json.gz"))
    port = free_port()
    server = Server("api-import", dynemu_argv(port, os.path.join(tmp, "api-data"),
                                             f"--s3-dir {s3} --import-export-seconds 0"), port, None, tmp)
    try:
        server.wait_ready()
        cpu0, peak = cpu_seconds(server.pid), 0.0
        start = time.perf_counter()
        status, answer = call(port, "ImportTable", {
            "S3BucketSource": {"S3Bucket": "bench", "S3KeyPrefix": "in/"}, "InputFormat": "DYNAMODB_JSON",
            "InputCompressionType": "GZIP", "TableCreationParameters": {
                "TableName": "bench", "BillingMode": "PAY_PER_REQUEST",
                "KeySchema": [{"AttributeName": "pk", "KeyType": "HASH"}],
                "AttributeDefinitions": [{"AttributeName": "pk", "AttributeType": "S"}]}})  # fmt: skip
        if status != 200:
            raise SystemExit(f"ImportTable: {answer}")
        arn = answer["ImportTableDescription"]["ImportArn"]
        while True:
            peak = max(peak, status_mb(server.pid, "RssAnon"))
            d = call(port, "DescribeImport", {"ImportArn": arn})[1]["ImportTableDescription"]
            if d["ImportStatus"] != "IN_PROGRESS":
                break
            time.sleep(0.05)
        return time.perf_counter() - start, cpu_seconds(server.pid) - cpu0, peak, d
    finally:
        server.stop()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--items", type=int, default=1_000_000)
    p.add_argument("--item-bytes", type=int, default=1000)
    p.add_argument("--api", action="store_true", help="also ImportTable of the same file by a server")
    args = p.parse_args()
    with tempfile.TemporaryDirectory(prefix="dynemu-io-") as tmp:
        source = os.path.join(tmp, "items.jsonl.gz")
        make_file(source, args.items, args.item_bytes)
        data = os.path.join(tmp, "data")
        for what, argv in (("import", ["import", source, "--table", "bench", "--key", "pk:S", "--data-dir", data]),
                           ("export", ["export", "--table", "bench", "--to", os.path.join(tmp, "out"),
                                       "--data-dir", data])):
            seconds, cpu, peak, out = run(argv)
            print(out)
            print(f"{what}: {args.items:,} items in {seconds:.1f}s wall, {cpu:.1f}s CPU (process start included): "
                  f"{args.items / seconds:,.0f} items/s wall, {args.items / cpu:,.0f} items per CPU second, "
                  f"peak RssAnon {peak:.0f} MB")
        if args.api:
            seconds, cpu, peak, d = api_import(tmp, source)
            print(f"api import: {d['ImportStatus']}, {d['ImportedItemCount']:,} items in {seconds:.1f}s wall, "
                  f"{cpu:.1f}s server CPU: {args.items / seconds:,.0f} items/s wall, "
                  f"{args.items / cpu:,.0f} items per CPU second, peak RssAnon {peak:.0f} MB")


if __name__ == "__main__":
    main()
