"""A crash cut a rename/move apply short, and a person kept working before gno recovered
it (their editor shows the new files; the next ``gno update`` recovers): recovery rolls
back only what the apply left, never a file the person wrote since (spec/refactor.md,
"Apply: all or nothing")."""

from __future__ import annotations

import os
from pathlib import Path

from gno.refactor_journal import pending, recover_pending
from tests.writes.test_refactor_swaps import _commit_in, _files


def _crash_before_committed(tmp_path: Path) -> tuple[Path, Path]:
    """Every rename of the apply done, the journal still ``committing``: then kill -9."""
    pid = os.fork()
    if pid == 0:

        def die(step: str) -> None:
            if step == "committed":
                os._exit(0)

        try:
            _commit_in(tmp_path, die)
        finally:
            os._exit(1)
    assert os.waitpid(pid, 0)[1] == 0
    root, data = tmp_path / "root", tmp_path / "data"
    assert len(pending(data)) == 1
    return root, data


def test_recovery_rolls_back_what_the_apply_left_untouched_by_anyone(tmp_path: Path) -> None:
    root, data = _crash_before_committed(tmp_path)
    assert recover_pending(data) == ["rolled_back"]
    assert _files(root) == {"x.md": b"x\n", "a/b.md": b"b\n", "a/c.md": b"c\n"}


def test_recovery_keeps_files_a_person_wrote_after_the_crash(tmp_path: Path) -> None:
    root, data = _crash_before_committed(tmp_path)
    (root / "a/b.md").write_bytes(b"b new\nmy edit after the crash\n")  # an edited note
    (root / "x.md").write_bytes(b"a new note at the old path\n")  # the moved note's old path
    assert recover_pending(data) == ["rolled_back"]
    # Before: both were replaced by the apply's backups (the edit and the new note lost).
    assert _files(root) == {
        "x.md": b"a new note at the old path\n",
        "a/b.md": b"b new\nmy edit after the crash\n",
        "a/c.md": b"c\n",  # untouched since the apply: rolled back
        "new/deep/x.md": b"x moved\n",  # the old path is taken: the moved note stays
    }
    assert pending(data) == []
