"""`dynemu replay` with a global table: writes sent in two regions, and the report of what
each region held, second by second (runner._sample_replication, replay/replication_report.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from dynemu.replay import report, scenario
from dynemu.replay.cli import replay

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "scenarios" / "two_region_writes.json"


def test_each_region_sees_the_other_regions_writes_after_the_lag(tmp_path: Path) -> None:
    out = replay(str(EXAMPLE))
    samples = out.replication["carts"]
    assert out.replication_lag_ms == 2500
    assert [s["t"] for s in samples] == list(range(1, 26))  # a sample at the end of every second
    by_t = {s["t"]: s for s in samples}
    # 4 writes a second in us-east-1, sent at the start of each second: eu-west-1 holds them
    # 2.5 s later, i.e. at the end of the third second; meanwhile they wait in the backlog
    assert by_t[1]["items"] == {"us-east-1": 4, "eu-west-1": 0}
    assert by_t[1]["backlog"] == {"us-east-1 → eu-west-1": 4}
    assert by_t[2]["backlog"] == {"us-east-1 → eu-west-1": 8}
    assert by_t[3]["items"] == {"us-east-1": 12, "eu-west-1": 4}
    assert by_t[3]["applied"] == {"us-east-1 → eu-west-1": 4}
    assert by_t[10]["written"] == {"us-east-1": 40, "eu-west-1": 0}
    # both regions write the same keys from second 10: last writer wins resolves the overlaps
    assert by_t[10]["conflicts"] == 0
    assert by_t[20]["written"] == {"us-east-1": 80, "eu-west-1": 40}
    last = samples[-1]
    assert last["backlog"] == {}  # the quiet phase drains it
    assert last["items"]["us-east-1"] == last["items"]["eu-west-1"] == 59  # 40 "us" keys + 19 of 20 shared
    assert last["conflicts"] == 22
    applied = last["applied"]
    # every write reached the other region, applied or lost to a newer write there
    assert applied["us-east-1 → eu-west-1"] + applied["eu-west-1 → us-east-1"] + last["conflicts"] == 120
    assert out.written[("carts", "eu-west-1")] == 40
    text = report.summary_text(out)
    assert "global table carts (replication lag 2500 ms):" in text
    assert "  eu-west-1: 40 writes admitted, 59 items, that count from second " in text
    assert "  conflicts resolved (last writer wins): 22" in text
    html = (report.write(out, tmp_path)).read_text()
    assert "carts · what each region saw" in html
    assert '<tr class="sample"><td>1</td><td>4</td><td>4</td><td>0</td><td>0</td>' in html


BASE: dict[str, Any] = {"tables": [{"name": "t", "hash": ["pk", "S"], "replicas": ["eu-west-1"]}]}


@pytest.mark.parametrize(
    "bad, message",
    [
        (
            {**BASE, "phases": [{"duration": 1, "operations": [{"table": "t", "rate": 1, "region": "ap-south-1"}]}]},
            "table 't' has no replica in 'ap-south-1'",
        ),
        (
            {"tables": [{"name": "t", "hash": ["pk", "S"], "replicas": ["us-east-1"]}],
             "phases": [{"duration": 1, "operations": [{"table": "t", "rate": 1}]}]},
            "us-east-1 is the scenario's region",
        ),
        (
            {"tables": [{"name": "t", "hash": ["pk", "S"], "replicas": ["eu-west-1", "eu-west-1"]}],
             "phases": [{"duration": 1, "operations": [{"table": "t", "rate": 1}]}]},
            "expected distinct region names",
        ),
    ],
)  # fmt: skip
def test_bad_global_table_scenarios_are_explained(bad: dict[str, Any], message: str) -> None:
    with pytest.raises(scenario.ScenarioError, match=message):
        scenario.parse(bad)


def test_operations_default_to_the_scenarios_region() -> None:
    sc = scenario.parse({**BASE, "region": "eu-central-1", "tables": [{"name": "t", "hash": ["pk", "S"]}],
                         "phases": [{"duration": 1, "operations": [{"table": "t", "rate": 1}]}]})  # fmt: skip
    assert sc.phases[0].operations[0].region == "eu-central-1"
