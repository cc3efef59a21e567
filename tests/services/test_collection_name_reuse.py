"""A removed collection's documents stay in the index, inactive, until `gno cleanup`. A
collection that later takes its name is another collection: it starts from none of those
rows."""

from __future__ import annotations

from pathlib import Path

from gno_contracts.models.changes_input import ChangesInput
from gno_contracts.models.collection_add_input import CollectionAddInput
from gno_contracts.models.collection_remove_input import CollectionRemoveInput
from gno_contracts.models.tag_edit_input import TagEditInput

from gno.core.journal import encode_cursor
from gno.services import tag_writes
from gno.services.collections import collection_add, collection_remove
from gno.services.journal import changes
from tests.conftest import search, sync, write_tree


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
    assert [c.kind.value for c in entries] == ["create", "inactivate", "create"]
