"""Real-process interleavings of two syncs of one index (a CLI `gno update` beside a
running `gno serve`): a third process holds SQLite's write lock so that both plan before
either commits, and /proc tells who holds, or waits for, the index guard."""

from __future__ import annotations

import os
import time
from pathlib import Path

HOLD_WRITE_LOCK = """
import sqlite3, sys
conn = sqlite3.connect(sys.argv[1], isolation_level=None, timeout=60)
conn.execute("BEGIN IMMEDIATE")
print("held", flush=True)
sys.stdin.readline()
conn.execute("ROLLBACK")
"""


def holder(path: Path) -> int | None:
    """The pid holding an flock on ``path``, from /proc/locks (None when nobody does)."""
    inode = path.stat().st_ino
    for line in Path("/proc/locks").read_text().splitlines():
        fields = line.split()
        if "->" in fields or len(fields) < 6 or fields[1] != "FLOCK":
            continue  # a waiter's line, or no flock
        if int(fields[5].rsplit(":", 1)[1]) == inode:
            return int(fields[4])
    return None


def held_by(pid: int, path: Path, seconds: float = 0.3) -> bool:
    """``pid`` holds the flock on ``path`` and still does ``seconds`` later: a hold that
    lasts is one blocked at its commit, not one passing through."""
    if holder(path) != pid:
        return False
    time.sleep(seconds)
    return holder(path) == pid


def has_open(pid: int, path: Path) -> bool:
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            if os.readlink(fd) == str(path):
                return True
        except OSError:
            continue
    return False
