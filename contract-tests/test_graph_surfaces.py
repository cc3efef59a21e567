"""Graph and knowledge delta operations on every surface, against their schemas.

One linked corpus (wiki and Markdown links, frontmatter relations, tags, a link cycle),
indexed and embedded (tiny random-weight model) by real `gno` processes; then the same
questions through the CLI (--json and text), MCP over stdio (`gno mcp`), MCP over HTTP
(`/mcp` of a real `gno serve`) and REST (the same server). Every answer must validate
against the operation's output schema; unknown refs are NOT_FOUND (exit 2 / 404 /
isError), caps out of range VALIDATION (exit 1 / 400 / isError), and `similar` on an
index without vectors UNAVAILABLE (exit 2 / 503 / isError) naming `gno embed`.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio
import httpx
import pytest
from contract_helpers import GNO, assert_valid, gno_env, gno_err, gno_ok, run_gno, write_tree
from gno_contracts.operations import BY_ID
from rest_helpers import running

from gno.services import model

mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402

FILES = {
    "hub.md": "---\ntags: [project/graph, hub]\n---\n# Hub\n\nSee [[Spoke]] and [other](other.md).\n",
    "spoke.md": "---\ntitle: Spoke\ntags: [project/graph]\n---\n# Spoke\n\nBack to [[Hub]].\n",
    "other.md": "---\nrelations:\n  depends_on: [hub.md]\n---\n# Other\n\nLinks [[Hub]] and [[nowhere]].\n",
    "chain/a.md": "# A\n\nNext [[chain/b]].\n",
    "chain/b.md": "# B\n\nBack [[chain/a]] and on to [[Hub]].\n",
    "lonely.md": "# Lonely\n\nNo links here.\n",
}
OUT = {  # operation id -> output schema
    "links": "gno://schemas/links-list@1.1",
    "backlinks": "gno://schemas/backlinks@1.0",
    "similar": "gno://schemas/similar@1.0",
    "graph": "gno://schemas/graph@1.0",
    "neighbors": "gno://schemas/graph-neighbors@1.0",
    "path": "gno://schemas/graph-path@1.0",
    "graph_query": "gno://schemas/graph-query@1.0",
    "tags": "gno://schemas/tags-list@1.0",
    "changes": "gno://schemas/changes@1.0",
    "diff": "gno://schemas/document-diff@1.0",
    "impact": "gno://schemas/impact@1.0",
}


def _home(root: Path, vectors: bool) -> dict[str, str]:
    notes = write_tree(root / "corpus" / "notes", FILES)
    env = gno_env(root)
    steps = [["init", str(notes), "--name", "notes"], ["update", "--json"]]
    if vectors:
        from tests.tiny_gguf import write_tiny_bert

        env["GNO_EMBED_MODEL"] = f"file:{write_tiny_bert(root / 'tiny-bert.gguf')}"
        steps.append(["embed", "--json"])
    for args in steps:
        done = run_gno(env, *args)
        assert done.returncode == 0, (args, done.stderr)
    return env


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return _home(tmp_path_factory.mktemp("graph"), vectors=True)


@pytest.fixture(scope="module")
def bare_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return _home(tmp_path_factory.mktemp("graph-bare"), vectors=False)


@pytest.fixture(scope="module")
def server(env: dict[str, str]) -> Iterator[Any]:
    with running(env) as srv:
        yield srv


# ---------------------------------------------------------------- CLI

CLI_JSON = [
    (["links", "notes/hub.md"], "links"),
    (["links", "list", "notes/hub.md", "--type", "wiki"], "links"),
    (["links", "notes/other.md", "--edge-type", "depends_on"], "links"),
    (["backlinks", "notes/hub.md"], "backlinks"),
    (["backlinks", "notes/hub.md", "--relation", "depends_on", "-c", "notes"], "backlinks"),
    (["similar", "notes/hub.md", "--threshold", "0", "--cross-collection"], "similar"),
    (["graph", "--include-isolated"], "graph"),
    (["graph", "--neighbors", "Hub", "--direction", "in"], "neighbors"),
    (["graph", "--from", "chain/a.md", "--to", "spoke.md"], "path"),
    (["graph", "query", "notes/hub.md", "--direction", "in", "--max-depth", "3"], "graph_query"),
    (["tags"], "tags"),
    (["tags", "list", "--prefix", "project"], "tags"),
    (["changes", "--since", "1h", "-n", "2"], "changes"),
    (["diff", "notes/hub.md"], "diff"),
    (["impact", "notes/hub.md"], "impact"),
]


@pytest.mark.parametrize(("args", "op"), CLI_JSON, ids=[" ".join(a) for a, _ in CLI_JSON])
def test_cli_json_validates(env: dict[str, str], args: list[str], op: str) -> None:
    proc = run_gno(env, *args, "--json")
    assert proc.returncode == 0, proc.stderr
    payload = json.loads(proc.stdout)
    assert_valid(OUT[op], payload)
    if op == "impact":  # both documents that link to the hub depend on it
        found = {item["document"]["relPath"] for item in payload["impacted"]}
        assert {"spoke.md", "other.md", "chain/b.md"} <= found
    if op == "path":
        nodes = [n["relPath"] for n in payload["path"]["nodes"]]
        assert nodes[0] == "chain/a.md" and nodes[-1] == "spoke.md"
    if args[:2] == ["tags", "list"]:
        assert [t["tag"] for t in payload["tags"]] == ["project/graph"]


def test_cli_text_and_graph_formats(env: dict[str, str]) -> None:
    for args in (["links", "notes/hub.md"], ["backlinks", "notes/hub.md", "--md"], ["changes"]):
        proc = run_gno(env, *args)
        assert proc.returncode == 0 and proc.stdout.strip(), proc.stderr
    assert "notes/spoke.md" in run_gno(env, "impact", "notes/hub.md").stdout
    texts = {  # every other read's terminal text: its header line, then one line per item
        ("links", "notes/hub.md"): "2 outgoing link(s) in gno://notes/hub.md",
        ("backlinks", "notes/hub.md"): "backlink(s) to gno://notes/hub.md",
        (
            "similar",
            "notes/hub.md",
            "--threshold",
            "0",
        ): "document(s) similar to gno://notes/hub.md",
        ("graph", "query", "notes/hub.md"): "from gno://notes/hub.md",
        ("tags",): "project/graph (2)",
        ("tags", "--md"): "# Tags",
        ("diff", "notes/hub.md"): "Structural diff for gno://notes/hub.md: available",
        ("changes",): "retained document change(s)",
    }
    for args, expected in texts.items():
        proc = run_gno(env, *args)
        assert proc.returncode == 0, (args, proc.stderr)
        assert expected in proc.stdout, (args, proc.stdout)
        assert not proc.stdout.lstrip().startswith("{"), args  # text, not JSON
    default = run_gno(env, "graph")  # GNO prints the graph as JSON unless asked otherwise
    assert_valid(OUT["graph"], json.loads(default.stdout))
    dot = run_gno(env, "graph", "--dot").stdout
    assert dot.startswith("digraph gno {") and dot.rstrip().endswith("}")
    mermaid = run_gno(env, "graph", "--neighbors", "Hub", "--mermaid").stdout
    assert mermaid.startswith("flowchart LR") and '"Hub"' in mermaid


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (["links", "notes/missing.md"], 2, "not found"),
        (["impact", "#0000dead"], 2, "not found"),
        (["graph", "--neighbors", "No Such Node"], 2, "not found"),
        (["graph", "query", "notes/missing.md"], 2, "not found"),
        (["diff", "notes/missing.md"], 2, "not found"),
        (["impact", "notes/hub.md", "--max-depth", "7"], 1, "maxDepth"),
        (["graph", "query", "notes/hub.md", "--max-nodes", "0"], 1, "maxNodes"),
        (["changes", "-n", "1001"], 1, "limit"),
        (["changes", "--since", "gno-change-v1.???"], 1, ""),
        (["graph", "--from", "hub.md"], 1, "--to"),
        (["links", "notes/hub.md", "--type", "wiki", "--edge-type", "mentions"], 1, "type"),
    ],
)
def test_cli_bad_input(env: dict[str, str], args: list[str], code: int, needle: str) -> None:
    error = gno_err(env, code, *args, "--json")
    assert error["code"] == ("VALIDATION" if code == 1 else "RUNTIME")
    assert needle.lower() in error["message"].lower()


def test_graph_of_an_empty_index_names_the_fix(tmp_path: Path) -> None:
    """As GNO: `gno graph` with no document indexed is exit 1 naming `gno update`; REST 404."""
    (tmp_path / "corpus" / "empty").mkdir(parents=True)
    env = gno_env(tmp_path)
    gno_ok(env, "init", str(tmp_path / "corpus" / "empty"), "--name", "empty", "--json")
    gno_ok(env, "update", "--json")
    error = gno_err(env, 1, "graph", "--json")
    assert error["message"] == "No documents indexed. Run: gno update"
    assert gno_ok(env, "tags", "--json")["tags"] == []  # the other reads answer empty
    with running(env) as srv, httpx.Client(base_url=srv.url, timeout=30) as http:
        answer = http.get("/api/graph")
    assert answer.status_code == 404 and answer.json()["error"]["code"] == "NOT_FOUND"


def test_cli_similar_without_vectors_names_the_fix(bare_env: dict[str, str]) -> None:
    error = gno_err(bare_env, 2, "similar", "notes/hub.md", "--json")
    assert "gno embed" in error["message"]


# ---------------------------------------------------------------- MCP

MCP_CALLS = [
    ("gno_links", {"ref": "gno://notes/hub.md"}, "gno://schemas/mcp-links@1.0"),
    ("gno_links", {"ref": "notes/hub.md", "type": "markdown"}, "gno://schemas/mcp-links@1.0"),
    ("gno_backlinks", {"ref": "notes/hub.md"}, "gno://schemas/mcp-backlinks@1.0"),
    ("gno_similar", {"ref": "notes/hub.md", "threshold": 0}, "gno://schemas/mcp-similar@1.0"),
    ("gno_graph", {"linkedOnly": False}, OUT["graph"]),
    ("gno_graph_neighbors", {"ref": "Hub"}, OUT["neighbors"]),
    ("gno_graph_path", {"from": "chain/a.md", "to": "Spoke"}, OUT["path"]),
    ("gno_graph_query", {"ref": "notes/hub.md", "direction": "in"}, OUT["graph_query"]),
    ("gno_list_tags", {"prefix": "project/"}, OUT["tags"]),
    ("gno_changes", {"limit": 2}, OUT["changes"]),
    ("gno_diff", {"ref": "notes/hub.md"}, OUT["diff"]),
    ("gno_impact", {"ref": "notes/hub.md", "maxDepth": 2}, OUT["impact"]),
]
MCP_BAD = [
    ("gno_links", {"ref": "notes/missing.md"}, "NOT_FOUND"),
    ("gno_impact", {"ref": "#0000dead"}, "NOT_FOUND"),
    ("gno_graph_path", {"from": "Hub", "to": "Nope Nope"}, "NOT_FOUND"),
    ("gno_diff", {"ref": "notes/missing.md"}, "NOT_FOUND"),
    ("gno_impact", {"ref": "notes/hub.md", "maxNodes": 1001}, "VALIDATION"),
    ("gno_graph_query", {"ref": "notes/hub.md", "maxDepth": 0}, "VALIDATION"),
    ("gno_graph_path", {"from": "Hub", "to": "Spoke", "maxDepth": 13}, "VALIDATION"),
    ("gno_changes", {"limit": 5000}, "VALIDATION"),
]


@contextlib.asynccontextmanager
async def _client(target: Any) -> AsyncIterator[Any]:
    async with Client(target, mode="legacy") as client:
        yield client


async def _mcp_checks(client: Any) -> None:
    for name, arguments, schema in MCP_CALLS:
        result = await client.call_tool(name, arguments)
        assert not result.is_error, f"{name}: {result.content[0].text}"
        assert_valid(schema, result.structured_content)
        assert result.content[0].text
    path = await client.call_tool("gno_graph_path", {"from": "chain/a.md", "to": "Spoke"})
    assert path.content[0].text.startswith("Graph path (")
    changes = await client.call_tool("gno_changes", {})
    assert "retained document changes" in changes.content[0].text
    lenient = await client.call_tool("gno_changes", {"limit": 1, "zzUnknown": True})
    assert not lenient.is_error, lenient.content[0].text
    for name, arguments, code in MCP_BAD:
        result = await client.call_tool(name, arguments)
        assert result.is_error, f"{name} {arguments} should fail"
        assert result.structured_content["error"] == code, result.content[0].text
    tags = await client.read_resource("gno://tags?prefix=project")
    body = json.loads(tags.contents[0].text)
    assert_valid(OUT["tags"], body)
    assert body["tags"] == [{"tag": "project/graph", "count": 2}]
    assert tags.contents[0].mime_type == "application/json"
    for bad in ("gno://tags?bogus=1", "gno://tags?collection=nope", "gno://tags?prefix=/"):
        with pytest.raises(MCPError):
            await client.read_resource(bad)


def test_mcp_stdio(env: dict[str, str]) -> None:
    params = StdioServerParameters(command=str(GNO), args=["mcp"], env=env)

    async def session() -> None:
        async with _client(params) as client:
            await _mcp_checks(client)

    anyio.run(session)


def test_mcp_http(server: Any) -> None:
    async def session() -> None:
        async with _client(f"{server.url}/mcp") as client:
            await _mcp_checks(client)

    anyio.run(session)


def test_mcp_similar_without_vectors(bare_env: dict[str, str]) -> None:
    params = StdioServerParameters(command=str(GNO), args=["mcp"], env=bare_env)

    async def session() -> None:
        async with _client(params) as client:
            result = await client.call_tool("gno_similar", {"ref": "notes/hub.md"})
            assert result.is_error and result.structured_content["error"] == "UNAVAILABLE"
            assert "gno embed" in result.content[0].text

    anyio.run(session)


# ---------------------------------------------------------------- REST


def _doc_id(env: dict[str, str], ref: str) -> str:
    return str(gno_ok(env, "links", ref, "--json")["meta"]["docid"])


def test_rest_routes(env: dict[str, str], server: Any) -> None:
    hub = _doc_id(env, "notes/hub.md").lstrip("#")
    gets = [
        (f"/api/doc/{hub}/links", {}, "links"),
        (f"/api/doc/{quote('#' + hub)}/links", {"type": "wiki"}, "links"),
        (f"/api/doc/{hub}/backlinks", {"collection": "notes"}, "backlinks"),
        (f"/api/doc/{hub}/similar", {"threshold": "0.0", "limit": "50"}, "similar"),
        ("/api/graph", {"linkedOnly": "false", "threshold": "0.5"}, "graph"),
        ("/api/changes", {"since": "2h", "limit": "3"}, "changes"),
        ("/api/diff", {"ref": "notes/hub.md"}, "diff"),
        ("/api/impact", {"ref": "notes/hub.md", "maxDepth": "2"}, "impact"),
        ("/api/tags", {"prefix": "project"}, "tags"),
    ]
    with httpx.Client(base_url=server.url, timeout=30) as http:
        for path, params, op in gets:
            answer = http.get(path, params=params)
            assert answer.status_code == 200, (path, answer.text)
            assert_valid(OUT[op], answer.json())
            # Answered from the wire form, without the model: still the model's very bytes
            # (key order, pydantic's float spelling, only the fields that were set).
            again = model(BY_ID[op].output_model).model_validate_json(answer.content)
            assert again.model_dump_json(exclude_unset=True).encode() == answer.content, path
        # GNO ignores keys its open inputs do not document (a cache-buster); impact's
        # `collection` limits the dependents (test_rest_path_params.py)
        extra = http.get(
            "/api/impact", params={"ref": "notes/hub.md", "collection": "notes", "_": "1"}
        )
        assert extra.status_code == 200, extra.text
        similar = http.get(f"/api/doc/{hub}/similar", params={"threshold": "0", "limit": "50"})
        assert similar.json()["meta"]["limit"] == 20  # clamped, as GNO does
        for body in ({"doc": "notes/hub.md"}, {"root": "notes/hub.md", "depth": 3}):
            answer = http.post("/api/graph/query", json=body)
            assert answer.status_code == 200, answer.text
            assert_valid(OUT["graph_query"], answer.json())
            assert answer.json()["root"]["relPath"] == "hub.md"


@pytest.mark.parametrize(
    ("method", "path", "params", "status", "code"),
    [
        ("GET", "/api/doc/0000dead/links", {}, 404, "NOT_FOUND"),
        ("GET", "/api/doc/0000dead/backlinks", {}, 404, "NOT_FOUND"),
        ("GET", "/api/diff", {"ref": "notes/missing.md"}, 404, "NOT_FOUND"),
        ("GET", "/api/impact", {"ref": "notes/missing.md"}, 404, "NOT_FOUND"),
        ("GET", "/api/impact", {"ref": "notes/hub.md", "maxEdges": "5001"}, 400, "VALIDATION"),
        ("GET", "/api/changes", {"limit": "0"}, 400, "VALIDATION"),
        ("GET", "/api/changes", {"since": "not a time"}, 400, "VALIDATION"),
        ("GET", "/api/graph", {"limit": "5001"}, 400, "VALIDATION"),
        ("GET", "/api/tags", {"prefix": "/"}, 400, "VALIDATION"),
        ("GET", "/api/diff", {}, 400, "VALIDATION"),
        ("POST", "/api/graph/query", {}, 400, "VALIDATION"),
        ("POST", "/api/graph/query", {"doc": "notes/hub.md", "maxDepth": 7}, 400, "VALIDATION"),
        ("POST", "/api/graph/query", {"doc": "notes/missing.md"}, 404, "NOT_FOUND"),
    ],
)
def test_rest_bad_input(
    server: Any, method: str, path: str, params: dict[str, Any], status: int, code: str
) -> None:
    with httpx.Client(base_url=server.url, timeout=30) as http:
        send = http.get if method == "GET" else http.post
        answer = send(path, params=params) if method == "GET" else send(path, json=params)
    assert answer.status_code == status, answer.text
    assert answer.json()["error"]["code"] == code


def test_rest_similar_without_vectors(bare_env: dict[str, str]) -> None:
    hub = _doc_id(bare_env, "notes/hub.md").lstrip("#")
    with running(bare_env) as srv, httpx.Client(base_url=srv.url, timeout=30) as http:
        answer = http.get(f"/api/doc/{hub}/similar")
        assert answer.status_code == 503, answer.text
        error = answer.json()["error"]
        assert error["code"] == "UNAVAILABLE" and "gno embed" in error["message"]


def test_changes_cursor_pages_on_every_surface(env: dict[str, str], server: Any) -> None:
    """A page's nextCursor continues where it stopped: the pages join into the whole list."""
    whole = gno_ok(env, "changes", "--json")["changes"]
    first = gno_ok(env, "changes", "-n", "2", "--json")
    assert first["page"]["truncated"] and first["changes"] == whole[:2]
    cursor = first["page"]["nextCursor"]
    with httpx.Client(base_url=server.url, timeout=30) as http:
        rest = http.get("/api/changes", params={"since": cursor, "limit": "1000"}).json()
    assert [c["id"] for c in rest["changes"]] == [c["id"] for c in whole[2:]]


# ---------------------------------------------------------------- SDK and /api/op

SDK_CALLS = [  # (method, arguments, operation id of OUT)
    ("links", {"ref": "notes/hub.md", "type": "wiki"}, "links"),
    ("backlinks", {"ref": "notes/hub.md", "collection": "notes"}, "backlinks"),
    ("similar", {"ref": "notes/hub.md", "threshold": 0.0}, "similar"),
    ("graph", {"linkedOnly": False}, "graph"),
    ("graph_neighbors", {"ref": "Hub", "direction": "in"}, "neighbors"),
    ("graph_path", {"from_": "chain/a.md", "to": "Spoke"}, "path"),
    ("graph_query", {"ref": "notes/hub.md", "direction": "in", "maxDepth": 3}, "graph_query"),
    ("tags", {"prefix": "project"}, "tags"),
    ("changes", {"limit": 2}, "changes"),
    ("diff", {"ref": "notes/hub.md"}, "diff"),
    ("impact", {"ref": "notes/hub.md", "maxDepth": 2}, "impact"),
]


def test_sdk_local_and_remote_answer_the_same_valid_payloads(
    env: dict[str, str], server: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Python SDK on the index in process and against `gno serve` (`POST /api/op/<id>`):
    every graph and journal method answers its schema, both transports the same, and an
    unknown ref or a cap out of range is the same gno.errors class on both."""
    import os

    from gno import Gno
    from gno.errors import NotFoundError, ValidationError

    for key in [k for k in os.environ if k.startswith("GNO_")]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        if key.startswith("GNO_") or key == "HF_HUB_OFFLINE":
            monkeypatch.setenv(key, value)
    with Gno() as local, Gno(url=server.url) as remote:
        for method, arguments, op in SDK_CALLS:
            here, there = (
                getattr(client, method)(**arguments).model_dump(mode="json", exclude_unset=True)
                for client in (local, remote)
            )
            assert_valid(OUT[op], here)
            assert here == there, method
        for client in (local, remote):
            with pytest.raises(NotFoundError, match="not found"):
                client.links(ref="notes/missing.md")
            with pytest.raises(NotFoundError, match="Graph node not found"):
                client.graph_path(from_="Hub", to="Nope Nope")
            with pytest.raises(ValidationError, match="maxDepth"):
                client.impact(ref="notes/hub.md", maxDepth=7)


def test_rest_op_routes_of_neighbours_and_path(server: Any) -> None:
    """GNO has no REST route of its own for neighbours and path; gno's are the SDK's."""
    with httpx.Client(base_url=server.url, timeout=30) as http:
        near = http.post("/api/op/graph_neighbors", json={"ref": "Hub", "direction": "in"})
        assert near.status_code == 200, near.text
        assert_valid(OUT["neighbors"], near.json())
        assert {n["node"]["relPath"] for n in near.json()["neighbors"]} >= {"spoke.md", "other.md"}
        path = http.post("/api/op/graph_path", json={"from": "chain/a.md", "to": "Spoke"})
        assert path.status_code == 200, path.text
        assert_valid(OUT["path"], path.json())
        nodes = [n["relPath"] for n in path.json()["path"]["nodes"]]
        assert nodes[0] == "chain/a.md" and nodes[-1] == "spoke.md"
        missing = http.post("/api/op/graph_path", json={"from": "Hub", "to": "Nope Nope"})
        assert missing.status_code == 404 and missing.json()["error"]["code"] == "NOT_FOUND"
        deep = http.post("/api/op/graph_path", json={"from": "Hub", "to": "Spoke", "maxDepth": 13})
        assert deep.status_code == 400 and deep.json()["error"]["code"] == "VALIDATION"
