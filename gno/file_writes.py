"""Writing files inside a collection root without ever leaving it or half-writing one.

``resolve_inside`` maps a checked relative path onto the disk and refuses a target
whose existing parents (or the file itself) are symlinks leading out of the root.
``write_atomic`` writes through a temporary file in the target's own folder, fsyncs
it and renames it into place, so a reader or a crash sees the old bytes or the new
ones, never a mix; the temporary file is removed whatever fails. ``exclusive=True``
refuses to replace an existing file (``DuplicateError``) and is race-free: the final
step is ``os.link``, which fails when the name exists.

Callers hold ``gno.index_lock.write_lease`` around the write and the inline sync that
follows, so writers of every surface take turns.

A crash (kill -9, power) mid-write leaves the temporary file behind; a full sync of a
writable collection hands the walk's ``.gno-tmp-*`` names to ``remove_stale_temps``, which
removes those of gno's exact shape once they are an hour old (no write takes that long).
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
import time
from collections.abc import Iterable
from pathlib import Path

from gno.core.write_paths import check_rel_path
from gno.errors import (
    DiskFullError,
    DuplicateError,
    FileMissingError,
    GnoError,
    InvalidPathError,
    ValidationError,
)
from gno.ingest.reading import FileTooLarge, NotRegularFile, inside, read_regular

MAX_WRITE_BYTES = 10 * 1024 * 1024  # a note, not a dataset; larger content is refused, never cut
MAX_READ_BYTES = 100 * 1024 * 1024  # the largest file a sync indexes (sync_apply.MAX_FILE_BYTES)
TEMP_PREFIX = ".gno-tmp-"  # the walker skips dot files, so a leftover is never indexed
# exactly what ``temp_name`` makes: a user's own ".gno-tmp-notes.md" does not match
TEMP_NAME = re.compile(re.escape(TEMP_PREFIX) + r"[0-9a-f]{12}-.+", re.DOTALL)
STALE_TEMP_SECONDS = 3600  # a write in flight (another process) is seconds old, never this


def resolve_inside(root: Path, rel: str) -> Path:
    """The absolute target of ``rel`` under ``root``; every existing part must stay inside."""
    rel = check_rel_path(rel)
    real_root = Path(os.path.realpath(root))
    target = real_root.joinpath(*rel.split("/"))
    # realpath follows every symlink that exists along the way; the part that does not
    # exist yet cannot be a link, so the resolved path must still sit under the root.
    resolved = Path(os.path.realpath(target))
    if resolved != real_root and real_root not in resolved.parents:
        raise InvalidPathError(f"Cannot write to {rel!r}: it leads outside the collection root")
    if target.is_symlink():
        raise InvalidPathError(f"Cannot write to {rel!r}: the target is a symbolic link")
    return target


def read_existing(path: os.PathLike[str] | str, max_bytes: int = MAX_READ_BYTES) -> bytes:
    """The bytes of the file a write starts from. A named pipe or device put where the
    note was must not block the writer (which holds the lease), nor a huge file fill
    memory: the read is non-blocking and bounded (``gno.ingest.reading``)."""
    name = os.path.basename(path)
    try:
        return read_regular(os.fspath(path), max_bytes)
    except FileNotFoundError:
        raise FileMissingError("The document's file is gone from disk; run gno update") from None
    except NotRegularFile as exc:
        raise InvalidPathError(f"Cannot use {name!r}: {exc}") from None
    except FileTooLarge as exc:
        raise ValidationError(f"Cannot use {name!r}: {exc}") from None
    except OSError as exc:
        raise GnoError(f"Cannot read {name!r}: {exc.strerror or type(exc).__name__}") from None


def kept_mode(path: os.PathLike[str] | str) -> int | None:
    """The permission bits of the regular file at ``path`` (None when there is none), so a
    rewrite keeps them: saving a private (0600) note must not make it world-readable."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return stat.S_IMODE(st.st_mode) & 0o777 if stat.S_ISREG(st.st_mode) else None


def write_atomic(
    path: Path, data: bytes, *, exclusive: bool = False, mode: int | None = None
) -> None:
    """Put ``data`` at ``path`` all at once (parents must exist; see ``make_parents``).
    ``mode`` defaults to the replaced file's permission bits, else 0o644 minus the umask."""
    if len(data) > MAX_WRITE_BYTES:
        raise InvalidPathError(
            f"Content is {len(data)} bytes; gno writes at most {MAX_WRITE_BYTES} bytes per file"
        )
    if path.exists() and not path.is_file():
        raise InvalidPathError(f"Cannot write to {path.name!r}: it exists and is not a file")
    tmp = path.with_name(temp_name(path.name))
    if mode is None and not exclusive:
        mode = kept_mode(path)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(tmp, flags, 0o644 if mode is None else mode)
        with os.fdopen(fd, "wb") as handle:
            if mode is not None and hasattr(os, "fchmod"):
                os.fchmod(fd, mode)  # exactly these bits, whatever the umask
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if exclusive:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise DuplicateError(f"{path.name!r} already exists") from None
        else:
            os.replace(tmp, path)
        fsync_dir(path.parent)
    except OSError as exc:
        if exc.errno == 28:  # ENOSPC
            raise DiskFullError("No space left on the device; nothing was written") from exc
        raise
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)


def temp_name(name: str) -> str:
    """A fresh temporary name beside ``name``, at most 255 *bytes* (the file system's
    limit): a long multibyte name would otherwise push it over and fail the write."""
    prefix = f"{TEMP_PREFIX}{secrets.token_hex(6)}-"
    room = 255 - len(prefix)
    return prefix + name.encode("utf-8", "surrogateescape")[:room].decode("utf-8", "ignore")


def remove_stale_temps(
    root: os.PathLike[str] | str, paths: Iterable[str], max_age: float = STALE_TEMP_SECONDS
) -> int:
    """Remove the temporary files crashed writes left; how many. ``paths`` are the walk's
    candidates under ``root``: only a regular file named exactly like ``temp_name`` makes,
    older than ``max_age``, in a folder that is (still) inside the root, is removed; a
    link is never followed, and a file that cannot be checked is left alone."""
    real_root = os.path.realpath(root)
    cutoff = time.time() - max_age
    removed = 0
    for path in paths:
        folder, name = os.path.split(path)
        if not TEMP_NAME.fullmatch(name):
            continue
        with contextlib.suppress(OSError):
            if _remove_if_stale(real_root, folder, name, cutoff):
                removed += 1
    return removed


def _remove_if_stale(real_root: str, folder: str, name: str, cutoff: float) -> bool:
    fd = None
    if {os.stat, os.unlink} <= os.supports_dir_fd:  # directory fds: not on Windows
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        # The folder is pinned by ``fd``: one on its path swapped for a link out of the root
        # since the walk changes its realpath (or the inode there), and nothing is removed.
        real = os.path.realpath(folder)
        if not inside(real, real_root):
            return False
        if fd is not None and not os.path.samestat(os.fstat(fd), os.stat(real)):
            return False
        entry = name if fd is not None else os.path.join(folder, name)
        st = os.stat(entry, dir_fd=fd, follow_symlinks=False)
        if not stat.S_ISREG(st.st_mode) or st.st_mtime >= cutoff:
            return False
        os.unlink(entry, dir_fd=fd)  # never follows a link: only the name itself goes
        return True
    finally:
        if fd is not None:
            os.close(fd)


def make_parents(root: Path, path: Path) -> None:
    """Create the folders between ``root`` and ``path`` (each checked to stay inside)."""
    real_root = Path(os.path.realpath(root))
    parent = path.parent
    if parent != real_root and real_root not in parent.parents:
        raise InvalidPathError("Cannot create a folder outside the collection root")
    parent.mkdir(parents=True, exist_ok=True)
    resolved = Path(os.path.realpath(parent))
    if resolved != real_root and real_root not in resolved.parents:
        raise InvalidPathError("Cannot create a folder outside the collection root")


def fsync_dir(folder: Path) -> None:
    """Make the rename itself durable (POSIX); platforms without directory fds skip it."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
