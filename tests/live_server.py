"""A real uvicorn on 127.0.0.1 (port 0) in a thread, for tests of ASGI parts of the server."""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import uvicorn

DEADLINE = 30.0


@contextlib.contextmanager
def live_server(asgi: Any) -> Iterator[tuple[str, uvicorn.Server]]:
    """Serve ``asgi`` (lifespan on) until the block ends; yields its URL and the server."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    # As `gno serve` runs uvicorn: the socket peer is the caller, X-Forwarded-* rewrites nothing.
    config = uvicorn.Config(asgi, log_level="warning", lifespan="on", proxy_headers=False)
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    try:
        wait_until(lambda: server.started)
        yield url, server
    finally:
        server.should_exit = True
        thread.join(DEADLINE)
        sock.close()
    assert not thread.is_alive()


def wait_until(ready: Callable[[], bool]) -> None:
    pause = threading.Event()
    for _ in range(int(DEADLINE / 0.01)):
        if ready():
            return
        pause.wait(0.01)
    raise AssertionError("not ready before the deadline")


def get(url: str, path: str) -> httpx.Response:
    with httpx.Client(base_url=url, timeout=DEADLINE) as http:
        return http.get(path)
