"""What keeps a web page from driving the admin API (/_dynemu/...).

A browser sends some cross-origin requests without asking first (a ``text/plain`` POST, say),
and any page can make it do so. So, on every admin route:

* a request carrying an ``Origin`` header is refused (403) unless that origin is named by
  ``--cors`` (the default ``*`` opens the DynamoDB API to pages, never the admin API), or is
  dynemu's own origin reached by an IP address or ``localhost`` (the dashboard's own page; a
  DNS name is not trusted, since a rebinding attack makes any page look same-origin);
* a POST must say ``Content-Type: application/json`` (415 otherwise), which a page cannot
  send cross-origin without a preflight, and preflights are not answered here;
* with ``--admin-token T``, a state change must carry ``Authorization: Bearer T`` or
  ``X-Dynemu-Admin-Token: T`` (401 otherwise); reads stay open, as the DynamoDB API on the same
  port is, so a browser can open the dashboard.
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from aiohttp import web

from dynemu import errors

TOKEN_HEADER = "X-Dynemu-Admin-Token"
_Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def _refuse(status: int, message: str) -> web.Response:
    return web.Response(status=status, body=orjson.dumps({"error": message}), content_type="application/json")


def admin_token(request: web.Request) -> str | None:
    auth = request.headers.get("Authorization", "")
    if auth[:7].lower() == "bearer ":
        return auth[7:].strip()
    return request.headers.get(TOKEN_HEADER)


def _own_origin(request: web.Request, origin: str) -> bool:
    """``origin`` is the server's own, reached by an IP literal or localhost."""
    host = request.host
    if origin != f"{request.scheme}://{host}":
        return False
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    name = name.strip("[]")
    if name == "localhost":
        return True
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def checker(allowed_origins: tuple[str, ...] | None, token: str | None) -> Callable[[web.Request], web.Response | None]:
    """The refusal (a response) for an admin request a page could have forged, else None."""
    explicit = tuple(o for o in allowed_origins or () if o != "*")

    def check(request: web.Request) -> web.Response | None:
        origin = request.headers.get("Origin")
        if origin is not None and origin not in explicit and not _own_origin(request, origin):
            return _refuse(403, errors.MSG_ADMIN_FROM_PAGE.format(origin=origin))
        reads = request.method in ("GET", "HEAD")
        if token is not None and not reads:
            given = admin_token(request)
            if given is None or not hmac.compare_digest(given.encode(), token.encode()):
                return _refuse(401, errors.MSG_ADMIN_TOKEN.format(header=TOKEN_HEADER))
        if not reads:
            content_type = request.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
            if content_type != "application/json":
                return _refuse(415, errors.MSG_ADMIN_NOT_JSON)
        return None

    return check


class _Router:
    """Adds routes to the real router with every handler behind the check."""

    def __init__(self, router: web.UrlDispatcher, check: Callable[[web.Request], web.Response | None]) -> None:
        self._router = router
        self._check = check

    def _wrap(self, handler: _Handler) -> _Handler:
        check = self._check

        async def guarded(request: web.Request) -> web.StreamResponse:
            refusal = check(request)
            return refusal if refusal is not None else await handler(request)

        return guarded

    def add_route(self, method: str, path: str, handler: _Handler, **kwargs: Any) -> Any:
        return self._router.add_route(method, path, self._wrap(handler), **kwargs)

    def add_get(self, path: str, handler: _Handler, **kwargs: Any) -> Any:
        return self._router.add_get(path, self._wrap(handler), **kwargs)

    def add_post(self, path: str, handler: _Handler, **kwargs: Any) -> Any:
        return self._router.add_post(path, self._wrap(handler), **kwargs)

    def add_put(self, path: str, handler: _Handler, **kwargs: Any) -> Any:
        return self._router.add_put(path, self._wrap(handler), **kwargs)

    def add_delete(self, path: str, handler: _Handler, **kwargs: Any) -> Any:
        return self._router.add_delete(path, self._wrap(handler), **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._router, name)


class GuardedApp:
    """The application as admin modules see it: ``routes(app)`` adds guarded routes. The
    check runs only on admin routes (a global middleware would cost every request)."""

    def __init__(self, app: web.Application, check: Callable[[web.Request], web.Response | None]) -> None:
        self._app = app
        self.router = _Router(app.router, check)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._app, name)

    def __getitem__(self, key: Any) -> Any:
        return self._app[key]

    def __setitem__(self, key: Any, value: Any) -> None:
        self._app[key] = value
