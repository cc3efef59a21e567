"""The guard that serializes collection changes with sync commits (see
``gno.services.index_guard`` for who takes it and why), and the writer lease that
serializes file writes (``write_lease``).

An advisory ``flock`` on ``index-<name>.lock`` in the data directory, one per
index, taken through a fresh descriptor each time (flock conflicts between
descriptors of one process too, so the threads of `gno serve` take turns as
well), opened close-on-exec; the kernel drops it when its holder dies, so a
crash never leaves it behind. Nested use on one thread joins the outer hold. A
waiter gives up after ``LOCK_WAIT_SECONDS`` with LOCKED. Lock order: this guard,
then SQLite's write lock, never the other way round.
"""

from __future__ import annotations

import errno
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gno.errors import GnoError, LockedError
from gno.paths import Paths, folder_error

LOCK_WAIT_SECONDS = 30.0
WRITE_LEASE_WAIT_SECONDS = 120.0  # GNO's capture/remember wait before LOCKED
WRITE_LEASE_NAME = ".mcp-write.lock"
_POLL_SECONDS = 0.01
_held = threading.local()  # paths this thread holds: nested guards join the outer one


if sys.platform == "win32":  # no flock: a byte-range lock on the file's first byte
    import msvcrt

    def _try_lock(fd: int) -> bool:
        try:
            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def _unlock(fd: int) -> None:
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _try_lock(fd: int) -> bool:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        return True

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)


_OPEN_FLAGS = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOINHERIT", 0)


def lock_path(paths: Paths) -> Path:
    return paths.data_dir / f"index-{paths.index_identity}.lock"


def write_lease_path(paths: Paths) -> Path:
    """GNO's writer lease file, beside the index database."""
    return paths.data_dir / WRITE_LEASE_NAME


@contextmanager
def index_guard(paths: Paths, wait: float = LOCK_WAIT_SECONDS) -> Iterator[None]:
    """Hold the index's config/sync guard for the block."""
    busy = (
        "The index is busy: a collection change or sync batch did not finish "
        f"within {wait:.0f} s; try again"
    )
    with _hold(lock_path(paths), wait, busy):
        yield


@contextmanager
def write_lease(paths: Paths, wait: float = WRITE_LEASE_WAIT_SECONDS) -> Iterator[None]:
    """Hold the writer lease for a file write and its inline sync.

    The same file GNO uses (``.mcp-write.lock`` in the data directory), taken with
    flock(2) as GNO's ``flock`` helper does, so writers of gno's CLI, MCP and REST, and a
    GNO process on the same data directory, take turns. Order: this lease, then the
    index guard, then SQLite's write lock.
    """
    busy = f"Another writer held the write lock for {wait:.0f} s; try again"
    with _hold(write_lease_path(paths), wait, busy):
        yield


@contextmanager
def guard_file(path: Path, wait: float) -> Iterator[None]:
    """Hold the index guard of the index whose lock file is ``path`` (``gno reset`` holds
    every index's guard of a data folder, knowing their files, not their names)."""
    with _hold(path, wait, f"An index is busy: its guard was held for {wait:.0f} s; try again"):
        yield


@contextmanager
def _hold(path: Path, wait: float, busy: str) -> Iterator[None]:
    held: set[Path] = _held.__dict__.setdefault("paths", set())
    if path in held:
        yield
        return
    fd = open_lock_file(path, _OPEN_FLAGS)
    try:
        deadline = time.monotonic() + wait
        while not _try_lock(fd):
            if time.monotonic() >= deadline:
                raise LockedError(busy)
            time.sleep(_POLL_SECONDS)
        held.add(path)
        try:
            yield
        finally:
            held.discard(path)
            _unlock(fd)
    finally:
        os.close(fd)


def open_lock_file(path: Path, flags: int) -> int:
    """A descriptor of a lock file in the data folder, made when missing; a folder gno
    cannot make or write in is a clear error naming it (``paths.folder_error``), not a crash."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Never through a link: a lock file is truncated and rewritten (the owner record),
        # so a link named like it would have gno overwrite whatever file it points at.
        return os.open(path, flags | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError as exc:  # a file where the data folder should be, a read-only folder
        if exc.errno == errno.ELOOP:
            raise GnoError(
                f"{path} is a symbolic link, not a lock file of gno's: remove the link",
                details={"path": str(path)},
            ) from exc
        raise folder_error(path.parent, exc) from exc
