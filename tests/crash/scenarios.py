"""One kill -9 mid-sync, checked: the kill landed mid-sync, the index is consistent,
no process of the killed one lives on, the next start works and a sync converges to
exactly the files on disk. Shared by the quick tests and the soak runs."""

from __future__ import annotations

import random
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from tests.crash import harness as h
from tests.index_consistency import assert_consistent

ROUND_FILES = 1200  # enough for the worker pool (>= 48 changed files) and several batches


@dataclass
class KillLog:
    kills: int = 0
    committed_at_kill: list[int] = field(default_factory=list)
    orphans_checked: int = 0  # children alive at the moment of a kill, all gone afterwards


def _watching(server: h.Server) -> bool:
    status = server.http.get("/api/status").json()
    return "notes" in status["background"]["watcher"]["activeCollections"]


def on_disk(root: Path) -> set[tuple[str, str]]:
    return {("notes", p.relative_to(root).as_posix()) for p in root.rglob("*.md")}


def _round_docs(prefix: str) -> int:
    return sum(1 for _, rel in h.active_paths() if rel.startswith(prefix))


def _new_round(root: Path, index: int) -> str:
    """Replace the previous round's folder by a new one: the next sync has ROUND_FILES
    files to add and the old ones to soft-delete."""
    for old in root.glob("r*"):
        shutil.rmtree(old)
    h.write_corpus(root / f"r{index:03d}", ROUND_FILES, start=index * ROUND_FILES)
    return f"r{index:03d}/"


def _kill_when(proc: subprocess.Popen, prefix: str, rng: random.Random, log: KillLog) -> set[int]:
    """Kill -9 ``proc`` once a random share of this round's files is committed; proves
    the kill landed mid-sync (some, not all, of the round's files were in the index)."""
    target = rng.randint(1, ROUND_FILES * 2 // 3)
    h.wait_until(
        lambda: _round_docs(prefix) >= target or proc.poll() is not None, "a committed batch"
    )
    assert proc.poll() is None, "the sync ended before the kill"
    kids = h.kill9(proc)
    committed = _round_docs(prefix)
    assert 0 < committed < ROUND_FILES, f"not mid-sync: {committed} of {ROUND_FILES}"
    log.kills += 1
    log.committed_at_kill.append(committed)
    return kids


def _check_after_kill(kids: set[int], log: KillLog) -> None:
    assert kids, "no worker process was running at the kill: the pool was not exercised"
    h.assert_no_orphans(kids, h.data_dir())
    log.orphans_checked += len(kids)
    assert_consistent(h.db_path())


def kill_update_round(root: Path, index: int, rng: random.Random, log: KillLog) -> None:
    prefix = _new_round(root, index)
    proc = subprocess.Popen(
        [*h.GNO, "update"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    kids = _kill_when(proc, prefix, rng, log)
    _check_after_kill(kids, log)
    h.run("update", timeout=h.DEADLINE * 3)
    assert sorted(h.active_paths()) == sorted(on_disk(root))
    assert_consistent(h.db_path())


def kill_serve_round(root: Path, index: int, rng: random.Random, log: KillLog) -> None:
    prefix = _new_round(root, index)
    server = h.Server("--no-watch")
    server.sync()
    kids = _kill_when(server.proc, prefix, rng, log)
    _check_after_kill(kids, log)
    again = h.Server("--no-watch")  # the data directory is free again
    try:
        job = again.wait_job(again.sync())
        assert job["status"] == "completed", job
        assert sorted(h.active_paths()) == sorted(on_disk(root))
        assert_consistent(h.db_path())
    finally:
        pid = again.proc.pid
        again.stop()
    h.assert_no_orphans({pid}, h.data_dir())


def kill_watched_serve_round(root: Path, index: int, rng: random.Random, log: KillLog) -> None:
    """The sync comes from the file watcher: the round's files appear while serve runs."""
    server = h.Server()
    h.wait_until(lambda: _watching(server), "the watcher")
    prefix = _new_round(root, index)
    kids = _kill_when(server.proc, prefix, rng, log)
    _check_after_kill(kids, log)
    again = h.Server("--no-watch")
    try:
        assert again.wait_job(again.sync())["status"] == "completed"
        assert sorted(h.active_paths()) == sorted(on_disk(root))
        assert_consistent(h.db_path())
    finally:
        pid = again.proc.pid
        again.stop()
    h.assert_no_orphans({pid}, h.data_dir())


def kill_daemon_round(root: Path, index: int, rng: random.Random, log: KillLog) -> None:
    """`gno daemon` syncs every collection when it starts: killed during that sync."""
    prefix = _new_round(root, index)
    daemon = h.Server("--no-watch", command="daemon")
    kids = _kill_when(daemon.proc, prefix, rng, log)
    _check_after_kill(kids, log)
    again = h.Server("--no-watch", "--no-sync-on-start", command="daemon")
    again.stop()  # it started: the data directory was free
    h.run("update", timeout=h.DEADLINE * 3)
    assert sorted(h.active_paths()) == sorted(on_disk(root))
    assert_consistent(h.db_path())
