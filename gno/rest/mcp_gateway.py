"""The `/mcp` mount of `gno serve`, built on first use.

Importing the MCP SDK takes about as long as everything else `gno serve` does before
it answers (~1 s of imports, much of it building pydantic models with the GIL held),
so neither the start nor the first REST requests wait for it: the first `/mcp`
request starts the build on a worker thread, and every `/mcp` request waits until
the gateway's own lifespan (the SDK session manager) is running. ``eager=True``
starts the build with the server instead. A build that failed answers 500 RUNTIME
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
    def __init__(self, build: Build, *, eager: bool = False) -> None:
        self._build, self._eager = build, eager
        self._asgi: Any = None
        self._wanted: anyio.Event | None = None
        self._ready: anyio.Event | None = None
        self._stop: anyio.Event | None = None

    @property
    def stopping(self) -> bool:
        return self._stop is not None and self._stop.is_set()

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        """Enter in the server's lifespan: runs the gateway once built, stops it on exit."""
        self._wanted, self._ready, self._stop = anyio.Event(), anyio.Event(), anyio.Event()
        if self._eager:
            self._wanted.set()
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(self._serve, self._wanted, self._ready, self._stop)
            try:
                yield
            finally:
                self._stop.set()
                self._wanted.set()  # a gateway never asked for is never built

    async def _serve(self, wanted: anyio.Event, ready: anyio.Event, stop: anyio.Event) -> None:
        await wanted.wait()
        if stop.is_set():
            ready.set()
            return
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
        if self._asgi is None and self._ready is not None and self._wanted is not None:
            self._wanted.set()
            await self._ready.wait()
        asgi = self._asgi
        if asgi is None:
            if scope["type"] == "http":
                await catalog_response("RUNTIME")(scope, receive, send)
            return
        await asgi(scope, receive, send)
