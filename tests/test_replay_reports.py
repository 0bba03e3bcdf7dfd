"""Replay reports are the same bytes on every run, and the replay's one-line refusals
(issue 43): an existing report, an endpoint without a scheme, provisioned throughput below 1,
an item over DynamoDB's size limit."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import orjson
import pytest

from dynemu.config import SettingsError, make_settings
from dynemu.replay import scenario
from dynemu.replay.cli import main as replay_main

EXAMPLES = Path(__file__).resolve().parent.parent / "examples" / "scenarios"
ALL = sorted(p.name for p in EXAMPLES.glob("*.json"))


@pytest.mark.parametrize("name", ALL)
def test_every_example_report_is_the_same_bytes_twice(name: str, tmp_path: Path) -> None:
    for run in ("a", "b"):
        assert replay_main([str(EXAMPLES / name), "--report", str(tmp_path / run)]) == 0
    first = (tmp_path / "a" / "report.html").read_bytes()
    assert first == (tmp_path / "b" / "report.html").read_bytes()
    assert len(ALL) == 7


def test_an_existing_report_is_kept_without_force(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    small = EXAMPLES / "burst_spike.json"
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "report.html").write_text("mine")
    assert replay_main([str(small), "--report", str(tmp_path / "r")]) == 2
    err = capsys.readouterr().err
    assert err == f"dynemu replay: --report {tmp_path / 'r'}: {tmp_path / 'r' / 'report.html'} exists; give --force to replace it\n"
    assert (tmp_path / "r" / "report.html").read_text() == "mine"
    assert replay_main([str(small), "--report", str(tmp_path / "r"), "--force"]) == 0
    assert (tmp_path / "r" / "report.html").read_text().startswith("<!doctype html>")


def test_an_endpoint_without_a_scheme_is_named(capsys: pytest.CaptureFixture[str]) -> None:
    assert replay_main([str(EXAMPLES / "burst_spike.json"), "--endpoint", "127.0.0.1:9401"]) == 2
    assert capsys.readouterr().err == (
        "dynemu replay: --endpoint 127.0.0.1:9401: give the scheme, as in http://127.0.0.1:9401\n"
    )


def _scenario() -> dict[str, Any]:
    return orjson.loads((EXAMPLES / "gsi_back_pressure.json").read_bytes())


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d["tables"][0].update(write=0), r"^tables\[0\]\.write: expected a number >= 1, got 0$"),
        (lambda d: d["tables"][0].update(read=0.5), r"^tables\[0\]\.read: expected a number >= 1, got 0\.5$"),
        (
            lambda d: d["tables"][0]["gsis"][0].update(write=0),
            r"^tables\[0\]\.gsis\[0\]\.write: expected a number >= 1, got 0$",
        ),
        (
            lambda d: d["phases"][0]["operations"][0].update(item_size=409601),
            r"^phases\[0\]\.operations\[0\]: item_size 409601 is over DynamoDB's item size limit of 409600 bytes$",
        ),
    ],
)
def test_scenario_values_dynamodb_refuses_are_refused_at_load(change: Any, message: str) -> None:
    d = copy.deepcopy(_scenario())
    change(d)
    with pytest.raises(scenario.ScenarioError, match=message):
        scenario.parse(d)


def test_an_on_demand_table_takes_no_throughput() -> None:
    d = copy.deepcopy(_scenario())
    d["tables"][0].update(billing="PAY_PER_REQUEST", read=0, write=0)
    d["tables"][0]["gsis"][0].update(read=0, write=0)
    assert scenario.parse(d).tables[0].write == 0


def test_clock_start_sets_a_virtual_clocks_first_instant() -> None:
    assert make_settings(dict(clock="virtual", clock_start="2026-01-01T00:00:00Z")).clock_start == 1767225600.0
    assert make_settings(dict(clock="virtual", clock_start="1767225600")).clock_start == 1767225600.0
    assert make_settings(dict(clock="virtual", clock_start=1767225600)).clock_start == 1767225600.0
    with pytest.raises(SettingsError, match="needs --clock"):
        make_settings(dict(clock_start="2026-01-01T00:00:00Z"))
    with pytest.raises(SettingsError, match="expected an ISO 8601 time or epoch seconds"):
        make_settings(dict(clock="virtual", clock_start="yesterday"))


def test_a_write_refused_by_its_gsi_is_charted_as_a_throttle_of_the_table(tmp_path: Path) -> None:
    """gsi_back_pressure: the base table's 'throttled requests per second, by reason' chart
    shows its writes refused by the byStatus index, under the Index reason; CloudWatch's
    throttles have a panel of their own (issue 43)."""
    assert replay_main([str(EXAMPLES / "gsi_back_pressure.json"), "--report", str(tmp_path / "r")]) == 0
    html = (tmp_path / "r" / "report.html").read_text()
    table_section = html.split("<section")[1]
    chart = table_section.split('aria-label="throttled requests per second, by reason"')[1].split("</svg>")[0]
    assert "IndexWriteProvisionedThroughputExceeded (byStatus)" in chart and ">none<" not in chart
    assert 'aria-label="CloudWatch per minute (Sum, complete minutes): throttle events and throttled requests"' in html
    assert 'aria-label="CloudWatch per minute (Sum, complete minutes): consumed capacity units"' in html


def test_a_short_run_says_it_has_no_complete_minute(tmp_path: Path) -> None:
    assert replay_main([str(EXAMPLES / "two_region_writes.json"), "--report", str(tmp_path / "r")]) == 0
    html = (tmp_path / "r" / "report.html").read_text()
    assert "the run lasted 25 s: no complete minute" in html and "no complete minute yet" not in html
