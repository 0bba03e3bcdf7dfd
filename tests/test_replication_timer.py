"""The global tables' applier on a real clock's timer (engine/global_tables/replication.py), as a
unit: it applies only changes whose namespaces it first asked to have opened off the loop."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from dynemu.engine.global_tables.replication import Change, Replication


class _SteppingClock:
    """A real clock whose every reading is one second after the last: time passes between
    any two readings of a tick."""

    mode = "real"
    scale = 1.0

    def __init__(self) -> None:
        self.t = 100.0

    def now(self) -> float:
        self.t += 1.0
        return self.t

    def on_advance(self, _: Any) -> None:
        return None


def test_a_tick_applies_only_what_it_asked_to_open_off_the_loop() -> None:
    """A change falling due between the applier's look at what is due and its pass over the
    backlog waits for the next tick: the pass never opens a namespace on the loop that the
    look did not ask to have opened off it."""
    clock = _SteppingClock()
    asked: list[set[tuple[str, str]]] = []
    opened_on_loop: list[tuple[str, str]] = []

    def open_namespace(region: str, access_key: str) -> Any:
        opened_on_loop.append((region, access_key))
        return SimpleNamespace(tables={}, store=SimpleNamespace(write=lambda batch: None))

    def open_later(pairs: set[tuple[str, str]]) -> None:
        asked.append(set(pairs))
        return None  # every store already open: nothing to wait for

    rep = Replication(open_namespace, clock, lag_ms=1000, window_ms=0, open_later=open_later)
    group = SimpleNamespace(name="tab", access_key="key", conflicts=0, consistency="EVENTUAL")
    due = clock.t + 1.5  # after the tick's reading (101), before any later one (102)
    rep.queue.append(Change(group, "region-0", (clock.t, "region-0"), {"pk": {"S": "k"}}, b"k", None, due,
                            ["region-1"], b"\x00", ("region-1",)))  # fmt: skip
    rep._tick()
    assert opened_on_loop == []
    assert asked == [set()]
    assert [c.pending for c in rep.queue] == [["region-1"]]  # still waiting for its tick
    rep._tick()  # now due: asked for, then applied
    assert asked[-1] == {("region-1", "key"), ("region-0", "key")}
    assert ("region-1", "key") in opened_on_loop and not rep.queue
