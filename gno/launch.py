"""Starting gno's servers: `gno serve`/`gno daemon` (REST, `/mcp` over HTTP, the resident
runtime) and `gno mcp` (stdio). The one module that puts surfaces together.

The CLI parses flags into ``ServerFlags`` (or the stdio server's two options) and hands
them here with an ``App``; nothing in ``gno/cli`` imports a server surface
(tests/architecture/test_layers.py). REST and MCP still never import each other: REST is
handed the MCP mount (``ServeOptions.mcp``) by this module. Everything here is imported
only when a server starts, so the CLI's search path never loads it.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from gno.errors import NotInitializedError, ValidationError

if TYPE_CHECKING:  # `gno --help` and the search path import this module's ServerFlags only
    from gno.app import App

TRUE = ("1", "true", "yes")


def option(default: Any, *flags: str, help: str, **more: Any) -> Any:
    """A field declared with its command-line option (`gno serve/daemon/mcp --help` shows
    ``flags`` and ``help``). In ``more``: ``only`` (the one command offering it),
    ``daemon_help`` (the daemon's own help), ``cli_default`` (the option's default when it
    differs from the field's), and typer's ``min``, ``max``, ``hidden``."""
    return field(default=default, metadata={"flags": flags, "help": help, **more})


@dataclass(frozen=True)
class ServerFlags:
    """Every flag of serve and daemon, in --help order; the daemon-only ones default to
    serve's behaviour."""

    # fmt: off
    port: int = option(3000, "-p", "--port", min=0, max=65535, help="Port to listen on (0: any free port).")
    host: str = option("127.0.0.1", "--host", help="Loopback address to bind (127.0.0.1, ::1, localhost).", daemon_help="Address to bind; non-loopback needs a token file, Host and Origin allowlists.")
    mcp_token_file: str | None = option(None, "--mcp-token-file", help="File holding the bearer token /mcp requires (created with a random token if missing).")
    mcp_allowed_host: list[str] | None = option(None, "--mcp-allowed-host", help="Exact Host header to accept (repeatable).")
    mcp_allowed_origin: list[str] | None = option(None, "--mcp-allowed-origin", help="Exact Origin to accept (repeatable).")
    mcp_enable_write: bool = option(False, "--mcp-enable-write", help="Offer MCP write tools at /mcp.")
    mcp_tool_profile: str | None = option(None, "--mcp-tool-profile", help="MCP tool set at /mcp: full or core.")
    # daemon only: serve never syncs at start
    no_sync_on_start: bool = option(True, "--no-sync-on-start", only="daemon", cli_default=False, help="Skip the initial sync of every collection.")
    detach: bool = option(False, "--detach", help="Run in the background; print its pid.")
    status: bool = option(False, "--status", help="Is a detached server running? (exit 3 when not)")
    stop: bool = option(False, "--stop", help="Stop the detached server (exit 3 when none runs).")
    pid_file: str | None = option(None, "--pid-file", help="Pid file of a detached run [{data}/<cmd>.pid].")
    log_file: str | None = option(None, "--log-file", help="Log of a detached run [{data}/<cmd>.log].")
    json: bool = option(False, "--json", help="With --status or --detach: JSON (process-status@1.0).")
    write_pid_file: bool = option(False, "--write-pid-file", hidden=True, help="Set by --detach for its child.")
    max_body_bytes: int = option(1024 * 1024, "--max-body-bytes", min=1, hidden=True, help="Request body limit.")
    header_timeout_ms: int = option(10_000, "--header-timeout-ms", min=1, hidden=True, help="Time a request's headers may take.")
    body_timeout_ms: int = option(30_000, "--body-timeout-ms", min=1, hidden=True, help="Time a request's body may take.")
    max_waiting_syncs: int = option(64, "--max-waiting-syncs", min=0, hidden=True, help="Sync queue depth.")
    max_readers: int = option(4, "--max-readers", min=1, hidden=True, help="Parallel SQLite readers.")
    max_queued_reads: int = option(256, "--max-queued-reads", min=0, hidden=True, help="Reads waiting for a reader.")
    no_watch: bool = option(False, "--no-watch", help="Do not watch collection folders for changes.")
    events_keepalive_ms: int = option(15_000, "--events-keepalive-ms", min=10, hidden=True, help="SSE keep-alive interval.")
    # daemon only: serve never embeds in the background
    no_auto_embed: bool = option(True, "--no-auto-embed", only="daemon", cli_default=False, help="Do not embed synced changes in the background.")
    embed_delay_ms: int = option(10_000, "--embed-delay-ms", only="daemon", min=0, hidden=True, help="Embed scheduler delay.")
    # fmt: on


@dataclass(frozen=True)
class StdioFlags:
    """The options of `gno mcp` (and `gno mcp serve`)."""

    # fmt: off
    enable_write: bool = option(False, "--enable-write", help="Also offer write tools (sync, embed, index, add/remove collection). Same as GNO_MCP_ENABLE_WRITE=1.")
    tool_profile: str | None = option(None, "--tool-profile", help="Tool set: full (every tool) or core (the few most agents need). Default: gateway.toolProfile in index.yml, else full.")
    # fmt: on


def resolve_tool_profile(app: App, flag: str | None) -> str:
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


def writes_enabled(flag: bool) -> bool:
    return flag or os.environ.get("GNO_MCP_ENABLE_WRITE", "") in TRUE


def mcp_stdio(app: App, *, enable_write: bool, tool_profile: str | None) -> None:
    """`gno mcp`: MCP over stdin/stdout until the client closes stdin. The MCP SDK is
    imported on a thread while the client's `initialize` is read and answered
    (gno/mcp/early.py)."""
    from gno.mcp.early import EarlyStart

    early = EarlyStart(_load_mcp_server) if EarlyStart.enabled() else None
    if early is not None:
        early.begin()
    profile = resolve_tool_profile(app, tool_profile)
    if early is not None:
        early.wait()
    import contextlib
    import signal

    from gno.mcp.server import main

    # Python's own Ctrl-C handler again (the CLI's also remembers a stop for syncs): asyncio
    # installs its graceful one only over that.
    with contextlib.suppress(ValueError):  # not the main thread: nothing was set there
        signal.signal(signal.SIGINT, signal.default_int_handler)
    settle_heap()
    main(app, enable_write=writes_enabled(enable_write), profile=profile, early=early)


def settle_heap() -> None:
    """Take what start-up made (modules, the SDKs, the App) out of the cyclic collector's
    sight for the server's life. None of it is ever garbage, yet each full collection
    walked all of it: some 100,000 objects, 75 ms, every few large answers (an MCP page of
    1,000 journal entries: p90 90-125 ms before, 20 ms after; bench/README.md, session 13).
    The CLI's runner does the same before a command's handler."""
    import gc

    gc.freeze()


def _load_mcp_server() -> None:
    import gno.mcp.server  # noqa: F401  (and the MCP SDK with it)


def _config_raw(app: App) -> dict[str, Any]:
    """index.yml as parsed; {} before `gno init` (the server starts and says so per call)."""
    try:
        return dict(app.config.raw)
    except (FileNotFoundError, NotInitializedError):
        return {}


MAX_SEARCH_PROCESSES = 16


def search_processes() -> int:
    """How many search processes `gno serve` starts: ``GNO_SEARCH_PROCESSES`` (0 turns them
    off, at most ``MAX_SEARCH_PROCESSES``), else one per core when there are two or more: on
    an idle 2-core machine they nearly double cache-miss throughput (bench/README.md)."""
    raw = os.environ.get("GNO_SEARCH_PROCESSES", "").strip()
    if raw.isascii() and raw.isdigit():  # '²' passes isdigit() alone; int() refuses it
        return min(int(raw), MAX_SEARCH_PROCESSES)
    cores = os.cpu_count() or 1
    return min(cores, MAX_SEARCH_PROCESSES) if cores > 1 else 0


def serve(
    app: App,
    kind: str,
    flags: ServerFlags,
    given: Collection[str],
    announce: Callable[[str], None],
    pid_file: Any = None,
) -> None:
    """Run `gno serve` or `gno daemon` in this process until it is stopped. ``given``:
    the flags on the command line, which win over index.yml's gateway block."""
    from gno.resident.runtime import Limits
    from gno.rest.app import ServeOptions
    from gno.rest.gateway import build_gateway
    from gno.rest.gateway_config import gateway_config
    from gno.rest.security import Gates
    from gno.rest.serve import serve as run_server

    conf = gateway_config(_config_raw(app))
    host = flags.host
    if kind == "daemon" and "host" not in given and conf.host:
        host = conf.host
    max_body_bytes = flags.max_body_bytes
    if "max_body_bytes" not in given and "maxBodyBytes" in conf.limits:
        max_body_bytes = conf.limits["maxBodyBytes"]
    gateway = build_gateway(
        host,
        flags.mcp_token_file or conf.token_file,
        flags.mcp_allowed_host or conf.allowed_hosts or None,
        flags.mcp_allowed_origin or conf.allowed_origins or None,
        whole_listener=kind == "daemon",
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
            header_seconds=flags.header_timeout_ms / 1000,
            body_seconds=flags.body_timeout_ms / 1000,
        ),
        limits=Limits(
            readers=flags.max_readers,
            max_queued_reads=flags.max_queued_reads,
            max_waiting_syncs=flags.max_waiting_syncs,
            events_keepalive_seconds=flags.events_keepalive_ms / 1000,
        ),
        watch=not flags.no_watch,
        mode=kind,
        sync_on_start=not flags.no_sync_on_start,
        embed_delay=None if flags.no_auto_embed else flags.embed_delay_ms / 1000,
        mcp_enable_write=writes_enabled(flags.mcp_enable_write) or bool(conf.enable_write),
        mcp_profile=resolve_tool_profile(app, flags.mcp_tool_profile),
        mcp_limits=conf.limits,
        search_processes=search_processes(),
    )

    def started(url: str) -> None:
        announce(url)
        sys.stdout.flush()

    settle_heap()
    run_server(app, flags.port, options, started, host=host, pid_file=pid_file)
