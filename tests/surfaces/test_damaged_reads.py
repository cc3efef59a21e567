"""An index that still opens but has damaged pages: every read gets the documented error for
a damaged index (RUNTIME, naming the file, pointing at `gno doctor`) on the CLI, over REST
and over MCP, never "Internal error". Real `gno` processes, a real server, real pages
overwritten in a real index file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import apsw
import httpx
import pytest

from gno.app import App
from gno.paths import resolve_paths
from tests.live_server import live_server
from tests.mcp_stdio import mcp_stdio

GNO = [sys.executable, "-m", "gno.cli.entry"]
DAMAGED = "is damaged (database disk image is malformed): `gno doctor` says how to rebuild it"


def gno(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*GNO, *args], capture_output=True, text=True, timeout=60, env=os.environ.copy()
    )


def damage(index: Path, tables: tuple[str, ...]) -> None:
    """Overwrite every page of ``tables`` (the schema on page 1 kept, so the file still
    opens and its tables are still known)."""
    conn = apsw.Connection(str(index))
    size = int(conn.execute("PRAGMA page_size").fetchone()[0])
    pages = [
        int(r[0])
        for r in conn.execute(
            f"SELECT pageno FROM dbstat WHERE name IN ({','.join('?' * len(tables))})",
            tables,
        )
    ]
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    assert pages and 1 not in pages
    with index.open("r+b") as f:
        for page in pages:
            f.seek((page - 1) * size)
            f.write(b"\xff\x7f" * (size // 2))


@pytest.fixture
def damaged(tmp_path: Path) -> Path:
    root = tmp_path / "notes"
    root.mkdir()
    for i in range(40):
        body = " ".join(f"word{i}x{j}" for j in range(300))
        (root / f"n{i}.md").write_text(f"# Note {i}\n\nsampling {body} [[Note {i + 1}]]\n")
    assert gno("init", str(root), "--name", "notes").returncode == 0
    assert gno("update").returncode == 0
    index = Path(os.environ["GNO_DATA_DIR"]) / "index-default.sqlite"
    damage(
        index, ("documents", "documents_fts_data", "content", "document_changes", "egress_policies")
    )
    return index


def test_cli_reads_of_a_damaged_index_are_the_documented_error(damaged: Path) -> None:
    # Before: "Internal error (CorruptError: database disk image is malformed). Please report it."
    for command in (
        ["status"],
        ["search", "sampling"],
        ["get", "gno://notes/n5.md"],
        ["ls"],
        ["changes"],
        ["update"],
    ):
        done = gno(*command, "--json")
        assert done.returncode == 2, (command, done.stdout, done.stderr)
        error = json.loads(done.stderr)["error"]
        assert error["code"] == "RUNTIME", command
        assert error["message"] == f"The index {damaged} {DAMAGED}", command


def test_rest_reads_of_a_damaged_index_are_the_documented_error(damaged: Path) -> None:
    from gno.rest.app import ServeOptions, create_app

    api = create_app(
        App(resolve_paths()), options=ServeOptions(mcp=None, watch=False, web_ui=False)
    )
    with live_server(api) as (url, _), httpx.Client(base_url=url, timeout=30) as http:
        answers = [
            http.post("/api/search", json={"query": "sampling"}),
            http.get("/api/status"),
            http.get("/api/docs"),
        ]
    for answer in answers:  # before: 500 "Internal error; the server log has the details"
        assert answer.status_code == 500, answer.text
        error = answer.json()["error"]
        assert error["code"] == "RUNTIME"
        assert error["message"] == f"The index <path>/{damaged.name} {DAMAGED}"


def test_mcp_reads_of_a_damaged_index_are_the_documented_error(damaged: Path) -> None:
    calls = [
        ("gno_search", {"query": "sampling"}),
        ("gno_get", {"ref": "gno://notes/n5.md"}),
        ("gno_status", {}),
    ]
    with mcp_stdio() as mcp:
        for ident, (tool, arguments) in enumerate(calls, start=2):
            result = mcp.tool(ident, tool, arguments)
            assert result["isError"] is True, (tool, result)
            text = result["content"][0]["text"]
            assert "Internal error" not in text, (tool, text)  # before: CorruptError
            assert DAMAGED in text, (tool, text)


def test_the_egress_ledger_reads_of_a_damaged_index_are_the_same_error(damaged: Path) -> None:
    # A remote REST caller's policy check reads the index on a connection of its own,
    # before any handler: it raised CorruptError (500 "Internal error").
    from gno.adapters.sqlite.egress import EgressLedger
    from gno.errors import IndexFileError

    ledger = EgressLedger(damaged)
    try:
        with pytest.raises(IndexFileError) as failed:
            ledger.snapshot()
    finally:
        ledger.close()
    assert failed.value.message == f"The index {damaged} {DAMAGED}"
