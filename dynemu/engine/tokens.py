"""Idempotency of TransactWriteItems: what a ClientRequestToken remembers, kept in the store.

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

SDKs retry a transaction that timed out with the same token, which is exactly the case after
a crash or a restart of the server: so a token's record lives in the namespace's store
(``storage.keyspace.token_key``), written in the same atomic write batch as the
transaction's own commit (``Namespace.commit(..., batch=...)``): either both the items and
the token survive a crash, or neither. Time is the namespace clock's (``Namespace.now``), so
virtual time expires tokens too. The records stay bounded: each new record deletes some of
those expired (an index by expiry time, ``keyspace.token_expiry_key``), and past ``limit``
live records the ones closest to expiring make room.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import orjson

from dynemu import errors
from dynemu.storage import keyspace
from dynemu.storage.base import Store, WriteBatch

TOKEN_TTL_SECONDS = 600.0  # "valid for 10 minutes after the first request that uses it"
LIMIT = 100_000  # live token records kept per namespace
PRUNE_EACH = 16  # expired records deleted by each new record (more than one: pruning keeps up)
RECOUNT_EACH = 1024  # records made between two exact counts (a batch that was never written
# leaves the running count off: the caller, not this class, writes it)


def fingerprint(body: dict[str, Any]) -> bytes:
    """A digest of every request parameter except the token itself."""
    rest = {k: v for k, v in body.items() if k != "ClientRequestToken"}
    return hashlib.sha256(orjson.dumps(rest, option=orjson.OPT_SORT_KEYS)).digest()


@dataclass(slots=True)
class TokenEntry:
    """A ClientRequestToken's remembered request: what it was, until when, and its outcome."""

    fingerprint: bytes
    expires: float
    completed: bool
    # (table name as requested, size in bytes) per action, for the repeat's read capacity
    replay: list[tuple[str, int]] = field(default_factory=list)

    def encode(self) -> bytes:
        return orjson.dumps({"f": self.fingerprint.hex(), "e": self.expires, "c": self.completed, "r": self.replay})

    @classmethod
    def decode(cls, raw: bytes) -> TokenEntry:
        d = orjson.loads(raw)
        return cls(bytes.fromhex(d["f"]), d["e"], d["c"], [(name, size) for name, size in d["r"]])


class Tokens:
    """The ClientRequestTokens of one namespace, in its store."""

    __slots__ = ("store", "limit", "_count", "_made")

    def __init__(self, store: Store, limit: int = LIMIT) -> None:
        self.store = store
        self.limit = max(1, limit)
        self._count: int | None = None  # records in the store (None: not counted yet)
        self._made = 0  # records made since the last exact count

    def check(self, token: str, digest: bytes, now: float) -> TokenEntry | None:
        """The entry a repeat of this request replays (completed), None to run it, or
        IdempotentParameterMismatchException."""
        raw = self.store.get(keyspace.token_key(token))
        if raw is None:
            return None
        entry = TokenEntry.decode(raw)
        if entry.expires <= now:
            return None
        if entry.fingerprint != digest:
            raise errors.idempotent_parameter_mismatch()
        return entry if entry.completed else None

    def record(
        self, token: str, digest: bytes, now: float, *, completed: bool,
        replay: list[tuple[str, int]] | None = None, batch: WriteBatch | None = None,
    ) -> WriteBatch:  # fmt: skip
        """Add to ``batch`` (a new one if None) the record of ``token``, valid for 10 minutes
        from ``now``, and the deletion of expired records (of the oldest ones past ``limit``).
        The caller writes the batch: with the transaction's commit, so the record exists if
        and only if the transaction's writes do."""
        batch = WriteBatch() if batch is None else batch
        self._prune(batch, now, token)
        key = keyspace.token_key(token)
        old = self.store.get(key)
        if old is not None:  # the record is replaced (a cancelled or an expired one)
            batch.delete(keyspace.token_expiry_key(TokenEntry.decode(old).expires, token))
            self._counted(-1)
        entry = TokenEntry(digest, now + TOKEN_TTL_SECONDS, completed, replay or [])
        batch.put(key, entry.encode())
        batch.put(keyspace.token_expiry_key(entry.expires, token), b"")
        self._counted(1)
        return batch

    def remember_cancelled(self, token: str, digest: bytes, now: float) -> None:
        """Keep the token of a cancelled transaction for its own parameters. Nothing else is
        written with it; on a full disk the cancellation is still the answer (a retry of the
        same request runs again either way, only a different payload goes unrefused)."""
        try:
            self.store.write(self.record(token, digest, now, completed=False))
        except errors.DiskFull:
            self._count = None  # count again: the record was not written

    def __len__(self) -> int:
        """The records in the store, live or expired but not yet pruned."""
        if self._count is None:
            start = keyspace.TOKEN_EXPIRIES
            self._count = sum(1 for _ in self.store.iterate(start, keyspace.prefix_end(start)))
            self._made = 0
        return self._count

    def _counted(self, delta: int) -> None:
        if self._count is not None:
            self._count += delta

    def _prune(self, batch: WriteBatch, now: float, token: str) -> None:
        """Delete up to PRUNE_EACH expired records and, past ``limit``, the records closest to
        expiring until a tenth of the bound is free (a live token among them is forgotten
        early: the bound wins). ``token``'s own record is the caller's."""
        over = 0
        self._made += 1
        if self._made >= RECOUNT_EACH:
            self._count = None
        if len(self) + 1 > self.limit:
            self._count = None  # count exactly before forgetting live tokens
            if len(self) + 1 > self.limit:
                over = len(self) + 1 - self.limit + self.limit // 10
        start = keyspace.TOKEN_EXPIRIES
        expired_until = keyspace.token_expiries_until(now)
        pairs = self.store.iterate(start, keyspace.prefix_end(start))
        deleted = 0
        for ekey, _ in pairs:
            if deleted >= over and (ekey >= expired_until or deleted >= over + PRUNE_EACH):
                break
            owner = keyspace.decode_token_expiry_key(ekey)
            if owner == token:
                continue
            batch.delete(ekey)
            batch.delete(keyspace.token_key(owner))
            deleted += 1
        close = getattr(pairs, "close", None)
        if close is not None:
            close()  # an unfinished iterator (SQLite) gives its connection back now
        self._counted(-deleted)
