"""`gno mcp` commands: the stdio server (the group's default action, and `serve`), and
install, status, uninstall. The SDK and the installers load only when a command runs."""

from __future__ import annotations

import json
import os
from typing import Annotated, Any

import typer

from gno.cli.app import mcp_app, summary
from gno.cli.common import build, call, pick_format, settings
from gno.cli.output import dump, write, write_json
from gno.errors import ValidationError

TARGET_NAMES = (
    "claude-desktop, claude-code, codex, cursor, zed, windsurf, opencode, amp, lmstudio, librechat"
)
Json = Annotated[bool, typer.Option("--json", help="JSON output.")]
Scope = Annotated[
    str,
    typer.Option(
        "-s",
        "--scope",
        help="user (the client's own config) or project (the config in the current folder: "
        "claude-code, codex, cursor, opencode, librechat).",
    ),
]
Target = Annotated[str, typer.Option("-t", "--target", help=f"The client: {TARGET_NAMES}.")]


# ---------------------------------------------------------------- the server

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


def resolve_tool_profile(app: object, flag: str | None) -> str:
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
    main(app, enable_write=write, profile=resolve_tool_profile(app, tool_profile))


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


# ---------------------------------------------------------------- install / status / uninstall


def _label(target_id: str) -> str:
    from gno.mcpinstall.targets import TARGETS

    return TARGETS[target_id].label


@mcp_app.command("install", help=summary("mcp_install"))
def mcp_install(
    ctx: typer.Context,
    target: Target = "claude-desktop",
    scope: Scope = "user",
    force: Annotated[
        bool, typer.Option("-f", "--force", help="Replace an existing gno entry.")
    ] = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print what would be written; write nothing.")
    ] = False,
    enable_write: Annotated[
        bool,
        typer.Option("--enable-write", help="Let the client's AI create and change documents."),
    ] = False,
    tool_profile: Annotated[
        str | None,
        typer.Option(
            "--tool-profile", help="core (a slim set of read tools) or full (the default)."
        ),
    ] = None,
    json_: Json = False,
) -> None:
    from gno_contracts.models.mcp_install_input import McpInstallInput

    fmt = pick_format(ctx, json=json_)
    inp = build(
        McpInstallInput,
        target=target,
        scope=scope,
        force=force,
        dryRun=dry_run,
        enableWrite=enable_write,
        toolProfile=tool_profile,
    )
    result = call(ctx, "mcp_install", inp)
    if fmt == "json":
        write_json(result)
        return
    r: Any = dump(result)["installed"]  # type: ignore[call-overload]
    where = f"{_label(r['target'])} ({r['scope']}): {r['configPath']}"
    entry = json.dumps(r["serverEntry"], indent=2, ensure_ascii=False)
    lines = {
        "created": [f"Installed gno in {where}"],
        "updated": [f"Replaced gno's entry in {where}"],
        "unchanged": [f"gno's entry in {where} is already this one; nothing written."],
        "would_create": [f"Dry run: would add gno to {where}", entry],
        "would_update": [f"Dry run: would replace gno's entry in {where}", entry],
    }[r["action"]]
    if r.get("backupPath"):
        lines.append(f"Previous file kept as {r['backupPath']}")
    if r["action"] in ("created", "updated"):
        lines.append(f"Restart {_label(r['target'])} to load it.")
    write("\n".join(lines))


@mcp_app.command("status", help=summary("mcp_status"))
def mcp_status(
    ctx: typer.Context,
    target: Annotated[
        str, typer.Option("-t", "--target", help=f"all, or one client: {TARGET_NAMES}.")
    ] = "all",
    scope: Annotated[str, typer.Option("-s", "--scope", help="all, user or project.")] = "all",
    json_: Json = False,
) -> None:
    from gno_contracts.models.mcp_status_input import McpStatusInput

    fmt = pick_format(ctx, json=json_)
    result = call(ctx, "mcp_status", build(McpStatusInput, target=target, scope=scope))
    if fmt == "json":
        write_json(result)
        return
    r: Any = dump(result)
    lines = []
    for row in r["targets"]:
        if row.get("error"):
            state = "unreadable"
        elif row["configured"]:
            flags = [row.get("toolProfile", "?")] + (["write"] if row.get("enableWrite") else [])
            state = f"configured ({', '.join(flags)})"
        else:
            state = "-"
        lines.append(f"{row['target']:<15} {row['scope']:<8} {state:<24} {row['configPath']}")
        if row.get("error"):
            lines.append(f"  {row['error']}")
    lines.append(f"{r['summary']['configured']} of {r['summary']['total']} configured")
    write("\n".join(lines))


@mcp_app.command("uninstall", help=summary("mcp_uninstall"))
def mcp_uninstall(
    ctx: typer.Context,
    target: Target = "claude-desktop",
    scope: Scope = "user",
    json_: Json = False,
) -> None:
    from gno_contracts.models.mcp_uninstall_input import McpUninstallInput

    fmt = pick_format(ctx, json=json_)
    result = call(ctx, "mcp_uninstall", build(McpUninstallInput, target=target, scope=scope))
    if fmt == "json":
        write_json(result)
        return
    r: Any = dump(result)["uninstalled"]  # type: ignore[call-overload]
    where = f"{_label(r['target'])} ({r['scope']}): {r['configPath']}"
    if r["action"] == "removed":
        kept = f"\nPrevious file kept as {r['backupPath']}" if r.get("backupPath") else ""
        write(f"Removed gno from {where}{kept}")
    else:
        write(f"gno is not configured in {where}; nothing to remove.")
