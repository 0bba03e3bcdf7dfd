"""Request counts and latency per operation, kept by the protocol and read by the admin API."""

from __future__ import annotations

from collections import defaultdict


class RequestMetrics:
    """Request counts and latency per operation (kept by the protocol, cheap to update)."""

    def __init__(self) -> None:
        self.count: dict[str, int] = defaultdict(int)
        self.seconds: dict[str, float] = defaultdict(float)
        self.errors: dict[tuple[str, str], int] = defaultdict(int)

    def observe(self, operation: str, seconds: float, error: str | None) -> None:
        self.count[operation] += 1
        self.seconds[operation] += seconds
        if error is not None:
            self.errors[(operation, error)] += 1
