"""What the long-running drivers (soak.py, scaling.py) share: a dynemu subprocess on a free
port with its stderr kept in a file, the server's memory figures, and a data directory that
is removed at the end unless the caller named one."""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from harness import HOST, free_port, status_mb

ROOT = Path(__file__).resolve().parent.parent


def _accepts(port: int) -> None:
    """Returns once the server accepts a connection; OSError before."""
    socket.create_connection((HOST, port), timeout=0.5).close()


def start(flags: list[str], log: Any, ready: Callable[[int], object] = _accepts,
          timeout: float = 60.0) -> tuple[subprocess.Popen[bytes], int]:  # fmt: skip
    """``dynemu --host 127.0.0.1 --port <free> FLAGS`` with this checkout first on its path,
    stderr to ``log``; returns once ``ready(port)`` stops raising OSError (default: the port
    accepts), else kills it and raises RuntimeError."""
    port = free_port()
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    argv = [sys.executable, "-m", "dynemu", "--host", HOST, "--port", str(port), *flags]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=log, env=env)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            ready(port)
            return proc, port
        except OSError:
            if proc.poll() is not None:
                break
            time.sleep(0.05)
    proc.kill()
    raise RuntimeError(f"dynemu did not start (exit {proc.wait()}); its stderr is in {log.name}")


def memory(pid: int) -> dict[str, float]:
    """The server's anonymous and file-backed RSS (MB) and its open file descriptors."""
    return {"anon_mb": status_mb(pid, "RssAnon"), "file_mb": status_mb(pid, "RssFile"),
            "fds": len(os.listdir(f"/proc/{pid}/fd"))}  # fmt: skip


@contextmanager
def run_dirs(prefix: str, data_dir: str | None, server_log: str | None) -> Iterator[tuple[str, str]]:
    """(data directory, server log path): those given, else temporary ones named ``prefix``;
    a temporary data directory is removed at the end, the log is kept."""
    path = data_dir or tempfile.mkdtemp(prefix=f"{prefix}-")
    log_path = server_log or os.path.join(tempfile.mkdtemp(prefix=f"{prefix}-log-"), "server.log")
    try:
        yield path, log_path
    finally:
        if not data_dir:
            shutil.rmtree(path, ignore_errors=True)
