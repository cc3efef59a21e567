"""`gno models pull --json` and `gno models use --json` as real processes: outputs (and the
per-role results in a failed pull's error details) validate against their schemas."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from contract_helpers import assert_valid, gno_env, gno_err, gno_ok, run_gno

pytest.importorskip("huggingface_hub", reason="downloads need the models extra")
pytest.importorskip("gguf", reason="gguf writes the tiny test model")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from tests.fake_hub import FakeHub
from tests.tiny_gguf import write_tiny_bert

REPO = "test-org/tiny-GGUF"


@pytest.fixture
def hub_env(tmp_path: Path):
    model = write_tiny_bert(tmp_path / "tiny.gguf").read_bytes()
    with FakeHub() as hub:
        hub.add(REPO, "tiny-Q8_0.gguf", model)
        env = {k: v for k, v in gno_env(tmp_path / "home").items() if not k.startswith("HF_")}
        env |= {
            "HF_ENDPOINT": hub.url,
            "HF_HOME": str(tmp_path / "hf"),
            "NO_PROXY": "127.0.0.1,localhost",
            "no_proxy": "127.0.0.1,localhost",
            "GNO_EMBED_MODEL": f"hf:{REPO}:Q8_0",
            "GNO_RERANK_MODEL": "http://127.0.0.1:9/v1#reranker",
            "GNO_EXPAND_MODEL": f"hf:{REPO}/absent.gguf",
        }
        yield env


def test_models_pull_json(hub_env: dict[str, str]) -> None:
    pulled = gno_ok(hub_env, "models", "pull", "--embed", "--rerank", "--json")
    assert [r["status"] for r in pulled["results"]] == ["downloaded", "skipped"]
    again = gno_ok(hub_env, "models", "pull", "--embed", "--json")
    assert again["results"][0]["status"] == "cached" and "sha256" not in again["results"][0]


def test_failed_pull_details_are_pull_results(hub_env: dict[str, str]) -> None:
    error = gno_err(hub_env, 2, "models", "pull", "--embed", "--expand", "--json")
    results = error["details"]["results"]
    assert [r["status"] for r in results] == ["downloaded", "failed"]
    assert_valid(
        "gno://schemas/models-pull@1.0",
        {"results": results, "downloaded": 1, "cached": 0, "skipped": 0, "cacheDir": "/c"},
    )


def test_models_use_json(hub_env: dict[str, str]) -> None:
    gno_ok(hub_env, "init", "--json")
    used = gno_ok(hub_env, "models", "use", "balanced", "--json")
    assert used["activePreset"] == "balanced" and used["previousPreset"] == "slim-tuned"
    assert used["embedModelChanged"] is False and "note" not in used
    assert gno_ok(hub_env, "models", "list", "--json")["activePreset"] == "balanced"
    error = gno_err(hub_env, 1, "models", "use", "turbo", "--json")
    assert "Unknown model preset 'turbo'" in error["message"]


def test_index_models_pull_downloads_what_no_auto_download_refuses(
    hub_env: dict[str, str], tmp_path: Path
) -> None:
    """`gno index --models-pull` (issue 11 item 3) fetches a missing embedding model even
    under GNO_NO_AUTO_DOWNLOAD=1, which alone keeps `gno index` from downloading it."""
    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# Lighthouse\n\nThe keeper trims the lamp.\n")
    env = hub_env | {"GNO_NO_AUTO_DOWNLOAD": "1"}
    gno_ok(env, "init", str(notes), "--name", "notes", "--json")
    refused = run_gno(env, "index", "--json")
    assert refused.returncode == 2, refused.stdout
    assert "GNO_NO_AUTO_DOWNLOAD" in json.loads(refused.stderr)["error"]["message"]
    cached = gno_ok(env, "models", "path", "--json")
    assert not any(Path(cached["cacheDir"]).rglob("*.gguf"))
    pulled = gno_ok(env, "index", "--models-pull", "--json")
    assert pulled["embedResult"]["embedded"] >= 1, pulled
    assert any(Path(cached["cacheDir"]).rglob("*.gguf"))
