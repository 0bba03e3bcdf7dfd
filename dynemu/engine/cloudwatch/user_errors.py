"""UserErrors, one namespace's (an account's region's) count of requests answered with an HTTP
400 ("DynamoDB Metrics and dimensions": "Requests to DynamoDB or Amazon DynamoDB Streams that
generate an HTTP 400 status code", "the aggregate of HTTP 400 errors for DynamoDB or Amazon
DynamoDB Streams requests for the current region and the current AWS account", no dimension).
ProvisionedThroughputExceededException (see ThrottledRequests) and
ConditionalCheckFailedException (see ConditionalCheckFailedRequests) are not counted, as the
page says. A request whose signature failed counts in the region its credential scope names
("an incorrect request signature" is one of the page's examples). # UNSURE: a request with no
Authorization header, or a scope naming no valid region, is not counted: it names no namespace.

Counted per minute, as CloudWatch aggregates it, and kept ``MINUTE_KEEP`` minutes in a ring
of (minute, count) rows: 0.3 MB at most per namespace, kept by ``Namespaces`` for the life of
the server (a namespace closed and opened again keeps its series).
"""

from __future__ import annotations

from collections.abc import Iterator

from dynemu import errors
from dynemu.engine.capacity.retention import MINUTE_KEEP, Ring

NOT_COUNTED = frozenset((errors.PROVISIONED_THROUGHPUT_EXCEEDED, errors.CONDITIONAL_CHECK_FAILED))


def counted(type_name: str, status: int) -> bool:
    """Whether an error answer is one of UserErrors'."""
    return status == 400 and type_name not in NOT_COUNTED


class UserErrors:
    """The open minute's count and the closed minutes' rows."""

    __slots__ = ("minute", "count", "rows")

    def __init__(self) -> None:
        self.minute = 0
        self.count = 0.0
        self.rows = Ring(2, MINUTE_KEEP)

    def add(self, now: float) -> None:
        self._tick(now)
        self.count += 1.0

    def _tick(self, now: float) -> None:
        second = int(now)
        minute = second - second % 60
        if minute != self.minute:
            if self.count:
                self.rows.append((float(self.minute), self.count))
            self.minute, self.count = minute, 0.0

    def minutes(self, now: float, start: int) -> Iterator[tuple[int, float]]:
        """(minute, count) of the minutes with errors from ``start`` on, the open one's included."""
        self._tick(now)
        for row in self.rows.since(max(start, int(now) - MINUTE_KEEP * 60)):
            yield int(row[0]), row[1]
        if self.count and self.minute >= start:
            yield self.minute, self.count
