"""`gno mcp install | status | uninstall` against real client config files in a
temporary HOME and project folder, for every target at every scope it supports.

Commands run in-process through the CLI entry point (argument handling, error
contract, exit codes included); the launch test at the end runs real processes.
Files gno writes are read back with independent parsers (json, tomllib, PyYAML).
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import threading
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

from gno.cli.entry import run
from gno.mcpinstall.jsonc import JsoncDocument
from tests.mcpinstall.test_jsonc import is_subsequence

PAIRS = [
    ("claude-desktop", "user"),
    ("claude-code", "user"),
    ("claude-code", "project"),
    ("codex", "user"),
    ("codex", "project"),
    ("cursor", "user"),
    ("cursor", "project"),
    ("zed", "user"),
    ("windsurf", "user"),
    ("opencode", "user"),
    ("opencode", "project"),
    ("amp", "user"),
    ("lmstudio", "user"),
    ("librechat", "project"),
]
IDS = [f"{t}-{s}" for t, s in PAIRS]
UNSUPPORTED = [
    ("claude-desktop", "project"),
    ("zed", "project"),
    ("windsurf", "project"),
    ("amp", "project"),
    ("lmstudio", "project"),
    ("librechat", "user"),
]

# Where each client keeps its config (Linux layout), relative to HOME or the project.
EXPECTED_PATH = {
    ("claude-desktop", "user"): "home/.config/Claude/claude_desktop_config.json",
    ("claude-code", "user"): "home/.claude.json",
    ("claude-code", "project"): "project/.mcp.json",
    ("codex", "user"): "home/.codex/config.toml",
    ("codex", "project"): "project/.codex/config.toml",
    ("cursor", "user"): "home/.cursor/mcp.json",
    ("cursor", "project"): "project/.cursor/mcp.json",
    ("zed", "user"): "home/.config/zed/settings.json",
    ("windsurf", "user"): "home/.codeium/windsurf/mcp_config.json",
    ("opencode", "user"): "home/.config/opencode/opencode.json",
    ("opencode", "project"): "project/opencode.json",
    ("amp", "user"): "home/.config/amp/settings.json",
    ("lmstudio", "user"): "home/.lmstudio/mcp.json",
    ("librechat", "project"): "project/librechat.yaml",
}
CONTAINER = {"zed": "context_servers", "opencode": "mcp", "amp": "amp.mcpServers"}


def container(target: str) -> str:
    return CONTAINER.get(target, "mcp_servers" if target == "codex" else "mcpServers")


def kind(target: str) -> str:
    return {"codex": "toml", "librechat": "yaml"}.get(target, "jsonc")


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def json(self) -> Any:
        return json.loads(self.out)


@dataclass
class Client:
    root: Path
    gno: Callable[..., Result]

    def path(self, target: str, scope: str) -> Path:
        return self.root / EXPECTED_PATH[(target, scope)]

    def read(self, target: str, scope: str) -> Any:
        """The file parsed by a parser that is not gno's."""
        text = self.path(target, scope).read_text(encoding="utf-8")
        if kind(target) == "toml":
            return tomllib.loads(text)
        if kind(target) == "yaml":
            return yaml.safe_load(text)
        return JsoncDocument(text).data  # files gno creates are plain JSON; rich ones have comments

    def entry(self, target: str, scope: str) -> Any:
        return (self.read(target, scope).get(container(target)) or {}).get("gno")


@pytest.fixture
def client(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Client:
    home, project = tmp_path / "home", tmp_path / "project"
    home.mkdir()
    project.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("APPDATA", raising=False)
    monkeypatch.delenv("CODEX_HOME", raising=False)
    monkeypatch.setattr(sys, "platform", "linux")
    monkeypatch.chdir(project)

    def gno(*args: str) -> Result:
        capsys.readouterr()
        code = run(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return Client(tmp_path, gno)


def expected_args(*extra: str) -> list[str]:
    config = str(Path(os.environ["GNO_CONFIG_DIR"]) / "index.yml")
    return ["--index", "default", "--config", config, "mcp", *extra]


def launch_parts(target: str, entry: dict[str, Any]) -> tuple[str, list[str], dict[str, str]]:
    if target == "opencode":
        assert entry["type"] == "local" and entry["enabled"] is True
        return entry["command"][0], entry["command"][1:], entry["environment"]
    assert set(entry) == {"command", "args", "env"}
    return entry["command"], entry["args"], entry["env"]


def install(client: Client, target: str, scope: str, *extra: str) -> Result:
    return client.gno("mcp", "install", "-t", target, "-s", scope, *extra, "--json")


# ------------------------------------------------------------------ install


@pytest.mark.parametrize(("target", "scope"), PAIRS, ids=IDS)
def test_install_reinstall_and_force(client: Client, target: str, scope: str) -> None:
    done = install(client, target, scope)
    assert done.code == 0, done.err
    installed = done.json["installed"]
    path = client.path(target, scope)
    assert installed["configPath"] == str(path)
    assert (installed["target"], installed["scope"], installed["action"]) == (
        target,
        scope,
        "created",
    )
    assert "backupPath" not in installed  # nothing existed to back up
    entry = client.entry(target, scope)
    assert entry == installed["serverEntry"]
    command, args, env = launch_parts(target, entry)
    assert Path(command).is_absolute() and Path(command).name == "gno"
    assert args == expected_args()
    assert env == {
        "GNO_DATA_DIR": os.environ["GNO_DATA_DIR"],
        "GNO_CACHE_DIR": os.environ["GNO_CACHE_DIR"],
    }
    if kind(target) == "jsonc":  # a new JSON file is plain JSON
        assert json.loads(path.read_text())[container(target)]["gno"] == entry
    first = path.read_bytes()

    again = install(client, target, scope)
    assert again.code == 1 and again.out == ""
    error = json.loads(again.err)["error"]
    assert "already configured" in error["message"] and "--force" in error["message"]
    assert path.read_bytes() == first

    forced = install(client, target, scope, "--force", "--enable-write", "--tool-profile", "core")
    assert forced.code == 0, forced.err
    assert forced.json["installed"]["action"] == "updated"
    assert Path(forced.json["installed"]["backupPath"]).read_bytes() == first
    _, args, _ = launch_parts(target, client.entry(target, scope))
    assert args == expected_args("--enable-write", "--tool-profile", "core")

    row = client.gno("mcp", "status", "-t", target, "-s", scope, "--json").json["targets"]
    assert [(r["configured"], r["toolProfile"], r["enableWrite"]) for r in row] == [
        (True, "core", True)
    ]

    written = path.read_bytes()
    same = install(client, target, scope, "--force", "--enable-write", "--tool-profile", "core")
    assert same.json["installed"]["action"] == "unchanged"
    assert path.read_bytes() == written
    assert Path(forced.json["installed"]["backupPath"]).read_bytes() == first  # not rewritten


@pytest.mark.parametrize(("target", "scope"), PAIRS, ids=IDS)
def test_dry_run_writes_nothing(client: Client, target: str, scope: str) -> None:
    path = client.path(target, scope)
    tree = sorted(client.root.rglob("*"))
    dry = install(client, target, scope, "--dry-run")
    assert dry.code == 0 and dry.json["installed"]["action"] == "would_create"
    assert sorted(client.root.rglob("*")) == tree  # no file, no folder

    assert install(client, target, scope).code == 0
    before = path.read_bytes()
    assert install(client, target, scope, "--dry-run").code == 1  # configured: needs --force
    preview = install(client, target, scope, "--dry-run", "--force", "--enable-write")
    assert preview.json["installed"]["action"] == "would_update"
    assert "--enable-write" in launch_parts(target, preview.json["installed"]["serverEntry"])[1]
    assert path.read_bytes() == before
    assert not path.with_name(path.name + ".bak").exists()


# ------------------------------------------------------------------ existing files

RICH_JSONC = """{
  // {label}'s settings: comments, trailing commas and other servers must survive
  "theme": "dark",
  "{container}": {
    /* a server that is not ours */
    "other": {
      "command": "npx",
      "args": ["-y", "@example/server",], // inline note
    },
  },
  "telemetry": false, // last
}
"""
RICH_TOML = """# Codex configuration
model = "o3"  # the default model

[mcp_servers.other]
command = "npx"
args = ["-y", "@example/server"]

# profiles come last
[profiles.fast]
model = "o4-mini"
"""
RICH_YAML = """# LibreChat configuration
version: 1.2.1
cache: true

mcpServers:
  # a server that is not ours
  other:
    type: stdio
    command: npx
    args:
      - -y
      - "@example/server"

interface:
  privacyPolicy:
    externalUrl: 'https://librechat.ai/privacy-policy'
"""


def rich(target: str) -> str:
    if kind(target) == "toml":
        return RICH_TOML
    if kind(target) == "yaml":
        return RICH_YAML
    return RICH_JSONC.replace("{label}", target).replace("{container}", container(target))


@pytest.mark.parametrize(("target", "scope"), PAIRS, ids=IDS)
def test_existing_file_keeps_everything_but_gno(client: Client, target: str, scope: str) -> None:
    path = client.path(target, scope)
    path.parent.mkdir(parents=True, exist_ok=True)
    original = rich(target)
    path.write_text(original, encoding="utf-8")
    before = client.read(target, scope)

    done = install(client, target, scope)
    assert done.code == 0, done.err
    assert Path(done.json["installed"]["backupPath"]).read_text() == original
    new = path.read_text(encoding="utf-8")
    assert is_subsequence(original, new), "gno changed bytes outside its own entry"
    after = client.read(target, scope)
    assert after[container(target)].pop("gno") == done.json["installed"]["serverEntry"]
    assert after == before

    status = client.gno("mcp", "status", "--json").json
    assert status["summary"] == {"configured": 1, "total": 14}

    removed = client.gno("mcp", "uninstall", "-t", target, "-s", scope, "--json")
    assert removed.code == 0 and removed.json["uninstalled"]["action"] == "removed"
    assert path.read_text(encoding="utf-8") == original  # byte for byte


@pytest.mark.parametrize(("target", "scope"), PAIRS, ids=IDS)
def test_malformed_file_is_preserved_and_reported(client: Client, target: str, scope: str) -> None:
    path = client.path(target, scope)
    path.parent.mkdir(parents=True, exist_ok=True)
    broken = {"toml": "[mcp_servers\ncommand = 1\n", "yaml": "mcpServers: [\n  - a\n"}.get(
        kind(target), '{\n  // half written\n  "mcpServers": {\n'
    )
    path.write_text(broken, encoding="utf-8")
    for argv in (["install"], ["install", "--force"], ["uninstall"]):
        done = client.gno("mcp", *argv, "-t", target, "-s", scope, "--json")
        assert done.code == 2 and done.out == ""
        error = json.loads(done.err)["error"]
        assert str(path) in error["message"] and error["details"]["path"] == str(path)
        assert path.read_text(encoding="utf-8") == broken
        assert not path.with_name(path.name + ".bak").exists()
    row = client.gno("mcp", "status", "-t", target, "-s", scope, "--json").json["targets"][0]
    assert row["configured"] is False and str(path) in row["error"]


@pytest.mark.parametrize(("target", "scope"), PAIRS, ids=IDS)
def test_uninstall_absent_entry_is_not_an_error(client: Client, target: str, scope: str) -> None:
    done = client.gno("mcp", "uninstall", "-t", target, "-s", scope, "--json")
    assert done.code == 0
    assert done.json["uninstalled"] == {
        "target": target,
        "scope": scope,
        "configPath": str(client.path(target, scope)),
        "action": "not_found",
    }
    assert not client.path(target, scope).exists()


@pytest.mark.parametrize(("target", "scope"), UNSUPPORTED, ids=[f"{t}-{s}" for t, s in UNSUPPORTED])
def test_unsupported_scope_is_a_usage_error(client: Client, target: str, scope: str) -> None:
    for command in ("install", "uninstall", "status"):
        done = client.gno("mcp", command, "-t", target, "-s", scope, "--json")
        assert done.code == 1, (command, done.err)
        assert (
            f"--scope {'project' if scope == 'user' else 'user'}"
            in json.loads(done.err)["error"]["message"]
        )
    assert not any(client.root.joinpath("project").iterdir())


@pytest.mark.parametrize(
    "argv",
    [
        ["install", "-t", "vscode"],
        ["install", "-s", "global"],
        ["install", "--tool-profile", "huge"],
        ["status", "-t", "nope"],
        ["uninstall", "-t", "nope"],
    ],
)
def test_bad_flags_are_usage_errors(client: Client, argv: list[str]) -> None:
    done = client.gno("mcp", *argv, "--json")
    assert done.code == 1 and json.loads(done.err)["error"]["code"] == "VALIDATION"


# ------------------------------------------------------------------ details


def test_status_lists_every_pair(client: Client) -> None:
    empty = client.gno("mcp", "status", "--json").json
    assert [(r["target"], r["scope"]) for r in empty["targets"]] == PAIRS
    assert empty["summary"] == {"configured": 0, "total": 14}
    assert all(set(r) == {"target", "scope", "configPath", "configured"} for r in empty["targets"])
    assert install(client, "cursor", "project").code == 0
    assert install(client, "zed", "user", "--enable-write").code == 0
    status = client.gno("mcp", "status", "--json").json
    configured = {(r["target"], r["scope"]): r for r in status["targets"] if r["configured"]}
    assert set(configured) == {("cursor", "project"), ("zed", "user")}
    assert configured["zed", "user"]["enableWrite"] is True
    assert configured["cursor", "project"]["toolProfile"] == "full"
    assert status["summary"] == {"configured": 2, "total": 14}
    projects = client.gno("mcp", "status", "-s", "project", "--json").json
    assert projects["summary"] == {"configured": 1, "total": 5}
    text = client.gno("mcp", "status")
    assert "2 of 14 configured" in text.out and "configured (full, write)" in text.out


def test_index_and_config_of_the_invocation_are_pinned(client: Client, tmp_path: Path) -> None:
    config = tmp_path / "elsewhere" / "index.yml"
    done = client.gno(
        "--index", "work", "mcp", "install", "-t", "cursor", "--config", str(config), "--json"
    )
    assert done.code == 0, done.err
    args = client.entry("cursor", "user")["args"]
    assert args == ["--index", "work", "--config", str(config), "mcp"]
    bad = client.gno("--index", "no spaces!", "mcp", "install", "-t", "windsurf", "--json")
    assert bad.code == 1 and not client.path("windsurf", "user").exists()


@pytest.mark.parametrize("dry_run", [True, False], ids=["dry-run", "install"])
def test_a_gno_config_the_server_cannot_read_is_refused(
    client: Client, tmp_path: Path, dry_run: bool
) -> None:
    """The entry pins --config: a folder, a named pipe, a device or malformed YAML there made
    a server that failed at every start. Refused now with the error any command gets for such
    a --config, before the client's file is touched; one that does not exist yet still
    installs (test_index_and_config_of_the_invocation_are_pinned)."""
    fifo, folder, broken = tmp_path / "fifo.yml", tmp_path / "folder.yml", tmp_path / "bad.yml"
    os.mkfifo(fifo)  # nobody writes: a read that opened it would block forever
    folder.mkdir()
    broken.write_text("collections: [unclosed\n")
    flags = ["--dry-run"] if dry_run else []
    for config, why in (
        (folder, "not a regular file"),
        (fifo, "not a regular file"),
        (Path("/dev/zero"), "not a regular file"),
        (broken, "Malformed config"),
    ):
        done = install(client, "cursor", "project", "--config", str(config), *flags)
        assert done.code == 1, (config, done.out)
        error = json.loads(done.err)["error"]
        assert error["code"] == "VALIDATION" and why in error["message"], error
        assert str(config) in error["message"]
        assert not client.path("cursor", "project").parent.exists()


@pytest.mark.parametrize(
    ("target", "folder", "name"),
    [
        ("opencode", "home/.config/opencode", "opencode.jsonc"),
        ("amp", "home/.config/amp", "settings.jsonc"),
    ],
)
def test_existing_jsonc_alternate_is_reused(
    client: Client, target: str, folder: str, name: str
) -> None:
    jsonc = client.root / folder / name
    jsonc.parent.mkdir(parents=True)
    jsonc.write_text('{\n  // mine\n  "model": "x",\n}\n')
    done = install(client, target, "user")
    assert done.json["installed"]["configPath"] == str(jsonc)
    assert "// mine" in jsonc.read_text()
    assert sorted(p.name for p in jsonc.parent.iterdir()) == [name, f"{name}.bak"]


def test_servers_key_of_the_wrong_type_is_refused(client: Client) -> None:
    path = client.path("cursor", "user")
    path.parent.mkdir(parents=True)
    path.write_text('{"mcpServers": ["not", "an", "object"]}')
    done = install(client, "cursor", "user")
    assert (
        done.code == 2
        and '"mcpServers" is not an object' in json.loads(done.err)["error"]["message"]
    )
    assert path.read_text() == '{"mcpServers": ["not", "an", "object"]}'


def test_symlinked_config_stays_a_symlink(client: Client) -> None:
    real = client.root / "dotfiles" / "mcp.json"
    real.parent.mkdir()
    real.write_text('{\n  "mcpServers": {}\n}\n')
    link = client.path("cursor", "user")
    link.parent.mkdir(parents=True)
    link.symlink_to(real)
    assert install(client, "cursor", "user").code == 0
    assert link.is_symlink() and "gno" in json.loads(real.read_text())["mcpServers"]


def test_io_failures_are_runtime_errors_and_change_nothing(client: Client) -> None:
    blocker = client.root / "project" / ".cursor"
    blocker.write_text("a file where the folder should be")
    done = install(client, "cursor", "project")
    assert done.code == 2 and "Cannot read" in json.loads(done.err)["error"]["message"]
    assert blocker.read_text() == "a file where the folder should be"

    path = client.path("cursor", "user")
    path.parent.mkdir(parents=True)
    path.write_text("{}")
    path.with_name("mcp.json.bak").mkdir()  # the backup cannot be written
    done = install(client, "cursor", "user")
    assert done.code == 2 and "Cannot write" in json.loads(done.err)["error"]["message"]
    assert path.read_text() == "{}"
    assert sorted(p.name for p in path.parent.iterdir()) == ["mcp.json", "mcp.json.bak"]


def test_a_pipe_or_device_at_the_config_path_is_refused_unread(client: Client) -> None:
    """A named pipe would block the read until a writer comes, a device streams without
    end: both are refused before a byte is read, and status reports the row."""
    path = client.path("cursor", "user")
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    writer_done = threading.Event()

    def writer() -> None:  # lets a blocking open finish (the old read took "{}" as the file)
        try:
            with open(path, "w") as fifo:
                fifo.write("{}")
        except BrokenPipeError:  # the reader checked and closed without reading
            pass
        finally:
            writer_done.set()

    threading.Thread(target=writer, daemon=True).start()
    try:
        rows = client.gno("mcp", "status", "-t", "cursor", "-s", "user", "--json").json["targets"]
        assert "named pipe" in rows[0].get("error", "") and rows[0]["configured"] is False
        done = install(client, "cursor", "user")
        assert done.code == 2, done.out
        assert "named pipe" in json.loads(done.err)["error"]["message"]
    finally:
        if not writer_done.is_set():  # nobody read: unblock the writer's open
            reader = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
            writer_done.wait()
            os.close(reader)
    assert stat.S_ISFIFO(os.lstat(path).st_mode)
    path.unlink()
    path.symlink_to("/dev/zero")
    done = install(client, "cursor", "user")
    assert done.code == 2 and "character device" in json.loads(done.err)["error"]["message"]


def test_status_reports_a_file_nested_too_deep_on_its_own_row(client: Client) -> None:
    path = client.path("cursor", "user")
    path.parent.mkdir(parents=True)
    path.write_text('{"deep": ' + "[" * 5000 + "]" * 5000 + "}")
    done = client.gno("mcp", "status", "--json")
    assert done.code == 0, done.err
    rows = {(r["target"], r["scope"]): r for r in done.json["targets"]}
    assert "deeper than" in rows[("cursor", "user")]["error"]
    assert rows[("claude-code", "user")].get("error") is None


def test_a_symlinked_backup_is_replaced_not_written_through(client: Client) -> None:
    precious = client.root / "precious.txt"
    precious.write_text("not a backup")
    path = client.path("cursor", "user")
    path.parent.mkdir(parents=True)
    path.write_text('{"mcpServers": {}}')
    backup = path.with_name("mcp.json.bak")
    backup.symlink_to(precious)
    assert install(client, "cursor", "user").code == 0
    assert precious.read_text() == "not a backup"
    assert not backup.is_symlink() and backup.read_text() == '{"mcpServers": {}}'


def test_crlf_and_permissions_are_kept(client: Client) -> None:
    path = client.path("claude-code", "project")
    path.write_bytes(b'{\r\n  "mcpServers": {\r\n    "a": {"command": "x"}\r\n  }\r\n}\r\n')
    path.chmod(0o600)
    assert install(client, "claude-code", "project").code == 0
    data = path.read_bytes()
    assert data.count(b"\n") == data.count(b"\r\n") and data.startswith(b'{\r\n  "mcpServers"')
    assert path.stat().st_mode & 0o777 == 0o600


def test_codex_replacement_keeps_other_tables_and_comments(client: Client) -> None:
    path = client.path("codex", "user")
    path.parent.mkdir(parents=True)
    path.write_text(RICH_TOML)
    assert install(client, "codex", "user").code == 0
    assert install(client, "codex", "user", "--force", "--tool-profile", "core").code == 0
    text = path.read_text()
    for line in RICH_TOML.splitlines():
        assert line in text.splitlines()
    data = tomllib.loads(text)
    assert data["profiles"] == {"fast": {"model": "o4-mini"}} and data["model"] == "o3"
    assert data["mcp_servers"]["other"]["command"] == "npx"
    assert data["mcp_servers"]["gno"]["args"][-2:] == ["--tool-profile", "core"]
    assert "[mcp_servers.gno.env]" in text
    assert "# profiles come last\n[profiles.fast]" in text  # the comment stays with its table


def test_text_output(client: Client) -> None:
    done = client.gno("mcp", "install", "-t", "lmstudio")
    assert done.code == 0 and "Installed gno in LM Studio (user)" in done.out
    assert "Restart LM Studio" in done.out
    gone = client.gno("mcp", "uninstall", "-t", "lmstudio")
    assert "Removed gno from LM Studio" in gone.out
    again = client.gno("mcp", "uninstall", "-t", "lmstudio")
    assert again.code == 0 and "not configured" in again.out
    preview = client.gno("mcp", "install", "-t", "lmstudio", "--dry-run")
    assert "Dry run: would add gno to LM Studio" in preview.out and '"--index"' in preview.out
    assert client.read("lmstudio", "user") == {"mcpServers": {}}  # left as uninstall left it
    listed = client.gno("mcp", "--help")  # plain `gno mcp` serves MCP on stdio
    assert listed.code == 0 and "install" in listed.out and "uninstall" in listed.out


# ------------------------------------------------------------------ the entry really starts gno


def test_installed_entry_launches_this_gno(client: Client, tmp_path: Path) -> None:
    """Run the registered command the way a client would (its own environment, no
    GNO_CONFIG_DIR, another working folder), with `status --json` in place of `mcp`:
    it must find the same config and index as the installing shell."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\nlaunch check\n")
    assert client.gno("init", str(notes), "--name", "notes").code == 0
    assert install(client, "claude-code", "project").code == 0
    command, args, env = launch_parts("claude-code", client.entry("claude-code", "project"))
    assert args[-1] == "mcp"
    clean = {k: v for k, v in os.environ.items() if not k.startswith("GNO_")}
    done = subprocess.run(
        [command, *args[:-1], "status", "--json"],
        env=clean | env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    status = json.loads(done.stdout)
    assert status["configPath"] == args[args.index("--config") + 1]
    assert Path(status["dbPath"]).parent == Path(env["GNO_DATA_DIR"])
    assert [c["name"] for c in status["collections"]] == ["notes"]


def test_python_dash_m_gno_works() -> None:
    """The fallback launcher (``python -P -m gno``) when no console script is beside Python."""
    done = subprocess.run(
        [sys.executable, "-P", "-m", "gno", "--version"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.startswith("gno ")
