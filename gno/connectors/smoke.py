"""A connector's smoke test: start the MCP server command an AI client has configured
for gno (its command, args and env, as the client would), list its tools, run one
collection-scoped search, and check the expected document comes back. Bounded by
SMOKE_TIMEOUT seconds; the process is stopped when the test ends either way."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

SMOKE_TIMEOUT = 30.0  # seconds for start, tool list and one search together
SEARCH_LIMIT = 20


@dataclass(frozen=True)
class Smoke:
    stage: str  # where it stopped: start, tools, search, done
    code: str | None  # None: passed
    message: str
    tools: int = 0


def _command(entry: dict[str, Any]) -> tuple[str, list[str], dict[str, str]] | None:
    """(command, args, env) of a client entry: command/args/env, or OpenCode's command
    array with ``environment``."""
    command = entry.get("command")
    args = entry.get("args") or []
    if isinstance(command, list) and command:
        command, args = command[0], list(command[1:]) + list(args)
    if not isinstance(command, str) or not all(isinstance(a, str) for a in args):
        return None
    env = entry.get("env") or entry.get("environment") or {}
    if not isinstance(env, dict):
        return None
    return command, list(args), {str(k): str(v) for k, v in env.items()}


def smoke_test(entry: dict[str, Any], term: str, collection: str, expected_uri: str) -> Smoke:
    import anyio

    spec = _command(entry)
    if spec is None:
        return Smoke("start", "connector_unsupported_config", "The entry has no usable command")
    command, args, env = spec
    # What the client passes: its own environment plus the entry's env.
    environ = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG")} | env
    try:
        return anyio.run(_session, command, args, environ, term, collection, expected_uri)
    except TimeoutError:
        return Smoke("start", "connector_timeout", f"No answer within {SMOKE_TIMEOUT:.0f} s")


async def _session(
    command: str, args: list[str], env: dict[str, str], term: str, collection: str, uri: str
) -> Smoke:
    import anyio
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(command=command, args=args, env=env)
    stage = "start"
    try:
        with anyio.fail_after(SMOKE_TIMEOUT):
            async with Client(params, mode="legacy") as client:
                stage = "tools"
                tools = [t.name for t in (await client.list_tools()).tools]
                if "gno_search" not in tools:
                    return Smoke(
                        stage, "connector_missing_tools", "gno_search is not offered", len(tools)
                    )
                stage = "search"
                found = await client.call_tool(
                    "gno_search", {"query": term, "collection": collection, "limit": SEARCH_LIMIT}
                )
                if found.is_error:
                    text = getattr(found.content[0], "text", "error") if found.content else "error"
                    return Smoke(stage, "connector_search_failed", str(text)[:300], len(tools))
                uris = [r.get("uri") for r in (found.structured_content or {}).get("results", [])]
                if uri not in uris:
                    return Smoke(
                        stage, "connector_result_mismatch", f"{uri} not in the hits", len(tools)
                    )
                return Smoke("done", None, f"gno_search found {uri}", len(tools))
    except TimeoutError:
        return Smoke(stage, "connector_timeout", f"No answer within {SMOKE_TIMEOUT:.0f} s")
    except Exception as exc:  # the client's command would not start or speak MCP
        return Smoke(stage, "connector_start_failed", f"{type(exc).__name__}: {exc}"[:300])
