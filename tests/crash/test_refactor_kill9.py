"""kill -9 of `gno rename --apply` at random points of its commit (issue 14, item 3).

The apply runs as a real process with ``GNO_TEST_REFACTOR_STEP_DELAY`` set, so it
announces each step of the commit on stderr and pauses there; the test kills it with
SIGKILL after a randomly chosen step and proves the kill landed mid-apply (the step
marker was read and the recovery journal is still on disk). Then `gno update` runs
(recovery, then sync) and every file must be exactly the old set or exactly the new
one, with no temporary or backup file left, and the index must match the files.
"""

from __future__ import annotations

import json
import os
import random
import select
import subprocess
import sys
from pathlib import Path

import pytest

from gno.refactor_journal import STEP_HOOK_ENV
from tests.crash import harness as h
from tests.index_consistency import assert_consistent

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes in /proc"),
]

ROUNDS = 20
LINKING = 4


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def _digest(ref: str, name: str) -> str:
    plan = json.loads(h.run("rename", ref, name, "--json").stdout)
    assert plan["canApply"], plan["safety"]
    return str(plan["planDigest"])


def _steps(ref: str, name: str) -> list[str]:
    """The steps an uninterrupted apply announces (it is not run here: counted from the plan)."""
    return ["prepare", *["commit"] * (1 + LINKING + 1), "committed", "cleanup"]


def _apply_killed(ref: str, name: str, kill_after: int) -> tuple[str, bool]:
    """Start the apply, SIGKILL it at its ``kill_after``-th step; (step, journal seen)."""
    digest = _digest(ref, name)
    env = dict(os.environ, **{STEP_HOOK_ENV: "0.15"})
    proc = subprocess.Popen(
        [*h.GNO, "rename", ref, name, "--apply", "--plan-digest", digest, "--json"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    assert proc.stderr is not None
    seen: list[str] = []
    try:
        while len(seen) <= kill_after:
            ready, _, _ = select.select([proc.stderr], [], [], h.DEADLINE)
            line = proc.stderr.readline() if ready else ""
            if not line:
                raise AssertionError(f"apply ended before step {kill_after}: saw {seen}")
            if line.startswith("refactor-step "):
                seen.append(line.split()[1])
        journal = list((h.data_dir() / "refactor-journal").glob("*.json"))
        h.kill9(proc)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stderr.close()
    assert proc.returncode == -9
    return seen[-1], bool(journal)


def test_kill9_mid_apply_leaves_old_or_new_state_and_the_index_converges(tmp_path: Path) -> None:
    seed = int(os.environ.get("GNO_SOAK_SEED") or random.randrange(2**32))
    sys.stderr.write(f"kill points: GNO_SOAK_SEED={seed}\n")
    rng = random.Random(seed)
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# Alpha note\n\nBody of alpha.\n")
    for i in range(LINKING):
        (root / f"l{i}.md").write_text(f"# L{i}\n\nsee [a](a.md#top) and [[a|alpha]]\n")
    h.run("init", str(root), "--name", "notes")
    h.run("update")
    states = {"a.md": _snapshot(root)}
    # The new state, from one uninterrupted apply (and back, which must restore every byte).
    h.run("rename", "notes/a.md", "b.md", "--apply", "--plan-digest", _digest("notes/a.md", "b.md"))
    states["b.md"] = _snapshot(root)
    h.run("rename", "notes/b.md", "a.md", "--apply", "--plan-digest", _digest("notes/b.md", "a.md"))
    assert _snapshot(root) == states["a.md"]
    assert states["a.md"] != states["b.md"]

    current, outcomes = "a.md", {"old": 0, "new": 0}
    count = len(_steps("notes/a.md", "b.md"))
    # Every step once (in random order), the other rounds at random steps.
    points = rng.sample(range(count), count) + [rng.randrange(count) for _ in range(ROUNDS - count)]
    for kill_after in points:
        other = "b.md" if current == "a.md" else "a.md"
        steps = _steps(f"notes/{current}", other)
        step, journal_seen = _apply_killed(f"notes/{current}", other, kill_after)
        assert step == steps[kill_after]
        assert journal_seen, "the kill must land while the apply's journal exists"
        h.run("update")  # recovers the journal, then syncs
        after = _snapshot(root)
        assert after in (states[current], states[other]), sorted(after)
        assert not list((h.data_dir() / "refactor-journal").glob("*"))
        if after == states[other]:
            outcomes["new"] += 1
            current = other
        else:
            outcomes["old"] += 1
        on_disk = sorted(("notes", p) for p in after)
        assert sorted(h.active_paths()) == on_disk
        h.run("cleanup")  # edited notes leave their old content rows until a cleanup
        assert assert_consistent(h.db_path()) == len(on_disk)
    sys.stderr.write(f"outcomes: {outcomes}\n")
    assert outcomes["old"] + outcomes["new"] == ROUNDS
    # Killed before the journal said committed: the old state; after: the new one.
    assert outcomes["old"] >= count - 1 and outcomes["new"] >= 1
