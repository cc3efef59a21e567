"""Client locations per platform, the entry gno writes and reads back, and the TOML
and YAML editors on layouts the CLI tests do not cover."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
import yaml

from gno.errors import ClientConfigError, ValidationError
from gno.mcpinstall import entry as entries
from gno.mcpinstall.formats import open_config
from gno.mcpinstall.targets import TARGETS, Places, config_path, pairs
from gno.paths import Paths

ENTRY = {"command": "/g", "args": ["--index", "default", "mcp"], "env": {"GNO_DATA_DIR": "/d"}}


def places(tmp_path: Path, platform: str) -> Places:
    return Places(
        home=tmp_path / "h",
        config_home=tmp_path / "xdg",
        appdata=tmp_path / "roaming",
        cwd=tmp_path / "p",
        platform=platform,
    )


# ------------------------------------------------------------------ locations


def test_fourteen_pairs() -> None:
    assert len(pairs()) == 14
    assert {t.id for t, _ in pairs()} == set(TARGETS)


@pytest.mark.parametrize(
    ("platform", "claude", "zed"),
    [
        ("linux", "xdg/Claude/claude_desktop_config.json", "xdg/zed/settings.json"),
        (
            "darwin",
            "h/Library/Application Support/Claude/claude_desktop_config.json",
            "xdg/zed/settings.json",
        ),
        ("win32", "roaming/Claude/claude_desktop_config.json", "roaming/Zed/settings.json"),
    ],
)
def test_platform_specific_locations(tmp_path: Path, platform: str, claude: str, zed: str) -> None:
    where = places(tmp_path, platform)
    assert config_path(TARGETS["claude-desktop"], "user", where) == tmp_path / claude
    assert config_path(TARGETS["zed"], "user", where) == tmp_path / zed
    assert config_path(TARGETS["cursor"], "project", where) == tmp_path / "p/.cursor/mcp.json"


def test_environment_is_read_at_call_time(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.chdir(tmp_path)
    where = Places.from_env()
    assert where.home == tmp_path / "home" and where.cwd == tmp_path
    assert config_path(TARGETS["amp"], "user", where) == tmp_path / "cfg/amp/settings.json"
    assert config_path(TARGETS["codex"], "user", where) == tmp_path / "codex/config.toml"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/ignored")  # XDG says: ignore relative paths
    assert Places.from_env().config_home == tmp_path / "home" / ".config"


def test_scope_the_target_lacks(tmp_path: Path) -> None:
    with pytest.raises(ValidationError, match="--scope project"):
        config_path(TARGETS["librechat"], "user", places(tmp_path, "linux"))


# ------------------------------------------------------------------ the entry


def test_entry_pins_workspace_and_flags(tmp_path: Path) -> None:
    paths = Paths(tmp_path / "cfg/index.yml", tmp_path / "data", tmp_path / "cache", "work")
    spec = entries.launch(paths, enable_write=True, tool_profile="core")
    assert Path(spec.command).is_absolute()
    assert spec.args[-8:] == [
        "--index", "work", "--config", str(tmp_path / "cfg/index.yml"),
        "mcp", "--enable-write", "--tool-profile", "core",
    ]  # fmt: skip
    assert spec.env == {
        "GNO_DATA_DIR": str(tmp_path / "data"),
        "GNO_CACHE_DIR": str(tmp_path / "cache"),
    }
    opencode = entries.client_entry(TARGETS["opencode"], spec)
    assert opencode["command"] == [spec.command, *spec.args] and opencode["environment"] == spec.env
    assert entries.write_enabled(opencode) and entries.tool_profile(opencode) == "core"


def test_launcher_falls_back_to_python_dash_m(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    python = tmp_path / "bin" / "python3"
    monkeypatch.setattr("sys.executable", str(python))
    assert entries.launcher() == [str(python), "-P", "-m", "gno"]
    (tmp_path / "bin").mkdir()
    (tmp_path / "bin" / "gno").write_text("#!/bin/sh\n")
    assert entries.launcher() == [str(tmp_path / "bin" / "gno")]


@pytest.mark.parametrize(
    ("args", "profile", "write"),
    [
        (["mcp"], "full", False),
        (["mcp", "--tool-profile", "core"], "core", False),
        (["mcp", "--enable-write", "--tool-profile=core"], "core", True),
        (["mcp", "--tool-profile", "turbo"], None, False),
        (["mcp", "--tool-profile"], "full", False),
    ],
)
def test_flags_read_back(args: list[str], profile: str | None, write: bool) -> None:
    assert entries.tool_profile({"command": "/g", "args": args}) == profile
    assert entries.write_enabled({"command": "/g", "args": args}) is write
    assert entries.tool_profile("not a dict") == "full" and not entries.write_enabled(None)


# ------------------------------------------------------------------ TOML


def test_toml_inline_servers_table_gets_an_inline_entry() -> None:
    text = 'mcp_servers = { other = { command = "x" } }\n'
    new = open_config(TARGETS["codex"], Path("c.toml"), text).with_entry(ENTRY)
    assert tomllib.loads(new)["mcp_servers"] == {"other": {"command": "x"}, "gno": ENTRY}


def test_toml_replacement_stays_in_place_and_removal_is_exact() -> None:
    text = '[mcp_servers.gno]\ncommand = "/old"\n\n# after gno\n[tui]\ntheme = "x"\n'
    config = open_config(TARGETS["codex"], Path("c.toml"), text)
    assert config.entry() == {"command": "/old"}
    new = config.with_entry(ENTRY)
    assert new.index("[mcp_servers.gno]") < new.index("# after gno") < new.index("[tui]")
    assert tomllib.loads(new)["mcp_servers"]["gno"] == ENTRY
    appended = open_config(TARGETS["codex"], Path("c.toml"), 'model = "o3"\n').with_entry(ENTRY)
    assert (
        open_config(TARGETS["codex"], Path("c.toml"), appended).without_entry() == 'model = "o3"\n'
    )


def test_toml_comment_above_the_next_table_stays_with_it() -> None:
    text = '# top\n[mcp_servers.gno]\ncommand = "/old"  # ours\n\n# about tui\n[tui]\ntheme = "x"\n'
    removed = open_config(TARGETS["codex"], Path("c.toml"), text).without_entry()
    assert removed == '# top\n\n# about tui\n[tui]\ntheme = "x"\n'
    replaced = open_config(TARGETS["codex"], Path("c.toml"), text).with_entry(ENTRY)
    assert replaced.startswith("# top\n[mcp_servers.gno]\n")
    assert replaced.endswith('GNO_DATA_DIR = "/d"\n\n# about tui\n[tui]\ntheme = "x"\n')


def test_toml_crlf_file_gets_crlf_tables() -> None:
    text = 'model = "o3"\r\n'
    new = open_config(TARGETS["codex"], Path("c.toml"), text).with_entry(ENTRY)
    assert new.startswith(text) and "\n" not in new.replace("\r\n", "")
    assert open_config(TARGETS["codex"], Path("c.toml"), new).without_entry() == text


def test_toml_scattered_tables_fall_back_to_tomlkit() -> None:
    text = '[mcp_servers.gno]\ncommand = "/old"\n[tui]\nx = 1\n[mcp_servers.gno.env]\nA = "b"\n'
    new = open_config(TARGETS["codex"], Path("c.toml"), text).with_entry(ENTRY)
    assert tomllib.loads(new) == {"mcp_servers": {"gno": ENTRY}, "tui": {"x": 1}}
    gone = open_config(TARGETS["codex"], Path("c.toml"), text).without_entry()
    assert tomllib.loads(gone) == {"tui": {"x": 1}}


@pytest.mark.parametrize(
    "text",
    [
        'mcp_servers.gno.command = "/old"\nmcp_servers.x.command = "y"\nz = 1\n',
        '[mcp_servers]\ngno.command = "/old"\nx.command = "y"\n[t]\nz = 1\n',
        '[[mcp_servers.gno]]\ncommand = "/old"\n[t]\nz = 1\n',
    ],
    ids=["top-level-dotted", "dotted-in-servers", "array-of-tables"],
)
def test_toml_replacing_an_entry_in_keys_never_captures_the_keys_after_it(text: str) -> None:
    """tomlkit put the new ``[mcp_servers.gno]`` tables above ``mcp_servers.x…`` and
    ``z = 1``, which TOML then read as part of gno's env: replacing or removing gno's
    entry lost the user's server and setting. Each result is checked, whatever made it."""
    before = tomllib.loads(text)
    others = {k: v for k, v in before["mcp_servers"].items() if k != "gno"}
    new = open_config(TARGETS["codex"], Path("c.toml"), text).with_entry(ENTRY)
    assert tomllib.loads(new) == before | {"mcp_servers": others | {"gno": ENTRY}}
    for edited in (text, new):
        gone = tomllib.loads(open_config(TARGETS["codex"], Path("c.toml"), edited).without_entry())
        assert gone.pop("mcp_servers", {}) == others and gone == {
            k: v for k, v in before.items() if k != "mcp_servers"
        }


@pytest.mark.parametrize("text", ["mcp_servers = 3\n", "[a\n", 'x = "unterminated\n'])
def test_toml_that_gno_cannot_edit(text: str) -> None:
    with pytest.raises(ClientConfigError, match=r"c\.toml"):
        open_config(TARGETS["codex"], Path("c.toml"), text)


# ------------------------------------------------------------------ YAML


@pytest.mark.parametrize(
    ("text", "dash"),
    [
        ("mcpServers:\n  a:\n    args:\n      - x\n", "      - --index"),
        ("mcpServers:\n  a:\n    args:\n    - x\n", "    - --index"),
    ],
    ids=["indented-lists", "flush-lists"],
)
def test_yaml_new_lists_follow_the_file(text: str, dash: str) -> None:
    new = open_config(TARGETS["librechat"], Path("l.yaml"), text).with_entry(ENTRY)
    assert new.startswith(text) and dash in new.splitlines()
    assert yaml.safe_load(new)["mcpServers"]["gno"] == ENTRY


def test_yaml_empty_file_and_comments() -> None:
    new = open_config(TARGETS["librechat"], Path("l.yaml"), "").with_entry(ENTRY)
    assert yaml.safe_load(new) == {"mcpServers": {"gno": ENTRY}}
    assert "    args:\n      - --index\n" in new  # LibreChat's documented list style
    text = "# top\nversion: 1.2.1  # pinned\n"
    new = open_config(TARGETS["librechat"], Path("l.yaml"), text).with_entry(ENTRY)
    assert new.startswith(text)


def test_yaml_section_comment_stays_above_its_section() -> None:
    text = "mcpServers:\n  other:\n    command: npx\n\n# interface settings\ninterface:\n  a: 1\n"
    new = open_config(TARGETS["librechat"], Path("l.yaml"), text).with_entry(ENTRY)
    assert new.startswith("mcpServers:\n  other:\n    command: npx\n  gno:\n    command: /g\n")
    assert new.endswith("\n\n# interface settings\ninterface:\n  a: 1\n")
    assert open_config(TARGETS["librechat"], Path("l.yaml"), new).without_entry() == text


def test_yaml_removing_the_last_server_removes_the_key() -> None:
    text = "version: 1.2.1\n"
    new = open_config(TARGETS["librechat"], Path("l.yaml"), text).with_entry(ENTRY)
    assert yaml.safe_load(new) == {"version": "1.2.1", "mcpServers": {"gno": ENTRY}}
    assert open_config(TARGETS["librechat"], Path("l.yaml"), new).without_entry() == text
    commented = "mcpServers:\n  # keep this note\n  gno:\n    command: /g\n"
    left = open_config(TARGETS["librechat"], Path("l.yaml"), commented).without_entry()
    assert left == "mcpServers: {}\n  # keep this note\n"
    assert yaml.safe_load(left) == {"mcpServers": {}}


def test_yaml_flow_style_falls_back_to_ruamel() -> None:
    new = open_config(TARGETS["librechat"], Path("l.yaml"), "mcpServers: {a: {command: x}}\n")
    assert yaml.safe_load(new.with_entry(ENTRY))["mcpServers"] == {
        "a": {"command": "x"},
        "gno": ENTRY,
    }


@pytest.mark.parametrize("text", ["- a\n- b\n", "mcpServers: [1]\n", "a: [\n"])
def test_yaml_that_gno_cannot_edit(text: str) -> None:
    with pytest.raises(ClientConfigError, match=r"l\.yaml"):
        open_config(TARGETS["librechat"], Path("l.yaml"), text)


# ------------------------------------------------------------------ bounds


def _alias_bomb(levels: int, fanout: int) -> str:
    """Each line repeats the anchor above it ``fanout`` times: fanout**levels values."""
    lines = [f"a0: &a0 [{', '.join(['x'] * fanout)}]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * fanout)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\nmcpServers:\n  other:\n    command: npx\n"


@pytest.mark.parametrize(
    ("target", "name", "text", "why"),
    [
        ("cursor", "c.json", '{"deep": ' + "[" * 2000 + "]" * 2000 + "}", "deeper than 100"),
        ("librechat", "l.yaml", "deep: " + "[" * 2000 + "]" * 2000 + "\n", "deeper than 100"),
        ("librechat", "l.yaml", _alias_bomb(9, 5), "aliases expand"),
    ],
    ids=["jsonc-depth", "yaml-depth", "yaml-alias-bomb"],
)
def test_configs_beyond_the_bounds_are_refused_before_they_expand(
    target: str, name: str, text: str, why: str
) -> None:
    """Deep nesting exhausted the parser's stack (Internal error, and `mcp status` failed
    for every client); 5**9 alias copies were expanded by each comparison (a few more
    lines and memory runs out)."""
    with pytest.raises(ClientConfigError, match=why):
        open_config(TARGETS[target], Path(name), text)
