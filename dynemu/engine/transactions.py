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

Time is the database clock's (``Namespace.now``), so virtual time expires tokens too. The
cache is ``Namespace.tokens``, in memory: a restart forgets tokens, as a 10-minute window
allows. The cancellation error and its reasons live here too; the executor that uses both
is ``dynemu.engine.writes``.
"""

from __future__ import annotations

import hashlib
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


# --- cancellation -------------------------------------------------------------------------


class TransactionCanceled(DynamoError):
    """TransactionCanceledException: its body spells ``Message`` with a capital M and
    carries ``CancellationReasons`` (real responses quoted in aws/aws-sdk-net#1292,
    erlcloud/erlcloud#607, boto/boto3#2657); botocore parses both."""

    __slots__ = ("reasons",)

    def __init__(self, reasons: list[dict[str, Any]]) -> None:
        codes = ", ".join(r["Code"] for r in reasons)
        super().__init__(
            "TransactionCanceledException",
            f"Transaction cancelled, please refer cancellation reasons for specific reasons [{codes}]",
        )
        self.reasons = reasons

    def body(self) -> dict[str, Any]:
        return {
            "__type": f"{self.namespace}#{self.type_name}",
            "CancellationReasons": self.reasons,
            "Message": self.message,
        }


def cancel_one(count: int, index: int, message: str) -> TransactionCanceled:
    """A cancellation whose action ``index`` carries a ValidationError, every other None."""
    reasons: list[dict[str, Any]] = [{"Code": "None"} for _ in range(count)]
    reasons[index] = {"Code": "ValidationError", "Message": message}
    return TransactionCanceled(reasons)


THROTTLE_ERRORS = frozenset(("ProvisionedThroughputExceededException", "ThrottlingException"))


def throttle_reason(e: DynamoError) -> dict[str, Any]:
    """The cancellation reason of a throttled action: ProvisionedThroughputExceeded
    (ThrottlingError on an on-demand table) with the table's throttling message
    (transaction-apis.md; the codes of API_CancellationReason). Re-raises other errors."""
    if e.type_name not in THROTTLE_ERRORS:
        raise e
    code = "ThrottlingError" if e.type_name == "ThrottlingException" else "ProvisionedThroughputExceeded"
    return {"Code": code, "Message": e.message}


def failure_reason(e: DynamoError) -> dict[str, Any]:
    """The cancellation reason of an action that failed while evaluated: a failed condition
    (with the old item when asked) or a validation error. Re-raises other errors."""
    if e.type_name == "ConditionalCheckFailedException":
        reason: dict[str, Any] = {"Code": "ConditionalCheckFailed", "Message": e.message}
        item = (e.extra or {}).get("Item")
        if item is not None:
            reason["Item"] = item
        return reason
    if e.type_name == "ValidationException":
        return {"Code": "ValidationError", "Message": e.message}
    raise e
