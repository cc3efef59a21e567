"""Global flags and everyday spellings do what they say (issue 11 item 9)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.surfaces.terminal import on_terminal
from tests.surfaces.test_cli_process import GNO, indexed, run


def test_verbose_reports_plan_timing_and_models_on_stderr(tmp_path: Path) -> None:
    indexed(tmp_path)
    done = run("query", "sampling", "--json", "--verbose")
    assert json.loads(done.stdout)["results"]  # stdout keeps only the answer
    lines = done.stderr.splitlines()
    assert any(line.startswith('[verbose] query: {"query": "sampling"') for line in lines)
    assert any(line.startswith("[verbose] query: ") and line.endswith(" ms") for line in lines)
    assert any(line.startswith("[verbose] model rerank: ") for line in lines)
    assert "[verbose]" not in run("query", "sampling", "--json").stderr


def test_verbose_names_the_model_a_command_used(tmp_path: Path, monkeypatch) -> None:
    pytest.importorskip("llama_cpp", reason="the tiny model runs on llama.cpp")
    pytest.importorskip("gguf", reason="gguf writes the tiny model")
    from tests.tiny_gguf import write_tiny_bert

    model = f"file:{write_tiny_bert(tmp_path / 'tiny.gguf')}"
    monkeypatch.setenv("GNO_EMBED_MODEL", model)
    indexed(tmp_path)
    run("embed")
    done = run("vsearch", "sampling", "--json", "--verbose")
    assert json.loads(done.stdout)["results"]
    assert f"[verbose] model embed: {model}" in done.stderr.splitlines()


def test_quiet_prints_only_the_results(tmp_path: Path) -> None:
    indexed(tmp_path)
    loud = run("search", "sampling").stdout
    quiet = run("search", "sampling", "-q").stdout
    assert "result(s) for" in loud and "result(s) for" not in quiet
    assert quiet.count("[#") == 3


def test_quiet_drops_the_ls_summary_and_the_bm25_note(tmp_path: Path) -> None:
    indexed(tmp_path)
    assert "3 of 3 document(s)" in run("ls").stdout
    quiet = run("ls", "-q").stdout
    assert "document(s)" not in quiet and quiet.count("gno://notes/") == 3
    assert "Note: keyword (BM25)" in run("query", "sampling").stderr
    done = run("query", "sampling", "-q")
    assert done.stderr == "" and done.stdout.count("gno://notes/") == 3


def test_quiet_capture_prints_only_the_uri_and_tag_changes_nothing(tmp_path: Path) -> None:
    """GNO: `capture --quiet` prints only the URI (a script can pipe it to `gno get`)."""
    indexed(tmp_path)
    loud = run("capture", "first captured note", "-c", "notes").stdout
    assert loud.startswith("Captured: gno://notes/")
    quiet = run("capture", "second captured note", "-c", "notes", "-q").stdout
    assert quiet.startswith("gno://notes/") and quiet.count("\n") == 1
    assert "second captured note" in run("get", quiet.strip()).stdout
    assert run("tags", "add", "gno://notes/n0.md", "flagged").stdout.startswith("Tagged ")
    assert run("tags", "add", "gno://notes/n1.md", "flagged", "-q").stdout == ""
    assert run("tags", "rm", "gno://notes/n1.md", "flagged", "-q").stdout == ""
    assert "flagged" in run("get", "gno://notes/n0.md").stdout


def test_no_color_reaches_the_progress_bar(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    for i in range(60):
        (root / f"n{i}.md").write_text(f"# Note {i}\n\nbody {i}\n")
    run("init", str(root), "--name", "notes")
    _, coloured = on_terminal("update")
    (root / "n0.md").write_text("# Note 0\n\nchanged\n")
    _, plain = on_terminal("update", "--no-color")
    assert "\x1b[3" in coloured  # rich colours its bar on a terminal
    assert "\x1b[3" not in plain


def test_yes_is_accepted_anywhere(tmp_path: Path) -> None:
    indexed(tmp_path)
    assert run("--yes", "update").returncode == 0
    assert run("update", "--yes").returncode == 0


@pytest.mark.parametrize("command", ["update", "index", "embed"])
def test_collection_positional_and_option(tmp_path: Path, command: str) -> None:
    indexed(tmp_path)
    extra = {"index": ["--no-embed"], "embed": ["--dry-run"]}.get(command, [])
    for spelling in (["notes"], ["-c", "notes"]):
        assert run(command, *spelling, *extra, "--json").returncode == 0
    for spelling in (["nope"], ["-c", "nope"]):
        assert run(command, *spelling, *extra, check=False).returncode == 1, spelling


def test_query_diagnose_needs_a_target(tmp_path: Path) -> None:
    indexed(tmp_path)
    done = run("query", "diagnose", "sampling", check=False)
    assert done.returncode == 1 and "--target" in done.stderr
    assert run("query", "diagnose", "sampling", "--target", "notes/n0.md", "--json").returncode == 0


def test_ls_pages_beyond_a_thousand(tmp_path: Path) -> None:
    """More than 1,000 documents: one page holds them all when asked, and the page after
    the thousandth is there (no silent cap at 1,000)."""
    root = tmp_path / "notes"
    root.mkdir()
    for i in range(1005):
        (root / f"n{i:04}.md").write_text(f"# Note {i}\n\nbody {i}\n")
    run("init", str(root), "--name", "notes")
    run("update")
    listed = json.loads(run("ls", "--limit", "5000", "--json").stdout)
    assert listed["meta"]["total"] == 1005 and len(listed["documents"]) == 1005
    assert listed["meta"]["returned"] == 1005
    page = json.loads(run("ls", "--limit", "10", "--offset", "1000", "--json").stdout)
    assert [d["uri"] for d in page["documents"]] == [
        f"gno://notes/n{i:04}.md" for i in range(1000, 1005)
    ]
    assert page["meta"] == {"total": 1005, "returned": 5, "offset": 1000}
    text = run("ls", "--limit", "2000").stdout
    assert text.count("gno://notes/") == 1005 and "1005 of 1005 document(s)" in text


def test_default_excluded_folders_count_as_skipped(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    (root / "build" / "deep").mkdir(parents=True)
    (root / "node_modules").mkdir()
    (root / "a.md").write_text("# A\n\nkept\n")
    (root / "build" / "b.md").write_text("# B\n")
    (root / "build" / "deep" / "c.md").write_text("# C\n")
    (root / "node_modules" / "d.js").write_text("x\n")
    run("init", str(root), "--name", "notes")
    result = json.loads(run("update", "--json").stdout)
    [notes] = result["collections"]
    assert notes["filesProcessed"] == 1
    assert notes["filesSkipped"] == 3


@pytest.mark.parametrize("kind", ["serve", "daemon"])
def test_stop_with_nothing_running_says_so(tmp_path: Path, kind: str) -> None:
    done = run(kind, "--stop", check=False)
    assert done.returncode == 3
    assert f"gno {kind}: not running" in done.stderr


def test_mcp_answers_what_it_read_before_stdin_closed(tmp_path: Path) -> None:
    indexed(tmp_path)
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "gno_search", "arguments": {"query": "sampling"}},
        },
        {"jsonrpc": "2.0", "id": 3, "method": "tools/list"},
    ]
    done = subprocess.run(
        [*GNO, "mcp"],
        input="".join(json.dumps(line) + "\n" for line in lines),  # then stdin closes
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ.copy(),
    )
    answers = {m["id"]: m for m in map(json.loads, done.stdout.splitlines()) if "id" in m}
    assert set(answers) == {1, 2, 3}
    assert answers[2]["result"]["structuredContent"]["meta"]["totalResults"] == 3
