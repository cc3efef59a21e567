"""The MCP server (official SDK, low-level ``Server``) over stdio and Streamable HTTP.

One ``build_server`` makes the server for both transports from the registry
(``gno/mcp/tools.py``). Tool calls run on worker threads, one at a time per
server (GNO serializes them too; the others wait for their turn on the event loop,
``in_turn``), except job status and job list, which must answer while a job's first
steps hold the turn. ``http_app`` is the one
function the resident server (`gno serve`) mounts at ``/mcp``.
"""

from __future__ import annotations

import contextlib
import io
import os
import signal
import sys
from collections.abc import AsyncIterator, Callable
from functools import partial
from typing import Any, TypeVar, cast

import anyio
import mcp_types as t
from mcp.server import Server
from mcp.shared.exceptions import MCPError

from gno import __version__
from gno.app import App
from gno.errors import GnoError, NotFoundError
from gno.mcp.early import INSTRUCTIONS, EarlyStart, claim_stdin
from gno.mcp.tools import Outcome, call, failure, tools
from gno.mcp.wire import Pending, answer_relay, guarded, read_lines, stdio_relay
from gno.services.call import Call, bind, http_zone

R = TypeVar("R")
RESOURCE_NOT_FOUND = -32002  # MCP's code for an unknown resource
INTERRUPTED = 130  # the CLI's exit code for Ctrl-C and SIGTERM (surfaces.md §2.1)
TEMPLATE = "gno://{collection}/{+path}"


def _sdk_tool(tool: Any) -> t.Tool:
    return t.Tool(
        name=tool.name,
        description=tool.description,
        input_schema=tool.input_schema,
        output_schema=tool.output_schema,
        annotations=t.ToolAnnotations(
            read_only_hint=tool.read_only,
            destructive_hint=tool.destructive,
            idempotent_hint=tool.idempotent,
            open_world_hint=False,
        ),
    )


def _result(outcome: Outcome) -> dict[str, Any]:
    """A tools/call result in its wire form. Not a ``CallToolResult``: the SDK dumps a
    model to a dict, walking ``structuredContent`` value by value, and then validates and
    dumps that dict once more for the protocol version; from a dict only the second walk
    is left (a 1,000-entry page of `changes`: ~15 ms less of a ~73 ms round trip)."""
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": outcome.text}],
        "structuredContent": outcome.structured,
        "isError": outcome.is_error,
        "resultType": "complete",  # what the model writes; older protocol versions drop it
    }
    if outcome.meta is not None:  # a retrieval trace id when tracing is on
        result["_meta"] = outcome.meta
    return result


def build_server(
    app: App,
    *,
    enable_write: bool = False,
    profile: str = "full",
    turn: anyio.Lock | None = None,
) -> Server[Any]:
    """The server for one App. ``enable_write`` and ``profile`` fix the tool set for its life.
    ``turn``: held by each tool call and resource read that touches the index (``in_turn``)."""
    available = tools(profile, enable_write)
    listed = t.ListToolsResult(tools=[_sdk_tool(tool) for tool in available.values()])
    turn = turn or anyio.Lock()

    def run_tool(tool: Any, arguments: dict[str, Any], context: Call) -> Outcome:
        if tool.op.execution != "memory":  # job queries touch no SQLite connection
            try:
                app.refresh_config()
            except GnoError as exc:  # e.g. index.yml edited into invalid YAML
                return failure(exc.code, exc.message)
        return call(app, tool, arguments, context)

    async def list_tools(ctx: Any, params: Any) -> t.ListToolsResult:
        return listed

    async def call_tool(ctx: Any, params: t.CallToolRequestParams) -> dict[str, Any]:
        tool = available.get(params.name)
        if tool is None:  # outside the profile or the write gate: unknown, as GNO answers
            raise MCPError(code=t.INVALID_PARAMS, message=f"Unknown tool: {params.name}")
        work = partial(run_tool, tool, dict(params.arguments or {}), _call_of(ctx))
        if tool.op.execution == "memory":  # answers while another call holds the turn
            return _result(await anyio.to_thread.run_sync(work))
        return _result(await in_turn(turn, work))

    async def list_resources(ctx: Any, params: Any) -> t.ListResourcesResult:
        from gno.services.resources import MIME
        from gno.services.resources import list_resources as page_of

        offset = _cursor_offset(getattr(params, "cursor", None) if params else None)
        try:
            page, following = await in_turn(
                turn, partial(_resource, _call_of(ctx), page_of, app, offset)
            )
        except GnoError:  # no index yet: nothing to list
            return t.ListResourcesResult(resources=[])
        return t.ListResourcesResult(
            resources=[
                t.Resource(
                    uri=r.uri, name=r.name, title=r.title, description=r.title, mime_type=MIME
                )
                for r in page
            ],
            next_cursor=str(following) if following is not None else None,
        )

    async def list_templates(ctx: Any, params: Any) -> t.ListResourceTemplatesResult:
        return t.ListResourceTemplatesResult(
            resource_templates=[
                t.ResourceTemplate(
                    uri_template=TEMPLATE,
                    name="gno-document",
                    description="An indexed document's Markdown mirror with line numbers.",
                    mime_type="text/markdown",
                )
            ]
        )

    async def read_resource(ctx: Any, params: t.ReadResourceRequestParams) -> t.ReadResourceResult:
        from gno.services.resources import MIME
        from gno.services.resources import read_resource as read
        from gno.services.tag_resource import MIME as TAGS_MIME
        from gno.services.tag_resource import is_tags_uri, read_tags

        uri = str(params.uri)
        mime = TAGS_MIME if is_tags_uri(uri) else MIME
        try:
            reader = read_tags if is_tags_uri(uri) else read
            text = await in_turn(turn, partial(_resource, _call_of(ctx), reader, app, uri))
        except NotFoundError as exc:
            raise MCPError(
                code=RESOURCE_NOT_FOUND, message=exc.message, data={"uri": uri}
            ) from None
        except GnoError as exc:
            raise MCPError(code=t.INVALID_PARAMS, message=exc.message, data={"uri": uri}) from None
        return t.ReadResourceResult(
            contents=[t.TextResourceContents(uri=uri, mime_type=mime, text=text)]
        )

    return Server(
        "gno",
        version=__version__,
        instructions=INSTRUCTIONS,
        get_tool_input_schema=lambda name: (
            available[name].input_schema if name in available else None
        ),
        on_list_tools=guarded(list_tools),
        # The runner takes a result as a dict or a model (mcp.server.context.HandlerResult);
        # the constructor's annotation names only the model.
        on_call_tool=cast(Any, guarded(call_tool)),
        on_list_resources=guarded(list_resources),
        on_list_resource_templates=guarded(list_templates),
        on_read_resource=guarded(read_resource),
    )


MAX_CURSOR_DIGITS = 12


def _call_of(ctx: Any) -> Call:
    """A tool call's or resource read's ``Call``: over HTTP the zone of the request's
    peer, on stdio the process that spawned this server (``local_process``)."""
    request = getattr(ctx, "request", None)
    scope = getattr(request, "scope", None)
    if not isinstance(scope, dict):
        return Call("mcp")
    return Call("mcp", http_zone(scope.get("client")))


def _cursor_offset(cursor: str | None) -> int:
    """The offset a ``nextCursor`` of ours stands for; anything else is -32602."""
    if cursor is None or cursor == "":
        return 0
    if not (cursor.isascii() and cursor.isdigit() and len(cursor) <= MAX_CURSOR_DIGITS):
        raise MCPError(
            code=t.INVALID_PARAMS,
            message="Invalid cursor: pass the nextCursor of the previous page",
        )
    return int(cursor)


async def in_turn(turn: anyio.Lock, work: Callable[[], R]) -> R:
    """``work()`` on a worker thread once ``turn`` is free. A call waiting for its turn
    waits on the event loop, holding no thread: the worker threads are the ones the REST
    routes of `gno serve` run on, and a queue of `/mcp` calls blocked behind a slow one (a
    capture waiting for the writer lease) once took them all, so REST stopped answering
    too. A call whose client went away while it waited is dropped from the queue."""
    async with turn:
        return await anyio.to_thread.run_sync(work)


def _resource(context: Call, fn: Any, *args: Any) -> Any:
    """A resource read, in turn with tool calls, under its ``Call``."""
    app = args[0]
    with bind(context):
        app.refresh_config()
        return fn(*args)


async def serve_stdio(
    app: App, *, enable_write: bool, profile: str, early: EarlyStart | None = None
) -> None:
    """Speak MCP on stdin/stdout until the client closes stdin. Logs go to stderr only.
    ``early``: the first line was read (and `initialize` maybe answered) before the SDK
    was imported (gno/mcp/early.py); it is read again, and the SDK's answer dropped."""
    from mcp.server.stdio import stdio_server

    app.mode = "stdio"
    turn = anyio.Lock()
    server = build_server(app, enable_write=enable_write, profile=profile, turn=turn)
    # gno reads the client's lines itself (bounded, wire.read_lines); the SDK's transport
    # only writes (its reader gets an empty stream and ends at once).
    stdin = claim_stdin(early.prefix if early is not None else b"")
    answered = early.answered if early is not None else None
    nothing = anyio.wrap_file(io.StringIO())
    async with stdio_server(stdin=nothing) as (unread, write), anyio.create_task_group() as signals:
        unread.close()
        if sys.platform != "win32":
            signals.start_soon(_stop_on_signal, app, turn)
        # Lines the SDK cannot decode are answered by the relay (wire.py), not dropped.
        # Requests read before stdin closed are answered before the server stops.
        inbound, decoded = anyio.create_memory_object_stream[Any](0)
        outbound, answers = anyio.create_memory_object_stream[Any](0)
        pending = Pending()
        async with anyio.create_task_group() as group:
            group.start_soon(stdio_relay, read_lines(stdin), write, inbound, pending)
            group.start_soon(answer_relay, answers, write, pending, answered)
            await server.run(decoded, outbound, server.create_initialization_options())
            # The server stops once stdin ended (the relay waited for the pending answers)
            # and closed ``outbound``; the answer relay then closes stdout and ends.
        signals.cancel_scope.cancel()


async def _stop_on_signal(app: App, turn: anyio.Lock) -> None:
    """SIGTERM or Ctrl-C ends `gno mcp` once the tool calls in progress or already waiting
    for their turn are done (a write finishes and is indexed; none starts after them),
    then exits 130 at once. Not through
    cancellation: the thread reading the client's stream is blocked in read(2) while the
    client keeps stdin open, and neither anyio nor the interpreter's exit would stop
    waiting for it. A second signal exits without waiting."""
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
        async for _ in signals:
            break

        async def at_once() -> None:
            async for _ in signals:
                os._exit(INTERRUPTED)

        async with anyio.create_task_group() as group:
            group.start_soon(at_once)
            await turn.acquire()  # never released: the process ends holding it
            group.cancel_scope.cancel()
    app.close()
    sys.stderr.flush()
    os._exit(INTERRUPTED)


def http_app(
    app: App,
    *,
    enable_write: bool = False,
    profile: str = "full",
    stateless: bool = False,
    allowed_hosts: list[str] | None = None,
    allowed_origins: list[str] | None = None,
    max_sessions: int | None = None,
    session_idle_seconds: float | None = None,
    max_body_bytes: int | None = None,
    on_sessions: Callable[[Callable[[], int]], None] | None = None,
) -> tuple[Any, Any]:
    """Streamable HTTP as an ASGI app to mount at ``/mcp``, and the async context manager
    that must wrap its life (mounted apps' lifespans do not run: the host enters it).
    ``max_sessions`` / ``session_idle_seconds``: index.yml's ``gateway.limits`` (None: the
    SDK's own bounds). ``max_body_bytes``: the host's request body limit, which its own
    middleware applies (None: the SDK's 4 MiB). ``on_sessions`` is handed the count of open
    stateful sessions (the resident status's ``transport.activeSessions``)."""
    from mcp.server.transport_security import TransportSecuritySettings

    server = build_server(app, enable_write=enable_write, profile=profile)
    security = None
    if allowed_hosts is not None:
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True,
            allowed_hosts=allowed_hosts,
            allowed_origins=allowed_origins or [],
        )
    bounds: dict[str, Any] = {}
    if max_sessions is not None:
        bounds["max_sessions"] = max_sessions
    if session_idle_seconds is not None:
        bounds["session_idle_timeout"] = session_idle_seconds
    if max_body_bytes is not None:  # the SDK's own 4 MiB would refuse what the host allows
        bounds["max_request_body_size"] = max_body_bytes
    asgi = server.streamable_http_app(
        streamable_http_path="/",
        stateless_http=stateless,
        json_response=stateless,
        transport_security=security,
        **bounds,
    )

    if on_sessions is not None:
        # The SDK keeps no public count. Its table holds a session from the `initialize`
        # that opened it to its DELETE, its idle expiry or its failed opening
        # (mcp/server/streamable_http_manager.py); stateless requests never enter it.
        manager = server.session_manager
        on_sessions(lambda: len(manager._server_instances))

    @contextlib.asynccontextmanager
    async def lifespan() -> AsyncIterator[None]:
        async with server.session_manager.run():
            yield

    return asgi, lifespan


def main(app: App, *, enable_write: bool, profile: str, early: EarlyStart | None = None) -> None:
    interrupted = False
    try:
        anyio.run(
            partial(serve_stdio, app, enable_write=enable_write, profile=profile, early=early)
        )
    except KeyboardInterrupt:  # a signal before _stop_on_signal listens (or on Windows)
        interrupted = True
    finally:
        app.close()
        sys.stderr.flush()
    if interrupted:  # the reader of stdin may be blocked for ever: see _stop_on_signal
        os._exit(INTERRUPTED)
