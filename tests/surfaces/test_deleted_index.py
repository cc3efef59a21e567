"""The index file deleted under a running server (or `gno mcp`) with no new one made: every
read answers the documented "not initialized" error, 503 ``UNAVAILABLE`` with the fix in the
message (spec/rest.md), never 500; MCP the same code; the CLI exit 2. Nothing recreates an
empty index behind the user's back, and a later `gno update` is followed. Real `gno`
processes, a real server, real files deleted."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import httpx
import pytest

from gno.app import App
from gno.paths import resolve_paths
from tests.live_server import live_server
from tests.mcp_stdio import GNO, mcp_stdio

MISSING = "Index 'default' does not exist yet. Run: gno update"


def gno(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GNO, *args], capture_output=True, text=True, timeout=60, env=os.environ.copy()
    )


def index_files() -> list[Path]:
    return sorted(Path(os.environ["GNO_DATA_DIR"]).glob("index-default.sqlite*"))


def delete_index() -> None:
    for path in index_files():  # the file and its -wal/-shm
        path.unlink()


@pytest.fixture
def indexed(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# Alpha\n\nsampling words\n")
    assert gno("init", str(root), "--name", "notes").returncode == 0
    assert gno("update").returncode == 0
    return root


def test_rest_answers_unavailable_for_a_deleted_index(indexed: Path) -> None:
    from gno.rest.app import ServeOptions, create_app

    api = create_app(
        App(resolve_paths()), options=ServeOptions(mcp=None, watch=False, web_ui=False)
    )
    with live_server(api) as (url, _), httpx.Client(base_url=url, timeout=30) as http:
        assert http.post("/api/search", json={"query": "sampling"}).status_code == 200
        delete_index()
        answers = [
            http.get("/api/status"),
            http.post("/api/search", json={"query": "sampling"}),
            http.get("/api/docs"),
            http.post("/api/query", json={"query": "sampling", "noExpand": True}),
        ]
        for answer in answers:  # before: 500 RUNTIME
            assert answer.status_code == 503, answer.text
            assert answer.json()["error"] == {"code": "UNAVAILABLE", "message": MISSING}
        assert index_files() == []  # no empty index made in its place

        assert gno("update").returncode == 0  # a new index under the same name: followed
        found = http.post("/api/search", json={"query": "sampling"})
        assert found.status_code == 200, found.text
        assert [r["uri"] for r in found.json()["results"]] == ["gno://notes/a.md"]


def test_mcp_and_cli_answer_the_same_for_a_deleted_index(indexed: Path) -> None:
    with mcp_stdio() as mcp:
        assert mcp.tool(2, "gno_search", {"query": "sampling"})["isError"] is False
        delete_index()
        for ident, (name, arguments) in enumerate(
            [("gno_search", {"query": "sampling"}), ("gno_status", {})], start=3
        ):
            result = mcp.tool(ident, name, arguments)
            assert result["isError"] is True, (name, result)
            # before: RUNTIME
            assert result["structuredContent"] == {"error": "UNAVAILABLE", "message": MISSING}
    assert index_files() == []

    done = gno("search", "sampling", "--json")
    assert done.returncode == 2, done.stderr  # the CLI envelope knows VALIDATION and RUNTIME
    assert json.loads(done.stderr)["error"] == {"code": "RUNTIME", "message": MISSING}
    assert index_files() == []
