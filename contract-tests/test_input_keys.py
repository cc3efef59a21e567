"""Unknown and GNO-only input keys on a real `gno serve` (REST and MCP over /mcp).

GNO validates the parameters it documents and ignores every other key, except on its
closed inputs. gno accepts GNO's documented parameters (even those it does not use yet,
like `gno_get`'s `traceId`), ignores unknown keys on open inputs and rejects them on
closed ones (`gno_peek`'s empty input, nested `queryModes` items).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from contract_helpers import assert_valid
from rest_helpers import Server, build_corpus, running

httpx = pytest.importorskip("httpx")
mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402


@pytest.fixture(scope="module", autouse=True)
def _own_servers(request: pytest.FixtureRequest) -> None:
    if request.config.getoption("--base-url"):
        pytest.skip("starts its own gno serve processes")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    env = build_corpus(tmp_path_factory.mktemp("input-keys"), vectors=False)
    with running(env) as srv:
        yield srv


def _ok(response: Any) -> dict[str, Any]:
    assert response.status_code == 200, response.text
    return response.json()


def _uris(body: dict[str, Any]) -> set[str]:
    return {hit["uri"] for hit in body["results"]}


# ---------------------------------------------------------------- REST


def test_rest_ignores_unknown_keys_on_open_inputs(server: Server) -> None:
    status = _ok(httpx.get(f"{server.url}/api/status", params={"_": "1"}))  # cache-busting
    assert_valid("gno://schemas/status@1.0", status)
    found = _ok(
        httpx.post(
            f"{server.url}/api/search",
            json={"query": "lighthouse", "fast": True, "zzUnknown": {"x": 1}},
        )
    )
    assert "gno://notes/alpha.md" in _uris(found)
    assert _ok(httpx.get(f"{server.url}/api/health", params={"t": "9"})) == {"ok": True}


def test_rest_query_and_search_accept_collections(server: Server) -> None:
    for route in ("/api/query", "/api/search"):
        body = _ok(
            httpx.post(
                f"{server.url}{route}", json={"query": "lighthouse", "collections": ["MISC"]}
            )
        )
        assert _uris(body) == {"gno://misc/readme.md"}
        assert body["meta"]["collections"] == ["misc"]
        both = httpx.post(
            f"{server.url}{route}",
            json={"query": "x", "collection": "notes", "collections": ["misc"]},
        )
        assert both.status_code == 400 and both.json()["error"]["code"] == "VALIDATION"
        unknown = httpx.post(
            f"{server.url}{route}", json={"query": "x", "collections": ["misc", "nope", "gone"]}
        )
        assert unknown.status_code == 404, unknown.text
        assert "nope" in unknown.json()["error"]["message"]
        assert "gone" in unknown.json()["error"]["message"]
        empty = httpx.post(f"{server.url}{route}", json={"query": "x", "collections": []})
        assert empty.status_code == 400


def test_rest_docs_accepts_sort_and_tag_parameters(server: Server) -> None:
    body = _ok(
        httpx.get(
            f"{server.url}/api/docs",
            params={"sortField": "modified", "sortOrder": "desc", "tagsAll": "project,urgent"},
        )
    )
    assert [d["uri"] for d in body["documents"]] == ["gno://notes/alpha.md"]
    assert (
        _ok(httpx.get(f"{server.url}/api/docs", params={"tagsAny": "archive,nothing"}))[
            "documents"
        ][0]["uri"]
        == "gno://notes/sub/delta.md"
    )


def test_rest_documented_parameters_are_still_validated(server: Server) -> None:
    """Ignoring unknown keys never means skipping the checks of known ones."""
    bad = httpx.post(f"{server.url}/api/query", json={"query": "x", "limit": "ten"})
    assert bad.status_code == 400
    # Nested objects stay closed: a queryModes item with an extra key is invalid.
    nested = httpx.post(
        f"{server.url}/api/query",
        json={"query": "x", "queryModes": [{"mode": "term", "text": "a", "weight": 2}]},
    )
    assert nested.status_code == 400 and "weight" in nested.json()["error"]["message"]


# ---------------------------------------------------------------- MCP over /mcp


def test_mcp_accepts_gno_parameters_ignores_unknown_rejects_on_closed(server: Server) -> None:
    async def session() -> None:
        async with Client(f"{server.url}/mcp") as client:
            got = await client.call_tool(
                "gno_get", {"ref": "gno://notes/alpha.md", "traceId": "trace-1"}
            )
            assert not got.is_error, got.content[0].text
            assert "zephyrquartz" in got.structured_content["content"]
            wrong = await client.call_tool("gno_get", {"ref": "gno://notes/alpha.md", "traceId": 7})
            assert wrong.is_error and "traceId" in wrong.content[0].text
            found = await client.call_tool(
                "gno_search", {"query": "lighthouse", "limit": 20, "fast": True}
            )
            assert not found.is_error, found.content[0].text
            assert "gno://notes/alpha.md" in _uris(found.structured_content)
            queried = await client.call_tool(
                "gno_query", {"query": "lighthouse", "fast": True, "zzFuture": [1, 2]}
            )
            assert not queried.is_error, queried.content[0].text
            status = await client.call_tool("gno_status", {"verbose": True})
            assert not status.is_error, status.content[0].text
            # gno_peek's input is closed (an empty object): an unknown key is invalid.
            peek = await client.call_tool("gno_peek", {"zzUnknown": 1})
            assert peek.is_error and "zzUnknown" in peek.content[0].text
            assert peek.structured_content["error"] == "VALIDATION"

    anyio.run(session)


# GNO's closed inputs (surfaces.md §3.4, §5: context, ask, egress, section, audit; gno_peek is
# an empty closed object): a valid call answers, the same call with one unknown key is invalid.
CLOSED_CALLS: dict[str, dict[str, Any]] = {
    "gno_context": {"goal": "lighthouse keeper", "budgetTokens": 4000, "depthPolicy": "fast"},
    "gno_context_verify": {"capsule": {"schemaVersion": "1.1"}},
    "gno_ask": {"query": "lighthouse", "verify": True},
    "gno_section": {"action": "create", "ref": "gno://notes/alpha.md", "line": 1},
    "gno_audit": {"category": "links", "maxFindings": 5},
    "gno_peek": {},
    "gno_egress_policy_get": {"collection": "notes"},
    "gno_egress_check": {
        "action": "retrieve",
        "destinationZone": "loopback",
        "caller": {"authenticated": False, "operationAuthorized": True},
        "contentClass": "snippet",
    },
    "gno_egress_audit_list": {"limit": 5},
    "gno_egress_audit_status": {},
    "gno_egress_audit_show": {"auditId": "no-such-receipt"},
}


def test_the_closed_mcp_inputs_are_gnos() -> None:
    """The tools whose input rejects unknown keys are GNO's closed ones, no more (an open
    input turned closed breaks GNO's scripts) and no fewer (write tools need the gate)."""
    from gno.core.input_keys import is_closed
    from gno.mcp.tools import load_schema, tools

    closed = {
        name
        for name, tool in tools("full", enable_write=True).items()
        if is_closed(load_schema(tool.op.input_schema))
    }
    writes = {"gno_egress_policy_set", "gno_egress_audit_delete", "gno_egress_audit_purge"}
    assert closed == set(CLOSED_CALLS) | writes


def test_mcp_closed_inputs_reject_an_unknown_key(server: Server) -> None:
    async def session() -> None:
        async with Client(f"{server.url}/mcp") as client:
            for name, arguments in CLOSED_CALLS.items():
                valid = await client.call_tool(name, arguments)
                text = valid.content[0].text if valid.content else ""
                assert "zzUnknown" not in text and "Invalid arguments" not in text, (name, text)
                extra = await client.call_tool(name, arguments | {"zzUnknown": 1})
                assert extra.is_error, name
                assert "zzUnknown" in extra.content[0].text, (name, extra.content[0].text)

    anyio.run(session)


# ---------------------------------------------------------------- GET /api/docs shape


def test_rest_docs_newest_first_with_date_fields(server: Server) -> None:
    page = _ok(httpx.get(f"{server.url}/api/docs", params={"limit": 100}))
    assert_valid("gno://schemas/api-docs@1.0", page)
    assert page["sortField"] == "modified" and page["sortOrder"] == "desc"
    assert page["availableDateFields"] == ["date"]
    stamps = [d["updatedAt"] for d in page["documents"]]
    assert stamps == sorted(stamps, reverse=True) and len(stamps) == page["total"] == 10
    by_date = _ok(
        httpx.get(
            f"{server.url}/api/docs",
            params={"collection": "notes", "sortField": "date", "sortOrder": "asc", "limit": 5},
        )
    )
    assert [d["relPath"] for d in by_date["documents"]] == [
        "sub/delta.md",
        "beta.md",
        "alpha.md",
        "japanese.md",
        "spanish.md",
    ]
    unknown = httpx.get(f"{server.url}/api/docs", params={"sortField": "deadline"})
    assert (
        unknown.status_code == 400 and "availableDateFields" in unknown.json()["error"]["message"]
    )
    bad_order = httpx.get(f"{server.url}/api/docs", params={"sortOrder": "sideways"})
    assert bad_order.status_code == 400


# ---------------------------------------------------------------- <mark> in REST snippets


def test_rest_search_marks_terms_mcp_and_query_do_not(server: Server) -> None:
    body = _ok(httpx.post(f"{server.url}/api/search", json={"query": "zephyrquartz protocol"}))
    (hit,) = [h for h in body["results"] if h["uri"] == "gno://notes/alpha.md"]
    assert "<mark>zephyrquartz</mark> <mark>protocol</mark>" in hit["snippet"]
    query = _ok(httpx.post(f"{server.url}/api/query", json={"query": "zephyrquartz"}))
    assert all("<mark>" not in h["snippet"] for h in query["results"])

    async def session() -> None:
        async with Client(f"{server.url}/mcp") as client:
            found = await client.call_tool("gno_search", {"query": "zephyrquartz"})
            assert "zephyrquartz" in found.structured_content["results"][0]["snippet"]
            assert "<mark>" not in found.structured_content["results"][0]["snippet"]

    anyio.run(session)
