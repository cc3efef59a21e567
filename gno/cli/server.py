"""`gno serve` (REST API, OpenAPI, MCP at /mcp) and `gno daemon` (headless MCP gateway),
and their process management (`--detach`, `--status`, `--stop`).

Both commands take one options type, ``ServerFlags``: the parameters are declared
once here and each command lists which it offers. FastAPI, uvicorn and the MCP
SDK load only when a server starts; `--status` and `--stop` use the standard
library alone."""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import typer

from gno.cli.commands import Param, command, settings
from gno.cli.output import write, write_err
from gno.errors import ValidationError
from gno.launch import ServerFlags

DEFAULTS = ServerFlags()


def _flag(name: str, kind: Any, *flags: str, help: str, **extra: Any) -> Param:
    """One parameter; its default is ServerFlags' unless ``default`` says otherwise."""
    default = extra.pop("default", getattr(DEFAULTS, name))
    option = typer.Option(*flags, help=help, **extra)
    return Param(name, Param.KEYWORD_ONLY, annotation=Annotated[kind, option], default=default)


PORT = _flag(
    "port", int, "-p", "--port", min=0, max=65535, help="Port to listen on (0: any free port)."
)
GATEWAY = [
    _flag("mcp_token_file", str | None, "--mcp-token-file", help="File holding the bearer token /mcp requires (created with a random token if missing)."),
    _flag("mcp_allowed_host", list[str] | None, "--mcp-allowed-host", help="Exact Host header to accept (repeatable)."),
    _flag("mcp_allowed_origin", list[str] | None, "--mcp-allowed-origin", help="Exact Origin to accept (repeatable)."),
    _flag("mcp_enable_write", bool, "--mcp-enable-write", help="Offer MCP write tools at /mcp."),
    _flag("mcp_tool_profile", str | None, "--mcp-tool-profile", help="MCP tool set at /mcp: full or core."),
]  # fmt: skip
PROCESS = [
    _flag("detach", bool, "--detach", help="Run in the background; print its pid."),
    _flag("status", bool, "--status", help="Is a detached server running? (exit 3 when not)"),
    _flag("stop", bool, "--stop", help="Stop the detached server (exit 3 when none runs)."),
    _flag("pid_file", str | None, "--pid-file", help="Pid file of a detached run [{data}/<cmd>.pid]."),
    _flag("log_file", str | None, "--log-file", help="Log of a detached run [{data}/<cmd>.log]."),
    _flag("json", bool, "--json", help="With --status or --detach: JSON (process-status@1.0)."),
    _flag("write_pid_file", bool, "--write-pid-file", hidden=True, help="Set by --detach for its child."),
    _flag("max_body_bytes", int, "--max-body-bytes", min=1, hidden=True, help="Request body limit."),
    _flag("header_timeout_ms", int, "--header-timeout-ms", min=1, hidden=True, help="Time a request's headers may take."),
    _flag("body_timeout_ms", int, "--body-timeout-ms", min=1, hidden=True, help="Time a request's body may take."),
    _flag("max_waiting_syncs", int, "--max-waiting-syncs", min=0, hidden=True, help="Sync queue depth."),
    _flag("max_readers", int, "--max-readers", min=1, hidden=True, help="Parallel SQLite readers."),
    _flag("max_queued_reads", int, "--max-queued-reads", min=0, hidden=True, help="Reads waiting for a reader."),
    _flag("no_watch", bool, "--no-watch", help="Do not watch collection folders for changes."),
    _flag("events_keepalive_ms", int, "--events-keepalive-ms", min=10, hidden=True, help="SSE keep-alive interval."),
]  # fmt: skip
SERVE = [
    PORT,
    _flag("host", str, "--host", help="Loopback address to bind (127.0.0.1, ::1, localhost)."),
    *GATEWAY,
    *PROCESS,
]
DAEMON = [
    PORT,
    _flag("host", str, "--host", help="Address to bind; non-loopback needs a token file, Host and Origin allowlists."),
    *GATEWAY,
    _flag("no_sync_on_start", bool, "--no-sync-on-start", default=False, help="Skip the initial sync of every collection."),
    *PROCESS,
    _flag("no_auto_embed", bool, "--no-auto-embed", default=False, help="Do not embed synced changes in the background."),
    _flag("embed_delay_ms", int, "--embed-delay-ms", min=0, hidden=True, help="Embed scheduler delay."),
]  # fmt: skip


def serve(ctx: typer.Context, **values: Any) -> None:
    from gno.resident.process import is_loopback_host

    flags = ServerFlags(**values)
    if not is_loopback_host(flags.host):
        raise ValidationError(
            f"gno serve listens on loopback only, not {flags.host}: its REST API and Web UI share the "
            "listener. For MCP from other hosts use `gno daemon --host` with --mcp-token-file, "
            "--mcp-allowed-host and --mcp-allowed-origin."
        )
    _run(ctx, "serve", flags, _manage(ctx, "serve", flags))


def daemon(ctx: typer.Context, **values: Any) -> None:
    flags = ServerFlags(**values)
    _run(ctx, "daemon", flags, _manage(ctx, "daemon", flags))


def register(app: typer.Typer) -> None:
    app.command("serve")(
        command(
            SERVE,
            serve,
            "REST API, OpenAPI (/docs), the MCP gateway (/mcp) and a file watcher that keeps the\n"
            "    index in step with the collection folders, on loopback; Ctrl-C stops it.",
        )
    )
    app.command("daemon")(
        command(
            DAEMON,
            daemon,
            "Headless resident: the MCP gateway (/mcp) and /api/resident/status; syncs at start,\n"
            "    then watches the collection folders and embeds what changed (when the model is on disk).",
        )
    )


def _manage(ctx: typer.Context, kind: str, flags: ServerFlags) -> Any:
    """Handle --status and --stop (they exit here) and --detach (the parent exits here);
    returns the process files for a server that runs in this process."""
    from gno.paths import resolve_paths
    from gno.resident import process

    chosen = [
        n
        for n, on in (("detach", flags.detach), ("status", flags.status), ("stop", flags.stop))
        if on
    ]
    if len(chosen) > 1:
        raise ValidationError(f"Choose one of --{' / --'.join(chosen)}: they exclude each other.")
    as_json = flags.json or settings(ctx).json
    if as_json and not (flags.status or flags.detach):
        raise ValidationError("--json goes with --status or --detach.")
    paths = resolve_paths(settings(ctx).config, settings(ctx).index)
    files = process.process_files(kind, paths.data_dir, flags.pid_file, flags.log_file)
    if flags.status:
        from gno.render.process import status_text

        payload = process.process_status(files)
        write(json.dumps(payload, indent=2) if as_json else status_text(payload))
        raise typer.Exit(0 if payload["running"] else 3)
    if flags.stop:
        stopped = process.stop(files)
        if stopped is None:  # nothing to stop: say so (stderr), exit 3 as --status does
            write_err(f"gno {kind}: not running (pid file {files.pid_file})")
            raise typer.Exit(3)
        if not as_json:
            write(f"gno {kind}: stopped (pid {stopped})")
        raise typer.Exit(0)
    if flags.detach:
        record = process.detach(files, sys.argv[1:], flags.host)
        started: dict[str, Any] = {"pid": record["pid"]}
        if kind == "serve":
            started["url"] = process.loopback_url(flags.host, record["port"])
        if as_json:
            write(json.dumps(started))
        else:
            where = f" at {started['url']}" if "url" in started else f" on port {record['port']}"
            write(
                f"gno {kind}: running in the background (pid {record['pid']}){where}; "
                f"log {files.log_file}; stop it with `gno {kind} --stop`"
            )
        raise typer.Exit(0)
    return files


def _run(ctx: typer.Context, kind: str, flags: ServerFlags, files: Any) -> None:
    """Serve in this process (gno/launch.py builds the server from the flags)."""
    from gno import launch

    def announce(url: str) -> None:
        if kind == "serve":
            write(f"gno serve: {url}  (API {url}/api, docs {url}/docs, MCP {url}/mcp)")
        else:
            write(f"gno daemon: {url}  (MCP {url}/mcp, status {url}/api/resident/status)")

    given = {name for name in ("host", "max_body_bytes") if _given(ctx, name)}
    pid_file = files.pid_file if flags.write_pid_file else None
    launch.serve(settings(ctx).make_app(), kind, flags, given, announce, pid_file)


def _given(ctx: typer.Context, name: str) -> bool:
    """The flag was on the command line (or in its env variable), not left at its default."""
    source = ctx.get_parameter_source(name)  # typer's own click: compare by name
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")
