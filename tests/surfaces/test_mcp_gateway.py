"""The `/mcp` mount built on first use (``gno.rest.mcp_gateway``) on a real uvicorn.

The build stands in for importing the MCP SDK: it blocks until the test lets it go,
so the test can see what the server does meanwhile.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import httpx
from starlette.applications import Starlette
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Mount, Route

from gno.rest.mcp_gateway import McpGateway
from tests.live_server import DEADLINE, get, live_server, wait_until


class SlowBuild:
    """A build that waits for ``release`` and records that its lifespan ran."""

    def __init__(self, fail: bool = False) -> None:
        self.release = threading.Event()
        self.started = threading.Event()
        self.fail = fail
        self.lifespan: list[str] = []

    def __call__(self) -> tuple[Any, Callable[[], Any]]:
        self.started.set()
        assert self.release.wait(DEADLINE)
        if self.fail:
            raise RuntimeError("the SDK did not import")

        async def gateway_app(scope: Any, receive: Any, send: Any) -> None:
            await PlainTextResponse(f"mcp {scope['path']}")(scope, receive, send)

        @contextlib.asynccontextmanager
        async def lifespan() -> AsyncIterator[None]:
            self.lifespan.append("entered")
            yield
            self.lifespan.append("exited")

        return gateway_app, lifespan


@contextlib.contextmanager
def serving(
    build: SlowBuild, *, eager: bool = False, release_after_stop: bool = False
) -> Iterator[str]:
    gateway = McpGateway(build, eager=eager)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette) -> AsyncIterator[None]:
        async with gateway.running():
            yield

    async def health(_: Any) -> JSONResponse:
        return JSONResponse({"ok": True})

    host = Starlette(
        routes=[Route("/api/health", health), Mount("/mcp", gateway)], lifespan=lifespan
    )
    with live_server(host) as (url, server):
        try:
            yield url
        finally:
            if release_after_stop:  # the build finishes only once the server is shutting down
                server.should_exit = True
                wait_until(lambda: gateway.stopping)
            build.release.set()


def test_the_gateway_is_built_on_first_use_and_early_requests_wait_for_it() -> None:
    build = SlowBuild()
    with serving(build) as url, ThreadPoolExecutor(2) as pool:
        assert get(url, "/api/health").json() == {"ok": True}
        assert not build.started.is_set()  # nobody asked for /mcp yet: no SDK import
        early: Future[httpx.Response] = pool.submit(get, url, "/mcp/")
        assert build.started.wait(DEADLINE)
        assert get(url, "/api/health").json() == {"ok": True}  # the build is still blocked
        assert not early.done()
        build.release.set()
        answer = early.result(DEADLINE)
        assert (answer.status_code, answer.text) == (200, "mcp /mcp/")
        assert get(url, "/mcp/").text == "mcp /mcp/"
        assert build.lifespan == ["entered"]
    assert build.lifespan == ["entered", "exited"]  # the session manager stops with the server


def test_a_failed_build_answers_the_runtime_envelope() -> None:
    build = SlowBuild(fail=True)
    build.release.set()
    with serving(build) as url:
        answer = get(url, "/mcp/")
        assert answer.status_code == 500
        assert answer.json()["error"]["code"] == "RUNTIME"
        assert "Traceback" not in answer.text
        assert get(url, "/api/health").status_code == 200
    assert build.lifespan == []


def test_eager_build_and_a_server_stopped_while_it_builds() -> None:
    build = SlowBuild()
    with serving(build, eager=True, release_after_stop=True):
        assert build.started.wait(DEADLINE)  # started with the server, no request needed
    assert build.lifespan == []  # built after the stop: never entered


def test_a_gateway_never_used_is_never_built() -> None:
    build = SlowBuild()
    with serving(build) as url:
        assert get(url, "/api/health").status_code == 200
    assert not build.started.is_set()
