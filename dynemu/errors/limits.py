"""Messages of account limits and control-plane throttling (engine/limits.py). Each says
what was exceeded, as the service's "Subscriber limit exceeded" texts do."""

from __future__ import annotations

from dynemu.errors.base import THROTTLING, DynamoError


def msg_table_limit(limit: int) -> str:
    # "Subscriber limit exceeded: There is a limit of 256 tables per subscriber" (the service's
    # answer quoted in hashicorp/terraform#14571; the default quota is now 2,500 tables)
    return f"Subscriber limit exceeded: There is a limit of {limit} tables per subscriber"


def msg_simultaneous_operations(limit: int) -> str:
    # "Subscriber limit exceeded: Only 10 tables can be created, updated, or deleted
    # simultaneously" (quoted in hashicorp/terraform-provider-aws#2274; the default is now 500)
    return f"Subscriber limit exceeded: Only {limit} tables can be created, updated, or deleted simultaneously"


def msg_account_throughput(which: str, region: str, reserved: int, limit: int, requested: int) -> str:
    # "This request would have caused the ReadCapacityUnits limit to be exceeded for the account
    # in <REGION>. Current ReadCapacityUnits reserved by the account: <N>. Limit: <N>. Requested:
    # <N>. Refer to ..." (the service's answer to CreateTable, in a catalogue of its
    # LimitExceededException texts). UNSURE: the catalogue cuts the tail, completed here as the
    # per-table maximum's text ends; "Requested" taken as the units the request adds (for an
    # UpdateTable, its increase)
    return (
        f"This request would have caused the {which} limit to be exceeded for the account in {region}. "
        f"Current {which} reserved by the account: {reserved}. Limit: {limit}. Requested: {requested}. "
        "Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits."
    )


def msg_backup_limit(limit: int) -> str:
    # UNSURE: DynamoDB sets no limit on on-demand backups; this one exists only with --max-backups
    return f"Subscriber limit exceeded: There is a limit of {limit} backups per subscriber"


def control_plane_throttled() -> DynamoError:
    # "ThrottlingException: Rate of requests exceeds the allowed throughput." (the service's
    # answer to control-plane calls made too fast; DynamoDB's common errors)
    return DynamoError(THROTTLING, "Rate of requests exceeds the allowed throughput.")
