"""Real-process interleavings of two syncs of one index (a CLI `gno update` beside a
running `gno serve`): a third process holds SQLite's write lock so that both plan before
either commits, and /proc tells who holds, or waits for, the index guard."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from gno.index_lock import lock_path
from gno.paths import resolve_paths
from tests.crash import harness as h

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


def barrier(started: Path, go: Path) -> str:
    """A collection ``updateCmd`` that marks ``started`` and waits until ``go`` exists."""
    return (
        f"touch {shlex.quote(str(started))}; "
        f"while [ ! -e {shlex.quote(str(go))} ]; do sleep 0.02; done"
    )


def update_beside_serve(started: Path, go: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    """A CLI ``gno update --json`` (held in its ``barrier`` updateCmd) beside a
    ``gno serve --no-watch`` sync of the same index, both planned before either commits,
    the server committing first: (the server job's result, the CLI's answer).

    A third process holds SQLite's write lock, so the server's sync blocks at its commit
    holding the index guard; then the CLI reads, plans and waits for that guard; then the
    write lock goes."""
    guard = lock_path(resolve_paths()).resolve()
    server = h.Server("--no-watch")
    holder = cli = None
    try:
        cli = subprocess.Popen([*h.GNO, "update", "--json"], stdout=subprocess.PIPE, text=True)
        h.wait_until(started.exists, "the CLI update past its start, held in its updateCmd")
        holder = subprocess.Popen(
            [sys.executable, "-c", HOLD_WRITE_LOCK, str(h.db_path())],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        job = server.sync()
        # held for a while, not passing through: a brief hold on the way, seen as the
        # server's commit, once let the CLI commit first
        h.wait_until(lambda: held_by(server.proc.pid, guard), "the server's commit")
        go.touch()  # the CLI walks and plans (nothing written yet), then waits for the guard
        h.wait_until(lambda: has_open(cli.pid, guard), "the CLI's commit")
        assert holder.stdin is not None
        holder.stdin.write("go\n")
        holder.stdin.close()
        assert holder.wait(h.DEADLINE) == 0
        served = server.wait_job(job)
        out, _ = cli.communicate(timeout=h.DEADLINE)
        assert cli.returncode == 0, out
    finally:
        for proc in (cli, holder):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.communicate()
        server.stop()
    return served["result"], json.loads(out)
