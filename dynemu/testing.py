"""Run dynemu inside a test process: ``with DynemuServer() as url: ...``.

``DynemuServer`` takes the command line's settings by their Settings names, with the command
line's values or Python ones: ``DynemuServer(throttling="off", capacity_model="uniform",
partition_size="64KB")`` is ``dynemu --throttling off --capacity-model uniform
--partition-size 64KB``. Unknown names raise TypeError and bad values SettingsError, both at
construction. The server runs on its own event loop in a background thread, on a free port
(``port=0``), in memory unless ``data_dir`` is given; it can be stopped and started again.
"""

from __future__ import annotations

import asyncio
import threading
from typing import TYPE_CHECKING, Any

from dynemu.config import Settings, make_settings
from dynemu.startup import DataDirLock, StartupError, bind, lock_data_dir, loop_factory, open_service
from dynemu.storage import select as store_select

if TYPE_CHECKING:
    from dynemu.api.http import HttpListener

__all__ = ["DynemuServer", "StartupError"]


class DynemuServer:
    def __init__(self, settings: Settings | None = None, **overrides: Any) -> None:
        if settings is None:
            base = Settings(in_memory="data_dir" not in overrides, port=0)
            settings = make_settings(overrides, base)
        else:
            settings = make_settings(overrides, settings)
        self.settings = settings
        self.url = ""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: HttpListener | None = None
        self._lock: DataDirLock | None = None

    async def _start(self, kind: str) -> str:
        sock = bind(self.settings.host, self.settings.port)
        try:
            from dynemu.api.http import HttpListener

            # The service answers app[NAMESPACES] as the aiohttp application did.
            self.app = open_service(self.settings)
        except BaseException:
            sock.close()
            raise
        self._server = HttpListener(self.app)
        await self._server.start(sock)
        host, port = sock.getsockname()[:2]
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    def start(self) -> str:
        """Start the server and return its URL; raises StartupError when it cannot start."""
        if self._thread is not None:
            raise RuntimeError("DynemuServer is already running; stop() it first")
        kind = store_select.resolve(self.settings.store, self.settings.in_memory)
        self._lock = lock_data_dir(self.settings)
        factory = loop_factory(self.settings)
        self._loop = factory() if factory is not None else asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="dynemu", daemon=True)
        self._thread.start()
        try:
            self.url = asyncio.run_coroutine_threadsafe(self._start(kind), self._loop).result(60)
        except BaseException:
            self.stop()
            raise
        return self.url

    def stop(self) -> None:
        """Stop the server and close its stores; ``start()`` may be called again."""
        loop, thread = self._loop, self._thread
        if loop is not None and thread is not None:
            if self._server is not None:
                asyncio.run_coroutine_threadsafe(self._server.stop(), loop).result(60)
            loop.call_soon_threadsafe(loop.stop)
            thread.join(60)
            loop.close()
        self._server = None
        self._loop = self._thread = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None

    def reset(self, region: str | None = None) -> None:
        """Drop every table, backup, stream and setting of every namespace (or of ``region``'s),
        as ``POST /_dynemu/reset`` does: each test that calls it starts from an empty server (with
        the tables of ``--init``, created and filled again)."""
        self._state(lambda control: control.reset(self._scope(region)))

    def snapshot(self, name: str, region: str | None = None) -> dict[str, Any]:
        """Save the whole state (of ``region``'s namespace, or every one) as snapshot ``name``,
        as ``POST /_dynemu/snapshots`` does."""
        return self._state(lambda control: control.snapshot(name, self._scope(region)))  # type: ignore[no-any-return]

    def restore(self, name: str) -> dict[str, Any]:
        """Put back snapshot ``name``: no trace of later writes is left."""
        return self._state(lambda control: control.restore(name))  # type: ignore[no-any-return]

    def _scope(self, region: str | None) -> str | None:
        return None if region is None else self.app.namespaces.name_of(region, "")

    def _state(self, action: Any) -> Any:
        """Run ``action(StateControl)`` on the server's loop, between two requests."""
        if self._loop is None:
            raise RuntimeError("DynemuServer is not running")

        async def run() -> Any:
            return action(self.app.state)

        return asyncio.run_coroutine_threadsafe(run(), self._loop).result(600)

    def seed(self, definition: dict[str, Any] | str, data: str | None = None, *, region: str = "us-east-1",
             fmt: str | None = None) -> int:
        """Create a table and fill it from files before tests, as ``dynemu import`` does:
        ``definition`` is CreateTable's input or describe-table's output (a dict, or the path of
        its JSON file), ``data`` an export's folder, a ``.jsonl``/``.json.gz``/``.ion``/``.csv``
        file or None. A bad line raises ``seeding.SeedError`` naming file, line and field, and
        no table is left. Returns the number of items imported."""
        from dynemu import seeding

        if self._loop is None:
            raise RuntimeError("DynemuServer is not running")
        body = seeding.read_definition(definition) if isinstance(definition, str) else seeding.create_input(
            definition, "definition")
        source = seeding.file_source(data, fmt or seeding.guess_format(data)) if data is not None else None

        def stop(e: Any) -> None:
            raise seeding.SeedError(str(e))

        async def load() -> int:  # on the server's loop, between two requests
            db = self.app.namespaces.get(region, "")
            _, counts = seeding.seed(seeding.context(db, self.settings, region), body, source, stop)
            return counts.imported

        return asyncio.run_coroutine_threadsafe(load(), self._loop).result(600)

    @property
    def running(self) -> bool:
        return self._thread is not None

    def __enter__(self) -> str:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
