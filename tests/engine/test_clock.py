"""engine/clock.py: real, scaled and virtual clocks."""

from __future__ import annotations

import time

import pytest

from dynemu.engine.clock import RealClock, ScaledClock, VirtualClock, make_clock


def test_virtual_clock_moves_only_when_advanced_and_runs_callbacks() -> None:
    clock = VirtualClock(1000.0)
    seen: list[float] = []
    sub = clock.on_advance(seen.append)
    assert clock.now() == 1000.0
    assert clock.now() == 1000.0
    assert clock.advance(2.5) == 1002.5
    assert clock.set(1010.0) == 1010.0
    assert seen == [1002.5, 1010.0]
    sub.cancel()
    sub.cancel()  # idempotent
    clock.advance(1)
    assert seen == [1002.5, 1010.0]
    assert clock.subscribers == 0


def test_a_subscription_cancelled_during_an_advance_does_not_run() -> None:
    clock = VirtualClock(0.0)
    seen: list[str] = []
    later = None

    def first(now: float) -> None:
        seen.append("first")
        assert later is not None
        later.cancel()

    clock.on_advance(first)
    later = clock.on_advance(lambda now: seen.append("later"))
    clock.advance(1)
    assert seen == ["first"]
    assert clock.subscribers == 1


def test_every_clock_has_a_scale_and_returns_subscriptions() -> None:
    for clock, scale in ((RealClock(), 1.0), (VirtualClock(), 1.0), (ScaledClock(60.0), 60.0)):
        assert clock.scale == scale
        sub = clock.on_advance(lambda now: None)
        assert clock.subscribers == 1
        sub.cancel()
        assert clock.subscribers == 0


def test_virtual_clock_never_goes_backwards() -> None:
    clock = VirtualClock(50.0)
    with pytest.raises(ValueError):
        clock.advance(-1)
    assert clock.set(10.0) == 50.0


def test_scaled_clock_runs_faster_from_now() -> None:
    # It starts at the real time it was made: bounded by the real time before it was made and
    # after its first reading, plus 1000 times the real time that passed meanwhile (a thread
    # held up for 1 ms between the two readings is 1 s of this clock).
    real0, mono0 = time.time(), time.monotonic()
    clock = ScaledClock(1000.0)
    start = clock.now()
    mono1, real1 = time.monotonic(), time.time()
    assert real0 <= start <= real1 + (mono1 - mono0) * 1000.0 + 0.001
    time.sleep(0.01)
    assert clock.now() - start >= 9.0  # 10 ms real >= 10 s virtual (minus timer slack)


def test_make_clock_modes() -> None:
    assert isinstance(make_clock("real"), RealClock)
    assert make_clock("real").mode == "real"
    scaled = make_clock("real", 60)
    assert isinstance(scaled, ScaledClock) and scaled.mode == "scaled"
    virtual = make_clock("virtual", start=5.0)
    assert isinstance(virtual, VirtualClock) and virtual.now() == 5.0
    with pytest.raises(ValueError):
        make_clock("sideways")
    with pytest.raises(ValueError):
        ScaledClock(0)
