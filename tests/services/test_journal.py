"""The knowledge delta journal on real indexes built by real syncs: lifecycle events,
renames, retention, cursors, ``changes`` and ``diff``."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from gno_contracts.models.changes_input import ChangesInput
from gno_contracts.models.diff_input import DiffInput
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gno.adapters.sqlite import journal as journal_store
from gno.core import journal as j
from gno.errors import NotFoundError, ValidationError
from gno.services.journal import changes, diff, diff_payload
from tests.conftest import sync

FILES = {
    "a.md": "# A\n\nSee [[b]] and [c](c.md).\n",
    "b.md": "---\ndate: 2024-01-01\nrelations:\n  depends_on: [a]\n---\n# B\n\n## Part\n",
    "c.md": "# C\n",
}


def _all(app) -> list:
    return changes(app, ChangesInput(limit=1000)).changes


def _kinds(app) -> list[tuple[str, str | None, str | None]]:
    return [
        (c.kind.value, c.previous and c.previous.relPath, c.current and c.current.relPath)
        for c in _all(app)
    ]


def test_lifecycle_events_in_order(make_app) -> None:
    app, root = make_app(FILES)
    sync(app)
    assert _kinds(app) == [("create", None, p) for p in ("a.md", "b.md", "c.md")]
    (root / "a.md").write_text("# A\n\n## New\n\nSee [[b]] only.\n")
    (root / "c.md").unlink()
    sync(app)
    (root / "c.md").write_text("# C\n")
    sync(app)
    assert _kinds(app)[3:] == [
        ("update", "a.md", "a.md"),
        ("inactivate", "c.md", "c.md"),
        ("reactivate", "c.md", "c.md"),
    ]
    update = _all(app)[3]
    assert update.structureDelta.headings.added[0].root == "## New"
    assert [x.root for x in update.structureDelta.links.removed] == ["markdown:c.md"]
    assert [x.root for x in update.structureDelta.typedEdges.removed] == ["related_to:c.md"]
    assert update.previous.sourceHash != update.current.sourceHash
    inactivate = _all(app)[4]
    assert inactivate.previous.active and not inactivate.current.active


def test_unchanged_syncs_add_nothing(make_app) -> None:
    app, root = make_app(FILES)
    sync(app)
    sync(app)
    (root / "a.md").touch()  # new mtime, same bytes
    sync(app)
    assert len(_all(app)) == 3


def test_rename_is_one_event_not_delete_and_create(make_app) -> None:
    app, root = make_app(FILES)
    sync(app)
    (root / "c.md").rename(root / "moved.md")
    sync(app)
    last = _all(app)[-1]
    assert _kinds(app)[-1] == ("rename", "c.md", "moved.md")
    assert last.previous.sourceHash == last.current.sourceHash
    assert len(_all(app)) == 4  # the create of moved.md was replaced by the rename


def test_copy_is_a_create_not_a_rename(make_app) -> None:
    app, root = make_app(FILES)
    sync(app)
    shutil.copy(root / "c.md", root / "copy.md")
    sync(app)
    assert _kinds(app)[-1] == ("create", None, "copy.md")


def test_dates_and_relations_are_structural(make_app) -> None:
    app, root = make_app(FILES)
    sync(app)
    first = _all(app)[1].structureDelta
    assert [x.root for x in first.dates.added] == ["date=2024-01-01T00:00:00.000Z"]
    assert [x.root for x in first.typedEdges.added] == ["depends_on:a"]
    (root / "b.md").write_text("---\ndate: 2024-02-01\n---\n# B\n")
    sync(app)
    delta = _all(app)[-1].structureDelta
    assert [x.root for x in delta.dates.changed] == ["date=2024-02-01T00:00:00.000Z"]
    assert [x.root for x in delta.typedEdges.removed] == ["depends_on:a"]
    assert [x.root for x in delta.headings.removed] == ["## Part"]


def test_pages_and_cursors(make_app) -> None:
    app, _ = make_app({f"n{i:02}.md": f"# N{i}\n" for i in range(7)})
    sync(app)
    first = changes(app, ChangesInput(limit=3))
    assert first.page.truncated and first.page.nextCursor is not None
    second = changes(app, ChangesInput(limit=3, since=first.page.nextCursor.root))
    rest = changes(app, ChangesInput(limit=3, since=second.page.nextCursor.root))
    paths = [c.current.relPath for page in (first, second, rest) for c in page.changes]
    assert paths == [f"n{i:02}.md" for i in range(7)]
    assert not rest.page.truncated and rest.page.nextCursor is None
    latest = changes(app, ChangesInput(since=first.page.latestCursor))
    assert latest.changes == [] and not latest.page.cursorExpired


def test_since_time_and_duration(make_app) -> None:
    app, _ = make_app(FILES)
    sync(app)
    assert len(changes(app, ChangesInput(since="2h")).changes) == 3
    assert changes(app, ChangesInput(since="2999-01-01")).changes == []
    with pytest.raises(ValidationError):
        changes(app, ChangesInput(since="not a time"))


def test_collection_filter(make_app, tmp_path: Path) -> None:
    app, _ = make_app(FILES)
    sync(app)
    assert len(changes(app, ChangesInput(collection="notes")).changes) == 3
    with pytest.raises(NotFoundError):
        changes(app, ChangesInput(collection="nope"))


def test_retention_by_count_expires_old_cursors(make_app, monkeypatch) -> None:
    monkeypatch.setattr(j, "RETENTION_ENTRIES", 4)
    app, _ = make_app({f"n{i}.md": f"# N{i}\n" for i in range(6)})
    sync(app)
    state = app.store().journal_state()
    assert state.entries == 4 and state.floor == 2 and state.last_sequence == 6
    page = changes(app, ChangesInput())
    assert [c.current.relPath for c in page.changes] == ["n2.md", "n3.md", "n4.md", "n5.md"]
    assert page.page.retentionTruncated
    expired = changes(app, ChangesInput(since=j.encode_cursor(1)))
    assert expired.page.cursorExpired and expired.changes == [] and expired.page.nextCursor is None
    assert diff(app, DiffInput(ref="notes/n0.md", change=j.change_id(1))).status.value == "expired"
    unavailable = diff(app, DiffInput(ref="notes/n0.md"))
    assert unavailable.status.value == "unavailable"
    assert unavailable.history.reason.value == "no_retained_change"


def test_retention_by_age(make_app) -> None:
    app, root = make_app(FILES)
    sync(app)
    store = app.store()
    with store.write():
        store.conn.execute("UPDATE document_changes SET observed_ms = 946684800000")  # 2000
    store._journal_oldest = None  # remembered per floor; this test aged the rows behind its back
    (root / "d.md").write_text("# D\n")
    sync(app)
    assert [c.current.relPath for c in _all(app)] == ["d.md"]
    assert store.journal_state().floor == 3


def test_retention_by_bytes(make_app, monkeypatch) -> None:
    monkeypatch.setattr(j, "RETENTION_BYTES", 500)
    app, _ = make_app({f"n{i}.md": f"# N{i}\n" for i in range(8)})
    sync(app)
    state = app.store().journal_state()
    assert state.bytes <= 500 and state.entries < 8 and state.floor > 0
    (total,) = app.store().conn.execute("SELECT sum(bytes) FROM document_changes").fetchone()
    assert total == state.bytes


def test_diff_statuses(make_app) -> None:
    app, root = make_app(FILES)
    sync(app)
    heads = "".join(f"## H{i}\n\n" for i in range(20))
    (root / "a.md").write_text("# A\n\n" + heads)
    sync(app)
    partial = diff(app, DiffInput(ref="notes/a.md"))
    assert partial.status.value == "available"
    assert partial.history.status.value == "partial"
    assert partial.history.reason.value == "structure_delta_truncated"
    assert partial.change.structureDelta.truncated
    assert partial.content.status == "not_retained"
    create_of_b = _all(app)[1].id
    other = diff(app, DiffInput(ref="notes/a.md", change=create_of_b))
    assert (other.status.value, other.history.reason.value) == ("unavailable", "change_not_found")
    assert app.store().journal_state().floor == 0  # nothing ever expired: id 0 was never issued
    zero = diff(app, DiffInput(ref="notes/a.md", change="gno-change-id-v1.0"))
    assert (zero.status.value, zero.history.reason.value) == ("unavailable", "change_not_found")
    full = diff(app, DiffInput(ref="notes/b.md", change=create_of_b))
    assert full.history.status.value == "available" and full.history.reason is None
    with pytest.raises(NotFoundError):
        diff(app, DiffInput(ref="notes/missing.md"))
    with pytest.raises(ValidationError):
        diff(app, DiffInput(ref="notes/a.md", change="bogus"))


def test_diff_of_a_deleted_document(make_app) -> None:
    app, root = make_app(FILES)
    sync(app)
    (root / "c.md").unlink()
    sync(app)
    gone = diff(app, DiffInput(ref="notes/c.md"))
    assert gone.status.value == "available" and gone.change.kind.value == "inactivate"
    assert gone.document.active is False


def test_diff_by_docid_finds_a_deleted_document_as_by_path(make_app) -> None:
    """``diff #docid`` looked among active documents only: NOT_FOUND for the removed file
    whose path ``diff`` found with its ``inactivate`` entry. The CLI, REST and MCP answer
    ``diff_payload``; an identical copy still active is the one its docid names first."""
    app, root = make_app(FILES | {"copy/c.md": FILES["c.md"]})
    sync(app)
    docid = diff(app, DiffInput(ref="notes/c.md")).document.id
    (root / "c.md").unlink()
    sync(app)
    assert diff_payload(app, DiffInput(ref=docid))["document"]["relPath"] == "copy/c.md"
    (root / "copy/c.md").unlink()
    sync(app)
    by_docid = diff_payload(app, DiffInput(ref=docid))
    assert by_docid == diff_payload(app, DiffInput(ref="notes/c.md"))
    assert by_docid["document"]["active"] is False
    assert by_docid["change"]["kind"] == "inactivate" and by_docid["status"] == "available"


# ------------------------------------------------------------------ replay property

NAMES = ["a.md", "b.md", "sub/c.md"]
BODIES = ["# One\n", "# Two\n\n[[a]]\n", "# Three\n"]
operation = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(NAMES), st.sampled_from(BODIES)),
    st.tuples(st.just("delete"), st.sampled_from(NAMES), st.just("")),
    st.tuples(st.just("move"), st.sampled_from(NAMES), st.sampled_from(NAMES)),
)


def replay(entries: list) -> dict[str, str]:
    """Active documents (path -> docid) rebuilt from the journal alone."""
    state: dict[str, str] = {}
    for c in entries:
        if c.kind.value == "rename":
            state.pop(c.previous.relPath, None)
        if c.kind.value == "inactivate":
            state.pop(c.previous.relPath, None)
        else:
            state[c.current.relPath] = c.current.docid
    return state


@settings(
    max_examples=15,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(st.lists(st.lists(operation, min_size=1, max_size=4), min_size=1, max_size=4))
def test_replaying_the_journal_reproduces_the_active_documents(make_app, rounds) -> None:
    app, root = make_app({"a.md": "# One\n"}, name=f"r{abs(hash(str(rounds))) % 10**8}")
    sync(app)
    for ops in rounds:
        for op, name, arg in ops:
            path = root / name
            if op == "write":
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(arg)
            elif op == "delete" and path.exists():
                path.unlink()
            elif op == "move" and path.exists() and name != arg:
                (root / arg).parent.mkdir(parents=True, exist_ok=True)
                path.replace(root / arg)
        sync(app)
        store = app.store()
        active = dict(
            store.conn.execute(
                "SELECT rel_path, docid FROM documents WHERE active = 1 AND collection = ?",
                (app.config.collections[-1].name,),
            ).fetchall()
        )
        entries = changes(app, ChangesInput(limit=1000, collection=app.config.collections[-1].name))
        assert replay(entries.changes) == active


def test_the_hook_leaves_a_failed_write_unjournaled(make_app, monkeypatch) -> None:
    """An event commits with its document change or not at all."""
    app, root = make_app(FILES)
    sync(app)
    (root / "a.md").write_text("# A changed\n")

    def boom(self, *args) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(journal_store.DocumentJournal, "save_relations", boom)
    assert sync(app).interrupted  # Ctrl-C inside the batch that writes a.md
    monkeypatch.undo()
    assert app.store().document_by_path("notes", "a.md").title == "A"  # rolled back
    assert len(_all(app)) == 3  # and so was its journal row
    _assert_state_counts_rows(app)  # the rolled-back append left nothing pending either
    sync(app)
    assert _kinds(app)[-1] == ("update", "a.md", "a.md")
    _assert_state_counts_rows(app)


def test_a_sync_lets_go_of_its_paths_however_it_ends(make_app, monkeypatch) -> None:
    """A sync's paths and creates live as long as the sync: a server's open store would
    otherwise keep a collection's every path until the next sync."""
    app, root = make_app(FILES)
    store = app.store()
    seen = []
    prior = journal_store.DocumentJournal.journal_prior

    def spy(self, *args):  # each write asks for the row it replaces first
        seen.append((self._journal_known, dict(self._journal_creates)))
        return prior(self, *args)

    monkeypatch.setattr(journal_store.DocumentJournal, "journal_prior", spy)
    sync(app)
    assert seen[-1][0] == ("notes", set()) and len(seen[-1][1]) == 2  # held while it ran
    assert (store._journal_known, store._journal_creates) == (None, {})
    (root / "d.md").write_text("# D\n")

    def boom(self, *args) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(journal_store.DocumentJournal, "save_relations", boom)
    assert sync(app).interrupted
    assert seen[-1][0] == ("notes", {"a.md", "b.md", "c.md"})
    assert (store._journal_known, store._journal_creates) == (None, {})


def _assert_state_counts_rows(app) -> None:
    state = app.store().journal_state()
    rows = (
        app.store()
        .conn.execute(
            "SELECT count(*), coalesce(sum(bytes), 0), coalesce(max(sequence), 0) FROM document_changes"
        )
        .fetchone()
    )
    assert (state.entries, state.bytes, state.last_sequence) == tuple(rows)


def test_the_state_row_is_written_once_per_commit(make_app) -> None:
    """A sync of many documents folds its appends into one state update before COMMIT
    (a row update per document was a third of the journal's cost on a full index)."""
    app, root = make_app({f"n{i}.md": f"# N{i}\n\nSee [[n{i + 1}]].\n" for i in range(40)})
    store = app.store()
    store.conn.execute("CREATE TEMP TABLE state_writes (n INTEGER)")
    store.conn.execute(
        "CREATE TEMP TRIGGER count_state_writes AFTER UPDATE ON document_change_journal_state "
        "BEGIN INSERT INTO state_writes VALUES (1); END"
    )
    sync(app)
    (writes,) = store.conn.execute("SELECT count(*) FROM state_writes").fetchone()
    assert writes == 1
    _assert_state_counts_rows(app)
    assert store.journal_state().last_sequence == 40
    (root / "n3.md").rename(root / "moved.md")  # a rename drops the create it replaces
    (root / "n7.md").unlink()
    sync(app)
    _assert_state_counts_rows(app)
    assert [c.kind.value for c in _all(app)][40:] == ["rename", "inactivate"]


def test_paths_sync_journals_edits_and_removals(make_app) -> None:
    app, root = make_app(FILES)
    sync(app)
    (root / "a.md").write_text("# A\n\n## Later\n")
    (root / "c.md").unlink()
    sync(app, collection="notes", paths=["a.md", "c.md"])
    assert _kinds(app)[3:] == [("update", "a.md", "a.md"), ("inactivate", "c.md", "c.md")]


def test_removing_a_collection_inactivates_its_documents(make_app) -> None:
    from gno_contracts.models.collection_remove_input import CollectionRemoveInput

    from gno.services.collections import collection_remove

    app, _ = make_app(FILES)
    sync(app)
    collection_remove(app, CollectionRemoveInput(collection="notes"))
    app.store()  # the config mirror runs and soft-deletes the collection's documents
    kinds = [c.kind.value for c in changes(app, ChangesInput(limit=1000)).changes]
    assert kinds == ["create"] * 3 + ["inactivate"] * 3


def test_numbers_are_never_reused_when_retention_empties_the_journal(make_app, monkeypatch) -> None:
    """A batch numbers its entries past AUTOINCREMENT's high-water mark, not past the
    largest retained row: with every row pruned, the next entry still gets a new number."""
    monkeypatch.setattr(j, "RETENTION_BYTES", 1)  # every commit prunes all it wrote
    app, root = make_app(FILES)
    sync(app)
    store = app.store()
    assert store.conn.execute("SELECT count(*) FROM document_changes").fetchone()[0] == 0
    assert store.journal_state().last_sequence == store.journal_state().floor == 3
    monkeypatch.undo()
    (root / "d.md").write_text("# D\n")
    sync(app)
    assert [(c.id, c.current.relPath) for c in _all(app)] == [(j.change_id(4), "d.md")]
