"""The soak's short form (issue 38, bench/soak.py): a LevelDB server with more regions than
open namespaces under mixed traffic, TTL sweeps, streams read and a global table, for a few
seconds. Nothing may fail: no error answer, no dropped connection, no replicated item
missing, no ERROR or traceback in the server's stderr. The 30-minute run is the benchmark's
(bench/README.md); memory and stall figures are read there, not asserted here."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("plyvel")

ROOT = Path(__file__).resolve().parent.parent


def test_the_short_soak_runs_clean(tmp_path: Path) -> None:
    out = tmp_path / "soak.json"
    argv = [sys.executable, str(ROOT / "bench" / "soak.py"), "--minutes", "0.15", "--regions", "10", "--max-open", "4",
            "--interval", "3", "--rotate", "3", "--burst-mb", "0.5", "--ttl-interval", "1", "--connections", "2",
            "--data-dir", str(tmp_path / "data"), "--server-log", str(tmp_path / "server.log"), "--json", str(out)]  # fmt: skip
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=str(ROOT)))  # fmt: skip
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    r = json.loads(out.read_text())
    assert r["errors"] == 0 and r["first_errors"] == []
    assert r["regions"] == 10 and r["requests"] > 0
    assert r["stream_records"] > 0  # streams read
    assert r["ttl_deletes_seen"] > 0  # TTL sweeps deleted expired items (their records name the service)
    assert r["replicated"] > 0  # the global table's items reached the other region
    assert r["bursts"] >= 1
    # every region's store was created, though at most 4 namespaces are open at once
    stores = [d for d in os.listdir(tmp_path / "data") if (tmp_path / "data" / d).is_dir()]
    assert sorted(stores) == sorted(["us-east-1", "eu-west-1", *(f"soak-{i:03d}" for i in range(8))])
