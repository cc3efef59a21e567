"""``create_app``: the FastAPI application of `gno serve` and `gno daemon`.

API routes come from the registry (``routes``); `/openapi.json` and `/docs`
are FastAPI's, fed with the contract schemas; `/mcp` is the MCP gateway
(``ServeOptions.mcp``: the MCP surface's ``http_app``, handed in by the command that
starts the server, so the two surfaces never import each other), built on first use
(``mcp_gateway``) so the API never waits for the MCP SDK import; its session manager
runs inside this app's lifespan because mounted apps' own lifespans never run. The Web UI
(``gno.web``: page routes and ``/assets``) comes after every API route. The daemon is the
same app cut down to `/mcp`, `/api/resident/status` and (same-host callers
only) `/api/status`, with no OpenAPI pages. Background services of both start
in ``start_background``.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Protocol

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from gno import __version__
from gno.app import App
from gno.resident.runtime import Limits, Resident
from gno.rest import assets, openapi, path_ids, routes, rpc, session
from gno.rest.docs_page import add_docs
from gno.rest.egress_gate import EgressPaths, McpEgressGate
from gno.rest.errors import catalog_response, error_response
from gno.rest.events import EVENT_SCHEMA, add_events_route
from gno.rest.mcp_gateway import McpGateway
from gno.rest.mcp_http import ExactPath, StrictRefusals, TransportChecks, WriteGate
from gno.rest.mcp_limits import McpLimitGate, McpLimits
from gno.rest.security import GateMiddleware, Gates

# What `gno daemon` serves besides /mcp: lifecycle and, to same-host callers, status.
DAEMON_SAME_HOST_ONLY = frozenset({"/api/status"})
DESCRIPTION = (
    "The local gno engine over HTTP: the same operations as the CLI and MCP "
    "(schemas in gno://schemas/…). Loopback only; errors are "
    '`{"error": {"code", "message", "details"?}}`.'
)


class McpApp(Protocol):
    """The MCP surface over Streamable HTTP for one App: (ASGI app, the async context
    manager its life must run inside)."""

    def __call__(
        self,
        app: App,
        *,
        enable_write: bool = ...,
        profile: str = ...,
        allowed_hosts: list[str] | None = ...,
        allowed_origins: list[str] | None = ...,
        max_sessions: int | None = ...,
        session_idle_seconds: float | None = ...,
        max_body_bytes: int | None = ...,
        on_sessions: Callable[[Callable[[], int]], None] | None = ...,
    ) -> tuple[Any, Any]: ...


@dataclass
class ServeOptions:
    gates: Gates = field(default_factory=Gates)
    limits: Limits = field(default_factory=Limits)
    mode: str = "serve"  # serve | daemon
    sync_on_start: bool = False  # daemon: sync every collection once, as a background job
    # Builds the `/mcp` mount (``gno.mcp.server.http_app``); None: no `/mcp`.
    mcp: McpApp | None = None
    mcp_enable_write: bool = False
    mcp_profile: str = "full"
    # index.yml's gateway.limits (gno/rest/mcp_limits.py): per-peer rate, sessions, idle time;
    # maxConcurrentRequests and maxQueuedRequests bound the gateway's requests (security.py).
    mcp_limits: dict[str, int] = field(default_factory=dict)
    web_ui: bool = True  # the browser pages at /, /search, … (serve only)
    watch: bool = True  # the file watcher (`--no-watch` turns it off)
    embed_delay: float | None = None  # daemon: embed what syncs changed this long after
    # False when the host runs the lifespan per request (in-process test clients) and
    # calls ``api.state.runtime.drain()`` itself at the end.
    drain_on_shutdown: bool = True
    # Processes beside the owner that run BM25 searches (`search_processes`); 0: threads.
    search_processes: int = 0


def create_app(app: App, *, options: ServeOptions | None = None) -> FastAPI:
    """The server for one owner App; it becomes the process's resident runtime."""
    options = options or ServeOptions()
    daemon = options.mode == "daemon"
    runtime = Resident(app, _with_gateway_limits(options), mode=options.mode)
    runtime.port = options.gates.port
    runtime.max_sessions = options.mcp_limits.get("maxSessions", 0)
    gateway = McpGateway(partial(_mcp, runtime, options)) if options.mcp is not None else None

    @contextlib.asynccontextmanager
    async def lifespan(_: FastAPI) -> AsyncIterator[None]:
        async with contextlib.AsyncExitStack() as stack:
            if gateway is not None:
                await stack.enter_async_context(gateway.running())
            start_background(runtime, options)
            yield
        if options.drain_on_shutdown:
            if dispatcher.processes is not None:
                dispatcher.processes.close()
            runtime.drain()  # watcher, then jobs, readers and the store, in order

    api = FastAPI(
        title="gno",
        version=__version__,
        description=DESCRIPTION,
        lifespan=lifespan,
        redoc_url=None,
        docs_url=None,  # gno's own /docs (docs_page): Swagger UI served locally, no CDN
        openapi_url=None if daemon else "/openapi.json",
    )
    api.state.runtime = runtime
    if daemon:
        options.gates.same_host_only = options.gates.same_host_only | DAEMON_SAME_HOST_ONLY
    dispatcher = routes.Dispatcher(runtime, 0 if daemon else options.search_processes)
    api.state.dispatcher = dispatcher
    for route in routes.routes():
        if daemon and not route.op.daemon:
            continue  # the daemon serves no REST reads of content and no REST writes
        # A document ref in the path is one segment as sent (path_ids); FastAPI's own
        # add_api_route takes no route class, its router's does.
        api.router.add_api_route(
            route.path,
            routes.endpoint(route, dispatcher),
            route_class_override=path_ids.RefRoute if path_ids.takes_refs(route.path) else None,
            methods=[route.method],
            status_code=route.status,
            summary=route.op.summary,
            operation_id=route.op.id,
            responses=routes.responses(route),
            openapi_extra=routes.openapi_extra(route),
            response_model=None,
        )
    # The SDK's remote transport: each operation's own input in, its output model out. Not in
    # the OpenAPI document (each is an operation the registry already documents).
    for route in rpc.rpc_routes():
        if daemon and not route.op.daemon:
            continue
        api.add_api_route(
            route.path,
            rpc.rpc_endpoint(route, dispatcher),
            methods=["POST"],
            include_in_schema=False,  # the operations as they are, documented in spec/sdk.md
            response_model=None,
        )
    if not daemon:
        add_docs(api, "gno")
        add_events_route(api, runtime)
        assets.add_routes(api, runtime)  # /api/doc-asset: bytes, not a registry operation
        session.add_routes(api, options.gates)  # /api/session: the Web UI's token cookie
    _error_handlers(api)
    api.openapi = lambda: _openapi(api)  # type: ignore[method-assign]
    if gateway is not None:
        # Order (surfaces.md §3.6): per-peer rate limit, transport checks, write gate, egress
        # policy, bodies only Python's parser reads refused as stdio refuses them, the SDK.
        guarded = McpEgressGate(
            StrictRefusals(gateway), dispatcher.egress, enable_write=options.mcp_enable_write
        )
        gated = TransportChecks(WriteGate(guarded, enable_write=options.mcp_enable_write))
        mcp_app = McpLimitGate(gated, McpLimits.from_config(options.mcp_limits))
        api.router.routes.append(Route("/mcp", ExactPath(mcp_app)))  # no 307 to /mcp/
        api.mount("/mcp", mcp_app)
    if not daemon and options.web_ui:
        from gno import web

        web.add_routes(api)
    api.add_middleware(EgressPaths, gate=dispatcher.egress)  # inside the gate middleware
    api.add_middleware(GateMiddleware, gates=options.gates, runtime=runtime)
    return api


def _with_gateway_limits(options: ServeOptions) -> Limits:
    """The runtime's limits with index.yml's ``maxConcurrentRequests`` and
    ``maxQueuedRequests`` where the file sets them (else GNO's defaults, 64 and 16)."""
    given, limits = options.mcp_limits, options.limits
    return replace(
        limits,
        max_concurrent_requests=given.get("maxConcurrentRequests", limits.max_concurrent_requests),
        max_queued_requests=given.get("maxQueuedRequests", limits.max_queued_requests),
    )


def start_background(runtime: Resident, options: ServeOptions) -> None:
    """The one place serve and daemon start work of their own once the app starts: the
    file watcher and the daemon's embed scheduler (idempotent, as in-process test clients
    run the lifespan per request; stopped first by the drain) and the daemon's initial
    sync."""
    runtime.start_background(watch=options.watch, embed_delay=options.embed_delay)
    if options.sync_on_start:
        _initial_sync(runtime)


def _initial_sync(runtime: Resident) -> None:
    """Every collection, once, through the job queue (so a REST or MCP sync joins or
    waits for it); the outcome goes to the log."""
    import sys
    import threading

    from gno_contracts.models.update_input import UpdateInput

    from gno.errors import GnoError
    from gno.services.jobs import submit_sync

    try:
        job = submit_sync(runtime.owner, UpdateInput())
    except GnoError as exc:
        print(f"gno {runtime.owner.mode}: initial sync not started: {exc.message}", file=sys.stderr)
        return

    def report() -> None:
        job.done.wait()
        result = job.result.value if job.result is not None else None
        totals = result.model_dump(mode="json") if result is not None else {}
        outcome = (
            f"failed: {job.error}"
            if job.error
            else "done: {} added, {} updated, {} errors".format(
                totals.get("totalFilesAdded", 0),
                totals.get("totalFilesUpdated", 0),
                totals.get("totalFilesErrored", 0),
            )
        )
        print(f"gno {runtime.owner.mode}: initial sync {outcome}", file=sys.stderr, flush=True)

    threading.Thread(target=report, name="gno-initial-sync-report", daemon=True).start()


def _mcp(runtime: Resident, options: ServeOptions) -> tuple[Any, Any]:
    http_app = options.mcp
    assert http_app is not None
    port, gateway = options.gates.port, options.gates.gateway
    hosts = origins = None
    if gateway is not None:  # the gateway checks first; the SDK's own check stays as a backstop
        hosts, origins = gateway.hosts(), gateway.origins()
    elif port:
        hosts = [f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"]
        origins = [f"http://{h}" for h in hosts]
    # MCP calls get their own connection but share the runtime's jobs and models.
    mcp_app = runtime.owner.derive()
    limits = McpLimits.from_config(options.mcp_limits)
    return http_app(
        mcp_app,
        enable_write=options.mcp_enable_write,
        profile=options.mcp_profile,
        allowed_hosts=hosts,
        allowed_origins=origins,
        max_sessions=limits.max_sessions,
        session_idle_seconds=limits.idle_seconds,
        max_body_bytes=options.gates.max_body_bytes,  # checked by GateMiddleware first
        on_sessions=runtime.count_mcp_sessions_with,
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
        ids = routes.schema_ids() | {EVENT_SCHEMA}
        schemas = openapi.components(ids)
        bodies = openapi.body_components(routes.body_schemas())
        assert not schemas.keys() & bodies.keys(), "a body component shadows a schema"
        document.setdefault("components", {})["schemas"] = schemas | bodies
        api.openapi_schema = document
    return api.openapi_schema
