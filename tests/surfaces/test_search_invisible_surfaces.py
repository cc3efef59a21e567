"""A query word with an invisible character inside (gno.core.invisible) is the word without
it on every surface: a real `gno search` process, a real REST server and `gno mcp` over
stdio answer the same pages for it as for the plain word."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from gno.app import App
from gno.paths import resolve_paths
from tests.live_server import live_server

GNO = [sys.executable, "-m", "gno.cli.entry"]
NOTES = {
    "shy.md": "# Shy\n\nThe open\xadtelemetry collector.\n",
    "joined.md": "# Joined\n\nThe opentelemetry collector.\n",
    "apart.md": "# Apart\n\nAn open door and a telemetry feed.\n",
}
FOUND = {"gno://notes/shy.md", "gno://notes/joined.md"}


def gno(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GNO, *args],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )


@pytest.fixture
def notes(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    for name, text in NOTES.items():
        (root / name).write_text(text, encoding="utf-8")
    assert gno("init", str(root), "--name", "notes").returncode == 0
    assert gno("update").returncode == 0
    return root


def test_cli_search(notes: Path) -> None:
    # NUL cannot be in an argument; ESC, BEL and the format characters can.
    for typed in ["opentelemetry", "open\x1btelemetry", "open\x07telemetry", "open\u200dtelemetry"]:
        done = gno("search", typed, "--json")
        assert done.returncode == 0, done.stderr
        assert {hit["uri"] for hit in json.loads(done.stdout)["results"]} == FOUND, repr(typed)


def test_rest_search(notes: Path) -> None:
    from gno.rest.app import ServeOptions, create_app

    api = create_app(
        App(resolve_paths()), options=ServeOptions(mcp=None, watch=False, web_ui=False)
    )
    with live_server(api) as (url, _), httpx.Client(base_url=url, timeout=30) as http:
        for typed in ["open\x00telemetry", "open\x9btelemetry", "open\ufefftelemetry"]:
            answer = http.post("/api/search", json={"query": typed})
            assert answer.status_code == 200, answer.text
            assert {hit["uri"] for hit in answer.json()["results"]} == FOUND, repr(typed)
        every = http.post("/api/search", json={"query": "collector"})
        assert {hit["uri"] for hit in every.json()["results"]} == FOUND
        kept = http.post("/api/search", json={"query": "collector", "exclude": "open\x00telemetry"})
        assert kept.status_code == 200, kept.text
        assert kept.json()["results"] == []  # both pages mention the word


def test_mcp_search(notes: Path) -> None:
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test", "version": "1"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
    ] + [
        {"jsonrpc": "2.0", "id": ident, "method": "tools/call",
         "params": {"name": "gno_search", "arguments": {"query": typed}}}
        for ident, typed in enumerate(["open\x00telemetry", "open\u2060telemetry"], start=2)
    ]  # fmt: skip
    done = gno("mcp", stdin="".join(json.dumps(m) + "\n" for m in messages))
    replies = {r["id"]: r for r in map(json.loads, done.stdout.splitlines())}
    for ident in (2, 3):
        result = replies[ident]["result"]
        assert result["isError"] is False, result
        hits = result["structuredContent"]["results"]
        assert {hit["uri"] for hit in hits} == FOUND
