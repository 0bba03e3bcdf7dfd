"""`dynemu replay`: scenarios, deterministic traffic, and the example scenarios showing the
throttles they describe (where and why, not exact counts: the model is being calibrated)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from dynemu.api.admin.dashboard_html import fmt_units
from dynemu.replay import report, scenario, traffic
from dynemu.replay.cli import main as replay_main
from dynemu.replay.cli import replay
from dynemu.replay.runner import Outcome, ReplayError, Resource
from dynemu.testing import DynemuServer

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "scenarios"


def html_units(v: float) -> str:
    return fmt_units(round(v, 1))


def _resource(out: Outcome, table: str, index: str | None = None) -> Resource:
    return next(r for r in out.resources if r.table == table and r.index == index)


def throttles_between(out: Outcome, r: Resource, a: int, b: int) -> Counter[str]:
    """Throttled requests by reason in seconds [a, b) from the start of the scenario."""
    t0 = int(out.start)
    c: Counter[str] = Counter()
    for t in range(t0 + a, t0 + b):
        c.update(r.history.get(t, {}).get("throttles", {}))
    return c


def consumed_between(out: Outcome, r: Resource, a: int, b: int, kind: str = "write") -> float:
    t0 = int(out.start)
    return sum(r.history.get(t, {}).get(kind, 0.0) for t in range(t0 + a, t0 + b)) / (b - a)


def throttled_partitions(r: Resource) -> list[int]:
    return [p["index"] for p in r.final["partitions"] if p["throttles"]]


SMALL: dict[str, Any] = {
    "name": "small",
    "model": "uniform",
    "seed": 9,
    "tables": [{"name": "small", "hash": ["pk", "S"], "range": ["sk", "N"], "read": 20, "write": 20}],
    "phases": [
        {
            "name": "mixed",
            "duration": 20,
            "operations": [
                {"table": "small", "op": "write", "ramp": [5, 40], "item_size": [200, 1500],
                 "keys": {"distribution": "zipf", "keys": 30}},
                {"table": "small", "op": "read", "rate": 12.5, "keys": {"distribution": "hot", "keys": 30}},
            ],
        }
    ],
}


def test_replay_is_deterministic(tmp_path: Path) -> None:
    path = tmp_path / "small.json"
    path.write_bytes(__import__("orjson").dumps(SMALL))
    first, second = replay(str(path)), replay(str(path))
    assert report.render(first) == report.render(second)
    assert report.summary_text(first) == report.summary_text(second)
    assert first.sent == second.sent and first.throttled == second.throttled
    assert first.sent[("small", "read")] == 250  # 12.5/s for 20 s: fractional rates add up
    assert sum(first.throttled.values()) > 0  # the ramp goes past 20 WCU


def test_batches_never_repeat_a_key_and_keep_every_request() -> None:
    sc = scenario.parse(SMALL)
    phase = traffic.PhaseTraffic(sc, 0, sc.phases[0])
    requests = phase.second(19, 0.0)
    groups = traffic.batches(requests)
    assert sum(len(g) for _, g in groups) == len(requests)
    for kind, g in groups:
        assert len({r.ident for r in g}) == len(g)
        assert len(g) <= (traffic.WRITE_BATCH if kind == "write" else traffic.READ_BATCH)


def test_key_distributions() -> None:
    import random

    def draw(spec: dict[str, Any], n: int = 2000) -> list[str]:
        gen = traffic.KeyGen(scenario._keyspec(spec, "k"), random.Random(1))
        return [gen.next(120.0) for _ in range(n)]

    assert draw({"distribution": "sequential", "keys": 3}, 4) == ["k000000000", "k000000001", "k000000002", "k000000000"]
    inc = draw({"distribution": "increasing"}, 5)
    assert inc == sorted(inc) and len(set(inc)) == 5
    hot = Counter(draw({"distribution": "hot", "keys": 1000, "hot_share": 0.5}))
    assert 800 < hot["khot0"] < 1200
    zipf = Counter(draw({"distribution": "zipf", "keys": 100, "s": 1.2}))
    assert zipf.most_common(1)[0][0] == "k000000000"
    assert set(draw({"distribution": "time", "bucket": 60}, 3)) == {"k000000000002"}


@pytest.mark.parametrize(
    "bad, message",
    [
        ({"tables": []}, "missing 'phases'"),
        ({"tables": [{"name": "t", "hash": ["pk", "X"]}], "phases": []}, "hash"),
        (
            {"tables": [{"name": "t", "hash": ["pk", "S"]}],
             "phases": [{"duration": 1, "operations": [{"table": "u", "rate": 1}]}]},
            "unknown table",
        ),
        (
            {"tables": [{"name": "t", "hash": ["pk", "S"]}],
             "phases": [{"duration": 1, "operations": [{"table": "t", "rate": 1, "keys": {"distribution": "pareto"}}]}]},
            "distribution must be one of",
        ),
    ],
)
def test_bad_scenarios_are_explained(bad: dict[str, Any], message: str) -> None:
    with pytest.raises(scenario.ScenarioError, match=message):
        scenario.parse(bad)


def test_cli_writes_the_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert replay_main([str(EXAMPLES / "gsi_back_pressure.json"), "--report", str(tmp_path / "r")]) == 0
    text = capsys.readouterr().out
    assert "tickets / byStatus" in text and "IndexWriteProvisionedThroughputExceeded" in text
    html = (tmp_path / "r" / "report.html").read_text()
    assert html.count("<svg") >= 12 and "What to look for" in html and "<script" not in html
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert replay_main([str(bad)]) == 2
    assert "not valid JSON" in capsys.readouterr().err


def test_every_example_is_a_valid_scenario() -> None:
    names = sorted(p.stem for p in EXAMPLES.glob("*.json"))
    assert names == [
        "adaptive_capacity",
        "burst_spike",
        "dilution_after_decrease",
        "gsi_back_pressure",
        "hot_key_uniform_split",
        "time_ordered_keys",
        "two_region_writes",
    ]
    for p in EXAMPLES.glob("*.json"):
        assert scenario.load(p).look_for


# --- each example shows what it claims -----------------------------------------------------------


def test_hot_key_throttled_under_table_throughput() -> None:
    out = replay(str(EXAMPLES / "hot_key_uniform_split.json"))
    r = _resource(out, "orders")
    assert set(out.reasons()) == {"TableWriteKeyRangeThroughputExceeded"}
    assert len(throttled_partitions(r)) == 1  # one partition, the hot key's
    assert r.final["hot_keys"]["by_throttles"][0]["key"] == {"S": "khot0"}
    assert consumed_between(out, r, 0, 120) < 400  # the table stays under its 400 WCU
    # what the scenario's text says: about 300 WCU/s sent, about 210 consumed
    assert 195 <= consumed_between(out, r, 0, 120) <= 225
    assert "consumes only about 210" in out.scenario.look_for


def test_burst_absorbs_a_spike_then_runs_out() -> None:
    out = replay(str(EXAMPLES / "burst_spike.json"))
    r = _resource(out, "events")
    assert not throttles_between(out, r, 0, 230)  # first spike, quiet phase, second spike's start
    assert consumed_between(out, r, 0, 90) > 20  # twice the provisioned 10 WCU, from burst
    late = throttles_between(out, r, 350, 390)
    assert set(late) == {"TableWriteProvisionedThroughputExceeded"}
    assert consumed_between(out, r, 350, 390) <= 11  # back to the provisioned rate
    t0 = int(out.start)
    assert r.history[t0 + 89]["burst_write"] < r.history[t0 + 209]["burst_write"]  # saved while quiet


def test_adaptive_capacity_ends_sustained_throttling() -> None:
    out = replay(str(EXAMPLES / "adaptive_capacity.json"))
    r = _resource(out, "sessions")
    assert not throttles_between(out, r, 0, 30)  # the hot partition's burst savings first
    assert set(throttles_between(out, r, 90, 300)) == {"TableWriteKeyRangeThroughputExceeded"}
    assert not throttles_between(out, r, 420, 450)
    assert len(throttled_partitions(r)) == 1
    hot = r.final["partitions"][throttled_partitions(r)[0]]
    assert hot["allocated_write"] > 100  # the boost, above its 800 / 8 share
    assert consumed_between(out, r, 420, 450) > 600  # the hot key's whole rate is admitted
    # the model's moments are marked on the timeline, where they happened
    events = {e["text"]: e["t"] - int(out.start) for e in r.events}
    raised = next(t for text, t in events.items() if text.startswith("adaptive raised #"))
    assert 300 <= raised <= 420 and f"adaptive raised #{throttled_partitions(r)[0]} to 7" in str(events)
    assert 30 <= events[f"burst exhausted on #{throttled_partitions(r)[0]} (write)"] <= 90
    html = report.render(out)
    assert '">adaptive raised #' in html and 'class="mlab">burst exhausted on #' in html  # labelled markers


def test_dilution_after_a_decrease() -> None:
    out = replay(str(EXAMPLES / "dilution_after_decrease.json"))
    r = _resource(out, "catalog")
    assert r.final["summary"]["partitions"] == 4
    assert not throttles_between(out, r, 0, 60)
    assert set(throttles_between(out, r, 60, 150)) == {"TableWriteKeyRangeThroughputExceeded"}
    assert consumed_between(out, r, 60, 150) < 400


def test_gsi_back_pressure() -> None:
    out = replay(str(EXAMPLES / "gsi_back_pressure.json"))
    table, index = _resource(out, "tickets"), _resource(out, "tickets", "byStatus")
    assert not table.final["summary"]["throttles"]
    assert set(index.final["summary"]["throttles"]) == {"IndexWriteProvisionedThroughputExceeded"}
    assert out.throttled[("tickets", "write")] > 0 and out.throttled[("tickets", "read")] == 0


def test_time_ordered_keys_against_sharded_keys() -> None:
    out = replay(str(EXAMPLES / "time_ordered_keys.json"))
    by_minute, by_shard = _resource(out, "by_minute"), _resource(out, "by_shard")
    assert set(by_minute.final["summary"]["throttles"]) == {"TableWriteKeyRangeThroughputExceeded"}
    minute_throttled = out.throttled[("by_minute", "write")]
    assert minute_throttled > 0 and out.throttled[("by_shard", "write")] * 10 < minute_throttled
    assert sum(by_shard.final["summary"]["throttles"].values()) * 10 < minute_throttled
    # each minute's load sits on one partition: per second, one partition at most throttles
    for rec in by_minute.history.values():
        assert sum(1 for v in rec["parts"].values() if v[2]) <= 1


def test_replay_against_an_endpoint_and_splits_in_the_report(tmp_path: Path) -> None:
    grow = {
        "name": "grow",
        "model": "gac",
        "tables": [{"name": "grow", "hash": ["pk", "S"], "read": 10, "write": 500}],
        "phases": [
            {"name": "before", "duration": 5,
             "operations": [{"table": "grow", "op": "write", "rate": 5, "keys": {"distribution": "uniform"}}]},
            {"name": "raised", "duration": 5, "update": [{"table": "grow", "read": 10, "write": 3500}],
             "operations": [{"table": "grow", "op": "write", "rate": 5, "keys": {"distribution": "uniform"}}]},
        ],
    }
    path = tmp_path / "grow.json"
    path.write_bytes(__import__("orjson").dumps(grow))
    with DynemuServer(clock="virtual", capacity_model="gac") as url:
        out = replay(str(path), endpoint=url)
    r = _resource(out, "grow")
    assert [(s["from"], s["to"]) for s in r.splits] == [(1, 4)]  # ceil(3500 / 1000): doubled twice
    assert r.splits[0]["t"] - int(out.start) in (5, 6)
    html = report.render(out)
    assert "split: 1 → 4 partitions" in html and "phase: raised" in html
    assert out.admitted[("grow", "write")] == 50
    grow["model"] = "uniform"  # the endpoint's own model applies, and is the one reported
    path.write_bytes(__import__("orjson").dumps(grow))
    with DynemuServer(clock="virtual", capacity_model="gac") as url:
        out = replay(str(path), endpoint=url)
    assert out.model == "gac" and "model gac" in report.summary_text(out) and "model gac" in report.render(out)
    with DynemuServer(clock="real") as url, pytest.raises(ReplayError, match="--clock virtual"):
        replay(str(path), endpoint=url)


def test_dynemu_replay_subcommand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from dynemu.cli import main as dynemu_main

    with pytest.raises(SystemExit) as done:
        dynemu_main(["replay", str(EXAMPLES / "hot_key_uniform_split.json"), "--report", str(tmp_path)])
    assert done.value.code == 0
    text = capsys.readouterr().out
    assert "TableWriteKeyRangeThroughputExceeded" in text
    assert (tmp_path / "report.html").is_file()
    # the printed summary and the report give the same per-partition rate (the run's average)
    html = (tmp_path / "report.html").read_text()
    throttled = next(line for line in text.splitlines() if "TableWriteKeyRangeThroughputExceeded" in line and "/" in line)
    printed = throttled.split()[-3].split("/")[1]  # "used R/W per s", e.g. 0.0/100.0
    assert "consumed RCU/WCU per s (average over the run)" in html
    assert f"<td>0 / {html_units(float(printed))}</td>" in html


# --- mistakes are one line, never a traceback or a silent empty run ------------------------------


@pytest.mark.parametrize(
    "bad, message",
    [
        (  # a misspelled phase field used to replay 0 requests with exit 0
            {"tables": [{"name": "t", "hash": ["pk", "S"]}],
             "phases": [{"duration": 1, "operatons": [{"table": "t", "rate": 1}]}]},
            r"phases\[0\]: unknown fields \['operatons'\]",
        ),
        ({"nmae": "x", "tables": [], "phases": []}, r"scenario: unknown fields \['nmae'\]"),
        (
            {"tables": [{"name": "t", "hash": ["pk", "S"], "wirte": 5}], "phases": []},
            r"tables\[0\]: unknown fields \['wirte'\]",
        ),
        (
            {"tables": [{"name": "t", "hash": ["pk", "S"], "gsis": [{"name": "g", "hash": ["a", "S"], "rcu": 1}]}],
             "phases": []},
            r"tables\[0\].gsis\[0\]: unknown fields \['rcu'\]",
        ),
        (
            {"tables": [{"name": "t", "hash": ["pk", "S"]}],
             "phases": [{"duration": 1, "operations": [{"table": "t", "rate": 1, "item_sise": 5}]}]},
            r"operations\[0\]: unknown fields \['item_sise'\]",
        ),
        (
            {"tables": [{"name": "t", "hash": ["pk", "S"]}],
             "phases": [{"duration": 1, "update": [{"table": "t", "wrte": 5}], "operations": []}]},
            r"update\[0\]: unknown fields \['wrte'\]",
        ),
        ({"tables": [], "phases": [{"duration": 5}]}, "scenario: no tables"),
        ({"tables": [{"name": "t", "hash": ["pk", "S"]}], "phases": [{"duration": 5}]}, "it sends nothing"),
        ({"tables": [{"name": "t", "hash": ["pk", "S"]}], "phases": []}, "it sends nothing"),
        (
            {"model": "hot", "tables": [{"name": "t", "hash": ["pk", "S"]}],
             "phases": [{"duration": 1, "operations": [{"table": "t", "rate": 1}]}]},
            "model must be one of uniform, burst, adaptive, gac, got 'hot'",
        ),
    ],
)
def test_unknown_fields_and_empty_scenarios_are_refused(bad: dict[str, Any], message: str) -> None:
    with pytest.raises(scenario.ScenarioError, match=message):
        scenario.parse(bad)


def _one_line_error(capsys: pytest.CaptureFixture[str], argv: list[str], expected: str) -> None:
    assert replay_main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    assert err.startswith("dynemu replay: ") and expected in err, err


def test_cli_mistakes_are_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    example = str(EXAMPLES / "hot_key_uniform_split.json")
    with pytest.raises(SystemExit) as e:  # argparse: an unknown model is a usage error
        replay_main([example, "--model", "hot"])
    assert e.value.code == 2
    assert "invalid choice: 'hot'" in capsys.readouterr().err
    _one_line_error(capsys, [str(tmp_path / "missing.json")], "missing.json: no such scenario file")
    existing = tmp_path / "taken"
    existing.write_text("x")
    _one_line_error(capsys, [example, "--report", str(existing)], "a file of that name exists")
    _one_line_error(
        capsys, [example, "--endpoint", "http://127.0.0.1:9", "--model", "uniform"], "--model applies to the private"
    )
    _one_line_error(capsys, [example, "--endpoint", "http://127.0.0.1:9"], "cannot reach http://127.0.0.1:9")


def test_dynemu_help_mentions_replay(capsys: pytest.CaptureFixture[str]) -> None:
    from dynemu.cli import main as dynemu_main

    with pytest.raises(SystemExit):
        dynemu_main(["--help"])
    assert "dynemu replay SCENARIO" in capsys.readouterr().out.replace("\n", " ").replace("  ", " ")
