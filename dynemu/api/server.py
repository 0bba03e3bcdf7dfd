"""The aiohttp application: routes, start-up and shutdown."""

from __future__ import annotations

from aiohttp import web

from dynemu.api import admin_guard, sigv4
from dynemu.api.admin import Admin, RequestMetrics
from dynemu.api.operations import registry
from dynemu.api.operations import ttl as ttl_operations
from dynemu.api.protocol import MAX_BODY_BYTES, Protocol
from dynemu.config import Settings
from dynemu.engine.capacity.throughput import CapacityConfig
from dynemu.engine.clock import make_clock
from dynemu.engine.consistency import ConsistencyConfig
from dynemu.engine.namespaces import Namespaces

NAMESPACES = web.AppKey("namespaces", Namespaces)
PROTOCOL = web.AppKey("protocol", Protocol)


def create_app(settings: Settings) -> web.Application:
    # A little above 16 MB so that the protocol itself answers 413 for larger bodies.
    # Request bodies are decoded by the protocol (unknown codings refused, signatures over the
    # bytes sent), not by aiohttp.
    app = web.Application(
        client_max_size=MAX_BODY_BYTES + 1,
        handler_args={"auto_decompress": False},
    )
    namespaces = Namespaces(
        data_dir=None if settings.in_memory else settings.data_dir,
        clock=make_clock(settings.clock, settings.time_scale),
        capacity=CapacityConfig(
            model=settings.capacity_model,
            throttling=settings.throttling,
            partition_size=settings.partition_size,
        ),
        consistency=ConsistencyConfig.from_settings(settings),
        shared_db=settings.shared_db,
        isolate_access_keys=settings.isolate_access_keys,
        max_open=settings.max_open_namespaces,
        store=settings.store,
        item_collection_limit=settings.item_collection_limit,
        leveldb_open_files=settings.leveldb_open_files,
    )
    metrics = RequestMetrics()
    credentials = sigv4.credentials_for(settings.credentials_file) if settings.verify_signatures else None
    protocol = Protocol(settings, namespaces, registry.handlers(), metrics, credentials)
    app[NAMESPACES] = namespaces
    app[PROTOCOL] = protocol
    app.router.add_post("/", protocol.handle)
    app.router.add_get("/", protocol.health)
    # Admin routes (and any other /_dynemu/ ones) are added through the guard: no Origin
    # unless named by --cors, JSON-only state changes, --admin-token (admin_guard.py).
    admin_app = admin_guard.GuardedApp(app, admin_guard.checker(protocol.cors, settings.admin_token))
    Admin(namespaces, metrics).routes(admin_app)  # type: ignore[arg-type]
    if protocol.cors is not None:
        app.router.add_route("OPTIONS", "/", protocol.preflight)

    async def close_namespaces(app: web.Application) -> None:
        app[NAMESPACES].close()

    app.on_cleanup.append(close_namespaces)
    # TTL sweeps and stream retention: on every advance of a virtual clock, else every
    # --ttl-interval seconds of clock time.
    app.cleanup_ctx.append(ttl_operations.background(namespaces, settings.ttl_interval))
    return app
