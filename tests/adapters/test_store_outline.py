"""``outline_fts`` (migration 12, gno.core.outline): an index written before it gets the table
filled from its stored mirrors, with the same rows and BM25 ranks the writer gives a new
index; a page's outline holds its title, description and headings, not its body."""

from __future__ import annotations

from gno.adapters.sqlite import store as store_module
from gno.adapters.sqlite.migrations import MIGRATIONS
from gno.app import App
from gno.paths import resolve_paths
from tests.conftest import sync

NOTES = {
    "demo/system.md": "---\ntitle: System Requirements\nlinkTitle: System\ndescription: "
    "What the demo shop needs\n---\n\n# Memory\n\nFour cores.\n",
    "blog/post.md": "# A post\n\nThe demo shop ran on a small machine with little memory.\n",
    "cjk.md": "# メモリの設定\n\n本文です。\n",
}
MATCHES = ['"memory"', '"demo" OR "shop"', '"system"', '"blog"', '"メモ"']


def outline_answers(app: App) -> dict[str, list[tuple[str, float]]]:
    store = app.store()
    out = {}
    for match in MATCHES:
        hits = store.outline_candidates(match, 10)
        docs = store.documents_by_ids([i for i, _ in hits])
        out[match] = [(docs[i].rel_path, round(score, 9)) for i, score in hits]
    return out


def test_an_index_from_before_migration_12_gets_its_outline(make_app, monkeypatch) -> None:
    with monkeypatch.context() as patched:  # the index as gno wrote it before migration 12
        patched.setattr(store_module, "MIGRATIONS", [m for m in MIGRATIONS if m[0] < 12])
        app, _ = make_app(NOTES)
        sync(app)
        assert app.store().schema_version() == 11 and not app.store().outline_ready()
        app.close()

    migrated = App(resolve_paths())
    assert migrated.store().schema_version() == max(v for v, _ in MIGRATIONS)
    before = outline_answers(migrated)
    assert [p for p, _ in before['"memory"']] == ["demo/system.md"]  # a heading, not a body
    assert [p for p, _ in before['"demo" OR "shop"']] == ["demo/system.md"]  # description
    assert [p for p, _ in before['"system"']] == ["demo/system.md"]  # title and linkTitle
    assert [p for p, _ in before['"blog"']] == ["blog/post.md"]  # the path
    assert [p for p, _ in before['"メモ"']] == ["cjk.md"]  # CJK bigrams, as in documents_fts
    migrated.close()

    migrated.paths.db_path.unlink()  # a new index: the writer fills outline_fts
    fresh = App(resolve_paths())
    fresh.store(create=True)
    sync(fresh)
    assert outline_answers(fresh) == before
    fresh.close()
