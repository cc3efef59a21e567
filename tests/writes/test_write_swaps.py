"""A folder on a write's path swapped for a link out of the root after the path was checked
never makes gno write outside the root (spec/writes.md).

The check (``resolve_inside``) and the write are two steps; between them another process
can rename a folder away and put a symlink to a private folder in its place. The swap is
timed by wrapping a function the write calls at the critical moment (the temporary file's
name, or the path check itself); every file system operation is real.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from gno_contracts.models.capture_input import CaptureInput
from gno_contracts.models.doc_update_input import DocUpdateInput
from gno_contracts.models.duplicate_note_input import DuplicateNoteInput
from gno_contracts.models.tag_edit_input import TagEditInput

import gno.file_writes as file_writes
import gno.services.note_writer as note_writer
from gno.app import App
from gno.errors import GnoError
from gno.rows import iso_from_ns
from gno.services import doc_writes, tag_writes
from gno.services.capture import capture
from tests.conftest import sync

VICTIM = b"# Private\n\nnot gno's to touch\n"


def _capture(app: App) -> None:
    capture(app, CaptureInput(collection="notes", path="sub/new.md", content="captured"))


def _update(app: App) -> None:
    doc_writes.update(
        app, DocUpdateInput(id="gno://notes/sub/a.md", uri="gno://notes/sub/a.md", content="saved")
    )


def _tag(app: App) -> None:
    tag_writes.add(app, TagEditInput(ref="gno://notes/sub/a.md", tag="swapped"))


def _duplicate(app: App) -> None:
    doc_writes.duplicate(app, DuplicateNoteInput(ref="gno://notes/top.md", folderPath="sub"))


WRITES: dict[str, Callable[[App], None]] = {
    "capture": _capture,
    "update": _update,
    "tag": _tag,
    "duplicate": _duplicate,
}


def _setup(make_app: Any, tmp_path: Path) -> tuple[App, Path, Path, Callable[[], None]]:
    outside = tmp_path / "private"
    outside.mkdir()
    (outside / "a.md").write_bytes(VICTIM)  # what a save through the link would replace
    app, root = make_app({"top.md": "# Top\n", "sub/a.md": "---\ntitle: A\n---\n# A\n"})
    sync(app)

    def swap() -> None:
        os.rename(root / "sub", root / "sub-moved")  # the folder goes away (still in the root)
        (root / "sub").symlink_to(outside, target_is_directory=True)  # a link out takes its place

    return app, root, outside, swap


def _untouched(outside: Path) -> None:
    assert sorted(p.name for p in outside.iterdir()) == ["a.md"]  # no new file, no temporary
    assert (outside / "a.md").read_bytes() == VICTIM


@pytest.mark.parametrize("write", WRITES)
def test_a_folder_swapped_between_the_check_and_the_write_gets_nothing_outside(
    make_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write: str
) -> None:
    app, root, outside, swap = _setup(make_app, tmp_path)
    real_temp_name = file_writes.temp_name

    def swap_then_name(name: str) -> str:  # called just before the temporary file is made
        swap()
        monkeypatch.setattr(file_writes, "temp_name", real_temp_name)
        return real_temp_name(name)

    monkeypatch.setattr(file_writes, "temp_name", swap_then_name)
    with contextlib.suppress(GnoError):  # the write may land in the moved folder, or fail
        WRITES[write](app)
    _untouched(outside)  # before: the temporary file and the note were made in private/
    assert not list(root.rglob(".gno-tmp-*"))
    if write == "update":  # it went to the folder that was checked, where it moved
        assert (root / "sub-moved" / "a.md").read_bytes() == b"saved"


def test_a_folder_swapped_before_missing_parents_are_made_gets_no_folder_outside(
    make_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _, outside, swap = _setup(make_app, tmp_path)
    real_check = note_writer.resolve_paths

    def check_then_swap(*args: Any) -> Any:  # the path passed every check; then the swap
        checked = real_check(*args)
        swap()
        return checked

    monkeypatch.setattr(note_writer, "resolve_paths", check_then_swap)
    with contextlib.suppress(GnoError):
        capture(app, CaptureInput(collection="notes", path="sub/deep/new.md", content="x"))
    _untouched(outside)  # before: private/deep/ was created, then the write refused


def _duplicate_sub(app: App) -> None:
    doc_writes.duplicate(app, DuplicateNoteInput(ref="gno://notes/sub/a.md", folderPath="copy"))


def _tag_sub(app: App) -> None:
    tag_writes.add(app, TagEditInput(ref="gno://notes/sub/a.md", tag="swapped"))


@pytest.mark.parametrize(
    ("write", "module", "checked"),
    [(_duplicate_sub, doc_writes, "resolve_inside"), (_tag_sub, tag_writes, "editable_target")],
    ids=["duplicate", "tag"],  # a tag edit's write already refuses the swapped folder
)
def test_a_folder_swapped_before_the_write_reads_its_source_leaks_nothing_into_the_root(
    make_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, write: Any, module: Any, checked: str
) -> None:
    """A write that starts from the file on disk (duplicate, tag edit) reads it relative
    to folders held from the root too: else the private file's bytes were copied into
    the collection (and indexed)."""
    app, root, outside, swap = _setup(make_app, tmp_path)
    (outside / "a.md").write_text("# Private\n\ntopsecretword\n")
    real_check = getattr(module, checked)

    def check_then_swap(*args: Any) -> Any:
        checked_path = real_check(*args)
        swap()
        return checked_path

    monkeypatch.setattr(module, checked, check_then_swap)
    with contextlib.suppress(GnoError):
        write(app)
    leaked = [  # the collection's own files: the walk never follows the link
        name
        for folder, _, names in os.walk(root)
        for name in names
        if b"topsecretword" in (Path(folder) / name).read_bytes()
    ]
    assert leaked == []  # before (duplicate): copy/a.md held the private note
    assert (outside / "a.md").read_text() == "# Private\n\ntopsecretword\n"


def test_a_files_modification_time_is_never_read_through_a_swapped_folder(
    make_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save's stale check reads the note's bytes and its modification time; both go
    through folders held from the root, so a folder swapped between the two never
    answers with a private file's timestamp."""
    _, root, outside, swap = _setup(make_app, tmp_path)
    private_ns = 1_000_000_000 * 10**9  # 2001-09-09: no note of the test has it
    os.utime(outside / "a.md", ns=(private_ns, private_ns))
    real_read = doc_writes.read_existing

    def read_then_swap(*args: Any, **kwargs: Any) -> bytes:
        data: bytes = real_read(*args, **kwargs)
        swap()
        return data

    monkeypatch.setattr(doc_writes, "read_existing", read_then_swap)
    try:
        _, _, modified = doc_writes.file_state(file_writes.resolve_inside(root, "sub/a.md"), root)
    except GnoError as exc:
        assert exc.code == "INVALID_PATH"  # the link is refused
    else:
        assert modified != iso_from_ns(private_ns)  # before: private/a.md's mtime
