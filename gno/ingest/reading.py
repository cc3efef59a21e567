"""Read a source file's bytes without ever blocking on something that is not a file.

``open()`` on a named pipe waits for a writer forever, and a device can stream without
end. So the file is opened with ``O_NONBLOCK`` (an open that cannot block) and
``fstat`` of the opened descriptor must say *regular file* before a byte is read; the
size is checked on that same descriptor, and reading stops one byte past the limit in
case the file grows meanwhile.
"""

from __future__ import annotations

import errno
import os
import stat

_CHUNK = 1024 * 1024
_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "named pipe"),
    (stat.S_ISSOCK, "socket"),
    (stat.S_ISCHR, "character device"),
    (stat.S_ISBLK, "block device"),
)


def inside(path: str, root: str) -> bool:
    """``path`` is ``root`` or lies under it (both real paths, no trailing separator needed)."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def special_kind(mode: int) -> str | None:
    """What a non-regular, non-folder file is ("named pipe", …); None for a regular file."""
    if stat.S_ISREG(mode):
        return None
    return next((name for test, name in _SPECIAL_KINDS if test(mode)), "special file")


class NotRegularFile(OSError):
    """The path is a named pipe, socket or device (or turned into one since the walk)."""


class FileTooLarge(OSError):
    """The file is (or grew) larger than the limit."""


def open_regular(
    path: str,
    max_bytes: int,
    *,
    walked: tuple[str, int] | None = None,
    dir_fd: int | None = None,
) -> int:
    """A descriptor on ``path``, opened without blocking and checked on the descriptor:
    a regular file of at most ``max_bytes``; the caller closes it.

    ``walked`` is ``(real root, inode)`` of the file as the walk saw it inside the root.
    Between the walk and this open a folder on the path may have become a symlink out of
    the root: a file that is not the walked one is opened only if it still lies inside the
    root, else it counts as gone (``FileNotFoundError``). Every lane that reads what a walk
    found (documents, record containers) opens it here, so no lane skips the check.

    With ``dir_fd`` (a folder held by ``gno.file_writes.open_folder``) ``path`` is a name
    in that folder, and a link there is not followed."""
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if dir_fd is not None:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags, dir_fd=dir_fd)
    try:
        st = os.fstat(fd)
        if walked is not None and st.st_ino != walked[1]:
            _check_inside(path, walked[0], st)
        if stat.S_ISDIR(st.st_mode):
            raise NotRegularFile("Not a regular file (folder)")
        kind = special_kind(st.st_mode)
        if kind is not None:
            raise NotRegularFile(f"Not a regular file ({kind})")
        if st.st_size > max_bytes:
            raise FileTooLarge(too_large(max_bytes))
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(
    path: str,
    max_bytes: int,
    *,
    walked: tuple[str, int] | None = None,
    dir_fd: int | None = None,
) -> bytes:
    """The bytes of ``path`` opened by ``open_regular``; reading stops one byte past
    ``max_bytes`` in case the file grows meanwhile."""
    fd = open_regular(path, max_bytes, walked=walked, dir_fd=dir_fd)
    try:
        chunks: list[bytes] = []
        total = 0
        while True:
            chunk = os.read(fd, _CHUNK)
            if not chunk:
                return b"".join(chunks)
            total += len(chunk)
            if total > max_bytes:
                raise FileTooLarge(too_large(max_bytes))
            chunks.append(chunk)
    finally:
        os.close(fd)


def _check_inside(path: str, root: str, opened: os.stat_result) -> None:
    real = os.path.realpath(path)
    try:
        now = os.stat(real)
    except OSError:
        now = None
    if (
        not inside(real, root)
        or now is None
        or (now.st_ino, now.st_dev) != (opened.st_ino, opened.st_dev)
    ):
        raise FileNotFoundError(errno.ENOENT, "Replaced since the walk by a path out of the root")


def too_large(max_bytes: int) -> str:
    if max_bytes >= 1024 * 1024:
        return f"File is larger than {max_bytes // (1024 * 1024)} MiB"
    return f"File is larger than {max_bytes // 1024} KiB"
