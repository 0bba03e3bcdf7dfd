"""Scenarios, their two targets (moto in-process, a dynemu server) and answer normalisation.

A scenario is a function taking a :class:`Ctx` and returning an answer; the harness runs it
once per target and normalises both answers so that only meaningful differences remain.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError
from moto import mock_aws  # imported before any session: moto hooks into sessions made after it

REGION = "us-east-1"
CONFIG = Config(retries={"total_max_attempts": 1}, connect_timeout=5, read_timeout=60)
# Recent boto3 (1.44 here) sends Streams calls whose StreamArn names an account to
# <account>.streams-ddb.<region>.amazonaws.com, which moto 5.2 does not intercept (it answers
# 404 "Not yet implemented"); the classic endpoint is what moto serves.
# moto's clients also ignore AWS_ENDPOINT_URL_* (the dynemu pytest plugin sets them).
MOTO_CONFIG = CONFIG.merge(Config(account_id_endpoint_mode="disabled", ignore_configured_endpoint_urls=True))
KEYS = {"aws_access_key_id": "AKIDCOMPAT", "aws_secret_access_key": "secret"}

AREAS = {
    "tables": "Tables and waiters",
    "items": "Item operations and attribute types",
    "expressions": "Condition, update, projection and filter expressions",
    "paging": "Query and Scan, paging and Limit",
    "batch": "Batches and Unprocessed*",
    "transactions": "Transactions and cancellation reasons",
    "indexes": "LSI and GSI queries",
    "ttl": "Time to Live",
    "streams": "Streams records",
    "capacity": "ReturnConsumedCapacity",
    "errors": "Common errors",
    "partiql": "PartiQL (ExecuteStatement, BatchExecuteStatement)",
    "backups": "Backups, point-in-time recovery and resource policies",
    "vectors": "Vector indexes and SearchVectors",
}


@dataclass(frozen=True)
class Scenario:
    id: str
    area: str
    doc: str
    fn: Callable[[Ctx], Any]


SCENARIOS: dict[str, Scenario] = {}


def scenario(area: str, name: str | None = None) -> Callable[[Callable[[Ctx], Any]], Callable[[Ctx], Any]]:
    """Register ``fn`` as scenario ``<area>.<name or function name>``."""
    assert area in AREAS, area

    def register(fn: Callable[[Ctx], Any]) -> Callable[[Ctx], Any]:
        sid = f"{area}.{name or fn.__name__}"
        assert sid not in SCENARIOS, sid
        SCENARIOS[sid] = Scenario(sid, area, (fn.__doc__ or "").strip(), fn)
        return fn

    return register


def all_scenarios() -> dict[str, Scenario]:
    import compat.scenarios  # noqa: F401  (registers them)

    return SCENARIOS


# --- the context a scenario receives ------------------------------------------------------------


class Ctx:
    """What a scenario sees: a DynamoDB client, a Streams client and table-name helpers.

    Table names are derived from the scenario id, so both targets see the same names and
    the dynemu server, shared by the whole session, never sees one twice."""

    def __init__(self, sid: str, make_client: Callable[[str], Any]) -> None:
        self.sid = sid
        self._make_client = make_client
        self.ddb = make_client("dynamodb")
        self._streams: Any = None
        self._handlers: list[tuple[str, str]] = []

    @property
    def streams(self) -> Any:
        if self._streams is None:
            self._streams = self._make_client("dynamodbstreams")
        return self._streams

    def override(self, operation: str, **changes: Any) -> None:
        """Change members of ``operation``'s JSON body after boto3 has validated and serialised
        it, so that the server's own validation answers. Undone when the scenario ends (clients
        are shared). Values are given in their wire form."""

        def swap(params: dict[str, Any], **_: Any) -> None:
            body = json.loads(params["body"] or b"{}")
            body.update(changes)
            params["body"] = json.dumps(body).encode()

        event = f"before-call.dynamodb.{operation}"
        uid = f"compat-{self.sid}-{len(self._handlers)}"
        self.ddb.meta.events.register_first(event, swap, unique_id=uid)
        self._handlers.append((event, uid))

    def close(self) -> None:
        for event, uid in self._handlers:
            self.ddb.meta.events.unregister(event, unique_id=uid)
        self._handlers.clear()

    def name(self, suffix: str = "") -> str:
        base = "cx-" + self.sid.replace("_", "-")
        return f"{base}-{suffix}" if suffix else base

    def table(
        self,
        suffix: str = "",
        hash: tuple[str, str] = ("pk", "S"),
        range: tuple[str, str] | None = None,
        attrs: tuple[tuple[str, str], ...] = (),
        **extra: Any,
    ) -> str:
        """Create an on-demand table (plus ``extra`` CreateTable arguments); its name."""
        name = self.name(suffix)
        keys = [{"AttributeName": hash[0], "KeyType": "HASH"}]
        defs = {hash[0]: hash[1]}
        if range is not None:
            keys.append({"AttributeName": range[0], "KeyType": "RANGE"})
            defs[range[0]] = range[1]
        defs.update(dict(attrs))
        kwargs: dict[str, Any] = {"BillingMode": "PAY_PER_REQUEST"}
        kwargs.update(extra)
        self.ddb.create_table(
            TableName=name,
            KeySchema=keys,
            AttributeDefinitions=[{"AttributeName": k, "AttributeType": t} for k, t in defs.items()],
            **kwargs,
        )
        return name

    def call(self, op: str, service: str = "dynamodb", **kwargs: Any) -> Any:
        """Call ``op``; its response, or its error as ``{"error", "message", ...}``."""
        client = self.ddb if service == "dynamodb" else self.streams
        try:
            return getattr(client, op)(**kwargs)
        except ClientError as e:
            return error_answer(e)

    def put(self, table: str, *items: dict[str, Any]) -> None:
        """PutItem each item, retrying throttled writes after a pause as clients do (for
        scenarios writing much data at once, whose subject is not throttling)."""
        for item in items:
            for attempt in range(100):
                try:
                    self.ddb.put_item(TableName=table, Item=item)
                    break
                except ClientError as e:
                    code = e.response.get("Error", {}).get("Code")
                    if code not in ("ThrottlingException", "ProvisionedThroughputExceededException") or attempt == 99:
                        raise
                    time.sleep(0.1)


def error_answer(e: ClientError) -> dict[str, Any]:
    err = e.response.get("Error", {})
    out: dict[str, Any] = {"error": err.get("Code"), "message": err.get("Message")}
    for extra in ("CancellationReasons", "Item", "ThrottlingReasons"):
        if extra in e.response:
            out[extra] = e.response[extra]
    return out


# --- the two targets -----------------------------------------------------------------------------


# One boto3 session and one client per target and service for the whole run: creating clients
# is most of the cost of a scenario otherwise. moto intercepts the clients it did not create.
_SESSION = boto3.session.Session()
_CLIENTS: dict[tuple[str, str], Any] = {}


def _client(service: str, url: str | None) -> Any:
    key = (service, url or "moto")
    if key not in _CLIENTS:
        extra = {"endpoint_url": url, "config": CONFIG} if url else {"config": MOTO_CONFIG}
        _CLIENTS[key] = _SESSION.client(service, region_name=REGION, **KEYS, **extra)
    return _CLIENTS[key]


def run_moto(sc: Scenario) -> Any:
    with mock_aws():  # a fresh moto state per scenario
        return run(sc, lambda service: _client(service, None))


def run_dynemu(sc: Scenario, url: str) -> Any:
    return run(sc, lambda service: _client(service, url))


def run(sc: Scenario, make: Callable[[str], Any]) -> Any:
    ctx = Ctx(sc.id, make)
    try:
        answer = sc.fn(ctx)
    except ClientError as e:
        answer = error_answer(e)
    except Exception as e:  # a target failing outside the API (moto's NotImplementedError...)
        answer = {"exception": type(e).__name__, "message": str(e)[:300]}
    finally:
        ctx.close()
    return normalise(answer)


# --- normalisation --------------------------------------------------------------------------------

_ARN = re.compile(r"arn:aws:dynamodb:[a-z0-9-]*:[0-9]*:")
_JAVA_HASH = re.compile(r"@[0-9a-f]{6,8}\b")
_STREAM_LABEL = re.compile(r"/stream/[0-9T:.\-]+")
_MASKED = {
    "TableId": "<id>",
    "LatestStreamLabel": "<label>",
    "StreamLabel": "<label>",
    "eventID": "<event-id>",
    "SequenceNumber": "<seq>",
    "StartingSequenceNumber": "<seq>",
    "EndingSequenceNumber": "<seq>",
    "ShardId": "<shard>",
    "ParentShardId": "<shard>",
    "ShardIterator": "<iterator>",
    "NextShardIterator": "<iterator>",
    "LastEvaluatedShardId": "<shard>",
    "ApproximateCreationDateTime": "<time>",
}
_SETS = ("SS", "NS", "BS")


def normalise(value: Any, key: str | None = None) -> Any:
    """Mask what legitimately varies (request ids, times, account, region, labels, shard ids)
    and order what DynamoDB leaves unordered (set members)."""
    if key in _MASKED and value is not None:
        return _MASKED[key]
    if isinstance(value, dict):
        return {k: normalise(v, k) for k, v in value.items() if k != "ResponseMetadata"}
    if isinstance(value, list | tuple):
        items = [normalise(v) for v in value]
        if key in _SETS:
            items.sort(key=canonical)
        return items
    if isinstance(value, dt.datetime | dt.date):
        return "<time>"
    if isinstance(value, bytes | bytearray):
        return "b64:" + base64.b64encode(bytes(value)).decode()
    if isinstance(value, str):
        value = _JAVA_HASH.sub("@<hash>", value)  # Java identity hashes in echoed requests
        if key == "message" and len(value) > 400:  # DynamoDB echoes whole requests in some messages
            value = value[:200] + " … " + value[-200:]
        value = _ARN.sub("arn:aws:dynamodb:<region>:<account>:", value)
        return _STREAM_LABEL.sub("/stream/<label>", value)
    return value


def canonical(value: Any) -> str:
    """One line of JSON, keys sorted: what is compared and what differences.toml holds."""
    return json.dumps(value, sort_keys=True, separators=(", ", ": "), ensure_ascii=False, default=str)
