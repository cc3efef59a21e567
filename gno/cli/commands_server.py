"""`gno serve` (REST API, OpenAPI, MCP at /mcp) and `gno daemon` (headless MCP gateway),
and their process management (`--detach`, `--status`, `--stop`); `gno mcp` is in
commands_mcp.

FastAPI, uvicorn and the MCP SDK load only when a server starts; `--status` and
`--stop` use the standard library alone."""

from __future__ import annotations

import json
import os
import sys
from typing import Annotated, Any

import typer

from gno.cli.app import app as root_app
from gno.cli.commands_mcp import resolve_tool_profile
from gno.cli.common import settings
from gno.cli.output import write
from gno.errors import ValidationError

Port = Annotated[
    int,
    typer.Option("-p", "--port", min=0, max=65535, help="Port to listen on (0: any free port)."),
]
TokenFileOpt = Annotated[
    str | None,
    typer.Option(
        "--mcp-token-file",
        help="File holding the bearer token /mcp requires (created with a random token if missing).",
    ),
]
AllowedHosts = Annotated[
    list[str] | None,
    typer.Option("--mcp-allowed-host", help="Exact Host header to accept (repeatable)."),
]
AllowedOrigins = Annotated[
    list[str] | None,
    typer.Option("--mcp-allowed-origin", help="Exact Origin to accept (repeatable)."),
]
EnableWrite = Annotated[
    bool, typer.Option("--mcp-enable-write", help="Offer MCP write tools at /mcp.")
]
ToolProfile = Annotated[
    str | None, typer.Option("--mcp-tool-profile", help="MCP tool set at /mcp: full or core.")
]
Detach = Annotated[bool, typer.Option("--detach", help="Run in the background; print its pid.")]
Status = Annotated[
    bool, typer.Option("--status", help="Is a detached server running? (exit 3 when not)")
]
Stop = Annotated[
    bool, typer.Option("--stop", help="Stop the detached server (exit 3 when none runs).")
]
PidFile = Annotated[
    str | None, typer.Option("--pid-file", help="Pid file of a detached run [{data}/<cmd>.pid].")
]
LogFile = Annotated[
    str | None, typer.Option("--log-file", help="Log of a detached run [{data}/<cmd>.log].")
]
JsonOut = Annotated[
    bool, typer.Option("--json", help="With --status or --detach: JSON (process-status@1.0).")
]
WritePidFile = Annotated[
    bool, typer.Option("--write-pid-file", hidden=True, help="Set by --detach for its child.")
]
MaxBody = Annotated[
    int, typer.Option("--max-body-bytes", min=1, hidden=True, help="Request body limit.")
]
HeaderTimeoutMs = Annotated[
    int,
    typer.Option(
        "--header-timeout-ms", min=1, hidden=True, help="Time a request's headers may take."
    ),
]
BodyTimeoutMs = Annotated[
    int,
    typer.Option("--body-timeout-ms", min=1, hidden=True, help="Time a request's body may take."),
]
MaxWaiting = Annotated[
    int, typer.Option("--max-waiting-syncs", min=0, hidden=True, help="Sync queue depth.")
]
MaxReaders = Annotated[
    int, typer.Option("--max-readers", min=1, hidden=True, help="Parallel SQLite readers.")
]
MaxQueuedReads = Annotated[
    int, typer.Option("--max-queued-reads", min=0, hidden=True, help="Reads waiting for a reader.")
]
NoWatch = Annotated[
    bool, typer.Option("--no-watch", help="Do not watch collection folders for changes.")
]
EmbedDelayMs = Annotated[
    int,
    typer.Option("--embed-delay-ms", min=0, hidden=True, help="Embed scheduler delay."),
]
KeepaliveMs = Annotated[
    int,
    typer.Option("--events-keepalive-ms", min=10, hidden=True, help="SSE keep-alive interval."),
]


@root_app.command("serve")
def serve(
    ctx: typer.Context,
    port: Port = 3000,
    host: Annotated[
        str, typer.Option("--host", help="Loopback address to bind (127.0.0.1, ::1, localhost).")
    ] = "127.0.0.1",
    mcp_token_file: TokenFileOpt = None,
    mcp_allowed_host: AllowedHosts = None,
    mcp_allowed_origin: AllowedOrigins = None,
    mcp_enable_write: EnableWrite = False,
    mcp_tool_profile: ToolProfile = None,
    detach: Detach = False,
    status: Status = False,
    stop: Stop = False,
    pid_file: PidFile = None,
    log_file: LogFile = None,
    json_: JsonOut = False,
    write_pid_file: WritePidFile = False,
    max_body_bytes: MaxBody = 1024 * 1024,
    header_timeout_ms: HeaderTimeoutMs = 10_000,
    body_timeout_ms: BodyTimeoutMs = 30_000,
    max_waiting_syncs: MaxWaiting = 64,
    max_readers: MaxReaders = 4,
    max_queued_reads: MaxQueuedReads = 256,
    no_watch: NoWatch = False,
    events_keepalive_ms: KeepaliveMs = 15_000,
) -> None:
    """REST API, OpenAPI (/docs), the MCP gateway (/mcp) and a file watcher that keeps the
    index in step with the collection folders, on loopback; Ctrl-C stops it."""
    from gno.resident.process import is_loopback_host

    if not is_loopback_host(host):
        raise ValidationError(
            f"gno serve listens on loopback only, not {host}: its REST API and Web UI share the "
            "listener. For MCP from other hosts use `gno daemon --host` with --mcp-token-file, "
            "--mcp-allowed-host and --mcp-allowed-origin."
        )
    files = _manage(ctx, "serve", host, detach, status, stop, pid_file, log_file, json_)
    _run(
        ctx,
        "serve",
        files,
        port=port,
        host=host,
        token_file=mcp_token_file,
        allowed_hosts=mcp_allowed_host,
        allowed_origins=mcp_allowed_origin,
        enable_write=mcp_enable_write,
        tool_profile=mcp_tool_profile,
        write_pid_file=write_pid_file,
        max_body_bytes=max_body_bytes,
        header_timeout_ms=header_timeout_ms,
        body_timeout_ms=body_timeout_ms,
        max_waiting_syncs=max_waiting_syncs,
        max_readers=max_readers,
        max_queued_reads=max_queued_reads,
        watch=not no_watch,
        events_keepalive_ms=events_keepalive_ms,
    )


@root_app.command("daemon")
def daemon(
    ctx: typer.Context,
    port: Port = 3000,
    host: Annotated[
        str,
        typer.Option(
            "--host",
            help="Address to bind; non-loopback needs a token file, Host and Origin allowlists.",
        ),
    ] = "127.0.0.1",
    mcp_token_file: TokenFileOpt = None,
    mcp_allowed_host: AllowedHosts = None,
    mcp_allowed_origin: AllowedOrigins = None,
    mcp_enable_write: EnableWrite = False,
    mcp_tool_profile: ToolProfile = None,
    no_sync_on_start: Annotated[
        bool, typer.Option("--no-sync-on-start", help="Skip the initial sync of every collection.")
    ] = False,
    detach: Detach = False,
    status: Status = False,
    stop: Stop = False,
    pid_file: PidFile = None,
    log_file: LogFile = None,
    json_: JsonOut = False,
    write_pid_file: WritePidFile = False,
    max_body_bytes: MaxBody = 1024 * 1024,
    header_timeout_ms: HeaderTimeoutMs = 10_000,
    body_timeout_ms: BodyTimeoutMs = 30_000,
    max_waiting_syncs: MaxWaiting = 64,
    max_readers: MaxReaders = 4,
    max_queued_reads: MaxQueuedReads = 256,
    no_watch: NoWatch = False,
    events_keepalive_ms: KeepaliveMs = 15_000,
    no_auto_embed: Annotated[
        bool,
        typer.Option("--no-auto-embed", help="Do not embed synced changes in the background."),
    ] = False,
    embed_delay_ms: EmbedDelayMs = 10_000,
) -> None:
    """Headless resident: the MCP gateway (/mcp) and /api/resident/status; syncs at start,
    then watches the collection folders and embeds what changed (when the model is on disk)."""
    files = _manage(ctx, "daemon", host, detach, status, stop, pid_file, log_file, json_)
    _run(
        ctx,
        "daemon",
        files,
        port=port,
        host=host,
        token_file=mcp_token_file,
        allowed_hosts=mcp_allowed_host,
        allowed_origins=mcp_allowed_origin,
        enable_write=mcp_enable_write,
        tool_profile=mcp_tool_profile,
        write_pid_file=write_pid_file,
        max_body_bytes=max_body_bytes,
        header_timeout_ms=header_timeout_ms,
        body_timeout_ms=body_timeout_ms,
        max_waiting_syncs=max_waiting_syncs,
        max_readers=max_readers,
        max_queued_reads=max_queued_reads,
        watch=not no_watch,
        events_keepalive_ms=events_keepalive_ms,
        sync_on_start=not no_sync_on_start,
        embed_delay=None if no_auto_embed else embed_delay_ms / 1000,
    )


def _manage(
    ctx: typer.Context,
    kind: str,
    host: str,
    detach: bool,
    status: bool,
    stop: bool,
    pid_file: str | None,
    log_file: str | None,
    json_: bool,
) -> Any:
    """Handle --status and --stop (they exit here) and --detach (the parent exits here);
    returns the process files for a server that runs in this process."""
    from gno.paths import resolve_paths
    from gno.resident import process

    chosen = [name for name, on in (("detach", detach), ("status", status), ("stop", stop)) if on]
    if len(chosen) > 1:
        raise ValidationError(f"Choose one of --{' / --'.join(chosen)}: they exclude each other.")
    as_json = json_ or settings(ctx).json
    if as_json and not (status or detach):
        raise ValidationError("--json goes with --status or --detach.")
    paths = resolve_paths(settings(ctx).config, settings(ctx).index)
    files = process.process_files(kind, paths.data_dir, pid_file, log_file)
    if status:
        payload = process.process_status(files)
        _print_status(payload, as_json)
        raise typer.Exit(0 if payload["running"] else 3)
    if stop:
        stopped = process.stop(files)
        if stopped is None:
            raise typer.Exit(3)  # silent: nothing was running
        if not as_json:
            write(f"gno {kind}: stopped (pid {stopped})")
        raise typer.Exit(0)
    if detach:
        record = process.detach(files, sys.argv[1:], host)
        started: dict[str, Any] = {"pid": record["pid"]}
        if kind == "serve":
            started["url"] = process.loopback_url(host, record["port"])
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


def _print_status(payload: dict[str, Any], as_json: bool) -> None:
    if as_json:
        write(json.dumps(payload, indent=2))
        return
    kind = payload["cmd"]
    if not payload["running"]:
        write(f"gno {kind}: not running (pid file {payload['pid_file']})")
        return
    minutes, seconds = divmod(payload["uptime_seconds"], 60)
    hours, minutes = divmod(minutes, 60)
    write(
        f"gno {kind}: running (pid {payload['pid']}, port {payload['port']}, "
        f"up {hours}h{minutes:02d}m{seconds:02d}s, gno {payload['version']})"
    )
    resident = payload["resident"]
    if resident is not None:
        jobs = resident["jobs"]
        write(
            f"  admission {resident['admission']['state']}, "
            f"{resident['transport']['activeRequests']} active requests, "
            f"{jobs['active']} active jobs"
        )
    else:
        write("  /api/resident/status did not answer (busy, or the gateway wants a token)")
    size = payload["log_size_bytes"]
    write(f"  pid file {payload['pid_file']}")
    write(f"  log {payload['log_file']}" + (f" ({size} bytes)" if size is not None else ""))


def _run(
    ctx: typer.Context,
    kind: str,
    files: Any,
    *,
    port: int,
    host: str,
    token_file: str | None,
    allowed_hosts: list[str] | None,
    allowed_origins: list[str] | None,
    enable_write: bool,
    tool_profile: str | None,
    write_pid_file: bool,
    max_body_bytes: int,
    header_timeout_ms: int,
    body_timeout_ms: int,
    max_waiting_syncs: int,
    max_readers: int,
    max_queued_reads: int,
    watch: bool,
    events_keepalive_ms: int,
    sync_on_start: bool = False,
    embed_delay: float | None = None,
) -> None:
    """Serve in this process: the flags shared by serve and daemon become ServeOptions."""
    from gno.resident.runtime import Limits
    from gno.rest.app import ServeOptions
    from gno.rest.gateway import build_gateway
    from gno.rest.gateway_config import gateway_config
    from gno.rest.security import Gates
    from gno.rest.serve import serve as run_server

    app = settings(ctx).make_app()
    # index.yml's gateway block fills in what the command line does not say.
    conf = gateway_config(_config_raw(app))
    if kind == "daemon" and not _given(ctx, "host") and conf.host:
        host = conf.host
    token_file = token_file or conf.token_file
    allowed_hosts = allowed_hosts or conf.allowed_hosts or None
    allowed_origins = allowed_origins or conf.allowed_origins or None
    if not _given(ctx, "max_body_bytes") and "maxBodyBytes" in conf.limits:
        max_body_bytes = conf.limits["maxBodyBytes"]
    gateway = build_gateway(
        host, token_file, allowed_hosts, allowed_origins, whole_listener=kind == "daemon"
    )
    # GNO_API_TOKEN guards serve's REST routes; the daemon's listener is the gateway's alone.
    api_token = (os.environ.get("GNO_API_TOKEN") or None) if kind == "serve" else None
    from gno.mcp.hosting import http_app

    options = ServeOptions(
        mcp=http_app,
        gates=Gates(
            token=api_token,
            max_body_bytes=max_body_bytes,
            gateway=gateway,
            header_seconds=header_timeout_ms / 1000,
            body_seconds=body_timeout_ms / 1000,
        ),
        limits=Limits(
            readers=max_readers,
            max_queued_reads=max_queued_reads,
            max_waiting_syncs=max_waiting_syncs,
            events_keepalive_seconds=events_keepalive_ms / 1000,
        ),
        watch=watch,
        mode=kind,
        sync_on_start=sync_on_start,
        embed_delay=embed_delay,
        mcp_enable_write=enable_write
        or os.environ.get("GNO_MCP_ENABLE_WRITE", "") in ("1", "true", "yes")
        or bool(conf.enable_write),
        mcp_profile=resolve_tool_profile(app, tool_profile),
    )

    def announce(url: str) -> None:
        if kind == "serve":
            write(f"gno serve: {url}  (API {url}/api, docs {url}/docs, MCP {url}/mcp)")
        else:
            write(f"gno daemon: {url}  (MCP {url}/mcp, status {url}/api/resident/status)")
        sys.stdout.flush()

    run_server(
        app,
        port,
        options,
        announce,
        host=host,
        pid_file=files.pid_file if write_pid_file else None,
    )


def _given(ctx: typer.Context, name: str) -> bool:
    """The flag was on the command line (or in its env variable), not left at its default."""
    source = ctx.get_parameter_source(name)  # typer's own click: compare by name
    return source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP")


def _config_raw(app: Any) -> dict[str, Any]:
    """index.yml as parsed; {} before `gno init` (the server starts and says so per call)."""
    from gno.errors import NotInitializedError

    try:
        return dict(app.config.raw)
    except (FileNotFoundError, NotInitializedError):
        return {}
