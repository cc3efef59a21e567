"""The data directory's owner lock (gno/resident/lock.py) when its record cannot be
written: a full disk is DISK_FULL, not a bug report, and the refused start leaves the
lock free for the next one."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from gno.errors import DiskFullError
from gno.resident.lock import DataDirLock, owner_pid


def test_serve_on_a_full_disk_says_so_and_leaves_the_lock_free(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from gno.cli.entry import run

    refused: list[int] = []

    def full(fd: int, data: bytes, offset: int) -> int:  # the disk has no block left
        refused.append(fd)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "pwrite", full)
    code = run(["serve", "--port", "0", "--no-watch"])
    err = capsys.readouterr().err
    assert refused, "the owner record was never written: no full disk was met"
    assert code == 2
    assert "Internal error" not in err and "is full" in err, err
    data_dir = Path(os.environ["GNO_DATA_DIR"])
    assert owner_pid(data_dir) is None  # the refused start holds nothing

    monkeypatch.undo()  # space again: the next start takes the lock
    lock = DataDirLock(data_dir)
    lock.acquire({"cmd": "serve", "port": 1})
    lock.release()


def test_a_full_disk_after_the_bind_is_disk_full(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lock = DataDirLock(tmp_path)
    lock.acquire({"cmd": "serve", "port": 0})
    try:

        def full(fd: int, data: bytes, offset: int) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        monkeypatch.setattr(os, "pwrite", full)
        with pytest.raises(DiskFullError, match="is full"):
            lock.update({"cmd": "serve", "port": 4321})
    finally:
        monkeypatch.undo()
        lock.release()
