"""Collection changes while a sync runs (issue 10, item 7) and two writers on one
data directory: no ghost documents (active under a collection the config no longer
has), no duplicates, every listed URI opens, and the next update converges."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

import apsw
import pytest
from gno_contracts.models.collection_add_input import CollectionAddInput
from gno_contracts.models.collection_remove_input import CollectionRemoveInput
from gno_contracts.models.collection_rename_input import CollectionRenameInput

from gno.app import App
from gno.paths import resolve_paths
from gno.services import collections as service
from tests.crash import harness as h
from tests.index_consistency import assert_consistent

pytestmark = pytest.mark.slow
FILES = 1000


@pytest.fixture(autouse=True)
def real_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    # Two processes writing take turns on SQLite's write lock: give them gno's default wait.
    monkeypatch.delenv("GNO_BUSY_TIMEOUT_MS")


def _indexed_names(root: Path, collection: str) -> set[tuple[str, str]]:
    return {(collection, p.relative_to(root).as_posix()) for p in root.rglob("*.md")}


def change(operation: str, inp: object) -> None:
    """A collection change made by this process (another one than the syncing `gno`);
    in-process because a CLI start (~1 s) can miss a sync of a few seconds."""
    app = App(resolve_paths())
    try:
        getattr(service, operation)(app, inp)
    finally:
        app.close()


def _start_update() -> subprocess.Popen[str]:
    proc = subprocess.Popen(
        [*h.GNO, "update", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    h.wait_until(lambda: h.count_docs() > 0 or proc.poll() is not None, "a first batch")
    assert proc.poll() is None, "the update ended before the config change"
    return proc


def _finish(proc: subprocess.Popen[str]) -> dict:
    out, err = proc.communicate(timeout=h.DEADLINE * 3)
    assert proc.returncode == 0, err
    return json.loads(out)


def assert_no_ghosts(collections: set[str]) -> None:
    """Active documents belong to configured collections, once each, and open by URI."""
    active = h.active_paths()
    assert {c for c, _ in active} <= collections, Counter(c for c, _ in active)
    assert not [k for k, n in Counter(active).items() if n > 1]
    uris = h.active_uris()
    assert len(uris) == len(set(uris)) == len(active)
    for uri in uris[:: max(1, len(uris) // 3)][:3]:  # a sample: each `gno get` is a process
        assert h.run("get", uri, "--json").returncode == 0
    hits = json.loads(h.run("search", "body", "--json", "-n", "100").stdout)["results"]
    assert len({r["uri"] for r in hits}) == len(hits)
    assert {r["uri"].split("/")[2] for r in hits} <= collections


def _corpus(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    h.write_corpus(root, FILES)
    h.run("init", str(root), "--name", "notes")
    return root


def test_rename_during_update(tmp_path: Path) -> None:
    root = _corpus(tmp_path)
    proc = _start_update()
    change("collection_rename", CollectionRenameInput(oldName="notes", newName="docs"))
    assert proc.poll() is None, "the rename did not happen mid-sync"
    codes = [e["code"] for c in _finish(proc)["collections"] for e in c["errors"]]
    assert codes == ["COLLECTION_CHANGED"]  # the sync saw it and stopped
    assert_no_ghosts({"docs"})
    h.run("update")
    assert sorted(h.active_paths()) == sorted(_indexed_names(root, "docs"))
    assert_no_ghosts({"docs"})
    assert_consistent(h.db_path())


def test_remove_during_update_then_cleanup_deletes_its_documents(tmp_path: Path) -> None:
    _corpus(tmp_path)
    other = tmp_path / "other"
    h.write_corpus(other, 3, start=90_000)
    h.run("collection", "add", str(other), "--name", "other")
    proc = _start_update()
    change("collection_remove", CollectionRemoveInput(collection="notes"))
    assert proc.poll() is None, "the remove did not happen mid-sync"
    _finish(proc)
    assert_no_ghosts({"other"})
    h.run("update")
    assert_no_ghosts({"other"})
    assert sorted(h.active_paths()) == sorted(_indexed_names(other, "other"))
    cleaned = json.loads(h.run("cleanup", "--json").stdout)
    assert cleaned["deletedDocuments"] > 0
    assert h.count_docs(active_only=False) == 3  # only the remaining collection's rows
    assert_consistent(h.db_path())


def test_add_during_update(tmp_path: Path) -> None:
    root = _corpus(tmp_path)
    extra = tmp_path / "extra"
    h.write_corpus(extra, 60, start=50_000)
    proc = _start_update()
    change("collection_add", CollectionAddInput(path=str(extra), name="extra"))
    assert proc.poll() is None, "the add did not happen mid-sync"
    _finish(proc)
    assert_no_ghosts({"notes", "extra"})
    h.run("update")
    expected = _indexed_names(root, "notes") | _indexed_names(extra, "extra")
    assert sorted(h.active_paths()) == sorted(expected)
    assert_consistent(h.db_path())


def test_two_updates_at_once_converge(tmp_path: Path) -> None:
    root = _corpus(tmp_path)
    procs = [
        subprocess.Popen(
            [*h.GNO, "update", "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    h.wait_until(lambda: h.count_docs() > 0, "a first batch")
    assert all(p.poll() is None for p in procs), "the two updates did not overlap"
    for proc in procs:
        _finish(proc)
    assert sorted(h.active_paths()) == sorted(_indexed_names(root, "notes"))
    assert_no_ghosts({"notes"})
    assert_consistent(h.db_path())


def test_cli_rename_while_the_server_syncs(tmp_path: Path) -> None:
    root = _corpus(tmp_path)
    server = h.Server("--no-watch")
    try:
        job = server.sync()
        h.wait_until(lambda: h.count_docs() > 0, "a first batch")
        change("collection_rename", CollectionRenameInput(oldName="notes", newName="docs"))
        # Proof the rename landed mid-sync: the job stopped on it with files left to add. (The
        # job's status right after the rename said nothing: the sync stops within a batch.)
        (stopped,) = server.wait_job(job)["result"]["collections"]
        assert [e["code"] for e in stopped["errors"]] == ["COLLECTION_CHANGED"], stopped
        assert stopped["filesAdded"] < FILES, "not mid-sync"
        assert_no_ghosts({"docs"})
        final = server.wait_job(server.sync())
        assert final["status"] == "completed", final
        assert sorted(h.active_paths()) == sorted(_indexed_names(root, "docs"))
        hits = server.http.post("/api/search", json={"query": "body", "limit": 100}).json()
        uris = [r["uri"] for r in hits["results"]]
        assert len(uris) == len(set(uris)) and all(u.startswith("gno://docs/") for u in uris)
    finally:
        server.stop()
    assert_consistent(h.db_path())


def test_update_and_cleanup_repair_documents_of_unconfigured_collections(tmp_path: Path) -> None:
    """Rows left under a name the config does not have (what a crash between a rename's
    row update and its index.yml write, or an older gno, leaves): `gno update` takes them
    out of search, `gno cleanup` deletes them."""
    root = tmp_path / "notes"
    h.write_corpus(root, 20)
    h.run("init", str(root), "--name", "notes")
    h.run("update")
    conn = apsw.Connection(str(h.db_path()))
    conn.execute("UPDATE documents SET collection = 'gone' WHERE rel_path < 'n00010.md'")
    conn.close()
    h.run("update")  # re-adds the ten files under notes; the 'gone' rows must not stay active
    assert_no_ghosts({"notes"})
    assert sorted(h.active_paths()) == sorted(_indexed_names(root, "notes"))
    assert json.loads(h.run("cleanup", "--json").stdout)["deletedDocuments"] == 10
    assert h.count_docs(active_only=False) == 20
    assert_consistent(h.db_path())
