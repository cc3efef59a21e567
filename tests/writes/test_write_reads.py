"""A write that starts from the file on disk (save, tag edit, duplicate, capture's
open_existing) reads it without blocking or unbounded memory: a named pipe or a folder put
where the note was answers INVALID_PATH, and nothing is written."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest
from gno_contracts.models.capture_input import CaptureInput
from gno_contracts.models.doc_update_input import DocUpdateInput
from gno_contracts.models.duplicate_note_input import DuplicateNoteInput
from gno_contracts.models.tag_edit_input import TagEditInput

from gno.app import App
from gno.errors import InvalidPathError, ValidationError
from gno.services import doc_writes, tag_writes
from gno.services.capture import capture
from tests.conftest import sync
from tests.fifo import unblocked


def _update(app: App, uri: str) -> None:
    doc_writes.update(app, DocUpdateInput(id=uri, uri=uri, content="new"))


def _tag(app: App, uri: str) -> None:
    tag_writes.add(app, TagEditInput(ref=uri, tag="x"))


def _duplicate(app: App, uri: str) -> None:
    doc_writes.duplicate(app, DuplicateNoteInput(ref=uri))


def _open_existing(app: App, uri: str) -> None:
    capture(
        app,
        CaptureInput(collection="notes", path="a.md", content="c", collisionPolicy="open_existing"),
    )


OPERATIONS: dict[str, Callable[[App, str], None]] = {
    "update": _update,
    "tag": _tag,
    "duplicate": _duplicate,
    "open_existing": _open_existing,
}


@pytest.mark.parametrize("operation", OPERATIONS)
def test_a_named_pipe_where_the_note_was_is_refused_without_blocking(make_app, operation) -> None:
    app, root = make_app({"a.md": "# A\n\nbody\n"})
    sync(app)
    (root / "a.md").unlink()
    os.mkfifo(root / "a.md")
    with unblocked(root / "a.md") as had_to, pytest.raises(InvalidPathError, match="named pipe"):
        OPERATIONS[operation](app, "gno://notes/a.md")  # before: open() waited for a writer
    assert not had_to
    assert sorted(p.name for p in root.iterdir()) == ["a.md"]


@pytest.mark.parametrize("operation", OPERATIONS)
def test_a_folder_where_the_note_was_is_invalid_path(make_app, operation) -> None:
    app, root = make_app({"a.md": "# A\n\nbody\n"})
    sync(app)
    (root / "a.md").unlink()
    (root / "a.md").mkdir()
    with pytest.raises(InvalidPathError):  # before: a raw IsADirectoryError
        OPERATIONS[operation](app, "gno://notes/a.md")
    assert sorted(p.name for p in root.iterdir()) == ["a.md"]
    assert list((root / "a.md").iterdir()) == []


@pytest.mark.parametrize("operation", ["update", "tag", "duplicate"])
def test_a_note_too_large_to_write_back_is_validation_and_untouched(make_app, operation) -> None:
    """The file on disk is readable (at most 100 MiB) but what the write would put back is
    over the 10 MiB a write takes: a content problem (VALIDATION), not the path's."""
    big = "# A\n\n" + "word " * (11 * 1024 * 1024 // 5) + "\n"
    app, root = make_app({"a.md": big})
    sync(app)
    with pytest.raises(ValidationError, match="at most 10485760 bytes") as refused:
        if operation == "update":  # a save that only sets the note's tags
            doc_writes.update(app, DocUpdateInput(id="gno://notes/a.md", tags=["x"]))
        else:
            OPERATIONS[operation](app, "gno://notes/a.md")
    assert refused.value.code == "VALIDATION"  # was INVALID_PATH
    assert sorted(p.name for p in root.iterdir()) == ["a.md"]
    assert (root / "a.md").read_text() == big
