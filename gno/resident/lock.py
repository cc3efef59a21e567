"""One exclusive owner per data directory: an advisory lock on ``resident.lock``.

The kernel drops an flock when the last descriptor of its open file goes, so a
crashed server never leaves a stale lock behind as long as no other process
holds a copy of the descriptor: it is opened close-on-exec, and the sync's
worker processes are spawned, not forked (``gno.ingest.pipeline``), so they
never inherit it. The file's JSON body only tells a refused second server who
the owner is.
"""

from __future__ import annotations

import fcntl
import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from gno.errors import OwnerLockedError
from gno.paths import folder_error

LOCK_NAME = "resident.lock"


class DataDirLock:
    def __init__(self, data_dir: Path) -> None:
        self.path = data_dir / LOCK_NAME
        self._fd: int | None = None

    def acquire(self, info: dict[str, Any]) -> None:
        """Take the lock or raise ``OwnerLockedError`` naming the running owner."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        except OSError as exc:  # a file where the data folder should be, a read-only one
            raise folder_error(self.path.parent, exc) from exc
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
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
        self.update(info)

    def update(self, info: dict[str, Any]) -> None:
        """Rewrite the owner record (the port is known only once the socket is bound)."""
        assert self._fd is not None
        record = {"pid": os.getpid(), "startedAt": datetime.now(UTC).isoformat(), **info}
        os.ftruncate(self._fd, 0)
        os.pwrite(self._fd, json.dumps(record).encode(), 0)

    def release(self) -> None:
        if self._fd is not None:
            os.ftruncate(self._fd, 0)
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None


def _read_owner(fd: int) -> dict[str, Any] | None:
    try:
        return json.loads(os.pread(fd, 4096, 0) or b"null")
    except (OSError, ValueError):
        return None
