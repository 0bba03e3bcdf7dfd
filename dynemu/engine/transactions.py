"""Idempotency of TransactWriteItems: what a ClientRequestToken remembers.

From the API reference (TransactWriteItems, ClientRequestToken) and the developer guide
(transaction-apis.md, "Idempotency"):

* a token is valid for **10 minutes after the first request that uses it completes**;
  after that the same token starts a new transaction;
* within the window, a request with the same token and the same parameters succeeds
  again **without** applying its writes; the repeat's ConsumedCapacity reports the
  **read** units used to read the items, not the first call's write units;
* the same token with any other parameter changed is IdempotentParameterMismatchException.

A cancelled transaction reserves its token for its own parameters (a retry of the same
request runs again; a different request with the token is a mismatch); a request refused
before it ran (ValidationException, ResourceNotFoundException) reserves nothing.

Time is the database clock's (``Database.now``), so virtual time expires tokens too. The
cache lives in memory beside each :class:`~dynemu.engine.database.Database`: a restart
forgets tokens, as a 10-minute window allows.
"""

from __future__ import annotations

import hashlib
import weakref
from dataclasses import dataclass, field
from typing import Any

import orjson

from dynemu.errors import DynamoError

TOKEN_TTL_SECONDS = 600.0  # "valid for 10 minutes after the first request that uses it"

# The API reference's description of the error (the service's own wording is unpublished).
MISMATCH_MESSAGE = (
    "DynamoDB rejected the request because you retried a request with a different payload "
    "but with an idempotent token that was already used."
)


def idempotent_parameter_mismatch() -> DynamoError:
    return DynamoError("IdempotentParameterMismatchException", MISMATCH_MESSAGE)


def fingerprint(body: dict[str, Any]) -> bytes:
    """A digest of every request parameter except the token itself."""
    rest = {k: v for k, v in body.items() if k != "ClientRequestToken"}
    return hashlib.sha256(orjson.dumps(rest, option=orjson.OPT_SORT_KEYS)).digest()


@dataclass(slots=True)
class TokenEntry:
    fingerprint: bytes
    expires: float
    completed: bool
    # (table name as requested, size in bytes) per action, for the repeat's read capacity
    replay: list[tuple[str, int]] = field(default_factory=list)


class TokenCache:
    """The live ClientRequestTokens of one namespace."""

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[str, TokenEntry] = {}

    def _expire(self, now: float) -> None:
        if not self._entries:
            return
        dead = [t for t, e in self._entries.items() if e.expires <= now]
        for t in dead:
            del self._entries[t]

    def check(self, token: str, digest: bytes, now: float) -> TokenEntry | None:
        """The entry a repeat of this request replays (completed), None to run it, or
        IdempotentParameterMismatchException."""
        self._expire(now)
        entry = self._entries.get(token)
        if entry is None:
            return None
        if entry.fingerprint != digest:
            raise idempotent_parameter_mismatch()
        return entry if entry.completed else None

    def remember(
        self, token: str, digest: bytes, now: float, *, completed: bool, replay: list[tuple[str, int]] | None = None
    ) -> None:
        self._entries[token] = TokenEntry(digest, now + TOKEN_TTL_SECONDS, completed, replay or [])

    def __len__(self) -> int:
        return len(self._entries)


_caches: weakref.WeakKeyDictionary[Any, TokenCache] = weakref.WeakKeyDictionary()


def tokens_for(db: Any) -> TokenCache:
    """The token cache of a Database (one per namespace, dropped with it)."""
    cache = _caches.get(db)
    if cache is None:
        cache = _caches[db] = TokenCache()
    return cache
