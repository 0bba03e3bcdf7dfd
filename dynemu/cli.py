"""Command line: ``dynemu`` and ``python -m dynemu``.

Start-up failures (bad settings, a port in use, a data directory that cannot be written or
is held by another process) print one line on stderr and exit with code 2. The
"listening" line is printed once the socket is bound and the server accepts connections;
a single line is printed on shutdown.
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import socket
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from dynemu.codecache import GeneratedCode
from dynemu.startup import StartupError, bind, lock_data_dir
from dynemu.storage import select as store_select

if TYPE_CHECKING:
    import asyncio

    from dynemu.config import Settings

EXIT_STARTUP = 2


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["replay"]:  # `dynemu replay SCENARIO --report DIR` (dynemu/replay/)
        from dynemu.replay.cli import main as replay

        sys.exit(replay(args[1:]))
    starting = _StartingUp()
    try:
        _start(argv, starting)
    finally:
        starting.close()


def _start(argv: Sequence[str] | None, starting: _StartingUp) -> None:
    from dynemu.config import SettingsError, load_settings  # here: its dataclass from the cache

    try:
        settings = load_settings(argv)
        kind = store_select.resolve(settings.store, settings.in_memory)
    except (SettingsError, store_select.StoreOpenError) as e:
        _fail(str(e))
    logging.basicConfig(
        level=settings.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    logging.getLogger("aiohttp.access").setLevel(logging.WARNING)
    try:
        lock = lock_data_dir(settings)
    except StartupError as e:
        _fail(str(e))
    try:
        serve(settings, kind, starting)
    except StartupError as e:
        _fail(str(e))
    finally:
        if lock is not None:
            lock.release()


def _fail(message: str) -> None:
    print(f"dynemu: error: {message}", file=sys.stderr, flush=True)
    raise SystemExit(EXIT_STARTUP)


class _StartingUp:
    """What only start-up needs: no garbage collection (it would scan the growing heap some
    hundred times while the modules load; everything built then lives as long as the process,
    and the few hundred cyclic leftovers of imports are frozen with it rather than paying a
    full collection) and the dataclasses' generated code from the cache
    (``dynemu/codecache.py``)."""

    def __init__(self) -> None:
        self._gc_was_enabled = gc.isenabled()
        gc.disable()
        self.generated = GeneratedCode()
        self.generated.install()

    def done(self) -> None:
        """Save what was compiled, freeze what start-up built, re-enable the collector."""
        self.generated.finish()
        # Everything built so far (the compiled validators, the expression tables, the
        # botocore model) lives as long as the process: keep it out of the garbage
        # collector's scans, which otherwise cost every request a share of walking ~60,000
        # objects.
        gc.freeze()
        self.close()

    def close(self) -> None:
        """Back to normal (also after a failed start): idempotent."""
        self.generated.uninstall()
        if self._gc_was_enabled:
            gc.enable()
            self._gc_was_enabled = False


def serve(settings: Settings, kind: str, starting: _StartingUp | None = None) -> None:
    import asyncio

    # The botocore model loads only past the checks; aiohttp only when a request needs it.
    from dynemu.api.service import Service
    from dynemu.config import SettingsError

    factory = loop_factory(settings)
    sock = bind(settings.host, settings.port)
    try:
        service = Service(settings)
    except store_select.StoreOpenError as e:
        sock.close()
        raise StartupError(str(e)) from None
    except SettingsError as e:  # a setting refused while the service is built (e.g. no credentials)
        sock.close()
        raise StartupError(str(e)) from None
    finally:
        if starting is not None:
            starting.done()
        else:
            gc.freeze()  # see _StartingUp.done
    line = startup_line(settings, kind, sock)
    with asyncio.Runner(loop_factory=factory) as runner:
        runner.run(_serve(service, sock, line))
    if any(u.data_lost for u in service.namespaces.unsaved):  # each logged by Namespaces.close
        print("dynemu stopped; some data may not have been saved (see the log)", flush=True)
        raise SystemExit(1)
    print("dynemu stopped" + ("" if settings.in_memory else "; data saved"), flush=True)


def loop_factory(settings: Settings) -> Callable[[], asyncio.AbstractEventLoop] | None:
    """uvloop's event loop when installed (--event-loop auto) or asked for, else asyncio's."""
    if settings.event_loop == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        if settings.event_loop == "uvloop":
            raise StartupError("--event-loop uvloop needs uvloop installed: pip install uvloop") from None
        return None
    return uvloop.new_event_loop  # type: ignore[no-any-return]


async def _serve(service: Any, sock: socket.socket, line: str) -> None:
    """Serve until SIGINT or SIGTERM, then close the connections and the stores."""
    import asyncio

    from dynemu.api.http import HttpListener

    server = HttpListener(service)
    try:
        await server.start(sock)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(sig, stop.set)
        print(line, flush=True)  # after the handlers: a SIGTERM right after the line stops cleanly
        await stop.wait()
    finally:
        await server.stop()


def startup_line(settings: Settings, kind: str, sock: socket.socket) -> str:
    port = sock.getsockname()[1]  # the bound one, also for --port 0
    host = settings.host
    url_host = f"[{host}]" if ":" in host else host
    if kind == "memory":
        where = "in memory (nothing is written to disk)"
    else:
        where = f"{store_select.describe(kind)} in {os.path.abspath(settings.data_dir)}"
    return (
        f"dynemu listening on http://{url_host}:{port} ; store {where} ; "
        f"namespaces {settings.namespace_mode()}"
    )


if __name__ == "__main__":
    main()
