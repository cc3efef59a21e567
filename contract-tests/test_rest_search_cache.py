"""Repeated `POST /api/search` on a real `gno serve`: an answer may come from the result
cache, but it never outlives a change of the index or of index.yml, and a caller on
another host never gets the host paths a local caller's answer carried."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
import yaml
from contract_helpers import run_gno
from rest_helpers import build_corpus, running

httpx = pytest.importorskip("httpx")
DEADLINE = 60.0


@pytest.fixture(scope="module", autouse=True)
def _own_servers(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("--base-url"):
        pytest.skip("starts its own gno serve processes")


def _search(http: httpx.Client, query: str, **headers: str) -> dict[str, Any]:
    answer = http.post("/api/search", json={"query": query}, headers=headers)
    assert answer.status_code == 200, answer.text
    return answer.json()


def _uris(answer: dict[str, Any]) -> list[str]:
    return [item["uri"] for item in answer["results"]]


def _wait_job(http: httpx.Client, job_id: str) -> None:
    pause = threading.Event()
    deadline = time.monotonic() + DEADLINE
    while time.monotonic() < deadline:
        if http.get(f"/api/jobs/{job_id}").json()["status"] in ("completed", "failed"):
            return
        pause.wait(0.05)
    raise AssertionError(f"job {job_id} did not finish")


def test_repeated_searches_see_every_change(tmp_path: Path) -> None:
    env = build_corpus(tmp_path, vectors=False)
    notes = tmp_path / "corpus" / "notes"
    config = Path(env["GNO_CONFIG_DIR"]) / "index.yml"
    with running(env) as server, httpx.Client(base_url=server.url, timeout=DEADLINE) as http:
        first = http.post("/api/search", json={"query": "lighthouse"})
        again = http.post("/api/search", json={"query": "lighthouse"})
        assert first.status_code == again.status_code == 200
        assert first.content == again.content
        assert "gno://notes/delta.md" not in _uris(first.json())

        # another process writes the index (the CLI while the server runs)
        (notes / "delta.md").write_text("# Delta\n\nThe lighthouse got a new lamp.\n")
        assert run_gno(env, "update").returncode == 0
        assert "gno://notes/delta.md" in _uris(_search(http, "lighthouse"))

        # the server's own sync job
        (notes / "delta.md").unlink()
        job = http.post("/api/sync", json={"collection": "notes"})
        assert job.status_code == 202, job.text
        _wait_job(http, job.json()["jobId"])
        assert "gno://notes/delta.md" not in _uris(_search(http, "lighthouse"))

        # index.yml edited by hand: the next answer carries the new context
        data = yaml.safe_load(config.read_text())
        data["contexts"] = [*(data.get("contexts") or []), _context("Keeper's notes")]
        config.write_text(yaml.safe_dump(data))
        items = _search(http, "lighthouse")["results"]
        assert items and all(item.get("context") == "Keeper's notes" for item in items)


def test_a_remote_caller_never_gets_a_local_answer(tmp_path: Path) -> None:
    env = build_corpus(tmp_path, vectors=False)
    with running(env) as server, httpx.Client(base_url=server.url, timeout=DEADLINE) as http:
        local = _search(http, "lighthouse")
        assert local["results"] and all("absPath" in i["source"] for i in local["results"])
        remote = _search(http, "lighthouse", **{"X-Forwarded-For": "203.0.113.9"})
        assert [i["uri"] for i in remote["results"]] == _uris(local)
        assert not any("absPath" in i["source"] for i in remote["results"])
        assert _search(http, "lighthouse") == local


def _context(text: str) -> dict[str, str]:
    return {"scopeType": "global", "scopeKey": "/", "text": text}


def test_sdk_route_answers_are_kept_apart_and_never_outlive_a_change(tmp_path: Path) -> None:
    """`POST /api/op/search` shares the cache: its answers (the operation output, plain
    snippets) are never served for `/api/search` (marked snippets) or the other way
    round, and a commit by another process ends them too."""
    env = build_corpus(tmp_path, vectors=False)
    notes = tmp_path / "corpus" / "notes"
    body = {"query": "lighthouse", "limit": 10}
    with running(env) as server, httpx.Client(base_url=server.url, timeout=DEADLINE) as http:
        for _ in range(2):  # the second round may come from the cache: the same either way
            plain = http.post("/api/op/search", json=body).json()
            marked = http.post("/api/search", json=body).json()
            assert _uris(plain) == _uris(marked)
            assert not any("<mark>" in item["snippet"] for item in plain["results"])
            assert any("<mark>" in item["snippet"] for item in marked["results"])
        (notes / "delta.md").write_text("# Delta\n\nThe lighthouse got a new lamp.\n")
        assert run_gno(env, "update").returncode == 0
        after = http.post("/api/op/search", json=body).json()
        assert "gno://notes/delta.md" in _uris(after)
