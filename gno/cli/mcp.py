"""`gno mcp`: the stdio MCP server (the group's default action, and `mcp serve`).
`mcp install | status | uninstall` are registry operations (gno/cli/runner.py).
The SDK loads only when the server starts."""

from __future__ import annotations

from typing import Annotated

import typer

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


def _serve(ctx: typer.Context, enable_write: bool, tool_profile: str | None) -> None:
    from gno.launch import mcp_stdio

    mcp_stdio(ctx.find_root().obj.make_app(), enable_write=enable_write, tool_profile=tool_profile)


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
