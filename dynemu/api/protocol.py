"""The DynamoDB JSON 1.0 wire protocol: dispatch on X-Amz-Target, bodies in and out, and the
one place where a DynamoError becomes an HTTP error response.

Transport-neutral: a ``Request`` (method, path, query, headers, host, the whole body) comes in
and a ``Reply`` (status, headers, body) goes out. The HTTP connections (``http.py``) call it,
and so do the aiohttp routes of ``admin_app.py`` (an application built without a listener).

Check order: content type -> Authorization present (MissingAuthenticationTokenException,
whatever the body) -> signature (only with --verify-signatures) and region -> content
coding -> JSON parse, an object (SerializationException) -> X-Amz-Target
(UnknownOperationException) -> request shape (validation) -> the operation's own checks.

CloudWatch's requests on the same port (a form body: the query protocol; an X-Amz-Target of
``GraniteServiceVersion20100801.``; the CBOR path, routed by ``http.py``) are answered by
``api/cloudwatch_wire.py`` with CloudWatch's error rendering, through this dispatcher's
authentication, validator machinery and response headers.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import logging
import os
import zlib
from collections.abc import Callable, Sequence
from time import perf_counter
from typing import TYPE_CHECKING, Any, NamedTuple

import orjson

from dynemu import errors
from dynemu.api import compression, sigv4
from dynemu.api.validation.validator import RequestValidator
from dynemu.cache import BoundedCache
from dynemu.config import Settings
from dynemu.engine.cloudwatch import user_errors
from dynemu.engine.namespaces import DEFAULT_REGION, Namespaces, check_access_key, check_region

if TYPE_CHECKING:
    from dynemu.engine.namespace import Namespace

log = logging.getLogger("dynemu")

MAX_BODY_BYTES = 16 * 1024 * 1024
DYNAMODB_PREFIX = "DynamoDB_20120810."
STREAMS_PREFIX = "DynamoDBStreams_20120810."
AAS_PREFIX = "AnyScaleFrontendService."  # Application Auto Scaling (api/operations/application_autoscaling.py), AWS JSON 1.1
CW_PREFIX = "GraniteServiceVersion20100801."  # CloudWatch (api/cloudwatch_wire.py): JSON 1.0, CBOR and query
FORM_TYPE = "application/x-www-form-urlencoded"  # the query protocol (CloudWatch's)
JSON_TYPES = ("application/x-amz-json-1.0", "application/json", "application/x-amz-json-1.1")
CORS_OFF = ("", "off", "none", "false", "no")
# The response headers a page's script may read (CORS), as the service exposes them: the
# request id and checksum the SDKs read, and the error headers of the AWS JSON protocols.
EXPOSED = "x-amzn-RequestId,x-amzn-ErrorType,x-amzn-ErrorMessage,Date,x-amz-crc32"


def cors_origins(setting: str | None) -> tuple[str, ...] | None:
    """The allowed CORS origins from --cors ("*" by default, as DynamoDB Local; "off": none)."""
    if setting is None or setting.strip().lower() in CORS_OFF:
        return None
    return tuple(o.strip() for o in setting.split(",") if o.strip())


class Headers(dict[str, str]):
    """A request's headers: each lower-case name's first value (``get``, ``in`` and ``[]``
    take lower-case names), and ``more``, the (lower-case name, value) of the headers whose
    name came before, in order (None when no name repeats)."""

    __slots__ = ("more",)

    def __init__(self, pairs: Sequence[tuple[str, str]]) -> None:
        super().__init__()
        more: list[tuple[str, str]] = []
        for name, value in pairs:
            lower = name.lower()
            if lower in self:
                more.append((lower, value))
            else:
                self[lower] = value
        self.more = more or None

    @property
    def repeated(self) -> bool:
        """Some name came more than once."""
        return self.more is not None

    @property
    def pairs(self) -> list[tuple[str, str]]:
        """Every (lower-case name, value): first values, then the repeated ones in order."""
        return list(self.items()) + (self.more or [])

    def getall(self, name: str) -> list[str]:
        lower = name.lower()
        value = self.get(lower)
        if value is None:
            return []
        if self.more is None:
            return [value]
        return [value, *(v for n, v in self.more if n == lower)]


# Empty Headers for a parser that fills them and sets ``more`` itself (without the cost of a
# Python __init__ on the hot path).
new_headers: Callable[[], Headers] = functools.partial(dict.__new__, Headers)  # type: ignore[assignment]


class Request(NamedTuple):
    """One HTTP request, whatever carried it."""

    method: str
    path: str  # raw, as sent
    query: str  # raw query string, without "?"
    headers: Headers
    host: str  # the Host header (host[:port] the client used)
    body: bytes


class Reply(NamedTuple):
    status: int
    headers: list[tuple[str, str]]  # Content-Type included; Content-Length is the transport's
    body: bytes


# Reply((status, headers, body)) without the Python-level __new__ of a NamedTuple.
new_reply: Callable[[tuple[int, list[tuple[str, str]], bytes]], Reply] = functools.partial(tuple.__new__, Reply)


class Context(NamedTuple):
    """What an operation handler knows about its request."""

    db: Namespace
    region: str
    access_key: str
    settings: Settings
    endpoint: str  # host[:port] the client used, for DescribeEndpoints


Handler = Callable[[Context, dict[str, Any]], dict[str, Any]]
# Request((method, ...)) and Context((db, ...)) on the request path, as new_reply.
new_request: Callable[[tuple[str, str, str, Headers, str, bytes]], Request] = functools.partial(tuple.__new__, Request)
new_context: Callable[[tuple[Namespace, str, str, Settings, str]], Context] = functools.partial(tuple.__new__, Context)

# Request ids: 52 characters, as DynamoDB's; unique per process without a random call.
_request_ids = itertools.count(1)
_RID_PREFIX = os.urandom(20).hex().upper()
CACHE_SIZE = 256
NOT_JSON = Reply(404, [("Content-Type", "application/octet-stream")], b"<UnknownOperationException/>\n")
TOO_LARGE = Reply(413, [], b"")


def new_request_id() -> str:
    return f"{_RID_PREFIX}{next(_request_ids):012X}"


def credential_scope(auth: str) -> str | None:
    """The text after ``Credential=`` in a SigV4 Authorization header, up to the next comma
    (``AKID/date/region/service/aws4_request``); None when there is none."""
    i = auth.find("Credential=")
    if i < 0:
        return None
    j = auth.find(",", i)
    return auth[i + 11 : j] if j >= 0 else auth[i + 11 :]


def scope_identity(scope: str | None) -> tuple[str, str]:
    """(access key id, region) of a credential scope (``credential_scope``)."""
    if scope is None:
        return "", DEFAULT_REGION
    parts = scope.strip().split("/")
    return parts[0], parts[2] if len(parts) > 2 and parts[2] else DEFAULT_REGION


def parse_credential(auth: str) -> tuple[str, str]:
    """(access key id, region) from a SigV4 Authorization header's credential scope."""
    return scope_identity(credential_scope(auth))


class ApiDispatcher:
    """Dispatches a DynamoDB API request (``POST /``) to its operation and renders the answer;
    also answers the health check and CORS preflight. One instance per Service."""

    def __init__(
        self,
        settings: Settings,
        namespaces: Namespaces,
        handlers: dict[str, dict[str, Handler]],
        metrics: Any = None,
        credentials: dict[str, str] | None = None,
    ):
        self.settings = settings
        self.metrics = metrics  # metrics.RequestMetrics: counts and latency per operation
        self.namespaces = namespaces
        self.handlers = handlers  # target prefix -> operation -> handler
        self.validators = {
            DYNAMODB_PREFIX: RequestValidator.for_service("dynamodb"),
            STREAMS_PREFIX: RequestValidator.for_service("dynamodbstreams"),
            AAS_PREFIX: RequestValidator.for_service("application-autoscaling"),
        }
        self.cors = cors_origins(settings.cors)
        self.credentials = credentials  # None: signatures are not checked
        self.timeout = settings.request_timeout
        self._cloudwatch: Any = None  # api/cloudwatch_wire.CloudWatchWire, made on the first CloudWatch request
        self._known_operations = frozenset().union(*(v.operations for v in self.validators.values()))
        self._labels: dict[str, str] = {}  # X-Amz-Target -> its operation's metrics label
        # Credential scopes already parsed and checked: (access key, region) by the text after
        # "Credential=" up to the next comma, which is all the answer depends on. Only checks
        # that passed are kept.
        self._scopes: BoundedCache[tuple[str, str]] = BoundedCache(CACHE_SIZE)
        # X-Amz-Target -> (the operation's compiled request check, operation, handler), filled
        # as targets that name an implemented operation come: bounded by the models'
        # operations, so a plain dict.
        self._routes: dict[str, tuple[Callable[[object], None], str, Handler]] = {}
        self.request_log: Any = None
        if settings.log_requests is not None:  # off: ``handle`` is the method itself, nothing checked
            from dynemu.api.request_log import RequestLog

            self.request_log = RequestLog(settings.log_requests, namespaces, parse_credential)
            self.handle = self.request_log.wrap(self.handle)  # type: ignore[method-assign]

    # --- responses ------------------------------------------------------------------------------

    def cors_origin(self, headers: Headers) -> str | None:
        """The Access-Control-Allow-Origin value for this request (None: no CORS headers)."""
        # Only requests from a page carry Origin; others get no CORS headers (as DynamoDB
        # Local's CORS filter answers).
        if self.cors is None:
            return None
        origin = headers.get("origin")
        if origin is None:
            return None
        if "*" in self.cors:
            return "*"
        return origin if origin in self.cors else None

    def _respond(self, request: Request, status: int, body: bytes, content_type: str, rid: str | None = None) -> Reply:
        asked = request.headers
        headers = [("Content-Type", content_type), ("x-amzn-RequestId", rid or new_request_id())]
        if len(body) > compression.MIN_COMPRESS_BYTES and "accept-encoding" in asked:
            coding = compression.choose_coding_of(asked.get("accept-encoding"))  # the first header only
            if coding is not None:
                body = compression.encode_body(body, coding)
                headers.append(("Content-Encoding", coding))
        headers.append(("x-amz-crc32", str(zlib.crc32(body))))  # of the bytes sent, as the service
        origin = self.cors_origin(asked) if self.cors is not None and "origin" in asked else None
        if origin is not None:
            headers.append(("Access-Control-Allow-Origin", origin))
            headers.append(("Access-Control-Expose-Headers", EXPOSED))
            if origin != "*":
                headers.append(("Vary", "Origin"))
        return new_reply((status, headers, body))

    def _error(self, request: Request, err: errors.DynamoError, content_type: str) -> Reply:
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

    def handle(self, request: Request) -> Reply:
        """``POST /``: one DynamoDB (or DynamoDB Streams) call, its whole body read."""
        headers = request.headers
        content_type = headers.get("content-type")
        if content_type != JSON_TYPES[0]:  # what the SDKs send needs no normalising
            content_type = (content_type or "").split(";", 1)[0].strip().lower()
        raw = request.body
        if content_type == FORM_TYPE:
            return self.cloudwatch(request, "query")
        if raw and content_type not in JSON_TYPES:
            return NOT_JSON
        target = headers.get("x-amz-target")
        if target is not None and target.startswith(CW_PREFIX):
            return self.cloudwatch(request, "json")
        reply_type = content_type if content_type in JSON_TYPES[1:] else JSON_TYPES[0]
        started = perf_counter()
        try:
            result = self._dispatch(request, raw)
        except compression.TooLarge:  # over 16 MB, also once decompressed (a gzip bomb)
            self._observe(headers, started, "RequestEntityTooLarge")
            return TOO_LARGE
        except errors.DynamoError as err:
            self._observe(headers, started, err.type_name)
            if user_errors.counted(err.type_name, err.status):
                self._user_error(request)
            return self._error(request, err, reply_type)
        except Exception:  # a bug: log it, answer as the service answers its own failures
            log.exception("internal error handling %s", headers.get("x-amz-target"))
            self._observe(headers, started, "InternalServerError")
            return self._error(request, errors.internal_server_error(), reply_type)
        if self.metrics is not None:
            self._observe(headers, started, None)
        # None: an operation whose success has no body (TagResource, UntagResource)
        return self._respond(request, 200, orjson.dumps(result) if result is not None else b"", reply_type)

    def cloudwatch(self, request: Request, protocol: str) -> Reply:
        """A CloudWatch request (api/cloudwatch_wire.py, imported on the first one): ``protocol``
        "json", "cbor" (``POST /service/GraniteServiceVersion20100801/operation/<Op>``) or "query"."""
        if self._cloudwatch is None:  # by name, as the registry loads operations: the wire imports this module
            self._cloudwatch = importlib.import_module("dynemu.api.cloudwatch_wire").CloudWatchWire(self)
        return self._cloudwatch.handle(request, protocol)  # type: ignore[no-any-return]

    def rpc_v2(self, request: Request) -> Reply:
        return self.cloudwatch(request, "cbor")

    def _user_error(self, request: Request) -> None:
        """Count one of UserErrors' answers in the namespace its credential scope names (a
        request whose signature failed too: "an incorrect request signature" is one of the
        metric's examples), unless it names none (no Authorization header, or a scope
        refused). The signature is not verified again."""
        auth = request.headers.get("authorization")
        if not auth:
            return
        try:
            access_key, region = self._identity(auth)
        except errors.DynamoError:
            return
        self.namespaces.user_error(region, access_key)

    def _observe(self, headers: Headers, started: float, error: str | None) -> None:
        """Count the request and its latency per operation (and error), when metrics are on."""
        if self.metrics is not None:
            target = headers.get("x-amz-target") or ""
            operation = self._labels.get(target)
            if operation is None:
                operation = target.rpartition(".")[2]
                if operation not in self._known_operations:  # bound the label set
                    operation = "unknown"
                elif len(self._labels) < 4 * len(self._known_operations):  # four prefixes at most
                    self._labels[target] = operation
            self.metrics.observe(operation, perf_counter() - started, error)

    def _authenticate(self, request: Request, raw: bytes) -> tuple[str, str]:
        """(access key, region) of a request that carries an Authorization header, checked."""
        auth = request.headers.get("authorization")
        if not auth:
            raise errors.missing_authentication_token()
        if self.credentials is not None:
            headers: dict[str, list[str]] = {}
            for name, value in request.headers.pairs:
                headers.setdefault(name.lower(), []).append(value)
            sigv4.verify(
                auth,
                method=request.method,
                path=request.path,
                query=request.query,
                headers=headers,
                body=raw,
                credentials=self.credentials,
            )
        return self._identity(auth)

    def _identity(self, auth: str) -> tuple[str, str]:
        """(access key, region) that an Authorization header's credential scope names (its
        signature not checked here)."""
        scope = credential_scope(auth)
        if scope is None:
            return "", check_region(DEFAULT_REGION)
        known = self._scopes.get(scope)
        if known is not None:
            return known
        access_key, region = scope_identity(scope)
        known = check_access_key(access_key), check_region(region)
        self._scopes.put(scope, known)
        return known

    def _body(self, request: Request, raw: bytes) -> Any:
        """The JSON object of the request: decoded as Content-Encoding says, then parsed."""
        if request.headers.get("content-encoding"):
            try:
                coding = ",".join(request.headers.getall("content-encoding"))
                raw = compression.decode_body(raw, coding, MAX_BODY_BYTES)
            except compression.BadEncoding:
                # A body that is not in the coding it claims: the service fails it as its own
                # error (500), and nothing of the request is applied.
                raise errors.internal_server_error() from None
            except compression.UnsupportedCoding:
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

    def _dispatch(self, request: Request, raw: bytes) -> dict[str, Any]:
        access_key, region = self._authenticate(request, raw)
        body = self._body(request, raw)
        target = request.headers.get("x-amz-target") or ""
        route = self._routes.get(target)
        if route is None:
            route = self._route(target, body)
        check, operation, handler = route
        check(body)  # a body that is not an object is refused here
        ctx = new_context((self.namespaces.for_request(region, access_key), region, access_key, self.settings, request.host))
        if self.credentials is not None:  # an explicit Deny of a resource-based policy
            from dynemu.engine import resource_policies  # imported with --verify-signatures only

            resource_policies.enforce(ctx.db, access_key, operation, body)
        return handler(ctx, body)

    def _route(self, target: str, body: Any) -> tuple[Callable[[object], None], str, Handler]:
        """What X-Amz-Target names, or its error (an unimplemented operation's after its
        request's validation, as before the route was cached)."""
        prefix, _, operation = target.rpartition(".")
        prefix += "."
        ops = self.handlers.get(prefix)
        validator = self.validators.get(prefix)
        if ops is None or validator is None or operation not in validator.operations:
            raise errors.unknown_operation()
        handler = ops.get(operation)
        if handler is None:
            validator.validate(operation, body)
            raise errors.unknown_operation(errors.MSG_NOT_IMPLEMENTED.format(operation=operation))
        route = (validator.validator(operation), operation, handler)
        self._routes[target] = route
        return route

    def preflight(self, request: Request) -> Reply:
        """CORS preflight (``OPTIONS /``, answered unless CORS is off)."""
        origin = self.cors_origin(request.headers)
        if origin is None:
            return Reply(403, [], b"")
        # the exposed headers on every answer to a request with an Origin, the preflight too;
        # Max-Age on the preflight only (issue 44)
        headers = [("Access-Control-Allow-Origin", origin), ("Access-Control-Expose-Headers", EXPOSED),
                   ("Access-Control-Max-Age", "172800")]
        if origin != "*":
            headers.append(("Vary", "Origin"))
        asked = request.headers.get("access-control-request-headers")
        if asked is not None:
            headers.append(("Access-Control-Allow-Headers", asked))
        asked = request.headers.get("access-control-request-method")
        if asked is not None:
            headers.append(("Access-Control-Allow-Methods", asked))
        return Reply(200, headers, b"")

    def health(self, request: Request) -> Reply:
        """``GET /``: the service answers ``healthy: <the Host the client used>``."""
        body = f"healthy: {request.host} ".encode("utf-8", "surrogateescape")
        return Reply(200, [("Content-Type", "text/plain; charset=utf-8")], body)
