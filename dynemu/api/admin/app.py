"""The aiohttp application: the admin API and dashboard under /_dynemu/, and the
dispatcher's routes.

The HTTP connections (``http.py``) answer the DynamoDB API themselves and pass every other
request to this application, built the first time one is needed; ``create_app(settings)``
alone (no service given) is also a complete server for ``web.run_app``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Awaitable, Callable

from aiohttp import web

from dynemu.api.admin import global_tables as global_tables_admin
from dynemu.api.admin import guard as admin_guard
from dynemu.api.admin import state as state_admin
from dynemu.api.admin.api import Admin
from dynemu.api.protocol import MAX_BODY_BYTES, ApiDispatcher, Headers, Reply, Request
from dynemu.api.service import Service
from dynemu.config import Settings
from dynemu.engine.namespaces import Namespaces, OpenPending

log = logging.getLogger("dynemu")

NAMESPACES = web.AppKey("namespaces", Namespaces)
DISPATCHER = web.AppKey("dispatcher", ApiDispatcher)


def create_app(settings: Settings, service: Service | None = None) -> web.Application:
    """The application over ``service``; without one, over a new service that the
    application starts and closes itself (its startup and cleanup)."""
    # A little above 16 MB so that the dispatcher itself answers 413 for larger bodies.
    # Request bodies are decoded by the dispatcher (unknown codings refused, signatures over the
    # bytes sent), not by aiohttp.
    app = web.Application(
        client_max_size=MAX_BODY_BYTES + 1,
        handler_args={"auto_decompress": False},
    )
    owned = service is None
    if service is None:
        service = Service(settings)
    dispatcher = service.dispatcher
    app[NAMESPACES] = service.namespaces
    app[DISPATCHER] = dispatcher
    app.router.add_post("/", _route(dispatcher, dispatcher.handle, read_body=True))
    app.router.add_get("/", _route(dispatcher, dispatcher.health))
    # Admin routes (and any other /_dynemu/ ones) are added through the guard: no Origin
    # unless named by --cors, JSON-only state changes, --admin-token (admin_guard.py).
    admin_app = admin_guard.GuardedApp(app, admin_guard.checker(dispatcher.cors, settings.admin_token))
    Admin(service.namespaces, service.metrics).routes(admin_app)  # type: ignore[arg-type]
    global_tables_admin.routes(admin_app, service.namespaces)  # type: ignore[arg-type]
    state_admin.routes(admin_app, lambda: service.state)  # reset, snapshots (state.py)
    if dispatcher.cors is not None:
        app.router.add_route("OPTIONS", "/", _route(dispatcher, dispatcher.preflight))
    if owned:
        app.cleanup_ctx.append(_lifecycle(service))
    return app


def _lifecycle(service: Service) -> Callable[[web.Application], AsyncIterator[None]]:
    async def lifecycle(app: web.Application) -> AsyncIterator[None]:
        await service.start()
        yield
        await service.close()

    return lifecycle


def _route(
    dispatcher: ApiDispatcher, answer: Callable[[Request], Reply], read_body: bool = False
) -> Callable[[web.Request], Awaitable[web.Response]]:
    """An aiohttp handler over one of the dispatcher's answers."""

    async def handler(request: web.Request) -> web.Response:
        raw = b""
        if read_body:
            got = await _read(request, dispatcher.timeout)
            if isinstance(got, web.Response):
                return got
            raw = got
        neutral = Request(
            request.method,
            request.rel_url.raw_path,
            request.rel_url.raw_query_string,
            Headers(list(request.headers.items())),
            request.host,
            raw,
        )
        while True:
            try:
                status, headers, body = answer(neutral)
                break
            except OpenPending as opening:  # its namespace opens off the loop: asked again after
                await asyncio.wait([asyncio.wrap_future(opening.future)])
        return web.Response(status=status, body=body or None, headers=headers)

    return handler


async def _read(request: web.Request, timeout: float) -> bytes | web.Response:
    """The raw body, read within --request-timeout: a stalled client is dropped (408 and
    the connection closed) while other connections carry on."""
    try:
        if request.content.is_eof():  # the whole body came with the headers: no timer
            return await request.read()
        async with asyncio.timeout(timeout):
            return await request.read()
    except web.HTTPRequestEntityTooLarge:
        return web.Response(status=413)
    except TimeoutError:
        log.info("dropped a client that sent no body within %ss", timeout)
        response = web.Response(status=408)
        response.force_close()
        return response
