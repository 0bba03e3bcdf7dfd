"""Why a transaction is cancelled: TransactionCanceledException and its CancellationReasons.

Transactions run in the executors (``dynemu.engine.writes``; TransactGetItems in
``dynemu.engine.reads``), which turn each action's outcome into a reason here: a failed
condition or a validation error (``failure_reason``), a throttle (``throttle_reason``; the
codes of API_CancellationReason in the API reference, and transaction-apis.md), or a key
that does not match its table's schema (``cancellation_at``). What a ClientRequestToken
remembers is ``dynemu.engine.tokens``.
"""

from __future__ import annotations

from typing import Any

from dynemu import errors
from dynemu.errors import DynamoError


class TransactionCanceled(DynamoError):
    """TransactionCanceledException: its body spells ``Message`` with a capital M and
    carries ``CancellationReasons`` (real responses quoted in aws/aws-sdk-net#1292,
    erlcloud/erlcloud#607, boto/boto3#2657); botocore parses both."""

    __slots__ = ("reasons",)

    def __init__(self, reasons: list[dict[str, Any]]) -> None:
        codes = ", ".join(r["Code"] for r in reasons)
        super().__init__("TransactionCanceledException", errors.MSG_TRANSACTION_CANCELED.format(codes))
        self.reasons = reasons

    def body(self) -> dict[str, Any]:
        return {
            "__type": f"{self.namespace}#{self.type_name}",
            "CancellationReasons": self.reasons,
            "Message": self.message,
        }


def cancellation_at(count: int, index: int, message: str) -> TransactionCanceled:
    """A cancellation whose action ``index`` carries a ValidationError, every other None."""
    reasons: list[dict[str, Any]] = [{"Code": "None"} for _ in range(count)]
    reasons[index] = {"Code": "ValidationError", "Message": message}
    return TransactionCanceled(reasons)


def throttle_reason(e: DynamoError) -> dict[str, Any]:
    """The cancellation reason of a throttled action: ProvisionedThroughputExceeded
    (ThrottlingError on an on-demand table) with the table's throttling message
    (transaction-apis.md; the codes of API_CancellationReason). Re-raises other errors."""
    if e.type_name not in errors.THROTTLE_ERRORS:
        raise e
    code = "ThrottlingError" if e.type_name == errors.THROTTLING else "ProvisionedThroughputExceeded"
    return {"Code": code, "Message": e.message}


def failure_reason(e: DynamoError) -> dict[str, Any]:
    """The cancellation reason of an action that failed while evaluated: a failed condition
    (with the old item when asked) or a validation error. Re-raises other errors."""
    if e.type_name == errors.CONDITIONAL_CHECK_FAILED:
        reason: dict[str, Any] = {"Code": "ConditionalCheckFailed", "Message": e.message}
        item = (e.extra or {}).get("Item")
        if item is not None:
            reason["Item"] = item
        return reason
    if e.type_name == "ValidationException":
        return {"Code": "ValidationError", "Message": e.message}
    raise e
