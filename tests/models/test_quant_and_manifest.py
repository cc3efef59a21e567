"""Pure parts of model pulls: QUANT file choice, the manifest, cache paths, unsafe names."""

import json
from pathlib import Path

import pytest

from gno.errors import ValidationError
from gno.models import manifest
from gno.models.cache import hf_cache_path
from gno.models.catalog import parse_model_uri
from gno.models.pull import fetch_model
from gno.models.quant import matches_quant, pick_quant_file


def test_quant_is_a_whole_token_in_any_case():
    assert matches_quant("Qwen3-1.7B-Q4_K_M.gguf", "Q4_K_M")
    assert matches_quant("model.q4_k_m.gguf", "Q4_K_M")
    assert matches_quant("sub/qwen3-reranker-0.6b-q8_0.gguf", "Q8_0")
    assert not matches_quant("Qwen3-1.7B-Q4_K_M.gguf", "Q4_K")  # a longer quant
    assert not matches_quant("model-Q4_K_M_L.gguf", "Q4_K_M")
    assert not matches_quant("model-XQ4_K_M.gguf", "Q4_K_M")
    assert not matches_quant("model-Q4_K_M.bin", "Q4_K_M")
    assert not matches_quant("model-Q8_0-00001-of-00002.gguf", "Q8_0")  # split shard
    assert not matches_quant("mmproj-model-Q8_0.gguf", "Q8_0")  # vision projector


def test_quant_pick_is_stable_and_prefers_the_shallowest_shortest_name():
    files = ["README.md", "deep/x/m-Q8_0.gguf", "m-Q8_0-imatrix.gguf", "m-Q8_0.gguf", "m-Q4_0.gguf"]
    assert pick_quant_file(files, "q8_0") == "m-Q8_0.gguf"
    assert pick_quant_file(list(reversed(files)), "Q8_0") == "m-Q8_0.gguf"
    assert pick_quant_file(files, "Q5_K_M") is None


def test_quant_cache_lookup_uses_the_same_rule_and_ignores_hidden_folders(tmp_path: Path):
    folder = tmp_path / "hf" / "org" / "repo"
    (folder / ".partial").mkdir(parents=True)
    (folder / ".partial" / "m-Q8_0.gguf").write_bytes(b"GGUF")
    uri = parse_model_uri("hf:org/repo:q8_0")
    assert hf_cache_path(uri, tmp_path) is None  # a download in progress is not a model
    (folder / "M-Q8_0.gguf").write_bytes(b"GGUF")
    (folder / "M-Q8_0-big.gguf").write_bytes(b"GGUF")
    assert hf_cache_path(uri, tmp_path) == folder / "M-Q8_0.gguf"
    assert hf_cache_path(parse_model_uri("hf:org/repo:Q4_0"), tmp_path) is None
    assert hf_cache_path(parse_model_uri("hf:org/other:Q4_0"), tmp_path) is None


def _entry(path: Path, role: str, **extra: object) -> dict:
    return {"uri": f"hf:o/r/{path.name}", "roles": [role], "path": str(path), "size": 4} | extra


def test_manifest_records_merges_roles_and_prunes(tmp_path: Path):
    a, b = tmp_path / "a.gguf", tmp_path / "b.gguf"
    a.write_bytes(b"GGUF")
    b.write_bytes(b"GGUF")
    manifest.record_pull(tmp_path, _entry(a, "expand", sha256="1" * 64))
    manifest.record_pull(tmp_path, _entry(b, "embed"))
    manifest.note_role(tmp_path, a, "gen")
    manifest.note_role(tmp_path, tmp_path / "unknown.gguf", "gen")  # no entry: nothing added
    entries = {Path(e["path"]).name: e for e in manifest.read_manifest(tmp_path)}
    assert set(entries) == {"a.gguf", "b.gguf"}
    assert (
        entries["a.gguf"]["roles"] == ["expand", "gen"] and entries["a.gguf"]["sha256"] == "1" * 64
    )
    manifest.record_pull(tmp_path, _entry(a, "rerank", sha256="2" * 64))  # pulled again
    again = {Path(e["path"]).name: e for e in manifest.read_manifest(tmp_path)}
    assert again["a.gguf"]["roles"] == ["expand", "gen", "rerank"]
    assert again["a.gguf"]["sha256"] == "2" * 64
    b.unlink()
    manifest.prune(tmp_path)
    data = json.loads((tmp_path / "manifest.json").read_text())
    assert data["version"] == 1 and [Path(e["path"]).name for e in data["models"]] == ["a.gguf"]
    assert not list(tmp_path.glob(".manifest.*"))  # no temporary file left behind


def test_unreadable_manifest_counts_as_empty_and_is_rewritten(tmp_path: Path):
    (tmp_path / "manifest.json").write_text("{not json")
    assert manifest.read_manifest(tmp_path) == []
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    manifest.record_pull(tmp_path, _entry(model, "embed"))
    assert [e["path"] for e in manifest.read_manifest(tmp_path)] == [str(model)]


@pytest.mark.parametrize(
    "uri",
    ["hf:../../escape.gguf", "hf:org/repo/../../../escape.gguf", "hf:org/repo/.hidden/m.gguf"],
)
def test_names_that_would_leave_the_cache_are_refused(tmp_path: Path, uri: str):
    with pytest.raises(ValidationError, match="Unsafe model path"):
        fetch_model("embed", parse_model_uri(uri), tmp_path / "models")
    assert not (tmp_path / "escape.gguf").exists()
