"""A CLI `gno update` beside a running `gno serve` that syncs the same index: each added
file is reported once, by the sync that added it. Both syncs read the index before either
commits, so both plan the same adds; whichever commits second finds the rows there and
writes nothing (``sync_apply._unless_indexed_since``) — and still reported every one of
them as added (the server's job and the CLI both said "5 added").

The interleaving is made with real processes, no hook in gno: a third process holds the
index's SQLite write lock, so the server's sync blocks at its commit holding the index
guard; the CLI (held in its collection's ``updateCmd`` until then) reads and plans, and
waits for that guard; then the write lock goes."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from gno.index_lock import lock_path
from gno.paths import resolve_paths
from tests.concurrency.interleave import HOLD_WRITE_LOCK, has_open, held_by
from tests.crash import harness as h

pytestmark = pytest.mark.slow


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="reads /proc")
def test_each_add_is_reported_once_by_the_sync_that_made_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GNO_BUSY_TIMEOUT_MS", "60000")  # a commit waits out the held lock
    root, started, go = tmp_path / "notes", tmp_path / "started", tmp_path / "go"
    h.write_corpus(root, 3)
    barrier = f"touch {shlex.quote(str(started))}; while [ ! -e {shlex.quote(str(go))} ]; do sleep 0.02; done"
    h.run("init", str(root), "--name", "notes", "--update", barrier)
    go.touch()
    h.run("update")
    go.unlink()
    started.unlink()
    added = h.write_corpus(root, 5, start=100)
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
        # the server planned, converted and holds the guard, waiting for the write lock (a
        # brief hold on the way, seen as held, once let the CLI commit first)
        h.wait_until(lambda: held_by(server.proc.pid, guard), "the server's commit")
        go.touch()  # the CLI walks and plans (nothing added yet), then waits for the guard
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
    by_cli = json.loads(out)
    by_server = served["result"]
    assert by_server["totalFilesAdded"] == len(added)  # it committed first
    # Before: the CLI reported the same five adds, which it never wrote.
    assert by_cli["totalFilesAdded"] == 0
    assert by_cli["collections"][0]["filesUnchanged"] == 3 + len(added)
    assert h.count_docs() == 3 + len(added)
