"""Where gno keeps things: XDG/platform dirs, overridable by GNO_*_DIR and --config; where a
shell finds gno's completion script."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from gno.core.identity import DEFAULT_INDEX, index_identity
from gno.errors import ValidationError

APP = "gno"
SHELLS = ("bash", "zsh", "fish")


def _platform_dir(kind: str) -> Path:
    if sys.platform.startswith("linux"):
        # The XDG rules, without importing platformdirs on every CLI start.
        env, fallback = {
            "config": ("XDG_CONFIG_HOME", "~/.config"),
            "data": ("XDG_DATA_HOME", "~/.local/share"),
            "cache": ("XDG_CACHE_HOME", "~/.cache"),
        }[kind]
        base = os.environ.get(env, "").strip()
        return Path(base if os.path.isabs(base) else os.path.expanduser(fallback)) / APP
    import platformdirs

    return Path(getattr(platformdirs, f"user_{kind}_dir")(APP, appauthor=False))


def _dir(kind: str) -> Path:
    override = os.environ.get(f"GNO_{kind.upper()}_DIR", "").strip()
    return Path(override).expanduser().absolute() if override else _platform_dir(kind)


@dataclass(frozen=True)
class Paths:
    """Where one index lives: its index.yml, data and cache folders, and its name."""

    config_file: Path
    data_dir: Path
    cache_dir: Path
    index_name: str

    @property
    def index_identity(self) -> str:
        return index_identity(self.index_name)

    @property
    def db_path(self) -> Path:
        return self.data_dir / f"index-{self.index_identity}.sqlite"

    @property
    def models_dir(self) -> Path:
        return self.cache_dir if self.cache_dir.name == "models" else self.cache_dir / "models"


def resolve_paths(config: str | Path | None = None, index: str | None = None) -> Paths:
    name = DEFAULT_INDEX if index is None else index  # "" is an invalid name, not the default
    index_identity(name)  # validate early: a bad name is a usage error
    config_file = Path(config).expanduser().absolute() if config else _dir("config") / "index.yml"
    return Paths(config_file, _dir("data"), _dir("cache"), name)


def completion_target(shell: str) -> tuple[Path, str]:
    """Where ``shell`` finds a completion file without any rc edit (bash-completion's
    user folder, fish's completions folder), or for zsh a folder to put on ``fpath``;
    and what, if anything, the user still has to do."""
    home = Path.home()
    data = Path(os.environ.get("XDG_DATA_HOME") or home / ".local" / "share")
    config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    if shell == "bash":
        return data / "bash-completion" / "completions" / "gno", "open a new shell"
    if shell == "zsh":
        note = "add `fpath+=~/.zfunc; autoload -Uz compinit; compinit` to ~/.zshrc if absent"
        return home / ".zfunc" / "_gno", note
    return config / "fish" / "completions" / "gno.fish", "open a new shell"


def login_shell() -> str:
    """The user's shell, from ``$SHELL``, if it is one gno writes completion for."""
    name = Path(os.environ.get("SHELL", "")).name
    if name not in SHELLS:
        raise ValidationError("Cannot tell your shell from $SHELL: give --shell bash|zsh|fish")
    return name
