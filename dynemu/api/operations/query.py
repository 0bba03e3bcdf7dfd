"""query."""

from __future__ import annotations

from dynemu.api.protocol import Handler

OPERATIONS: dict[str, Handler] = {}
