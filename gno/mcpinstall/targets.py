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
from functools import cached_property
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


class Places:
    """The folders client configs are found under. From the environment, the home folder
    and what derives from it are worked out only when a location needs them: a project's
    config lies under the current folder, so ``-s project`` works where there is no home at
    all (a uid with no user record and no ``HOME``), as the home error's own advice says."""

    def __init__(
        self,
        *,
        cwd: Path,
        platform: str,
        home: Path | None = None,
        config_home: Path | None = None,  # XDG_CONFIG_HOME or ~/.config
        appdata: Path | None = None,  # Windows: %APPDATA% (roaming)
    ) -> None:
        self.cwd, self.platform = cwd, platform
        self._home, self._config_home, self._appdata = home, config_home, appdata

    @classmethod
    def from_env(cls) -> Places:
        return cls(cwd=Path.cwd(), platform=sys.platform)

    @cached_property
    def home(self) -> Path:
        return self._home if self._home is not None else home_dir()

    @cached_property
    def config_home(self) -> Path:
        if self._config_home is not None:
            return self._config_home
        return Path(xdg_dir("XDG_CONFIG_HOME") or self.home / ".config")

    @cached_property
    def appdata(self) -> Path:
        if self._appdata is not None:
            return self._appdata
        appdata = os.environ.get("APPDATA", "").strip()
        return Path(appdata) if appdata else self.home / "AppData" / "Roaming"


def _first_existing(*candidates: Path) -> Path:
    """The first file that exists, else the first name (the one gno creates)."""
    return next((p for p in candidates if p.is_file()), candidates[0])


def config_path(target: Target, scope: str, places: Places) -> Path:
    check_scope(target, scope)
    cwd = places.cwd  # the home and config folders are looked up only by user-scope cases
    windows, mac = places.platform.startswith("win"), places.platform == "darwin"
    match target.id, scope:
        case "claude-desktop", _:
            if mac:
                return (
                    places.home
                    / "Library"
                    / "Application Support"
                    / "Claude"
                    / "claude_desktop_config.json"
                )
            base = places.appdata if windows else places.config_home
            return base / "Claude" / "claude_desktop_config.json"
        case "claude-code", "user":
            return places.home / ".claude.json"
        case "claude-code", _:
            return cwd / ".mcp.json"
        case "codex", "user":
            codex_home = os.environ.get("CODEX_HOME", "").strip()
            return (Path(codex_home) if codex_home else places.home / ".codex") / "config.toml"
        case "codex", _:
            return cwd / ".codex" / "config.toml"
        case "cursor", "user":
            return places.home / ".cursor" / "mcp.json"
        case "cursor", _:
            return cwd / ".cursor" / "mcp.json"
        case "zed", _:
            return (
                places.appdata / "Zed" if windows else places.config_home / "zed"
            ) / "settings.json"
        case "windsurf", _:
            return places.home / ".codeium" / "windsurf" / "mcp_config.json"
        case "opencode", "user":  # an existing .jsonc is reused rather than shadowed
            folder = places.config_home / "opencode"
            return _first_existing(folder / "opencode.json", folder / "opencode.jsonc")
        case "opencode", _:
            return _first_existing(cwd / "opencode.json", cwd / "opencode.jsonc")
        case "amp", _:
            folder = places.config_home / "amp"
            return _first_existing(folder / "settings.json", folder / "settings.jsonc")
        case "lmstudio", _:
            return places.home / ".lmstudio" / "mcp.json"
        case "librechat", _:
            return _first_existing(cwd / "librechat.yaml", cwd / "librechat.yml")
    raise AssertionError(f"no location for {target.id}/{scope}")
