"""Snapshots of gno's public surface: MCP tool lists, the OpenAPI document, CLI help.

The refactor of issue 19 must not change what a client or a user sees, except by
deliberate fix. ``python contract-tests/snapshots.py`` prints what differs from
the committed files under ``contract-tests/snapshots/``; ``--update`` (``make
snapshots``) rewrites them. Run it in a clean environment: help text is rendered
with ``COLUMNS=100`` and ``NO_COLOR=1`` so it does not depend on the terminal.
"""

from __future__ import annotations

import difflib
import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ["COLUMNS"] = "100"
os.environ["NO_COLOR"] = "1"
os.environ.pop("GNO_MCP_ENABLE_WRITE", None)

HERE = Path(__file__).resolve().parent / "snapshots"


def _json(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, sort_keys=True) + "\n"


def mcp_tools(profile: str, enable_write: bool) -> str:
    from gno.mcp.server import _sdk_tool
    from gno.mcp.tools import tools

    listed = [
        _sdk_tool(tool).model_dump(mode="json", by_alias=True, exclude_none=True)
        for tool in tools(profile, enable_write).values()
    ]
    return _json(listed)


def openapi() -> str:
    from gno.rest.apidoc import document

    return _json(document())


def _commands(group: Any, path: list[str]) -> list[list[str]]:
    """Every command and subcommand of the click tree, as argv prefixes, in name order."""
    found = [path]
    for name in sorted(getattr(group, "commands", {}) or {}):
        found += _commands(group.commands[name], [*path, name])
    return found


def cli_help() -> str:
    import contextlib
    import io

    import typer

    from gno.cli.app import app
    from gno.cli.entry import run

    out = []
    for argv in _commands(typer.main.get_command(app), []):
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            code = run([*argv, "--help"])
        out.append(f"==== gno {' '.join([*argv, '--help'])} (exit {code})\n{buffer.getvalue()}")
    return "".join(out)


def render() -> dict[str, str]:
    files = {
        f"mcp-tools-{profile}-{'write' if write else 'read'}.json": mcp_tools(profile, write)
        for profile in ("core", "full")
        for write in (False, True)
    }
    files["openapi.json"] = openapi()
    files["cli-help.txt"] = cli_help()
    return files


def differences(files: dict[str, str]) -> list[str]:
    problems = []
    for name, text in files.items():
        path = HERE / name
        old = path.read_text(encoding="utf-8") if path.exists() else ""
        if old != text:
            diff = difflib.unified_diff(
                old.splitlines(), text.splitlines(), f"snapshots/{name}", "now", lineterm="", n=2
            )
            problems.append("\n".join(list(diff)[:200]))
    return problems


def main() -> None:
    files = render()
    if "--update" in sys.argv:
        HERE.mkdir(exist_ok=True)
        for name, text in files.items():
            (HERE / name).write_text(text, encoding="utf-8")
        print(f"wrote {len(files)} snapshots to {HERE.name}/")
        return
    problems = differences(files)
    if problems:
        print("\n\n".join(problems))
        sys.exit(1)
    print("snapshots match")


if __name__ == "__main__":
    main()
