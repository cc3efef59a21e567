"""A removed collection's documents stay in the index, inactive, until `gno cleanup`. A
collection that later takes its name (added, or renamed to it) is another collection: it
starts from none of those rows, and a rename onto that name is not refused by them."""

from __future__ import annotations

from pathlib import Path

from gno_contracts.models.changes_input import ChangesInput
from gno_contracts.models.collection_add_input import CollectionAddInput
from gno_contracts.models.collection_remove_input import CollectionRemoveInput
from gno_contracts.models.collection_rename_input import CollectionRenameInput
from gno_contracts.models.tag_edit_input import TagEditInput

from gno.core.journal import encode_cursor
from gno.services import tag_writes
from gno.services.collections import collection_add, collection_remove, collection_rename
from gno.services.journal import changes
from tests.conftest import search, sync, write_tree
from tests.records_corpus import message, write_mbox


def _folder(app, name: str, files: dict[str, str]) -> Path:
    return write_tree(Path(app.paths.db_path).parent.parent / f"src-{name}", files)


def test_a_new_collection_under_a_removed_name_inherits_none_of_its_documents(make_app) -> None:
    app, _ = make_app({"data.txt": "confidential salary list\n"})
    sync(app)
    tag_writes.add(app, TagEditInput(ref="notes/data.txt", tag="confidential"))  # index only
    collection_remove(app, CollectionRemoveInput(collection="notes"))
    other = _folder(app, "other", {"data.txt": "public lunch menu\n"})
    collection_add(app, CollectionAddInput(path=str(other), name="notes"))
    done = sync(app).collections[0]
    assert (done.filesAdded, done.filesUpdated) == (1, 0)
    # the old file's index-only tag is not the new file's
    assert app.store().conn.execute("SELECT tag FROM doc_tags").fetchall() == []
    assert not search(app, "lunch", tagsAny=["confidential"]).results
    entries = changes(app, ChangesInput(since=encode_cursor(0), limit=100)).changes
    # nor the old collection's history (its create and its removal's inactivate)
    assert [c.kind.value for c in entries] == ["create"]


def test_a_rename_onto_a_removed_collections_name(make_app) -> None:
    app, root = make_app({"note.md": "# Old\n\nsalary\n"}, name="old")
    write_mbox(root / "inbox.mbox", [message(1, "Old", "The aardvark memo.")])
    sync(app)
    collection_remove(app, CollectionRemoveInput(collection="old"))
    other = _folder(app, "other", {"note.md": "# New\n\nlunch\n"})
    write_mbox(other / "inbox.mbox", [message(2, "New", "The zeppelin memo.")])
    collection_add(app, CollectionAddInput(path=str(other), name="new"))
    sync(app)
    store = app.store()
    before = store.conn.execute("SELECT id, rel_path FROM documents WHERE active = 1").fetchall()
    # the removed "old" left rows at the same paths (note.md, its mailbox's records)
    collection_rename(app, CollectionRenameInput(oldName="new", newName="old"))
    done = sync(app).collections[0]
    assert (done.filesAdded, done.filesUpdated, done.errors) == (0, 0, [])
    rows = store.conn.execute("SELECT id, rel_path, collection FROM documents").fetchall()
    assert sorted(rows) == sorted((i, rel, "old") for i, rel in before)
    assert [h.uri for h in search(app, "lunch").results] == ["gno://old/note.md"]
    assert search(app, "zeppelin").results and not search(app, "aardvark").results
