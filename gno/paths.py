"""Where gno keeps things: the home folder, XDG/platform dirs, overridable by GNO_*_DIR and
--config; where a shell finds gno's completion script, and writing it there."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from gno.core.identity import DEFAULT_INDEX, index_identity
from gno.errors import GnoError, ValidationError

APP = "gno"
SHELLS = ("bash", "zsh", "fish")


def home_dir() -> Path:
    """The user's home folder: ``$HOME`` when it is an absolute path, else the system's user
    record. An empty ``HOME`` (``HOME= gno …``, a stripped service environment) makes Python's
    ``expanduser`` answer ``/``, and a relative one a folder under the current one, so gno's
    own folders and the MCP clients' configs would be looked for there."""
    if sys.platform.startswith("win"):  # Python reads USERPROFILE there, never HOME
        return Path.home()
    home = os.environ.get("HOME", "")
    if os.path.isabs(home):
        return Path(home)
    try:
        import pwd

        record = pwd.getpwuid(os.getuid()).pw_dir
    except (ImportError, KeyError):  # a uid with no passwd entry (containers)
        record = ""
    if not os.path.isabs(record):
        raise GnoError(
            "Cannot tell your home folder: HOME is not an absolute path and your user has no "
            "home in the system's user record; set HOME, or GNO_CONFIG_DIR, GNO_DATA_DIR and "
            "GNO_CACHE_DIR"
        )
    return Path(record)


def expand_home(path: str) -> str:
    """``path`` with a leading ``~`` (or ``~/``) made the home folder of ``home_dir``; a
    ``~user`` prefix is that user's home (``os.path.expanduser``); anything else as it is."""
    if path == "~" or path.startswith(("~/", "~" + os.sep)):
        return str(home_dir()).rstrip(os.sep) + path[1:] or os.sep
    return os.path.expanduser(path)


def xdg_dir(name: str) -> str:
    """An XDG base directory variable, or "" when it is unset, empty or relative."""
    value = os.environ.get(name, "").strip()
    return value if os.path.isabs(value) else ""


def _platform_dir(kind: str) -> Path:
    if sys.platform.startswith("linux"):
        # The XDG rules, without importing platformdirs on every CLI start: a variable that is
        # empty or relative is ignored, as the XDG Base Directory specification says.
        env, fallback = {
            "config": ("XDG_CONFIG_HOME", ".config"),
            "data": ("XDG_DATA_HOME", ".local/share"),
            "cache": ("XDG_CACHE_HOME", ".cache"),
        }[kind]
        return Path(xdg_dir(env) or home_dir() / fallback) / APP
    import platformdirs

    return Path(getattr(platformdirs, f"user_{kind}_dir")(APP, appauthor=False))


def _dir(kind: str) -> Path:
    override = os.environ.get(f"GNO_{kind.upper()}_DIR", "").strip()
    return Path(expand_home(override)).absolute() if override else _platform_dir(kind)


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
    if config is not None and str(config) == "":  # `--config "$UNSET"`: not the default file
        raise ValidationError(
            "--config is empty: give the path of an index.yml, or leave --config out for the "
            "default one"
        )
    config_file = (
        Path(expand_home(str(config))).absolute()
        if config is not None
        else _dir("config") / "index.yml"
    )
    paths = Paths(config_file, _dir("data"), _dir("cache"), name)
    for what, path in (
        ("config file", config_file),
        ("data folder", paths.data_dir),
        ("cache folder", paths.cache_dir),
    ):
        _check_utf8(what, path)
    return paths


def _check_utf8(what: str, path: Path) -> None:
    """A path of bytes that are not UTF-8 (Python keeps them as lone surrogates) can name no
    SQLite file and be written in no JSON answer: refused here, before anything is made."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(path).decode("utf-8", "backslashreplace")
        raise ValidationError(
            f"The {what} {shown} is not valid UTF-8; gno needs UTF-8 paths "
            "(see GNO_CONFIG_DIR, GNO_DATA_DIR, GNO_CACHE_DIR, XDG_*_HOME, HOME, --config)"
        ) from None


def folder_error(folder: Path, exc: OSError) -> GnoError:
    """The error of one of gno's folders (data, cache) that cannot be made or written in:
    a clear error naming it (a file in its place, a read-only folder), not a bug report."""
    if isinstance(exc, (FileExistsError, NotADirectoryError)):
        why = "it (or a folder above it) is not a folder"
    else:
        why = exc.strerror or str(exc)
    return GnoError(f"Cannot use the folder {folder}: {why}", details={"path": str(folder)})


def completion_target(shell: str) -> tuple[Path, str]:
    """Where ``shell`` finds a completion file without any rc edit (bash-completion's
    user folder, fish's completions folder), or for zsh a folder to put on ``fpath``;
    and what, if anything, the user still has to do."""
    home = home_dir()
    data = Path(xdg_dir("XDG_DATA_HOME") or home / ".local" / "share")
    config = Path(xdg_dir("XDG_CONFIG_HOME") or home / ".config")
    if shell == "bash":
        return data / "bash-completion" / "completions" / "gno", "open a new shell"
    if shell == "zsh":
        note = "add `fpath+=~/.zfunc; autoload -Uz compinit; compinit` to ~/.zshrc if absent"
        return home / ".zfunc" / "_gno", note
    return config / "fish" / "completions" / "gno.fish", "open a new shell"


def install_completion(shell: str, text: str) -> tuple[Path, str]:
    """Write ``text`` where ``shell`` finds it (``completion_target``), all at once: a shell
    never reads half a script. Returns the file and what the user still has to do."""
    from gno.file_writes import write_atomic

    path, note = completion_target(shell)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, text.encode("utf-8"))
    except OSError as exc:  # a file where a folder should be (~/.zfunc), a read-only folder
        on_way = isinstance(exc, (FileExistsError, NotADirectoryError))
        why = "a folder on its way is not a folder" if on_way else exc.strerror or str(exc)
        raise GnoError(f"Cannot write {path}: {why}", details={"path": str(path)}) from None
    return path, note


def login_shell() -> str:
    """The user's shell, from ``$SHELL``, if it is one gno writes completion for."""
    name = Path(os.environ.get("SHELL", "")).name
    if name not in SHELLS:
        raise ValidationError("Cannot tell your shell from $SHELL: give --shell bash|zsh|fish")
    return name
