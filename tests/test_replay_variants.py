"""What-if (``dynemu replay SCENARIO --variant NAME=CHANGE ... --report DIR``): the same traffic
under each variant on its own private server, one report with a column per variant, the same
bytes on every run; and the hand-written incident of examples/incidents/hot-key reproduced."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from dynemu.engine.capacity.policies import MODELS
from dynemu.replay import scenario, variants
from dynemu.replay.cli import main as replay_main
from dynemu.replay.from_aws import main as from_aws

INCIDENT = Path(__file__).resolve().parent.parent / "examples" / "incidents" / "hot-key"

# A hot key over its partition's 1,000 WCU while the table is far under its 4,000: 150 writes of
# 10 KB a second, 80 % of them on "hot" (1,200 WCU/s).
HOT: dict[str, Any] = {
    "name": "hot key under the table's throughput",
    "seed": 3,
    "tables": [{"name": "small", "hash": ["pk", "S"], "read": 100, "write": 4000,
                "gsis": [{"name": "by-g", "hash": ["g", "S"], "read": 10, "write": 4000}]}],
    "phases": [{"name": "hot", "duration": 60, "operations": [
        {"table": "small", "op": "write", "rate": 150, "item_size": 10000,
         "keys": {"distribution": "weighted", "keys": 1000, "weights": {"hot": 0.8}},
         "attributes": {"g": {"distribution": "uniform", "keys": 500}}}]}],
}  # fmt: skip


def test_variants_side_by_side_and_the_same_bytes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "hot.json"
    path.write_text(json.dumps(HOT))
    args = ["--variant", "od=on-demand", "--variant", "sharded=shards=10", "--variant", "big=write=8000,gsi:by-g:write=5000",
            "--variant", "warm=warm=4000/4000,model=uniform"]  # fmt: skip
    assert replay_main([str(path), "--report", str(tmp_path / "a"), *args]) == 0
    printed = capsys.readouterr().out
    assert replay_main([str(path), "--report", str(tmp_path / "b"), *args]) == 0
    capsys.readouterr()
    for name in ("variants.json", "variants.html"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes()
    rep = json.loads((tmp_path / "a" / "variants.json").read_text())
    cols = {v["name"]: v for v in rep["variants"]}
    assert list(cols) == ["as-is", "od", "sharded", "big", "warm"]
    assert cols["big"]["change"] == "write=8000,gsi:by-g:write=5000"
    assert cols["as-is"]["throttled"] > 0 and len(cols["as-is"]["throttled_per_minute"]) == 1
    assert "small: hot" in cols["as-is"]["throttled_keys"]
    # one key over its partition's limit: neither more throughput nor on-demand helps; sharding does
    assert cols["big"]["throttled"] > 0 and cols["od"]["throttled"] > 0
    assert cols["sharded"]["throttled"] == 0
    assert cols["warm"]["model"] == "uniform"
    # provisioned: throughput x hours x price; on-demand: the units consumed x price
    hours = 60 / 3600
    provisioned = (4000 + 4000) * hours * 0.00065 + (100 + 10) * hours * 0.00013
    assert cols["as-is"]["cost_usd"] == pytest.approx(provisioned, abs=1e-6)
    od = cols["od"]
    assert od["cost_usd"] == pytest.approx(od["consumed_write"] / 1e6 * 0.625 + od["consumed_read"] / 1e6 * 0.125,
                                           abs=1e-6)  # fmt: skip
    assert rep["assumptions"][0] == variants.PRICE_NOTE
    assert "what-if: hot key under the table's throughput" in printed


def test_sharding_spreads_the_hot_key() -> None:
    sc = scenario.parse(json.loads(json.dumps(HOT)))
    sharded = variants.apply(sc, variants.parse("s=shards=4")[1])
    from dynemu.replay import traffic

    keys = {r.key["pk"]["S"] for i in range(20) for r in traffic.PhaseTraffic(sharded, 0, sharded.phases[0]).second(i, 0)}
    assert {k for k in keys if k.startswith("hot")} == {"hot#0", "hot#1", "hot#2", "hot#3"}
    assert sc.phases[0].operations[0].key_shards == 0  # the scenario itself is unchanged
    # where some operation names keys, only those operations are sharded (not a preload's writes)
    data = json.loads(json.dumps(HOT))
    data["phases"].insert(0, {"name": "preload", "duration": 1, "operations": [
        {"table": "small", "op": "write", "rate": 5, "keys": {"distribution": "sequential", "keys": 5}}]})  # fmt: skip
    two = variants.apply(scenario.parse(data), variants.parse("s=shards=4")[1])
    assert [p.operations[0].key_shards for p in two.phases] == [0, 4]


@pytest.mark.parametrize(
    ("given", "message"),
    [
        ("nothing", "--variant nothing: expected NAME=CHANGE (e.g. od=on-demand, big=write=4000)"),
        ("as-is=on-demand", "--variant as-is=on-demand: 'as-is' names the scenario as it is; choose another name"),
        ("x=write=lots", "--variant x=write=lots: cannot read 'write=lots' (on-demand, read=N, write=N, warm=N or "
         f"warm=R/W, shards=N, gsi:INDEX:read=N, gsi:INDEX:write=N, model={'|'.join(MODELS)})"),
    ],
)  # fmt: skip
def test_a_bad_variant_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str], given: str, message: str) -> None:
    path = tmp_path / "hot.json"
    path.write_text(json.dumps(HOT))
    assert replay_main([str(path), "--variant", given]) == 2
    assert capsys.readouterr().err == f"dynemu replay: {message}\n"


def test_the_hand_written_incident(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A table whose hot key throttles while the table is under its throughput, as the AWS CLI
    would print its evidence: reproduced within 10 % a minute, the same throttled minutes."""
    metrics = json.loads((INCIDENT / "metrics.json").read_text())["MetricDataResults"]
    consumed = next(r for r in metrics if r["Label"] == "ConsumedWriteCapacityUnits")["Values"]
    assert max(consumed) < 3000 * 60  # never over the table's 3,000 WCU
    out = tmp_path / "incident.json"
    assert from_aws(["from-aws", "--table", str(INCIDENT / "table.json"), "--metrics", str(INCIDENT / "metrics.json"),
                     "--queries", str(INCIDENT / "queries.json"), "--insights", str(INCIDENT / "accessed.json"),
                     "--throttled-insights", str(INCIDENT / "throttled.json"), "--out", str(out)]) == 0  # fmt: skip
    capsys.readouterr()
    assert replay_main([str(out), "--report", str(tmp_path / "r"), "--check"]) == 0, capsys.readouterr().out
    s = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert s["throttle_minutes"] == {"evidence": [2, 3, 4], "reproduction": [2, 3, 4]}
    assert s["max_consumed_error"] <= 0.10
    assert all("session#7f3a" in s["throttled_keys"]["reproduction"][m] for m in ("2", "3", "4"))
    assert s["throttled_keys"]["evidence"] == {"2": ["session#0042", "session#7f3a"], "3": ["session#7f3a"],
                                               "4": ["session#7f3a"]}  # fmt: skip
    # the reason: the key's partition, not the table (which has throughput to spare), on both sides
    reasons = s["throttle_reasons"]
    assert reasons["evidence"] == {"WriteKeyRangeThroughputThrottleEvents": 9000.0,
                                   "WriteProvisionedThroughputThrottleEvents": 0.0}  # fmt: skip
    assert reasons["reproduction"]["WriteKeyRangeThroughputThrottleEvents"] > 0
    assert reasons["reproduction"]["WriteProvisionedThroughputThrottleEvents"] == 0
