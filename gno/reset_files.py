"""What `gno reset` deletes (``gno.services.reset`` is the operation): gno's index data,
and unless kept its config file and its cache.

GNO deletes its three folders whole. gno deletes only what it owns in them, since
GNO_DATA_DIR, GNO_CACHE_DIR and --config may name folders that hold other files:

- data: the index files (``index-*.sqlite`` with their ``-wal``/``-shm``/``-journal``,
  ``.egress-audit`` receipts, ``.lock``, ``.checked``), ``trace-*.db``, capsule watches,
  the server's ``resident.lock``/pid/log files, ``.mcp-write.lock``, ``refactor-journal/``;
- config: the config file itself (``index.yml`` or the file --config names) when gno reads
  it as a config, and gno's leftover temporary copies of it;
- cache: ``models/``, ``graph/``, ``config/`` (and a models cache's own entries when the
  cache folder is the models folder).

A folder under a file's name, and a folder of gno's that is or holds another of the three
folders (GNO_DATA_DIR set to the cache's ``graph``), are not gno's to delete whole.
Anything else stays, is reported in ``foreign``, and keeps its folder; a folder left empty
is removed, except a folder given by --config or one reached through a symbolic link. No
symbolic link is followed: a link with one of gno's names is removed as a link (a lock
file's link before reset takes the locks, which would write through it).

Refused (VALIDATION): a folder that is ``/``, a top-level folder, the home folder or one
above it, or a shared base folder (``~/.config``, ``~/.local/share``, ``~/.cache``, the XDG
variables). Refused (LOCKED): a running `gno serve`/`gno daemon` owns the data folder; reset
holds that owner lock and every index's guard while it deletes, so neither a server nor a
sync commit starts meanwhile. A SQLite file goes sidecars first (``-wal`` before the main
file): a reset stopped half-way leaves an older, whole index or none, never a WAL that
would be replayed into the next index made there. A folder is renamed to a ``.gno-reset-*``
name first and deleted then; a later reset removes such a leftover.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import stat
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gno.errors import GnoError, OwnerLockedError, ValidationError
from gno.paths import home_dir, resolve_paths, xdg_dir

if TYPE_CHECKING:
    from gno.paths import Paths

GUARD_WAIT_SECONDS = 5.0  # a sync batch commits in well under this
FOREIGN_SHOWN = 100  # names listed per folder in `foreign`
TRASH = ".gno-reset-"
_SIDECARS = ("-wal", "-journal", "-shm")  # removed in this order, before the main file
_SQLITE = re.compile(r"(index-.+\.sqlite(\.egress-audit)?|trace-.+\.db)")
_DATA = re.compile(
    r"index-.+\.(lock|checked)|capsule-watches-.+\.(json|lock)|resident\.lock"
    r"|(serve|daemon)\.(pid|log)|\.mcp-write\.lock|refactor-journal"
)
_CACHE = {"models", "graph", "config"}
_MODELS = {"hf", ".partial", ".locks", "manifest.json"}  # a cache folder named models
# The only names gno makes as folders; any other name of gno's is a file. A folder under a
# file's name (``index-a.sqlite/``) is the user's, and its contents stay.
_FOLDERS = {"refactor-journal", "models", "graph", "config", "hf", ".partial", ".locks"}
_TEMP = re.compile(r"\.gno-tmp-[0-9a-f]{12}-(.+)", re.DOTALL)  # gno.file_writes.temp_name


def _sqlite_main(name: str) -> str | None:
    """The main file a SQLite file or sidecar of gno belongs to, else None."""
    for tail in ("", *_SIDECARS):
        if name.endswith(tail) and _SQLITE.fullmatch(name[: len(name) - len(tail)]):
            return name[: len(name) - len(tail)]
    return None


def _owned_data(name: str) -> bool:
    return bool(_sqlite_main(name) or _DATA.fullmatch(name) or name.startswith(TRASH))


def _owned_cache(folder: Path) -> Any:
    names = _CACHE | (_MODELS if folder.name == "models" else set())
    return lambda name: name in names or name.startswith(TRASH)


def _owned_config(config_name: str) -> Any:
    def owned(name: str) -> bool:
        temp = _TEMP.fullmatch(name)
        return name == config_name or bool(temp and temp.group(1) == config_name)

    return owned


def _refusal(folder: Path, role: str) -> str | None:
    """Why ``folder`` may not be reset, or None."""
    real = Path(os.path.realpath(folder))
    home = Path(os.path.realpath(home_dir()))
    shared = {home / ".config", home / ".local", home / ".local" / "share", home / ".cache"}
    shared |= {Path(os.path.realpath(v)) for n in _XDG if (v := xdg_dir(n))}
    if real == real.parent or real.parent == real.parent.parent:
        why = "the root or a top-level folder"
    elif real == home or real in home.parents:
        why = "your home folder or a folder above it"
    elif real in shared:
        why = "a base folder other programs share"
    else:
        return None
    return f"Refusing to reset the {role} folder {folder}: it is {why}"


_XDG = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME")


def _entries(folder: Path, owned: Any) -> tuple[list[str], list[str], bool]:
    """(gno's names, foreign names, whether the folder exists) in ``folder``."""
    try:
        names = sorted(os.listdir(folder))
    except FileNotFoundError:
        return [], [], False
    except NotADirectoryError:
        raise ValidationError(f"{folder} is not a folder; nothing was deleted") from None
    except OSError as exc:
        raise GnoError(f"Cannot read {folder}: {exc.strerror or exc}") from None
    fits = {n: owned(n) and _kind_fits(folder / n) for n in names}
    return [n for n in names if fits[n]], [n for n in names if not fits[n]], True


def _kind_fits(path: Path) -> bool:
    """Whether ``path`` is of the kind gno makes under its name: a folder for a folder name,
    anything but a folder for a file name; a link is always removed as a link."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:  # gone meanwhile: nothing to delete
        return False
    if stat.S_ISLNK(mode):
        return True
    return stat.S_ISDIR(mode) == (path.name in _FOLDERS or path.name.startswith(TRASH))


def _keep_foreign_config(folder: _Folder, name: str) -> None:
    """The config file goes only when gno reads it as a config: ``--config README.md``, or
    a project's own ``index.yml`` in GNO_CONFIG_DIR, is the user's file under that name
    (a link is only a link, removed as one)."""
    import yaml

    from gno.config import load_config

    path = folder.path / name
    if name not in folder.mine or path.is_symlink():
        return
    try:  # load_config bounds the read (size, depth, aliases) before the second parse
        load_config(path)
        gnos = yaml.safe_load(path.read_bytes()) is not None  # gno never writes it empty
    except Exception:  # unreadable, not YAML, not a config: not gno's to delete
        gnos = False
    if not gnos:
        folder.mine.remove(name)
        folder.foreign = sorted([*folder.foreign, name])


def _drop_nesting(folders: list[_Folder]) -> None:
    """A folder of gno's that is, or holds, another of the three folders (GNO_DATA_DIR set
    to the cache's ``graph``, the config folder inside ``refactor-journal``) is not deleted
    whole: that folder's other files, or its kept config, would go with it. It is reported
    in ``foreign`` and stays."""
    others = [Path(os.path.realpath(f.path)) for f in folders]
    for folder, real in zip(folders, others, strict=True):  # one folder in two roles: what
        for other, same in zip(folders, others, strict=True):  # either deletes is no foreign
            if same == real and other is not folder and not other.keep:
                theirs = set(other.mine)
                folder.foreign = [n for n in folder.foreign if n not in theirs]
    for folder in folders:
        for name in list(folder.mine):
            entry = folder.path / name
            if os.path.islink(entry) or not entry.is_dir():
                continue
            real = Path(os.path.realpath(entry))
            if any(o == real or real in o.parents for o in others):
                folder.mine.remove(name)
                folder.foreign = sorted([*folder.foreign, name])


class _Folder:
    """One of gno's folders: what of it is gno's, and what reset did there."""

    def __init__(self, role: str, path: Path, owned: Any, keep: bool, removable: bool) -> None:
        self.role, self.path, self.keep, self.removable = role, path, keep, removable
        self.mine, self.foreign, self.exists = ([], [], False) if keep else _entries(path, owned)
        self.removed = 0
        self.made_lock = False  # resident.lock made by reset's own hold: not counted

    def ordered(self) -> list[str]:
        """gno's names in a safe order: every SQLite file's sidecars before it, the owner
        lock last (reset holds it until the end)."""

        def rank(name: str) -> tuple[int, str, int]:
            main = _sqlite_main(name)
            if main is not None:
                tail = name[len(main) :]
                return 0, main, _SIDECARS.index(tail) if tail else len(_SIDECARS)
            return (2 if name == "resident.lock" else 1), name, 0

        return sorted(self.mine, key=rank)

    def delete(self) -> None:
        for name in self.ordered():
            _remove(self.path / name)
            self.removed += not (self.made_lock and name == "resident.lock")
        if self.removable and not self.foreign and self.exists and not self.path.is_symlink():
            with suppress(OSError):  # something appeared meanwhile: not gno's to delete
                self.path.rmdir()

    def result(self, error: str | None = None) -> dict[str, Any]:
        status = "kept" if self.keep else "deleted" if self.removed else "missing"
        found: dict[str, Any] = {
            "path": str(self.path),
            "status": status,
            "role": self.role,
            "removed": self.removed,
            "foreign": self.foreign[:FOREIGN_SHOWN],
        }
        return found | ({"error": error} if error else {})


def _remove(path: Path) -> None:
    """Delete one entry without following a link: a folder is renamed first, so a failure
    half-way leaves a ``.gno-reset-*`` folder (gno's, removed by the next reset)."""
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        path.unlink()
        return
    trash = path if path.name.startswith(TRASH) else path.with_name(TRASH + secrets.token_hex(6))
    if trash != path:
        os.rename(path, trash)
    shutil.rmtree(trash)  # fd-based on Linux: links inside are removed, never followed


def reset_folders(
    paths: Paths, *, confirm: bool, keep_config: bool, keep_cache: bool
) -> list[dict[str, Any]]:
    """Reset gno's folders of ``paths`` (the module's rules); what was done per folder."""
    config_dir = paths.config_file.parent
    default_config = resolve_paths(None, paths.index_name).config_file == paths.config_file
    folders = [
        _Folder("data", paths.data_dir, _owned_data, False, True),
        _Folder(
            "config", config_dir, _owned_config(paths.config_file.name), keep_config,
            default_config,
        ),
        _Folder("cache", paths.cache_dir, _owned_cache(paths.cache_dir), keep_cache, True),
    ]  # fmt: skip
    for folder in folders:
        if not folder.keep and (why := _refusal(folder.path, folder.role)):
            raise ValidationError(why + "; nothing was deleted")
    _drop_nesting(folders)
    _keep_foreign_config(folders[1], paths.config_file.name)
    if not confirm:
        raise ValidationError(_would_delete(folders), details={"wouldDelete": _listing(folders)})
    data = folders[0]
    with ExitStack() as held:
        if data.exists:
            _hold_data_dir(held, data)
        done: list[dict[str, Any]] = []
        for folder in folders:
            try:
                folder.delete()
            except OSError as exc:
                failed = folder.result(f"{exc.filename or folder.path}: {exc.strerror or exc}")
                raise GnoError(
                    f"Reset stopped: cannot delete {exc.filename or folder.path} "
                    f"({exc.strerror or exc}); run `gno reset --confirm` again once it can be",
                    details={"results": [*done, failed]},
                ) from None
            done.append(folder.result())
    return done


def _hold_data_dir(held: ExitStack, data: _Folder) -> None:
    """Own the data folder (no server starts) and hold every index's guard (no sync commit
    runs) until the end: LOCKED when a server owns it or a guard stays busy."""
    from gno.index_lock import guard_file
    from gno.resident.lock import DataDirLock

    for name in [n for n in data.mine if _is_lock(n)]:
        with suppress(FileNotFoundError):
            if stat.S_ISREG(os.lstat(data.path / name).st_mode):
                continue
            _remove(data.path / name)  # a link, a FIFO: nobody's lock, and gno must not
        data.mine.remove(name)  # open it (a link's target would be truncated)
        data.removed += 1
    lock = DataDirLock(data.path)
    try:
        lock.acquire({"cmd": "reset"})
    except OwnerLockedError as exc:
        raise OwnerLockedError(
            f"Reset refused: {exc.message.split('. ')[0]}. Stop it first "
            "(gno serve --stop / gno daemon --stop); nothing was deleted"
        ) from None
    held.callback(lock.release)
    if "resident.lock" not in data.mine:  # made just now: gno's, deleted with the rest
        data.mine.append("resident.lock")
        data.made_lock = True
    for name in data.mine:
        if _is_lock(name) and name != "resident.lock":
            held.enter_context(guard_file(data.path / name, GUARD_WAIT_SECONDS))


def _is_lock(name: str) -> bool:
    return name == "resident.lock" or (name.startswith("index-") and name.endswith(".lock"))


def _listing(folders: list[_Folder]) -> list[str]:
    return [str(f.path / n) for f in folders if not f.keep for n in f.ordered()]


def _would_delete(folders: list[_Folder]) -> str:
    lines = ["Nothing was deleted: `gno reset` needs --confirm. It would delete:"]
    for f in folders:
        if f.keep:
            lines.append(f"  {f.role}: {f.path} (kept)")
        elif f.mine:
            shown = ", ".join(f.ordered()[:8]) + (", ..." if len(f.mine) > 8 else "")
            left = f"; {len(f.foreign)} other entries stay" if f.foreign else ""
            lines.append(f"  {f.role}: in {f.path}: {shown}{left}")
        else:
            lines.append(f"  {f.role}: {f.path} (nothing of gno's)")
    return "\n".join(lines)
