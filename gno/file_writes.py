"""Writing files inside a collection root without ever leaving it or half-writing one.

``resolve_inside`` maps a checked relative path onto the disk and refuses a target
whose existing parents (or the file itself) are symlinks leading out of the root.
``write_atomic`` writes through a temporary file in the target's own folder, fsyncs
it and renames it into place, so a reader or a crash sees the old bytes or the new
ones, never a mix; the temporary file is removed whatever fails. ``exclusive=True``
refuses to replace an existing file (``DuplicateError``) and is race-free: the final
step is ``os.link``, which fails when the name exists.

The check and the write are two steps, and another process may swap a folder on the path
for a symlink out of the root between them. So a write into a collection (``root=``)
never goes by path: ``open_folder`` opens the root, then each folder below it relative to
the one before with ``O_NOFOLLOW`` (a link on the way fails the open), and the temporary
file, the rename or link and the fsync all name the file relative to that held folder.
A folder swapped after it was opened is not followed either: the write lands in the folder
that was checked, wherever it has moved. ``make_parents`` creates missing folders the same
way. Platforms without directory descriptors (Windows) write by path.

Callers hold ``gno.index_lock.write_lease`` around the write and the inline sync that
follows, so writers of every surface take turns.

A crash (kill -9, power) mid-write leaves the temporary file behind; a full sync of a
writable collection hands the walk's ``.gno-tmp-*`` names to ``remove_stale_temps``, which
removes those of gno's exact shape once they are an hour old (no write takes that long).
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
import time
from collections.abc import Iterable
from pathlib import Path

from gno.core.write_paths import check_rel_path
from gno.errors import (
    ConflictError,
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


def read_existing(
    path: os.PathLike[str] | str, max_bytes: int = MAX_READ_BYTES, *, root: Path | None = None
) -> bytes:
    """The bytes of the file a write starts from. A named pipe or device put where the
    note was must not block the writer (which holds the lease), nor a huge file fill
    memory: the read is non-blocking and bounded (``gno.ingest.reading``). With ``root``
    (a collection root) it is read like a write goes, relative to folders held from the
    root (``open_folder``): a folder swapped for a link out of the root is not followed,
    so a duplicate never copies a private file into the collection."""
    name = os.path.basename(path)
    folder = None
    try:
        if root is not None and HELD_FOLDERS:
            folder = open_parent(root, Path(path))
            return read_regular(name, max_bytes, dir_fd=folder)
        return read_regular(os.fspath(path), max_bytes)
    except FileNotFoundError:
        raise FileMissingError("The document's file is gone from disk; run gno update") from None
    except NotRegularFile as exc:
        raise InvalidPathError(f"Cannot use {name!r}: {exc}") from None
    except FileTooLarge as exc:
        raise ValidationError(f"Cannot use {name!r}: {exc}") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # the file itself became a link
            raise InvalidPathError(f"Cannot use {name!r}: it is a symbolic link") from None
        raise GnoError(f"Cannot read {name!r}: {exc.strerror or type(exc).__name__}") from None
    finally:
        if folder is not None:
            os.close(folder)


def modified_ns(path: Path, *, root: Path) -> int:
    """The modification time of the file at ``path`` in a collection, found the way
    ``read_existing`` reads its bytes: neither a folder swapped for a link on the way nor
    a link at the name itself is followed (``INVALID_PATH``), so no timestamp of a file
    outside the root is ever answered."""
    if not HELD_FOLDERS:
        return os.stat(path).st_mtime_ns
    folder = open_parent(root, path)
    try:
        st = os.stat(path.name, dir_fd=folder, follow_symlinks=False)
    finally:
        os.close(folder)
    if stat.S_ISLNK(st.st_mode):
        raise InvalidPathError(f"Cannot use {path.name!r}: it is a symbolic link")
    return st.st_mtime_ns


def write_atomic(
    path: Path,
    data: bytes,
    *,
    exclusive: bool = False,
    mode: int | None = None,
    root: Path | None = None,
    replacing: bytes | None = None,
) -> None:
    """Put ``data`` at ``path`` all at once (parents must exist; see ``make_parents``).
    ``mode`` defaults to the replaced file's permission bits, else 0o644 minus the umask.
    With ``root`` (a collection root; ``path`` under its real path) nothing on the way
    from the root is followed if it is a link, now or at any moment of the write.
    ``replacing``: the bytes the caller read and edited; the rename goes ahead only while
    the file still holds them (an editor does not take the writer lease: a save it made
    meanwhile is ``CONFLICT``, never renamed over)."""
    if len(data) > MAX_WRITE_BYTES:  # what would be written is the problem, not where
        raise ValidationError(
            f"Content is {len(data)} bytes; gno writes at most {MAX_WRITE_BYTES} bytes per file"
        )
    # A file the user named (CLI output, a completion script) may be reached through
    # links, and a link at its name is replaced by the file, as before; in a collection
    # neither is allowed.
    inside_root = root is not None
    if root is not None and HELD_FOLDERS:
        folder = open_parent(root, path)
    elif HELD_FOLDERS:
        folder = os.open(path.parent, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    else:
        _write_in(None, path, data, exclusive, mode, inside_root, replacing)
        return
    try:
        _write_in(folder, path, data, exclusive, mode, inside_root, replacing)
    finally:
        os.close(folder)


def _write_in(
    folder: int | None,
    path: Path,
    data: bytes,
    exclusive: bool,
    mode: int | None,
    inside_root: bool,
    replacing: bytes | None = None,
) -> None:
    """The write itself; with ``folder`` every name is relative to that descriptor."""
    # names relative to the held folder, or whole paths where there are no folder fds
    name = path.name if folder is not None else os.fspath(path)
    tmp = temp_name(path.name)
    tmp = tmp if folder is not None else os.fspath(path.with_name(tmp))
    try:
        st: os.stat_result | None = os.stat(name, dir_fd=folder, follow_symlinks=not inside_root)
    except FileNotFoundError:
        st = None
    if st is not None and stat.S_ISLNK(st.st_mode):
        raise InvalidPathError(f"Cannot write to {path.name!r}: the target is a symbolic link")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise InvalidPathError(f"Cannot write to {path.name!r}: it exists and is not a file")
    if mode is None and not exclusive and st is not None:
        mode = stat.S_IMODE(st.st_mode) & 0o777  # a private (0600) note stays private
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    try:
        fd = os.open(tmp, flags, 0o644 if mode is None else mode, dir_fd=folder)
        with os.fdopen(fd, "wb") as handle:
            if mode is not None and hasattr(os, "fchmod"):
                os.fchmod(fd, mode)  # exactly these bits, whatever the umask
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if replacing is not None and _bytes_now(name, folder) != replacing:
            raise ConflictError(
                f"{path.name!r} changed while it was being saved; nothing was written"
            )
        if exclusive:
            try:
                os.link(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)
            except FileExistsError:
                raise DuplicateError(f"{path.name!r} already exists") from None
        elif folder is not None:
            os.rename(tmp, name, src_dir_fd=folder, dst_dir_fd=folder)  # replaces, on POSIX
        else:
            os.replace(tmp, name)
        if folder is not None:
            with contextlib.suppress(OSError):
                os.fsync(folder)  # the rename itself made durable
        else:
            fsync_dir(path.parent)
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise DiskFullError("No space left on the device; nothing was written") from exc
        raise
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=folder)


def _bytes_now(name: str, folder: int | None) -> bytes | None:
    """What the file ``name`` holds now (None: gone, or no longer a regular file)."""
    try:
        return read_regular(name, MAX_READ_BYTES, dir_fd=folder)
    except OSError:
        return None


_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_FOLDER_FLAGS = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC
# Directory descriptors for every step of a write (POSIX; not Windows).
HELD_FOLDERS = (
    bool(_NOFOLLOW)
    and {os.open, os.stat, os.mkdir, os.rmdir, os.rename, os.link, os.unlink} <= os.supports_dir_fd
)


def _parts_under(root: Path, path: Path) -> list[str]:
    """The names from ``root``'s real path down to ``path`` (which must lie under it)."""
    rel = os.path.relpath(path, os.path.realpath(root))
    parts = rel.split(os.sep)
    if rel == os.curdir or os.pardir in parts or os.path.isabs(rel):
        raise InvalidPathError("Cannot write outside the collection root")
    return parts


def open_folder(root: Path, parts: list[str], *, create: bool = False) -> int:
    """A descriptor on the folder ``root/parts…``, opened one name at a time relative to
    the folder before with ``O_NOFOLLOW``, so no link on the way is followed: one that is
    there (or is swapped in meanwhile) is ``INVALID_PATH``. ``create`` makes missing
    folders (relative to the held parent, too). The caller closes the descriptor."""
    fd = os.open(os.path.realpath(root), _FOLDER_FLAGS)
    try:
        for name in parts:
            child = _open_child(fd, name, create)
            os.close(fd)
            fd = child
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_parent(root: Path, path: Path, *, create: bool = False) -> int:
    """``open_folder`` on the folder holding ``path`` (which lies under ``root``)."""
    return open_folder(root, _parts_under(root, path)[:-1], create=create)


def _open_child(parent: int, name: str, create: bool) -> int:
    try:
        return os.open(name, _FOLDER_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        if not create:
            raise
        with contextlib.suppress(FileExistsError):  # made meanwhile by another writer
            os.mkdir(name, 0o777, dir_fd=parent)
        return _open_child(parent, name, create=False)
    except OSError as exc:
        if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
            raise
        if stat.S_ISLNK(os.stat(name, dir_fd=parent, follow_symlinks=False).st_mode):
            raise InvalidPathError(
                f"Cannot write through {name!r}: it is a symbolic link (a sync never follows one)"
            ) from None
        # A file (or pipe) where the path needs a folder: the path asked for cannot be
        # made in this tree, the caller's to change, not a failure of the disk.
        raise InvalidPathError(
            f"Cannot write through {name!r}: it is a file, not a folder"
        ) from None


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
    """Create the folders between ``root`` and ``path``, never through a link (``open_folder``)."""
    if not HELD_FOLDERS:
        _make_parents_by_path(root, path)
        return
    os.close(open_parent(root, path, create=True))


def make_folder(root: Path, path: Path) -> None:
    """Create the folder ``path`` and any missing parents, never through a link;
    ``FileExistsError`` when something is there already."""
    if not HELD_FOLDERS:
        _make_parents_by_path(root, path)
        path.mkdir()
        return
    parent = open_parent(root, path, create=True)
    try:
        os.mkdir(path.name, 0o777, dir_fd=parent)
    finally:
        os.close(parent)


def _make_parents_by_path(root: Path, path: Path) -> None:
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
