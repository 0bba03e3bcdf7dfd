"""A small deterministic sample of ``bench/fuzz.py``: malformed raw requests of every kind in
issue 17 never get a 5xx, a dropped connection or a hang, in memory and on LevelDB (the one
5xx answered on purpose: a body not in its claimed Content-Encoding, as the service, issue 24)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest

from dynemu.testing import DynemuServer

_PATH = Path(__file__).resolve().parent.parent / "bench" / "fuzz.py"
_spec = importlib.util.spec_from_file_location("dynemu_bench_fuzz", _PATH)
assert _spec is not None and _spec.loader is not None
fuzz = importlib.util.module_from_spec(_spec)
sys.modules[_spec.name] = fuzz
_spec.loader.exec_module(fuzz)


@pytest.mark.parametrize(("store", "seed", "count"), [("memory", 17, 1200), ("leveldb", 18, 500)])
def test_fuzz_sample_never_5xx_drops_or_hangs(tmp_path: Any, store: str, seed: int, count: int) -> None:
    options: dict[str, Any] = {"data_dir": str(tmp_path)} if store == "leveldb" else {}
    with DynemuServer(throttling=False, **options) as url:
        report = fuzz.run(url, seed, count, timeout=60)
    assert sum(report.by_status.values()) == count
    assert report.bad() == 0, report.failures
    assert {kind for kind, _ in report.by_kind} >= {"numbers", "nulls", "regions", "encodings", "bodies"}
    if store == "leveldb":  # no store was ever opened outside the data directory
        assert all(p.parent == tmp_path for p in tmp_path.iterdir())


def test_the_fuzz_sample_is_deterministic() -> None:
    a = [(c.kind, c.target, c.body, c.headers) for c in fuzz.cases(5, 300)]
    b = [(c.kind, c.target, c.body, c.headers) for c in fuzz.cases(5, 300)]
    assert a == b
