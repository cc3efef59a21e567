"""A collection's `languageHint` (engine.md §2.6: it overrides per-chunk detection) is the
collection's, applied when results are read: chunks keep what detection found in their
text. Chunks are stored once per content, so a hint written into them leaked into every
other collection holding the same text, outlived its collection, and a hint set or
changed later never reached the documents already indexed."""

from __future__ import annotations

from typing import Any

from gno_contracts.models.get_input import GetInput
from gno_contracts.models.query_diagnose_input import QueryDiagnoseInput

from gno.app import App
from gno.services.diagnose import diagnose
from gno.services.documents import get
from tests.conftest import search, sync, write_tree

ENGLISH = "# Fox\n\nThe quick brown fox jumps over the lazy dog and then it runs far away from the farm.\n"


def languages(app: App, collection: str, **filters: Any) -> list[str | None]:
    hits = search(app, "fox", collection=collection, **filters).results
    return [hit.snippetLanguage for hit in hits]


def set_hint(app: App, collection: str, hint: str | None) -> None:
    config = app.config
    found = config.find(collection)
    assert found is not None
    found.language_hint = hint
    app.save_config(config)


def test_a_hint_set_later_reaches_the_documents_already_indexed(make_app: Any) -> None:
    app, _ = make_app({"fox.md": ENGLISH})
    sync(app)
    assert languages(app, "notes") == ["en"]
    set_hint(app, "notes", "de")
    sync(app)  # nothing changed on disk: nothing is converted again
    assert languages(app, "notes") == ["de"]
    assert languages(app, "notes", lang="de") == ["de"] and not languages(app, "notes", lang="en")
    assert get(app, GetInput(ref="gno://notes/fox.md")).language == "de"
    diagnosed = diagnose(app, QueryDiagnoseInput(query="fox", target="gno://notes/fox.md"))
    assert diagnosed.chunk.language == "de"
    set_hint(app, "notes", None)
    assert languages(app, "notes") == ["en"] and languages(app, "notes", lang="en") == ["en"]


def test_one_collections_hint_stays_out_of_another_holding_the_same_text(
    make_app: Any,
) -> None:
    app, _ = make_app({"fox.md": ENGLISH}, languageHint="de")
    from gno_contracts.models.collection_add_input import CollectionAddInput

    from gno.services.collections import collection_add

    other = write_tree(app.paths.db_path.parent.parent / "src-plain", {"fox.md": ENGLISH})
    collection_add(app, CollectionAddInput(path=str(other), name="plain"))
    sync(app)
    assert languages(app, "notes") == ["de"]
    assert languages(app, "plain") == ["en"]
    assert languages(app, "plain", lang="en") == ["en"] and not languages(app, "plain", lang="de")
    assert get(app, GetInput(ref="gno://plain/fox.md")).language == "en"


def test_migration_13_puts_back_what_detection_finds(make_app: Any) -> None:
    """An index written before: the hint is in the chunks of the hinted collection's
    documents (shared by the plain one). Opening it runs the step once."""
    from gno.adapters.sqlite.store import SqliteStore

    app, _ = make_app({"fox.md": ENGLISH}, languageHint="de")
    sync(app)
    store = app.store()
    with store.write():
        store.conn.execute("UPDATE content_chunks SET language = 'de'")
        store.set_meta("version", "12")
    app.close()
    reopened = SqliteStore.open(app.paths.db_path)
    try:
        assert reopened.schema_version() >= 13
        languages = {r[0] for r in reopened.conn.execute("SELECT language FROM content_chunks")}
        assert languages == {"en"}
    finally:
        reopened.close()
