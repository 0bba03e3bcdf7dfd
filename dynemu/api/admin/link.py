"""The aiohttp application's side of a client connection: requests the HTTP connection
(``http.py``) does not answer itself are written, framed, to an aiohttp request handler over
this in-memory transport, and its answer is relayed to the client. A response parser
(llhttp again) says where each answer ends.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Any, Protocol

import httptools

log = logging.getLogger("dynemu")


class Connection(Protocol):
    """What the link needs of the client's connection (``dynemu.api.http.Connection``)."""

    def write(self, data: bytes) -> None: ...

    def get_extra_info(self, name: str, default: Any = None) -> Any: ...

    def relayed(self, close: bool) -> None: ...


class AdminLink(asyncio.Transport):
    """The transport of aiohttp's connection inside one client connection."""

    def __init__(self, conn: Connection) -> None:
        super().__init__()
        self._conn = conn
        self._handler: asyncio.Protocol | None = None
        self._answer: httptools.HttpResponseParser | None = None
        self._head_only = False
        self._close = False
        self._closing = False

    def send(self, handler_factory: Callable[[], asyncio.Protocol], data: bytes, head_only: bool, close: bool) -> None:
        if self._handler is None or self._closing:
            self._closing = False
            self._handler = handler_factory()
            self._handler.connection_made(self)
        self._answer = httptools.HttpResponseParser(self)
        self._head_only, self._close = head_only, close
        self._handler.data_received(data)

    # aiohttp's side

    def write(self, data: bytes | bytearray | memoryview) -> None:
        self._conn.write(bytes(data))
        if self._answer is not None:
            try:
                self._answer.feed_data(data)
            except httptools.HttpParserError:
                log.exception("cannot read the aiohttp application's answer")
                self._done(close=True)

    def writelines(self, chunks: Any) -> None:
        for chunk in chunks:
            self.write(chunk)

    def is_closing(self) -> bool:
        return self._closing

    def close(self) -> None:
        """aiohttp is done with this connection (its keep-alive ran out, or it answered with
        Connection: close): an answer under way ends here."""
        if self._closing:
            return
        self._closing = True
        handler, self._handler = self._handler, None
        if handler is not None:
            asyncio.get_running_loop().call_soon(handler.connection_lost, None)
        if self._answer is not None:
            self._done(close=True)

    abort = close

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._conn.get_extra_info(name, default)

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass

    def is_reading(self) -> bool:
        return True

    def lost(self) -> None:
        """The client connection is gone."""
        self._answer = None
        self.close()

    # llhttp's callbacks on aiohttp's answer

    def on_headers_complete(self) -> None:
        if self._head_only:
            self._done(close=self._close)

    def on_message_complete(self) -> None:
        if self._answer is not None:
            self._done(close=self._close)

    def _done(self, close: bool) -> None:
        self._answer = None
        # Once aiohttp's write returns: the next request may be aiohttp's too.
        asyncio.get_running_loop().call_soon(self._conn.relayed, close)
