"""Concurrent mixed requests against a real `gno serve` with the file watcher on:
no 5xx, no duplicate or ghost result, and the index converges to the files on disk."""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest
from gno_contracts.models.collection_rename_input import CollectionRenameInput

from gno.app import App
from gno.paths import resolve_paths
from gno.services.collections import collection_rename
from tests.concurrency.load import run_load
from tests.concurrency.test_config_vs_sync import assert_no_ghosts
from tests.crash import harness as h
from tests.index_consistency import assert_consistent

pytestmark = pytest.mark.slow


@pytest.fixture(autouse=True)
def real_busy_timeout(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("GNO_BUSY_TIMEOUT_MS")


def _rename(old: str, new: str) -> None:
    app = App(resolve_paths())
    try:
        collection_rename(app, CollectionRenameInput(oldName=old, newName=new))
    finally:
        app.close()


def _on_disk(root: Path, collection: str) -> list[tuple[str, str]]:
    return sorted((collection, p.name) for p in root.glob("*.md"))


def _mixed_load(tmp_path: Path, requests: int) -> None:
    seed = int(os.environ.get("GNO_SOAK_SEED") or random.randrange(2**32))
    root = tmp_path / "notes"
    h.write_corpus(root, 300)
    h.run("init", str(root), "--name", "notes")
    h.run("update")
    server = h.Server()
    try:
        log = run_load(
            server.url,
            root,
            requests,
            {"notes", "docs"},
            random.Random(seed),
            midway=lambda: _rename("notes", "docs"),
        )
        sys.stderr.write(
            f"mixed load (GNO_SOAK_SEED={seed}): {log.tried} requests tried, "
            f"statuses {dict(log.statuses)}, {len(log.failures)} failures\n"
        )
        assert not log.failures, log.failures[:10]
        assert log.tried == requests
        final = server.wait_job(server.sync())
        assert final["status"] == "completed", final
        h.wait_until(lambda: sorted(h.active_paths()) == _on_disk(root, "docs"), "convergence")
        hits = server.http.post("/api/search", json={"query": "body", "limit": 100}).json()
        uris = [r["uri"] for r in hits["results"]]
        assert len(uris) == len(set(uris)) and all(u.startswith("gno://docs/") for u in uris)
    finally:
        server.stop()
    assert_no_ghosts({"docs"})
    h.run("cleanup")  # rewritten files left mirrors no document uses
    assert_consistent(h.db_path())


def test_200_mixed_requests_with_a_rename_midway(tmp_path: Path) -> None:
    _mixed_load(tmp_path, 200)


@pytest.mark.soak
def test_soak_mixed_requests_with_a_rename_midway(tmp_path: Path) -> None:
    _mixed_load(tmp_path, int(os.environ.get("GNO_SOAK_REQUESTS", "3000")))
