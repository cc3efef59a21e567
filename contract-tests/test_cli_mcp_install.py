"""`gno mcp install | status | uninstall --json` as real processes in a temporary
HOME: every output validates against its registry schema, errors follow the
error contract (1 usage/already configured, 2 malformed client file)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from contract_helpers import gno_env, gno_err, gno_ok, op_for_cli

MCP_COMMANDS = {"mcp install", "mcp status", "mcp uninstall"}


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """gno dirs plus a private HOME; the working folder (project scope) is tmp/home."""
    env = gno_env(tmp_path / "home")
    for name in ("XDG_CONFIG_HOME", "APPDATA", "CODEX_HOME"):
        env.pop(name, None)
    env["HOME"] = str(tmp_path / "home" / "user")
    return env


def test_install_status_uninstall_outputs(env: dict[str, str]) -> None:
    ran: set[str] = set()

    def ok(*args: str) -> Any:
        ran.add(op_for_cli(list(args)).cli)
        return gno_ok(env, *args)

    preview = ok("mcp", "install", "-t", "cursor", "--dry-run", "--json")["installed"]
    assert preview["action"] == "would_create"
    assert not Path(preview["configPath"]).exists()

    created = ok("mcp", "install", "-t", "cursor", "--json")["installed"]
    assert created["action"] == "created"
    assert created["configPath"] == str(Path(env["HOME"]) / ".cursor" / "mcp.json")

    opencode = ok("mcp", "install", "-t", "opencode", "-s", "project", "--enable-write", "--json")
    assert opencode["installed"]["serverEntry"]["command"][-2:] == ["mcp", "--enable-write"]
    assert ok("mcp", "install", "-t", "codex", "--tool-profile", "core", "--json")
    assert ok("mcp", "install", "-t", "librechat", "-s", "project", "--json")

    status = ok("mcp", "status", "--json")
    assert status["summary"] == {"configured": 4, "total": 14}
    by_pair = {(r["target"], r["scope"]): r for r in status["targets"]}
    assert by_pair["codex", "user"]["toolProfile"] == "core"
    assert by_pair["opencode", "project"]["enableWrite"] is True
    assert ok("mcp", "status", "-t", "codex", "-s", "user", "--json")["summary"]["total"] == 1

    replaced = ok("mcp", "install", "-t", "cursor", "--force", "--enable-write", "--json")
    assert replaced["installed"]["action"] == "updated" and replaced["installed"]["backupPath"]

    removed = ok("mcp", "uninstall", "-t", "cursor", "--json")["uninstalled"]
    assert removed["action"] == "removed"
    assert ok("mcp", "uninstall", "-t", "cursor", "--json")["uninstalled"]["action"] == "not_found"
    assert ok("mcp", "status", "--json")["summary"]["configured"] == 3
    assert ran == MCP_COMMANDS


def test_error_contract(env: dict[str, str]) -> None:
    gno_ok(env, "mcp", "install", "-t", "windsurf", "--json")
    error = gno_err(env, 1, "mcp", "install", "-t", "windsurf", "--json")
    assert "--force" in error["message"]
    gno_err(env, 1, "mcp", "install", "-t", "zed", "-s", "project", "--json")
    gno_err(env, 1, "mcp", "install", "-t", "nowhere", "--json")
    gno_err(env, 1, "mcp", "status", "-s", "galaxy", "--json")

    broken = Path(env["HOME"]) / ".lmstudio" / "mcp.json"
    broken.parent.mkdir(parents=True)
    broken.write_text('{"mcpServers": {"other": ')
    error = gno_err(env, 2, "mcp", "install", "-t", "lmstudio", "--json")
    assert str(broken) in error["message"] and error["details"]["path"] == str(broken)
    gno_err(env, 2, "mcp", "uninstall", "-t", "lmstudio", "--json")
    assert broken.read_text() == '{"mcpServers": {"other": '
    row = [
        r for r in gno_ok(env, "mcp", "status", "--json")["targets"] if r["target"] == "lmstudio"
    ]
    assert row[0]["configured"] is False and str(broken) in row[0]["error"]
