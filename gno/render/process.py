"""`gno serve --status` / `gno daemon --status` as terminal text: the process-status@1.0
object (``gno.resident.process.process_status``) for people, and the line a server in the
foreground prints once it answers."""

from __future__ import annotations

from typing import Any


def status_text(payload: dict[str, Any]) -> str:
    kind = payload["cmd"]
    if not payload["running"]:
        return f"gno {kind}: not running (pid file {payload['pid_file']})"
    minutes, seconds = divmod(payload["uptime_seconds"], 60)
    hours, minutes = divmod(minutes, 60)
    lines = [
        f"gno {kind}: running (pid {payload['pid']}, port {payload['port']}, "
        f"up {hours}h{minutes:02d}m{seconds:02d}s, gno {payload['version']})"
    ]
    resident = payload["resident"]
    if resident is not None:
        jobs = resident["jobs"]
        lines.append(
            f"  admission {resident['admission']['state']}, "
            f"{resident['transport']['activeRequests']} active requests, "
            f"{jobs['active']} active jobs"
        )
    else:
        lines.append("  /api/resident/status did not answer (busy, or the gateway wants a token)")
    size = payload["log_size_bytes"]
    lines.append(f"  pid file {payload['pid_file']}")
    lines.append(f"  log {payload['log_file']}" + (f" ({size} bytes)" if size is not None else ""))
    return "\n".join(lines)


def started_text(kind: str, url: str) -> str:
    """The line a server in the foreground prints once it answers."""
    if kind == "serve":
        return f"gno serve: {url}  (API {url}/api, docs {url}/docs, MCP {url}/mcp)"
    return f"gno daemon: {url}  (MCP {url}/mcp, status {url}/api/resident/status)"
