"""Run dynemu inside a test process: ``with DynemuServer() as url: ...``.

The server runs on its own event loop in a background thread, on a free port, in memory
unless a data directory is given. Applications can use it in their own pytest fixtures.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from aiohttp import web

from dynemu.api.server import create_app
from dynemu.config import Settings


class DynemuServer:
    def __init__(self, settings: Settings | None = None, **overrides: Any) -> None:
        if settings is None:
            settings = Settings(in_memory="data_dir" not in overrides, port=0)
        for k, v in overrides.items():
            setattr(settings, k, v)
        self.settings = settings
        self.url = ""
        self._loop = asyncio.new_event_loop()
        self._runner: web.AppRunner | None = None
        self._thread = threading.Thread(target=self._loop.run_forever, name="dynemu", daemon=True)

    async def _start(self) -> str:
        self.app = create_app(self.settings)
        self._runner = web.AppRunner(self.app, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.settings.host, self.settings.port)
        await site.start()
        host, port = self._runner.addresses[0][:2]
        return f"http://{host}:{port}"

    def start(self) -> str:
        self._thread.start()
        self.url = asyncio.run_coroutine_threadsafe(self._start(), self._loop).result(30)
        return self.url

    def stop(self) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(30)
            self._runner = None
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(30)
        self._loop.close()

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
