"""Renaming a collection moves every row of it to the new name: the stored URI of each
document (records and inactive documents too), which graph nodes, diff, sections and
resource headers read, and the record containers' states, without which the next sync
imports every container again."""

from __future__ import annotations

from gno_contracts.models.collection_rename_input import CollectionRenameInput
from gno_contracts.models.diff_input import DiffInput

from gno.services.collections import collection_rename
from gno.services.journal import diff
from tests.conftest import search, sync
from tests.records_corpus import message, write_mbox


def test_every_row_gets_the_new_uri(make_app) -> None:
    app, root = make_app({"a.md": "# A\n\nalpha\n", "gone.md": "# Gone\n"})
    write_mbox(root / "mail/inbox.mbox", [message(3, "Hiring", "Candidates for the zeppelin.")])
    sync(app)
    (root / "gone.md").unlink()
    sync(app)  # an inactive row: it comes back if the file does
    store = app.store()
    collection_rename(app, CollectionRenameInput(oldName="notes", newName="renamed"))
    rows = store.conn.execute("SELECT rel_path, uri, active FROM documents").fetchall()
    assert {rel for rel, _, _ in rows} >= {"a.md", "gone.md"} and len(rows) == 3
    assert all(uri == f"gno://renamed/{rel}" for rel, uri, _ in rows)
    assert store._journal_known is None  # a rename is not a sync: no sync state left behind
    record = next(h for h in search(app, "zeppelin").results if h.record is not None)
    assert diff(app, DiffInput(ref=record.uri)).document.uri == record.uri


def test_a_sync_after_the_rename_keeps_the_records_it_has(make_app) -> None:
    app, root = make_app({"a.md": "# A\n\nalpha\n"})
    write_mbox(root / "mail/inbox.mbox", [message(3, "Hiring", "Candidates for the zeppelin.")])
    sync(app)
    before = app.store().conn.execute("SELECT id, rel_path FROM documents").fetchall()
    collection_rename(app, CollectionRenameInput(oldName="notes", newName="renamed"))
    result = sync(app)
    assert [e for c in result.collections for e in c.errors] == []
    assert (result.collections[0].filesAdded, result.collections[0].filesUpdated) == (0, 0)
    after = app.store().conn.execute("SELECT id, rel_path FROM documents").fetchall()
    assert after == before
    assert [h.uri for h in search(app, "zeppelin").results] == [
        f"gno://renamed/{rel}" for _, rel in before if rel.startswith(".gno/records/")
    ]
