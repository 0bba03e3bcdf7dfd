"""The replication engine driven directly (no server): commit order, last writer wins after
the version table is pruned, and the tie-break among three regions."""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any

from dynemu.engine.clock import VirtualClock
from dynemu.engine.global_tables import membership as global_tables
from dynemu.engine.global_tables.membership import ReplicaCreate
from dynemu.engine.namespaces import Namespaces
from dynemu.engine.schema import KeyAttr, TableSpec
from dynemu.engine.writes import Write


def _setup(
    regions: tuple[str, ...] = ("us-east-1", "eu-west-1"), data_dir: str | None = None
) -> tuple[Namespaces, VirtualClock, str]:
    clock = VirtualClock(1_700_000_000.0)
    spaces = Namespaces(data_dir=data_dir, clock=clock)
    home = spaces.get(regions[0], "k")
    tid, arn, uid = home.new_spec_ids("tab", regions[0])
    key = KeyAttr("pk", "S")
    table = home.add_table(TableSpec("tab", tid, arn, uid, clock.now(), key, None, [key], billing_mode="PAY_PER_REQUEST"))
    for r in regions[1:]:  # one replica per UpdateTable (MREC)
        global_tables.update(
            spaces.replication, home, table, regions[0], "k",
            creates=[ReplicaCreate(r)], updates=[], deletes=[],
            consistency=None, witness_creates=[], witness_deletes=[],
        )  # fmt: skip
    return spaces, clock, "tab"


def _put(spaces: Namespaces, region: str, pk: str, v: str) -> None:
    db = spaces.get(region, "k")
    db.execute([Write.put(db.get("tab"), {"pk": {"S": pk}, "v": {"S": v}})])


def _get(spaces: Namespaces, region: str, pk: str) -> Any:
    table = spaces.get(region, "k").get("tab")
    return table.read(table.key_for_request({"pk": {"S": pk}}))[0]


def test_changes_apply_in_commit_order() -> None:
    spaces, clock, _ = _setup()
    for v in ("1", "2", "3"):
        _put(spaces, "us-east-1", "k", v)
        clock.advance(0.1)
    clock.advance(1.0)
    assert _get(spaces, "eu-west-1", "k") == {"pk": {"S": "k"}, "v": {"S": "3"}}


def test_last_writer_wins_survives_pruning() -> None:
    spaces, clock, _ = _setup()
    for i in range(5000):  # more versions than are kept before pruning
        _put(spaces, "us-east-1", f"p{i}", "x")
    clock.advance(1.0)
    assert len(spaces.replication.versions) < 5000  # pruned once nothing pending could contend
    _put(spaces, "eu-west-1", "p1", "eu-first")
    clock.advance(0.5)
    _put(spaces, "us-east-1", "p1", "us-later")
    clock.advance(2.0)
    for region in ("us-east-1", "eu-west-1"):
        assert _get(spaces, region, "p1") == {"pk": {"S": "p1"}, "v": {"S": "us-later"}}
    assert _get(spaces, "eu-west-1", "p4999") == {"pk": {"S": "p4999"}, "v": {"S": "x"}}


def test_the_tie_break_is_the_greater_region_name() -> None:
    spaces, clock, _ = _setup(("us-east-1", "eu-west-1", "ap-south-1"))
    for region in ("ap-south-1", "us-east-1", "eu-west-1"):
        _put(spaces, region, "same", region)
    clock.advance(1.0)
    for region in ("ap-south-1", "us-east-1", "eu-west-1"):
        assert _get(spaces, region, "same") == {"pk": {"S": "same"}, "v": {"S": "us-east-1"}}


def _reopen(spaces: Namespaces, data_dir: Path, clock: VirtualClock) -> tuple[Namespaces, VirtualClock]:
    """Stop and reopen the server's namespaces (the in-memory backlog is gone)."""
    spaces.replication.stop()
    spaces.close()
    again = VirtualClock(clock.now())
    return Namespaces(data_dir=str(data_dir), clock=again), again


def test_a_change_applied_before_a_crash_is_not_applied_again(tmp_path: Path) -> None:
    """The replica's commit records the change's position: a crash after it, before the
    backlog entry is deleted, leaves the entry behind, and the reload does not apply it again."""
    spaces, clock, _ = _setup(data_dir=str(tmp_path))
    _put(spaces, "us-east-1", "k", "once")
    spaces.replication._truncate = lambda: None  # type: ignore[method-assign]  # the crash: entry kept
    clock.advance(1.0)
    assert _get(spaces, "eu-west-1", "k") == {"pk": {"S": "k"}, "v": {"S": "once"}}
    _put(spaces, "eu-west-1", "k", "eu-later")  # a later local write the old change must not undo
    spaces, clock = _reopen(spaces, tmp_path, clock)
    rep = spaces.replication
    assert [c.origin for c in rep.queue] == ["eu-west-1"]  # only eu's own write is pending
    assert [c.origin for c in rep.done] == ["us-east-1"]  # applied, its entry not yet deleted
    clock.advance(1.0)
    assert rep.applied == {("tab", "eu-west-1", "us-east-1"): 1}
    for region in ("us-east-1", "eu-west-1"):
        assert _get(spaces, region, "k") == {"pk": {"S": "k"}, "v": {"S": "eu-later"}}
    assert rep.queue == deque() and rep.done == []
    spaces, clock = _reopen(spaces, tmp_path, clock)
    assert spaces.replication.queue == deque() and spaces.replication.done == []  # the entries are gone


def test_last_writer_wins_across_a_restart(tmp_path: Path) -> None:
    """Both writes pending at the restart: the later one wins in both regions, because the
    reloaded entries give back the versions of the items they carry."""
    spaces, clock, _ = _setup(data_dir=str(tmp_path))
    _put(spaces, "us-east-1", "k", "us-first")
    clock.advance(0.5)
    _put(spaces, "eu-west-1", "k", "eu-later")
    clock.advance(0.2)
    spaces, clock = _reopen(spaces, tmp_path, clock)
    clock.advance(2.0)
    for region in ("us-east-1", "eu-west-1"):
        assert _get(spaces, region, "k") == {"pk": {"S": "k"}, "v": {"S": "eu-later"}}
    spaces.replication.stop()
    spaces.close()


def test_a_reloaded_backlog_is_scheduled_once_the_loop_runs(tmp_path: Path) -> None:
    """On a real clock nothing advances time: the server's start hands the applier its event
    loop, and a backlog reloaded at start-up gets its timer then."""
    import asyncio

    from dynemu.engine.clock import RealClock

    spaces, clock, _ = _setup(data_dir=str(tmp_path))
    _put(spaces, "us-east-1", "k", "pending")
    spaces.replication.stop()
    spaces.close()
    again = Namespaces(data_dir=str(tmp_path), clock=RealClock())
    rep = again.replication
    assert [c.pending for c in rep.queue] == [["eu-west-1"]]
    assert rep._timer is None  # no loop yet
    loop = asyncio.new_event_loop()
    try:
        rep.start(loop)
        assert rep._timer is not None
    finally:
        rep.stop()
        loop.close()
        again.close()
