"""What keeps a web page from driving the admin API (/_dynemu/...).

A browser sends some cross-origin requests without asking first (a ``text/plain`` POST, say),
and any page can make it do so. So, on every admin route:

* a request carrying an ``Origin`` header is refused (403) unless that origin is named by
  ``--cors`` (the default ``*`` opens the DynamoDB API to pages, never the admin API);
* a POST must say ``Content-Type: application/json`` (415 otherwise), which a page cannot
  send cross-origin without a preflight, and preflights are not answered here;
* with ``--admin-token T``, the request must carry ``Authorization: Bearer T`` or
  ``X-Dynemu-Admin-Token: T`` (401 otherwise).
"""

from __future__ import annotations

import hmac
from collections.abc import Awaitable, Callable

import orjson
from aiohttp import web

PREFIX = "/_dynemu/"
TOKEN_HEADER = "X-Dynemu-Admin-Token"
_Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _refuse(status: int, message: str) -> web.Response:
    return web.Response(status=status, body=orjson.dumps({"error": message}), content_type="application/json")


def admin_token(request: web.Request) -> str | None:
    auth = request.headers.get("Authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    return request.headers.get(TOKEN_HEADER)


def guard(allowed_origins: tuple[str, ...] | None, token: str | None) -> Callable[..., Awaitable[web.StreamResponse]]:
    explicit = tuple(o for o in allowed_origins or () if o != "*")

    @web.middleware
    async def middleware(request: web.Request, handler: _Handler) -> web.StreamResponse:
        if not request.path.startswith(PREFIX):
            return await handler(request)
        origin = request.headers.get("Origin")
        if origin is not None and origin not in explicit:
            return _refuse(403, f"the admin API refuses requests from web pages (Origin {origin!r}); "
                           "name the origin with --cors to allow it")
        if token is not None:
            given = admin_token(request)
            if given is None or not hmac.compare_digest(given.encode(), token.encode()):
                return _refuse(401, f"the admin API needs the token given by --admin-token "
                               f"(Authorization: Bearer ... or {TOKEN_HEADER})")
        if request.method not in ("GET", "HEAD"):
            content_type = request.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
            if content_type != "application/json":
                return _refuse(415, "admin API requests that change state must be Content-Type: application/json")
        return await handler(request)

    return middleware
