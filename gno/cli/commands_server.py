"""Server commands: `gno mcp` (MCP over stdio) and `gno serve` (REST + MCP over HTTP).

FastAPI, uvicorn and the MCP SDK load only when a server starts."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from gno.cli.app import app as root_app
from gno.cli.app import mcp_app
from gno.cli.common import settings
from gno.errors import ValidationError

ToolProfile = Annotated[
    str | None,
    typer.Option(
        "--tool-profile",
        help="Tool set: full (every tool) or core (the few most agents need). "
        "Default: gateway.toolProfile in index.yml, else full.",
    ),
]
EnableWrite = Annotated[
    bool,
    typer.Option(
        "--enable-write",
        help="Also offer write tools (sync, embed, index, add/remove collection). "
        "Same as GNO_MCP_ENABLE_WRITE=1.",
    ),
]


def _profile(app: object, flag: str | None) -> str:
    """CLI flag, then `gateway.toolProfile` in index.yml, then full."""
    chosen = flag
    if chosen is None:
        try:
            chosen = (app.config.raw.get("gateway") or {}).get("toolProfile")  # type: ignore[attr-defined]
        except Exception:  # no config yet: the server still starts and says so per call
            chosen = None
    chosen = chosen or "full"
    if chosen not in ("full", "core"):
        raise ValidationError(f"Unknown tool profile {chosen!r}: use full or core")
    return chosen


def _serve(ctx: typer.Context, enable_write: bool, tool_profile: str | None) -> None:
    from gno.mcp.server import main

    app = settings(ctx).make_app()
    write = enable_write or os.environ.get("GNO_MCP_ENABLE_WRITE", "") in ("1", "true", "yes")
    main(app, enable_write=write, profile=_profile(app, tool_profile))


@mcp_app.callback(invoke_without_command=True)
def mcp(
    ctx: typer.Context, enable_write: EnableWrite = False, tool_profile: ToolProfile = None
) -> None:
    """MCP server over stdio (stdout carries only the protocol; logs go to stderr)."""
    if ctx.invoked_subcommand is None:
        _serve(ctx, enable_write, tool_profile)


@mcp_app.command("serve")
def mcp_serve(
    ctx: typer.Context, enable_write: EnableWrite = False, tool_profile: ToolProfile = None
) -> None:
    """MCP server over stdio (same as `gno mcp`)."""
    _serve(ctx, enable_write, tool_profile)


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
) -> None:
    """REST API, OpenAPI (/docs) and the MCP gateway (/mcp) on 127.0.0.1; Ctrl-C stops it."""
    from gno.resident.runtime import Limits
    from gno.rest.app import ServeOptions
    from gno.rest.security import Gates
    from gno.rest.serve import serve as run_server

    app = settings(ctx).make_app()
    options = ServeOptions(
        gates=Gates(token=os.environ.get("GNO_API_TOKEN") or None, max_body_bytes=max_body_bytes),
        limits=Limits(max_waiting_syncs=max_waiting_syncs),
        mcp_enable_write=mcp_enable_write
        or os.environ.get("GNO_MCP_ENABLE_WRITE", "") in ("1", "true", "yes"),
        mcp_profile=_profile(app, mcp_tool_profile),
    )

    def announce(url: str) -> None:
        typer.echo(f"gno serve: {url}  (API {url}/api, docs {url}/docs, MCP {url}/mcp)")

    run_server(app, port, options, announce)
