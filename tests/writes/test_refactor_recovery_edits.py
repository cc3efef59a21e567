"""A crash cut a rename/move apply short, and a person kept working before gno recovered
it (their editor shows the new files; the next ``gno update`` recovers): recovery rolls
back only what the apply left, never a file the person wrote since (spec/refactor.md,
"Apply: all or nothing")."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

import gno.services.refactor as refactor
from gno.refactor_journal import pending, recover_pending
from tests.conftest import sync
from tests.writes.test_refactor_swaps import _apply, _commit_in, _files


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


@pytest.mark.parametrize("edited", ["other.md", "old-note.md"], ids=["linking", "moved"])
def test_a_file_written_after_the_plan_read_it_is_never_overwritten(
    make_app, monkeypatch: pytest.MonkeyPatch, edited: str
) -> None:
    """An editor saves a note of the apply (it does not take the writer lease) after the
    plan read it, before the commit: the apply is refused (stale_plan) and the save stays
    — before, the apply renamed its own bytes over it, or moved the old bytes and deleted
    the saved note."""
    app, root = make_app({"old-note.md": "# Old note\n", "other.md": "See [[old-note]].\n"})
    sync(app)
    saved = (root / edited).read_bytes() + b"\nSaved by an editor meanwhile.\n"
    real_commit = refactor.commit

    def save_then_commit(*args: Any, **kwargs: Any) -> str:
        replace_by_rename(root / edited, saved)
        return real_commit(*args, **kwargs)

    monkeypatch.setattr(refactor, "commit", save_then_commit)
    before = _files(root) | {edited: saved}
    result = _apply(app, ref="notes/old-note.md", name="new-note.md")
    assert result["status"] == "stale_plan"
    assert _files(root) == before  # nothing moved, no temporary or backup left
    assert pending(app.paths.data_dir) == []


def replace_by_rename(path: Path, data: bytes) -> None:
    """How editors save: a new file renamed over the old one."""
    tmp = path.with_name(path.name + ".swp")
    tmp.write_bytes(data)
    os.replace(tmp, path)


@pytest.mark.parametrize(
    "journal",
    ['{"format": 3, "id": "x", "phase": "committing"}', "[1, 2]", '{"entries": [{"rel": 1}]}'],
    ids=["newer-format", "not-a-record", "damaged"],
)
def test_a_journal_this_gno_cannot_read_is_set_aside_and_syncs_go_on(
    make_app, journal: str
) -> None:
    """Before: every sync and apply failed with an internal error (KeyError, AttributeError)
    until someone found and deleted the file by hand."""
    app, root = make_app({"a.md": "# A\n"})
    folder = app.paths.data_dir / "refactor-journal"
    folder.mkdir(parents=True)
    (folder / "abc.json").write_text(journal)
    before = _files(root)
    assert recover_pending(app.paths.data_dir) == ["set_aside"]
    assert (folder / "abc.json.unreadable").read_text() == journal  # kept for a person
    assert pending(app.paths.data_dir) == [] and _files(root) == before
    sync(app)  # goes on
