"""The one source of time for the engine: real, scaled or virtual clocks.

Token buckets, partition splits, on-demand peaks, TTL and stream retention read time only
through a :class:`Clock`, so a test on a :class:`VirtualClock` replays an hour of traffic
in milliseconds and gets the same throttles every run.

* ``RealClock``: wall-clock epoch seconds (``--clock real``, the default).
* ``ScaledClock(scale)``: ``scale`` virtual seconds per real second, starting at the real
  time it was made (``--time-scale N``); driven by the monotonic clock, so never runs back.
* ``VirtualClock(start)``: moves only when :meth:`VirtualClock.advance` is called (the admin
  API's ``POST /_dynemu/clock``); after each move it runs the callbacks registered with
  :meth:`Clock.on_advance` so refills, splits and TTL expiry "whatever is due" happen then.
  Without ``start`` it starts on the current *whole* second: consumption is counted per
  whole clock second (on-demand peaks, the once-a-second upkeep), so a fraction carried
  from the wall clock would make the same requests and advances land in other seconds,
  and throttle differently, depending on the instant the server started.

Callbacks receive the new ``now``. ``on_advance`` returns a :class:`Subscription`: whoever
registers a callback owns it and cancels it when done (a closed namespace, a stopped
server), so the clock never keeps a dead owner alive. Real and scaled clocks keep the
registry (so callers need not care which clock they hold) but never call it: time moves on
its own there, and background tasks poll instead, every ``interval / scale`` real seconds.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Protocol

AdvanceCallback = Callable[[float], None]


class Cancellable(Protocol):
    """Something registered that its owner releases: a :class:`Subscription`, or an event
    loop's ``TimerHandle``."""

    def cancel(self) -> None: ...


class Subscription:
    """One callback registered with :meth:`Clock.on_advance`; ``cancel()`` removes it (once
    cancelled it never runs again, even within an advance under way). Idempotent."""

    __slots__ = ("callback", "_registry")

    def __init__(self, registry: _CallbackRegistry, callback: AdvanceCallback) -> None:
        self.callback = callback
        self._registry: _CallbackRegistry | None = registry

    @property
    def active(self) -> bool:
        return self._registry is not None

    def cancel(self) -> None:
        registry, self._registry = self._registry, None
        if registry is not None:
            registry._subscriptions.pop(self, None)


class Clock(Protocol):
    mode: str
    scale: float  # clock seconds per real second (1 for real and virtual clocks)

    def now(self) -> float:
        """Current time in epoch seconds (may be fractional)."""
        ...

    def on_advance(self, callback: AdvanceCallback) -> Subscription:
        """Register ``callback(now)`` to run after virtual time moves, until cancelled."""
        ...


class _CallbackRegistry:
    __slots__ = ("_subscriptions",)

    def __init__(self) -> None:
        # insertion-ordered: callbacks run in the order they were registered
        self._subscriptions: dict[Subscription, None] = {}

    def on_advance(self, callback: AdvanceCallback) -> Subscription:
        sub = Subscription(self, callback)
        self._subscriptions[sub] = None
        return sub

    @property
    def subscribers(self) -> int:
        """How many callbacks are registered (tests: nothing is left behind)."""
        return len(self._subscriptions)


class RealClock(_CallbackRegistry):
    __slots__ = ()
    mode = "real"
    scale = 1.0

    # ``time.time`` itself: every request reads the clock, and a method around it would
    # add a Python call each time
    now = staticmethod(time.time)


class ScaledClock(_CallbackRegistry):
    """``scale`` virtual seconds elapse per real second, from the real time of creation."""

    __slots__ = ("scale", "_origin", "_mono0")
    mode = "scaled"

    def __init__(self, scale: float, start: float | None = None) -> None:
        super().__init__()
        if scale <= 0:
            raise ValueError("time scale must be positive")
        self.scale = float(scale)
        self._origin = time.time() if start is None else float(start)
        self._mono0 = time.monotonic()

    def now(self) -> float:
        return self._origin + (time.monotonic() - self._mono0) * self.scale


class VirtualClock(_CallbackRegistry):
    """Time that moves only through :meth:`advance` (or :meth:`set`, forwards only)."""

    __slots__ = ("_now",)
    mode = "virtual"
    scale = 1.0  # unused: a virtual clock moves only when advanced

    def __init__(self, start: float | None = None) -> None:
        super().__init__()
        # a whole second: every per-second count is then independent of the start instant
        self._now = float(math.floor(time.time())) if start is None else float(start)

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> float:
        """Move forward by ``seconds`` (>= 0), run the callbacks, return the new time."""
        if seconds < 0:
            raise ValueError("a virtual clock cannot go backwards")
        self._now += seconds
        for sub in tuple(self._subscriptions):
            if sub.active:  # not cancelled by a callback that ran before it
                sub.callback(self._now)
        return self._now

    def set(self, when: float) -> float:
        """Jump to the absolute time ``when`` (not before the current time)."""
        return self.advance(max(0.0, when - self._now))


def make_clock(mode: str = "real", scale: float = 1.0, start: float | None = None) -> Clock:
    """The clock for ``--clock MODE`` and ``--time-scale SCALE``.

    ``mode`` is ``real`` or ``virtual``; a real clock with ``scale != 1`` is a
    :class:`ScaledClock` (``mode == "scaled"`` is accepted as well).
    """
    if mode == "virtual":
        return VirtualClock(start)
    if mode in ("real", "scaled"):
        if mode == "scaled" or scale != 1.0:
            return ScaledClock(scale, start)
        return RealClock()
    raise ValueError(f"unknown clock mode: {mode!r}")
