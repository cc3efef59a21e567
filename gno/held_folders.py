"""File steps named relative to folders held from a collection root, for a change of
several files that runs over several steps.

A rename/move apply (``gno.refactor_journal``) writes, links, renames and removes files in
several folders one step after another, and the recovery of a crashed apply does so again
later. Between the plan's checks and any of those steps another process may swap a folder
on a path for a symlink out of the root, and a path would follow it. So each folder is
opened once, from its root, one name at a time without following a link
(``gno.file_writes.open_folder``: a link on the way is ``INVALID_PATH``), and held while the
change runs; every step names its file relative to that descriptor and never follows a link
at the name either. A folder moved after it was opened keeps getting its files where it now
is, inside the root, so the files of one folder still change together. Platforms without
directory descriptors (Windows) name files by path.
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import stat
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from gno.errors import InvalidPathError
from gno.file_writes import HELD_FOLDERS, MAX_READ_BYTES, fsync_dir, open_folder
from gno.ingest.reading import read_regular

_NEW_FILE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
# A hard link of a name that is a symlink links the symlink itself (linkat without
# AT_SYMLINK_FOLLOW), so a backup never becomes a second name of a file out of the root.
_LINK_NOFOLLOW = os.link in os.supports_follow_symlinks


@dataclass(frozen=True)
class Place:
    """A file under a collection root; ``rel`` is its '/'-separated path below ``root``."""

    root: Path
    rel: str

    @property
    def folder(self) -> str:
        return posixpath.dirname(self.rel)

    @property
    def name(self) -> str:
        return posixpath.basename(self.rel)


def folder_parts(folder: str) -> list[str]:
    """The names of a '/'-separated folder below a root; nothing that climbs out."""
    parts = folder.split("/") if folder else []
    if any(part in ("", ".", "..") for part in parts):
        raise InvalidPathError(f"Not a folder below the collection root: {folder!r}")
    return parts


class Folder:
    """One held folder: a descriptor (POSIX) or, without directory descriptors, its path."""

    def __init__(self, fd: int | None, path: str) -> None:
        self.fd = fd
        self.path = path

    def _at(self, name: str) -> str:
        return name if self.fd is not None else os.path.join(self.path, name)

    def write_new(self, name: str, data: bytes, mode: int | None = None) -> None:
        """A file that must not exist yet, fsynced; ``mode`` its exact permission bits."""
        fd = os.open(self._at(name), _NEW_FILE | _nofollow(self), 0o644, dir_fd=self.fd)
        try:
            if mode is not None and hasattr(os, "fchmod"):
                os.fchmod(fd, mode)  # the bits of the file it replaces or moves
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)

    def read(self, name: str) -> bytes | None:
        """The bytes of the regular file ``name``; None when it is not one (or not there)."""
        try:
            return read_regular(self._at(name), MAX_READ_BYTES, dir_fd=self.fd)
        except OSError:
            return None

    def lstat(self, name: str) -> os.stat_result | None:
        try:
            return os.stat(self._at(name), dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            return None

    def mode(self, name: str) -> int | None:
        """The permission bits of the regular file ``name`` (None when there is none)."""
        st = self.lstat(name)
        return stat.S_IMODE(st.st_mode) & 0o777 if st and stat.S_ISREG(st.st_mode) else None

    def link(self, src: str, dst: str) -> None:
        """A second name ``dst`` for ``src``; ``FileExistsError`` when ``dst`` exists."""
        kwargs = {"follow_symlinks": False} if _LINK_NOFOLLOW else {}
        os.link(self._at(src), self._at(dst), src_dir_fd=self.fd, dst_dir_fd=self.fd, **kwargs)

    def replace(self, src: str, dst: str) -> None:
        if self.fd is None:
            os.replace(self._at(src), self._at(dst))
            return
        os.rename(src, dst, src_dir_fd=self.fd, dst_dir_fd=self.fd)  # replaces, on POSIX

    def unlink(self, name: str, *, missing_ok: bool = True) -> None:
        """Remove the name (a link is removed itself, never followed)."""
        try:
            os.unlink(self._at(name), dir_fd=self.fd)
        except FileNotFoundError:
            if not missing_ok:
                raise

    def rmdir(self, name: str) -> None:
        os.rmdir(self._at(name), dir_fd=self.fd)

    def sync(self) -> None:
        """Make the renames in this folder durable."""
        if self.fd is None:
            fsync_dir(Path(self.path))
            return
        with contextlib.suppress(OSError):
            os.fsync(self.fd)


def _nofollow(folder: Folder) -> int:
    return getattr(os, "O_NOFOLLOW", 0) if folder.fd is not None else 0


class Folders:
    """The folders of one change, each opened once and closed when the change ends."""

    def __init__(self) -> None:
        self._held: dict[tuple[str, str], Folder] = {}

    def __enter__(self) -> Folders:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        for folder in self._held.values():
            if folder.fd is not None:
                os.close(folder.fd)
        self._held.clear()

    def get(self, root: Path, folder: str, *, create: bool = False) -> Folder:
        """The folder ``folder`` below ``root`` (``create``: made where missing, never
        through a link). ``INVALID_PATH`` for a link on the way, ``FileNotFoundError``
        for a missing folder."""
        key = (str(root), folder)
        held = self._held.get(key)
        if held is None:
            parts = folder_parts(folder)
            path = os.path.join(os.path.realpath(root), *parts)
            if HELD_FOLDERS:
                held = Folder(open_folder(root, parts, create=create), path)
            else:
                if create:
                    os.makedirs(path, exist_ok=True)
                elif not os.path.isdir(path):
                    raise FileNotFoundError(errno.ENOENT, "No such folder", path)
                held = Folder(None, path)
            self._held[key] = held
        return held

    def reach(self, root: Path, folder: str) -> Folder | None:
        """The folder if it can still be reached from the root without a link; None when it
        is gone, a file, or a link now (what was there is out of reach, and left alone)."""
        try:
            return self.get(root, folder)
        except InvalidPathError:
            return None
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP):
                return None
            raise

    def missing(self, root: Path, folder: str) -> list[str]:
        """The folders on the way to ``folder`` that do not exist yet, outermost first."""
        parts = folder_parts(folder)
        depth = len(parts)
        while depth > 0:
            try:
                self.get(root, "/".join(parts[:depth]))
                break
            except FileNotFoundError:
                depth -= 1
        return ["/".join(parts[:n]) for n in range(depth + 1, len(parts) + 1)]
