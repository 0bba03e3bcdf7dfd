"""State control over HTTP (engine/state.py): reset, snapshots, restores.

    POST   /_dynemu/reset                        drop every table, backup, stream and setting
    GET    /_dynemu/snapshots                    {"snapshots": [{"name", "scope", "namespaces", "created"}]}
    POST   /_dynemu/snapshots  {"name": N}       save the state as snapshot N (replacing one so named)
    POST   /_dynemu/snapshots/N/restore          put it back: later writes leave no trace
    DELETE /_dynemu/snapshots/N                  forget it

Every namespace, or one: ``?region=`` (with ``?access_key=`` where access keys are isolated)
names the namespace a request of that region reaches, ``?namespace=`` one by its name. A
snapshot of one namespace restores that namespace. The routes are guarded like every admin
state change (guard.py: ``--admin-token``, JSON bodies).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import orjson
from aiohttp import web

from dynemu import errors
from dynemu.engine.state import StateControl, StateError


def _json(data: Any, status: int = 200) -> web.Response:
    return web.Response(status=status, body=orjson.dumps(data), content_type="application/json")


def _scope(control: StateControl, request: web.Request) -> str | None:
    """The namespace the query names, or None: every namespace."""
    q = request.query
    if "namespace" in q:
        name = q["namespace"]
        if name not in control.namespaces.databases and name not in control.namespaces.on_disk():
            raise StateError(errors.MSG_ADMIN_NO_NAMESPACE.format(name=name), 404)
        return name
    if "region" in q or "access_key" in q:
        try:
            return control.namespaces.name_of(q.get("region", "us-east-1"), q.get("access_key", ""))
        except errors.DynamoError as e:
            raise StateError(e.message) from None
    return None


def _handler(action: Callable[[web.Request], Awaitable[Any]]) -> Callable[[web.Request], Awaitable[web.Response]]:
    async def handle(request: web.Request) -> web.Response:
        try:
            return _json(await action(request))
        except StateError as e:
            return _json({"error": e.message}, e.status)

    return handle


def routes(app: Any, get_control: Callable[[], StateControl]) -> None:
    async def reset(request: web.Request) -> Any:
        control = get_control()
        return {"reset": control.reset(_scope(control, request))}

    async def list_snapshots(request: web.Request) -> Any:
        return {"snapshots": get_control().list()}

    async def snapshot(request: web.Request) -> Any:
        control = get_control()
        try:
            body = orjson.loads(await request.read() or b"{}")
        except orjson.JSONDecodeError:
            body = None
        name = body.get("name") if isinstance(body, dict) else None
        return control.snapshot(name, _scope(control, request))  # type: ignore[arg-type]

    async def restore(request: web.Request) -> Any:
        return get_control().restore(request.match_info["name"])

    async def delete(request: web.Request) -> Any:
        return get_control().delete(request.match_info["name"])

    app.router.add_post("/_dynemu/reset", _handler(reset))
    app.router.add_get("/_dynemu/snapshots", _handler(list_snapshots))
    app.router.add_post("/_dynemu/snapshots", _handler(snapshot))
    app.router.add_post("/_dynemu/snapshots/{name}/restore", _handler(restore))
    app.router.add_delete("/_dynemu/snapshots/{name}", _handler(delete))
