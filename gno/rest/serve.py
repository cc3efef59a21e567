"""`gno serve` / `gno daemon`: own the data directory, bind, serve until SIGINT/SIGTERM.

Shutdown: on the signal admission turns to draining (``Resident.begin_drain``: a
read still waiting for a reader gets 503), the watcher stops submitting and every
event stream ends (``Resident.stop_background``), then uvicorn's graceful shutdown (stop
accepting, let in-flight requests finish, bounded), then our lifespan's
``Resident.drain`` (waiting jobs dropped, the running one given a deadline,
readers and the store closed), then the pid file of a detached run, and last
the ownership lock. uvicorn never rewrites the client address from forwarding
headers (``proxy_headers=False``): the gateway and redaction look at the socket
peer only.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType

import uvicorn

from gno.app import App
from gno.errors import PortUnavailableError
from gno.resident.lock import DataDirLock
from gno.resident.process import remove_pid_file, write_pid_file
from gno.rest import deadlines
from gno.rest.app import ServeOptions, create_app

HOST = "127.0.0.1"
GRACEFUL_SECONDS = 10


def _bind(host: str, port: int) -> socket.socket:
    address = "127.0.0.1" if host.lower() == "localhost" else host.strip("[]")
    try:
        family, _, proto, _, where = socket.getaddrinfo(
            address, port, type=socket.SOCK_STREAM, proto=socket.IPPROTO_TCP,
            flags=socket.AI_PASSIVE,
        )[0]  # fmt: skip
    except socket.gaierror:
        raise PortUnavailableError(f"Cannot listen on {host}: unknown host.") from None
    # proto=IPPROTO_TCP matters: asyncio sets TCP_NODELAY on accepted connections only when
    # the socket says so. Without it, a response written as headers then body waited for
    # the client's delayed ACK: 40 ms on every keep-alive request.
    sock = socket.socket(family, socket.SOCK_STREAM, proto or socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(where)
    except OSError as exc:
        sock.close()
        raise PortUnavailableError(
            f"Cannot listen on {host}:{port} ({exc.strerror}). Try another --port."
        ) from None
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


class _Server(uvicorn.Server):
    def __init__(
        self,
        config: uvicorn.Config,
        on_ready: Callable[[], None],
        on_exit: Callable[[], None],
        on_signal: Callable[[], None],
    ) -> None:
        super().__init__(config)
        self._on_ready, self._on_exit, self._on_signal = on_ready, on_exit, on_signal
        self._loop: asyncio.AbstractEventLoop | None = None

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        self._on_signal()  # lock-free: reads still waiting for a reader get 503 from now on
        # uvicorn waits for open requests before the lifespan ends; event streams never
        # finish on their own, so they (and the watcher) are told to stop now. Queued on
        # the loop, not run here: a signal handler must not take locks its thread may hold.
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._on_exit)
        super().handle_exit(sig, frame)

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        # uvicorn re-raises SIGINT/SIGTERM after its graceful shutdown, which would end the
        # process "killed by signal"; a completed ordered shutdown exits 0 instead.
        with super().capture_signals():
            yield
            self._captured_signals.clear()

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().startup(sockets)
        if not self.should_exit:
            self._on_ready()


def url_of(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host and not host.startswith("[") else host
    return f"http://{shown}:{port}"


def serve(
    app: App,
    port: int,
    options: ServeOptions,
    announce: Callable[[str], None],
    *,
    host: str = HOST,
    pid_file: Path | None = None,
) -> None:
    """Serve until a signal. ``pid_file`` (detached runs) is written once the server
    answers and removed on the way out."""
    kind = options.mode
    lock = DataDirLock(app.paths.data_dir)
    lock.acquire({"cmd": kind, "port": port})
    try:
        sock = _bind(host, port)
        port = sock.getsockname()[1]
        lock.update({"cmd": kind, "port": port})
        options.gates.port = port
        if options.gates.gateway is not None:
            options.gates.gateway.port = port
        api = create_app(app, options=options)
        config = uvicorn.Config(
            api,
            loop="asyncio",  # uvloop, if installed, starves the search threads (bench/README)
            # httptools (a dependency) with deadlines for headers and body (slow clients)
            http=deadlines.protocol(options.gates.header_seconds, options.gates.body_seconds),
            # No WebSocket route: an Upgrade stays a plain HTTP request under the gates, whichever
            # WebSocket library happens to be installed.
            ws="none",
            log_level="warning",
            lifespan="on",
            timeout_graceful_shutdown=GRACEFUL_SECONDS,
            access_log=False,
            proxy_headers=False,
        )
        url = url_of(host, port)
        runtime = api.state.runtime

        def ready() -> None:
            if pid_file is not None:
                write_pid_file(pid_file, kind, port)
            announce(url)

        server = _Server(
            config, ready, lambda: runtime.stop_background(wait=False), runtime.begin_drain
        )
        try:
            server.run(sockets=[sock])
        finally:
            if pid_file is not None:
                remove_pid_file(pid_file, os.getpid())
        sys.stderr.flush()
    finally:
        lock.release()
