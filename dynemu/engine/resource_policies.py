"""Resource-based policies of tables and streams (PutResourcePolicy, GetResourcePolicy,
DeleteResourcePolicy, CreateTable's ResourcePolicy; "Using resource-based policies for
DynamoDB").

A policy is kept by the ARN of its table or stream (``storage/backup_keys.policy_key``),
with its revision id: the clock's epoch milliseconds when the document last changed, the
same id for the same document (PutResourcePolicy is idempotent). ``ExpectedRevisionId``
must match the current revision (``NO_POLICY``: that there is none), else
PolicyNotFoundException. A document is at most 20 KB, whitespace counted, and must be a
JSON object whose statements have an Effect, an Action and a Principal. DescribeTable and
DescribeStream do not show a policy (neither has a member for it, as in DynamoDB).

Enforcement (only with ``--verify-signatures``, where the caller is known): the caller is
``arn:aws:iam::<account>:user/<access key id>``. A request is refused with
AccessDeniedException when a policy of a table (or stream) it names has a statement with
``Effect: Deny`` whose Principal matches the caller ("*", the caller's ARN, the account's
root ARN or id), whose Action matches ``dynamodb:<Operation>`` (wildcards as IAM's), and
whose Resource, when given, matches the table's ARN (or the index's, for an IndexName).
Not evaluated: Allow statements (every caller is allowed, as an account's own identity
policies would allow it), NotPrincipal, NotAction, NotResource and Condition (a statement
with any of them is skipped), identity-based policies, and the tables named inside PartiQL
statements.
"""

from __future__ import annotations

import fnmatch
import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Protocol

import orjson

from dynemu import errors
from dynemu.engine import streams
from dynemu.engine.table import Table
from dynemu.storage import backup_keys
from dynemu.storage.base import Reader, Store, WriteBatch

MAX_POLICY_BYTES = 20 * 1024
NO_POLICY = "NO_POLICY"
ACCOUNT_ID = "000000000000"  # dynemu's account (engine.namespace.ACCOUNT_ID)


@dataclass
class Policy:
    """A table's resource-based policy: its JSON document and revision id."""

    document: str
    revision: str


class Catalog(Protocol):
    """What the policies need of a namespace: its store, clock and tables."""

    store: Store
    tables: dict[str, Table]

    def now(self) -> float: ...

    def lookup(self, name: str) -> Table | None: ...


def get(store: Reader, arn: str) -> Policy | None:
    raw = store.get(backup_keys.policy_key(arn))
    if raw is None:
        return None
    r = orjson.loads(raw)
    return Policy(r["document"], r["revision"])


def validate(document: str) -> dict[str, Any]:
    """The parsed document, after the size and shape checks."""
    size = len(document.encode("utf-8"))
    if size > MAX_POLICY_BYTES:
        raise errors.validation(errors.msg_policy_too_large(size))
    try:
        doc = orjson.loads(document)
    except orjson.JSONDecodeError:
        raise errors.validation(errors.MSG_POLICY_NOT_JSON) from None
    if not isinstance(doc, dict):
        raise errors.validation(errors.MSG_POLICY_NOT_OBJECT)
    if "Statement" not in doc:
        raise errors.validation(errors.MSG_POLICY_NO_STATEMENT)
    for st in _statements(doc):
        if not isinstance(st, dict) or st.get("Effect") not in ("Allow", "Deny"):
            raise errors.validation(errors.MSG_POLICY_BAD_EFFECT)
        if "Action" not in st and "NotAction" not in st:
            raise errors.validation(errors.MSG_POLICY_NO_ACTION)
        if "Principal" not in st and "NotPrincipal" not in st:
            raise errors.validation(errors.MSG_POLICY_NO_PRINCIPAL)
    return doc


def _statements(doc: dict[str, Any]) -> list[Any]:
    st = doc.get("Statement")
    return st if isinstance(st, list) else [st]


def resolve(db: Catalog, arn: str) -> Table:
    """The table of a table or stream ARN, else ResourceNotFoundException."""
    table_arn, is_stream, _ = arn.partition("/stream/")
    table = db.lookup(table_arn) if table_arn.startswith("arn:") else None
    if table is None or table.spec.arn != table_arn:
        raise errors.policy_resource_not_found(arn)
    if is_stream:
        ts = streams.of_table(table)
        if ts is None or not any(s.arn == arn for s in ts.streams):
            raise errors.policy_resource_not_found(arn)
    return table


def _check_expected(arn: str, current: Policy | None, expected: str | None) -> None:
    if expected is None:
        return
    if expected == NO_POLICY:
        if current is not None:
            raise errors.revision_mismatch(arn, expected)
        return
    if current is None:
        raise errors.policy_not_found(arn)
    if current.revision != expected:
        raise errors.revision_mismatch(arn, expected)


def _revision(now: float, current: Policy | None) -> str:
    rev = math.floor(now * 1000)
    if current is not None and current.revision.isdigit() and int(current.revision) >= rev:
        rev = int(current.revision) + 1  # revisions only grow
    return str(rev)


def put(db: Catalog, arn: str, document: str, expected: str | None) -> str:
    """Attach ``document`` to the resource; its RevisionId."""
    validate(document)
    current = get(db.store, arn)
    _check_expected(arn, current, expected)
    if current is not None and current.document == document:
        return current.revision  # idempotent: the same document keeps its revision
    revision = _revision(db.now(), current)
    batch = WriteBatch()
    batch.put(backup_keys.policy_key(arn), orjson.dumps({"document": document, "revision": revision}))
    db.store.write(batch)
    return revision


def delete(db: Catalog, arn: str, expected: str | None) -> str:
    """Remove the resource's policy; the RevisionId it had."""
    current = get(db.store, arn)
    if current is None:
        raise errors.policy_not_found(arn)
    _check_expected(arn, current, expected)
    batch = WriteBatch()
    batch.delete(backup_keys.policy_key(arn))
    db.store.write(batch)
    return current.revision


def on_table_deleted(store: Store, table: Table) -> None:
    """The table's policy and its streams' policies go with it."""
    batch = WriteBatch()
    batch.delete(backup_keys.policy_key(table.spec.arn))
    ts = streams.of_table(table)
    for s in ts.streams if ts is not None else ():
        batch.delete(backup_keys.policy_key(s.arn))
    store.write(batch)


# --- enforcement -------------------------------------------------------------------------------


def caller_arn(access_key: str) -> str:
    return f"arn:aws:iam::{ACCOUNT_ID}:user/{access_key}"


def _as_list(v: Any) -> list[Any]:
    return v if isinstance(v, list) else [v]


def _principal_matches(principal: Any, caller: str) -> bool:
    if principal == "*":
        return True
    if not isinstance(principal, dict):
        return False
    for p in _as_list(principal.get("AWS", [])):
        if p in ("*", caller, ACCOUNT_ID, f"arn:aws:iam::{ACCOUNT_ID}:root"):
            return True
    return False


def _matches(patterns: Any, value: str, *, fold: bool = False) -> bool:
    for p in _as_list(patterns):
        if not isinstance(p, str):
            continue
        if fnmatch.fnmatchcase(value.lower() if fold else value, p.lower() if fold else p):
            return True
    return False


def _denies(doc: dict[str, Any], caller: str, action: str, resources: list[str]) -> bool:
    for st in _statements(doc):
        if not isinstance(st, dict) or st.get("Effect") != "Deny":
            continue
        if any(k in st for k in ("NotPrincipal", "NotAction", "NotResource", "Condition")):
            continue  # not evaluated (module docstring)
        if not _principal_matches(st.get("Principal"), caller):
            continue
        if not _matches(st.get("Action"), action, fold=True):
            continue
        if "Resource" in st and not any(_matches(st["Resource"], r) for r in resources):
            continue
        return True
    return False


def _named(body: dict[str, Any]) -> Iterator[tuple[str, str | None]]:
    """(table name or ARN, or a stream ARN; index name) of each resource a request names."""
    for member in ("TableName", "ResourceArn", "StreamArn"):
        v = body.get(member)
        if isinstance(v, str):
            yield v, body.get("IndexName") if member == "TableName" else None
    items = body.get("RequestItems")
    if isinstance(items, dict):
        for name in items:
            yield name, None
    for action in body.get("TransactItems") or ():
        if isinstance(action, dict):
            for inner in action.values():
                if isinstance(inner, dict) and isinstance(inner.get("TableName"), str):
                    yield inner["TableName"], None


def enforce(db: Catalog, access_key: str, operation: str, body: dict[str, Any]) -> None:
    """Refuse the request when an explicit Deny of a policy of what it names matches it."""
    caller = caller_arn(access_key)
    action = f"dynamodb:{operation}"
    for name, index in _named(body):
        table = db.lookup(name.partition("/stream/")[0])
        if table is None:
            continue  # the operation answers its own not-found
        arn = name if "/stream/" in name else table.spec.arn
        policy = get(db.store, arn)
        if policy is None:
            continue
        resources = [arn] + ([f"{arn}/index/{index}"] if index else [])
        if _denies(orjson.loads(policy.document), caller, action, resources):
            raise errors.access_denied_by_policy(caller, action, resources[-1])
