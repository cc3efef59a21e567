"""The server entry gno writes into a client config, and what it says when read back.

The entry pins the workspace active at install time: absolute launcher, then
``--index <name> --config <abs> mcp`` (+ ``--enable-write``, ``--tool-profile``)
and absolute ``GNO_DATA_DIR``/``GNO_CACHE_DIR``, because desktop clients start
servers with their own PATH and environment, not the user's shell.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gno.mcpinstall.targets import Target
from gno.paths import Paths

SERVER_NAME = "gno"


@dataclass(frozen=True)
class Launch:
    command: str
    args: list[str]
    env: dict[str, str]


def launcher() -> list[str]:
    """How to start this gno: the console script installed beside the running
    interpreter (venv, pipx), else that interpreter with ``-m gno``. ``-P`` keeps
    the client's working folder off ``sys.path``, where a stray ``gno/`` could shadow us."""
    python = Path(sys.executable).absolute()
    script = python.with_name("gno.exe" if sys.platform.startswith("win") else "gno")
    if script.is_file():
        return [str(script)]
    return [str(python), "-P", "-m", "gno"]


def launch(paths: Paths, *, enable_write: bool, tool_profile: str | None) -> Launch:
    command, *prefix = launcher()
    args = [*prefix, "--index", paths.index_name, "--config", str(paths.config_file), "mcp"]
    if enable_write:
        args.append("--enable-write")
    if tool_profile:
        args += ["--tool-profile", tool_profile]
    env = {
        "GNO_DATA_DIR": str(paths.data_dir.absolute()),
        "GNO_CACHE_DIR": str(paths.cache_dir.absolute()),
    }
    return Launch(command, args, env)


def client_entry(target: Target, spec: Launch) -> dict[str, Any]:
    """The entry in the shape the target's config expects."""
    if target.shape == "opencode":
        return {
            "type": "local",
            "command": [spec.command, *spec.args],
            "environment": dict(spec.env),
            "enabled": True,
        }
    return {"command": spec.command, "args": list(spec.args), "env": dict(spec.env)}


def entry_args(entry: Any) -> list[str]:
    """The arguments of an entry of either shape (empty when it is not ours to read)."""
    if not isinstance(entry, dict):
        return []
    command, args = entry.get("command"), entry.get("args")
    if isinstance(command, list):  # OpenCode: program and arguments in one array
        args = command[1:]
    return [str(a) for a in args] if isinstance(args, list) else []


def write_enabled(entry: Any) -> bool:
    return "--enable-write" in entry_args(entry)


PROFILES = ("core", "full")


def tool_profile(entry: Any) -> str | None:
    """The profile the server will run with: the flag's value, else the default ``full``
    (None for a value gno does not know, from a hand-edited entry)."""
    args = entry_args(entry)
    value = "full"
    if "--tool-profile" in args[:-1]:
        value = args[args.index("--tool-profile") + 1]
    for arg in args:
        if arg.startswith("--tool-profile="):
            value = arg.split("=", 1)[1]
    return value if value in PROFILES else None
