"""`gno serve`: the REST API and the MCP gateway over HTTP (`gno mcp` is in commands_mcp).

FastAPI, uvicorn and the MCP SDK load only when the server starts."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from gno.cli.app import app as root_app
from gno.cli.commands_mcp import resolve_tool_profile
from gno.cli.common import settings


@root_app.command("serve")
def serve(
    ctx: typer.Context,
    port: Annotated[
        int,
        typer.Option(
            "-p", "--port", min=0, max=65535, help="Port on 127.0.0.1 (0: any free port)."
        ),
    ] = 3000,
    mcp_enable_write: Annotated[
        bool, typer.Option("--mcp-enable-write", help="Offer MCP write tools at /mcp.")
    ] = False,
    mcp_tool_profile: Annotated[
        str | None, typer.Option("--mcp-tool-profile", help="MCP tool set at /mcp: full or core.")
    ] = None,
    max_body_bytes: Annotated[
        int, typer.Option("--max-body-bytes", min=1, hidden=True, help="Request body limit.")
    ] = 1024 * 1024,
    max_waiting_syncs: Annotated[
        int, typer.Option("--max-waiting-syncs", min=0, hidden=True, help="Sync queue depth.")
    ] = 64,
    max_readers: Annotated[
        int, typer.Option("--max-readers", min=1, hidden=True, help="Parallel SQLite readers.")
    ] = 4,
    max_queued_reads: Annotated[
        int,
        typer.Option("--max-queued-reads", min=0, hidden=True, help="Reads waiting for a reader."),
    ] = 256,
    no_watch: Annotated[
        bool,
        typer.Option("--no-watch", help="Do not watch collection folders for changes."),
    ] = False,
    events_keepalive_ms: Annotated[
        int,
        typer.Option("--events-keepalive-ms", min=10, hidden=True, help="SSE keep-alive interval."),
    ] = 15_000,
) -> None:
    """REST API, OpenAPI (/docs), the MCP gateway (/mcp) and a file watcher that keeps the
    index in step with the collection folders, on 127.0.0.1; Ctrl-C stops it."""
    from gno.resident.runtime import Limits
    from gno.rest.app import ServeOptions
    from gno.rest.security import Gates
    from gno.rest.serve import serve as run_server

    app = settings(ctx).make_app()
    options = ServeOptions(
        gates=Gates(token=os.environ.get("GNO_API_TOKEN") or None, max_body_bytes=max_body_bytes),
        limits=Limits(
            readers=max_readers,
            max_queued_reads=max_queued_reads,
            max_waiting_syncs=max_waiting_syncs,
            events_keepalive_seconds=events_keepalive_ms / 1000,
        ),
        watch=not no_watch,
        mcp_enable_write=mcp_enable_write
        or os.environ.get("GNO_MCP_ENABLE_WRITE", "") in ("1", "true", "yes"),
        mcp_profile=resolve_tool_profile(app, mcp_tool_profile),
    )

    def announce(url: str) -> None:
        typer.echo(f"gno serve: {url}  (API {url}/api, docs {url}/docs, MCP {url}/mcp)")

    run_server(app, port, options, announce)
