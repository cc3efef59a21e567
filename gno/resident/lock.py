"""One exclusive owner per data directory: an advisory lock on ``resident.lock``.

The kernel drops an flock when the last descriptor of its open file goes, so a
crashed server never leaves a stale lock behind as long as no other process
holds a copy of the descriptor: it is opened close-on-exec, and the sync's
worker processes are spawned, not forked (``gno.ingest.pipeline``), so they
never inherit it. The file's JSON body tells a refused second server who the
owner is, and `--status`/`--stop` whether a pid file's process is that owner.
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gno.errors import DiskFullError, GnoError, OwnerLockedError

LOCK_NAME = "resident.lock"
PROBE_WAIT_SECONDS = 0.5  # a second server waits this long for ``owner_pid``'s probe to end


class DataDirLock:
    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / LOCK_NAME
        self._fd: int | None = None

    def acquire(self, info: dict[str, Any]) -> None:
        """Take the lock or raise ``OwnerLockedError`` naming the running owner."""
        from gno.index_lock import open_lock_file

        fd = open_lock_file(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC)
        if not _take(fd):
            owner = _read_owner(fd)
            os.close(fd)
            who = (
                f" (gno {owner.get('cmd', 'serve')}, pid {owner['pid']}, port {owner.get('port')})"
                if owner
                else ""
            )
            raise OwnerLockedError(
                f"Another gno server already owns this data directory{who}. "
                "Stop it first, or point GNO_DATA_DIR elsewhere."
            ) from None
        self._fd = fd
        try:
            self.update(info)
        except GnoError:
            self.release()  # a server that cannot start holds nothing
            raise

    def update(self, info: dict[str, Any]) -> None:
        """Rewrite the owner record (the port is known only once the socket is bound). A
        record that cannot be written (a full disk) is a gno error, not a bug report:
        without it ``--status`` and ``--stop`` could not tell this server from a stranger."""
        assert self._fd is not None
        record = {"pid": os.getpid(), "startedAt": datetime.now(UTC).isoformat(), **info}
        try:
            os.ftruncate(self._fd, 0)
            os.pwrite(self._fd, json.dumps(record).encode(), 0)
        except OSError as exc:
            raise _write_error(self.path, exc) from exc

    def release(self) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def _write_error(path: Path, exc: OSError) -> GnoError:
    if exc.errno == errno.ENOSPC:
        return DiskFullError(
            f"The disk holding the data directory is full ({path.parent}): the server "
            "cannot record itself in its lock file; free some space and start it again"
        )
    from gno.paths import folder_error

    return folder_error(path.parent, exc)


def _take(fd: int) -> bool:
    """The exclusive lock, waiting out an ``owner_pid`` probe (it holds a shared lock for
    a moment) but not an owner."""
    deadline = time.monotonic() + PROBE_WAIT_SECONDS
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.01)


def owner_pid(data_dir: Path) -> int | None:
    """The pid the live owner of ``data_dir`` recorded, None when no process holds the lock.

    What proves a pid file's process is the server it names: a pid, even with its start
    time, can be reused by an unrelated process (which `--stop` would then kill), while the
    lock dies with its holder. A holder that recorded no pid yet gives 0."""
    try:
        fd = os.open(data_dir / LOCK_NAME, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            owner = _read_owner(fd)
            return int(owner["pid"]) if owner else 0
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _read_owner(fd: int) -> dict[str, Any] | None:
    try:
        owner = json.loads(os.pread(fd, 4096, 0) or b"null")
    except (OSError, ValueError):
        return None
    return owner if isinstance(owner, dict) and isinstance(owner.get("pid"), int) else None
