"""GNO's CLI spellings (issue 11 item 3): each is accepted by a real `gno` process and does
what it says (or, for `get --trace-id` with tracing off, is accepted without effect, as documented)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.surfaces.test_cli_process import indexed, run


def test_short_and_long_version() -> None:
    for flag in ("-V", "--version"):
        done = run(flag)
        assert done.stdout.startswith("gno "), flag


def test_skill_prints_the_bundled_skill() -> None:
    done = run("--skill")
    assert done.stdout.startswith("---\nname: gno\n")
    assert "gno query" in done.stdout


def test_init_short_name(tmp_path: Path) -> None:
    root = tmp_path / "docs"
    root.mkdir()
    run("init", str(root), "-n", "papers")
    listed = json.loads(run("collection", "list", "--json").stdout)
    assert [c["name"] for c in listed] == ["papers"]


def test_query_graph_flags(tmp_path: Path) -> None:
    indexed(tmp_path)
    on = json.loads(run("query", "sampling", "--graph", "--explain", "--json").stdout)
    off = json.loads(run("query", "sampling", "--no-graph", "--explain", "--json").stdout)
    stage = {e["stage"]: e["message"] for e in off["meta"]["explain"]["lines"]}
    assert stage["graph"] == "skipped: disabled"
    assert {e["stage"]: e["message"] for e in on["meta"]["explain"]["lines"]}["graph"] != (
        "skipped: disabled"
    )
    both = run("query", "sampling", "--graph", "--no-graph", check=False)
    assert both.returncode == 1


@pytest.mark.parametrize("command", ["search", "vsearch", "query"])
def test_no_project_affinity(tmp_path: Path, command: str) -> None:
    indexed(tmp_path)
    if command != "vsearch":  # vsearch has no vectors here; the flag parses all the same
        done = run(command, "sampling", "--no-project-affinity", "--json")
        assert json.loads(done.stdout)["results"]
    clash = run(
        command, "sampling", "--no-project-affinity", "--project-root", str(tmp_path), check=False
    )
    assert clash.returncode == 1
    assert "--no-project-affinity" in clash.stderr


def test_get_accepts_a_trace_id(tmp_path: Path) -> None:
    indexed(tmp_path)
    plain = json.loads(run("get", "notes/n0.md", "--json").stdout)
    traced = json.loads(run("get", "notes/n0.md", "--trace-id", "t-1", "--json").stdout)
    assert traced == plain  # tracing is off: accepted, no effect (spec/traces.md)


def test_embed_dry_run_and_model(tmp_path: Path) -> None:
    indexed(tmp_path)
    model = "file:/nowhere/model.gguf"  # never loaded by a dry run
    done = run("embed", "--dry-run", "--model", model, "--json")
    result = json.loads(done.stdout)
    assert result["pending"] == 3 and result["embedded"] == 0
    assert result["model"] == model
    text = run("embed", "notes", "--dry-run", "--model", model).stdout
    assert text.startswith("Dry run: 3 chunks would be embedded")
    bad = run("embed", "--dry-run", "--model", "x", check=False)  # as a real run refuses it
    assert bad.returncode == 1 and "Unsupported model URI 'x'" in bad.stderr


def test_index_models_pull_flag_parses(tmp_path: Path) -> None:
    indexed(tmp_path)
    done = run("index", "--models-pull", "--no-embed", "--json")
    assert json.loads(done.stdout)["embedSkipped"] is True


def test_collection_clear_embeddings(tmp_path: Path) -> None:
    indexed(tmp_path)
    done = json.loads(run("collection", "clear-embeddings", "notes", "--json").stdout)
    assert done["collection"] == "notes" and done["mode"] == "stale"
    wiped = json.loads(run("collection", "clear-embeddings", "notes", "--all", "--json").stdout)
    assert wiped["mode"] == "all"
    missing = run("collection", "clear-embeddings", "nope", check=False)
    assert missing.returncode == 1


def test_trigram_tokenizer_loads_and_matches_substrings(tmp_path: Path) -> None:
    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# Sampling\n\ntail sampling processor\n")
    (root / "b.md").write_text("# Other\n\nnothing here\n")
    run("init", str(root), "--name", "notes", "--tokenizer", "trigram")
    run("update")
    hits = json.loads(run("search", "ampl", "--json").stdout)["results"]  # porter: no match
    assert [h["uri"] for h in hits] == ["gno://notes/a.md"]


def test_trigram_in_index_yml_loads(tmp_path: Path) -> None:
    from gno.paths import resolve_paths

    root = tmp_path / "notes"
    root.mkdir()
    (root / "a.md").write_text("# Sampling\n\ntail sampling processor\n")
    config_file = resolve_paths().config_file
    config_file.parent.mkdir(parents=True, exist_ok=True)
    config_file.write_text('version: "1.0"\nftsTokenizer: trigram\ncollections: []\n')
    run("init")
    run("collection", "add", str(root), "--name", "notes")
    run("update")
    hits = json.loads(run("search", "proces", "--json").stdout)["results"]
    assert [h["uri"] for h in hits] == ["gno://notes/a.md"]
