"""``create_app``: the FastAPI application of `gno serve`.

API routes come from the registry (``routes``); `/openapi.json` and `/docs`
are FastAPI's, fed with the contract schemas; `/mcp` is the MCP gateway
(``gno.mcp.server.http_app``), built on first use (``mcp_gateway``) so the API never
waits for the MCP SDK import; its session manager runs inside this app's
lifespan because mounted apps' own lifespans never run. The Web UI will mount
its static files at ``WEB_UI_MOUNT`` (see ``mount_web_ui``).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.staticfiles import StaticFiles

from gno import __version__
from gno.app import App
from gno.resident.runtime import Limits, Resident
from gno.rest import openapi, routes
from gno.rest.errors import catalog_response, error_response
from gno.rest.mcp_gateway import McpGateway
from gno.rest.security import GateMiddleware, Gates

WEB_UI_MOUNT = "/"  # the Web UI (not built yet) is served from here, after /api and /mcp
DESCRIPTION = (
    "The local gno engine over HTTP: the same operations as the CLI and MCP "
    "(schemas in gno://schemas/…). Loopback only; errors are "
    '`{"error": {"code", "message", "details"?}}`.'
)


@dataclass
class ServeOptions:
    gates: Gates = field(default_factory=Gates)
    limits: Limits = field(default_factory=Limits)
    mcp: bool = True
    mcp_enable_write: bool = False
    mcp_profile: str = "full"
    web_ui_dir: Path | None = None  # static Web UI build, once there is one
    # False when the host runs the lifespan per request (in-process test clients) and
    # calls ``api.state.runtime.drain()`` itself at the end.
    drain_on_shutdown: bool = True


def create_app(app: App, *, options: ServeOptions | None = None) -> FastAPI:
    """The server for one owner App; it becomes the process's resident runtime."""
    options = options or ServeOptions()
    runtime = Resident(app, options.limits)
    runtime.port = options.gates.port
    gateway = McpGateway(partial(_mcp, runtime, options)) if options.mcp else None

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            if gateway is not None:
                await stack.enter_async_context(gateway.running())
            yield
        if options.drain_on_shutdown:
            runtime.drain()  # requests have stopped: jobs, readers and the store close in order

    api = FastAPI(
        title="gno",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        redoc_url=None,
    )
    api.state.runtime = runtime
    dispatcher = routes.Dispatcher(runtime)
    for route in routes.routes():
        api.add_api_route(
            route.path,
            routes.endpoint(route, dispatcher),
            methods=[route.method],
            status_code=route.status,
            summary=route.op.summary,
            operation_id=route.op.id,
            responses=routes.responses(route),
            openapi_extra=routes.openapi_extra(route),
            response_model=None,
        )
    _error_handlers(api)
    api.openapi = lambda: _openapi(api)  # type: ignore[method-assign]
    if gateway is not None:
        api.mount("/mcp", gateway)
    mount_web_ui(api, options.web_ui_dir)
    api.add_middleware(GateMiddleware, gates=options.gates, runtime=runtime)
    return api


def mount_web_ui(api: FastAPI, directory: Path | None) -> None:
    """Where the Web UI's static build will be served (after every API route)."""
    if directory is not None:
        api.mount(WEB_UI_MOUNT, StaticFiles(directory=directory, html=True), name="web-ui")


def _mcp(runtime: Resident, options: ServeOptions) -> tuple[Any, Any]:
    from gno.mcp.server import http_app
    from gno.resident.readers import ReaderApp

    port = options.gates.port
    hosts = origins = None
    if port:
        hosts = [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]
        origins = [f"http://{h}" for h in hosts]
    # MCP calls get their own connection but share the runtime's jobs and models.
    mcp_app = ReaderApp(runtime.owner, runtime.readers.model_lock)
    return http_app(
        mcp_app,
        enable_write=options.mcp_enable_write,
        profile=options.mcp_profile,
        allowed_hosts=hosts,
        allowed_origins=origins,
    )


def _error_handlers(api: FastAPI) -> None:
    async def http_error(request: Request, exc: Exception) -> Response:
        status = getattr(exc, "status_code", 500)
        if status == 404:
            return catalog_response("NOT_FOUND")
        if status == 405:
            return catalog_response("METHOD_NOT_ALLOWED")
        return error_response(status, "HTTP_ERROR", "The request could not be served")

    async def internal_error(request: Request, exc: Exception) -> Response:
        return catalog_response("RUNTIME")

    api.add_exception_handler(HTTPException, http_error)
    api.add_exception_handler(Exception, internal_error)


def _openapi(api: FastAPI) -> dict[str, Any]:
    if api.openapi_schema is None:
        document = get_openapi(
            title=api.title, version=api.version, description=api.description, routes=api.routes
        )
        document.setdefault("components", {})["schemas"] = openapi.components(routes.schema_ids())
        api.openapi_schema = document
    return api.openapi_schema
