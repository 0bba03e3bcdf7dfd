"""The answers of one turn of the event loop are written at its end, together (api/http.py,
``Outbox``): a connection answers a request as soon as it is complete, but its bytes reach the
transport once every connection read in that turn has been answered, in the order the requests
came; pipelined answers past WRITE_BATCH bytes, and a last answer before a close, are written
at once. Driven in-process: the real Connection and dispatcher, a transport that records calls."""

from __future__ import annotations

import asyncio
import functools
import re
from collections.abc import Callable
from typing import Any

import pytest

from dynemu.api import http
from dynemu.api.service import Service
from dynemu.config import load_settings

HEALTH = b"GET / HTTP/1.1\r\nHost: localhost\r\n\r\n"


class Transport:
    """Records what a Connection does to it, in order."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, bytes]] = []

    def write(self, data: bytes) -> None:
        self.calls.append(("write", data))

    def write_eof(self) -> None:
        self.calls.append(("eof", b""))

    def can_write_eof(self) -> bool:
        return True

    def resume_reading(self) -> None:
        pass

    pause_reading = resume_reading

    def close(self) -> None:
        self.calls.append(("close", b""))

    def abort(self) -> None:
        raise AssertionError("the connection failed")

    def is_closing(self) -> bool:
        return False

    @property
    def written(self) -> bytes:
        return b"".join(data for call, data in self.calls if call == "write")


class Listener:
    """A connection's listener whose outbox is flushed when the test ends the turn."""

    def __init__(self, service: Service) -> None:
        self.dispatcher = service.dispatcher
        self.connections: set[Any] = set()
        self.scheduled: list[Callable[[], None]] = []
        self.outbox = http.Outbox(self.scheduled.append)

    def end_turn(self) -> None:
        due, self.scheduled[:] = list(self.scheduled), []
        for callback in due:
            callback()


@pytest.fixture
def listener() -> Listener:
    return Listener(Service(load_settings(["--in-memory"])))


def connect(listener: Listener) -> tuple[http.Connection, Transport]:
    conn = http.Connection(listener)  # type: ignore[arg-type]
    transport = Transport()
    conn.connection_made(transport)  # type: ignore[arg-type]
    return conn, transport


def answers(data: bytes) -> list[bytes]:
    """The status lines of the answers in ``data``."""
    return re.findall(rb"HTTP/1\.1 \d{3}[^\r]*", data)


def in_loop(test: Callable[..., None]) -> Callable[..., None]:
    """Run ``test`` inside a running event loop (a close sets its timer on it); the loop's
    turns are the test's own (``Listener.end_turn``)."""

    @functools.wraps(test)
    def run(*args: Any, **kwargs: Any) -> None:
        async def body() -> None:
            test(*args, **kwargs)

        asyncio.run(body())

    return run


@in_loop
def test_the_answers_of_one_turn_are_written_at_its_end(listener: Listener) -> None:
    (one, first), (two, second) = connect(listener), connect(listener)
    one.data_received(HEALTH)
    two.data_received(HEALTH + HEALTH)  # pipelined
    assert first.calls == [] and second.calls == []  # answered, not yet written
    assert len(listener.scheduled) == 1  # one end-of-turn callback for every connection
    listener.end_turn()
    assert [call for call, _ in first.calls] == ["write"]
    assert answers(first.written) == [b"HTTP/1.1 200 OK"]
    assert [call for call, _ in second.calls] == ["write"]  # both answers in one write
    assert answers(second.written) == [b"HTTP/1.1 200 OK"] * 2
    two.data_received(HEALTH)  # the next turn schedules its own end
    assert len(listener.scheduled) == 1 and len(second.calls) == 1
    listener.end_turn()
    assert answers(second.written) == [b"HTTP/1.1 200 OK"] * 3


@in_loop
def test_pipelined_answers_past_the_write_batch_are_written_at_once(
    listener: Listener, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(http, "WRITE_BATCH", 1)  # every answer fills a batch
    conn, transport = connect(listener)
    conn.data_received(HEALTH * 3)
    assert len(transport.calls) == 3 and answers(transport.written) == [b"HTTP/1.1 200 OK"] * 3
    listener.end_turn()
    assert len(transport.calls) == 3  # nothing was left to write


@in_loop
def test_the_last_answer_is_written_before_the_connection_is_closed(listener: Listener) -> None:
    conn, transport = connect(listener)
    conn.data_received(HEALTH + b"GET / HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n")
    assert [call for call, _ in transport.calls] == ["write", "eof"]  # not held for the turn's end
    assert answers(transport.written) == [b"HTTP/1.1 200 OK"] * 2
    listener.end_turn()
    assert [call for call, _ in transport.calls] == ["write", "eof"]


@in_loop
def test_an_interim_100_continue_follows_the_answer_before_it(listener: Listener) -> None:
    conn, transport = connect(listener)
    expecting = (b"POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-amz-json-1.0\r\n"
                 b"X-Amz-Target: DynamoDB_20120810.ListTables\r\nExpect: 100-continue\r\n"
                 b"Content-Length: 2\r\n\r\n")
    conn.data_received(HEALTH + expecting)
    listener.end_turn()
    assert answers(transport.written) == [b"HTTP/1.1 200 OK", b"HTTP/1.1 100 Continue"]


@in_loop
def test_a_refused_request_is_answered_after_the_ones_before_it(listener: Listener) -> None:
    conn, transport = connect(listener)
    conn.data_received(HEALTH + b"GET / HTTP/1.1\r\n\r\n")  # no Host: 400, and the connection closes
    assert answers(transport.written) == [b"HTTP/1.1 200 OK", b"HTTP/1.1 400 Bad Request"]
    assert transport.calls[-1][0] in ("eof", "close")


@in_loop
def test_answers_held_for_the_turn_are_written_when_the_connection_is_closed(listener: Listener) -> None:
    conn, transport = connect(listener)
    conn.data_received(HEALTH)
    conn.close()  # the server stopping
    assert [call for call, _ in transport.calls] == ["write", "close"]
    listener.end_turn()
    assert len(transport.calls) == 2


@in_loop
def test_nothing_is_written_for_a_connection_lost_before_the_turn_ended(listener: Listener) -> None:
    conn, transport = connect(listener)
    conn.data_received(HEALTH)
    conn.connection_lost(None)
    listener.end_turn()
    assert transport.calls == []


@in_loop
def test_a_connection_whose_write_fails_does_not_keep_the_others_answers(listener: Listener) -> None:
    (broken, failing), (fine, working) = connect(listener), connect(listener)
    aborted: list[bool] = []

    def refuse(data: bytes) -> None:
        raise RuntimeError("a bug")

    failing.write = refuse  # type: ignore[method-assign]
    failing.abort = lambda: aborted.append(True)  # type: ignore[method-assign]
    broken.data_received(HEALTH)
    fine.data_received(HEALTH)
    listener.end_turn()
    assert aborted == [True]
    assert answers(working.written) == [b"HTTP/1.1 200 OK"]
