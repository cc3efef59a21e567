from pathlib import Path

import pytest

from gno.errors import ModelUnavailableError, ValidationError
from gno.models.availability import download_policy, local_model_file
from gno.models.catalog import DEFAULT_PRESET, PRESETS, parse_model_uri, role_uri


def test_uri_forms():
    hf = parse_model_uri("hf:Qwen/Qwen3-Embedding-0.6B-GGUF/Qwen3-Embedding-0.6B-Q8_0.gguf")
    assert (hf.scheme, hf.repo, hf.filename) == (
        "hf",
        "Qwen/Qwen3-Embedding-0.6B-GGUF",
        "Qwen3-Embedding-0.6B-Q8_0.gguf",
    )
    quant = parse_model_uri("hf:org/repo:Q4_K_M")
    assert (quant.repo, quant.quant, quant.filename) == ("org/repo", "Q4_K_M", None)
    assert parse_model_uri("file:/models/x.gguf").path == "/models/x.gguf"
    http = parse_model_uri("http://127.0.0.1:8080/v1#bge")
    assert (http.scheme, http.url, http.model) == ("http", "http://127.0.0.1:8080/v1", "bge")
    for bad in ("model.gguf", "file:relative.gguf", "hf:onlyorg", "ftp://x"):
        with pytest.raises(ValidationError):
            parse_model_uri(bad)


def test_role_resolution_order():
    config = {"models": {"activePreset": "balanced"}}
    assert role_uri("embed", {}, environ={}) == (PRESETS[DEFAULT_PRESET].embed, "preset")
    assert role_uri("expand", config, environ={})[0] == PRESETS["balanced"].expand
    assert role_uri("embed", config, {"embed": "file:/c.gguf"}, environ={}) == (
        "file:/c.gguf",
        "override",
    )
    env = {"GNO_EMBED_MODEL": "file:/e.gguf"}
    assert role_uri("embed", config, {"embed": "file:/c.gguf"}, environ=env) == (
        "file:/e.gguf",
        "env",
    )
    custom = {
        "models": {"activePreset": "mine", "presets": [{"id": "mine", "embed": "file:/m.gguf"}]}
    }
    assert role_uri("embed", custom, environ={})[0] == "file:/m.gguf"
    assert role_uri("rerank", custom, environ={})[0] == PRESETS[DEFAULT_PRESET].rerank
    with pytest.raises(ValidationError):
        role_uri("embed", {"models": {"activePreset": "nope"}}, environ={})


def test_policy_precedence():
    assert download_policy({}).source == "default"
    assert download_policy({"GNO_NO_AUTO_DOWNLOAD": "1"}) == download_policy(
        {"GNO_NO_AUTO_DOWNLOAD": "yes"}
    )
    assert (
        download_policy({"GNO_NO_AUTO_DOWNLOAD": "1", "GNO_OFFLINE": "true"}).source
        == "gno-offline"
    )
    assert download_policy({"GNO_OFFLINE": "1", "HF_HUB_OFFLINE": "1"}).source == "hf-hub-offline"


def test_missing_model_fails_fast_with_the_fix(tmp_path: Path):
    policy = download_policy({"GNO_OFFLINE": "1"})
    with pytest.raises(ModelUnavailableError, match="gno models pull --embed"):
        local_model_file("embed", parse_model_uri(PRESETS[DEFAULT_PRESET].embed), tmp_path, policy)
    with pytest.raises(ModelUnavailableError, match="not found"):
        local_model_file("embed", parse_model_uri("file:/nowhere/x.gguf"), tmp_path, policy)
    cached = tmp_path / "hf" / "org" / "repo" / "m-Q4_K_M.gguf"
    cached.parent.mkdir(parents=True)
    cached.write_bytes(b"GGUF")
    assert (
        local_model_file("gen", parse_model_uri("hf:org/repo:Q4_K_M"), tmp_path, policy) == cached
    )
    assert (
        local_model_file("gen", parse_model_uri("hf:org/repo/m-Q4_K_M.gguf"), tmp_path, policy)
        == cached
    )
