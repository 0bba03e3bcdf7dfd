"""The dashboard's "global tables" section over HTTP, on a virtual clock: each replica, the
backlog per direction before the lag passes, the changes applied and the conflicts resolved,
as the admin API's /_dynemu/global-tables JSON gives them."""

from __future__ import annotations

import re
import urllib.request
from collections.abc import Iterator

import pytest

from dynemu.api.admin.app import NAMESPACES
from dynemu.testing import DynemuServer
from tests.test_global_tables import LAG, Regions, put


@pytest.fixture(scope="module")
def regions() -> Iterator[Regions]:
    server = DynemuServer(clock="virtual")
    url = server.start()
    try:
        yield Regions(url, server.app[NAMESPACES].clock)
    finally:
        server.stop()


def page(r: Regions, region: str) -> str:
    with urllib.request.urlopen(f"{r.url}/_dynemu/?region={region}") as resp:
        assert resp.status == 200
        return str(resp.read().decode())


def section(html: str, table: str) -> str:
    """The global-table block of ``table`` on an index page."""
    m = re.search(rf'<div class="global-table"><h3>{re.escape(table)}</h3>(.*?)</div></div>', html)
    assert m is not None, html
    return m.group(1)


def replicas(block: str) -> list[tuple[str, str, str]]:
    return re.findall(r'<tr class="replica"><td>([^<]*)</td><td>([^<]*)</td><td>([^<]*)</td></tr>', block)


def directions(block: str) -> dict[str, tuple[int, int]]:
    rows = re.findall(
        r'<tr class="direction"><td>([^<]*)</td><td class="pending">([\d,]+)</td><td class="applied">([\d,]+)</td>',
        block,
    )
    return {d: (int(p), int(a)) for d, p, a in rows}


def conflicts(block: str) -> int:
    m = re.search(r'<span class="conflicts">([\d,]+)</span>', block)
    assert m is not None, block
    return int(m.group(1))


def test_index_shows_replicas_backlog_applied_and_conflicts(regions: Regions) -> None:
    t = regions.create("us-east-1")
    regions.add_replica("us-east-1", t, "eu-west-1")
    put(regions, "eu-west-1", t, "k", "first")
    regions.advance(0.25)
    put(regions, "us-east-1", t, "k", "second")  # later: wins, one conflict resolved once both apply
    put(regions, "us-east-1", t, "other", "x")
    for region in ("us-east-1", "eu-west-1"):  # the same block on each replica's page
        block = section(page(regions, region), t)
        assert replicas(block) == [("us-east-1", "ACTIVE", "2"), ("eu-west-1", "ACTIVE", "1")]
        assert directions(block) == {"eu-west-1 → us-east-1": (1, 0), "us-east-1 → eu-west-1": (2, 0)}
        assert conflicts(block) == 0
    regions.advance(2 * LAG)
    block = section(page(regions, "eu-west-1"), t)
    assert replicas(block) == [("us-east-1", "ACTIVE", "2"), ("eu-west-1", "ACTIVE", "2")]
    # eu-west-1's older write lost last-writer-wins in us-east-1: resolved, not applied
    assert directions(block) == {"eu-west-1 → us-east-1": (0, 0), "us-east-1 → eu-west-1": (0, 2)}
    assert conflicts(block) == regions.view(t)["conflicts_resolved"] == 1


def test_a_region_without_a_replica_shows_no_global_table(regions: Regions) -> None:
    t = regions.create("us-east-1")
    regions.add_replica("us-east-1", t, "eu-west-1")
    block = section(page(regions, "us-east-1"), t)  # no write yet: each direction at zero
    assert directions(block) == {"eu-west-1 → us-east-1": (0, 0), "us-east-1 → eu-west-1": (0, 0)}
    assert f"<h3>{t}</h3>" not in page(regions, "ap-south-1")
    regional = regions.create("ap-south-1")  # a regional table: no section at all
    html = page(regions, "ap-south-1")
    assert regional in html and "global tables</h2>" not in html


def test_mrsc_refusals_are_shown_apart_from_conflicts_resolved() -> None:
    """A strongly consistent global table's page counts writes refused with
    ReplicatedWriteConflictException apart from conflicts resolved (issue 43: 23 refusals,
    client retries included, read as 23 conflicts resolved)."""
    from dynemu.api.admin.global_tables_html import _global_table

    g = {"table": "t", "consistency": "STRONG", "witness": None, "replicas": [], "backlog": [], "applied": [],
         "conflicts_resolved": 0, "writes_refused": 23}
    html = _global_table(g)
    assert 'conflicts resolved (last writer wins) <span class="conflicts">0</span>' in html
    assert 'writes refused (ReplicatedWriteConflictException) <span class="refused">23</span>' in html
    assert "writes refused" not in _global_table({**g, "consistency": "EVENTUAL"})
