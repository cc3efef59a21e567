"""Retrieval traces on every surface (spec/traces.md), against the schemas: the CLI as a
real process (``Trace:`` on stderr, stdout unchanged), MCP over stdio and over HTTP
``/mcp`` through the SDK client (``_meta.gno.retrievalTrace``, write tools behind the
gate), and REST on a real ``gno serve`` (``X-GNO-Trace-ID`` out and back in, the trace
routes, same-host-only mutations). Bad input answers a documented error and changes
nothing."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from contract_helpers import GNO, assert_valid, gno_err, gno_ok, run_gno
from rest_helpers import build_corpus, running

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

TRACE_LINE = re.compile(r"^Trace: (trc_[0-9a-f]{32})$", re.M)
NO_TRACE = "trc_" + "0" * 32
ALPHA = "gno://notes/alpha.md"


def schema(name: str) -> str:
    return f"gno://schemas/{name}@1.0"


def enable_traces(env: dict[str, str], mode: str = "replay") -> None:
    config = Path(env["GNO_CONFIG_DIR"]) / "index.yml"
    text = config.read_text(encoding="utf-8")
    text = re.sub(r"\nretrievalTraces:.*", "", text, flags=re.S)
    config.write_text(
        text + f"\nretrievalTraces:\n  enabled: true\n  redactionMode: {mode}\n", encoding="utf-8"
    )


def disable_traces(env: dict[str, str]) -> None:
    config = Path(env["GNO_CONFIG_DIR"]) / "index.yml"
    text = config.read_text(encoding="utf-8")
    config.write_text(re.sub(r"\nretrievalTraces:.*", "", text, flags=re.S), encoding="utf-8")


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return build_corpus(tmp_path_factory.mktemp("traces"), vectors=False)


def traced(env: dict[str, str], *args: str) -> tuple[Any, str]:
    """Run a read command that must succeed and print exactly one trace line."""
    proc = run_gno(env, *args, "--json")
    assert proc.returncode == 0, proc.stderr
    ids = TRACE_LINE.findall(proc.stderr)
    assert len(ids) == 1, proc.stderr
    return json.loads(proc.stdout), ids[0]


def trace_count(env: dict[str, str]) -> int:
    return len(gno_ok(env, "trace", "list", "--json", "-n", "1000")["traces"])


def test_cli(env: dict[str, str]) -> None:
    disable_traces(env)
    plain = run_gno(env, "search", "lighthouse", "--json")
    assert plain.returncode == 0 and "Trace:" not in plain.stderr
    enable_traces(env)
    result, trace_id = traced(env, "search", "lighthouse")
    assert_valid(schema("search-results"), result)
    assert json.loads(plain.stdout) == result  # stdout is the same with tracing on
    for args in (("query", "lighthouse keeper", "--no-rerank"), ("get", ALPHA)):
        traced(env, *args)
    opened, linked = traced(env, "get", ALPHA, "--trace-id", trace_id, "--from", "8", "-l", "1")
    assert linked == trace_id and opened["returnedLines"] == {"start": 8, "end": 8}

    before = trace_count(env)
    gno_err(env, 1, "get", ALPHA, "--trace-id", NO_TRACE, "--json")  # unknown: NOT_FOUND
    gno_err(env, 1, "trace", "list", "--cursor", "gno-trace-v1.zz", "--json")
    gno_err(env, 1, "trace", "show", NO_TRACE, "--json")
    gno_err(env, 1, "trace", "label", trace_id, "relevant", "gno://notes/nowhere.md", "--json")
    gno_err(env, 1, "trace", "purge", "--json")  # no --confirm
    assert trace_count(env) == before

    shown = gno_ok(env, "trace", "show", trace_id, "--json")
    assert shown["trace"]["queryText"] == "lighthouse"
    assert [e["kind"] for e in shown["events"]][-1] == "open"
    top = shown["runs"][0]["payload"]["ranked"][0]["uri"]
    gno_ok(env, "trace", "label", trace_id, "relevant", top, "--json")
    again = gno_ok(env, "trace", "label", trace_id, "relevant", top, "--json")
    assert again["result"] == "duplicate"
    page = gno_ok(env, "trace", "list", "-n", "1", "--json")
    assert page["nextCursor"] and "queryText" not in page["traces"][0]
    gno_ok(env, "trace", "list", "--cursor", page["nextCursor"], "--json")
    exported = gno_ok(env, "trace", "export", trace_id, "--format", "qrels", "--json")
    assert exported["artifact"]["cases"][0]["qrels"][0]["relevance"] == 1
    receipt = gno_ok(env, "trace", "export", trace_id, "--json")
    assert receipt["artifact"]["format"] == "agentic-receipt"
    replay = gno_ok(env, "trace", "replay", exported["manifest"]["exportId"], "--json")
    assert replay["verdict"] == "unchanged" and replay["cases"][0]["qrels"][0]["candidateRank"]
    gno_err(env, 1, "trace", "replay", "exp_" + "0" * 32, "--json")
    text = run_gno(env, "trace", "show", trace_id)
    assert text.returncode == 0 and "Query: lighthouse" in text.stdout
    deleted = gno_ok(env, "trace", "delete", trace_id, "--json")
    assert deleted["deleted"] and deleted["counts"]["judgments"] == 1
    purged = gno_ok(env, "trace", "purge", "--confirm", "--json")
    assert purged["traces"] == before - 1 and trace_count(env) == 0


async def _mcp_session(target: Any, write: bool) -> None:
    async with Client(target, mode="legacy") as client:
        searched = await client.call_tool("gno_search", {"query": "lighthouse"})
        assert not searched.is_error
        assert_valid(schema("search-results"), searched.structured_content)
        trace_id = searched.meta["gno"]["retrievalTrace"]["traceId"]
        assert re.fullmatch(r"trc_[0-9a-f]{32}", trace_id)
        got = await client.call_tool("gno_get", {"ref": ALPHA, "traceId": trace_id})
        assert got.meta == searched.meta and "content" in got.structured_content
        bad = await client.call_tool("gno_get", {"ref": ALPHA, "traceId": NO_TRACE})
        assert bad.is_error and bad.structured_content["error"] == "NOT_FOUND"
        assert NO_TRACE not in bad.content[0].text and bad.meta is None
        listed = await client.call_tool("gno_trace_list", {"limit": 5})
        assert_valid(schema("retrieval-trace-list"), listed.structured_content)
        assert listed.meta is None  # trace tools are not traced themselves
        shown = await client.call_tool("gno_trace_show", {"traceId": trace_id})
        assert_valid(schema("retrieval-trace-show"), shown.structured_content)
        assert shown.structured_content["events"][-1]["kind"] == "open"
        label_args = {"traceId": trace_id, "label": "relevant", "targetRef": ALPHA}
        if not write:
            with pytest.raises(MCPError) as gated:
                await client.call_tool("gno_trace_label", label_args)
            assert gated.value.code == -32602
            return
        judged = await client.call_tool("gno_trace_label", label_args)
        assert_valid(schema("retrieval-trace-judgment"), judged.structured_content)
        exported = await client.call_tool("gno_trace_export", {"traceIds": [trace_id]})
        assert_valid(schema("retrieval-trace-export"), exported.structured_content)
        deleted = await client.call_tool("gno_trace_delete", {"traceId": trace_id})
        assert_valid(schema("retrieval-trace-delete"), deleted.structured_content)
        refused = await client.call_tool("gno_trace_purge", {"confirm": False})
        assert refused.is_error and refused.structured_content["error"] == "VALIDATION"
        purged = await client.call_tool("gno_trace_purge", {"confirm": True})
        assert_valid(schema("retrieval-trace-purge"), purged.structured_content)


@pytest.mark.parametrize("write", [False, True], ids=["read-only", "write"])
def test_mcp_stdio(env: dict[str, str], write: bool) -> None:
    enable_traces(env)
    target = StdioServerParameters(
        command=str(GNO),
        args=["mcp", *(["--enable-write"] if write else [])],
        env=env,
        cwd=str(Path(env["GNO_CONFIG_DIR"]).parent),
    )
    anyio.run(_mcp_session, target, write)


def test_mcp_without_tracing_has_no_meta(env: dict[str, str]) -> None:
    disable_traces(env)

    async def session() -> None:
        target = StdioServerParameters(command=str(GNO), args=["mcp"], env=env)
        async with Client(target, mode="legacy") as client:
            searched = await client.call_tool("gno_search", {"query": "lighthouse"})
            assert not searched.is_error and searched.meta is None
            got = await client.call_tool("gno_get", {"ref": ALPHA, "traceId": NO_TRACE})
            assert not got.is_error and got.meta is None  # off: the id is not even looked up

    anyio.run(session)
    assert trace_count(env) == 0


def test_rest_and_mcp_over_http(env: dict[str, str]) -> None:
    enable_traces(env)
    with running(env) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        body = {"query": "lighthouse"}
        first = client.post("/api/search", json=body)
        second = client.post("/api/search", json=body)  # the cache must not answer it
        assert first.status_code == second.status_code == 200
        assert_valid(schema("search-results"), first.json())
        one, two = first.headers["x-gno-trace-id"], second.headers["x-gno-trace-id"]
        assert one != two and first.json() == second.json()
        doc = client.get("/api/doc", params={"uri": ALPHA}, headers={"X-GNO-Trace-ID": one})
        assert doc.status_code == 200 and doc.headers["x-gno-trace-id"] == one
        for bad, status in ((NO_TRACE, 404), ("x" * 200, 400)):
            refused = client.get("/api/doc", params={"uri": ALPHA}, headers={"X-GNO-Trace-ID": bad})
            assert refused.status_code == status and bad not in refused.text
            assert_valid("gno://schemas/api-error@1.0", refused.json())
        listed = client.get("/api/traces", params={"limit": 1})
        assert_valid(schema("retrieval-trace-list"), listed.json())
        assert listed.json()["nextCursor"]
        assert client.get("/api/traces", params={"cursor": "nope"}).status_code == 400
        shown = client.get(f"/api/traces/{one}", params={"detailLimit": 10})
        assert_valid(schema("retrieval-trace-show"), shown.json())
        assert shown.json()["events"][-1]["kind"] == "open"
        assert client.get(f"/api/traces/{NO_TRACE}").status_code == 404

        # Mutations are same-host only: a forwarded request is refused and changes nothing.
        remote = {"X-Forwarded-For": "203.0.113.9"}
        label = {"label": "relevant", "targetRef": ALPHA}
        assert (
            client.post(f"/api/traces/{one}/judgments", json=label, headers=remote).status_code
            == 403
        )
        assert client.delete(f"/api/traces/{one}", headers=remote).status_code == 403
        rpc = client.post("/api/op/trace_purge", json={"confirm": True}, headers=remote)
        assert rpc.status_code == 403  # the SDK's route too
        assert client.get(f"/api/traces/{one}").json()["totals"]["judgments"] == 0

        judged = client.post(f"/api/traces/{one}/judgments", json=label)
        assert judged.status_code == 200, judged.text
        assert_valid(schema("retrieval-trace-judgment"), judged.json())
        exported = client.post("/api/traces/export", json={"traceIds": [one], "format": "qrels"})
        assert_valid(schema("retrieval-trace-export"), exported.json())
        deleted = client.delete(f"/api/traces/{two}")
        assert_valid(schema("retrieval-trace-delete"), deleted.json())
        assert client.delete(f"/api/traces/{two}").status_code == 404

        async def over_http() -> None:
            async with Client(f"{server.url}/mcp", mode="legacy") as mcp_client:
                searched = await mcp_client.call_tool("gno_search", {"query": "lighthouse"})
                assert searched.meta["gno"]["retrievalTrace"]["traceId"].startswith("trc_")

        anyio.run(over_http)
        assert client.delete("/api/traces").status_code == 400  # confirm missing
        purged = client.delete("/api/traces", params={"confirm": "true"})
        assert_valid(schema("retrieval-trace-purge"), purged.json())
        assert purged.json()["traces"] >= 2
        assert client.get("/api/traces").json()["traces"] == []

    disable_traces(env)
    with running(env) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        quiet = client.post("/api/search", json={"query": "lighthouse"})
        assert quiet.status_code == 200 and "x-gno-trace-id" not in quiet.headers
