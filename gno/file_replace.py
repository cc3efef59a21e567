"""Rewriting a small file of the user's (index.yml, an MCP client's config) in one step.

``replace_file`` writes the new bytes to a temporary file in the target's own folder,
fsyncs it, gives it its mode and renames it over the target (``os.replace``): a reader or
a crash sees the old file or the new one, never half of one. ``real_file`` is the file a
symlinked name stands for: dotfile managers keep a config in a repository and link it
into place, and a rename over the link would replace the link by a plain file, so the
repository's copy would silently stop getting edits. ``kept_mode`` is the mode the file
has now (a user's 0644 or 0600 stays as it was); a new file is created with 0666 and the
kernel applies the umask, as for any file a program creates, so gno never reads the umask
(``os.umask`` sets it to read it, a race with every other thread of ``gno serve``).
``read_only`` tells a file its owner made read-only: the rename would replace it all the
same (the mode guards writes into the file, not the folder's entry), so callers refuse.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

NEW_FILE_MODE = 0o666  # less the umask, applied by the kernel at creation


def real_file(path: Path) -> Path:
    """``path``, or the file it names through symlinks (a dangling link: the missing file
    the link names, which the write creates). A loop of links raises ``OSError`` (ELOOP)
    rather than being replaced by a plain file."""
    if not path.is_symlink():
        return path
    with contextlib.suppress(FileNotFoundError):  # dangling: no loop to refuse
        os.stat(path)
    return Path(os.path.realpath(path))


def kept_mode(path: Path) -> int | None:
    """The permission bits of the existing file, None when there is none yet."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        return None


def read_only(path: Path) -> bool:
    """Whether the existing file (through its links) is read-only: no write bit at all
    (``chmod a-w``, which binds root too), or none this user holds. A missing file is not;
    a loop of links is left to the write, which reports it."""
    try:
        real = real_file(path)
        mode = kept_mode(real)
        return mode is not None and not (mode & 0o222 and os.access(real, os.W_OK))
    except OSError:
        return False


def replace_file(
    target: Path,
    fill: Callable[[BinaryIO], object],
    mode: int | None,
    before_rename: Callable[[], object] | None = None,
) -> None:
    """``target`` replaced by a temporary file of its folder that ``fill`` wrote, fsynced,
    given ``mode`` (None: a new file's mode, 0666 less the umask) and renamed over it; the
    rename is fsynced through the folder. ``before_rename`` runs last before the rename
    (a check that the target is still what the caller read: raising leaves it as it is)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
    tmp = target.with_name(f".{target.name}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, flags, NEW_FILE_MODE if mode is None else 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            fill(handle)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(tmp, mode)
        if before_rename is not None:
            before_rename()
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # not every platform opens folders
        folder = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(folder)
        finally:
            os.close(folder)
