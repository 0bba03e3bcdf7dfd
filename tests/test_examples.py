"""The examples in examples/ run and show what the README says they show."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_hot_partition_example() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "hot_partition.py"), "--seconds", "5"],
        capture_output=True, text=True, timeout=300, check=True,
    ).stdout
    uniform, gac = out.split("== hot-partition-gac")
    assert "hot     ProvisionedThroughputExceededException  TableWriteKeyRangeThroughputExceeded" in uniform
    assert "cool-" not in uniform.split("partitions:")[0]  # only the hot key is throttled
    assert "none" in gac.split("partitions:")[0]  # gac serves the hot key from the table's capacity


def test_hot_partition_example_runs_again_on_the_same_endpoint() -> None:
    from dynemu.testing import DynemuServer

    script = [sys.executable, str(ROOT / "examples" / "hot_partition.py"), "--seconds", "2"]
    with DynemuServer(clock="virtual", capacity_model="uniform") as url:
        for _ in range(2):  # the second run finds the table of the first
            out = subprocess.run(
                [*script, "--endpoint", url], capture_output=True, text=True, timeout=300, check=True
            ).stdout
            assert "TableWriteKeyRangeThroughputExceeded" in out
            assert " #  hash range" in out


def test_hot_partition_example_refuses_a_bad_endpoint_before_touching_it() -> None:
    """A real-clock server, a dead port, a URL without its scheme, negative seconds: one line,
    exit 2, and the real-clock server's tables untouched (issue 43)."""
    import socket

    from dynemu.testing import DynemuServer

    script = [sys.executable, str(ROOT / "examples" / "hot_partition.py")]

    def refused(*args: str) -> str:
        done = subprocess.run([*script, *args], capture_output=True, text=True, timeout=120)
        assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr, done.stderr
        assert done.stderr.count("\n") == 1
        return done.stderr

    with DynemuServer() as url:  # a real clock
        import boto3

        ddb = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1",
                           aws_access_key_id="example", aws_secret_access_key="example")
        assert "its clock is real; start it with --clock virtual" in refused("--endpoint", url)
        assert ddb.list_tables()["TableNames"] == []  # nothing was created or deleted
        host = url.removeprefix("http://")
        assert f"--endpoint {host}: give a URL with its scheme" in refused("--endpoint", host)
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}"
    assert f"--endpoint {dead}: cannot reach it" in refused("--endpoint", dead)
    assert "--seconds must be 1 or more, got -5" in refused("--seconds", "-5")
