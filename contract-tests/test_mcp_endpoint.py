"""Conformance of one MCP endpoint over Streamable HTTP: any gno server, any corpus.

    pytest contract-tests/test_mcp_endpoint.py --base-url http://127.0.0.1:3000

checks the `/mcp` of a server that is already running (read-only calls only: nothing
is written); without ``--base-url`` the same checks run against a `gno serve` this
test starts on a small corpus. Nothing here assumes which documents exist: tool
arguments are generic, and every answer must be either a result valid against the
tool's output schema or a well-formed ``isError``.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anyio
import pytest
from contract_helpers import assert_valid
from rest_helpers import build_corpus, running

from gno.mcp.tools import tools

mcp = pytest.importorskip("mcp")
from mcp import Client  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

# Generic arguments for each read tool; refs come from a search hit when there is one.
PROBES: dict[str, dict[str, Any]] = {
    "gno_search": {"query": "the", "limit": 5},
    "gno_vsearch": {"query": "how does it work", "limit": 5},
    "gno_query": {"query": "how does it work", "limit": 5},
    "gno_query_diagnose": {"query": "the", "target": "gno://no-such-collection/x.md"},
    "gno_peek": {},
    "gno_status": {},
    "gno_list_jobs": {},
    "gno_job_status": {"jobId": "no-such-job"},
    "gno_get": {"ref": "gno://no-such-collection/x.md"},
    "gno_multi_get": {"refs": ["gno://no-such-collection/x.md"]},
    "gno_recall": {"query": "the", "collection": "no-such-collection", "scopes": ["p"]},
    "gno_section": {"action": "create", "ref": "gno://no-such-collection/x.md", "anchor": "a"},
    "gno_audit": {"category": "links", "maxFindings": 5},
    "gno_links": {"ref": "gno://no-such-collection/x.md"},
    "gno_backlinks": {"ref": "gno://no-such-collection/x.md"},
    "gno_similar": {"ref": "gno://no-such-collection/x.md"},
    "gno_graph": {"limit": 50, "edgeLimit": 100},
    "gno_graph_neighbors": {"ref": "gno://no-such-collection/x.md"},
    "gno_graph_path": {"from": "gno://no-such-collection/x.md", "to": "x"},
    "gno_graph_query": {"ref": "gno://no-such-collection/x.md"},
    "gno_list_tags": {},
    "gno_changes": {"limit": 5},
    "gno_diff": {"ref": "gno://no-such-collection/x.md"},
    "gno_impact": {"ref": "gno://no-such-collection/x.md"},
    "gno_context": {"goal": "how does it work", "budgetTokens": 2000, "depthPolicy": "fast"},
    "gno_context_verify": {"capsule": {"schemaVersion": "1.1"}},
    "gno_ask": {"query": "how does it work", "verify": True},
    "gno_egress_policy_get": {"collection": "no-such-collection"},
    "gno_egress_check": {
        "action": "serve",
        "destinationZone": "remote",
        "caller": {"authenticated": True, "operationAuthorized": True},
        "contentClass": "snippet",
    },
    "gno_egress_audit_list": {"limit": 5},
    "gno_egress_audit_show": {"auditId": "egr_000000000000000000000000"},
    "gno_egress_audit_status": {},
    "gno_trace_list": {"limit": 5},
    "gno_trace_show": {"traceId": "trc_00000000000000000000000000000000"},
}


@pytest.fixture(scope="module")
def endpoint(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    base_url = request.config.getoption("--base-url")
    if base_url:
        yield f"{base_url.rstrip('/')}/mcp"
        return
    env = build_corpus(tmp_path_factory.mktemp("mcp-endpoint"), vectors=False)
    with running(env) as server:
        yield f"{server.url}/mcp"


def _offered(listed: dict[str, Any]) -> dict[str, Any]:
    """The registry's tool set this server offers: one of its profile × write-gate sets."""
    for profile in ("full", "core"):
        for enable_write in (False, True):
            expected = tools(profile, enable_write=enable_write)
            if set(expected) == set(listed):
                return expected
    raise AssertionError(f"tool list matches no profile of the registry: {sorted(listed)}")


def _check_answer(tool: Any, result: Any) -> dict[str, Any]:
    payload = result.structured_content
    if result.is_error:
        assert set(payload) == {"error", "message"}, payload
        assert payload["error"] and payload["message"]
        # GNO's context tools name their lowercase code: "Error [no_evidence]: …"
        assert result.content[0].text in (
            f"Error: {payload['message']}",
            f"Error [{payload['error']}]: {payload['message']}",
        )
        assert not payload["message"].startswith("Internal error"), payload["message"]
    else:
        assert_valid(tool.op.output_schema, payload)
        assert result.content and result.content[0].text
    return payload


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_endpoint_conforms(endpoint: str, mode: str) -> None:
    async def session() -> None:
        async with Client(endpoint, mode=mode) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            expected = _offered(listed)
            for name, tool in listed.items():
                assert tool.input_schema == expected[name].input_schema, name
                assert tool.output_schema == expected[name].output_schema, name
                assert tool.annotations.read_only_hint is expected[name].read_only, name

            reads = [n for n, t in expected.items() if t.read_only]
            assert set(reads) <= set(PROBES), "a new read tool needs a probe here"
            answers = {
                name: _check_answer(expected[name], await client.call_tool(name, PROBES[name]))
                for name in reads
            }
            for name in (
                "gno_get",
                "gno_multi_get",
                "gno_job_status",
                "gno_links",
                "gno_impact",
                "gno_graph_neighbors",
                "gno_trace_show",
            ):
                if name in answers:  # refs that cannot exist
                    got = answers[name]
                    assert got.get("error") == "NOT_FOUND" or got.get("skipped"), (name, got)

            hits = answers.get("gno_search", {}).get("results") or []
            if hits and "gno_get" in expected:
                got = await client.call_tool("gno_get", {"ref": hits[0]["uri"]})
                assert not got.is_error, got.content[0].text
                assert _check_answer(expected["gno_get"], got)["uri"] == hits[0]["uri"]

            bad = await client.call_tool("gno_search", {"query": "x", "limit": 0})
            assert bad.is_error and bad.structured_content["error"] == "VALIDATION"
            assert "limit" in bad.content[0].text
            with pytest.raises(MCPError) as unknown:
                await client.call_tool("gno_no_such_tool", {})
            assert unknown.value.code == -32602

            resources = (await client.list_resources()).resources
            if resources:
                read = await client.read_resource(str(resources[0].uri))
                assert read.contents and read.contents[0].text.startswith("<!-- gno://")
            with pytest.raises(MCPError):
                await client.read_resource("gno://no-such-collection/../x.md")

    anyio.run(session)
