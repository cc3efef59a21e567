"""`GET /api/embed/status` (surfaces.md §4.2), what a GNO client polls after `POST /api/embed`
answered `{running: true}`: `{available, pendingDocCount, running, nextRunAt, lastRunAt,
lastResult}`, the same object as `/api/status`'s `background.embedding` (issue 11 item 4); and
`POST /api/collections/:name/embeddings/clear`, REST's `collection clear-embeddings` (item 3).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from contract_helpers import assert_valid
from rest_helpers import Server, build_corpus, running

httpx = pytest.importorskip("httpx")
pytest.importorskip("llama_cpp", reason="the tiny embedding model runs on llama.cpp")
pytest.importorskip("gguf", reason="gguf writes the tiny model")

SCHEMA = "gno://schemas/embed-status@1.0"


@pytest.fixture(scope="module", autouse=True)
def _own_servers(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("--base-url"):
        pytest.skip("starts its own gno serve process")


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return build_corpus(tmp_path_factory.mktemp("embed-status"), vectors=True)


@pytest.fixture(scope="module")
def server(corpus: dict[str, str]) -> Iterator[Server]:
    with running(corpus, "--no-watch") as srv:
        yield srv


def _status(server: Server) -> dict[str, Any]:
    answer = httpx.get(f"{server.url}/api/embed/status", params={"_": "1"}, timeout=30)
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert_valid(SCHEMA, body)
    full = httpx.get(f"{server.url}/api/status", timeout=30).json()
    assert full["background"]["embedding"] == body  # one state, two routes
    return body


def _wait_job(url: str, job_id: str) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job = httpx.get(f"{url}/api/jobs/{job_id}", timeout=30).json()
        if job["status"] in ("completed", "failed"):
            return job
        time.sleep(0.1)
    raise AssertionError(f"job {job_id} did not finish")


def test_embed_status_follows_an_embedding_run(server: Server, corpus: dict[str, str]) -> None:
    first = _status(server)
    assert first["available"] is True and first["running"] is False
    assert first["pendingDocCount"] == 0  # build_corpus embedded everything
    notes = Path(corpus["GNO_CONFIG_DIR"]).parent / "corpus" / "notes"
    (notes / "fresh.md").write_text("# Fresh\n\nA note written after the last embedding run.\n")
    synced = httpx.post(f"{server.url}/api/sync", json={"collection": "notes"}, timeout=30)
    assert synced.status_code == 202, synced.text
    assert _wait_job(server.url, synced.json()["jobId"])["status"] == "completed"
    assert _status(server)["pendingDocCount"] == 1
    embedded = httpx.post(f"{server.url}/api/embed", timeout=120)
    assert embedded.status_code == 200, embedded.text
    after = _status(server)
    assert after["pendingDocCount"] == 0 and after["running"] is False
    assert after["lastResult"] == embedded.json()
    assert isinstance(after["lastRunAt"], int) and after["lastRunAt"] > 0


def test_embed_status_is_get_only(server: Server) -> None:
    assert httpx.post(f"{server.url}/api/embed/status", timeout=30).status_code == 405


def test_clear_a_collections_embeddings_over_rest(server: Server) -> None:
    url = f"{server.url}/api/collections/misc/embeddings/clear"
    stale = httpx.post(url, timeout=60)  # empty body: GNO's default mode, stale
    assert stale.status_code == 200, stale.text
    assert_valid("gno://schemas/api-clear-embeddings@1.0", stale.json())
    assert stale.json()["stats"] | {"deletedModels": []} == {
        "collection": "misc", "mode": "stale", "deletedVectors": 0,
        "deletedModels": [], "protectedSharedVectors": 0,
    }  # fmt: skip
    assert "note" not in stale.json()  # nothing removed, nothing to do
    cleared = httpx.post(url, json={"mode": "all"}, timeout=60)
    assert cleared.status_code == 200, cleared.text
    body = cleared.json()
    assert_valid("gno://schemas/api-clear-embeddings@1.0", body)
    assert body["success"] is True and body["stats"]["mode"] == "all"
    assert body["stats"]["deletedVectors"] > 0 and "POST /api/embed" in body["note"]
    assert _status(server)["pendingDocCount"] > 0  # misc waits for vectors again
    missing = httpx.post(f"{server.url}/api/collections/nope/embeddings/clear", timeout=30)
    assert missing.status_code == 404
    bad = httpx.post(url, json={"mode": "some"}, timeout=30)
    assert bad.status_code == 400
