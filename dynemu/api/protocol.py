"""The DynamoDB JSON 1.0 wire protocol: dispatch on X-Amz-Target, bodies in and out, and the
one place where a DynamoError becomes an HTTP error response.

Check order, as the service answers (probed by dynalite, RULES.md 3.1): content type ->
JSON parse (SerializationException) -> X-Amz-Target (UnknownOperationException) ->
Authorization present (MissingAuthenticationTokenException) -> request shape
(validation) -> the operation's own checks.
"""

from __future__ import annotations

import gzip
import itertools
import logging
import os
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from time import perf_counter
from typing import Any

import orjson
from aiohttp import web

from dynemu import errors
from dynemu.api.validation import RequestValidator
from dynemu.config import Settings
from dynemu.engine.database import Database
from dynemu.engine.namespaces import DEFAULT_REGION, Namespaces

log = logging.getLogger("dynemu")

MAX_BODY_BYTES = 16 * 1024 * 1024
DYNAMODB_PREFIX = "DynamoDB_20120810."
STREAMS_PREFIX = "DynamoDBStreams_20120810."
JSON_TYPES = ("application/x-amz-json-1.0", "application/json")


@dataclass(slots=True)
class Context:
    """What an operation handler knows about its request."""

    db: Database
    region: str
    access_key: str
    settings: Settings
    endpoint: str  # host[:port] the client used, for DescribeEndpoints


Handler = Callable[[Context, dict[str, Any]], dict[str, Any]]

_request_ids = itertools.count(1)
_RID_PREFIX = os.urandom(20).hex().upper()


def _request_id() -> str:
    """52 characters, as DynamoDB's request ids; unique per process without a random call."""
    return f"{_RID_PREFIX}{next(_request_ids):012X}"


def parse_credential(auth: str) -> tuple[str, str]:
    """(access key id, region) from a SigV4 Authorization header's credential scope."""
    i = auth.find("Credential=")
    if i < 0:
        return "", DEFAULT_REGION
    scope = auth[i + 11 :].split(",", 1)[0].strip().split("/")
    access_key = scope[0]
    region = scope[2] if len(scope) > 2 and scope[2] else DEFAULT_REGION
    return access_key, region


class Protocol:
    """Turns HTTP requests into operation calls. One instance per server."""

    def __init__(
        self,
        settings: Settings,
        namespaces: Namespaces,
        handlers: dict[str, dict[str, Handler]],
        metrics: Any = None,
    ):
        self.settings = settings
        self.metrics = metrics  # admin.RequestMetrics: counts and latency per operation
        self.namespaces = namespaces
        self.handlers = handlers  # target prefix -> operation -> handler
        self.validators = {
            DYNAMODB_PREFIX: RequestValidator.for_service("dynamodb"),
            STREAMS_PREFIX: RequestValidator.for_service("dynamodbstreams"),
        }
        self.cors = settings.cors
        self._known_operations = frozenset().union(*(v.operations for v in self.validators.values()))

    # --- responses ------------------------------------------------------------------------------

    def _respond(self, request: web.Request, status: int, body: bytes, content_type: str) -> web.Response:
        headers = {
            "Content-Type": content_type,
            "x-amzn-RequestId": _request_id(),
        }
        accept = request.headers.get("Accept-Encoding")
        if accept and "gzip" in accept and len(body) > 1024:
            body = gzip.compress(body, 1)
            headers["Content-Encoding"] = "gzip"
        headers["x-amz-crc32"] = str(zlib.crc32(body))
        if self.cors is not None:
            headers["Access-Control-Allow-Origin"] = self.cors
            headers["Access-Control-Expose-Headers"] = "x-amzn-RequestId,x-amz-crc32"
        return web.Response(status=status, body=body, headers=headers)

    def _error(self, request: web.Request, err: errors.DynamoError, content_type: str) -> web.Response:
        body = err.body()
        if not body.get("message"):
            body.pop("message", None)
        return self._respond(request, err.status, orjson.dumps(body), content_type)

    # --- the handler ------------------------------------------------------------------------------

    async def handle(self, request: web.Request) -> web.Response:
        content_type = request.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        try:
            raw = await request.read()
        except web.HTTPRequestEntityTooLarge:
            return web.Response(status=413)
        if raw and content_type not in JSON_TYPES:
            return web.Response(status=404, body=b"<UnknownOperationException/>\n")
        reply_type = "application/json" if content_type == "application/json" else JSON_TYPES[0]
        started = perf_counter()
        try:
            # aiohttp has already decoded a gzip/deflate body (Content-Encoding), and its
            # client_max_size bounds the decoded size, so a gzip bomb also gets 413.
            result = self._dispatch(request, raw)
        except errors.DynamoError as err:
            self._observe(request, started, err.type_name)
            return self._error(request, err, reply_type)
        except Exception:  # a bug: log it, answer as the service answers its own failures
            log.exception("internal error handling %s", request.headers.get("X-Amz-Target"))
            self._observe(request, started, "InternalServerError")
            return self._error(request, errors.internal_server_error(), reply_type)
        self._observe(request, started, None)
        if result is None:
            return web.Response(status=413)
        return self._respond(request, 200, orjson.dumps(result), reply_type)

    def _observe(self, request: web.Request, started: float, error: str | None) -> None:
        if self.metrics is not None:
            operation = request.headers.get("X-Amz-Target", "").rpartition(".")[2]
            if operation not in self._known_operations:  # bound the label set
                operation = "unknown"
            self.metrics.observe(operation, perf_counter() - started, error)

    def _dispatch(self, request: web.Request, raw: bytes) -> dict[str, Any] | None:
        if len(raw) > MAX_BODY_BYTES:
            return None
        if not raw:
            raise errors.serialization()
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise errors.serialization() from None
        target = request.headers.get("X-Amz-Target", "")
        prefix, _, operation = target.rpartition(".")
        prefix += "."
        ops = self.handlers.get(prefix)
        validator = self.validators.get(prefix)
        if ops is None or validator is None or operation not in validator.operations:
            raise errors.unknown_operation()
        auth = request.headers.get("Authorization")
        if not auth:
            raise errors.missing_authentication_token()
        if body is None:  # a JSON null body reads as an empty request, as the validator treats it
            body = {}
        validator.validate(operation, body)
        handler = ops.get(operation)
        if handler is None:
            raise errors.unknown_operation(f"dynemu does not implement {operation} yet")
        access_key, region = parse_credential(auth)
        ctx = Context(
            self.namespaces.get(region, access_key),
            region,
            access_key,
            self.settings,
            request.host,
        )
        return handler(ctx, body)

    async def preflight(self, request: web.Request) -> web.Response:
        """CORS preflight (only routed when --cors is on)."""
        headers = {"Access-Control-Allow-Origin": self.cors or "*", "Access-Control-Max-Age": "172800"}
        if "Access-Control-Request-Headers" in request.headers:
            headers["Access-Control-Allow-Headers"] = request.headers["Access-Control-Request-Headers"]
        if "Access-Control-Request-Method" in request.headers:
            headers["Access-Control-Allow-Methods"] = request.headers["Access-Control-Request-Method"]
        return web.Response(status=200, headers=headers)

    async def health(self, request: web.Request) -> web.Response:
        return web.Response(text=f"healthy: dynamodb.{DEFAULT_REGION}.amazonaws.com ")

