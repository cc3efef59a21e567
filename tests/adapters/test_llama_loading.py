"""The shared GGUF loader, through the three llama adapters: a bad model file is always a
MODEL_LOAD_FAILED error of the adapter's own type, never a crash."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
pytest.importorskip("gguf", reason="gguf is needed to write the tiny test models")

from gno.adapters.llama.embedder import LlamaEmbedder
from gno.adapters.llama.generator import LlamaGenerator
from gno.adapters.llama.reranker import LlamaReranker
from gno.ports import MODEL_LOAD_FAILED, EmbeddingError, GenerationError, RerankError
from tests.tiny_gguf import write_tiny_bert, write_tiny_llama

# (adapter, its error, how to write a valid model file for it)
ADAPTERS = [
    (LlamaEmbedder, EmbeddingError, write_tiny_bert),
    (LlamaReranker, RerankError, lambda path: write_tiny_bert(path, rank=True)),
    (LlamaGenerator, GenerationError, write_tiny_llama),
]
IDS = ["embedder", "reranker", "generator"]


@pytest.mark.parametrize(("adapter", "error", "writer"), ADAPTERS, ids=IDS)
def test_missing_file(tmp_path: Path, adapter, error, writer) -> None:
    with pytest.raises(error) as err:
        adapter(tmp_path / "nope.gguf")
    assert err.value.code == MODEL_LOAD_FAILED


@pytest.mark.parametrize(("adapter", "error", "writer"), ADAPTERS, ids=IDS)
@pytest.mark.parametrize(
    "content",
    [b"", b"not a model at all" * 100, b"GGUF\x03\x00\x00\x00" + b"\xff" * 64],
    ids=["empty", "garbage", "bad-header"],
)
def test_invalid_file(tmp_path: Path, content: bytes, adapter, error, writer) -> None:
    path = tmp_path / "bad.gguf"
    path.write_bytes(content)
    with pytest.raises(error) as err:
        adapter(path)
    assert err.value.code == MODEL_LOAD_FAILED


@pytest.mark.parametrize(("adapter", "error", "writer"), ADAPTERS, ids=IDS)
def test_truncated_model_file(tmp_path: Path, adapter, error, writer) -> None:
    data = writer(tmp_path / "whole.gguf").read_bytes()
    path = tmp_path / "cut.gguf"
    path.write_bytes(data[: len(data) // 2])  # header intact, tensor data cut
    with pytest.raises(error) as err:
        adapter(path)
    assert err.value.code == MODEL_LOAD_FAILED
