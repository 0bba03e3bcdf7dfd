"""Import and export speed and memory (issue 41): ``dynemu import`` of N items of about 1 KB
from a ``.jsonl.gz`` file into a fresh LevelDB data directory, then ``dynemu export`` of the
table, each as its own process. Prints items/s and the peak anonymous memory (RssAnon in
/proc/<pid>/status, sampled every 50 ms): flat memory means the files are streamed.

    python bench/import_export.py --items 1000000     # the issue's size (target: >= 50,000 items/s on import)
    python bench/import_export.py --items 100000      # a quicker run
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
from harness import status_mb  # noqa: E402

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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--items", type=int, default=1_000_000)
    p.add_argument("--item-bytes", type=int, default=1000)
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


if __name__ == "__main__":
    main()
