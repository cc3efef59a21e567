"""The graph reads' answers kept per index state (gno/services/graph_cache.py): an answer
from the cache is the answer computed afresh, and any change of documents, links,
relations or content-type rules (a sync after an edit, or a row written directly) makes
the next read compute it again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gno_contracts.models.backlinks_input import BacklinksInput
from gno_contracts.models.graph_input import GraphInput
from gno_contracts.models.graph_query_input import GraphQueryInput
from gno_contracts.models.impact_input import ImpactInput
from gno_contracts.models.links_input import LinksInput

from gno.app import App
from gno.services.graph_report import graph_payload
from gno.services.graph_walks import graph_query_payload, impact_payload
from gno.services.links import backlinks_payload, links_payload
from tests.conftest import sync

FILES = {
    "hub.md": "# Hub\n\nSee [[Spoke One]], [two](deep/spoke-two.md) and [[nowhere]].\n",
    "spoke-one.md": "---\ntitle: Spoke One\n---\nFirst spoke. Back to [[hub]].\n",
    "deep/spoke-two.md": "# Spoke Two\n\nSecond spoke, [[Hub]] and [gone](gone.md).\n",
    "a/note.md": "# Note A\n\nOne note.\n",
    "b/note.md": "# Note B\n\nAnother note.\n",
    "asker.md": "# Asker\n\nWhich [[note]] is it? And [[b/note]].\n",
    "needs.md": "---\nrelations:\n  depends_on: [hub.md]\n---\n# Needs\n\nNo link.\n",
}
REFS = [f"gno://notes/{p}" for p in sorted(FILES)]


def _answers(app: App, opened: list[App] | None = None) -> dict[str, Any]:
    """Every graph read of every document, as their payloads, each in a new App (as each
    CLI call is a new process): ``opened`` collects them."""

    def fresh() -> App:
        made = App(app.paths)
        if opened is not None:
            opened.append(made)
        return made

    out: dict[str, Any] = {
        "graph": graph_payload(fresh(), GraphInput()),
        "graph-small": graph_payload(fresh(), GraphInput(limit=2, edgeLimit=1, linkedOnly=False)),
    }
    for ref in REFS:
        out[f"links {ref}"] = links_payload(fresh(), LinksInput(ref=ref))
        out[f"links-wiki {ref}"] = links_payload(fresh(), LinksInput(ref=ref, type="wiki"))
        out[f"backlinks {ref}"] = backlinks_payload(fresh(), BacklinksInput(ref=ref))
        out[f"query {ref}"] = graph_query_payload(fresh(), GraphQueryInput(ref=ref))
        out[f"impact {ref}"] = impact_payload(fresh(), ImpactInput(ref=ref))
    return out


def _entries(app: App) -> list[Path]:
    folder = app.paths.cache_dir / "graph" / app.paths.index_name
    return sorted(folder.glob("*.json")) if folder.is_dir() else []


def _token(app: App) -> bytes | None:
    return App(app.paths).store().graph_state()


def test_cached_answers_equal_fresh_ones_and_are_used(make_app) -> None:
    app, _ = make_app(FILES)
    sync(app)
    first = _answers(app)  # computed, and kept
    kept = _entries(app)
    assert len(kept) == 2 + 5 * len(REFS)
    assert first["links gno://notes/asker.md"]["meta"]["resolvedCount"] == 2
    ambiguous = first["links gno://notes/asker.md"]["links"][0]
    assert ambiguous["targetRef"] == "note" and ambiguous["resolved"]
    readers: list[App] = []
    assert _answers(app, readers) == first  # the same answers, from the files
    assert all(r.store()._projection is None for r in readers)  # no link resolved
    assert _entries(app) == kept


def test_an_edit_and_a_sync_change_the_answer(make_app) -> None:
    app, root = make_app(FILES)
    sync(app)
    before = _answers(app)
    token = _token(app)
    (root / "asker.md").write_text("# Asker\n\nNow only [[Spoke One]].\n")
    (root / "b" / "note.md").write_text("---\ntitle: Renamed Note\n---\nAnother note.\n")
    sync(app)
    assert _token(app) != token
    after = _answers(app)
    assert after != before
    links = after["links gno://notes/asker.md"]["links"]
    assert [item["targetRef"] for item in links] == ["Spoke One"]
    backlinks = after["backlinks gno://notes/spoke-one.md"]["backlinks"]
    assert "gno://notes/asker.md" in [item["sourceUri"] for item in backlinks]
    # and equal to what an index without any kept answer says
    for entry in _entries(app):
        entry.unlink()
    computed: list[App] = []
    assert _answers(app, computed) == after
    assert computed[0].store()._projection is not None  # computed this time
    # only the current state's answers remain (the next write removed the old ones)
    assert all(e.name.startswith(_token(app).hex()) for e in _entries(app))  # type: ignore[union-attr]


def test_every_change_a_graph_read_sees_redraws_the_token(make_app) -> None:
    app, _ = make_app(FILES)
    sync(app)
    conn = App(app.paths).store().conn
    hub = "SELECT id FROM documents WHERE rel_path = 'hub.md'"
    changes = [
        f"UPDATE documents SET title = 'Renamed' WHERE id = ({hub})",
        f"UPDATE documents SET active = 0 WHERE id = ({hub})",
        "UPDATE doc_links SET target_ref_norm = 'b/note' WHERE target_ref_norm = 'note'",
        "DELETE FROM doc_links WHERE link_type = 'markdown'",
        "UPDATE doc_relations SET target_ref = 'asker.md'",
        "INSERT OR REPLACE INTO schema_meta (key, value, updated_at) "
        "VALUES ('content_type_rules', '{}', 'now')",
    ]
    for statement in changes:
        token = _token(app)
        conn.execute(statement)
        assert _token(app) != token, statement
    quiet = [  # nothing a graph read answers from
        f"UPDATE documents SET mirror_hash = mirror_hash WHERE id = ({hub})",
        "INSERT OR REPLACE INTO schema_meta (key, value, updated_at) "
        "VALUES ('retrieval_traces', '{}', 'now')",
    ]
    for statement in quiet:
        token = _token(app)
        conn.execute(statement)
        assert _token(app) == token, statement


def test_a_row_changed_behind_the_cache_changes_the_answer(make_app) -> None:
    app, _ = make_app(FILES)
    sync(app)
    ref = "gno://notes/spoke-one.md"
    before = links_payload(App(app.paths), LinksInput(ref=ref))
    App(app.paths).store().conn.execute(
        "UPDATE documents SET title = 'Hub Renamed' WHERE rel_path = 'hub.md'"
    )
    after = links_payload(App(app.paths), LinksInput(ref=ref))
    assert before["links"][0]["resolvedTitle"] == "Hub"
    assert after["links"][0]["resolvedTitle"] == "Hub Renamed"


def test_damaged_or_foreign_entries_are_not_answers(make_app) -> None:
    app, _ = make_app(FILES)
    sync(app)
    expected = graph_payload(App(app.paths), GraphInput())
    (entry,) = _entries(app)
    entry.write_text('{"key": "[\\"graph\\", {}]", "payload": {"nodes": []}}')  # another key
    assert graph_payload(App(app.paths), GraphInput()) == expected
    entry.write_text("{not json")
    reader = App(app.paths)
    assert graph_payload(reader, GraphInput()) == expected
    assert reader.store()._projection is not None  # computed, not read


def test_an_index_of_migration_10_gets_the_token_and_keeps_its_answers(
    make_app, monkeypatch
) -> None:
    from gno.adapters.sqlite import store as store_module
    from gno.adapters.sqlite.migrations import MIGRATIONS

    with monkeypatch.context() as patched:  # the index as gno wrote it before migration 11
        patched.setattr(store_module, "MIGRATIONS", [m for m in MIGRATIONS if m[0] < 11])
        app, root = make_app(FILES)
        sync(app)
        old = App(app.paths)
        assert old.store().schema_version() == 10 and old.store().graph_state() is None
        before = _answers(app)  # answered without a cache
        assert _entries(app) == []
        old.close()
    migrated = App(app.paths)
    assert migrated.store().schema_version() == max(v for v, _ in MIGRATIONS)
    assert migrated.store().graph_state()
    assert _answers(app) == before
    assert len(_entries(app)) == 2 + 5 * len(REFS)
    (root / "hub.md").write_text("# Hub\n\nOnly [[Spoke One]] now.\n")
    sync(migrated)
    links = links_payload(App(app.paths), LinksInput(ref="gno://notes/hub.md"))
    assert [item["targetRef"] for item in links["links"]] == ["Spoke One"]


def test_a_store_holding_the_projection_answers_from_memory(make_app) -> None:
    """A resident server's store keeps the full projection: one document's links or a walk
    over it costs less than reading a file, so no file is read or written for them."""
    app, _ = make_app(FILES)
    sync(app)
    expected = _answers(app)
    for entry in _entries(app):
        entry.unlink()
    resident = App(app.paths)
    resident.store().projection()
    assert resident.store().projection_kept()
    ref = "gno://notes/hub.md"
    assert links_payload(resident, LinksInput(ref=ref)) == expected[f"links {ref}"]
    assert graph_query_payload(resident, GraphQueryInput(ref=ref)) == expected[f"query {ref}"]
    assert impact_payload(resident, ImpactInput(ref=ref)) == expected[f"impact {ref}"]
    assert _entries(app) == []
    assert graph_payload(resident, GraphInput()) == expected["graph"]  # the report is kept
    assert len(_entries(app)) == 1


def test_the_kept_answers_stay_within_their_bounds(make_app, monkeypatch) -> None:
    import gno.services.graph_cache as graph_cache

    app, _ = make_app(FILES)
    sync(app)
    monkeypatch.setattr(graph_cache, "MAX_ENTRIES", 3)
    for ref in REFS:
        links_payload(App(app.paths), LinksInput(ref=ref))
        assert len(_entries(app)) <= 3
    assert len(_entries(app)) == 3
    newest = {e.name for e in _entries(app)}
    graph = graph_payload(App(app.paths), GraphInput())
    size = len(next(e for e in _entries(app) if e.name not in newest).read_bytes())
    monkeypatch.setattr(graph_cache, "MAX_TOTAL_BYTES", size + 10)  # room for one graph only
    graph_payload(App(app.paths), GraphInput(limit=3))
    assert len(_entries(app)) == 1  # every older answer made room
    monkeypatch.setattr(graph_cache, "MAX_ENTRY_BYTES", 10)  # too large to keep, or to read
    assert graph_payload(App(app.paths), GraphInput()) == graph
    assert graph_payload(App(app.paths), GraphInput(limit=3)) != graph
    assert len(_entries(app)) == 1


def test_a_document_indexed_while_its_ref_resolves_is_no_answer_for_other_refs(
    make_app, monkeypatch
) -> None:
    """A ref resolved before another writer's sync named no document; the answer, computed
    after it, did. Kept under the key of that earlier resolution ("no document"), it was
    every unknown ref's answer until the index changed again: `gno links notes/typo.md`
    answered new.md's links. The key is read in the state the answer is computed in."""
    import pytest

    from gno.errors import DocumentNotFoundError

    app, root = make_app(FILES)
    sync(app)
    racing = App(app.paths)
    store = racing.store()
    read_token = store.graph_state

    def token_after_a_sync() -> bytes | None:
        if not (root / "new.md").exists():  # another process indexes new.md just now
            (root / "new.md").write_text("# New\n\nSee [[hub]].\n", encoding="utf-8")
            sync(App(app.paths))
        return read_token()

    monkeypatch.setattr(store, "graph_state", token_after_a_sync)
    answer = links_payload(racing, LinksInput(ref="notes/new.md"))
    assert answer["meta"]["uri"] == "gno://notes/new.md"
    for ref in ("notes/typo.md", "gno://notes/gone/nowhere.md"):
        with pytest.raises(DocumentNotFoundError):
            links_payload(App(app.paths), LinksInput(ref=ref))
