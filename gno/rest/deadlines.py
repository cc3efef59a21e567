"""Deadlines for a request's arrival and its answer's departure: a client that sends
half its headers or half its body, or stops reading what it asked for, is cut instead of
holding a connection (and a route) open forever.

uvicorn bounds only the idle time between keep-alive requests. Its httptools protocol
is extended here with three timers: from the connection's start (or a request's first
byte) to the end of its headers, ``header_seconds`` (then ``408`` and close), and from
the end of the headers to the end of the body, ``body_seconds`` (then close: the route
reading the body sees a disconnect). Neither bounds the time a route takes to answer.
The third runs while the answer waits for the client: once the bytes it has not read
pass the transport's high-water mark, it must take some within ``write_seconds``, else
the connection is aborted (a close would wait for bytes it never reads) and the route
sees a disconnect. An event stream whose client stopped reading thus ends (its queue in
``gno.resident.events`` is freed), and a stopping server (``shutdown``) allows such a
client only ``SHUTDOWN_WRITE_SECONDS``, instead of waiting out the graceful deadline and
cancelling the stream with a traceback.
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

HEADER_SECONDS = 10.0
BODY_SECONDS = 30.0
WRITE_SECONDS = 30.0
SHUTDOWN_WRITE_SECONDS = 1.0
_BODY = b'{"error":{"code":"REQUEST_TIMEOUT","message":"Request not received in time"}}'
TIMED_OUT = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\nconnection: close\r\n"
    + f"content-length: {len(_BODY)}\r\n\r\n".encode()
    + _BODY
)


class DeadlineProtocol(HttpToolsProtocol):
    header_seconds = HEADER_SECONDS
    body_seconds = BODY_SECONDS
    write_seconds = WRITE_SECONDS

    _timer: asyncio.TimerHandle | None = None
    _awaiting_headers = True
    _write_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: Any) -> None:
        super().connection_made(transport)
        self._arm(self.header_seconds, headers=True)  # a client that sends nothing at all

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        self._disarm_write()
        super().connection_lost(exc)

    def pause_writing(self) -> None:
        super().pause_writing()
        self._arm_write()

    def resume_writing(self) -> None:
        super().resume_writing()
        self._disarm_write()

    def shutdown(self) -> None:
        super().shutdown()
        self.write_seconds = min(self.write_seconds, SHUTDOWN_WRITE_SECONDS)
        if self._write_timer is not None:  # already waiting on the client: the short limit
            self._arm_write()

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

    def _arm_write(self) -> None:
        self._disarm_write()
        self._write_timer = self.loop.call_later(self.write_seconds, self._stalled)

    def _disarm_write(self) -> None:
        if self._write_timer is not None:
            self._write_timer.cancel()
            self._write_timer = None

    def _stalled(self) -> None:
        self._write_timer = None
        self.transport.abort()  # even when closing: a close waits for the unread bytes

    def _expired(self) -> None:
        self._timer = None
        if self.transport.is_closing():
            return
        if self._awaiting_headers:  # no route runs yet: answer before closing
            self.transport.write(TIMED_OUT)
        self.transport.close()


def protocol(
    header_seconds: float, body_seconds: float, write_seconds: float = WRITE_SECONDS
) -> type[DeadlineProtocol]:
    """The protocol class for one server (uvicorn instantiates it per connection)."""
    return type(
        "GnoHttpProtocol",
        (DeadlineProtocol,),
        {
            "header_seconds": header_seconds,
            "body_seconds": body_seconds,
            "write_seconds": write_seconds,
        },
    )
