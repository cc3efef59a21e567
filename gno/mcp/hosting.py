"""The MCP surface as `gno serve` hosts it at `/mcp`, without importing the MCP SDK: the
command that starts the server hands ``http_app`` to the REST app, which calls it on the
first `/mcp` request (on a worker thread, ``gno/rest/mcp_gateway.py``); only then do the
SDK and ``gno.mcp.server`` load."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gno.app import App


def http_app(
    app: App,
    *,
    enable_write: bool = False,
    profile: str = "full",
    allowed_hosts: list[str] | None = None,
    allowed_origins: list[str] | None = None,
    max_sessions: int | None = None,
    session_idle_seconds: float | None = None,
    max_body_bytes: int | None = None,
    on_sessions: Callable[[Callable[[], int]], None] | None = None,
) -> tuple[Any, Any]:
    from gno.mcp.server import http_app as build

    return build(
        app,
        enable_write=enable_write,
        profile=profile,
        allowed_hosts=allowed_hosts,
        allowed_origins=allowed_origins,
        max_sessions=max_sessions,
        session_idle_seconds=session_idle_seconds,
        max_body_bytes=max_body_bytes,
        on_sessions=on_sessions,
    )
