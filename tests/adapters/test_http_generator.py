"""HttpGenerator and HttpReranker against a real local HTTP server (tests/fake_openai.py)."""

from __future__ import annotations

import math
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gno.adapters.openai_http.client import endpoint_url
from gno.adapters.openai_http.generator import HttpGenerator
from gno.adapters.openai_http.reranker import INSTRUCTION, HttpReranker, parse_score
from gno.ports import (
    GENERATE_FAILED,
    GENERATE_TIMEOUT,
    INVALID_OUTPUT,
    MODEL_LOAD_FAILED,
    RERANK_FAILED,
    GenerationError,
    Generator,
    Reranker,
    RerankError,
)
from tests.fake_openai import FakeOpenAI

REPO = Path(__file__).resolve().parents[2]
SCHEMA = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI(mode="ok", delay=5.0) as fake:
        yield fake


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# generator -------------------------------------------------------------------------


def test_chat_request_and_answer(server: FakeOpenAI) -> None:
    server.chat_reply = lambda body: '{"a": "b"}'
    gen = HttpGenerator(f"{server.url}/v1", "tiny-chat")
    assert isinstance(gen, Generator) and gen.model_id == f"{server.url}/v1#tiny-chat"
    assert server.requests == []  # nothing is sent at construction
    assert gen.generate("expand this", schema=SCHEMA, max_tokens=77) == '{"a": "b"}'
    (request,) = server.requests
    assert (request.method, request.path) == ("POST", "/v1/chat/completions")
    assert request.body == {
        "model": "tiny-chat",
        "messages": [{"role": "user", "content": "expand this"}],
        "temperature": 0.0,
        "seed": 42,
        "max_tokens": 77,
        "response_format": {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": SCHEMA},
        },
    }


def test_plain_text_without_schema_or_model(server: FakeOpenAI) -> None:
    server.chat_reply = lambda body: "just words"
    gen = HttpGenerator(server.url, None)
    assert gen.generate("hi") == "just words"
    body = server.requests[-1].body
    assert "model" not in body and "response_format" not in body


def test_endpoint_rule() -> None:
    for url in ("http://h:1", "http://h:1/", "http://h:1/v1", "http://h:1/v1/chat/completions"):
        assert endpoint_url(url, "chat/completions") == "http://h:1/v1/chat/completions"
    assert endpoint_url("http://h:1/api/v1", "completions") == "http://h:1/api/v1/completions"


def test_timeout(server: FakeOpenAI) -> None:
    server.mode = "slow"
    gen = HttpGenerator(server.url, "m")
    with pytest.raises(GenerationError) as info:
        gen.generate("x", timeout=0.3)
    assert info.value.code == GENERATE_TIMEOUT and "timed out" in info.value.message


@pytest.mark.parametrize(
    ("mode", "code", "why"),
    [
        ("garbage", INVALID_OUTPUT, "not JSON"),
        ("no_choices", INVALID_OUTPUT, "no 'choices'"),
        ("error500", GENERATE_FAILED, "HTTP 500"),
    ],
)
def test_bad_replies(server: FakeOpenAI, mode: str, code: str, why: str) -> None:
    server.mode = mode
    with pytest.raises(GenerationError) as info:
        HttpGenerator(server.url, "m").generate("x", schema=SCHEMA)
    assert info.value.code == code and why in info.value.message


def test_content_that_is_not_text(server: FakeOpenAI) -> None:
    server.chat_reply = lambda body: None  # type: ignore[assignment,return-value]
    with pytest.raises(GenerationError) as info:
        HttpGenerator(server.url, "m").generate("x")
    assert info.value.code == INVALID_OUTPUT


def test_json_cut_off_at_max_tokens(server: FakeOpenAI) -> None:
    server.chat_reply = lambda body: '{"a": "unfinish'
    server.finish_reason = "length"
    gen = HttpGenerator(server.url, "m")
    with pytest.raises(GenerationError) as info:
        gen.generate("x", schema=SCHEMA, max_tokens=5)
    assert info.value.code == INVALID_OUTPUT
    assert gen.generate("x", max_tokens=5) == '{"a": "unfinish'  # plain text may be cut


def test_unreachable_and_bad_url() -> None:
    gen = HttpGenerator(f"http://127.0.0.1:{closed_port()}", "m")
    with pytest.raises(GenerationError) as info:
        gen.generate("x", timeout=5)
    assert info.value.code == MODEL_LOAD_FAILED and "refused" in info.value.message
    with pytest.raises(GenerationError) as info:
        HttpGenerator("ftp://example.com", "m")
    assert info.value.code == MODEL_LOAD_FAILED


# reranker --------------------------------------------------------------------------


def _document(prompt: str) -> str:
    return prompt.split("\n<Document>: ", 1)[1].rsplit("\n<Score>:", 1)[0]


def test_rerank_scores_in_order_identical_documents_once(server: FakeOpenAI) -> None:
    raw = {"alpha": " 0.9", "beta": "7 out of 10", "gamma": "-30"}
    server.completion_reply = lambda prompt: raw[_document(prompt)]
    reranker = HttpReranker(f"{server.url}/v1", "rank-model")
    assert isinstance(reranker, Reranker)
    scores = reranker.rerank("the query", ["alpha", "beta", "gamma", "alpha"])
    assert scores[0] == scores[3] == 0.9
    assert scores[1] == pytest.approx(1.0)  # 7 -> (7 + 5) / 10 clamped
    assert scores[2] == pytest.approx(1 / (1 + math.exp(30)))
    bodies = [r.body for r in server.requests]
    assert len(bodies) == 3 and {r.path for r in server.requests} == {"/v1/completions"}
    first = next(b for b in bodies if _document(b["prompt"]) == "alpha")
    assert first == {
        "model": "rank-model",
        "prompt": f"<Instruct>: {INSTRUCTION}\n<Query>: the query\n<Document>: alpha\n<Score>:",
        "max_tokens": 10,
        "temperature": 0,
        "stop": ["\n", "<"],
    }
    assert reranker.rerank("q", []) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.25", 0.25),
        (" 1", 1.0),
        ("0", 0.0),
        ("Score: 3", 0.8),
        ("-2.5 maybe", 0.25),
        ("-10", 0.0),
        ("12", 1 / (1 + math.exp(-12))),
        ("1e3", 1.0),
        ("no number", None),
        ("", None),
    ],
)
def test_parse_score(text: str, expected: float | None) -> None:
    got = parse_score(text)
    assert got == (None if expected is None else pytest.approx(expected))


@given(st.text(max_size=30))
def test_parsed_scores_are_in_unit_interval(text: str) -> None:
    score = parse_score(text)
    assert score is None or (0.0 <= score <= 1.0 and math.isfinite(score))


@pytest.mark.parametrize(
    ("mode", "reply", "code"),
    [
        ("garbage", " 0.5", RERANK_FAILED),
        ("error500", " 0.5", RERANK_FAILED),
        ("no_choices", " 0.5", RERANK_FAILED),
        ("ok", "I cannot rate this.", RERANK_FAILED),
    ],
)
def test_rerank_failures(server: FakeOpenAI, mode: str, reply: str, code: str) -> None:
    server.mode = mode
    server.completion_reply = lambda prompt: reply
    with pytest.raises(RerankError) as info:
        HttpReranker(server.url, "m").rerank("q", ["d"])
    assert info.value.code == code


def test_rerank_unreachable() -> None:
    with pytest.raises(RerankError) as info:
        HttpReranker(f"http://127.0.0.1:{closed_port()}", "m").rerank("q", ["d"])
    assert info.value.code == MODEL_LOAD_FAILED


def test_imports_stay_light() -> None:
    code = (
        "import sys, gno.adapters.openai_http.generator, gno.adapters.openai_http.reranker\n"
        "heavy = {'numpy', 'llama_cpp', 'httpx', 'requests'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True, timeout=30)
