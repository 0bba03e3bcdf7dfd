"""The DynamoDB JSON 1.0 wire protocol: dispatch on X-Amz-Target, bodies in and out, and the
one place where a DynamoError becomes an HTTP error response.

Check order: content type -> Authorization present (MissingAuthenticationTokenException,
whatever the body) -> signature (only with --verify-signatures) and region -> content
coding -> JSON parse, an object (SerializationException) -> X-Amz-Target
(UnknownOperationException) -> request shape (validation) -> the operation's own checks.
"""

from __future__ import annotations

import asyncio
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
from dynemu.api import compression, sigv4
from dynemu.api.validation import RequestValidator
from dynemu.config import Settings
from dynemu.engine.database import Database
from dynemu.engine.namespaces import DEFAULT_REGION, Namespaces, check_access_key, check_region

log = logging.getLogger("dynemu")

MAX_BODY_BYTES = 16 * 1024 * 1024
DYNAMODB_PREFIX = "DynamoDB_20120810."
STREAMS_PREFIX = "DynamoDBStreams_20120810."
JSON_TYPES = ("application/x-amz-json-1.0", "application/json")
CORS_OFF = ("", "off", "none", "false", "no")


def cors_origins(setting: str | None) -> tuple[str, ...] | None:
    """The allowed CORS origins from --cors ("*" by default, as DynamoDB Local; "off": none)."""
    if setting is None or setting.strip().lower() in CORS_OFF:
        return None
    return tuple(o.strip() for o in setting.split(",") if o.strip())


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
        credentials: dict[str, str] | None = None,
    ):
        self.settings = settings
        self.metrics = metrics  # admin.RequestMetrics: counts and latency per operation
        self.namespaces = namespaces
        self.handlers = handlers  # target prefix -> operation -> handler
        self.validators = {
            DYNAMODB_PREFIX: RequestValidator.for_service("dynamodb"),
            STREAMS_PREFIX: RequestValidator.for_service("dynamodbstreams"),
        }
        self.cors = cors_origins(settings.cors)
        self.credentials = credentials  # None: signatures are not checked
        self.timeout = settings.request_timeout
        self._known_operations = frozenset().union(*(v.operations for v in self.validators.values()))

    # --- responses ------------------------------------------------------------------------------

    def cors_origin(self, request: web.Request) -> str | None:
        """The Access-Control-Allow-Origin value for this request (None: no CORS headers)."""
        # Only requests from a page carry Origin; others get no CORS headers (as DynamoDB
        # Local's CORS filter answers).
        if self.cors is None or "Origin" not in request.headers:
            return None
        if "*" in self.cors:
            return "*"
        origin = request.headers["Origin"]
        return origin if origin in self.cors else None

    def _respond(self, request: web.Request, status: int, body: bytes, content_type: str) -> web.Response:
        headers = {
            "Content-Type": content_type,
            "x-amzn-RequestId": _request_id(),
        }
        if len(body) >= compression.MIN_COMPRESS_BYTES and "Accept-Encoding" in request.headers:
            coding = compression.choose_coding(request.headers.getall("Accept-Encoding"))
            if coding is not None:
                body = compression.encode_body(body, coding)
                headers["Content-Encoding"] = coding
        headers["x-amz-crc32"] = str(zlib.crc32(body))  # of the bytes sent, as the service
        origin = self.cors_origin(request)
        if origin is not None:
            headers["Access-Control-Allow-Origin"] = origin
            headers["Access-Control-Expose-Headers"] = "x-amzn-RequestId,x-amz-crc32"
            if origin != "*":
                headers["Vary"] = "Origin"
        return web.Response(status=status, body=body, headers=headers)

    def _error(self, request: web.Request, err: errors.DynamoError, content_type: str) -> web.Response:
        body = err.body()
        message = body.pop("message", None)
        if message:
            # SerializationException bodies say "Message"; every other error "message".
            body["Message" if err.type_name == "SerializationException" else "message"] = message
        try:
            data = orjson.dumps(body)
        except TypeError:  # a message quoting undecodable header bytes (surrogate escapes)
            text = str(message).encode("utf-8", "surrogateescape").decode("utf-8", "replace")
            body["Message" if err.type_name == "SerializationException" else "message"] = text
            data = orjson.dumps(body)
        return self._respond(request, err.status, data, content_type)

    # --- the handler ------------------------------------------------------------------------------

    async def _read(self, request: web.Request) -> bytes | web.Response:
        """The raw body, read within --request-timeout: a stalled client is dropped (408 and
        the connection closed) while other connections carry on."""
        try:
            if request.content.is_eof():  # the whole body came with the headers: no timer
                return await request.read()
            async with asyncio.timeout(self.timeout):
                return await request.read()
        except web.HTTPRequestEntityTooLarge:
            return web.Response(status=413)
        except TimeoutError:
            log.info("dropped a client that sent no body within %ss", self.timeout)
            response = web.Response(status=408)
            response.force_close()
            return response

    async def handle(self, request: web.Request) -> web.StreamResponse:
        content_type = request.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        raw = await self._read(request)
        if isinstance(raw, web.Response):
            return raw
        if raw and content_type not in JSON_TYPES:
            return web.Response(status=404, body=b"<UnknownOperationException/>\n")
        reply_type = "application/json" if content_type == "application/json" else JSON_TYPES[0]
        started = perf_counter()
        try:
            result = self._dispatch(request, raw)
        except compression.TooLarge:  # over 16 MB, also once decompressed (a gzip bomb)
            self._observe(request, started, "RequestEntityTooLarge")
            return web.Response(status=413)
        except errors.DynamoError as err:
            self._observe(request, started, err.type_name)
            return self._error(request, err, reply_type)
        except Exception:  # a bug: log it, answer as the service answers its own failures
            log.exception("internal error handling %s", request.headers.get("X-Amz-Target"))
            self._observe(request, started, "InternalServerError")
            return self._error(request, errors.internal_server_error(), reply_type)
        self._observe(request, started, None)
        # None: an operation whose success has no body (TagResource, UntagResource)
        return self._respond(request, 200, orjson.dumps(result) if result is not None else b"", reply_type)

    def _observe(self, request: web.Request, started: float, error: str | None) -> None:
        if self.metrics is not None:
            operation = request.headers.get("X-Amz-Target", "").rpartition(".")[2]
            if operation not in self._known_operations:  # bound the label set
                operation = "unknown"
            self.metrics.observe(operation, perf_counter() - started, error)

    def _authenticate(self, request: web.Request, raw: bytes) -> tuple[str, str]:
        """(access key, region) of a request that carries an Authorization header, checked."""
        auth = request.headers.get("Authorization")
        if not auth:
            raise errors.missing_authentication_token()
        if self.credentials is not None:
            headers: dict[str, list[str]] = {}
            for name, value in request.headers.items():
                headers.setdefault(name.lower(), []).append(value)
            sigv4.verify(
                auth,
                method=request.method,
                path=request.rel_url.raw_path,
                query=request.rel_url.raw_query_string,
                headers=headers,
                body=raw,
                credentials=self.credentials,
            )
        access_key, region = parse_credential(auth)
        if "Credential=" in auth:
            check_access_key(access_key)
        return access_key, check_region(region)

    def _body(self, request: web.Request, raw: bytes) -> Any:
        """The JSON object of the request: decoded as Content-Encoding says, then parsed."""
        coding = request.headers.get("Content-Encoding")
        if coding:
            try:
                raw = compression.decode_body(raw, ",".join(request.headers.getall("Content-Encoding")), MAX_BODY_BYTES)
            except compression.BadEncoding:
                raise errors.serialization() from None
        if len(raw) > MAX_BODY_BYTES:
            raise compression.TooLarge()
        if not raw:
            raise errors.serialization()
        try:
            body = orjson.loads(raw)
        except orjson.JSONDecodeError:
            raise errors.serialization() from None
        return body

    def _dispatch(self, request: web.Request, raw: bytes) -> dict[str, Any]:
        access_key, region = self._authenticate(request, raw)
        body = self._body(request, raw)
        target = request.headers.get("X-Amz-Target", "")
        prefix, _, operation = target.rpartition(".")
        prefix += "."
        ops = self.handlers.get(prefix)
        validator = self.validators.get(prefix)
        if ops is None or validator is None or operation not in validator.operations:
            raise errors.unknown_operation()
        validator.validate(operation, body)  # a body that is not an object is refused here
        handler = ops.get(operation)
        if handler is None:
            raise errors.unknown_operation(f"dynemu does not implement {operation} yet")
        ctx = Context(
            self.namespaces.get(region, access_key),
            region,
            access_key,
            self.settings,
            request.host,
        )
        return handler(ctx, body)

    async def preflight(self, request: web.Request) -> web.Response:
        """CORS preflight (routed unless CORS is off)."""
        origin = self.cors_origin(request)
        if origin is None:
            return web.Response(status=403)
        headers = {"Access-Control-Allow-Origin": origin, "Access-Control-Max-Age": "172800"}
        if origin != "*":
            headers["Vary"] = "Origin"
        if "Access-Control-Request-Headers" in request.headers:
            headers["Access-Control-Allow-Headers"] = request.headers["Access-Control-Request-Headers"]
        if "Access-Control-Request-Method" in request.headers:
            headers["Access-Control-Allow-Methods"] = request.headers["Access-Control-Request-Method"]
        return web.Response(status=200, headers=headers)

    async def health(self, request: web.Request) -> web.Response:
        """``GET /``: the service answers ``healthy: <the Host the client used>``."""
        return web.Response(text=f"healthy: {request.host} ")
