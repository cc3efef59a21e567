"""Agent connectors: `gno skill …` writing gno's SKILL.md into temp config folders, with
backups; `gno setup --connector`; REST /api/connectors, /install and /verify (the smoke
test starts the MCP command a client has configured, lists its tools, runs one search)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest

from gno.connectors.skill_text import SKILL_MD
from tests.surfaces.cli_schema import check_json_output

GNO = [sys.executable, "-m", "gno.cli.entry"]


@pytest.fixture
def home(tmp_path: Path) -> dict[str, str]:
    base = tmp_path / "home"
    base.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GNO_", "CLAUDE_", "CODEX_"))}
    return env | {
        "HOME": str(base),
        "XDG_CONFIG_HOME": str(base / ".config"),
        "XDG_DATA_HOME": str(base / ".local" / "share"),
        "XDG_CACHE_HOME": str(base / ".cache"),
        "HF_HUB_OFFLINE": "1",
    }


def gno(
    env: dict[str, str], *args: str, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        [*GNO, *args], env=env, capture_output=True, text=True, timeout=120, cwd=cwd
    )
    if done.returncode in (0, 2) and "--json" in args and done.stdout:
        check_json_output(args, done.stdout)  # every JSON answer against its schema
    return done


def test_skill_install_show_paths_uninstall(home: dict[str, str], tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    done = gno(home, "skill", "install", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    [item] = json.loads(done.stdout)["installed"]
    skill = project / ".claude" / "skills" / "gno" / "SKILL.md"
    assert item == {
        "target": "claude",
        "scope": "project",
        "path": str(skill),
        "action": "installed",
    }
    assert skill.read_text() == SKILL_MD
    assert "gno query" in SKILL_MD and "--json" in SKILL_MD
    assert "gno context build" in SKILL_MD and "gno ask" in SKILL_MD

    again = json.loads(gno(home, "skill", "install", "--json", cwd=project).stdout)
    assert again["installed"][0]["action"] == "unchanged"

    skill.write_text("my own edits\n")
    refused = gno(home, "skill", "install", cwd=project)
    assert refused.returncode == 1 and "--force" in refused.stderr
    assert skill.read_text() == "my own edits\n"
    forced = json.loads(gno(home, "skill", "install", "--force", "--json", cwd=project).stdout)
    assert forced["installed"][0]["action"] == "replaced"
    assert Path(forced["installed"][0]["backupPath"]).read_text() == "my own edits\n"
    assert skill.read_text() == SKILL_MD

    shown = gno(home, "skill", "show")
    assert shown.stdout == SKILL_MD

    everywhere = gno(home, "skill", "install", "-t", "all", "-s", "user", "--json")
    paths = [Path(i["path"]) for i in json.loads(everywhere.stdout)["installed"]]
    base = Path(home["HOME"])
    assert paths == [
        base / ".claude" / "skills" / "gno" / "SKILL.md",
        base / ".codex" / "skills" / "gno" / "SKILL.md",
        base / ".config" / "opencode" / "skill" / "gno" / "SKILL.md",
        base / ".openclaw" / "skills" / "gno" / "SKILL.md",
        base / ".hermes" / "skills" / "gno" / "SKILL.md",
    ]
    listed = json.loads(gno(home, "skill", "paths", "--json", cwd=project).stdout)["paths"]
    assert len(listed) == 10 and all(p["installed"] for p in listed if p["scope"] == "user")

    other = base / ".claude" / "skills" / "someone-else"
    other.mkdir()
    (other / "SKILL.md").write_text("not gno's\n")
    removed = json.loads(gno(home, "skill", "uninstall", "-s", "user", "--json").stdout)
    assert removed["uninstalled"][0]["action"] == "removed"
    assert not (base / ".claude" / "skills" / "gno").exists()
    assert (other / "SKILL.md").read_text() == "not gno's\n"  # only gno's folder went
    absent = json.loads(gno(home, "skill", "uninstall", "-s", "user", "--json").stdout)
    assert absent["uninstalled"][0]["action"] == "absent"


def test_skill_uninstall_keeps_the_users_backup(home: dict[str, str], tmp_path: Path) -> None:
    """`install --force` kept the user's earlier SKILL.md as SKILL.md.bak and said so;
    uninstall removes gno's file and leaves that backup (it deleted it before)."""
    project = tmp_path / "project"
    skill = project / ".claude" / "skills" / "gno" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("my own skill, written by hand\n")
    forced = json.loads(gno(home, "skill", "install", "--force", "--json", cwd=project).stdout)
    backup = skill.with_name("SKILL.md.bak")
    assert forced["installed"][0]["backupPath"] == str(backup)

    done = gno(home, "skill", "uninstall", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    assert not skill.exists()
    assert backup.read_text() == "my own skill, written by hand\n"  # before: deleted
    [item] = json.loads(done.stdout)["uninstalled"]
    assert item["action"] == "removed" and item["backupPath"] == str(backup)
    again = gno(home, "skill", "uninstall", cwd=project)
    assert again.returncode == 0, again.stderr
    assert (
        again.stdout == f"absent: claude (project) {skill} (your earlier file stays at {backup})\n"
    )
    assert backup.read_text() == "my own skill, written by hand\n"


def test_every_command_and_flag_the_skill_names_exists() -> None:
    """The skill cannot drift from the CLI: each `gno …` it tells an agent to run is a
    registry command, and each flag it passes is one of that command's flags."""
    import re
    import shlex

    from gno_contracts.operations import CLI_COMMANDS, OPERATIONS

    commands = {op.cli_shape.command: op.cli_shape for op in OPERATIONS if op.cli_shape}
    spans = re.findall(r"`(gno [^`]+)`", SKILL_MD)
    assert len(spans) >= 12
    named = set()
    for span in spans:
        words = shlex.split(span)[1:]
        command = " ".join(words[:2]) if " ".join(words[:2]) in commands else words[0]
        if command in CLI_COMMANDS and command not in commands:  # serve, daemon: no operation
            assert all(not w.startswith("-") for w in words), span
            continue
        assert command in commands, span
        named.add(command)
        flags = {f for p in commands[command].params for f in p.flags}
        for word in words:
            if word.startswith("-"):
                assert word.split("=")[0] in flags, (span, word)
    assert {"query", "search", "get", "context build", "context verify", "ask"} <= named


def test_skill_env_overrides(home: dict[str, str], tmp_path: Path) -> None:
    env = home | {
        "CLAUDE_SKILLS_DIR": str(tmp_path / "claude-skills"),
        "GNO_SKILLS_HOME_OVERRIDE": str(tmp_path / "fake-home"),
    }
    done = json.loads(gno(env, "skill", "install", "-t", "all", "-s", "user", "--json").stdout)
    paths = [i["path"] for i in done["installed"]]
    assert paths[0] == str(tmp_path / "claude-skills" / "gno" / "SKILL.md")
    assert paths[1] == str(tmp_path / "fake-home" / ".codex" / "skills" / "gno" / "SKILL.md")
    bad = gno(env, "skill", "install", "-t", "nope")
    assert bad.returncode == 1


def test_setup_installs_connectors_and_rerun_reuses_them(
    home: dict[str, str], tmp_path: Path
) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# Sampling\n\nslow traces\n")
    args = ("setup", str(root), "--connector", "codex-skill", "--connector", "cursor-mcp",
            "--connector", "codex-skill", "--json")  # fmt: skip
    first = json.loads(gno(home, *args).stdout)
    assert [(c["id"], c["status"]) for c in first["connectors"]] == [
        ("codex-skill", "installed"),
        ("cursor-mcp", "installed"),
    ]
    cursor = Path(home["HOME"]) / ".cursor" / "mcp.json"
    assert "gno" in json.loads(cursor.read_text())["mcpServers"]
    # Each connector is smoke-tested after the proof: the MCP entry gno wrote is started
    # as Cursor would start it, lists its tools and finds the probe's document.
    smoke = {c["id"]: c["smoke"] for c in first["connectors"]}
    assert smoke["cursor-mcp"]["status"] == "passed", smoke
    assert smoke["cursor-mcp"]["message"] == "gno_search found gno://notes/a.md"
    assert smoke["cursor-mcp"]["tools"] > 0
    assert smoke["codex-skill"]["status"] == "skipped"
    assert smoke["codex-skill"]["code"] == "target_runtime_unverifiable"
    assert first["activation"]["stages"]["connector"]["status"] == "passed"
    assert first["status"] == "completed"
    again = json.loads(gno(home, *args).stdout)
    assert [c["status"] for c in again["connectors"]] == ["already_installed"] * 2
    assert again["connectors"][1]["smoke"]["status"] == "passed"
    unknown = gno(home, "setup", str(root), "--connector", "vscode-mcp")
    assert unknown.returncode == 1


def test_setup_reports_a_failed_smoke_test_as_an_action(
    home: dict[str, str], tmp_path: Path
) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# Sampling\n\nslow traces\n")
    cursor = Path(home["HOME"]) / ".cursor" / "mcp.json"
    cursor.parent.mkdir()
    broken = {"command": str(tmp_path / "no-such-gno"), "args": ["mcp"]}
    cursor.write_text(json.dumps({"mcpServers": {"gno": broken, "other": {"command": "x"}}}))
    done = gno(home, "setup", str(root), "--connector", "cursor-mcp", "--json")
    assert done.returncode == 0, done.stderr  # a connector is an action, not a failed setup
    result = json.loads(done.stdout)
    [item] = result["connectors"]
    assert item["status"] == "already_installed"  # reused, not overwritten
    assert item["smoke"]["status"] == "failed"
    assert item["smoke"]["code"] == "connector_start_failed"
    assert result["status"] == "completed_with_actions"
    assert result["activation"]["ready"] is True
    assert result["activation"]["stages"]["connector"]["status"] == "failed"
    assert result["activation"]["stages"]["connector"]["code"] == "connector_start_failed"
    assert any("cursor-mcp smoke test failed" in step for step in result["nextSteps"])
    assert json.loads(cursor.read_text())["mcpServers"]["gno"] == broken
    shown = gno(home, "setup", str(root), "--connector", "cursor-mcp")
    assert "smoke test: failed [connector_start_failed]" in shown.stdout


def _serve(env: dict[str, str]) -> tuple[subprocess.Popen[str], str]:
    import re

    proc = subprocess.Popen(
        [*GNO, "serve", "--port", "0", "--no-watch"], env=env, stdout=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None
    for line in proc.stdout:
        if m := re.search(r"(http://127\.0\.0\.1:\d+)", line):
            return proc, m.group(1)
    raise AssertionError("gno serve did not start")


def test_rest_connectors_list_install_verify(home: dict[str, str], tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "sampling.md").write_text("# Sampling processor\n\nkeep slow traces\n")
    assert gno(home, "setup", str(root)).returncode == 0
    proc, url = _serve(home)
    try:
        with httpx.Client(base_url=url, timeout=90) as http:
            listed = http.get("/api/connectors").json()
            assert listed["collections"] == ["notes"]
            by_id: dict[str, Any] = {c["id"]: c for c in listed["connectors"]}
            assert by_id["cursor-mcp"]["installed"] is False
            not_yet = http.post(
                "/api/connectors/verify", json={"connectorId": "cursor-mcp", "collection": "notes"}
            ).json()
            assert not_yet["lexicalReady"] is True and not_yet["code"] == "connector_not_configured"

            installed = http.post("/api/connectors/install", json={"connectorId": "cursor-mcp"})
            assert installed.status_code == 200, installed.text
            assert installed.json()["status"] == "installed"
            assert http.get("/api/connectors").json()["connectors"][2]["installed"] is True

            verified = http.post(
                "/api/connectors/verify", json={"connectorId": "cursor-mcp", "collection": "notes"}
            )
            body = verified.json()
            assert body["connectorReady"] is True, body
            assert body["resultUri"] == "gno://notes/sampling.md" and body["tools"] > 0

            codex = http.post("/api/connectors/install", json={"connectorId": "codex-mcp"}).json()
            assert codex["path"] == str(Path(home["HOME"]) / ".codex" / "config.toml")
            assert "[mcp_servers.gno]" in Path(codex["path"]).read_text()
            assert len(http.get("/api/connectors").json()["connectors"]) == 14

            skill = http.post(
                "/api/connectors/verify", json={"connectorId": "codex-skill", "collection": "notes"}
            ).json()
            assert (
                skill["code"] == "target_runtime_unverifiable" and skill["connectorReady"] is False
            )

            # a configured command that does not start is reported, not raised
            cursor = Path(home["HOME"]) / ".cursor" / "mcp.json"
            config = json.loads(cursor.read_text())
            config["mcpServers"]["gno"]["command"] = str(tmp_path / "no-such-gno")
            cursor.write_text(json.dumps(config))
            broken = http.post(
                "/api/connectors/verify", json={"connectorId": "cursor-mcp", "collection": "notes"}
            ).json()
            assert broken["connectorReady"] is False and broken["code"] == "connector_start_failed"
            missing = http.post(
                "/api/connectors/verify", json={"connectorId": "cursor-mcp", "collection": "ghost"}
            )
            assert missing.status_code == 404
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def test_rest_install_over_a_client_file_gno_cannot_use_is_409_not_500(
    home: dict[str, str],
) -> None:
    """A folder where gno's SKILL.md goes, or a client config that does not parse: the file
    is left untouched and named. That was RUNTIME, HTTP 500 (the status of an internal
    error, and none the route's OpenAPI lists); it is CONFLICT, 409."""
    skill = Path(home["HOME"]) / ".claude" / "skills" / "gno" / "SKILL.md"
    skill.mkdir(parents=True)
    cursor = Path(home["HOME"]) / ".cursor" / "mcp.json"
    cursor.parent.mkdir()
    cursor.write_text("{not json")
    assert gno(home, "init", "--yes").returncode == 0
    proc, url = _serve(home)
    try:
        with httpx.Client(base_url=url, timeout=90) as http:
            for connector, path in (("claude-code-skill", skill), ("cursor-mcp", cursor)):
                done = http.post("/api/connectors/install", json={"connectorId": connector})
                assert done.status_code == 409, done.text
                error = done.json()["error"]
                assert error["code"] == "CONFLICT" and error["details"]["path"] == str(path)
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    assert skill.is_dir() and cursor.read_text() == "{not json"
    done = gno(home, "skill", "install", "--scope", "user", "--json")  # the CLI: exit 2
    assert done.returncode == 2 and json.loads(done.stderr)["error"]["code"] == "RUNTIME"


def test_skill_install_never_writes_through_a_symlink(home: dict[str, str], tmp_path: Path) -> None:
    """A SKILL.md (or gno folder) that is a symlink gno did not make: a dangling one made
    install create the link target's missing folders and write the skill there, outside the
    skills folder; a live one was overwritten under --force. Now: refused (CONFLICT on REST,
    exit 2 on the CLI, as for a folder in SKILL.md's place), nothing written."""
    project = tmp_path / "project"
    skill = project / ".claude" / "skills" / "gno" / "SKILL.md"
    skill.parent.mkdir(parents=True)
    outside = tmp_path / "outside"
    skill.symlink_to(outside / "deep" / "SKILL.md")  # dangling: its folders do not exist
    mine = tmp_path / "mine.md"
    mine.write_text("someone's file\n")
    codex = project / ".codex" / "skills"
    codex.mkdir(parents=True)
    (codex / "gno").symlink_to(outside / "folder")  # the gno folder itself a dangling link
    for args in ((), ("--force",)):
        done = gno(home, "skill", "install", *args, "--json", cwd=project)
        assert done.returncode == 2, done.stdout
        error = json.loads(done.stderr)["error"]
        assert error["details"]["path"] == str(skill) and "symlink" in error["message"]
        assert not outside.exists() and skill.is_symlink()
    done = gno(home, "skill", "install", "-t", "codex", "--force", "--json", cwd=project)
    assert json.loads(done.stderr)["error"]["details"]["path"] == str(codex / "gno")
    assert not outside.exists()
    skill.unlink()
    skill.symlink_to(mine)  # a live link to another file: not replaced through, even forced
    done = gno(home, "skill", "install", "--force", "--json", cwd=project)
    assert done.returncode == 2 and "symlink" in json.loads(done.stderr)["error"]["message"]
    assert mine.read_text() == "someone's file\n" and skill.is_symlink()
    assert not (skill.parent / "SKILL.md.bak").exists()
