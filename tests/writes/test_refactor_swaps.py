"""A folder swapped for a link out of the root never makes a rename/move apply, or the
recovery of one a crash cut short, create, change or remove anything outside the root
(spec/refactor.md, "Apply: all or nothing").

The plan checks every path, then the apply writes; between the two another process can
rename a folder away and put a symlink to a private folder in its place. The swap is
timed by wrapping a function called at the critical moment (the journal's commit, one of
its steps, or a crash between the two); every file system operation is real.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from gno_contracts.models.move_note_input import MoveNoteInput
from gno_contracts.models.rename_note_input import RenameNoteInput

import gno.services.refactor as refactor
from gno.app import App
from gno.errors import InvalidPathError
from gno.held_folders import Place
from gno.refactor_journal import Change, CommitFailed, commit, pending, recover_pending
from tests.conftest import sync

DIRECTORY = "<dir>"
VICTIM = b"# Private\n\nnot gno's to touch\n"
NOTES = {
    "old-note.md": "# Old note\n",
    "other.md": "See [[old-note]].\n",
    "sub/deep.md": "Up: [x](../old-note.md)\n",  # rewritten by the rename
    "dest/keep.md": "# Keep\n",  # the move's destination folder
}


def _tree(top: Path) -> dict[str, bytes | str]:
    """Every file under ``top`` by relative path; a link is its target, never followed."""
    found: dict[str, bytes | str] = {}
    for folder, dirs, names in os.walk(top):
        for name in dirs + names:
            path = Path(folder) / name
            rel = str(path.relative_to(top))
            if path.is_symlink():
                found[rel] = f"-> {os.readlink(path)}"
            else:
                found[rel] = path.read_bytes() if name in names else DIRECTORY
    return found


def _files(top: Path) -> dict[str, bytes | str]:
    """The files and links under ``top``, without its folders."""
    return {rel: got for rel, got in _tree(top).items() if got != DIRECTORY}


def _outside(tmp_path: Path, *names: str) -> Path:
    outside = tmp_path / "private"
    outside.mkdir()
    for name in names:  # what a write through the link would replace or remove
        (outside / name).write_bytes(VICTIM)
    return outside


def _swap(root: Path, folder: str, outside: Path) -> None:
    os.rename(root / folder, root / f"{folder}-moved")  # the folder goes (still in the root)
    (root / folder).symlink_to(outside, target_is_directory=True)  # a link out takes its place


def _apply(app: App, **fields: Any) -> dict[str, Any]:
    model = MoveNoteInput if "folderPath" in fields else RenameNoteInput
    run = refactor.move_note if model is MoveNoteInput else refactor.rename_note
    plan = run(app, model.model_validate(fields)).model_dump(mode="json")
    assert plan["canApply"], plan["safety"]
    confirm = {"schemaVersion": "1.0", "confirmation": "apply", "confirm": True}
    applied = model.model_validate(
        fields | confirm | {"action": "apply", "planDigest": plan["planDigest"]}
    )
    return run(app, applied).model_dump(mode="json")  # type: ignore[arg-type]


def _apply_reviewed(app: App, fields: dict[str, Any], digest: str) -> dict[str, Any]:
    confirm = {"schemaVersion": "1.0", "confirmation": "apply", "confirm": True}
    applied = MoveNoteInput.model_validate(
        fields | confirm | {"action": "apply", "planDigest": digest}
    )
    return refactor.move_note(app, applied).model_dump(mode="json")


@pytest.mark.parametrize(
    ("swapped", "fields"),
    [
        ("sub", {"name": "new-note.md"}),  # a rewritten linking note's folder
        ("dest", {"folderPath": "dest/inner"}),  # the moved note's destination
    ],
    ids=["rewritten-file", "destination"],
)
def test_a_folder_swapped_after_the_plan_was_checked_gets_nothing_outside(
    make_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, swapped: str, fields: Any
) -> None:
    app, root = make_app(NOTES)
    sync(app)
    outside = _outside(tmp_path, "deep.md", "keep.md")
    real_commit = refactor.commit
    old_state: dict[str, bytes | str] = {}

    def swap_then_commit(*args: Any, **kwargs: Any) -> str:  # the plan passed every check
        _swap(root, swapped, outside)
        old_state.update(_tree(root))
        return real_commit(*args, **kwargs)

    monkeypatch.setattr(refactor, "commit", swap_then_commit)
    result = _apply(app, ref="notes/old-note.md", **fields)
    # Before: the temporaries, the backup of private/deep.md and the note itself were
    # written through the link (private/deep.md replaced; private/inner/old-note.md made
    # and the note gone from the collection).
    assert _tree(outside) == {"deep.md": VICTIM, "keep.md": VICTIM}
    assert result["status"] == "failed_rolled_back"  # a link on the way: refused, rolled back
    assert result["filesystem"]["state"] == "rolled_back"
    assert _tree(root) == old_state  # all old, no temporary or backup left behind
    assert pending(app.paths.data_dir) == []


def _commit_in(tmp_path: Path, on_step: Callable[[str], None]) -> tuple[Path, Path]:
    root = tmp_path / "root"
    for rel, text in {"x.md": "x\n", "a/b.md": "b\n", "a/c.md": "c\n"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    changes = [
        Change(Place(root, "new/deep/x.md"), b"x moved\n", create=True),
        Change(Place(root, "a/b.md"), b"b new\n"),
        Change(Place(root, "a/c.md"), b"c new\n"),
    ]
    data = tmp_path / "data"
    commit(data, "0" * 64, changes, Place(root, "x.md"), on_step=on_step)
    return root, data


def test_a_folder_swapped_mid_commit_gets_every_file_where_it_moved(tmp_path: Path) -> None:
    """The folders are held from the start of the commit: one moved meanwhile keeps getting
    its files where it is now (inside the root), together."""
    outside = _outside(tmp_path, "b.md", "c.md")
    steps: list[str] = []

    def swap_at_first_rename(step: str) -> None:
        steps.append(step)
        if steps.count("commit") == 1 and step == "commit":
            _swap(tmp_path / "root", "a", outside)

    root, data = _commit_in(tmp_path, swap_at_first_rename)
    # Before: the renames went through the link, found no temporary there and failed;
    # the rollback, by path too, left the temporaries and backups in a-moved/.
    assert _tree(outside) == {"b.md": VICTIM, "c.md": VICTIM}
    assert _files(root) == {
        "new/deep/x.md": b"x moved\n",
        "a-moved/b.md": b"b new\n",
        "a-moved/c.md": b"c new\n",
        "a": f"-> {outside}",
    }
    assert pending(data) == []


def test_recovery_never_follows_a_folder_swapped_after_the_crash(tmp_path: Path) -> None:
    """A crash mid-commit, then a folder on a journaled path becomes a link out of the root:
    recovery restores what it can reach from the root and touches nothing through the link."""
    outside = tmp_path / "private"
    (outside / "deep").mkdir(parents=True)
    (outside / "deep" / "x.md").write_bytes(b"x moved\n")  # the same bytes the move wrote
    pid = os.fork()
    if pid == 0:  # the apply, killed after its first rename: no rollback runs

        def die_at_second_rename(step: str) -> None:
            if step == "commit" and os.path.exists(tmp_path / "root/new/deep/x.md"):
                os._exit(0)

        try:
            _commit_in(tmp_path, die_at_second_rename)
        finally:
            os._exit(1)
    assert os.waitpid(pid, 0)[1] == 0
    root, data = tmp_path / "root", tmp_path / "data"
    assert len(pending(data)) == 1
    _swap(root, "new", outside)
    assert recover_pending(data) == ["rolled_back"]
    # Before: private/deep/x.md (it held the moved note's bytes) was removed as gno's own,
    # then private/deep/ as a folder the move had made.
    assert _tree(outside) == {"deep": DIRECTORY, "deep/x.md": b"x moved\n"}
    assert _files(root) == {  # every path recovery can reach from the root is old again
        "x.md": b"x\n",
        "a/b.md": b"b\n",
        "a/c.md": b"c\n",
        "new-moved/deep/x.md": b"x moved\n",  # moved away with its folder: out of reach
        "new": f"-> {outside}",
    }
    assert pending(data) == []


def test_a_commit_refused_by_a_link_raises_commit_failed_rolled_back(tmp_path: Path) -> None:
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    (root / "a/b.md").write_text("b\n")
    (root / "x.md").write_text("x\n")
    outside = _outside(tmp_path, "b.md")
    _swap(root, "a", outside)
    with pytest.raises(CommitFailed) as failed:
        commit(
            tmp_path / "data",
            "0" * 64,
            [Change(Place(root, "y.md"), b"x\n", create=True), Change(Place(root, "a/b.md"), b"")],
            Place(root, "x.md"),
        )
    assert failed.value.rolled_back
    assert _tree(outside) == {"b.md": VICTIM}
    assert (root / "x.md").read_text() == "x\n" and not (root / "y.md").exists()


SECRET = b"private diary, see [up](../other.md)\n"  # relative links: the move rewrites them


def test_a_folder_swapped_before_the_plan_reads_the_note_leaks_nothing_into_the_root(
    make_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plan checks the note's path, then reads it: a folder swapped for a link between
    the two (and back before the commit) must not make a private file outside the root
    stand in for the note — moved into the collection while the note itself is deleted."""
    app, root = make_app(
        {"sub/note.md": "# Note\n[up](../other.md)\n", "other.md": "# Other\n", "dest/k.md": "k\n"}
    )
    sync(app)
    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "note.md").write_bytes(SECRET)
    checked = refactor.resolve_inside
    real_commit = refactor.commit

    def swap_back() -> None:
        if (root / "sub").is_symlink():
            (root / "sub").unlink()
            os.rename(root / "sub-moved", root / "sub")

    def checked_then_swapped(base: Path, rel: str) -> Path:
        path = checked(base, rel)
        if rel == "sub/note.md" and not (root / "sub").is_symlink():
            _swap(root, "sub", outside)
        return path

    def back_then_commit(*args: Any, **kwargs: Any) -> str:
        swap_back()
        return real_commit(*args, **kwargs)

    monkeypatch.setattr(refactor, "resolve_inside", checked_then_swapped)
    monkeypatch.setattr(refactor, "commit", back_then_commit)
    before = _files(root)
    # Before: the preview fingerprinted private/note.md, and the apply (previewed the same
    # way) wrote it to dest/inner/note.md and deleted sub/note.md.
    fields = {"ref": "notes/sub/note.md", "folderPath": "dest/inner"}
    with pytest.raises(InvalidPathError):
        plan = refactor.move_note(app, MoveNoteInput.model_validate(fields))
        swap_back()  # the plan was read through the link; the apply reads it the same way
        _apply_reviewed(app, fields, plan.model_dump(mode="json")["planDigest"])
    swap_back()
    assert _files(root) == before
    assert (outside / "note.md").read_bytes() == SECRET
