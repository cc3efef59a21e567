"""The MCP server against its contract, through the official SDK client.

Transports: stdio (`gno mcp` as a real process) and Streamable HTTP (a real
uvicorn on 127.0.0.1, stateful `/mcp` and stateless `/mcp-stateless`), each in
both protocol eras the SDK speaks (the 2025-11-25 handshake, "legacy", and the
2026-07-28 per-request envelope, "auto"). The tool list must equal the
registry; every read tool is called on a small indexed corpus and its
structuredContent must validate against the operation's schema.
"""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from contract_helpers import GNO, MISC, NOTES, assert_valid, gno_env, run_gno, write_tree

from gno.mcp.tools import load_schema, tools

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

HERE = Path(__file__).resolve().parent
LEGACY, MODERN = "2025-11-25", "2026-07-28"
ERAS = {"legacy": LEGACY, "auto": MODERN}

# Arguments for every read tool on the corpus; a new read tool must be added here.
READ_CALLS: dict[str, dict[str, Any]] = {
    "gno_search": {"query": "lighthouse", "limit": 10},
    "gno_get": {"ref": "gno://notes/alpha.md", "fromLine": 2, "lineCount": 3},
    "gno_multi_get": {"refs": ["gno://notes/alpha.md", "gno://notes/missing.md"]},
    "gno_peek": {},
    "gno_status": {},
    "gno_vsearch": {"query": "lighthouse"},  # no vectors in this corpus: a clear isError
    "gno_query": {"query": "lighthouse keeper", "explain": True},
    "gno_query_diagnose": {"query": "lighthouse", "target": "gno://notes/beta.md"},
    "gno_job_status": {"jobId": "no-such-job"},  # unknown id: NOT_FOUND as isError
    "gno_list_jobs": {},
    "gno_recall": {"query": "lighthouse", "collection": "memory", "scopes": ["p"]},  # no such
    "gno_section": {"action": "create", "ref": "gno://notes/alpha.md", "anchor": "alpha"},
    "gno_audit": {"category": "links", "maxFindings": 5},
    "gno_context": {"goal": "lighthouse keeper", "budgetTokens": 12000, "depthPolicy": "fast"},
    "gno_context_verify": {"capsule": {"schemaVersion": "1.1"}},  # malformed: invalid_input
    "gno_ask": {"query": "lighthouse", "verify": True},  # no gen model here: UNAVAILABLE
    # graph and knowledge delta (contract-tests/test_graph_surfaces.py checks them closely)
    "gno_links": {"ref": "gno://notes/alpha.md"},
    "gno_backlinks": {"ref": "gno://notes/alpha.md"},
    "gno_similar": {"ref": "gno://notes/alpha.md"},  # no vectors: UNAVAILABLE naming the fix
    "gno_graph": {},
    "gno_graph_neighbors": {"ref": "notes/alpha.md"},
    "gno_graph_path": {"from": "notes/alpha.md", "to": "notes/beta.md"},
    "gno_graph_query": {"ref": "gno://notes/alpha.md"},
    "gno_list_tags": {},
    "gno_changes": {},
    "gno_diff": {"ref": "gno://notes/alpha.md"},
    "gno_impact": {"ref": "gno://notes/alpha.md"},
    # egress (contract-tests/test_egress_mcp.py checks enforcement)
    "gno_egress_policy_get": {"collection": "notes"},
    "gno_egress_check": {
        "action": "serve",
        "destinationZone": "lan",
        "caller": {"authenticated": True, "operationAuthorized": True},
        "contentClass": "snippet",
    },
    "gno_egress_audit_list": {"limit": 5},
    "gno_egress_audit_show": {"auditId": "egr_000000000000000000000000"},  # none: NOT_FOUND
    "gno_egress_audit_status": {},
    # retrieval traces (off in this corpus; contract-tests/test_trace_surfaces.py turns them on)
    "gno_trace_list": {},
    "gno_trace_show": {"traceId": "trc_00000000000000000000000000000000"},
}
EXPECTED_ERRORS = {
    "gno_egress_audit_show": "No egress audit receipt",
    "gno_vsearch": "embed",
    "gno_job_status": "Job not found",
    "gno_context_verify": "Error [invalid_input]",
    "gno_ask": "No answer model",
    "gno_recall": "Collection not found",
    "gno_similar": "gno embed",
    "gno_trace_show": "Retrieval trace not found",
}


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("mcp")
    notes = write_tree(root / "corpus" / "notes", NOTES)
    misc = write_tree(root / "corpus" / "misc", MISC)
    env = gno_env(root)
    for args in (
        ["init", "--json"],
        ["collection", "add", str(notes), "--name", "notes", "--json"],
        ["collection", "add", str(misc), "--name", "misc", "--json"],
        ["update", "--json"],
    ):
        proc = run_gno(env, *args)
        assert proc.returncode == 0, proc.stderr
    return {"root": root, "env": env}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def http_host(env: dict[str, str], *flags: str) -> Iterator[int]:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "mcp_http_host.py"), str(port), *flags],
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2):
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(
                    f"HTTP host did not start: {proc.stderr.read() if proc.stderr else ''}"
                )
            time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.fixture(scope="module")
def http_ports(corpus: dict[str, Any]) -> Iterator[dict[str, int]]:
    with http_host(corpus["env"]) as read_only, http_host(corpus["env"], "--enable-write") as write:
        yield {"read": read_only, "write": write}


def _target(
    corpus: dict[str, Any], ports: dict[str, int] | None, transport: str, write: bool
) -> Any:
    if transport == "stdio":
        return StdioServerParameters(
            command=str(GNO),
            args=["mcp", *(["--enable-write"] if write else [])],
            env=corpus["env"],
            cwd=str(corpus["root"]),
        )
    assert ports is not None
    path = "/mcp-stateless" if transport == "http-stateless" else "/mcp"
    return f"http://127.0.0.1:{ports['write' if write else 'read']}{path}"


@contextlib.asynccontextmanager
async def connect(target: Any, mode: str) -> AsyncIterator[Any]:
    async with Client(target, mode=mode) as client:
        yield client


def _structured(result: Any) -> dict[str, Any]:
    return result.structured_content


TRANSPORTS = [
    (transport, mode)
    for transport in ("stdio", "http", "http-stateless")
    for mode in ("legacy", "auto")
]


@pytest.mark.parametrize(("transport", "mode"), TRANSPORTS, ids=[f"{t}-{m}" for t, m in TRANSPORTS])
def test_read_surface(
    corpus: dict[str, Any], http_ports: dict[str, int], transport: str, mode: str
) -> None:
    """One session per transport and era: tools = registry, every read tool valid, bad
    arguments isError, resources listed and read, traversal refused."""
    expected = tools("full", enable_write=False)
    assert set(READ_CALLS) == set(expected), "every read tool needs an entry in READ_CALLS"

    async def session() -> None:
        async with connect(_target(corpus, http_ports, transport, False), mode) as client:
            assert client.protocol_version == ERAS[mode]
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert list(listed) == list(expected)
            for name, tool in listed.items():
                spec = expected[name]
                assert tool.input_schema == spec.input_schema
                assert tool.output_schema == spec.output_schema
                assert (
                    tool.input_schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
                )
                assert tool.annotations.read_only_hint is True
                assert tool.annotations.destructive_hint is False

            for name, arguments in READ_CALLS.items():
                result = await client.call_tool(name, arguments)
                text = result.content[0].text
                if name in EXPECTED_ERRORS:
                    assert result.is_error, f"{name} should fail on this corpus"
                    assert EXPECTED_ERRORS[name] in text
                    assert set(_structured(result)) == {"error", "message"}
                    continue
                assert not result.is_error, f"{name}: {text}"
                assert_valid(expected[name].op.output_schema, _structured(result))
                assert text

            search = _structured(await client.call_tool("gno_search", READ_CALLS["gno_search"]))
            assert {hit["uri"] for hit in search["results"]} >= {
                "gno://notes/alpha.md",
                "gno://misc/readme.md",
            }
            status = _structured(await client.call_tool("gno_status", {}))
            assert [c["name"] for c in status["collections"]] == ["misc", "notes"]
            assert status["activeDocuments"] == len(NOTES) + len(MISC)
            assert status["resident"]["mode"] == ("stdio" if transport == "stdio" else "direct-cli")
            got = await client.call_tool("gno_get", READ_CALLS["gno_get"])
            assert _structured(got)["content"].startswith("2: ")
            assert "--- Content (lines 2-4) ---" in got.content[0].text

            # (an unknown key is ignored, as GNO does: tests in test_input_keys.py)
            for bad, field in (({}, "query"), ({"query": "x", "limit": 0}, "limit")):
                result = await client.call_tool("gno_search", bad)
                assert result.is_error and field in result.content[0].text
                assert _structured(result)["error"] == "VALIDATION"

            await _capsule_round_trip(client, verify=True)
            refused = await client.call_tool("gno_ask", {"query": "lighthouse", "verify": False})
            assert refused.is_error and _structured(refused)["error"] == "VALIDATION"

            with pytest.raises(MCPError) as unknown:
                await client.call_tool("gno_sync", {})
            assert unknown.value.code == -32602

            resources = (await client.list_resources()).resources
            uris = {str(r.uri) for r in resources}
            assert {"gno://notes/alpha.md", "gno://misc/readme.md"} <= uris
            alpha = next(r for r in resources if str(r.uri) == "gno://notes/alpha.md")
            assert alpha.name == "alpha.md" and alpha.mime_type == "text/markdown"
            read = await client.read_resource("gno://notes/alpha.md")
            body = read.contents[0].text
            assert body.startswith("<!-- gno://notes/alpha.md\n")
            assert "\n1: ---\n" in body and "zephyrquartz" in body
            for evil in ("gno://notes/../misc/readme.md", "gno://notes/%2e%2e/misc/readme.md",
                         "gno://notes/sub/../../x.md"):  # fmt: skip
                with pytest.raises(MCPError):
                    await client.read_resource(evil)
            with pytest.raises(MCPError):
                await client.read_resource("gno://notes/missing.md")

    anyio.run(session)


async def _wait_job(client: Any, job_id: str) -> dict[str, Any]:
    for _ in range(600):
        status = await client.call_tool("gno_job_status", {"jobId": job_id})
        assert not status.is_error, status.content[0].text
        payload = _structured(status)
        assert_valid("gno://schemas/mcp-job-status@1.0", payload)
        if payload["status"] != "running":
            return payload
        await anyio.sleep(0.1)
    raise AssertionError(f"job {job_id} did not finish")


@pytest.mark.parametrize(("transport", "mode"), [("stdio", "legacy"), ("http", "auto")])
def test_write_tools_behind_the_gate(
    corpus: dict[str, Any], http_ports: dict[str, int], tmp_path: Path, transport: str, mode: str
) -> None:
    extra = write_tree(
        tmp_path / f"extra-{transport}", {"one.md": "# One\n\nquokka habitat notes\n"}
    )
    name = f"extra{transport.replace('-', '')}"
    writes = {n: t for n, t in tools("full", enable_write=True).items() if not t.read_only}
    assert set(writes) == {
        "gno_sync",
        "gno_embed",
        "gno_index",
        "gno_add_collection",
        "gno_remove_collection",
        "gno_clear_collection_embeddings",
        "gno_capture",
        "gno_remember",
        "gno_create_folder",
        "gno_duplicate_note",
        "gno_rename_note",
        "gno_move_note",
        "gno_egress_policy_set",
        "gno_egress_audit_delete",
        "gno_egress_audit_purge",
        # retrieval traces (contract-tests/test_trace_surfaces.py calls them)
        "gno_trace_label",
        "gno_trace_export",
        "gno_trace_delete",
        "gno_trace_purge",
    }

    async def session() -> None:
        async with connect(_target(corpus, http_ports, transport, True), mode) as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            assert set(writes) <= set(listed)
            # egress writes (spec/egress.md): a relaxation without confirmation changes nothing
            refused = await client.call_tool(
                "gno_egress_policy_set", {"collection": "misc", "policy": "remote"}
            )
            assert refused.is_error and _structured(refused)["error"] == "VALIDATION"
            kept = await client.call_tool(
                "gno_egress_policy_set", {"collection": "misc", "policy": "local_only"}
            )
            assert_valid("gno://schemas/egress-policy-set-result@1.0", _structured(kept))
            gone = await client.call_tool("gno_egress_audit_delete", {"auditId": "egr_none"})
            assert gone.is_error and _structured(gone)["error"] == "NOT_FOUND"
            purged = await client.call_tool("gno_egress_audit_purge", {"confirm": True})
            assert _structured(purged)["schemaVersion"] == "1.0"
            assert listed["gno_remove_collection"].annotations.destructive_hint is True
            assert listed["gno_sync"].annotations.read_only_hint is False

            added = await client.call_tool("gno_add_collection", {"path": str(extra), "name": name})
            assert not added.is_error, added.content[0].text
            receipt = _structured(added)
            assert_valid("gno://schemas/mcp-add-collection-result@1.0", receipt)
            done = await _wait_job(client, receipt["jobId"])
            assert done["status"] == "completed", done
            assert done["typedResult"]["kind"] == "sync"
            assert_valid("gno://schemas/sync-result@1.0", done["typedResult"]["value"])
            found = _structured(await client.call_tool("gno_search", {"query": "quokka"}))
            assert [h["uri"] for h in found["results"]] == [f"gno://{name}/one.md"]

            again = await client.call_tool("gno_add_collection", {"path": str(extra), "name": name})
            assert again.is_error and _structured(again)["error"] == "DUPLICATE"

            synced = await client.call_tool("gno_sync", {"collection": name})
            sync_receipt = _structured(synced)
            assert_valid("gno://schemas/mcp-sync-result@1.0", sync_receipt)
            assert sync_receipt["collections"] == [name]
            assert (await _wait_job(client, sync_receipt["jobId"]))["status"] == "completed"
            jobs = _structured(await client.call_tool("gno_list_jobs", {}))
            assert_valid("gno://schemas/mcp-job-list@1.0", jobs)
            assert {receipt["jobId"], sync_receipt["jobId"]} <= {j["jobId"] for j in jobs["recent"]}

            missing = await client.call_tool("gno_sync", {"collection": "nope"})
            assert missing.is_error and _structured(missing)["error"] == "NOT_FOUND"
            no_model = await client.call_tool("gno_embed", {})
            assert no_model.is_error and "gno models pull" in no_model.content[0].text

            cleared = await client.call_tool(
                "gno_clear_collection_embeddings", {"collection": name}
            )
            assert not cleared.is_error, cleared.content[0].text
            assert_valid("gno://schemas/clear-embeddings@1.0", _structured(cleared))
            assert _structured(cleared)["deletedVectors"] == 0  # nothing was embedded

            removed = await client.call_tool("gno_remove_collection", {"collection": name})
            assert_valid("gno://schemas/mcp-remove-result@1.0", _structured(removed))
            gone = _structured(await client.call_tool("gno_search", {"query": "quokka"}))
            assert gone["results"] == []

    anyio.run(session)


def test_core_profile_over_stdio(corpus: dict[str, Any]) -> None:
    params = StdioServerParameters(
        command=str(GNO), args=["mcp", "--tool-profile", "core"], env=corpus["env"]
    )

    async def session() -> None:
        async with connect(params, "legacy") as client:
            listed = {tool.name: tool for tool in (await client.list_tools()).tools}
            # GNO's core list as far as gno has the tools, in GNO's order (gno_query first)
            assert list(listed) == [
                "gno_query",
                "gno_search",
                "gno_get",
                "gno_multi_get",
                "gno_context",
                "gno_changes",
                "gno_recall",
            ]
            for name, tool in listed.items():
                assert tool.description == tools("core")[name].op.mcp.brief
                assert tool.input_schema == load_schema(tools("core")[name].op.input_schema)
            with pytest.raises(MCPError) as outside:
                await client.call_tool("gno_peek", {})
            assert outside.value.code == -32602
            hit = await client.call_tool("gno_query", {"query": "zephyrquartz"})
            assert _structured(hit)["results"][0]["uri"] == "gno://notes/alpha.md"
            await _capsule_round_trip(client, verify=False)

    anyio.run(session)


async def _capsule_round_trip(client: Any, verify: bool) -> None:
    """gno_context: text is the agent projection of structuredContent; gno_context_verify
    accepts the Capsule back; context errors carry GNO's lowercase codes."""
    from gno.core.capsule_text import agent_projection

    args = {"goal": "zephyrquartz lighthouse", "budgetTokens": 12000, "depthPolicy": "fast"}
    built = await client.call_tool("gno_context", args | {"format": "md"})
    capsule = _structured(built)
    assert_valid("gno://schemas/context-capsule-v1@1.1", capsule)
    assert built.content[0].text == agent_projection(capsule)
    assert json.loads(built.content[0].text)["v"] == "gno-context-agent-v1"
    if verify:  # gno_context_verify is not in the core profile
        checked = await client.call_tool("gno_context_verify", {"capsule": capsule})
        assert not checked.is_error, checked.content[0].text
        assert _structured(checked)["contentStatus"] == "unchanged"
    failed = await client.call_tool("gno_context", args | {"budgetTokens": 0})
    assert failed.is_error and _structured(failed)["error"] == "invalid_budget"
    assert failed.content[0].text.startswith("Error [invalid_budget]: ")
    unknown = await client.call_tool("gno_context", args | {"collections": ["nope"]})
    assert _structured(unknown)["error"] == "invalid_filter"


def test_stdio_keeps_stdout_for_the_protocol(corpus: dict[str, Any]) -> None:
    """Raw JSON-RPC over a pipe: every stdout line is a JSON-RPC message, nothing else."""
    lines = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": LEGACY, "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
         "params": {"name": "gno_query", "arguments": {"query": "lighthouse"}}},
    ]  # fmt: skip
    proc = subprocess.Popen(
        [str(GNO), "mcp"],
        env=corpus["env"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin and proc.stdout
    proc.stdin.write("".join(json.dumps(m) + "\n" for m in lines))
    proc.stdin.flush()
    replies = [json.loads(proc.stdout.readline()) for _ in range(2)]
    proc.stdin.close()  # end of input: the server exits cleanly
    assert proc.wait(timeout=60) == 0
    assert proc.stdout.read() == ""
    assert [r["id"] for r in replies] == [1, 2]
    assert replies[0]["result"]["serverInfo"]["name"] == "gno"
    assert replies[1]["result"]["structuredContent"]["meta"]["mode"] == "bm25_only"


def test_tool_profile_must_be_known(corpus: dict[str, Any]) -> None:
    proc = run_gno(corpus["env"], "--json", "mcp", "--tool-profile", "tiny")
    assert proc.returncode == 1
    assert json.loads(proc.stderr)["error"]["code"] == "VALIDATION"
    assert "tiny" in proc.stderr


@pytest.fixture(scope="module")
def in_process(corpus: dict[str, Any]) -> Iterator[Any]:
    """The server in this process (SDK in-memory transport) with a blocking portal, so
    hypothesis examples share one session instead of starting a server each."""
    from anyio.from_thread import start_blocking_portal

    from gno.app import App
    from gno.mcp.server import build_server
    from gno.paths import resolve_paths

    with pytest.MonkeyPatch.context() as patch:
        for key in ("GNO_CONFIG_DIR", "GNO_DATA_DIR", "GNO_CACHE_DIR"):
            patch.setenv(key, corpus["env"][key])
        app = App(resolve_paths())
        server = build_server(app, enable_write=False)
        with (
            start_blocking_portal() as portal,
            portal.wrap_async_context_manager(Client(server, mode="legacy")) as client,
        ):
            yield portal, client
        app.close()


def _shaped(schema: dict[str, Any], root: dict[str, Any]) -> Any:
    """Values shaped like ``schema``: mostly valid, sometimes just outside its bounds."""
    from hypothesis import strategies as st

    if "$ref" in schema:
        return _shaped(root["$defs"][schema["$ref"].rsplit("/", 1)[-1]], root)
    if "enum" in schema:
        return st.sampled_from(schema["enum"]) | st.text(max_size=8)
    if "const" in schema:
        return st.just(schema["const"])
    kind = schema.get("type")
    if kind == "object":
        props = {k: _shaped(v, root) for k, v in schema.get("properties", {}).items()}
        required = set(schema.get("required", []))
        return st.fixed_dictionaries(
            {k: v for k, v in props.items() if k in required},
            optional={k: v for k, v in props.items() if k not in required},
        )
    if kind == "array":
        return st.lists(_shaped(schema.get("items", {}), root), max_size=4)
    if kind == "integer":
        low = schema.get("minimum", -5)
        high = schema.get("maximum", low + 200)
        return st.integers(low - 1, high + 1)
    if kind == "number":
        return st.floats(schema.get("minimum", -2) - 1, schema.get("maximum", 2) + 1)
    if kind == "boolean":
        return st.booleans()
    words = st.sampled_from(["lighthouse", "gno://notes/alpha.md", "#abc", "notes", "*.md", "a b"])
    return words | st.text(max_size=30)


FUZZ_TOOLS = sorted(tools("full", enable_write=False))


@pytest.mark.parametrize("name", FUZZ_TOOLS)
def test_random_arguments_never_crash(in_process: Any, name: str) -> None:
    """Arguments drawn from the input schema, and arbitrary JSON objects: every answer is
    either a result valid against the output schema or an isError naming the problem."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    portal, client = in_process
    tool = tools("full", enable_write=False)[name]
    scalars = (
        st.none()
        | st.booleans()
        | st.integers()
        | st.floats(allow_nan=False)
        | st.text(max_size=20)
    )
    junk = st.dictionaries(st.text(max_size=12), scalars, max_size=4)

    @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
    @given(arguments=_shaped(tool.input_schema, tool.input_schema) | junk)
    def check(arguments: dict[str, Any]) -> None:
        result = portal.call(client.call_tool, name, arguments)
        payload = result.structured_content
        if result.is_error:
            assert set(payload) == {"error", "message"} and payload["message"]
            # GNO's context tools name their lowercase code: `Error [invalid_budget]: ...`
            code = payload["error"]
            shown = f"Error [{code}]: " if code.islower() else "Error: "
            assert result.content[0].text == shown + payload["message"]
            assert not payload["message"].startswith("Internal error"), payload["message"]
        else:
            assert_valid(tool.op.output_schema, payload)

    check()


def test_resources_of_a_named_index_round_trip(tmp_path: Path) -> None:
    """A non-default index: listed URIs carry ?index=<name>, reading them works, and a URI of
    another index is refused rather than read from the wrong one."""
    notes = write_tree(tmp_path / "notes", {"one.md": "# One\n\nwombat burrow notes\n"})
    env = gno_env(tmp_path / "home")
    for args in (
        ["--index", "Work", "init", "--json"],
        ["--index", "Work", "collection", "add", str(notes), "--name", "notes", "--json"],
        ["--index", "Work", "update", "--json"],
    ):
        proc = run_gno(env, *args)
        assert proc.returncode == 0, proc.stderr
    params = StdioServerParameters(command=str(GNO), args=["--index", "Work", "mcp"], env=env)

    async def session() -> None:
        async with connect(params, "legacy") as client:
            uris = [str(r.uri) for r in (await client.list_resources()).resources]
            assert uris == ["gno://notes/one.md?index=Work"]
            body = (await client.read_resource(uris[0])).contents[0].text
            assert body.startswith("<!-- gno://notes/one.md?index=Work\n") and "wombat" in body
            with pytest.raises(MCPError, match="belongs to index"):
                await client.read_resource("gno://notes/one.md?index=other")
            hits = _structured(await client.call_tool("gno_search", {"query": "wombat"}))
            assert [h["uri"] for h in hits["results"]] == uris

    anyio.run(session)
