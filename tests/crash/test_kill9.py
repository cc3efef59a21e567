"""kill -9 of `gno update` and of `gno serve` mid-sync (issue 10, item 6 and the crash
suite). The quick tests do a few kills; `make soak` (GNO_SOAK=1) runs many at random
points."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

from tests.crash import harness as h
from tests.crash.scenarios import (
    KillLog,
    kill_daemon_round,
    kill_serve_round,
    kill_update_round,
    kill_watched_serve_round,
)

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes in /proc"),
]


def _rng() -> random.Random:
    seed = int(os.environ.get("GNO_SOAK_SEED") or random.randrange(2**32))
    sys.stderr.write(f"kill points: GNO_SOAK_SEED={seed}\n")
    return random.Random(seed)


def _init(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    h.run("init", str(root), "--name", "notes")
    return root


def test_kill9_of_update_mid_sync_leaves_no_worker_and_converges(tmp_path: Path) -> None:
    root, rng, log = _init(tmp_path), _rng(), KillLog()
    for index in range(2):
        kill_update_round(root, index, rng, log)
    assert log.kills == 2 and log.orphans_checked >= 2


def test_kill9_of_serve_mid_sync_frees_the_data_dir_and_converges(tmp_path: Path) -> None:
    root, rng, log = _init(tmp_path), _rng(), KillLog()
    kill_serve_round(root, 0, rng, log)
    assert log.kills == 1 and log.orphans_checked >= 1


@pytest.mark.soak
def test_soak_kill9_update_and_serve_at_random_points(tmp_path: Path) -> None:
    """At least 20 kills, in turn of `gno update`, `gno serve` syncing through REST,
    `gno serve` syncing what its watcher saw, and `gno daemon` syncing on start; figures
    on stderr."""
    root, rng, log = _init(tmp_path), _rng(), KillLog()
    rounds = int(os.environ.get("GNO_SOAK_KILLS", "24"))
    kinds = (kill_update_round, kill_serve_round, kill_watched_serve_round, kill_daemon_round)
    for index in range(rounds):
        kinds[index % len(kinds)](root, index, rng, log)
    sys.stderr.write(
        f"soak kill -9: {log.kills} kills survived, {log.orphans_checked} child processes "
        f"checked gone, committed at kill {log.committed_at_kill}\n"
    )
    assert log.kills == rounds >= 20
