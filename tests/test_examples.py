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
