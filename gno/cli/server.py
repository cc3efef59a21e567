"""`gno serve` (REST, OpenAPI, MCP at /mcp), `gno daemon` (headless MCP gateway) and `gno mcp`
(MCP over stdio). Their options are declared once, as the fields of gno/launch.py's
``ServerFlags`` (serve and daemon) and ``StdioFlags``; `--detach`, `--status` and `--stop`
are gno/resident/process.py's. FastAPI, uvicorn and the MCP SDK load only when a server
starts."""

from __future__ import annotations

import dataclasses
import sys
import typing
from collections.abc import Callable
from typing import Any

import typer
from gno_contracts.operations import CLI_COMMANDS

from gno.cli.commands import Param, command, option, settings
from gno.cli.output import write, write_err
from gno.launch import ServerFlags, StdioFlags


def parameters(flags: type, kind: str) -> list[Param]:
    """The typer parameters of the options ``kind`` offers, from the fields' declarations."""
    hints = typing.get_type_hints(flags)
    found = []
    for f in dataclasses.fields(flags):
        more = dict(f.metadata)
        if more.pop("only", kind) != kind:
            continue
        help_, daemon_help = more.pop("help"), more.pop("daemon_help", None)
        default = more.pop("cli_default", f.default)
        help_ = (kind == "daemon" and daemon_help) or help_
        found.append(
            option(f.name, hints[f.name], *more.pop("flags"), default=default, help=help_, **more)
        )
    return found


def mcp_stdio(ctx: typer.Context, **values: Any) -> None:
    """MCP server over stdio (stdout carries only the protocol; logs go to stderr)."""
    if ctx.invoked_subcommand is None:
        from gno.launch import mcp_stdio

        mcp_stdio(settings(ctx).make_app(), **values)


def server(kind: str) -> Callable[..., None]:
    """`gno serve` or `gno daemon`: --status, --stop and --detach end here; else it serves."""

    def body(ctx: typer.Context, **values: Any) -> None:
        from gno import launch
        from gno.paths import resolve_paths
        from gno.render.process import started_text
        from gno.resident import process

        flags = ServerFlags(**values)
        paths = resolve_paths(settings(ctx).config, settings(ctx).index)
        files = process.process_files(kind, paths.data_dir, flags.pid_file, flags.log_file)
        done = process.manage(files, flags, flags.json or settings(ctx).json, sys.argv[1:])
        if done is not None:
            if done.out is not None:
                write(done.out)
            if done.err is not None:
                write_err(done.err)
            raise typer.Exit(done.code)
        # flags on the line (or in their env variable) win over index.yml's gateway block
        sources = {name: ctx.get_parameter_source(name) for name in ("host", "max_body_bytes")}
        given = {n for n, s in sources.items() if s and s.name not in ("DEFAULT", "DEFAULT_MAP")}
        pid_file = files.pid_file if flags.write_pid_file else None
        app = settings(ctx).make_app()
        launch.serve(app, kind, flags, given, lambda url: write(started_text(kind, url)), pid_file)

    return body


def register(app: typer.Typer) -> None:
    for kind in ("serve", "daemon"):
        app.command(kind)(command(parameters(ServerFlags, kind), server(kind), CLI_COMMANDS[kind]))


def register_mcp(mcp_app: typer.Typer) -> None:
    """`gno mcp` alone and `gno mcp serve`, before the registry's `mcp install | ...`."""
    stdio = parameters(StdioFlags, "mcp")
    mcp_app.callback(invoke_without_command=True)(command(stdio, mcp_stdio, mcp_stdio.__doc__))
    mcp_app.command("serve")(command(stdio, mcp_stdio, CLI_COMMANDS["mcp serve"]))
