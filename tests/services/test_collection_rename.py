"""Renaming a collection moves every row of it to the new name: the stored URI of each
document (records and inactive documents too), which graph nodes, diff, sections and
resource headers read, the record containers' states, without which the next sync
imports every container again, and the journal's entries, which `changes` and `diff` read
under the collection's name."""

from __future__ import annotations

import pytest
from gno_contracts.models.changes_input import ChangesInput
from gno_contracts.models.collection_rename_input import CollectionRenameInput
from gno_contracts.models.diff_input import DiffInput

from gno.core.journal import encode_cursor
from gno.errors import NotFoundError
from gno.services.collections import collection_rename
from gno.services.journal import changes, changes_payload, diff
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


def test_the_journal_follows_the_collection_to_its_new_name(make_app) -> None:
    app, root = make_app({"a.md": "# A\n\nalpha\n", "b.md": "# B\n\nbeta\n"})
    sync(app)
    (root / "a.md").write_text("# A\n\n## Added\n\nalpha\n")
    (root / "b.md").rename(root / "moved.md")
    sync(app)
    every = ChangesInput(since=encode_cursor(0), limit=100)
    before = changes(app, every).changes  # the SDK's models, kept per entry
    assert sorted(c.kind.value for c in before) == ["create", "create", "rename", "update"]
    collection_rename(app, CollectionRenameInput(oldName="notes", newName="renamed"))
    after = changes(app, every.model_copy(update={"collection": "renamed"})).changes
    assert [c.id for c in after] == [c.id for c in before]
    assert {c.collection for c in after} == {"renamed"}
    assert all(
        snap.uri == f"gno://renamed/{snap.relPath}"
        for c in after
        for snap in (c.previous, c.current)
        if snap is not None
    )
    assert changes_payload(app, every)["changes"][0]["collection"] == "renamed"
    edited = diff(app, DiffInput(ref="gno://renamed/a.md"))
    assert edited.history.status.value == "available"
    assert edited.change is not None and [
        h.root for h in edited.change.structureDelta.headings.added
    ] == ["## Added"]
    moved = diff(app, DiffInput(ref="gno://renamed/moved.md"))
    assert moved.change is not None and moved.change.kind.value == "rename"
    with pytest.raises(NotFoundError):
        changes(app, every.model_copy(update={"collection": "notes"}))


def test_a_change_the_index_refuses_leaves_neither_index_yml_nor_the_cached_config_changed(
    make_app,
) -> None:
    """A server's App keeps its config: a change that failed after editing it in place
    (here SQLite refuses the write: the connection is query-only, as a read-only file is)
    must not leave the App, and every request after, believing the edit."""
    from gno_contracts.models.collection_add_input import CollectionAddInput

    from gno.errors import IndexFileError
    from gno.services.collections import collection_add

    app, root = make_app({"a.md": "# A\n\nalpha\n"})
    sync(app)
    before = app.paths.config_file.read_bytes()
    app.store().conn.execute("PRAGMA query_only = 1")
    with pytest.raises(IndexFileError, match="cannot be written"):
        collection_add(app, CollectionAddInput(path=str(root), name="more"))
    with pytest.raises(IndexFileError):
        collection_rename(app, CollectionRenameInput(oldName="notes", newName="renamed"))
    assert app.paths.config_file.read_bytes() == before
    assert [c.name for c in app.config.collections] == ["notes"]
    app.store().conn.execute("PRAGMA query_only = 0")
    assert [h.uri for h in search(app, "alpha").results] == ["gno://notes/a.md"]


def test_a_collection_with_keys_beyond_the_wire_entry_is_listed_and_renamed(make_app) -> None:
    """``readOnly`` (and a user's own key) live in index.yml beside the entry's wire keys.
    Before: `collection list` and the answer of a rename (saved already) failed the closed
    output model, "Internal error"."""
    from gno_contracts.models.collection_list_input import CollectionListInput

    from gno.services.collections import collection_list

    app, _ = make_app({"a.md": "# A\n\nalpha\n"})
    config = app.paths.config_file
    config.write_text(config.read_text().replace("  path:", "  readOnly: true\n  mine: 1\n  path:"))
    app.forget_config()
    assert [c.name for c in collection_list(app, CollectionListInput()).root] == ["notes"]
    done = collection_rename(app, CollectionRenameInput(oldName="notes", newName="kept"))
    assert done.collection.name == "kept" and done.previousName == "notes"
    saved = app.reload_config().find("kept")
    assert saved is not None and saved.read_only and saved.extra["mine"] == 1
