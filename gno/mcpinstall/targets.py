"""The MCP clients gno can register itself with: where each keeps its config and
under which key its servers live.

Locations follow each client's documentation and are resolved from ``HOME``,
``XDG_CONFIG_HOME`` and ``APPDATA`` (never cached), so tests and sandboxes can
point them at temporary folders. Project scope is relative to the current folder.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from gno.errors import ValidationError
from gno.paths import home_dir, xdg_dir

USER, PROJECT = "user", "project"


@dataclass(frozen=True)
class Target:
    id: str
    label: str
    scopes: tuple[str, ...]
    format: str  # "jsonc" | "toml" | "yaml"
    container: str  # the key that holds the servers
    shape: str = "standard"  # "standard": command/args/env; "opencode": command array/environment


TARGETS: dict[str, Target] = {
    t.id: t
    for t in (
        Target("claude-desktop", "Claude Desktop", (USER,), "jsonc", "mcpServers"),
        Target("claude-code", "Claude Code", (USER, PROJECT), "jsonc", "mcpServers"),
        Target("codex", "Codex", (USER, PROJECT), "toml", "mcp_servers"),
        Target("cursor", "Cursor", (USER, PROJECT), "jsonc", "mcpServers"),
        Target("zed", "Zed", (USER,), "jsonc", "context_servers"),
        Target("windsurf", "Windsurf", (USER,), "jsonc", "mcpServers"),
        Target("opencode", "OpenCode", (USER, PROJECT), "jsonc", "mcp", shape="opencode"),
        Target("amp", "Amp", (USER,), "jsonc", "amp.mcpServers"),
        Target("lmstudio", "LM Studio", (USER,), "jsonc", "mcpServers"),
        Target("librechat", "LibreChat", (PROJECT,), "yaml", "mcpServers"),
    )
}


def pairs() -> list[tuple[Target, str]]:
    """Every supported (target, scope) pair, in a stable order."""
    return [(t, scope) for t in TARGETS.values() for scope in t.scopes]


def check_scope(target: Target, scope: str) -> None:
    if scope not in target.scopes:
        only = " and ".join(f"--scope {s}" for s in target.scopes)
        raise ValidationError(
            f"{target.label} ({target.id}) has no {scope} configuration; it supports {only}",
            details={"target": target.id, "scope": scope, "scopes": list(target.scopes)},
        )


@dataclass(frozen=True)
class Places:
    """The folders client configs are found under, read from the environment."""

    home: Path
    config_home: Path  # XDG_CONFIG_HOME or ~/.config
    appdata: Path  # Windows: %APPDATA% (roaming)
    cwd: Path
    platform: str

    @classmethod
    def from_env(cls) -> Places:
        home = home_dir()
        config_home = Path(xdg_dir("XDG_CONFIG_HOME") or home / ".config")
        appdata = os.environ.get("APPDATA", "").strip()
        return cls(
            home=home,
            config_home=config_home,
            appdata=Path(appdata) if appdata else home / "AppData" / "Roaming",
            cwd=Path.cwd(),
            platform=sys.platform,
        )


def _first_existing(*candidates: Path) -> Path:
    """The first file that exists, else the first name (the one gno creates)."""
    return next((p for p in candidates if p.is_file()), candidates[0])


def config_path(target: Target, scope: str, places: Places) -> Path:
    check_scope(target, scope)
    home, cfg, cwd = places.home, places.config_home, places.cwd
    windows, mac = places.platform.startswith("win"), places.platform == "darwin"
    match target.id, scope:
        case "claude-desktop", _:
            if mac:
                return (
                    home
                    / "Library"
                    / "Application Support"
                    / "Claude"
                    / "claude_desktop_config.json"
                )
            base = places.appdata if windows else cfg
            return base / "Claude" / "claude_desktop_config.json"
        case "claude-code", "user":
            return home / ".claude.json"
        case "claude-code", _:
            return cwd / ".mcp.json"
        case "codex", "user":
            codex_home = os.environ.get("CODEX_HOME", "").strip()
            return (Path(codex_home) if codex_home else home / ".codex") / "config.toml"
        case "codex", _:
            return cwd / ".codex" / "config.toml"
        case "cursor", "user":
            return home / ".cursor" / "mcp.json"
        case "cursor", _:
            return cwd / ".cursor" / "mcp.json"
        case "zed", _:
            return (places.appdata / "Zed" if windows else cfg / "zed") / "settings.json"
        case "windsurf", _:
            return home / ".codeium" / "windsurf" / "mcp_config.json"
        case "opencode", "user":  # an existing .jsonc is reused rather than shadowed
            folder = cfg / "opencode"
            return _first_existing(folder / "opencode.json", folder / "opencode.jsonc")
        case "opencode", _:
            return _first_existing(cwd / "opencode.json", cwd / "opencode.jsonc")
        case "amp", _:
            folder = cfg / "amp"
            return _first_existing(folder / "settings.json", folder / "settings.jsonc")
        case "lmstudio", _:
            return home / ".lmstudio" / "mcp.json"
        case "librechat", _:
            return _first_existing(cwd / "librechat.yaml", cwd / "librechat.yml")
    raise AssertionError(f"no location for {target.id}/{scope}")
