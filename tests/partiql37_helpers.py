"""Shared pieces of the issue 37 PartiQL tests: tables with names of a fixed length (so the
positions DynamoDB quotes, ``line:column:length``, land where the issue quotes them) and a
way to run one statement through each of the three operations."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import pytest
from botocore.exceptions import ClientError

MALFORMED = "Statement wasn't well formed, can't be processed: "
INCOMPLETE_KEY = "Where clause does not contain a mandatory equality on all key attributes"
_numbers = itertools.count(1000)


def new_name() -> str:
    """A table name of 8 characters: ``p37_NNNN``."""
    return f"p37_{next(_numbers)}"


def create(ddb: Any, name: str, *, sort: bool = False, gsi: list[dict[str, Any]] | None = None,
           attributes: tuple[tuple[str, str], ...] = ()) -> str:
    keys = [{"AttributeName": "pk", "KeyType": "HASH"}]
    defs = [{"AttributeName": "pk", "AttributeType": "S"}]
    if sort:
        keys.append({"AttributeName": "sk", "KeyType": "RANGE"})
        defs.append({"AttributeName": "sk", "AttributeType": "N"})
    defs += [{"AttributeName": n, "AttributeType": t} for n, t in attributes]
    kw: dict[str, Any] = {"GlobalSecondaryIndexes": gsi} if gsi else {}
    ddb.create_table(TableName=name, KeySchema=keys, AttributeDefinitions=defs, BillingMode="PAY_PER_REQUEST", **kw)
    return name


def made(ddb: Any, **kw: Any) -> Iterator[str]:
    """A fixture's table ``p37_NNNN`` keyed by ``pk`` (S) (and ``sk`` (N) with sort=True),
    deleted afterwards."""
    name = create(ddb, new_name(), **kw)
    yield name
    ddb.delete_table(TableName=name)


def run(ddb: Any, statement: str, *params: dict[str, Any], **kw: Any) -> dict[str, Any]:
    if params:
        kw["Parameters"] = list(params)
    return ddb.execute_statement(Statement=statement, **kw)


def failure(call: Any, *args: Any, **kw: Any) -> tuple[str, str]:
    with pytest.raises(ClientError) as info:
        call(*args, **kw)
    err = info.value.response["Error"]
    return err["Code"], err.get("Message", "")


def item(ddb: Any, table: str, **key: Any) -> dict[str, Any] | None:
    wire = {k: {"N": str(v)} if isinstance(v, int) else {"S": v} for k, v in key.items()}
    return ddb.get_item(TableName=table, Key=wire, ConsistentRead=True).get("Item")


def padded(prefix: str, column: int, rest: str) -> str:
    """``prefix``, spaces, then ``rest`` starting at ``column`` (1-based)."""
    assert len(prefix) < column
    return prefix + " " * (column - 1 - len(prefix)) + rest
