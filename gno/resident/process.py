"""Detached servers: pid files, `--detach`, `--status` (process-status@1.0) and `--stop`.

The pid file belongs to a detached run: the server writes it once it answers
HTTP and removes it on exit, so ``peek`` (and ``--status``) report only a
`gno serve --detach` / `gno daemon --detach`, never a foreground server (which
the data directory's owner lock still guards). A pid alone proves little after a
crash, so liveness also rules out zombies and processes that started after the
pid file was written, and asks the data directory's owner lock (``resident.lock``),
which only the live server holds: a pid reused within the start-time slack is not it.

Standard library only: `--status`, `--stop` and `peek` must stay fast.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import json
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gno import __version__
from gno.errors import ProcessError, ValidationError
from gno.paths import expand_home
from gno.resident.lock import owner_pid

KINDS = ("serve", "daemon")
READY_SECONDS = 60.0  # --detach: how long the child may take to answer
STOP_SECONDS = 10.0  # --stop: SIGTERM grace before SIGKILL
KILL_SECONDS = 2.0
PROBE_SECONDS = 0.5  # --status: the resident-status read is best effort
POLL_SECONDS = 0.05
LOG_TAIL_LINES = 20
# A process that started this long after its pid file was written cannot have written it
# (a reused pid). The server starts before it writes the file, so the slack only absorbs
# /proc's whole-second boot time and small clock steps.
START_SLACK_SECONDS = 30.0


@dataclass(frozen=True)
class ProcessFiles:
    kind: str  # serve | daemon
    pid_file: Path
    log_file: Path
    data_dir: Path  # its owner lock tells whether the pid file's process is the server


def process_files(
    kind: str, data_dir: Path, pid_file: str | None = None, log_file: str | None = None
) -> ProcessFiles:
    """``{data}/<kind>.pid`` and ``{data}/<kind>.log`` unless given (made absolute)."""

    def absolute(given: str | None, default: Path) -> Path:
        return Path(expand_home(given)).absolute() if given else default.absolute()

    return ProcessFiles(
        kind,
        absolute(pid_file, data_dir / f"{kind}.pid"),
        absolute(log_file, data_dir / f"{kind}.log"),
        data_dir,
    )


def is_loopback_host(host: str) -> bool:
    """127.0.0.0/8, ::1 or ``localhost``; a wildcard (0.0.0.0, ::) or any other name is not."""
    if host.lower() == "localhost":
        return True
    try:
        address = ipaddress.ip_address(host.strip("[]"))
    except ValueError:
        return False
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return address.is_loopback


def probe_hosts(host: str) -> tuple[str, ...]:
    """Where a same-host client reaches a listener bound to ``host``."""
    bare = host.strip("[]")
    if host.lower() == "localhost" or bare in ("", "0.0.0.0", "::"):
        return ("127.0.0.1", "::1")
    return (bare,)


def loopback_url(host: str, port: int) -> str:
    """The URL a same-host client uses for a loopback listener."""
    bare = "127.0.0.1" if host.lower() == "localhost" else host.strip("[]")
    return f"http://[{bare}]:{port}" if ":" in bare else f"http://{bare}:{port}"


# ---------------------------------------------------------------- pid file


def write_pid_file(path: Path, kind: str, port: int) -> None:
    """``{pid, port, cmd, version, started_at}``, written whole (temp file + rename)."""
    record = {
        "pid": os.getpid(),
        "port": port,
        "cmd": kind,
        "version": __version__,
        "started_at": datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z"),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(record) + "\n", encoding="utf-8")
    os.replace(tmp, path)


def read_pid_file(path: Path) -> dict[str, Any] | None:
    """The record, or None when the file is missing or not one of ours."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict):
        return None
    pid, port, started = record.get("pid"), record.get("port"), record.get("started_at")
    if not (isinstance(pid, int) and pid >= 1 and isinstance(started, str)):
        return None
    if not (isinstance(port, int) and 1 <= port <= 65535):
        return None
    if record.get("cmd") not in KINDS or _epoch(started) is None:
        return None
    return record


def remove_pid_file(path: Path, pid: int) -> None:
    """Remove the pid file only while it still names ``pid`` (never a newer server's)."""
    record = read_pid_file(path)
    if record is not None and record["pid"] == pid:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()


def _epoch(iso: str) -> float | None:
    try:
        return datetime.fromisoformat(iso.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None


# ---------------------------------------------------------------- liveness


def _linux_start_time(pid: int) -> tuple[str, float] | None:
    """(state, start time as epoch seconds) from /proc, or None off Linux."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
        boot = next(
            float(line.split()[1])
            for line in Path("/proc/stat").read_text().splitlines()
            if line.startswith("btime ")
        )
    except (OSError, StopIteration, ValueError, IndexError):
        return None
    fields = raw[raw.rfind(")") + 2 :].split()  # the command name may hold spaces
    ticks = os.sysconf("SC_CLK_TCK")
    return fields[0], boot + int(fields[19]) / ticks


def is_alive(pid: int, started_at: str | None = None) -> bool:
    """The pid names a live process that may have written a pid file at ``started_at``."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, another user's: never treat it as stale
    probe = _linux_start_time(pid)
    if probe is None:
        return True
    state, started = probe
    if state in ("Z", "X"):  # exited, waiting to be reaped
        return False
    written = _epoch(started_at) if started_at else None
    return written is None or started <= written + START_SLACK_SECONDS


def running_record(files: ProcessFiles, *, clean_stale: bool = True) -> dict[str, Any] | None:
    """The pid file's record when a live server of this kind owns it: its process is alive
    and holds the data directory's owner lock (a reused pid does not). A stale one (its
    process is gone, or nothing holds the lock) is removed."""
    record = read_pid_file(files.pid_file)
    if record is None or record["cmd"] != files.kind:
        return None
    alive = is_alive(record["pid"], record["started_at"])
    owner = owner_pid(files.data_dir)
    if alive and owner == record["pid"]:
        return record
    # A lock held under another pid is another server's (its own pid file): this file is
    # left alone unless its process is gone.
    if clean_stale and (not alive or owner is None):
        remove_pid_file(files.pid_file, record["pid"])
    return None


def served_url(data_dir: Path) -> tuple[bool, int | None]:
    """For ``peek``: is a detached `gno serve` of this data directory up, and its port."""
    record = running_record(process_files("serve", data_dir), clean_stale=False)
    return (True, record["port"]) if record else (False, None)


# ---------------------------------------------------------------- --status


def fetch_resident(port: int, timeout: float = PROBE_SECONDS) -> dict[str, Any] | None:
    """GET /api/resident/status on loopback within ``timeout``; None when it does not
    answer 200 with a resident-status object (busy, or a gateway that wants a bearer)."""
    deadline = time.monotonic() + timeout
    for host in ("127.0.0.1", "::1"):
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        connection = http.client.HTTPConnection(host, port, timeout=left)
        try:
            connection.request("GET", "/api/resident/status")
            response = connection.getresponse()
            body = json.loads(response.read()) if response.status == 200 else None
        except ConnectionRefusedError:
            continue
        except (OSError, ValueError, http.client.HTTPException):
            return None
        finally:
            connection.close()
        ok = isinstance(body, dict) and body.get("schemaVersion") == "1.0"
        return body if ok else None
    return None


def answers_http(hosts: tuple[str, ...], port: int, timeout: float) -> bool:
    """Any HTTP answer (a 401 or 403 from a gateway counts: it is up)."""
    for host in hosts:
        connection = http.client.HTTPConnection(host, port, timeout=timeout)
        try:
            connection.request("GET", "/api/resident/status")
            connection.getresponse().read()
            return True
        except (OSError, http.client.HTTPException):
            continue
        finally:
            connection.close()
    return False


def process_status(files: ProcessFiles) -> dict[str, Any]:
    """process-status@1.0 for one command."""
    try:
        log_size: int | None = files.log_file.stat().st_size
    except OSError:
        log_size = None
    record = running_record(files)
    status: dict[str, Any] = {
        "running": record is not None,
        "pid": None,
        "port": None,
        "cmd": files.kind,
        "version": None,
        "started_at": None,
        "uptime_seconds": None,
        "resident": None,
        "pid_file": str(files.pid_file),
        "log_file": str(files.log_file),
        "log_size_bytes": log_size,
    }
    if record is not None:
        started = _epoch(record["started_at"]) or time.time()
        status.update(
            pid=record["pid"],
            port=record["port"],
            version=str(record.get("version") or "unknown"),
            started_at=record["started_at"],
            uptime_seconds=max(0, int(time.time() - started)),
            resident=fetch_resident(record["port"]),
        )
    return status


# ---------------------------------------------------------------- --stop


def _wait_gone(pid: int, started_at: str, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while is_alive(pid, started_at):
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_SECONDS)
    return True


def stop(files: ProcessFiles) -> int | None:
    """SIGTERM, up to 10 s, then SIGKILL and 2 s. The stopped pid, or None when nothing
    was running."""
    record = running_record(files)
    if record is None:
        return None
    pid, started = record["pid"], record["started_at"]
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    if not _wait_gone(pid, started, STOP_SECONDS) and owner_pid(files.data_dir) == pid:
        # Only while it still holds the lock: one that let it go is on its way out, and
        # its pid may already be another process's.
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        if not _wait_gone(pid, started, KILL_SECONDS):
            raise ProcessError(f"gno {files.kind} (pid {pid}) did not stop, even after SIGKILL.")
    remove_pid_file(files.pid_file, pid)  # a killed server could not remove it itself
    return pid


# ---------------------------------------------------------------- --detach


def child_command(argv: list[str], files: ProcessFiles) -> list[str]:
    """The same command line without ``--detach`` (and ``--json``: the child prints to its
    log), told where its pid file goes."""
    kept = [a for a in argv if a not in ("--detach", "--json")]
    return [
        sys.executable,
        "-m",
        "gno",
        *kept,
        "--pid-file",
        str(files.pid_file),
        "--log-file",
        str(files.log_file),
        "--write-pid-file",
    ]


def log_tail(path: Path, lines: int = LOG_TAIL_LINES) -> str:
    try:
        with path.open("rb") as log:
            log.seek(0, os.SEEK_END)
            log.seek(max(0, log.tell() - 16384))
            text = log.read().decode("utf-8", "replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def detach(files: ProcessFiles, argv: list[str], host: str) -> dict[str, Any]:
    """Start the command in a new session, logging to the log file; return its pid file
    record once it answers HTTP on ``host``. A child that dies first (or never answers) is an error
    carrying the tail of its log."""
    if os.name == "nt":
        raise ValidationError("--detach is not supported on Windows; run it in a terminal.")
    if (record := running_record(files)) is not None:
        raise ProcessError(
            f"gno {files.kind} is already running (pid {record['pid']}, port {record['port']}). "
            f"Stop it with `gno {files.kind} --stop`."
        )
    try:
        files.log_file.parent.mkdir(parents=True, exist_ok=True)
        files.pid_file.parent.mkdir(parents=True, exist_ok=True)
        log_fd = os.open(files.log_file, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    except OSError as exc:
        why = exc.strerror or type(exc).__name__
        raise ProcessError(f"Cannot open {exc.filename} ({why}): is its folder read-only?") from exc
    try:
        child = subprocess.Popen(
            child_command(argv, files),
            stdin=subprocess.DEVNULL,
            stdout=log_fd,
            stderr=log_fd,
            start_new_session=True,  # survives the terminal; not our process group's signals
            close_fds=True,
        )
    finally:
        os.close(log_fd)
    deadline = time.monotonic() + READY_SECONDS
    while True:
        if child.poll() is not None:
            raise ProcessError(_failed(files, f"exited with code {child.returncode}"))
        record = read_pid_file(files.pid_file)
        if (
            record is not None
            and record["pid"] == child.pid
            and answers_http(probe_hosts(host), record["port"], 1.0)
        ):
            return record
        if time.monotonic() >= deadline:
            child.terminate()
            raise ProcessError(_failed(files, f"did not answer within {READY_SECONDS:.0f} s"))
        time.sleep(POLL_SECONDS)


def _failed(files: ProcessFiles, what: str) -> str:
    tail = log_tail(files.log_file)
    shown = f"\n{tail}" if tail else ""
    return f"gno {files.kind} --detach: the server {what}. Log {files.log_file}:{shown}"


@dataclass(frozen=True)
class Managed:
    """What `--status`, `--stop` or `--detach` printed, and the command's exit code."""

    out: str | None
    err: str | None = None
    code: int = 0


def manage(files: ProcessFiles, flags: Any, as_json: bool, argv: list[str]) -> Managed | None:
    """`gno serve` on loopback only; `gno serve|daemon` with --status or --stop (they end the command here) or --detach
    (the parent ends here, the child serves); None: serve in this process. ``flags`` is the
    command's ``gno.launch.ServerFlags``."""
    if files.kind == "serve" and not is_loopback_host(flags.host):
        raise ValidationError(
            f"gno serve listens on loopback only, not {flags.host}: its REST API and Web UI share the "
            "listener. For MCP from other hosts use `gno daemon --host` with --mcp-token-file, "
            "--mcp-allowed-host and --mcp-allowed-origin."
        )
    chosen = [n for n in ("detach", "status", "stop") if getattr(flags, n)]
    if len(chosen) > 1:
        raise ValidationError(f"Choose one of --{' / --'.join(chosen)}: they exclude each other.")
    if as_json and not (flags.status or flags.detach):
        raise ValidationError("--json goes with --status or --detach.")
    kind = files.kind
    if flags.status:
        from gno.render.process import status_text

        payload = process_status(files)
        text = json.dumps(payload, indent=2) if as_json else status_text(payload)
        return Managed(text, code=0 if payload["running"] else 3)
    if flags.stop:
        stopped = stop(files)
        if stopped is None:  # nothing to stop: say so (stderr), exit 3 as --status does
            return Managed(None, f"gno {kind}: not running (pid file {files.pid_file})", 3)
        return Managed(None if as_json else f"gno {kind}: stopped (pid {stopped})")
    if not flags.detach:
        return None
    record = detach(files, argv, flags.host)
    started: dict[str, Any] = {"pid": record["pid"]}
    if kind == "serve":
        started["url"] = loopback_url(flags.host, record["port"])
    if as_json:
        return Managed(json.dumps(started))
    where = f" at {started['url']}" if "url" in started else f" on port {record['port']}"
    return Managed(
        f"gno {kind}: running in the background (pid {record['pid']}){where}; "
        f"log {files.log_file}; stop it with `gno {kind} --stop`"
    )
