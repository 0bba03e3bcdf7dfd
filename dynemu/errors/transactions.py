"""Messages of transactions and idempotency tokens.

Part of the catalogue of messages (``dynemu.errors``): every text dynemu says is defined once.
"""

from __future__ import annotations

from dynemu.errors.base import DynamoError

# engine/cancellation.py and engine/tokens.py. TransactionCanceledException's message, as real
# responses quote it (aws/aws-sdk-net#1292, erlcloud/erlcloud#607, boto/boto3#2657), with the
# reasons' codes between the brackets:
MSG_TRANSACTION_CANCELED = "Transaction cancelled, please refer cancellation reasons for specific reasons [{}]"
# The API reference's description of IdempotentParameterMismatchException (TransactWriteItems,
# "Errors"; the service's own wording is unpublished):
MSG_IDEMPOTENT_MISMATCH = (
    "DynamoDB rejected the request because you retried a request with a different payload "
    "but with an idempotent token that was already used."
)


def idempotent_parameter_mismatch() -> DynamoError:
    return DynamoError("IdempotentParameterMismatchException", MSG_IDEMPOTENT_MISMATCH)


# api/operations/transactions.py
# Messages: the one-of message was captured from the service for moto (getmoto/moto#5496);
# the zero-action message is DynamoDB Local's. The multiple-operations and 4 MB messages
# are the write executor's (dynemu.engine.writes).
MSG_ONE_ACTION = "TransactItems can only contain one of Check, Put, Update or Delete"
MSG_NO_ACTION = "Invalid Request: TransactWriteRequest should contain Delete or Put or Update request"
