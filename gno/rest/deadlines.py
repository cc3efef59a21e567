"""Deadlines for a request's arrival: a client that sends half its headers or half its
body is cut instead of holding a connection (and, for a body, a route) open forever.

uvicorn bounds only the idle time between keep-alive requests. Its httptools protocol
is extended here with two timers: from the connection's start (or a request's first
byte) to the end of its headers, ``header_seconds`` (then ``408`` and close), and from
the end of the headers to the end of the body, ``body_seconds`` (then close: the route
reading the body sees a disconnect). Neither bounds the time a route takes to answer.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

HEADER_SECONDS = 10.0
BODY_SECONDS = 30.0
_BODY = b'{"error":{"code":"REQUEST_TIMEOUT","message":"Request not received in time"}}'
TIMED_OUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\n"
    + f"content-length: {len(_BODY)}\r\n\r\n".encode()
    + _BODY
)


class DeadlineProtocol(HttpToolsProtocol):
    header_seconds = HEADER_SECONDS
    body_seconds = BODY_SECONDS

    _timer: asyncio.TimerHandle | None = None
    _awaiting_headers = True

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm(self.header_seconds, headers=True)  # a client that sends nothing at all

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def on_message_begin(self) -> None:
        super().on_message_begin()
        if self._timer is None:  # the next request on a kept-alive connection
            self._arm(self.header_seconds, headers=True)

    def on_headers_complete(self) -> None:
        super().on_headers_complete()
        self._arm(self.body_seconds, headers=False)  # disarmed at once when there is none

    def on_message_complete(self) -> None:
        super().on_message_complete()
        self._disarm()

    def _arm(self, seconds: float, *, headers: bool) -> None:
        self._disarm()
        self._awaiting_headers = headers
        self._timer = self.loop.call_later(seconds, self._expired)

    def _disarm(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _expired(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        if self._awaiting_headers:  # no route runs yet: answer before closing
            self.transport.write(TIMED_OUT)
        self.transport.close()


def protocol(header_seconds: float, body_seconds: float) -> type[DeadlineProtocol]:
    """The protocol class for one server (uvicorn instantiates it per connection)."""
    return type(
        "GnoHttpProtocol",
        (DeadlineProtocol,),
        {"header_seconds": header_seconds, "body_seconds": body_seconds},
    )
