"""The listener accepts every pending connection when it is ready, not one per turn of the
event loop: a new client is served while other connections keep the server busy."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Iterator

import pytest

from dynemu.api import http
from dynemu.api.service import Service
from dynemu.config import load_settings

try:
    import uvloop
except ImportError:  # optional: the default loop is tested either way
    uvloop = None

LOOPS = ["asyncio"] + (["uvloop"] if uvloop is not None else [])


@pytest.fixture(params=LOOPS)
def loop(request: pytest.FixtureRequest) -> Iterator[asyncio.AbstractEventLoop]:
    lp = uvloop.new_event_loop() if request.param == "uvloop" else asyncio.new_event_loop()
    yield lp
    lp.close()


def test_every_pending_connection_is_accepted_in_one_turn(loop: asyncio.AbstractEventLoop) -> None:
    async def scenario() -> tuple[int, int]:
        server = http.HttpListener(Service(load_settings(["--in-memory"])))
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        await server.start(sock)
        clients = []
        try:
            loop.remove_reader(sock.fileno())  # hold accepting while the clients queue up
            for _ in range(20):
                c = socket.create_connection(sock.getsockname())  # completed by the kernel's backlog
                clients.append(c)
            server._accept_ready()  # one readiness event
            await asyncio.sleep(0)
            await asyncio.sleep(0)
            accepted = len(server.connections)
            clients[-1].sendall(b"GET / HTTP/1.1\r\nHost: h\r\n\r\n")
            answer = await loop.sock_recv(_nonblocking(clients[-1]), 4096)
            return accepted, int(answer.split(b" ")[1])
        finally:
            for c in clients:
                c.close()
            await server.stop()

    accepted, status = loop.run_until_complete(scenario())
    assert accepted == 20
    assert status == 200


def _nonblocking(c: socket.socket) -> socket.socket:
    c.setblocking(False)
    return c


def test_stop_closes_the_listener(loop: asyncio.AbstractEventLoop) -> None:
    async def scenario() -> int:
        server = http.HttpListener(Service(load_settings(["--in-memory"])))
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(8)
        await server.start(sock)
        assert server.sockets == (sock,)
        await server.stop()
        assert server.sockets == ()
        return sock.fileno()

    assert loop.run_until_complete(scenario()) == -1  # closed
