"""Section routes of a real `gno serve`: the outline, creating a target and resolving it after
an edit on disk, every answer valid against its schema, every refusal its documented code."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from contract_helpers import assert_valid, run_gno
from rest_helpers import Server, build_corpus, running

httpx = pytest.importorskip("httpx")


@pytest.fixture(scope="module")
def served(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Server, dict[str, str], Path]]:
    root = tmp_path_factory.mktemp("rest-sections")
    env = build_corpus(root, vectors=False)
    with running(env) as server:
        yield server, env, root / "corpus" / "notes"


def _alpha_docid(url: str) -> str:
    doc = httpx.get(f"{url}/api/doc", params={"uri": "gno://notes/alpha.md"}).json()
    return str(doc["docid"]).removeprefix("#")


def _error(response: httpx.Response, status: int, code: str) -> None:
    assert response.status_code == status, response.text
    assert_valid("gno://schemas/api-error@1.0", response.json())
    assert response.json()["error"]["code"] == code


def test_outline_by_bare_docid_and_by_encoded_uri(served: Any) -> None:
    server, _, _ = served
    docid = _alpha_docid(server.url)
    outline = httpx.get(f"{server.url}/api/doc/{docid}/sections")
    assert outline.status_code == 200, outline.text
    assert_valid("gno://schemas/doc-sections@1.0", outline.json())
    assert [s["anchor"] for s in outline.json()["sections"]] == ["alpha"]
    by_hash = httpx.get(f"{server.url}/api/doc/%23{docid}/sections")
    assert by_hash.json() == outline.json()
    _error(httpx.get(f"{server.url}/api/doc/00000000/sections"), 404, "NOT_FOUND")


def test_create_then_resolve_after_an_edit_above(served: Any) -> None:
    server, env, notes = served
    docid = _alpha_docid(server.url)
    made = httpx.post(f"{server.url}/api/doc/{docid}/section-targets", json={"anchor": "alpha"})
    assert made.status_code == 200, made.text
    assert_valid("gno://schemas/section-target-create-result@1.0", made.json())
    target = made.json()["target"]
    alpha = notes / "alpha.md"
    text = alpha.read_text(encoding="utf-8")
    alpha.write_text(text.replace("# Alpha\n", "Preface line.\n\n# Alpha\n"), encoding="utf-8")
    done = run_gno(env, "update", "--json")
    assert done.returncode == 0, done.stderr
    resolve = f"{server.url}/api/doc/{_alpha_docid(server.url)}/section-targets/resolve"
    deadline = time.monotonic() + 10
    while True:  # the server's reader may still hold the old generation for a moment
        got = httpx.post(resolve, json={"target": target})
        assert got.status_code == 200, got.text
        body = got.json()
        if body["citation"]["startLine"] != made.json()["citation"]["startLine"]:
            break
        assert time.monotonic() < deadline, body
        time.sleep(0.1)
    assert_valid("gno://schemas/section-target-resolve-result@1.0", body)
    assert body["status"] == "exact"
    assert body["citation"]["startLine"] == made.json()["citation"]["startLine"] + 2


def test_refusals(served: Any) -> None:
    server, _, _ = served
    docid = _alpha_docid(server.url)
    url = f"{server.url}/api/doc/{docid}/section-targets"
    _error(httpx.post(url, json={"anchor": "nowhere"}), 422, "SECTION_UNRESOLVABLE")
    _error(httpx.post(url, json={"anchor": "alpha", "line": 3}), 400, "VALIDATION")
    _error(httpx.post(url, json={}), 400, "VALIDATION")
    _error(httpx.post(url, json={"anchor": "alpha", "extra": 1}), 400, "VALIDATION")  # closed
    _error(httpx.post(f"{url}/resolve", json={"target": {"schemaVersion": "1"}}), 400, "VALIDATION")
    made = httpx.post(url, json={"anchor": "alpha"}).json()
    beta = httpx.get(f"{server.url}/api/doc", params={"uri": "gno://notes/beta.md"}).json()
    other = str(beta["docid"]).removeprefix("#")
    _error(
        httpx.post(
            f"{server.url}/api/doc/{other}/section-targets/resolve", json={"target": made["target"]}
        ),
        422,
        "SECTION_UNRESOLVABLE",
    )
