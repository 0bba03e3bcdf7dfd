"""Start-up checks shared by the ``dynemu`` command and ``DynemuServer``.

Each failure is a ``StartupError`` whose message is one line saying what to do; the command
prints it and exits with code 2. The data directory is locked for the life of the process
(``dynemu.lock``, an advisory lock the kernel drops when the process dies), so a second
server on the same directory stops at start instead of answering InternalServerError when
it first opens a namespace.
"""

from __future__ import annotations

import errno
import os
import socket
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the command imports the settings once its start-up caches are in place
    from dynemu.config import Settings

LOCK_FILE = "dynemu.lock"


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
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror:
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
