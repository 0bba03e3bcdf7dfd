"""CloudWatch's three wire protocols, on dynemu's port (botocore's cloudwatch model lists
``smithy-rpc-v2-cbor``, ``json`` and ``query``; the request is signed for ``monitoring``):

* RPC v2 CBOR: ``POST /service/GraniteServiceVersion20100801/operation/<Operation>``, a CBOR
  body (``Content-Type: application/cbor``), timestamps as CBOR tag 1 (epoch seconds);
* JSON 1.0: ``POST /`` with ``X-Amz-Target: GraniteServiceVersion20100801.<Operation>``,
  timestamps as epoch seconds (what boto3 1.44 sends by default);
* query: ``POST /`` with a form body (``Action=<Operation>&Version=2010-08-01&...``), lists
  as ``Name.member.N``, timestamps ISO 8601; the answer is XML
  (``<OperationResponse><OperationResult>...``).

Each is decoded into the same request object (timestamps as epoch seconds), checked against
the model by the request validator (the one DynamoDB's requests go through), handed to the
operation (api/operations/cloudwatch.py) and its answer rendered back in the request's
protocol. Errors: the model's types; JSON and CBOR carry ``x-amzn-query-error: <code>;Sender``
(the model is awsQueryCompatible), the query protocol an ``<ErrorResponse>`` with the code
(errors/cloudwatch.py). cbor2 is imported here only, on the first CBOR request.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any
from urllib.parse import parse_qsl
from xml.sax.saxutils import escape

import orjson

from dynemu import errors
from dynemu.api import compression, model_cache
from dynemu.api.protocol import CW_PREFIX, TOO_LARGE, Reply, Request, new_context, new_request_id
from dynemu.api.validation.validator import RequestValidator

log = logging.getLogger("dynemu")
SERVICE = "cloudwatch"
RPC_V2_PATH = "/service/GraniteServiceVersion20100801/operation/"
XML_NS = "http://monitoring.amazonaws.com/doc/2010-08-01/"
VERSION = "2010-08-01"
CBOR_TYPE = "application/cbor"
JSON_TYPE = "application/x-amz-json-1.0"
XML_TYPE = "text/xml"


class CloudWatchWire:
    """Answers CloudWatch's requests for one ApiDispatcher (its authentication, namespaces,
    handlers and response headers)."""

    def __init__(self, dispatcher: Any) -> None:
        self.dispatcher = dispatcher
        self.validator = RequestValidator.for_service(SERVICE)
        self.model = model_cache.service_model(SERVICE)
        self.handlers = dispatcher.handlers.get(CW_PREFIX, {})

    # --- the three entries -------------------------------------------------------------------------

    def handle(self, request: Request, protocol: str) -> Reply:
        """``protocol``: "json", "cbor" or "query"."""
        operation = ""
        try:
            access_key, region = self.dispatcher._authenticate(request, request.body)
            operation, body = self._decode(request, protocol)
            result = self._run(request, operation, body, access_key, region)
        except compression.TooLarge:  # over 16 MB, also once decompressed: as DynamoDB's requests
            return TOO_LARGE
        except errors.DynamoError as err:
            return self._error(request, protocol, err)
        except Exception:  # a bug: log it, answer as the service answers its own failures
            log.exception("internal error handling CloudWatch %s", operation)
            return self._error(request, protocol, errors.cw_internal())
        return self._render(request, protocol, operation, result)

    def _decode(self, request: Request, protocol: str) -> tuple[str, Any]:
        if protocol == "json":
            target = request.headers.get("x-amz-target") or ""
            return target.rpartition(".")[2], self.dispatcher._body(request, request.body)
        if protocol == "cbor":
            return request.path[len(RPC_V2_PATH) :], _cbor_body(request.body)
        form = dict(parse_qsl(request.body.decode("utf-8", "replace"), keep_blank_values=True))
        operation = form.pop("Action", "")
        form.pop("Version", None)
        if operation not in self.validator.operations:
            raise errors.unknown_operation()
        shape = self.model.operation_model(operation).input_shape
        return operation, _from_query(shape, form, "") if shape is not None else {}

    def _run(self, request: Request, operation: str, body: Any, access_key: str, region: str) -> Any:
        if operation not in self.validator.operations:
            raise errors.unknown_operation()
        handler = self.handlers.get(operation)
        if handler is None:
            self.validator.validate(operation, body)
            raise errors.unknown_operation(errors.MSG_NOT_IMPLEMENTED.format(operation=operation))
        self.validator.validate(operation, body)
        d = self.dispatcher
        ctx = new_context((d.namespaces.for_request(region, access_key), region, access_key, d.settings, request.host))
        return handler(ctx, body)

    # --- answers ---------------------------------------------------------------------------------------

    def _render(self, request: Request, protocol: str, operation: str, result: dict[str, Any]) -> Reply:
        shape = self.model.output_shape(operation)
        if protocol == "json":
            return self._respond(request, 200, orjson.dumps(result), JSON_TYPE)
        if protocol == "cbor":
            import cbor2

            data = cbor2.dumps(_timestamps(shape, result, _as_datetime) if shape is not None else result,
                               datetime_as_timestamp=True)  # fmt: skip
            reply = self._respond(request, 200, data, CBOR_TYPE)
            reply.headers.append(("smithy-protocol", "rpc-v2-cbor"))
            return reply
        inner = _to_xml(shape, result) if shape is not None else ""
        rid = new_request_id()
        xml = (
            f'<{operation}Response xmlns="{XML_NS}"><{operation}Result>{inner}</{operation}Result>'
            f"<ResponseMetadata><RequestId>{rid}</RequestId></ResponseMetadata></{operation}Response>"
        )
        return self._respond(request, 200, xml.encode(), XML_TYPE, rid)

    def _error(self, request: Request, protocol: str, err: errors.DynamoError) -> Reply:
        code = errors.CW_QUERY_CODES.get(err.type_name, err.type_name)
        fault = "Receiver" if err.status >= 500 else "Sender"
        if protocol == "query":
            rid = new_request_id()
            body = (
                f'<ErrorResponse xmlns="{XML_NS}"><Error><Type>{fault}</Type><Code>{escape(code)}</Code>'
                f"<Message>{escape(err.message)}</Message></Error><RequestId>{rid}</RequestId></ErrorResponse>"
            )
            return self._respond(request, err.status, body.encode(), XML_TYPE, rid)
        doc = {"__type": f"{err.namespace}#{err.type_name}", "message": err.message}
        if protocol == "cbor":
            import cbor2

            reply = self._respond(request, err.status, cbor2.dumps(doc), CBOR_TYPE)
            reply.headers.append(("smithy-protocol", "rpc-v2-cbor"))
        else:
            reply = self._respond(request, err.status, orjson.dumps(doc), JSON_TYPE)
        reply.headers.append(("x-amzn-query-error", f"{code};{fault}"))
        return reply

    def _respond(self, request: Request, status: int, body: bytes, content_type: str, rid: str | None = None) -> Reply:
        return self.dispatcher._respond(request, status, body, content_type, rid)  # type: ignore[no-any-return]


# --- decoding -----------------------------------------------------------------------------------------


def _cbor_body(raw: bytes) -> Any:
    import cbor2

    if not raw:
        return {}
    try:
        body = cbor2.loads(raw)
    except (cbor2.CBORDecodeError, ValueError, TypeError):
        raise errors.serialization() from None
    return _epochs(body)


def _epochs(v: Any) -> Any:
    """CBOR's decoded timestamps (tag 1: datetime) as epoch seconds, as JSON carries them."""
    if isinstance(v, datetime):
        return v.timestamp()
    if isinstance(v, dict):
        return {k: _epochs(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_epochs(x) for x in v]
    return v


def _from_query(shape: Any, form: dict[str, str], prefix: str) -> Any:
    """The query protocol's flattened parameters under ``prefix``, as the shape's value; a
    scalar that does not parse stays a string (the validator reports it)."""
    kind = shape.type_name
    if kind == "structure":
        out = {}
        for name, member in shape.members.items():
            key = f"{prefix}.{name}" if prefix else name
            if key in form or any(k.startswith(key + ".") for k in form):
                out[name] = _from_query(member, form, key)
        return out
    if kind == "list":
        items, n = [], 1
        while f"{prefix}.member.{n}" in form or any(k.startswith(f"{prefix}.member.{n}.") for k in form):
            items.append(_from_query(shape.member, form, f"{prefix}.member.{n}"))
            n += 1
        return items
    if kind == "map":
        out, n = {}, 1
        while f"{prefix}.entry.{n}.key" in form:
            out[form[f"{prefix}.entry.{n}.key"]] = _from_query(shape.value, form, f"{prefix}.entry.{n}.value")
            n += 1
        return out
    return _scalar(kind, form.get(prefix, ""))


def _scalar(kind: str, text: str) -> Any:
    try:
        if kind in ("integer", "long"):
            return int(text)
        if kind in ("double", "float"):
            return float(text)
        if kind == "boolean":
            return {"true": True, "false": False}[text]
        if kind == "timestamp":
            if "T" not in text:
                return float(text)
            d = datetime.fromisoformat(text.replace("Z", "+00:00"))
            return (d if d.tzinfo is not None else d.replace(tzinfo=UTC)).timestamp()
    except (ValueError, KeyError):
        return text
    return text


# --- rendering ------------------------------------------------------------------------------------------


def _as_datetime(t: float) -> datetime:
    return datetime.fromtimestamp(t, UTC)


def _timestamps(shape: Any, v: Any, convert: Any) -> Any:
    """``v`` with every timestamp member (by the shape) passed through ``convert``."""
    kind = shape.type_name
    if kind == "timestamp":
        return convert(v)
    if kind == "structure":
        members = shape.members
        return {k: _timestamps(members[k], x, convert) if k in members else x for k, x in v.items()}
    if kind == "list":
        return [_timestamps(shape.member, x, convert) for x in v]
    return v


def _iso(t: float) -> str:
    d = datetime.fromtimestamp(t, UTC)
    return d.strftime("%Y-%m-%dT%H:%M:%S") + (f".{d.microsecond // 1000:03d}Z" if d.microsecond else "Z")


def _to_xml(shape: Any, v: Any) -> str:
    kind = shape.type_name
    if kind == "structure":
        return "".join(f"<{k}>{_to_xml(shape.members[k], v[k])}</{k}>" for k in shape.members if v.get(k) is not None)
    if kind == "list":
        return "".join(f"<member>{_to_xml(shape.member, x)}</member>" for x in v)
    if kind == "map":
        return "".join(
            f"<entry><key>{escape(str(k))}</key><value>{_to_xml(shape.value, x)}</value></entry>" for k, x in v.items()
        )
    if kind == "timestamp":
        return _iso(v)
    if kind == "boolean":
        return "true" if v else "false"
    return escape(str(v))
