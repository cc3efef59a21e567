"""The write operations on every surface: CLI processes, MCP over stdio and /mcp, REST on a
real `gno serve`. Outputs validate against their schemas; write tools exist only behind
the write gate; hostile paths touch nothing."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
import yaml
from contract_helpers import GNO, assert_valid, gno_env, gno_err, gno_ok, run_gno, write_tree

from gno.mcp.tools import tools

httpx = pytest.importorskip("httpx")
mcp = pytest.importorskip("mcp")
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.shared.exceptions import MCPError  # noqa: E402
from rest_helpers import running  # noqa: E402
from test_mcp import http_host  # noqa: E402

RECEIPT = "gno://schemas/capture-receipt@1.0"
MCP_RECEIPT = "gno://schemas/mcp-capture-result@1.0"
CORE_WITH_WRITES = [  # GNO's core profile order (surfaces §3.4)
    "gno_query", "gno_search", "gno_get", "gno_multi_get", "gno_context", "gno_changes",
    "gno_recall", "gno_capture", "gno_remember",
]  # fmt: skip


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def _workspace(root: Path) -> dict[str, Any]:
    notes = write_tree(
        root / "corpus" / "notes", {"alpha.md": "# Alpha\n\nlighthouse keeper log\n"}
    )
    memory = root / "corpus" / "memory"
    memory.mkdir(parents=True)
    env = gno_env(root)
    for args in (
        ["init", "--json"],
        ["collection", "add", str(notes), "--name", "notes", "--json"],
        ["collection", "add", str(memory), "--name", "memory", "--json"],
        ["update", "--json"],
    ):
        done = run_gno(env, *args)
        assert done.returncode == 0, (args, done.stderr)
    config = Path(env["GNO_CONFIG_DIR"]) / "index.yml"
    data = yaml.safe_load(config.read_text())
    for collection in data["collections"]:
        if collection["name"] == "memory":
            collection["memoryManaged"] = True
    config.write_text(yaml.safe_dump(data, sort_keys=False))
    return {"root": root, "env": env, "notes": notes, "memory": memory}


@pytest.fixture
def ws(tmp_path: Path) -> dict[str, Any]:
    return _workspace(tmp_path)


# ---------------------------------------------------------------- CLI


@pytest.mark.parametrize(
    ("kind", "expected"),
    [("fifo", "named pipe"), ("device", "character device"), ("folder", "folder"),
     ("large", "larger than 1048576 bytes")],
)  # fmt: skip
def test_cli_capture_file_reads_only_a_regular_file_without_blocking(
    ws: dict[str, Any], tmp_path: Path, kind: str, expected: str
) -> None:
    """`capture --file` on a named pipe waited for a writer forever; on /dev/zero it read a
    MiB to report the size. Each is refused (exit 1, VALIDATION) before a byte is read."""
    from tests.fifo import unblocked

    source = {"fifo": tmp_path / "pipe", "device": Path("/dev/zero"), "folder": tmp_path,
              "large": tmp_path / "large.txt"}[kind]  # fmt: skip
    if kind == "fifo":
        os.mkfifo(source)
    if kind == "large":
        source.write_text("é" * (512 * 1024 + 1))  # 1 MiB + 2 bytes of whole characters
    before = _files(ws["notes"])
    with unblocked(source) as had_to:
        error = gno_err(ws["env"], 1, "capture", "--file", str(source), "-c", "notes", "--json")
    assert not had_to
    assert error["code"] == "VALIDATION" and expected in error["message"], error
    assert _files(ws["notes"]) == before


def test_cli_capture_remember_recall_and_tags(ws: dict[str, Any], tmp_path: Path) -> None:
    env, notes = ws["env"], ws["notes"]
    receipt = gno_ok(
        env, "capture", "quasar", "rotation", "notes", "-c", "notes", "--tags", "Space", "--json"
    )
    assert_valid(RECEIPT, receipt)
    assert receipt["created"] and receipt["tags"] == ["space"]
    found = gno_ok(env, "search", "quasar rotation", "--json")
    assert [h["uri"] for h in found["results"]] == [receipt["uri"]]
    piped = subprocess.run(
        [str(GNO), "capture", "--stdin", "-c", "notes", "--title", "From Stdin", "--source-kind", "chat", "--json"],
        input="piped nebula text\n", env=env, capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert piped.returncode == 0, piped.stderr
    from_stdin = json.loads(piped.stdout)
    assert_valid(RECEIPT, from_stdin)
    assert from_stdin["relPath"] == "from-stdin.md" and from_stdin["source"]["kind"] == "chat"
    source_file = tmp_path / "in.txt"
    source_file.write_text("file borne pulsar\n")
    from_file = gno_ok(
        env, "capture", "--file", str(source_file), "-c", "notes", "--path", "f/p.md", "--json"
    )
    assert (notes / "f/p.md").read_text().endswith("file borne pulsar\n")
    assert from_file["relPath"] == "f/p.md"

    before = _files(notes)
    for bad in ("../escape.md", "/tmp/abs.md", "CON.md", ".git/x.md"):
        error = gno_err(env, 1, "capture", "x", "-c", "notes", "--path", bad, "--json")
        assert error["code"] == "VALIDATION"
    invalid = subprocess.run(  # a path whose bytes are not UTF-8
        [str(GNO).encode(), b"capture", b"x", b"-c", b"notes", b"--path", b"bad\xffname.md", b"--json"],
        env=env, capture_output=True, timeout=60, check=False,
    )  # fmt: skip
    assert invalid.returncode == 1 and invalid.stdout == b""
    assert _files(notes) == before and not (notes.parent / "escape.md").exists()

    tagged = gno_ok(env, "tags", "add", "notes/alpha.md", "Work", "--json")
    assert tagged == {"docid": tagged["docid"], "tag": "work", "wroteToFile": True}
    assert (
        notes / "alpha.md"
    ).read_text() == "---\ntags:\n  - work\n---\n# Alpha\n\nlighthouse keeper log\n"
    untagged = gno_ok(env, "tags", "rm", "notes/alpha.md", "work", "--json")
    assert (
        untagged["removedFromFile"]
        and (notes / "alpha.md").read_text() == "# Alpha\n\nlighthouse keeper log\n"
    )
    assert gno_err(env, 1, "tags", "rm", "notes/alpha.md", "work", "--json")

    added = gno_ok(
        env,
        "remember",
        "Finn prefers trams.",
        "-c",
        "memory",
        "--scope",
        "project:gno",
        "--decision",
        "add",
        "--json",
    )
    assert added["outcome"] == "added"
    recalled = gno_ok(env, "recall", "trams", "-c", "memory", "--scope", "project:gno", "--json")
    assert [f["text"] for f in recalled["facts"]] == ["Finn prefers trams."]
    assert (
        gno_ok(env, "recall", "trams", "-c", "memory", "--scope", "other", "--json")["facts"] == []
    )


# ---------------------------------------------------------------- MCP


def _structured(result: Any) -> dict[str, Any]:
    return result.structured_content


async def _writes_session(client: Any, ws: dict[str, Any], tag: str) -> None:
    listed = {t.name: t for t in (await client.list_tools()).tools}
    assert {
        "gno_capture",
        "gno_remember",
        "gno_recall",
        "gno_create_folder",
        "gno_duplicate_note",
    } <= set(listed)
    assert listed["gno_capture"].annotations.read_only_hint is False
    captured = await client.call_tool(
        "gno_capture",
        {
            "collection": "notes",
            "content": f"mcp borne {tag} zircon",
            "title": f"MCP {tag}",
            "source": {"kind": "api"},
        },
    )
    assert not captured.is_error, captured.content[0].text
    payload = _structured(captured)
    assert_valid(MCP_RECEIPT, payload)
    assert_valid(RECEIPT, payload)
    assert payload["sync"]["status"] == "completed"
    hits = _structured(await client.call_tool("gno_search", {"query": f"{tag} zircon"}))
    assert [h["uri"] for h in hits["results"]] == [payload["uri"]]
    escape = await client.call_tool(
        "gno_capture", {"collection": "notes", "content": "x", "path": "../out.md"}
    )
    assert escape.is_error and _structured(escape)["error"] == "INVALID_PATH"
    assert not (ws["notes"].parent / "out.md").exists()

    remembered = await client.call_tool(
        "gno_remember",
        {
            "text": f"The {tag} server answers fast.",
            "collection": "memory",
            "scopes": ["p"],
            "decision": "add",
        },
    )
    assert not remembered.is_error, remembered.content[0].text
    assert_valid("gno://schemas/memory-remember@1.0", _structured(remembered))
    recalled = await client.call_tool(
        "gno_recall", {"query": f"{tag} server", "collection": "memory", "scopes": ["p"]}
    )
    assert_valid("gno://schemas/memory-recall@1.0", _structured(recalled))
    assert [f["text"] for f in _structured(recalled)["facts"]] == [
        f"The {tag} server answers fast."
    ]

    folder = await client.call_tool(
        "gno_create_folder", {"collection": "notes", "name": f"dir-{tag}"}
    )
    assert_valid("gno://schemas/workspace-write-result@1.0", _structured(folder))
    copy = await client.call_tool(
        "gno_duplicate_note", {"ref": payload["uri"], "folderPath": f"dir-{tag}"}
    )
    assert not copy.is_error, copy.content[0].text
    assert_valid("gno://schemas/workspace-write-result@1.0", _structured(copy))
    assert (ws["notes"] / _structured(copy)["relPath"]).exists()


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_mcp_write_tools_with_the_gate(ws: dict[str, Any], transport: str) -> None:
    env = ws["env"]

    async def run(target: Any) -> None:
        async with Client(target, mode="legacy") as client:
            await _writes_session(client, ws, transport)

    if transport == "stdio":
        anyio.run(
            run, StdioServerParameters(command=str(GNO), args=["mcp", "--enable-write"], env=env)
        )
        return
    with http_host(env, "--enable-write") as port:
        anyio.run(run, f"http://127.0.0.1:{port}/mcp")


def test_mcp_write_tools_absent_without_the_gate_and_core_profile(ws: dict[str, Any]) -> None:
    env = ws["env"]

    async def read_only() -> None:
        params = StdioServerParameters(command=str(GNO), args=["mcp"], env=env)
        async with Client(params, mode="legacy") as client:
            listed = {t.name for t in (await client.list_tools()).tools}
            assert "gno_recall" in listed
            assert (
                not {"gno_capture", "gno_remember", "gno_create_folder", "gno_duplicate_note"}
                & listed
            )
            with pytest.raises(MCPError) as refused:
                await client.call_tool("gno_capture", {"collection": "notes", "content": "x"})
            assert refused.value.code == -32602

    async def core() -> None:
        params = StdioServerParameters(
            command=str(GNO), args=["mcp", "--tool-profile", "core", "--enable-write"], env=env
        )
        async with Client(params, mode="legacy") as client:
            listed = [t.name for t in (await client.list_tools()).tools]
            assert listed == [n for n in CORE_WITH_WRITES if n in tools("core", enable_write=True)]
            assert {"gno_capture", "gno_remember", "gno_recall"} <= set(listed)

    before = _files(ws["notes"])
    anyio.run(read_only)
    anyio.run(core)
    assert _files(ws["notes"]) == before


# ---------------------------------------------------------------- REST


@contextlib.contextmanager
def _serve(ws: dict[str, Any], *flags: str) -> Iterator[Any]:
    with running(ws["env"], *flags) as srv:
        yield srv


def test_rest_capture_docs_folders_memory(ws: dict[str, Any]) -> None:
    notes = ws["notes"]
    with _serve(ws) as srv:
        base = srv.url
        body = {"collection": "notes", "content": "rest borne gamma quokka", "requestId": "req-1"}
        first = httpx.post(f"{base}/api/capture", json=body, timeout=30)
        assert first.status_code == 201, first.text
        receipt = first.json()
        assert_valid(RECEIPT, receipt)
        replay = httpx.post(f"{base}/api/capture", json=body | {"content": "other"}, timeout=30)
        assert replay.status_code == 201 and replay.json() == receipt
        assert len([p for p in _files(notes) if p.startswith("inbox/")]) == 1
        status = httpx.get(f"{base}/api/requests/req-1", timeout=30)
        assert status.status_code == 200
        assert_valid("gno://schemas/write-request@1.0", status.json())
        assert status.json()["receipt"] == receipt
        assert httpx.get(f"{base}/api/requests/nope", timeout=30).status_code == 404
        search = httpx.post(f"{base}/api/search", json={"query": "gamma quokka"}, timeout=30).json()
        assert [h["uri"] for h in search["results"]] == [receipt["uri"]]

        before = _files(notes)
        for bad in (
            {"relPath": "../x.md"},
            {"relPath": "/etc/x.md"},
            {"relPath": "nul.md"},
            {"overwrite": True},
        ):
            refused = httpx.post(
                f"{base}/api/capture",
                json={"collection": "notes", "content": "x"} | bad,
                timeout=30,
            )
            assert refused.status_code == 400, (bad, refused.text)
            assert refused.json()["error"]["code"] in ("INVALID_PATH", "VALIDATION")
        big = httpx.post(
            f"{base}/api/capture",
            json={"collection": "notes", "content": "x" * (1024 * 1024 + 10)},
            timeout=30,
        )
        assert big.status_code in (400, 413)
        cross = httpx.post(
            f"{base}/api/capture",
            json={"collection": "notes", "content": "x"},
            headers={"Origin": "https://evil.example"},
            timeout=30,
        )
        assert cross.status_code == 403
        assert _files(notes) == before

        made = httpx.post(
            f"{base}/api/docs",
            json={"collection": "notes", "relPath": "d/new.md", "content": "# New\nfresh\n"},
            timeout=30,
        )
        assert made.status_code == 201, made.text
        assert_valid("gno://schemas/doc-created@1.0", made.json())
        docid = made.json()["docid"]
        current = hashlib.sha256((notes / "d/new.md").read_bytes()).hexdigest()
        saved = httpx.put(
            f"{base}/api/docs/{docid.lstrip('#')}",
            json={"content": "# New\nsaved\n", "expectedSourceHash": current},
            timeout=30,
        )
        assert saved.status_code == 200, saved.text
        assert_valid("gno://schemas/doc-updated@1.0", saved.json())
        stale = httpx.put(
            f"{base}/api/docs/{saved.json()['docId'].lstrip('#')}",
            json={"content": "lost", "expectedSourceHash": current},
            timeout=30,
        )
        assert stale.status_code == 409 and stale.json()["error"]["code"] == "CONFLICT"
        assert (
            stale.json()["error"]["details"]["current"]["sourceHash"] == saved.json()["sourceHash"]
        )
        assert (notes / "d/new.md").read_text() == "# New\nsaved\n"
        tags = httpx.put(
            f"{base}/api/docs/{saved.json()['docId'].lstrip('#')}",
            json={"tags": ["Work"]},
            timeout=30,
        )
        assert tags.status_code == 200 and tags.json()["tags"] == ["work"]
        assert (notes / "d/new.md").read_text() == "---\ntags:\n  - work\n---\n# New\nsaved\n"

        folder = httpx.post(
            f"{base}/api/folders", json={"collection": "notes", "name": "made"}, timeout=30
        )
        assert folder.status_code == 200 and (notes / "made").is_dir()
        presets = httpx.get(f"{base}/api/note-presets", timeout=30).json()
        assert_valid("gno://schemas/note-presets@1.0", presets)
        tree = httpx.get(
            f"{base}/api/browse/tree", params={"collection": "notes"}, timeout=30
        ).json()
        assert_valid("gno://schemas/browse-tree@1.0", tree)
        assert "d" in [f["path"] for f in tree["collections"][0]["folders"]]
        suggestions = httpx.get(
            f"{base}/api/docs/autocomplete", params={"query": "new"}, timeout=30
        ).json()
        assert [s["relPath"] for s in suggestions["suggestions"]] == ["d/new.md"]
        dup = httpx.post(
            f"{base}/api/docs/{tags.json()['docId'].lstrip('#')}/duplicate", json={}, timeout=30
        )
        assert dup.status_code == 200, dup.text and (notes / "d/new-2.md").exists()
        # the copy shares the docid: by docid alone neither is deactivated, by URI one is
        twins = httpx.post(
            f"{base}/api/docs/{tags.json()['docId'].lstrip('#')}/deactivate", timeout=30
        )
        assert twins.status_code == 400 and twins.json()["error"]["code"] == "VALIDATION"
        assert "gno://notes/d/new-2.md" in twins.json()["error"]["message"]
        gone = httpx.post(
            f"{base}/api/docs/{tags.json()['docId'].lstrip('#')}/deactivate",
            json={"uri": "gno://notes/d/new.md"},
            timeout=30,
        )
        assert gone.status_code == 200 and gone.json()["success"] is True

        fact = httpx.post(
            f"{base}/api/memory/remember",
            json={
                "text": "Ada likes tea.",
                "collection": "memory",
                "scopes": ["u"],
                "decision": "add",
            },
            timeout=30,
        )
        assert fact.status_code == 200, fact.text
        assert_valid("gno://schemas/memory-remember@1.0", fact.json())
        recall = httpx.post(
            f"{base}/api/memory/recall",
            json={"query": "tea", "collection": "memory", "scopes": ["u"]},
            timeout=30,
        )
        assert [f["text"] for f in recall.json()["facts"]] == ["Ada likes tea."]

        # /mcp without --mcp-enable-write: the write tool is refused before dispatch
        init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "0"}}}  # fmt: skip
        accept = {"Accept": "application/json, text/event-stream"}
        opened = httpx.post(f"{base}/mcp", json=init, headers=accept, timeout=30)
        session = {"Mcp-Session-Id": opened.headers["mcp-session-id"]} | accept
        httpx.post(
            f"{base}/mcp",
            json={"jsonrpc": "2.0", "method": "notifications/initialized"},
            headers=session,
            timeout=30,
        )
        call = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "gno_capture",
                "arguments": {"collection": "notes", "content": "blocked"},
            },
        }
        refused = httpx.post(f"{base}/mcp", json=call, headers=session, timeout=30)
        assert refused.status_code == 403
        assert_valid("gno://schemas/mcp-http-error@1.0", refused.json())
        assert not any(b"blocked" in data for data in _files(notes).values())


def test_cli_and_rest_writers_take_turns(ws: dict[str, Any]) -> None:
    """Captures from a `gno serve` and from CLI processes at the same time all land, each
    once, each indexed: one writer at a time under `.mcp-write.lock`."""
    import threading

    env, notes = ws["env"], ws["notes"]
    with _serve(ws) as srv:
        answers: list[int] = []

        def rest(i: int) -> None:
            body = {
                "collection": "notes",
                "content": f"turn rest{i} walrus",
                "relPath": f"t/rest{i}.md",
            }
            answers.append(httpx.post(f"{srv.url}/api/capture", json=body, timeout=150).status_code)

        def cli(i: int) -> None:
            done = run_gno(
                env,
                "capture",
                f"turn cli{i} walrus",
                "-c",
                "notes",
                "--path",
                f"t/cli{i}.md",
                "--json",
            )
            answers.append(201 if done.returncode == 0 else done.returncode)

        workers = [threading.Thread(target=rest, args=(i,)) for i in range(3)]
        workers += [threading.Thread(target=cli, args=(i,)) for i in range(3)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=170)
        assert answers == [201] * 6
        assert sorted(p for p in _files(notes) if p.startswith("t/")) == sorted(
            [f"t/rest{i}.md" for i in range(3)] + [f"t/cli{i}.md" for i in range(3)]
        )
        found = httpx.post(
            f"{srv.url}/api/search", json={"query": "walrus", "limit": 20}, timeout=30
        ).json()
        assert len(found["results"]) == 6
