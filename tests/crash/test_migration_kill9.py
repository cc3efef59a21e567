"""kill -9 of a `gno status` while it migrates an index an older gno wrote: every pending
step runs in one transaction, so the index is left at the old version or the new one,
whole and usable either way (the next command migrates it)."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import apsw
import pytest

from gno.adapters.sqlite.migrations import MIGRATIONS
from tests.crash import harness as h

pytestmark = [pytest.mark.slow]

OLD = 9  # before migrations 10 and 12, which rebuild the FTS tables from every mirror
LATEST = max(v for v, _ in MIGRATIONS)
OLD_GNO = f"""
import sys
import gno.adapters.sqlite.store as store
from gno.adapters.sqlite.migrations import MIGRATIONS
from gno.cli.entry import run
if __name__ == "__main__":
    store.MIGRATIONS = [m for m in MIGRATIONS if m[0] <= {OLD}]
    raise SystemExit(run(sys.argv[1:]))
"""


def old_gno(tmp_path: Path, *args: str) -> None:
    script = tmp_path / "old_gno.py"
    script.write_text(OLD_GNO)
    done = subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr


def version(db: Path) -> int:
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        conn.set_busy_timeout(2000)
        row = conn.execute("SELECT value FROM schema_meta WHERE key = 'version'").fetchone()
        return int(row[0])
    finally:
        conn.close()


def migrating(probe: apsw.Connection) -> bool:
    """Another connection holds the write lock while the index is still at the old
    version: the migration's transaction is open."""
    try:
        probe.execute("BEGIN IMMEDIATE")
    except apsw.BusyError:
        row = probe.execute("SELECT value FROM schema_meta WHERE key = 'version'").fetchone()
        return int(row[0]) == OLD
    probe.execute("ROLLBACK")
    return False


def test_kill9_mid_migration_leaves_the_old_or_the_new_version_usable(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    names = h.write_corpus(root, 1500, words=300)
    old_gno(tmp_path, "init", str(root), "--name", "notes")
    old_gno(tmp_path, "update")
    db = h.db_path()
    assert version(db) == OLD and h.count_docs() == len(names)

    proc = subprocess.Popen(
        [*h.GNO, "status", "--json"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    probe = apsw.Connection(str(db))
    probe.set_busy_timeout(0)
    try:
        end = time.monotonic() + h.DEADLINE
        while not migrating(probe):
            assert proc.poll() is None, "the migration ended before it was seen"
            assert time.monotonic() < end, "no migration seen"
            time.sleep(0.002)
        proc.send_signal(signal.SIGKILL)  # the migration was running a moment ago
        proc.wait(timeout=h.DEADLINE)
    finally:
        probe.close()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL

    assert version(db) in (OLD, LATEST)
    conn = apsw.Connection(str(db), flags=apsw.SQLITE_OPEN_READONLY)
    try:
        assert conn.execute("PRAGMA quick_check").fetchone()[0] == "ok"
    finally:
        conn.close()
    assert h.count_docs() == len(names)
    h.status_json()  # migrates what was left old
    assert version(db) == LATEST
    found = h.run("search", "term42", "--json")
    assert '"gno://notes/n00042.md"' in found.stdout
