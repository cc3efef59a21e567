"""Typed metadata filters (issue 17 item 3) on every surface: the CLI's ``--filter`` (search,
query, ask, context build, ls), MCP ``filter`` (gno_search, gno_query, gno_query_diagnose,
gno_context over stdio with the SDK's client) and REST ``filter`` (POST /api/search,
/api/query, /api/query/diagnose, /api/ask's retrieval, GET /api/docs?filter=) — on a real
index and real processes. Each answer validates against its output schema; a bad predicate
is VALIDATION naming its field path on each surface."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from contract_helpers import (
    GNO,
    assert_valid,
    gno_err,
    gno_ok,
    indexed_notes,
    run_gno,
)
from rest_helpers import running

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402

NOTES = {
    "atlas.md": "---\nstatus: approved\nconfidence: 0.9\nreviewers: [ana, sam]\ndue: 2026-03-04\n---\n"
    "# Atlas rollout\n\nThe rollout decision for atlas.\n",
    "borealis.md": "---\nstatus: draft\nconfidence: 0.4\nreviewers: [ana]\ndue: 2026-05-01\n---\n"
    "# Borealis rollout\n\nThe rollout plan for borealis is a draft.\n",
    "cygnus.md": "# Cygnus rollout\n\nA rollout note without frontmatter.\n",
}
APPROVED = {"op": "eq", "key": "status", "value": "approved"}
CONFIDENT = {"op": "gte", "key": "confidence", "value": 0.8}
NOT_SAM = {"op": "not", "predicate": {"op": "in", "key": "reviewers", "values": ["sam"]}}
LATE = {"op": "gt", "key": "due", "value": "2026-03-04"}
BAD = {"op": "and", "predicates": [APPROVED, {"op": "gt", "key": "status", "value": "soon"}]}
BAD_PATH = "filter.predicates[1].value"


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("metafilter")
    return indexed_notes(root, NOTES)


def names(results: list[dict[str, Any]]) -> set[str]:
    return {r["source"]["relPath"] for r in results}


def test_cli_filters(env: dict[str, str]) -> None:
    def search(*args: str) -> set[str]:
        return names(gno_ok(env, *args, "--json")["results"])

    assert search("search", "rollout") == set(NOTES)
    assert search("search", "rollout", "--filter", json.dumps(APPROVED)) == {"atlas.md"}
    assert search("search", "rollout", "--filter", json.dumps(NOT_SAM)) == {
        "borealis.md",
        "cygnus.md",
    }
    assert search("query", "rollout", "--no-rerank", "--filter", json.dumps(LATE)) == {
        "borealis.md"
    }
    listing = gno_ok(env, "ls", "notes", "--filter", json.dumps(CONFIDENT), "--json")
    assert [d["source"]["relPath"] for d in listing["documents"]] == ["atlas.md"]
    asked = gno_ok(env, "ask", "rollout", "--no-answer", "--filter", json.dumps(APPROVED), "--json")
    assert names(asked["results"]) == {"atlas.md"}
    capsule = gno_ok(env, "context", "build", "rollout", "--budget", "4000", "--fast",
                     "--filter", json.dumps(APPROVED), "--json")  # fmt: skip
    paths = {e["uri"].rsplit("/", 1)[-1] for e in capsule["evidence"]}
    assert paths == {"atlas.md"}
    diagnosed = run_gno(env, "query", "diagnose", "rollout", "--target", "notes/cygnus.md",
                        "--filter", json.dumps(APPROVED), "--json")  # fmt: skip
    assert diagnosed.returncode == 0, diagnosed.stderr
    target = json.loads(diagnosed.stdout)["target"]
    assert target["status"] == "filtered_out" and target["filterReasons"] == ["metadata"]
    error = gno_err(env, 1, "search", "rollout", "--filter", json.dumps(BAD), "--json")
    assert BAD_PATH in error["message"]
    error = gno_err(env, 1, "search", "rollout", "--filter", "{oops", "--json")
    assert "--filter: not valid JSON" in error["message"]


def test_rest_filters(env: dict[str, str]) -> None:
    with running(env, "--no-watch") as srv, httpx.Client(base_url=srv.url, timeout=60) as http:
        found = http.post("/api/search", json={"query": "rollout", "filter": APPROVED})
        assert found.status_code == 200, found.text
        assert_valid("gno://schemas/search-results@1.0", found.json())
        assert names(found.json()["results"]) == {"atlas.md"}
        hybrid = http.post(
            "/api/query", json={"query": "rollout", "noRerank": True, "filter": LATE}
        )
        assert hybrid.status_code == 200, hybrid.text
        assert names(hybrid.json()["results"]) == {"borealis.md"}
        diag = http.post(
            "/api/query/diagnose",
            json={"query": "rollout", "target": "notes/cygnus.md", "filter": APPROVED},
        )
        assert diag.status_code == 200, diag.text
        target = diag.json()["target"]
        assert target["status"] == "filtered_out" and target["filterReasons"] == ["metadata"]
        docs = http.get("/api/docs", params={"collection": "notes", "filter": json.dumps(NOT_SAM)})
        assert docs.status_code == 200, docs.text
        assert {d["relPath"] for d in docs.json()["documents"]} == {"borealis.md", "cygnus.md"}
        for method, path, kwargs in (
            ("POST", "/api/search", {"json": {"query": "rollout", "filter": BAD}}),
            ("POST", "/api/query", {"json": {"query": "rollout", "filter": BAD}}),
            ("GET", "/api/docs", {"params": {"filter": json.dumps(BAD)}}),
        ):
            bad = http.request(method, path, **kwargs)
            assert bad.status_code == 400, (path, bad.text)
            assert bad.json()["error"]["code"] == "VALIDATION"
            assert BAD_PATH in bad.json()["error"]["message"]
        not_object = http.post("/api/search", json={"query": "rollout", "filter": "status"})
        assert not_object.status_code == 400


def test_mcp_filters(env: dict[str, str]) -> None:
    target = StdioServerParameters(
        command=str(GNO), args=["mcp"], env=env, cwd=str(Path(env["GNO_CONFIG_DIR"]).parent)
    )
    seen: dict[str, Any] = {}

    async def session() -> None:
        async with Client(target, mode="legacy") as client:
            for tool, args in (
                ("gno_search", {"query": "rollout", "limit": 10, "filter": APPROVED}),
                ("gno_query", {"query": "rollout", "rerank": False, "filter": NOT_SAM}),
                ("gno_query_diagnose", {"query": "rollout", "target": "notes/atlas.md", "filter": LATE}),
                ("gno_context", {"goal": "rollout", "budgetTokens": 4000, "depthPolicy": "fast",
                                 "filter": APPROVED}),
                ("gno_search", {"query": "rollout", "filter": BAD}),
            ):  # fmt: skip
                result = await client.call_tool(tool, args)
                seen.setdefault(tool, []).append(result)

    anyio.run(session)
    search_ok, search_bad = seen["gno_search"]
    assert not search_ok.is_error and names(search_ok.structured_content["results"]) == {"atlas.md"}
    assert_valid("gno://schemas/search-results@1.0", search_ok.structured_content)
    query = seen["gno_query"][0]
    assert not query.is_error
    assert names(query.structured_content["results"]) == {"borealis.md", "cygnus.md"}
    diag = seen["gno_query_diagnose"][0].structured_content
    assert diag["target"]["status"] == "filtered_out" and diag["target"]["filterReasons"] == [
        "metadata"
    ]
    capsule = seen["gno_context"][0]
    assert not capsule.is_error, capsule.content
    assert {e["uri"].rsplit("/", 1)[-1] for e in capsule.structured_content["evidence"]} == {
        "atlas.md"
    }
    assert search_bad.is_error
    text = " ".join(getattr(c, "text", "") for c in search_bad.content)
    assert BAD_PATH in text
