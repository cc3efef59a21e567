"""HttpEmbedder against a real local HTTP server (tests/fake_openai.py)."""

from __future__ import annotations

import math
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gno.adapters.openai_http.embedder import HttpEmbedder, embeddings_endpoint
from gno.ports import EMBED_FAILED, MODEL_LOAD_FAILED, Embedder, EmbeddingError
from tests.fake_openai import FakeOpenAI, fake_vector

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(mode="ok") as fake:
        yield fake


def unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector]


def assert_unit(vector: list[float], dims: int) -> None:
    assert len(vector) == dims
    assert math.sqrt(sum(x * x for x in vector)) == pytest.approx(1.0, abs=1e-9)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# ok path ---------------------------------------------------------------------


def test_probe_learns_dimensions_and_model_id(server: FakeOpenAI) -> None:
    embedder = HttpEmbedder(server.url, "fake-embed")
    assert isinstance(embedder, Embedder)
    assert embedder.dimensions == 8
    assert embedder.max_tokens == 2048
    assert embedder.model_id == f"{server.url}#fake-embed"
    assert len(server.requests) == 1  # the probe, at construction
    probe = server.requests[0]
    assert (probe.method, probe.path) == ("POST", "/v1/embeddings")
    assert probe.body == {"model": "fake-embed", "input": ["dimension probe"]}
    assert probe.headers["Content-Type"] == "application/json"
    assert "Authorization" not in probe.headers


def test_vectors_unit_length_in_order_batched(server: FakeOpenAI) -> None:
    embedder = HttpEmbedder(server.url, "fake-embed", batch_size=2)
    texts = [f"text number {i}" for i in range(5)]
    vectors = embedder.embed_batch(texts)
    batches = [r.body["input"] for r in server.requests[1:]]
    assert batches == [texts[0:2], texts[2:4], texts[4:5]]
    assert len(vectors) == 5
    for text, vector in zip(texts, vectors, strict=True):
        assert_unit(vector, 8)
        assert vector == pytest.approx(unit(fake_vector(text)))
    assert embedder.embed_batch([]) == []
    assert len(server.requests) == 4  # no request for an empty batch


def test_same_text_same_vector_different_text_differs(server: FakeOpenAI) -> None:
    embedder = HttpEmbedder(server.url, "fake-embed")
    a1, b, a2 = embedder.embed_batch(["alpha", "beta", "alpha"])
    assert a1 == a2
    assert a1 != b
    assert embedder.embed_batch(["alpha"])[0] == a1


def test_order_follows_index_not_position(server: FakeOpenAI) -> None:
    embedder = HttpEmbedder(server.url, None)
    server.mode = "reversed"
    texts = ["one", "two", "three"]
    vectors = embedder.embed_batch(texts)
    for text, vector in zip(texts, vectors, strict=True):
        assert vector == pytest.approx(unit(fake_vector(text)))


def test_no_model_leaves_model_out(server: FakeOpenAI) -> None:
    embedder = HttpEmbedder(server.url, None)
    assert embedder.model_id == server.url
    assert server.requests[0].body == {"input": ["dimension probe"]}


def test_bearer_header_from_argument_and_env(
    server: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    HttpEmbedder(server.url, "m", api_key="sk-test")
    assert server.requests[-1].headers["Authorization"] == "Bearer sk-test"
    monkeypatch.setenv("GNO_HTTP_API_KEY", "sk-env")
    HttpEmbedder(server.url, "m")
    assert server.requests[-1].headers["Authorization"] == "Bearer sk-env"


@pytest.mark.parametrize("suffix", ["", "/", "/v1", "/v1/", "/v1/embeddings"])
def test_url_forms_hit_v1_embeddings(server: FakeOpenAI, suffix: str) -> None:
    embedder = HttpEmbedder(server.url + suffix, "m")
    embedder.embed_batch(["x"])
    assert [r.path for r in server.requests] == ["/v1/embeddings"] * 2


def test_endpoint_rule() -> None:
    assert embeddings_endpoint("http://h:1") == "http://h:1/v1/embeddings"
    assert embeddings_endpoint("http://h:1/v1") == "http://h:1/v1/embeddings"
    assert embeddings_endpoint("https://h/openai/v1/") == "https://h/openai/v1/embeddings"
    assert embeddings_endpoint("http://h/api") == "http://h/api/v1/embeddings"


# unreachable server ---------------------------------------------------------------


def test_timeout_at_construction() -> None:
    with FakeOpenAI(mode="slow") as server:
        started = time.monotonic()
        with pytest.raises(EmbeddingError) as info:
            HttpEmbedder(server.url, "m", timeout=0.5)
        assert time.monotonic() - started < 3
    assert info.value.code == MODEL_LOAD_FAILED
    assert "timed out after 0.5 s" in info.value.message
    assert server.url in info.value.message


def test_timeout_during_embed(server: FakeOpenAI) -> None:
    embedder = HttpEmbedder(server.url, "m", timeout=0.5)
    server.mode = "slow"
    started = time.monotonic()
    with pytest.raises(EmbeddingError) as info:
        embedder.embed_batch(["a", "b"])
    assert time.monotonic() - started < 3
    assert info.value.code == MODEL_LOAD_FAILED
    assert "timed out" in info.value.message


def test_connection_refused() -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    started = time.monotonic()
    with pytest.raises(EmbeddingError) as info:
        HttpEmbedder(url, "m", timeout=5)
    assert time.monotonic() - started < 2
    assert info.value.code == MODEL_LOAD_FAILED
    assert url in info.value.message
    assert "refused" in info.value.message


def test_not_an_http_url() -> None:
    with pytest.raises(EmbeddingError) as info:
        HttpEmbedder("ftp://example.com", "m")
    assert info.value.code == MODEL_LOAD_FAILED


# bad answers ---------------------------------------------------------------------


def test_http_500(server: FakeOpenAI) -> None:
    embedder = HttpEmbedder(server.url, "m")
    server.mode = "error500"
    with pytest.raises(EmbeddingError) as info:
        embedder.embed_batch(["a"])
    assert info.value.code == EMBED_FAILED
    message = info.value.message
    assert "HTTP 500" in message
    assert "internal failure while embedding" in message
    assert "Traceback" not in message
    detail = message.split(": ", 1)[1]
    assert len(detail) <= 200


def test_http_500_at_construction() -> None:
    with FakeOpenAI(mode="error500") as server, pytest.raises(EmbeddingError) as info:
        HttpEmbedder(server.url, "m")
    assert info.value.code == EMBED_FAILED
    assert "HTTP 500" in info.value.message


def test_http_404_wrong_path(server: FakeOpenAI) -> None:
    embedder = HttpEmbedder(server.url, "m")
    embedder.endpoint = server.url + "/nowhere"
    with pytest.raises(EmbeddingError) as info:
        embedder.embed_batch(["a"])
    assert info.value.code == EMBED_FAILED
    assert "HTTP 404" in info.value.message


@pytest.mark.parametrize(
    ("mode", "texts", "why"),
    [
        ("garbage", ["a"], "not JSON"),
        ("wrong_count", ["a", "b", "c"], "expected 3 embeddings, got 2"),
        ("mixed_widths", ["a", "b", "c"], "mixed vector widths"),
    ],
)
def test_invalid_responses(server: FakeOpenAI, mode: str, texts: list[str], why: str) -> None:
    embedder = HttpEmbedder(server.url, "m")
    server.mode = mode
    with pytest.raises(EmbeddingError) as info:
        embedder.embed_batch(texts)
    assert info.value.code == EMBED_FAILED
    assert info.value.message.startswith("invalid response: ")
    assert why in info.value.message


@pytest.mark.parametrize("mode", ["garbage", "wrong_count"])
def test_invalid_probe_fails_construction(mode: str) -> None:
    with FakeOpenAI(mode=mode) as server, pytest.raises(EmbeddingError) as info:
        HttpEmbedder(server.url, "m")
    assert info.value.code == EMBED_FAILED
    assert info.value.message.startswith("invalid response: ")


def test_width_change_after_probe(server: FakeOpenAI) -> None:
    embedder = HttpEmbedder(server.url, "m")
    server.width = 16
    with pytest.raises(EmbeddingError) as info:
        embedder.embed_batch(["a"])
    assert info.value.code == EMBED_FAILED
    assert "vector width 16, expected 8" in info.value.message


# import cost -------------------------------------------------------------------


def test_import_stays_light() -> None:
    code = (
        "import sys, gno.adapters.openai_http.embedder\n"
        "heavy = {'numpy', 'llama_cpp', 'httpx', 'requests'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True, timeout=30)
