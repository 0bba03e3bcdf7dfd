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
import socket
import sys
from collections.abc import Sequence

from aiohttp import web

from dynemu.config import Settings, SettingsError, load_settings
from dynemu.startup import StartupError, bind, lock_data_dir
from dynemu.storage import select as store_select

EXIT_STARTUP = 2


def main(argv: Sequence[str] | None = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == ["replay"]:  # `dynemu replay SCENARIO --report DIR` (dynemu/replay/)
        from dynemu.replay.cli import main as replay

        sys.exit(replay(args[1:]))
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
        serve(settings, kind)
    except StartupError as e:
        _fail(str(e))
    finally:
        if lock is not None:
            lock.release()


def _fail(message: str) -> None:
    print(f"dynemu: error: {message}", file=sys.stderr, flush=True)
    raise SystemExit(EXIT_STARTUP)


def serve(settings: Settings, kind: str) -> None:
    from dynemu.api.server import create_app  # the botocore model loads only past the checks

    sock = bind(settings.host, settings.port)
    try:
        app = create_app(settings)
    except store_select.StoreOpenError as e:
        sock.close()
        raise StartupError(str(e)) from None
    except SystemExit as e:  # a setting refused while the app is built (e.g. no credentials)
        sock.close()
        if not isinstance(e.code, str):
            raise
        raise StartupError(e.code.removeprefix("dynemu: ")) from None
    # Everything built so far (the compiled validators, the expression tables, the botocore
    # model) lives as long as the process: keep it out of the garbage collector's scans,
    # which otherwise cost every request a share of walking ~60,000 objects.
    gc.freeze()
    line = startup_line(settings, kind, sock)
    # run_app calls ``print`` once its site is started; it handles SIGINT/SIGTERM and runs
    # the cleanup that closes the stores.
    web.run_app(app, sock=sock, print=lambda _text: print(line, flush=True), access_log=None)
    print("dynemu stopped" + ("" if settings.in_memory else "; data saved"), flush=True)


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
