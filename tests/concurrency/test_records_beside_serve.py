"""Export containers synced by a CLI `gno update` beside a running `gno serve`: each
record is reported added (or brought back) once, by the sync that committed it. The
record lane counted a record when it planned it, so both syncs reported the same records
— five messages added, five brought back — though the second wrote none of them.

The interleaving is `interleave.update_beside_serve`, with real processes: a third process holds
the index's SQLite write lock so the server's sync blocks at its commit holding the index
guard; the CLI, held in its collection's ``updateCmd`` until then, reads and plans the same
records, then waits for that guard; then the lock goes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.concurrency.interleave import barrier, update_beside_serve
from tests.crash import harness as h
from tests.records_corpus import message, write_mbox

pytestmark = pytest.mark.slow


def _mailbox(path: Path, word: str) -> None:
    write_mbox(path, [message(n, f"{word} {n}", f"{word} body {n}") for n in range(5)])


def _file(result: dict[str, Any], rel: str) -> dict[str, Any]:
    [found] = [f for f in result["collections"][0]["files"] if f["relPath"] == rel]
    return found


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="reads /proc")
def test_each_record_is_reported_once_by_the_sync_that_committed_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GNO_BUSY_TIMEOUT_MS", "60000")  # a commit waits out the held lock
    root, started, go = tmp_path / "notes", tmp_path / "started", tmp_path / "go"
    h.write_corpus(root, 3)
    _mailbox(root / "old.mbox", "okapi")
    h.run("init", str(root), "--name", "notes", "--update", barrier(started, go))
    go.touch()
    h.run("update")
    kept = (root / "old.mbox").read_bytes()
    (root / "old.mbox").unlink()
    h.run("update")  # its records leave search, inactive: the same bytes bring them back
    go.unlink()
    started.unlink()
    (root / "old.mbox").write_bytes(kept)
    _mailbox(root / "new.mbox", "tapir")
    by_server, by_cli = update_beside_serve(started, go)
    # the server committed first: it added five records and brought five back
    new, old = _file(by_server, "new.mbox"), _file(by_server, "old.mbox")
    assert new["status"] == "added" and new["recordImport"]["counts"]["added"] == 5
    assert old["recordImport"]["counts"]["reactivated"] == 5
    assert by_server["totalFilesAdded"] == 2
    # the CLI planned the same, found every record done at its commit and wrote none
    for rel in ("new.mbox", "old.mbox"):
        counts = _file(by_cli, rel)["recordImport"]["counts"]
        assert (counts["added"], counts["reactivated"], counts["unchanged"]) == (0, 0, 5), rel
        assert _file(by_cli, rel)["status"] == "unchanged"
    assert by_cli["totalFilesAdded"] == 0
    assert by_cli["collections"][0]["filesUnchanged"] == 3 + 2
    assert h.count_docs() == 3 + 10
