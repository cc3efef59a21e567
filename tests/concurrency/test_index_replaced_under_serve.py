"""The index file deleted and rebuilt (or restored from a copy) while `gno serve` runs: the
server's long-lived connections (its readers, its search processes, the owner that writes)
must follow the file the path names now, never answer from (or write into) the old one
for ever. Proved replaced: the file's inode changed and the server held the old one open
(it had answered a search from it just before)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.crash import harness as h

pytestmark = pytest.mark.slow


def _search(server: h.Server, term: str) -> list[str]:
    answer = server.http.post("/api/search", json={"query": term})
    assert answer.status_code == 200, answer.text
    return [r["uri"] for r in answer.json()["results"]]


def _open_inodes(pid: int) -> set[int]:
    found = set()
    for fd in Path(f"/proc/{pid}/fd").iterdir():
        try:
            found.add(os.stat(fd).st_ino)
        except OSError:
            continue
    return found


@pytest.mark.skipif(not Path("/proc/self/fd").exists(), reason="reads /proc")
@pytest.mark.parametrize("processes", ["0", "1"])
def test_a_rebuilt_index_is_what_the_running_server_reads_and_writes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, processes: str
) -> None:
    monkeypatch.setenv("GNO_SEARCH_PROCESSES", processes)
    root = tmp_path / "notes"
    h.write_corpus(root, 20)
    h.run("init", str(root), "--name", "notes")
    h.run("update")
    server = h.Server("--no-watch")
    try:
        for _ in range(8):  # every reader (and search process) has the file open
            assert _search(server, "term3") == ["gno://notes/n00003.md"]
        old = h.db_path().stat().st_ino
        assert old in _open_inodes(server.proc.pid)

        backup = tmp_path / "copy.sqlite"
        shutil.copyfile(h.db_path(), backup)
        for leftover in h.data_dir().glob("index-default.sqlite*"):
            leftover.unlink()
        (root / "late.md").write_text("# Late\n\nlatecomer arrives\n")
        h.run("update")  # a new file under the same name
        assert h.db_path().stat().st_ino != old

        for _ in range(8):
            assert _search(server, "latecomer") == ["gno://notes/late.md"]
        captured = server.http.post(
            "/api/capture", json={"collection": "notes", "title": "Kept", "content": "keptword"}
        )
        assert captured.status_code in (200, 201), captured.text
        found = h.run("search", "keptword", "--json").stdout  # the CLI reads the file
        assert "gno://notes/kept.md" in found, found

        # restored from the copy: the server reads the copy, which has no late.md
        for leftover in h.data_dir().glob("index-default.sqlite*"):
            leftover.unlink()
        shutil.copyfile(backup, h.db_path())
        for _ in range(8):
            assert _search(server, "latecomer") == []
            assert _search(server, "term3") == ["gno://notes/n00003.md"]
    finally:
        server.stop()
