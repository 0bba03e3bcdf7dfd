"""Messages of storage and durability.

Part of the catalogue of messages (``dynemu.errors``): every text dynemu says is defined once.
"""

from __future__ import annotations

from dynemu.errors.base import DynamoError

# DynamoDB has no error for a full disk (its storage is the service's problem): dynemu answers
# as the service answers its own failures, InternalServerError (500), saying what to do.


class DiskFull(DynamoError):
    """A write refused because the disk of the data directory is full (the store raises it;
    nothing was written). Reads keep working; writes resume once space is freed."""

    __slots__ = ()


def disk_full(path: str) -> DiskFull:
    return DiskFull(
        "InternalServerError",
        f"The disk of dynemu's data directory is full: no space left to write {path}. Nothing was "
        "written; reads keep working, and writes resume by themselves once space is freed on that disk.",
        status=500,
    )


# namespaces (engine/namespaces.py): a region or access key that would leave the data directory
def msg_invalid_namespace(name: str) -> str:
    return f"Invalid namespace name: {name}"
