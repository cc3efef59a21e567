"""A save (or any write that indexes its file at once) landing while a `gno update` has
read the same file and not yet committed it: the sync must not put the bytes it read
before the save back in the index. Real files; the writer is another client (its own
connection) or the sync's own App (a server runs both); the save lands at the one point
that lost it (after the sync read the file, before its batch commits)."""

from __future__ import annotations

from typing import Any

import pytest
from gno_contracts.models.doc_update_input import DocUpdateInput

from gno.app import App
from gno.paths import resolve_paths
from gno.services import doc_writes
from gno.services.sync_apply import FileApplier
from tests.conftest import search, sync


@pytest.mark.parametrize("writer_kind", ["another client", "the same app"])
def test_a_save_made_before_the_syncs_commit_stays_indexed(
    make_app: Any, monkeypatch: pytest.MonkeyPatch, writer_kind: str
) -> None:
    app, root = make_app({"a.md": "# A\n\nfirst draft\n"})
    sync(app)
    (root / "a.md").write_text("# A\n\nsecond draft\n")  # the sync reads this one
    writer = App(resolve_paths()) if writer_kind == "another client" else app
    real_flush = FileApplier._flush
    saved: list[Any] = []

    def save_then_flush(self: FileApplier) -> None:
        if self._pending and not saved:  # the sync read and converted a.md: the save lands
            saved.append(None)  # once (the save's own inline sync flushes too)
            doc = doc_writes.document(writer, "notes/a.md")
            inp = DocUpdateInput(id=doc.docid, content="# A\n\nfinal wording\n")
            saved[0] = doc_writes.update(writer, inp)
        real_flush(self)

    monkeypatch.setattr(FileApplier, "_flush", save_then_flush)
    try:
        sync(app)
        assert saved and (root / "a.md").read_text() == "# A\n\nfinal wording\n"
        # Before: the sync's commit put "second draft" back under the docid the save had
        # answered; a search found the old text until the next sync.
        doc = app.store().document_by_path("notes", "a.md")
        assert doc is not None and doc.docid == saved[0].docId
        assert [hit.uri for hit in search(app, "final wording").results] == ["gno://notes/a.md"]
        assert search(app, "second draft").results == []
        monkeypatch.setattr(FileApplier, "_flush", real_flush)
        sync(app)  # the next sync finds the file as indexed
        assert [hit.uri for hit in search(app, "final wording").results] == ["gno://notes/a.md"]
    finally:
        if writer is not app:
            writer.close()
