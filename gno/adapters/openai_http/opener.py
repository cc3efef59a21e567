"""The ``urllib`` opener of the HTTP adapters: a whole-request deadline, no redirects.

A socket timeout bounds each read, not a request: a server that sends one byte every
few seconds never trips it and could hold a query (or an answer stream) for as long as
it likes. So each request carries a ``Deadline``; the connection it opens hands its
socket to it, and when the deadline passes a timer shuts the socket down, which wakes
any read blocked on it at once. ``expired`` then tells the reader why its read ended.

Redirects are never followed: ``urllib`` would replay the request as a ``GET``
(a redirected ``POST`` is no longer the API call) carrying the ``Authorization``
header to whichever host the ``Location`` names, and it accepts ``ftp:`` targets too.
A redirect answer is therefore an HTTP error like any other 3xx.
"""

from __future__ import annotations

import http.client
import socket
import ssl
import threading
import time
import urllib.request
from contextlib import suppress
from contextvars import ContextVar
from typing import Any


class Deadline:
    """The moment a request must be over, and the timer that enforces it."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.at = time.monotonic() + seconds
        self.expired = False
        self._timer: threading.Timer | None = None

    def remaining(self) -> float:
        return max(0.0, self.at - time.monotonic())

    def watch(self, sock: socket.socket) -> None:
        """Shut ``sock`` down when the deadline passes (it is closed by its owner)."""

        def cut() -> None:
            self.expired = True
            with suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

        self.cancel()
        self._timer = threading.Timer(self.remaining(), cut)
        self._timer.daemon = True
        self._timer.start()

    def cancel(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


# The deadline of the request being opened on this thread: urllib builds the connection
# itself, so this is how the connection finds whom to hand its socket to.
_OPENING: ContextVar[Deadline | None] = ContextVar("gno_http_deadline", default=None)


def open_with_deadline(
    opener: Any, request: urllib.request.Request, wait: float, deadline: Deadline
) -> Any:
    """``opener.open`` whose connection is watched by ``deadline`` (connect and every read
    after it); each socket operation also times out after ``wait`` seconds."""
    token = _OPENING.set(deadline)
    try:
        return opener.open(request, timeout=max(0.001, min(wait, deadline.remaining())))
    finally:
        _OPENING.reset(token)


def _watched(connection: Any) -> None:
    if (deadline := _OPENING.get()) is not None and connection.sock is not None:
        deadline.watch(connection.sock)


class _HTTPConnection(http.client.HTTPConnection):
    def connect(self) -> None:
        super().connect()
        _watched(self)


class _HTTPSConnection(http.client.HTTPSConnection):
    def connect(self) -> None:
        super().connect()  # the TLS socket, once the handshake is done
        _watched(self)


class _HTTPHandler(urllib.request.HTTPHandler):
    def http_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(_HTTPConnection, req)


class _HTTPSHandler(urllib.request.HTTPSHandler):
    _tls: ssl.SSLContext | None = None

    def https_open(self, req: urllib.request.Request) -> Any:
        if self._tls is None:  # built on first use: loading the CA store takes a while
            self._tls = ssl.create_default_context()
        return self.do_open(_HTTPSConnection, req, context=self._tls)


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # urllib then raises the 3xx as an HTTPError


def build_opener(*, direct: bool) -> urllib.request.OpenerDirector:
    """The adapters' opener; ``direct`` ignores proxies from the environment (loopback)."""
    handlers: list[Any] = [_HTTPHandler(), _HTTPSHandler(), _NoRedirects()]
    if direct:
        handlers.append(urllib.request.ProxyHandler({}))
    return urllib.request.build_opener(*handlers)
