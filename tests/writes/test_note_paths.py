"""Every write that makes a Markdown note refuses a path gno reads as an export or a
converted document (one check, gno.core.note_files.check_note_path): POST /api/docs,
capture, and duplicate, rename or move under a new extension. Raw content sent without title, tags or preset
is still written byte for byte at any other path (spec/writes.md)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from gno_contracts.models.capture_input import CaptureInput
from gno_contracts.models.duplicate_note_input import DuplicateNoteInput
from gno_contracts.models.move_note_input import MoveNoteInput
from gno_contracts.models.rename_note_input import RenameNoteInput

from gno.app import App
from gno.errors import InvalidPathError
from gno.paths import resolve_paths
from gno.services import doc_writes
from gno.services.capture import capture
from gno.services.refactor import move_note, rename_note
from tests.conftest import sync
from tests.live_server import live_server

EXPORT = '{"id": 1, "text": "kept tapir"}\n'


@pytest.fixture
def served(make_app: Any) -> Iterator[tuple[str, App, Path]]:
    from gno.rest.app import ServeOptions, create_app

    app, root = make_app({"keep.md": "# Keep\n", "chat.jsonl": EXPORT})
    sync(app)
    owner = App(resolve_paths())
    api = create_app(owner, options=ServeOptions(mcp=None, watch=False, web_ui=False))
    with live_server(api) as (url, _server):
        yield url, app, root


@pytest.mark.parametrize(
    "body",
    [
        {"relPath": "new.jsonl", "title": "A note"},
        {"relPath": "sub/mail.MBOX", "tags": ["work"], "content": "hello"},
        {"relPath": "data.json", "presetId": "blank", "content": "x"},
        {"relPath": "paper.pdf", "title": "Paper"},
        {"relPath": "deck.pptx", "tags": ["a"], "content": "x"},
        {"relPath": "chat.jsonl", "title": "Over", "overwrite": True},
        {"relPath": "chat.jsonl", "title": "Open", "collisionPolicy": "open_existing"},
    ],
)
def test_docs_create_refuses_a_note_at_an_export_or_converted_path(
    served: tuple[str, App, Path], body: dict[str, Any]
) -> None:
    """A note with frontmatter at new.jsonl was written and indexed as a broken chat export;
    over chat.jsonl it replaced the export. Now 400 INVALID_PATH and nothing on disk moves."""
    url, _app, root = served
    before = sorted(p.relative_to(root).as_posix() for p in root.rglob("*"))
    with httpx.Client(base_url=url, timeout=60) as http:
        done = http.post("/api/docs", json={"collection": "notes", **body})
    assert done.status_code == 400, done.text
    error = done.json()["error"]
    assert error["code"] == "INVALID_PATH" and "is not a note" in error["message"]
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*")) == before
    assert (root / "chat.jsonl").read_text() == EXPORT


def test_raw_content_at_such_a_path_is_refused_and_elsewhere_written_as_sent(
    served: tuple[str, App, Path],
) -> None:
    """Raw content (no title, tags, preset) is still the file, byte for byte (GNO's
    contract), at any other path. At an export's path it was written, then 500
    CAPTURE_SYNC_FAILED (a valid export is records, not the one document the receipt
    names) with the file left behind; text is never a valid PDF or OOXML file either."""
    url, _app, root = served
    line = '{"id": 2, "text": "new okapi"}\n'
    with httpx.Client(base_url=url, timeout=60) as http:
        for rel in ("more.jsonl", "raw.pdf"):
            done = http.post(
                "/api/docs", json={"collection": "notes", "relPath": rel, "content": line}
            )
            assert done.status_code == 400 and done.json()["error"]["code"] == "INVALID_PATH"
            assert not (root / rel).exists()
        done = http.post(
            "/api/docs", json={"collection": "notes", "relPath": "raw.txt", "content": line}
        )
    assert done.status_code == 201, done.text
    assert (root / "raw.txt").read_text() == line


def test_duplicate_rename_move_and_capture_refuse_the_same_paths(make_app: Any) -> None:
    app, root = make_app({"a.md": "# A\nalpha\n"})
    sync(app)
    for name in ("a.jsonl", "a.PDF"):  # a rename (plan or apply) into an export's name
        with pytest.raises(InvalidPathError, match="is not a note"):
            rename_note(app, RenameNoteInput(ref="notes/a.md", name=name))
        with pytest.raises(InvalidPathError, match="is not a note"):
            move_note(app, MoveNoteInput(ref="notes/a.md", folderPath="sub", name=name))
    for name in ("a.json", "a.eml", "a.docx"):  # the note's bytes under an export's name
        with pytest.raises(InvalidPathError, match="is not a note"):
            doc_writes.duplicate(app, DuplicateNoteInput(ref="notes/a.md", name=name))
    with pytest.raises(InvalidPathError, match="is not a note"):
        capture(app, CaptureInput(collection="notes", path="x.ics", content="a note"))
    assert sorted(p.name for p in root.iterdir()) == ["a.md"]
    copy = doc_writes.duplicate(app, DuplicateNoteInput(ref="notes/a.md", name="b.md"))
    assert (root / copy.relPath).read_text() == "# A\nalpha\n"
