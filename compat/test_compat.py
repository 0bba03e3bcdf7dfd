"""Each scenario against moto and dynemu: equal answers pass; a difference passes only when
differences.toml lists exactly it."""

from __future__ import annotations

import json

import pytest

from compat import differences, report
from compat.harness import all_scenarios, canonical, run_dynemu, run_moto

SCENARIOS = all_scenarios()
LISTED = differences.load()


@pytest.mark.parametrize("sid", sorted(SCENARIOS))
def test_scenario(sid: str, compat_dynemu_url: str) -> None:
    sc = SCENARIOS[sid]
    moto = canonical(run_moto(sc))
    dyn = canonical(run_dynemu(sc, compat_dynemu_url))
    listed = LISTED.get(sid)
    if moto == dyn:
        assert listed is None, f"{sid}: the listed difference has gone away; both answer {moto}"
        return
    stub = differences.stub(sid, moto, dyn)
    assert listed is not None, f"{sid}: unexplained difference; list it in differences.toml:\n{stub}"
    assert (canonical(listed.moto), canonical(listed.dynemu)) == (moto, dyn), (
        f"{sid}: the difference is not the listed one; observed:\n{stub}"
    )


def test_listed_scenarios_exist() -> None:
    assert sorted(set(LISTED) - set(SCENARIOS)) == []


def test_at_least_100_scenarios_cover_every_area() -> None:
    from compat.harness import AREAS

    assert len(SCENARIOS) >= 100
    assert {s.area for s in SCENARIOS.values()} == set(AREAS)


def test_listed_answers_are_json() -> None:
    for d in LISTED.values():
        json.dumps(d.moto), json.dumps(d.dynemu)
        assert d.rule and d.source.startswith("http"), d.id


def test_report_is_up_to_date() -> None:
    assert report.REPORT.read_text(encoding="utf-8") == report.render(), (
        "compat/REPORT.md is stale: run `python -m compat.report`"
    )
