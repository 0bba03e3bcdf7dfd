"""Starting and serving a dynemu server, shared by the ``dynemu`` command (``cli.py``),
``DynemuServer`` (``testing.py``) and ``dynemu replay``.

Each failure is a ``StartupError`` whose message is one line saying what to do; the command
prints it and exits with code 2 (library code never exits the process). The data directory is
locked for the life of the process (``dynemu.lock``, an advisory lock the kernel drops when
the process dies), so a second server on the same directory stops at start instead of
answering InternalServerError when it first opens a namespace.
"""

from __future__ import annotations

import asyncio
import errno
import gc
import os
import signal
import socket
from collections.abc import Callable
from typing import TYPE_CHECKING

from dynemu.config import Settings, SettingsError
from dynemu.storage import select as store_select

if TYPE_CHECKING:  # imported by open_service, past the checks: a refused flag fails fast
    from dynemu.api.service import Service

LOCK_FILE = "dynemu.lock"
EXIT_DATA_LOST = 1  # the exit code when a store could not be closed: its last writes may be lost


class StartupError(Exception):
    """The server cannot start; the message says what to do."""


class DataDirLock:
    """An exclusive, non-blocking lock on ``<data_dir>/dynemu.lock`` holding our pid."""

    def __init__(self, data_dir: str) -> None:
        self.path = os.path.join(data_dir, LOCK_FILE)
        self._fd: int | None = None

    def acquire(self) -> None:
        data_dir = os.path.dirname(self.path)
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError as e:
            raise StartupError(_not_writable(data_dir, e)) from None
        if not _try_lock(fd):
            os.lseek(fd, 0, os.SEEK_SET)
            holder = os.read(fd, 32).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise StartupError(
                f"data directory {data_dir} is in use by another dynemu process (pid {holder}): "
                "stop that process, or choose another directory with --data-dir (DYNEMU_DATA_DIR)"
            )
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, str(os.getpid()).encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # closing the descriptor drops the lock
            self._fd = None


def _try_lock(fd: int) -> bool:
    try:
        import fcntl
    except ImportError:  # Windows
        import msvcrt

        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined]
            return True
        except OSError:
            return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False


def _not_writable(data_dir: str, e: OSError) -> str:
    return (
        f"data directory {data_dir} is not writable ({e.strerror or e}): choose another with "
        "--data-dir (DYNEMU_DATA_DIR), fix its permissions, or use --in-memory"
    )


def lock_data_dir(settings: Settings) -> DataDirLock | None:
    """Create the data directory if needed, check that it can be written, and lock it."""
    if settings.in_memory:
        return None
    data_dir = os.path.abspath(settings.data_dir)
    if os.path.exists(data_dir) and not os.path.isdir(data_dir):
        raise StartupError(f"data directory {data_dir} is a file: choose a directory with --data-dir (DYNEMU_DATA_DIR)")
    try:
        os.makedirs(data_dir, exist_ok=True)
    except OSError as e:
        raise StartupError(_not_writable(data_dir, e)) from None
    probe = os.path.join(data_dir, f".dynemu-write-test-{os.getpid()}")
    try:  # permissions can hide behind an existing lock file: write something new
        with open(probe, "wb") as f:
            f.write(b"x")
        os.remove(probe)
    except OSError as e:
        raise StartupError(_not_writable(data_dir, e)) from None
    lock = DataDirLock(data_dir)
    lock.acquire()
    return lock


def bind(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``, or a StartupError saying what to change."""
    # An ASCII host goes to the resolver as bytes, as it is: a str would first be encoded with
    # the "idna" codec, whose import (encodings.idna, stringprep) is start-up time for nothing.
    name: str | bytes = host.encode("ascii") if host.isascii() else host
    try:
        infos = socket.getaddrinfo(name, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except (socket.gaierror, UnicodeError):  # UnicodeError: a name the "idna" codec refuses
        raise StartupError(
            f"cannot resolve --host {host!r} (DYNEMU_HOST): give an IP address such as 127.0.0.1 or 0.0.0.0"
        ) from None
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    try:
        if os.name == "posix":  # restart at once after a stop; never shares a bound port
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(128)
    except OSError as e:
        sock.close()
        raise StartupError(_bind_message(host, port, e)) from None
    return sock


def _bind_message(host: str, port: int, e: OSError) -> str:
    if e.errno == errno.EADDRINUSE:
        return (
            f"port {port} on {host} is already in use: stop the program using it, or choose "
            "another port with --port (DYNEMU_PORT)"
        )
    if e.errno == errno.EACCES:
        return f"not allowed to listen on port {port}: choose a port above 1023 with --port (DYNEMU_PORT)"
    if e.errno == errno.EADDRNOTAVAIL:
        return f"{host} is not an address of this machine: use --host 127.0.0.1 or 0.0.0.0 (DYNEMU_HOST)"
    return f"cannot listen on {host}:{port} ({e.strerror or e}): change --host or --port"


# --- serving -------------------------------------------------------------------------------------


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


def open_service(settings: Settings) -> Service:
    """The server's state (namespaces, protocol, lifecycle); a store that cannot be opened or
    a setting refused while it is built (e.g. --verify-signatures without credentials) is a
    StartupError."""
    # The botocore model loads only past the checks; aiohttp only when a request needs it.
    from dynemu.api.service import Service

    try:
        return Service(settings)
    except (store_select.StoreOpenError, SettingsError) as e:
        raise StartupError(str(e).removeprefix("dynemu: ")) from None


def serve(settings: Settings, kind: str) -> int:
    """Bind, build the service, print the "listening" line, and serve until SIGINT or SIGTERM
    (the command's server; ``DynemuServer`` runs its own loop in a thread). Returns the exit
    code: 0, or EXIT_DATA_LOST when a store could not be closed (``Namespaces.close``)."""
    gc.disable()  # until the service is built (the command turns it off before its imports)
    try:
        factory = loop_factory(settings)
        sock = bind(settings.host, settings.port)
        try:
            service = open_service(settings)
        except BaseException:
            sock.close()
            raise
    finally:
        # Everything built so far (the compiled validators, the expression tables, the
        # botocore model) lives as long as the process: keep it out of the collector's scans,
        # which otherwise cost every request a share of walking ~60,000 objects. Collecting
        # while it was built would have scanned the growing heap some hundred times for the
        # few hundred cyclic leftovers of imports.
        gc.freeze()
        gc.enable()
    line = startup_line(settings, kind, sock)
    with asyncio.Runner(loop_factory=factory) as runner:
        runner.run(_serve(service, sock, line))
    if any(u.data_lost for u in service.namespaces.unsaved):  # each logged by Namespaces.close
        print("dynemu stopped; some data may not have been saved (see the log)", flush=True)
        return EXIT_DATA_LOST
    print("dynemu stopped" + ("" if settings.in_memory else "; data saved"), flush=True)
    return 0


async def _serve(service: Service, sock: socket.socket, line: str) -> None:
    """Serve until SIGINT or SIGTERM, then close the connections and the stores."""
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
