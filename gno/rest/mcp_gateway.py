"""The `/mcp` mount of `gno serve`, built in the background once the server runs.

Importing the MCP SDK takes about as long as everything else `gno serve` does
before it answers (~1 s of imports), so the REST API does not wait for it: the
server's lifespan starts the build on a worker thread and enters the gateway's
own lifespan (the SDK session manager) when it is done. An `/mcp` request that
arrives earlier waits for the build; a build that failed answers 500 RUNTIME
(the traceback goes to the server log).
"""

from __future__ import annotations

import contextlib
import sys
import traceback
from collections.abc import AsyncIterator, Awaitable, Callable, MutableMapping
from typing import Any

import anyio
import anyio.to_thread

from gno.rest.errors import catalog_response

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
# build() -> (ASGI app, async context manager factory the app must run inside)
Build = Callable[[], tuple[Any, Callable[[], contextlib.AbstractAsyncContextManager[Any]]]]


class McpGateway:
    def __init__(self, build: Build) -> None:
        self._build = build
        self._asgi: Any = None
        self._ready: anyio.Event | None = None
        self._stop: anyio.Event | None = None

    @property
    def stopping(self) -> bool:
        return self._stop is not None and self._stop.is_set()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Enter in the server's lifespan: builds the gateway meanwhile, stops it on exit."""
        self._ready, self._stop = anyio.Event(), anyio.Event()
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._serve, self._ready, self._stop)
            try:
                yield
            finally:
                self._stop.set()

    async def _serve(self, ready: anyio.Event, stop: anyio.Event) -> None:
        try:
            asgi, lifespan = await anyio.to_thread.run_sync(self._build)
        except Exception:
            traceback.print_exc(file=sys.stderr)
            ready.set()  # requests stop waiting and get RUNTIME
            return
        if stop.is_set():  # the server stopped while the SDK was still importing
            ready.set()
            return
        try:
            async with lifespan():
                self._asgi = asgi
                ready.set()
                await stop.wait()
        finally:
            self._asgi = None
            ready.set()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self._asgi is None and self._ready is not None:
            await self._ready.wait()
        asgi = self._asgi
        if asgi is None:
            if scope["type"] == "http":
                await catalog_response("RUNTIME")(scope, receive, send)
            return
        await asgi(scope, receive, send)
