"""`gno embed` and `gno vsearch` as real processes on a tiny llama.cpp model: outputs
validate against their schemas, and model errors follow the error contract."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from contract_helpers import assert_valid, gno_env, gno_err, gno_ok, run_gno, write_tree

pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
pytest.importorskip("gguf", reason="gguf is needed to write the tiny test model")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.fake_hub import FakeHub
from tests.tiny_gguf import write_tiny_bert

NOTES = {
    "trace.md": "# Tracing\n\nsample the trace before export\n",
    "index.md": "# Index\n\nthe search index holds document vectors\n",
}


@pytest.fixture(scope="module")
def env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("models")
    model = write_tiny_bert(root / "tiny-bert.gguf")
    env = gno_env(root / "home") | {"GNO_EMBED_MODEL": f"file:{model}"}
    notes = write_tree(root / "notes", NOTES)
    gno_ok(env, "init", str(notes), "--name", "notes", "--json")
    gno_ok(env, "update", "--json")
    return env


def test_vsearch_before_embed_is_a_runtime_error(env: dict[str, str]) -> None:
    error = gno_err(env, 2, "vsearch", "trace", "--json")
    assert "gno embed" in error["message"]


def test_embed_then_vsearch(env: dict[str, str]) -> None:
    result = gno_ok(env, "embed", "--json")
    assert result["embedded"] == 2 and result["errors"] == 0 and result["searchAvailable"] is True
    assert gno_ok(env, "embed", "--json")["embedded"] == 0  # backlog is empty now
    hits = gno_ok(env, "vsearch", "sample the trace", "--json", "-n", "5")
    assert hits["meta"]["mode"] == "vector" and len(hits["results"]) == 2
    hybrid = gno_ok(env, "query", "sample the trace", "--json", "--explain")
    assert hybrid["meta"]["mode"] == "hybrid" and hybrid["meta"]["vectorsUsed"] is True
    assert hybrid["meta"]["explain"]["results"][0]["rank"] == 1
    status = gno_ok(env, "status", "--json")
    assert status["collections"][0]["embeddedCount"] == 2 and status["embeddingBacklog"] == 0


def test_index_json(env: dict[str, str]) -> None:
    result = gno_ok(env, "index", "--json")
    assert result["embedSkipped"] is False and result["syncResult"]["totalFilesProcessed"] == 2
    assert gno_ok(env, "index", "--no-embed", "--json")["embedSkipped"] is True


def test_missing_model_fails_fast(env: dict[str, str]) -> None:
    """A missing file or an offline policy is an error naming the fix, without trying the
    hub (a loopback hub stands in for Hugging Face and must see no request)."""
    with FakeHub() as hub:
        online = {k: v for k, v in env.items() if not k.startswith("HF_")}
        hub_env = online | {"HF_ENDPOINT": hub.url, "NO_PROXY": "127.0.0.1,localhost"}
        error = gno_err(hub_env | {"GNO_EMBED_MODEL": "file:/nowhere/m.gguf"}, 2, "embed", "--json")
        assert "not found" in error["message"]
        offline = {k: v for k, v in hub_env.items() if k != "GNO_EMBED_MODEL"}
        error = gno_err(offline | {"GNO_OFFLINE": "1"}, 2, "embed", "--json")
        assert "gno models pull --embed" in error["message"]
        assert hub.requests == []


def test_models_list_and_clear(env: dict[str, str]) -> None:
    listed = gno_ok(env, "models", "list", "--json")
    assert listed["embed"]["source"] == "env" and listed["embed"]["cached"] is True
    assert listed["rerank"]["cached"] is False and listed["activePreset"] == "slim-tuned"
    cached = Path(listed["cacheDir"]) / "hf" / "ggml-org" / "Qwen3-Reranker-0.6B-Q8_0-GGUF"
    cached.mkdir(parents=True)
    (cached / "qwen3-reranker-0.6b-q8_0.gguf").write_bytes(b"GGUF" + b"\0" * 60)
    assert gno_ok(env, "models", "list", "--json")["rerank"]["size"] == 64
    cleared = gno_ok(env, "models", "clear", "--rerank", "--json")
    assert cleared["freedBytes"] == 64 and len(cleared["removed"]) == 1
    assert Path(
        env["GNO_EMBED_MODEL"].removeprefix("file:")
    ).exists()  # files outside the cache stay


def test_query_diagnose_cli(env: dict[str, str]) -> None:
    for target, status in (("notes/trace.md", "diagnosed"), ("notes/none.md", "not_found")):
        done = run_gno(env, "query", "diagnose", "sample", "trace", "--target", target, "--json")
        assert done.returncode == 0, done.stderr
        payload = json.loads(done.stdout)
        assert_valid("gno://schemas/query-diagnose@1.4", payload)
        assert payload["schemaVersion"] == "1.0"  # no boost active: the legacy payload
        assert payload["target"]["status"] == status
