"""Rename and move with a plan, on real files and a real index (gno.services.refactor)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from gno_contracts.models.move_note_input import MoveNoteInput
from gno_contracts.models.rename_note_input import RenameNoteInput

from gno.errors import InvalidPathError, ValidationError
from gno.file_writes import MAX_READ_BYTES
from gno.held_folders import Place
from gno.services.refactor import move_note, rename_note
from tests.conftest import search, sync
from tests.fifo import unblocked

NOTES = {
    "old-note.md": "# Old note\n\nSee [[other]].\n",
    "other.md": "# Other\n\nLinks: [[old-note]], [[old-note#Intro|the intro]] and [md](old-note.md#top).\n",
    "sub/deep.md": "Up: [x](../old-note.md) and `[[old-note]]` in code.\n",
    "unrelated.md": "Nothing here.\n",
}


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def preview(app: Any, **fields: Any) -> dict[str, Any]:
    model = RenameNoteInput if "name" in fields and "folderPath" not in fields else MoveNoteInput
    run = rename_note if model is RenameNoteInput else move_note
    return run(app, model.model_validate(fields)).model_dump(mode="json", exclude_unset=True)


def apply(app: Any, plan: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return preview(
        app,
        action="apply",
        schemaVersion="1.0",
        planDigest=plan["planDigest"],
        confirmation="apply",
        confirm=True,
        **fields,
    )


def test_rename_rewrites_wiki_and_markdown_links_keeping_anchors(make_app) -> None:
    app, root = make_app(NOTES)
    sync(app)
    plan = preview(app, ref="notes/old-note.md", name="new-note.md")
    assert plan["canApply"] is True
    assert plan["target"]["relPath"] == "new-note.md"
    assert plan["target"]["uri"] == "gno://notes/new-note.md"
    edits = {
        (d["relPath"], e["originalDestination"], e["replacementDestination"])
        for d in plan["affectedDocuments"]
        for e in d["edits"]
    }
    assert edits == {
        ("other.md", "old-note", "new-note"),
        ("other.md", "old-note.md", "new-note.md"),
        ("sub/deep.md", "../old-note.md", "../new-note.md"),
    }
    assert plan["safety"]["rewriteableCount"] == 4
    result = apply(app, plan, ref="notes/old-note.md", name="new-note.md")
    assert result["status"] == "applied", result
    assert result["indexConvergence"]["state"] == "converged"
    assert not (root / "old-note.md").exists()
    assert (root / "new-note.md").read_text() == NOTES["old-note.md"]
    assert (root / "other.md").read_text() == (
        "# Other\n\nLinks: [[new-note]], [[new-note#Intro|the intro]] and [md](new-note.md#top).\n"
    )
    assert (root / "sub/deep.md").read_text() == (
        "Up: [x](../new-note.md) and `[[old-note]]` in code.\n"
    )
    hits = search(app, "Old note").results
    assert [h.uri for h in hits][:1] == ["gno://notes/new-note.md"]
    assert not [p for p in _files(root) if ".gno-refactor" in p]


def test_rename_keeps_the_permission_bits_of_every_file_it_writes(make_app) -> None:
    app, root = make_app(NOTES)
    (root / "old-note.md").chmod(0o600)  # private notes stay private
    (root / "other.md").chmod(0o640)
    sync(app)
    plan = preview(app, ref="notes/old-note.md", name="new-note.md")
    assert apply(app, plan, ref="notes/old-note.md", name="new-note.md")["status"] == "applied"
    assert (root / "new-note.md").stat().st_mode & 0o777 == 0o600  # before: 0o644
    assert (root / "other.md").stat().st_mode & 0o777 == 0o640
    assert "new-note" in (root / "other.md").read_text()


def test_move_recalculates_the_moved_notes_own_relative_links(make_app) -> None:
    app, root = make_app({"a/x.md": "[y](y.md) [self](x.md)\n", "a/y.md": "[[x]]\n"})
    sync(app)
    plan = preview(app, ref="notes/a/x.md", folderPath="b/c")
    assert plan["canApply"], plan["safety"]
    result = apply(app, plan, ref="notes/a/x.md", folderPath="b/c")
    assert result["status"] == "applied", result
    assert (root / "b/c/x.md").read_text() == "[y](../../a/y.md) [self](x.md)\n"
    assert (root / "a/y.md").read_text() == "[[x]]\n"  # still names it alone: unchanged


def test_stale_plan_changes_nothing(make_app) -> None:
    app, root = make_app(NOTES)
    sync(app)
    plan = preview(app, ref="notes/old-note.md", name="new-note.md")
    (root / "other.md").write_text(NOTES["other.md"] + "edited\n")
    before = _files(root)
    result = apply(app, plan, ref="notes/old-note.md", name="new-note.md")
    assert result["status"] == "stale_plan"
    assert result["reasonCode"] == "stale_plan"
    assert result["filesystem"]["state"] == "unchanged"
    assert _files(root) == before


def test_occupied_target_blocks_and_apply_is_a_conflict(make_app) -> None:
    app, root = make_app(NOTES)
    sync(app)
    plan = preview(app, ref="notes/old-note.md", name="other.md")
    assert plan["canApply"] is False
    assert plan["safety"]["blockingReasonCodes"][0] == "occupied_target"
    before = _files(root)
    result = apply(app, plan, ref="notes/old-note.md", name="other.md")
    assert result["status"] == "conflict" and result["reasonCode"] == "occupied_target"
    assert _files(root) == before


@pytest.mark.parametrize("folder", ["unrelated.md", "unrelated.md/deeper", "sub/deep.md/x"])
def test_a_file_where_the_target_folder_would_be_blocks_in_the_plan(make_app, folder) -> None:
    """No folder can be made where a note is: the plan said canApply and apply failed at
    commit (failed_rolled_back). The plan now blocks it, naming the file; apply conflicts."""
    app, root = make_app(NOTES)
    sync(app)
    plan = preview(app, ref="notes/old-note.md", folderPath=folder)
    assert plan["canApply"] is False
    assert plan["safety"]["blockingReasonCodes"] == ["occupied_target"]
    in_the_way = "/".join(folder.split("/")[:2]) if folder.startswith("sub/") else "unrelated.md"
    assert any(f"{in_the_way} is a file" in w for w in plan["safety"]["warnings"])
    before = _files(root)
    result = apply(app, plan, ref="notes/old-note.md", folderPath=folder)
    assert result["status"] == "conflict" and result["reasonCode"] == "occupied_target"
    assert _files(root) == before


def test_ambiguous_link_blocks(make_app) -> None:
    app, _ = make_app({"a/note.md": "one\n", "b/note.md": "two\n", "c.md": "[[note]]\n"})
    sync(app)
    plan = preview(app, ref="notes/a/note.md", name="renamed.md")
    assert plan["canApply"] is False
    assert "ambiguous_resolution" in plan["safety"]["blockingReasonCodes"]
    assert any("ambiguous" in w for w in plan["safety"]["warnings"])


@pytest.mark.parametrize(
    ("fields", "code"),
    [
        ({"name": "../escape.md"}, "INVALID_PATH"),
        ({"name": "/abs.md"}, "INVALID_PATH"),
        ({"name": "CON.md"}, "INVALID_PATH"),
        ({"name": "a/b.md"}, "INVALID_PATH"),
        ({"folderPath": "../out"}, "INVALID_PATH"),
        ({"folderPath": "/etc"}, "INVALID_PATH"),
        ({"folderPath": ".git"}, "INVALID_PATH"),
        ({"name": "old-note.md"}, "VALIDATION"),
    ],
)
def test_bad_targets_are_refused_and_touch_nothing(make_app, fields, code) -> None:
    from gno.errors import GnoError

    app, root = make_app(NOTES)
    sync(app)
    before = _files(root)
    with pytest.raises(GnoError) as err:
        preview(app, ref="notes/old-note.md", **fields)
    assert err.value.code == code
    assert _files(root) == before


def test_symlinked_folder_leading_out_is_refused(make_app, tmp_path: Path) -> None:
    from gno.errors import GnoError

    app, root = make_app(NOTES)
    sync(app)
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "link").symlink_to(outside)
    with pytest.raises(GnoError) as err:
        preview(app, ref="notes/old-note.md", folderPath="link")
    assert err.value.code == "INVALID_PATH"
    assert list(outside.iterdir()) == []


def test_frontmatter_relations_are_reported_not_rewritten(make_app) -> None:
    app, _ = make_app(
        {"target.md": "# T\n", "rel.md": "---\nrelations:\n  supports: target.md\n---\nbody\n"}
    )
    sync(app)
    plan = preview(app, ref="notes/target.md", name="moved.md")
    assert any("frontmatter relation" in w and "rel.md" in w for w in plan["safety"]["warnings"])
    assert plan["canApply"]


class _Boom(Exception):
    pass


def _stepper(fail_at: int, action: Any = None) -> Any:
    count = {"commit": 0}

    def on_step(step: str) -> None:
        if step == "commit":
            count["commit"] += 1
            if count["commit"] == fail_at:
                if action is not None:
                    action()
                else:
                    raise _Boom("disk gone")

    return on_step


@pytest.mark.parametrize("fail_at", [1, 2, 3, 4])
def test_a_failure_mid_commit_rolls_every_file_back(tmp_path: Path, fail_at: int) -> None:
    from gno.refactor_journal import Change, CommitFailed, commit, pending

    root = tmp_path / "root"
    root.mkdir()
    for name in ("a.md", "b.md", "c.md"):
        (root / name).write_text(f"old {name}\n")
    before = _files(root)
    changes = [
        Change(Place(root, "new/a.md"), b"moved a\n", create=True),
        Change(Place(root, "b.md"), b"new b\n"),
        Change(Place(root, "c.md"), b"new c\n"),
    ]
    data = tmp_path / "data"
    with pytest.raises(CommitFailed) as failed:
        commit(data, "0" * 64, changes, Place(root, "a.md"), on_step=_stepper(fail_at))
    assert failed.value.rolled_back
    assert _files(root) == before
    assert not (root / "new").exists()  # the folder the move made is gone too
    assert pending(data) == []


def test_a_target_that_appears_before_its_link_fails_and_rolls_back(tmp_path: Path) -> None:
    from gno.refactor_journal import Change, CommitFailed, commit

    root = tmp_path / "root"
    root.mkdir()
    (root / "a.md").write_text("a\n")
    (root / "b.md").write_text("b\n")

    def squat() -> None:
        (root / "taken.md").write_text("someone else's\n")

    changes = [
        Change(Place(root, "taken.md"), b"a moved\n", create=True),
        Change(Place(root, "b.md"), b"b2\n"),
    ]
    with pytest.raises(CommitFailed) as failed:
        commit(
            tmp_path / "data", "0" * 64, changes, Place(root, "a.md"), on_step=_stepper(1, squat)
        )
    assert failed.value.rolled_back
    assert _files(root) == {"a.md": b"a\n", "b.md": b"b\n", "taken.md": b"someone else's\n"}


def test_recovery_of_a_committing_journal_restores_the_old_state(tmp_path: Path) -> None:
    """What a kill -9 leaves after two renames of a commit: recovery puts everything back."""
    import json

    from gno.refactor_journal import Change, commit, pending, recover_pending

    root = tmp_path / "root"
    root.mkdir()
    (root / "a.md").write_text("a\n")
    (root / "b.md").write_text("b\n")
    before = _files(root)
    data = tmp_path / "data"
    snapshot: dict[str, Any] = {}

    def freeze() -> None:  # copy the journal and files as a crash would leave them
        journal = pending(data)[0]
        snapshot["journal"] = journal.read_text()
        snapshot["files"] = _files(root)

    changes = [
        Change(Place(root, "z.md"), b"a moved\n", create=True),
        Change(Place(root, "b.md"), b"b2\n"),
    ]
    commit(data, "0" * 64, changes, Place(root, "a.md"), on_step=_stepper(2, freeze))
    # Rebuild the crash state: files as frozen (a rename done, one not), journal present.
    for path in list(root.iterdir()):
        path.unlink()
    for rel, content in snapshot["files"].items():
        (root / rel).write_bytes(content)
    record = json.loads(snapshot["journal"])
    assert record["phase"] == "committing"
    for entry in record["entries"]:  # backups are hard links: recreate them as copies
        if entry["backup"] and not (root / entry["backup"]).exists():
            (root / entry["backup"]).write_bytes(before[entry["rel"]])
    if not (root / record["remove"]["backup"]).exists():
        (root / record["remove"]["backup"]).write_bytes(before["a.md"])
    (data / "refactor-journal" / f"{record['id']}.json").write_text(snapshot["journal"])
    assert recover_pending(data) == ["rolled_back"]
    assert _files(root) == before


def test_a_journal_an_older_gno_left_with_whole_paths_is_still_recovered(tmp_path: Path) -> None:
    """Journals named whole paths before they named each file by its root: a crash left by
    an older gno is rolled back after an upgrade, not a KeyError on every sync."""
    import hashlib
    import json

    from gno.refactor_journal import pending, recover_pending

    root = tmp_path / "root"
    (root / "new").mkdir(parents=True)
    (root / "b.md").write_text("b2\n")  # renamed over already
    (root / ".gno-refactor-0123-1.bak").write_text("b\n")
    (root / "new/z.md").write_text("a moved\n")  # linked into place already
    (root / ".gno-refactor-0123-src.bak").write_text("a\n")
    (root / "a.md").write_text("a\n")
    record = {
        "id": "0123",
        "planDigest": "0" * 64,
        "phase": "committing",
        "entries": [
            {
                "path": str(root / "new/z.md"),
                "temp": str(root / "new/.gno-refactor-0123-0.tmp"),
                "backup": None,
                "create": True,
                "newHash": hashlib.sha256(b"a moved\n").hexdigest(),
            },
            {
                "path": str(root / "b.md"),
                "temp": str(root / ".gno-refactor-0123-1.tmp"),
                "backup": str(root / ".gno-refactor-0123-1.bak"),
                "create": False,
                "newHash": hashlib.sha256(b"b2\n").hexdigest(),
            },
        ],
        "remove": str(root / "a.md"),
        "removeBackup": str(root / ".gno-refactor-0123-src.bak"),
        "madeDirs": [str(root / "new")],
    }
    data = tmp_path / "data"
    (data / "refactor-journal").mkdir(parents=True)
    (data / "refactor-journal" / "0123.json").write_text(json.dumps(record))
    assert recover_pending(data) == ["rolled_back"]
    assert _files(root) == {"a.md": b"a\n", "b.md": b"b\n"}
    assert not (root / "new").exists()
    assert pending(data) == []


def test_a_linking_note_gone_from_disk_is_reported(make_app) -> None:
    app, root = make_app(NOTES)
    sync(app)
    (root / "sub/deep.md").unlink()
    plan = preview(app, ref="notes/old-note.md", name="new-note.md")
    assert any("deep.md" in w and "could not be read" in w for w in plan["safety"]["warnings"])
    assert {d["relPath"] for d in plan["affectedDocuments"]} == {"other.md"}


def test_a_target_created_after_the_preview_makes_the_plan_stale(make_app) -> None:
    app, root = make_app(NOTES)
    sync(app)
    plan = preview(app, ref="notes/old-note.md", name="new-note.md")
    (root / "new-note.md").write_text("someone else's note\n")
    before = _files(root)
    result = apply(app, plan, ref="notes/old-note.md", name="new-note.md")
    assert result["status"] == "stale_plan"
    assert _files(root) == before


def test_apply_without_every_confirmation_field_changes_nothing(make_app) -> None:
    app, root = make_app(NOTES)
    sync(app)
    plan = preview(app, ref="notes/old-note.md", name="new-note.md")
    full = {
        "action": "apply",
        "ref": "notes/old-note.md",
        "name": "new-note.md",
        "schemaVersion": "1.0",
        "planDigest": plan["planDigest"],
        "confirmation": "apply",
        "confirm": True,
    }
    before = _files(root)
    for missing in ("schemaVersion", "planDigest", "confirmation", "confirm"):
        fields = {k: v for k, v in full.items() if k != missing}
        with pytest.raises(ValidationError):
            rename_note(app, RenameNoteInput.model_validate(fields))
        assert _files(root) == before


def test_index_only_tags_follow_a_renamed_or_moved_file(make_app) -> None:
    """A file that is not Markdown keeps its tags in the index only: they go with it, and
    a later file at its old path does not take them over."""
    from gno_contracts.models.tag_edit_input import TagEditInput

    from gno.services import tag_writes

    app, root = make_app({"data.txt": "salary list\n", "n.md": "See [data](data.txt).\n"})
    sync(app)
    tag_writes.add(app, TagEditInput(ref="notes/data.txt", tag="confidential"))
    plan = preview(app, ref="notes/data.txt", name="salaries.txt")
    assert apply(app, plan, ref="notes/data.txt", name="salaries.txt")["status"] == "applied"
    plan = preview(app, ref="notes/salaries.txt", folderPath="hr")
    assert apply(app, plan, ref="notes/salaries.txt", folderPath="hr")["status"] == "applied"
    assert [h.uri for h in search(app, "salary", tagsAny=["confidential"]).results] == [
        "gno://notes/hr/salaries.txt"
    ]
    (root / "data.txt").write_text("lunch menu\n")
    sync(app)
    assert not search(app, "lunch", tagsAny=["confidential"]).results


def _pipe(path: Path, _outside: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _link_out(path: Path, outside: Path) -> None:
    path.unlink()
    path.symlink_to(outside)


def _huge(path: Path, _outside: Path) -> None:
    os.truncate(path, MAX_READ_BYTES + 1)  # sparse: costs no disk


@pytest.mark.parametrize(
    ("swap", "error", "message"),
    [
        (_pipe, InvalidPathError, "named pipe"),
        (_link_out, InvalidPathError, "outside the collection root"),
        (_huge, ValidationError, "larger than 100 MiB"),
    ],
)
def test_the_moved_file_is_read_again_bounded_without_blocking_or_following_a_link(
    make_app, monkeypatch, tmp_path: Path, swap: Any, error: type[Exception], message: str
) -> None:
    """Apply reads the moved file's bytes again after rebuilding the plan; another process
    (which takes no lease) may have put something else there meanwhile. Before: a named
    pipe blocked the lease holder until a writer came (then an empty note was moved), a
    link's target outside the root was copied in, a huge file was read whole into memory."""
    from gno.services import refactor

    app, root = make_app(NOTES)
    sync(app)
    plan = preview(app, ref="notes/old-note.md", name="new-note.md")  # no edits of its own
    outside = tmp_path / "secret.txt"
    outside.write_text("not for the collection\n")
    rebuild = refactor._build

    def build_then_swap(*args: Any, **kwargs: Any) -> Any:
        built = rebuild(*args, **kwargs)
        swap(root / "old-note.md", outside)  # after the plan read it, before the copy
        return built

    monkeypatch.setattr(refactor, "_build", build_then_swap)
    with unblocked(root / "old-note.md") as had_to, pytest.raises(error, match=message):
        apply(app, plan, ref="notes/old-note.md", name="new-note.md")
    assert not had_to
    assert not os.path.lexists(root / "new-note.md")
    assert (root / "other.md").read_text() == NOTES["other.md"]  # nothing was committed
    assert not [p for p in root.rglob(".gno-refactor-*")]
    assert not list((app.paths.data_dir / "refactor-journal").glob("*.json"))
    assert outside.read_text() == "not for the collection\n"
