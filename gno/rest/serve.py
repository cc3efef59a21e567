"""`gno serve`: own the data directory, bind 127.0.0.1, serve until SIGINT/SIGTERM.

Shutdown is uvicorn's graceful one followed by our lifespan's: stop accepting,
let in-flight requests finish (bounded), then ``Resident.drain`` (waiting jobs
dropped, the running one given a deadline, readers and the store closed), and
last the ownership lock.
"""

from __future__ import annotations

import contextlib
import socket
import sys
from collections.abc import Callable, Iterator

import uvicorn

from gno.app import App
from gno.errors import GnoError
from gno.resident.lock import DataDirLock
from gno.rest.app import ServeOptions, create_app

HOST = "127.0.0.1"  # loopback only: a token never turns this into a remote server
GRACEFUL_SECONDS = 10


class PortUnavailableError(GnoError):
    code = "RUNTIME"


def _bind(port: int) -> socket.socket:
    # proto=IPPROTO_TCP matters: asyncio sets TCP_NODELAY on accepted connections only when
    # the socket says so. Without it, a response written as headers then body waited for
    # the client's delayed ACK: 40 ms on every keep-alive request.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((HOST, port))
    except OSError as exc:
        sock.close()
        raise PortUnavailableError(
            f"Cannot listen on {HOST}:{port} ({exc.strerror}). Try another --port."
        ) from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


class _Server(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, on_ready: Callable[[], None]) -> None:
        super().__init__(config)
        self._on_ready = on_ready

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # uvicorn re-raises SIGINT/SIGTERM after its graceful shutdown, which would end the
        # process "killed by signal"; a completed ordered shutdown exits 0 instead.
        with super().capture_signals():
            yield
            self._captured_signals.clear()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if not self.should_exit:
            self._on_ready()


def serve(app: App, port: int, options: ServeOptions, announce: Callable[[str], None]) -> None:
    lock = DataDirLock(app.paths.data_dir)
    lock.acquire({"cmd": "serve", "port": port})
    try:
        sock = _bind(port)
        port = sock.getsockname()[1]
        lock.update({"cmd": "serve", "port": port})
        options.gates.port = port
        api = create_app(app, options=options)
        config = uvicorn.Config(
            api,
            loop="asyncio",  # uvloop, if installed, starves the search threads (bench/README)
            http="auto",  # httptools (a dependency), h11 without it
            log_level="warning",
            lifespan="on",
            timeout_graceful_shutdown=GRACEFUL_SECONDS,
            access_log=False,
        )
        url = f"http://{HOST}:{port}"
        server = _Server(config, lambda: announce(url))
        server.run(sockets=[sock])
        sys.stderr.flush()
    finally:
        lock.release()
