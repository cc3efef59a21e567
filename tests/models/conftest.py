"""Fixtures for download tests: tiny GGUF files, a fake hub, and `gno` processes aimed at it.

huggingface_hub reads HF_ENDPOINT and HF_HUB_OFFLINE when it is imported, and the
test run exports HF_HUB_OFFLINE=1, so every download runs in a real `gno` process
with an explicit environment.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.fake_hub import FakeHub


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """Bytes of valid tiny GGUF models: an embedder, a reranker, a llama."""
    pytest.importorskip("gguf", reason="gguf writes the tiny test models")
    from tests.tiny_gguf import write_tiny_bert, write_tiny_llama

    root = tmp_path_factory.mktemp("tiny")
    return {
        "embed": write_tiny_bert(root / "embed.gguf").read_bytes(),
        "rerank": write_tiny_bert(root / "rerank.gguf", rank=True).read_bytes(),
        "llama": write_tiny_llama(root / "llama.gguf").read_bytes(),
    }


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    with FakeHub() as server:
        yield server


@pytest.fixture
def hub_env(tmp_path: Path, hub: FakeHub) -> dict[str, str]:
    """The environment of a fresh gno home whose hub is the fake one (downloads allowed)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GNO_", "HF_"))}
    home = tmp_path / "home"
    env.update(
        GNO_CONFIG_DIR=str(home / "config"),
        GNO_DATA_DIR=str(home / "data"),
        GNO_CACHE_DIR=str(home / "cache"),
        HF_ENDPOINT=hub.url,
        HF_HOME=str(home / "hf"),  # no stored token, no user cache
        NO_PROXY="127.0.0.1,localhost",
        no_proxy="127.0.0.1,localhost",
        NO_COLOR="1",
        PYTHONIOENCODING="utf-8",
    )
    home.mkdir(parents=True)
    return env
