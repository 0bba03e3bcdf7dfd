"""Opt-in AWS Signature Version 4 verification (``--verify-signatures``), as DynamoDB checks it.

Off by default: a local server takes any credentials. When on, the Authorization header must
name a known access key, be signed for a date within 15 minutes of now, and carry the
signature the secret gives for this request. Errors and messages as the service answers
(the messages are in the catalogue of ``dynemu.errors``).
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import time
from collections.abc import Mapping
from datetime import UTC, datetime
from urllib.parse import quote, unquote

from dynemu import errors
from dynemu.config import SettingsError
from dynemu.errors import CORAL_NS, DynamoError

ALGORITHM = "AWS4-HMAC-SHA256"
MAX_SKEW_SECONDS = 15 * 60
_DATE = re.compile(r"\d{8}T\d{6}Z")


def _error(type_name: str, message: str) -> DynamoError:
    return DynamoError(type_name, message, namespace=CORAL_NS)


def load_credentials(path: str | None, environ: Mapping[str, str]) -> dict[str, str]:
    """Access key id -> secret, from an AWS credentials file (any profile) or ``KEY:SECRET``
    lines, and from AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY."""
    creds: dict[str, str] = {}
    if path:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if "aws_access_key_id" in text:
            import configparser  # only with --credentials-file: not on the start-up path

            parser = configparser.ConfigParser(interpolation=None)
            parser.read_string(text)
            for section in parser.sections():
                key = parser.get(section, "aws_access_key_id", fallback=None)
                secret = parser.get(section, "aws_secret_access_key", fallback=None)
                if key and secret:
                    creds[key.strip()] = secret.strip()
        else:
            for line in text.splitlines():
                line = line.strip()
                if line and not line.startswith("#"):
                    key, sep, secret = line.partition(":")
                    if sep and key.strip() and secret.strip():
                        creds[key.strip()] = secret.strip()
    key, secret = environ.get("AWS_ACCESS_KEY_ID"), environ.get("AWS_SECRET_ACCESS_KEY")
    if key and secret:
        creds[key] = secret
    return creds


def _parse(auth: str) -> dict[str, str]:
    params: dict[str, str] = {}
    _, _, rest = auth.strip().partition(" ")
    for part in rest.split(","):
        name, _, value = part.strip().partition("=")
        if name:
            params[name.strip()] = value.strip()
    return params


def _fmt(t: float) -> str:
    return datetime.fromtimestamp(t, UTC).strftime("%Y%m%dT%H%M%SZ")


def _check_date(amz_date: str, now: float) -> None:
    signed = datetime.strptime(amz_date, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC).timestamp()
    if signed < now - MAX_SKEW_SECONDS:
        earliest = _fmt(now - MAX_SKEW_SECONDS)
        message = errors.MSG_SIGNATURE_EXPIRED.format(signed=amz_date, earliest=earliest, now=_fmt(now))
        raise _error("InvalidSignatureException", message)
    if signed > now + MAX_SKEW_SECONDS:
        latest = _fmt(now + MAX_SKEW_SECONDS)
        message = errors.MSG_SIGNATURE_NOT_YET_CURRENT.format(signed=amz_date, latest=latest, now=_fmt(now))
        raise _error("InvalidSignatureException", message)


def _canonical_query(query: str) -> str:
    pairs = []
    for part in query.split("&") if query else ():
        name, _, value = part.partition("=")
        pairs.append((quote(unquote(name), safe="-_.~"), quote(unquote(value), safe="-_.~")))
    return "&".join(f"{n}={v}" for n, v in sorted(pairs))


def canonical_request(
    method: str, path: str, query: str, headers: Mapping[str, list[str]], signed: list[str], payload_hash: str
) -> str:
    lines = []
    for name in signed:
        values = headers.get(name, [])
        lines.append(f"{name}:{','.join(' '.join(v.split()) for v in values)}\n")
    uri = quote(unquote(path) or "/", safe="/-_.~")
    return "\n".join([method, uri, _canonical_query(query), "".join(lines), ";".join(signed), payload_hash])


def _signing_key(secret: str, date: str, region: str, service: str) -> bytes:
    key = ("AWS4" + secret).encode()
    for part in (date, region, service, "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    return key


def verify(
    auth: str,
    *,
    method: str,
    path: str,
    query: str,
    headers: Mapping[str, list[str]],
    body: bytes,
    credentials: Mapping[str, str],
    now: float | None = None,
) -> None:
    """Raise DynamoDB's error unless ``auth`` is a valid SigV4 signature of the request.
    ``headers`` maps lower-case names to every value sent."""
    now = time.time() if now is None else now
    params = _parse(auth)
    amz_date = (headers.get("x-amz-date") or headers.get("date") or [""])[0]
    missing = "".join(
        errors.MSG_AUTH_PARAMETER_MISSING.format(parameter=p)
        for p in ("Credential", "Signature", "SignedHeaders")
        if not params.get(p)
    )
    if not amz_date:
        missing += errors.MSG_AUTH_DATE_MISSING
    if missing:
        raise _error("IncompleteSignatureException", errors.MSG_AUTH_INCOMPLETE.format(missing=missing, authorization=auth))
    if not _DATE.fullmatch(amz_date):
        raise _error("IncompleteSignatureException", errors.MSG_AUTH_DATE_FORMAT.format(date=amz_date))
    _check_date(amz_date, now)
    algorithm = auth.strip().partition(" ")[0]
    if algorithm != ALGORITHM:
        raise _error("IncompleteSignatureException", errors.MSG_AUTH_ALGORITHM.format(algorithm=algorithm))
    scope = params["Credential"].rstrip("/").split("/")
    if len(scope) != 5:
        message = errors.MSG_AUTH_CREDENTIAL_FORMAT.format(credential=params["Credential"])
        raise _error("IncompleteSignatureException", message)
    key_id, date, region, service, _term = scope
    secret = credentials.get(key_id)
    if secret is None:
        raise _error("UnrecognizedClientException", errors.MSG_UNKNOWN_ACCESS_KEY)
    signed = params["SignedHeaders"].lower().split(";")
    payload_hash = (headers.get("x-amz-content-sha256") or [hashlib.sha256(body).hexdigest()])[0]
    canonical = canonical_request(method, path, query, headers, signed, payload_hash)
    string_to_sign = "\n".join(
        [ALGORITHM, amz_date, "/".join(scope[1:]), hashlib.sha256(canonical.encode()).hexdigest()]
    )
    expected = hmac.new(_signing_key(secret, date, region, service), string_to_sign.encode(), hashlib.sha256)
    if not hmac.compare_digest(expected.hexdigest(), params["Signature"]):
        raise _error("InvalidSignatureException", errors.MSG_SIGNATURE_MISMATCH)


def credentials_for(settings_path: str | None, environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The credentials --verify-signatures checks against; SettingsError (a ValueError) when
    there are none: the command line reports it and exits."""
    creds = load_credentials(settings_path, os.environ if environ is None else environ)
    if not creds:
        raise SettingsError(errors.MSG_NO_CREDENTIALS)
    return creds
