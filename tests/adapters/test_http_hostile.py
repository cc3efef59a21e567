"""The HTTP adapters against a hostile or broken model server: every answer bounded.

A server that drips its answer a byte at a time, redirects elsewhere, nests JSON past
the decoder's limit or sends far more than an honest answer could hold must end in the
port's error, in bounded time and memory. Each server here is a real socket on 127.0.0.1.
"""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Callable

import pytest

import gno.adapters.openai_http.client as client
from gno.adapters.openai_http.embedder import MAX_DIMENSIONS, HttpEmbedder
from gno.adapters.openai_http.generator import HttpGenerator
from gno.adapters.openai_http.reranker import HttpReranker
from gno.ports import (
    EMBED_FAILED,
    GENERATE_FAILED,
    GENERATE_TIMEOUT,
    INVALID_OUTPUT,
    MODEL_LOAD_FAILED,
    RERANK_FAILED,
    EmbeddingError,
    GenerationError,
    RerankError,
)
from tests.fake_openai import FakeOpenAI
from tests.hostile_http import RawServer, Script, head, json_body

DRIP_SECONDS = 6.0  # how long a dripping server keeps going before it gives up itself


def drip_body(conn: socket.socket) -> None:
    """A JSON answer announced whole, then sent one byte every 0.2 s."""
    head(conn, extra="Content-Length: 1000\r\n")
    stop = time.monotonic() + DRIP_SECONDS
    while time.monotonic() < stop:
        conn.sendall(b" ")
        time.sleep(0.2)


def drip_events(conn: socket.socket) -> None:
    """A valid one-piece event every 0.2 s, for longer than any test waits."""
    head(conn, ctype="text/event-stream")
    stop = time.monotonic() + DRIP_SECONDS
    event = {"choices": [{"delta": {"content": "x"}}]}
    while time.monotonic() < stop:
        conn.sendall(b"data: " + json.dumps(event).encode() + b"\n\n")
        time.sleep(0.2)


def test_a_dripping_json_answer_is_cut_at_the_timeout(raw: Callable[[Script], RawServer]) -> None:
    """Each byte arrives well within the 1 s socket timeout; the request still ends at 1 s."""
    url = raw(drip_body).url
    started = time.monotonic()
    with pytest.raises(EmbeddingError) as info:
        HttpEmbedder(url, "m", timeout=1.0)
    assert time.monotonic() - started < 3.0
    assert info.value.code == MODEL_LOAD_FAILED and "timed out after 1.0 s" in info.value.message
    started = time.monotonic()
    with pytest.raises(GenerationError) as gen:
        HttpGenerator(url, "m", timeout=30.0).generate("q", timeout=1.0)
    assert time.monotonic() - started < 3.0 and gen.value.code == GENERATE_TIMEOUT


def test_a_dripping_event_stream_is_cut_at_the_timeout(raw: Callable[[Script], RawServer]) -> None:
    url = raw(drip_events).url
    pieces: list[str] = []
    started = time.monotonic()
    with pytest.raises(GenerationError) as info:
        HttpGenerator(url, "m", timeout=30.0).generate("q", timeout=1.0, on_text=pieces.append)
    assert time.monotonic() - started < 3.0
    assert info.value.code == GENERATE_TIMEOUT and 1 <= len(pieces) <= 8


def test_a_stream_without_a_timeout_still_ends(
    raw: Callable[[Script], RawServer], monkeypatch: pytest.MonkeyPatch
) -> None:
    """No caller timeout: the stream's own total (10 minutes, 1 s here) ends it."""
    monkeypatch.setattr(client, "EVENT_STREAM_SECONDS", 1.0)
    url = raw(drip_events).url
    started = time.monotonic()
    with pytest.raises(GenerationError) as info:
        HttpGenerator(url, "m", timeout=30.0).generate("q", on_text=lambda piece: None)
    assert time.monotonic() - started < 3.0 and info.value.code == GENERATE_TIMEOUT


@pytest.mark.parametrize("status", ["301 Moved Permanently", "302 Found", "307 Temporary Redirect"])
def test_a_redirect_is_not_followed_and_the_key_stays_home(
    raw: Callable[[Script], RawServer], status: str
) -> None:
    with FakeOpenAI() as elsewhere:
        target = f"http://localhost:{elsewhere.port}/v1/chat/completions"
        url = raw(
            lambda conn: head(conn, status, extra=f"Location: {target}\r\nContent-Length: 0\r\n")
        ).url
        with pytest.raises(GenerationError) as info:
            HttpGenerator(url, "m", api_key="sk-secret").generate("q")
        assert info.value.code == GENERATE_FAILED
        assert "follows no redirects" in info.value.message
        assert elsewhere.requests == []  # neither the prompt nor the key went there


@pytest.mark.parametrize("where", ["answer", "error body"])
def test_json_nested_too_deep_is_an_invalid_answer(
    raw: Callable[[Script], RawServer], where: str
) -> None:
    nested = b"[" * 100_000 + b"]" * 100_000
    status = "200 OK" if where == "answer" else "500 Internal Server Error"
    url = raw(lambda conn: json_body(conn, nested, status)).url
    with pytest.raises(EmbeddingError) as embed:
        HttpEmbedder(url, "m")
    assert embed.value.code == EMBED_FAILED
    with pytest.raises(RerankError) as rerank:
        HttpReranker(url, "m").rerank("q", ["d"])
    assert rerank.value.code == RERANK_FAILED
    with pytest.raises(GenerationError) as gen:
        HttpGenerator(url, "m").generate("q", on_text=lambda piece: None)
    assert gen.value.code == (INVALID_OUTPUT if where == "answer" else GENERATE_FAILED)


def test_an_embedding_wider_than_any_model_is_refused() -> None:
    with FakeOpenAI(width=MAX_DIMENSIONS + 1) as server, pytest.raises(EmbeddingError) as info:
        HttpEmbedder(server.url, "m")
    assert info.value.code == EMBED_FAILED and f"wider than {MAX_DIMENSIONS}" in info.value.message


def test_an_embeddings_body_past_what_its_inputs_allow_is_refused_while_read(
    raw: Callable[[Script], RawServer],
) -> None:
    """One input may be answered with at most ~700 KB; 48 MB of numbers (some 600 MB once
    decoded) are refused before they are held."""
    huge = b'{"data": [{"index": 0, "embedding": [' + b"1," * (24 << 20) + b"1]}]}"
    url = raw(lambda conn: json_body(conn, huge)).url
    with pytest.raises(EmbeddingError) as info:
        HttpEmbedder(url, "m")
    assert info.value.code == EMBED_FAILED and "body over" in info.value.message


def test_a_rerank_answer_over_a_mebibyte_is_refused() -> None:
    with FakeOpenAI() as server:
        server.completion_reply = lambda prompt: " 0.5" + " " * (2 << 20)
        with pytest.raises(RerankError) as info:
            HttpReranker(server.url, "m").rerank("q", ["d"])
    assert info.value.code == RERANK_FAILED and "body over 1048576 bytes" in info.value.message
