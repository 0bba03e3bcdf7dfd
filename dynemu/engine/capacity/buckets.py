"""Token buckets on the engine's clock, and per-second consumption rings.

A :class:`Bucket` has a ``rate`` (units/s) and a capacity ``cap``; it refills lazily,
``tokens = min(cap, tokens + rate * elapsed)``, whenever it is looked at (no timers).
Amounts are capacity units (floats; every charge is a multiple of 0.5), times epoch
seconds from the engine's clock.

The two buckets per partition of the classic description (an allocation and a burst
bucket; docs/capacity.md, "Token buckets") are one bucket here: the first ``rate`` tokens of the balance are the
allocation (one second of throughput), what lies above them is the burst savings
(:meth:`Bucket.burst`, up to ``cap - rate``). Refill fills the allocation first and
overflows into burst; a debit spends the allocation first, then burst, and only then goes
into debt, repaid by later refills (see ``throughput.py`` for the admission rule).

A :class:`CeilingBucket` (a partition's ceiling) adds a *spike allowance*: what its refill
would add beyond its capacity is saved there (up to ``spare_cap``), and the part of a
charge that the balance cannot cover is taken from it before the balance goes into debt
(docs/capacity.md, "Token buckets").
"""

from __future__ import annotations

from collections.abc import Iterable


class Bucket:
    __slots__ = ("rate", "cap", "tokens", "stamp")

    def __init__(self, rate: float, cap: float, now: float, tokens: float | None = None) -> None:
        self.rate, self.cap, self.stamp = rate, cap, now
        # A new bucket starts full: new tables and new partitions start with their burst
        # allowance (issue 10; burst-adaptive-capacity.html keeps 300 s of unused capacity).
        self.tokens = cap if tokens is None else tokens

    def level(self, now: float) -> float:
        """Refill from the elapsed time and return the balance."""
        dt = now - self.stamp
        if dt > 0:
            t = self.tokens + dt * self.rate
            self.tokens = self.cap if t > self.cap else t
            self.stamp = now
        return self.tokens

    def burst(self, now: float) -> float:
        """The burst savings: the balance above one second's allocation."""
        return max(0.0, self.level(now) - self.rate)

    def take(self, units: float, now: float, clamp: bool = False) -> None:
        """Refill, then debit ``units``; ``clamp`` keeps the balance >= ``-cap``."""
        tokens = self.tokens
        dt = now - self.stamp
        if dt > 0:  # ``level``, inline: every write takes from two or three buckets
            tokens += dt * self.rate
            if tokens > self.cap:
                tokens = self.cap
            self.stamp = now
        t = tokens - units
        if clamp and t < -self.cap:
            t = -self.cap
        self.tokens = t

    def reset(self, rate: float, cap: float, now: float, *, fill: bool = False) -> None:
        """New rate and capacity; ``fill`` starts the bucket full (a throughput increase)."""
        self.level(now)
        self.rate, self.cap = rate, cap
        if fill or self.tokens > cap:
            self.tokens = cap


class CeilingBucket(Bucket):
    """A bucket whose overflow is saved as a spike allowance (``spare``, at most
    ``spare_cap``) that covers a charge beyond the balance: a large request admitted while
    the bucket held a positive balance leaves it at zero, not in debt, as long as the
    allowance lasts. Only capacity left unused refills the allowance, so sustained traffic
    above the rate spends it within seconds and is then limited to the rate again."""

    __slots__ = ("spare", "spare_cap")

    def __init__(self, rate: float, cap: float, now: float, spare_cap: float) -> None:
        super().__init__(rate, cap, now)
        self.spare = self.spare_cap = spare_cap  # starts full, like the bucket

    def level(self, now: float) -> float:
        dt = now - self.stamp
        if dt > 0:
            t = self.tokens + dt * self.rate
            if t > self.cap:
                if self.spare < self.spare_cap:  # the overflow: capacity left unused
                    over = t - max(self.tokens, self.cap)
                    self.spare = min(self.spare_cap, self.spare + over)
                t = self.cap
            self.tokens = t
            self.stamp = now
        return self.tokens

    def take(self, units: float, now: float, clamp: bool = False) -> None:
        t = self.level(now) - units
        if t < 0.0 and self.spare > 0.0:
            cover = min(-t, self.spare)
            self.spare -= cover
            t += cover
        if clamp and t < -self.cap:
            t = -self.cap
        self.tokens = t

    def fill(self) -> None:
        """Full balance and full allowance (a partition made by a split)."""
        self.tokens, self.spare = self.cap, self.spare_cap


class RateRing:
    """Units consumed per whole second over the last ``size`` seconds; O(1) per add."""

    __slots__ = ("secs", "vals", "size", "first")

    def __init__(self, window: int) -> None:
        self.size = size = window + 1  # the current second plus ``window`` completed ones
        self.secs = [-1] * size
        self.vals = [0.0] * size
        self.first: int | None = None  # the first second anything was recorded

    def add(self, now: float, units: float) -> None:
        s = int(now)
        if self.first is None:
            self.first = s
        i = s % self.size
        if self.secs[i] != s:
            self.secs[i] = s
            self.vals[i] = 0.0
        self.vals[i] += units

    def recent(self, now: float) -> float:
        """Units of the current second and the one before it (a burst under way)."""
        s = int(now)
        total = 0.0
        for t in (s, s - 1):
            i = t % self.size
            if self.secs[i] == t:
                total += self.vals[i]
        return total

    def completed(self, now: float, since: int) -> Iterable[tuple[int, float]]:
        """``(second, units)`` of whole seconds in ``[since, now)`` still held."""
        s = int(now)
        return ((t, v) for t, v in zip(self.secs, self.vals, strict=True) if since <= t < s)

    def rate(self, now: float, window: int, *, covered: bool = False) -> float:
        """Average units/s over the last ``window`` completed seconds; ``covered``
        averages over the span the ring really holds when it is younger than that (the
        admin view: 60 units in the first second is 60/s, not 1/s)."""
        window = min(window, self.size - 1)
        start = int(now) - window
        total = sum(v for _, v in self.completed(now, start))
        if covered and total and self.first is not None and self.first > start:
            return total / max(1, int(now) - self.first)
        return total / window
