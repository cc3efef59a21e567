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

from pathlib import Path

import pytest

from tests.concurrency.interleave import barrier, update_beside_serve
from tests.crash import harness as h

pytestmark = pytest.mark.slow


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="reads /proc")
def test_each_add_is_reported_once_by_the_sync_that_made_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GNO_BUSY_TIMEOUT_MS", "60000")  # a commit waits out the held lock
    root, started, go = tmp_path / "notes", tmp_path / "started", tmp_path / "go"
    h.write_corpus(root, 3)
    h.run("init", str(root), "--name", "notes", "--update", barrier(started, go))
    go.touch()
    h.run("update")
    go.unlink()
    started.unlink()
    added = h.write_corpus(root, 5, start=100)
    by_server, by_cli = update_beside_serve(started, go)
    assert by_server["totalFilesAdded"] == len(added)  # it committed first
    # Before: the CLI reported the same five adds, which it never wrote.
    assert by_cli["totalFilesAdded"] == 0
    assert by_cli["collections"][0]["filesUnchanged"] == 3 + len(added)
    assert h.count_docs() == 3 + len(added)
