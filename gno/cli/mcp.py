"""`gno mcp`: the stdio MCP server (the group's default action, and `mcp serve`).
`mcp install | status | uninstall` are registry operations (gno/cli/runner.py).
The SDK loads only when the server starts."""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

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


def resolve_tool_profile(app: Any, flag: str | None) -> str:
    """CLI flag, then `gateway.toolProfile` in index.yml, then full."""
    chosen = flag
    if chosen is None:
        try:
            chosen = (app.config.raw.get("gateway") or {}).get("toolProfile")
        except Exception:  # no config yet: the server still starts and says so per call
            chosen = None
    chosen = chosen or "full"
    if chosen not in ("full", "core"):
        raise ValidationError(f"Unknown tool profile {chosen!r}: use full or core")
    return str(chosen)


def _serve(ctx: typer.Context, enable_write: bool, tool_profile: str | None) -> None:
    from gno.mcp.server import main

    app = ctx.find_root().obj.make_app()
    write = enable_write or os.environ.get("GNO_MCP_ENABLE_WRITE", "") in ("1", "true", "yes")
    main(app, enable_write=write, profile=resolve_tool_profile(app, tool_profile))


def register(mcp_app: typer.Typer) -> None:
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
