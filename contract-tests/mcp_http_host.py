"""A real Streamable HTTP host for the MCP contract tests, until `gno serve` exists.

Run: ``python mcp_http_host.py PORT [--enable-write] [--tool-profile core]``. Serves
the same server at ``/mcp`` (stateful: sessions, SSE) and ``/mcp-stateless``
(no sessions, JSON responses) on 127.0.0.1, with the gno home from the env.
"""

from __future__ import annotations

import argparse
import contextlib

import uvicorn
from starlette.applications import Starlette
from starlette.routing import Mount

from gno.app import App
from gno.mcp.server import http_app
from gno.paths import resolve_paths


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("--enable-write", action="store_true")
    parser.add_argument("--tool-profile", default="full")
    args = parser.parse_args()
    app = App(resolve_paths())
    options = {"enable_write": args.enable_write, "profile": args.tool_profile}
    stateful, stateful_life = http_app(app, **options)
    stateless, stateless_life = http_app(App(resolve_paths()), stateless=True, **options)

    @contextlib.asynccontextmanager
    async def lifespan(_: Starlette):
        async with stateful_life(), stateless_life():
            yield

    host = Starlette(
        routes=[Mount("/mcp-stateless", stateless), Mount("/mcp", stateful)], lifespan=lifespan
    )
    uvicorn.run(host, host="127.0.0.1", port=args.port, log_level="warning")


if __name__ == "__main__":
    main()
