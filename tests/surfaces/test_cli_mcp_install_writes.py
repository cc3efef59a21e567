"""`gno mcp install | uninstall` beside the client that owns the file: a save the client
makes while gno edits the file, and a file its owner made read-only, are never
overwritten (in-process through the CLI entry point, real files in a temporary HOME)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

import gno.mcpinstall.files as client_files
from tests.surfaces.test_cli_mcp_install import Client, client, install

__all__ = ["client"]  # the fixture, shared with the main install tests

ORIGINAL = '{\n  "mcpServers": {}\n}\n'
CLIENT_SAVE = '{\n  "mcpServers": {},\n  "projects": {"/work": {"history": ["kept"]}}\n}\n'


def saves_while_gno_writes(monkeypatch: pytest.MonkeyPatch, path: Path, text: str) -> list[str]:
    """The client saves ``path`` (its own atomic rename) the moment gno starts writing."""
    real_replace = client_files.replace_file
    saved: list[str] = []

    def replace_file(target: Path, *args: Any, **kwargs: Any) -> None:
        if not saved:
            saved.append(text)
            fresh = path.with_name(".client-save.tmp")
            fresh.write_text(text)
            os.replace(fresh, path)
        real_replace(target, *args, **kwargs)

    monkeypatch.setattr(client_files, "replace_file", replace_file)
    return saved


@pytest.mark.parametrize("command", ["install", "uninstall"])
def test_a_save_the_client_made_meanwhile_is_never_overwritten(
    client: Client, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """Claude Code rewrites ~/.claude.json while it runs: its save landing between gno's read
    and gno's rename was replaced by gno's edit of the older text (the save was lost)."""
    path = client.path("claude-code", "user")
    if command == "uninstall":
        assert install(client, "claude-code", "user").code == 0
    else:
        path.write_text(ORIGINAL)
    saved = saves_while_gno_writes(monkeypatch, path, CLIENT_SAVE)
    done = client.gno("mcp", command, "-t", "claude-code", "-s", "user", "--json")
    assert saved, "the client's save was not injected: gno wrote nothing"
    assert done.code == 2, done.out
    error = json.loads(done.err)["error"]
    assert "changed while gno was editing it" in error["message"]  # CONFLICT; the CLI: RUNTIME
    assert error["details"]["path"] == str(path)
    assert path.read_text() == CLIENT_SAVE
    monkeypatch.undo()  # run again, as the message says: the client's save is kept
    assert client.gno("mcp", command, "-t", "claude-code", "-s", "user", "--json").code == 0
    assert json.loads(path.read_text())["projects"] == {"/work": {"history": ["kept"]}}


def test_a_file_the_client_created_meanwhile_is_never_overwritten(
    client: Client, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = client.path("cursor", "project")
    path.parent.mkdir(parents=True)
    saves_while_gno_writes(monkeypatch, path, CLIENT_SAVE)
    done = install(client, "cursor", "project")
    assert done.code == 2 and "changed while" in json.loads(done.err)["error"]["message"]
    assert path.read_text() == CLIENT_SAVE


@pytest.mark.parametrize("through_link", [False, True], ids=["file", "symlink"])
def test_a_read_only_client_config_is_refused_and_left_as_it_is(
    client: Client, through_link: bool
) -> None:
    """A config its owner made read-only (chmod a-w) was replaced by the rename all the
    same: the permission only guards writes into the file, not the folder's names."""
    path = client.path("cursor", "user")
    path.parent.mkdir(parents=True)
    real = path
    if through_link:  # a dotfile repository's copy, read-only there
        real = client.root / "dotfiles" / "mcp.json"
        real.parent.mkdir()
        path.symlink_to(real)
    real.write_text(ORIGINAL)
    real.chmod(0o444)
    for args in ([], ["--dry-run"]):
        done = install(client, "cursor", "user", *args)
        assert done.code == 2, done.out
        error = json.loads(done.err)["error"]
        assert "read-only" in error["message"] and error["details"]["path"] == str(path)
    assert real.read_text() == ORIGINAL and real.stat().st_mode & 0o777 == 0o444
    assert path.is_symlink() is through_link
    assert not path.with_name("mcp.json.bak").exists()

    real.chmod(0o644)
    assert install(client, "cursor", "user").code == 0
    real.chmod(0o444)
    done = client.gno("mcp", "uninstall", "-t", "cursor", "-s", "user", "--json")
    assert done.code == 2 and "read-only" in json.loads(done.err)["error"]["message"]
    assert "gno" in json.loads(real.read_text())["mcpServers"]
    rows = client.gno("mcp", "status", "-t", "cursor", "-s", "user", "--json").json["targets"]
    assert rows[0]["configured"] is True  # reading a read-only file is fine
