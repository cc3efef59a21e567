"""A sync (`gno update`) and a capture racing on the same new file must journal one
``create``, not one from each path.

Each side takes a snapshot of the paths that have a row before it writes (the sync's
``doc_states``); the journal used to trust that snapshot inside the later write
transaction, so the side that wrote second took the other's fresh row for a new path.
Real threads, each with its own App and so its own SQLite connection on one real index;
events force the one interleaving that lost it, and the test checks it happened: the
second writer's snapshot lacked the path and the first writer's row was committed before
the second went on."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from gno_contracts.models.capture_input import CaptureInput
from gno_contracts.models.changes_input import ChangesInput

import gno.services.capture as capture_module
from gno.app import App
from gno.paths import resolve_paths
from gno.services.capture import capture
from gno.services.journal import changes
from tests.conftest import sync
from tests.services.test_journal import replay

NEW = "new.md"
WAIT = 60  # seconds an event may take on a loaded machine; only a hang reaches it


def _wait(event: threading.Event) -> None:
    assert event.wait(WAIT), "the other side never reached its barrier"


def _pause_after_snapshot(app: App, paused: threading.Event, go_on: threading.Event) -> list[bool]:
    """Stop ``app``'s sync just after it read which paths have a row; what it saw of NEW."""
    store = app.store()
    real = store.doc_states
    seen: list[bool] = []

    def doc_states(collection: str) -> Any:
        states = real(collection)
        seen.append(NEW in states)
        paused.set()
        _wait(go_on)
        return states

    store.doc_states = doc_states  # type: ignore[method-assign]
    return seen


def _committed() -> bool:
    """NEW has an active row, read through a connection of its own (what is committed)."""
    reader = App(resolve_paths())
    try:
        doc = reader.store().document_by_path("notes", NEW)
        return doc is not None and doc.active
    finally:
        reader.close()


def _assert_one_create_and_replay(app: App) -> None:
    entries = changes(app, ChangesInput(limit=1000, collection="notes")).changes
    # The second writer found the same bytes already indexed: no event of its own.
    assert [(c.kind.value, c.current.relPath) for c in entries] == [
        ("create", "a.md"),
        ("create", NEW),
    ]
    active = dict(
        app.store()
        .conn.execute(
            "SELECT rel_path, docid FROM documents WHERE active = 1 AND collection = 'notes'"
        )
        .fetchall()
    )
    assert replay(entries) == active


def test_capture_lands_between_the_syncs_snapshot_and_its_write(
    make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    app, _ = make_app({"a.md": "# A\n"})
    sync(app)
    writer = App(resolve_paths())  # the capture's client: its own connection
    file_written, snapshot, captured = threading.Event(), threading.Event(), threading.Event()
    seen = _pause_after_snapshot(app, snapshot, captured)
    real_sync_now = capture_module.sync_now
    committed: list[bool] = []

    def sync_now(*args: Any) -> Any:  # the capture: file written, its row not yet
        file_written.set()
        _wait(snapshot)
        doc = real_sync_now(*args)
        committed.append(_committed())  # a third connection sees it
        captured.set()
        return doc

    monkeypatch.setattr(capture_module, "sync_now", sync_now)

    def update() -> Any:
        _wait(file_written)  # the sync's walk must find the capture's file
        return sync(app)

    try:
        with ThreadPoolExecutor(2) as pool:
            updating = pool.submit(update)
            receipt = pool.submit(
                capture, writer, CaptureInput(collection="notes", path=NEW, content="zebra\n")
            ).result()
            result = updating.result()
        assert receipt.created and seen == [False] and committed == [True]
        # The sync planned NEW as a new file from its snapshot; at its commit the capture's
        # row was there, so it wrote nothing, and reports no add of its own (it reported
        # the capture's add as its own too).
        assert result.collections[0].filesAdded == 0
        assert result.collections[0].filesUnchanged == 2
        _assert_one_create_and_replay(app)
    finally:
        writer.close()


def test_sync_lands_between_the_captures_snapshot_and_its_write(make_app: Any) -> None:
    app, _ = make_app({"a.md": "# A\n"})
    sync(app)
    writer = App(resolve_paths())
    snapshot, synced = threading.Event(), threading.Event()
    seen = _pause_after_snapshot(writer, snapshot, synced)  # the capture's inline sync
    committed: list[bool] = []

    def update() -> Any:
        _wait(snapshot)  # the capture wrote its file and read the index: no row for NEW
        result = sync(app)
        committed.append(_committed())
        synced.set()
        return result

    try:
        with ThreadPoolExecutor(2) as pool:
            updating = pool.submit(update)
            receipt = pool.submit(
                capture, writer, CaptureInput(collection="notes", path=NEW, content="zebra\n")
            ).result()
            result = updating.result()
        assert receipt.created and seen == [False] and committed == [True]
        assert result.collections[0].filesAdded == 1  # the sync created it, from the walk
        _assert_one_create_and_replay(app)
    finally:
        writer.close()


def test_a_sync_nobody_races_reads_no_row_for_a_new_file(
    make_app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check costs one pragma per transaction: alone, a sync still trusts its read of
    which paths have a row, and a new file's write reads nothing back (bench/graph.py)."""
    from gno.adapters.sqlite.journal import DocumentJournal

    app, root = make_app({f"n{i}.md": f"# N{i}\n" for i in range(5)})
    reads: list[str] = []
    real = DocumentJournal._prior

    def spy(self: DocumentJournal, where: str, params: tuple[Any, ...]) -> Any:
        reads.append(where)
        return real(self, where, params)

    monkeypatch.setattr(DocumentJournal, "_prior", spy)
    assert sync(app).collections[0].filesAdded == 5
    assert reads == []
    (root / "n0.md").write_text("# N0 again\n")
    sync(app)
    assert reads == ["collection = ? AND rel_path = ?"]  # a known path: its row is read
