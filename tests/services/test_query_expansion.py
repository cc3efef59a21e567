"""Generated expansion inside the query pipeline, in process: the expand model is the fake
OpenAI server on loopback (or the tiny llama GGUF), the index a real SQLite file."""

from __future__ import annotations

import json
from pathlib import Path

import apsw
import pytest
import yaml
from gno_contracts.models.query_input import QueryInput

from gno.app import App
from gno.app_models import models_int
from gno.paths import resolve_paths
from gno.services.query import query
from tests.conftest import sync
from tests.fake_openai import FakeOpenAI

NOTES = {
    "sampling.md": "# Sampling\n\nThe tail sampling processor keeps interesting spans.\n",
    "volume.md": "# Volume\n\nTelemetry volume grows with traffic.\n",
    "logs.md": "# Logs\n\nLog records carry a severity.\n",
}
ANSWER = {
    "lexicalQueries": ["volume sampling processor", "pasta recipes"],
    "vectorQueries": ["how to reduce telemetry volume"],
    "hyde": "Tail sampling reduces telemetry volume by keeping interesting traces.",
}


@pytest.fixture
def server():
    with FakeOpenAI(mode="ok", delay=5.0) as fake:
        fake.chat_reply = lambda body: json.dumps(ANSWER)
        yield fake


@pytest.fixture
def app(make_app, server, monkeypatch):
    monkeypatch.setenv("GNO_EXPAND_MODEL", f"{server.url}/v1#fake-expand")
    app, _ = make_app(NOTES)
    sync(app)
    return app


def chats(server: FakeOpenAI) -> list:
    return [r for r in server.requests if r.path == "/v1/chat/completions"]


def set_models(app: App, models: dict) -> None:
    """Edit index.yml's models block as a user would, then let the app re-read it."""
    config = yaml.safe_load(app.paths.config_file.read_text())
    config["models"] = models
    app.paths.config_file.write_text(yaml.safe_dump(config))
    app.reload_config()


def run(app: App, text: str, **kw):
    result = query(app, QueryInput(query=text, limit=5, explain=True, **kw))
    lines = {line.stage: line.message for line in result.meta.explain.lines}
    return result, lines


def uris(result) -> list[str]:
    return [r.uri for r in result.results]


def test_variants_join_the_fusion(app, server) -> None:
    plain, _ = run(app, "shrink telemetry volume", expand=False)
    assert "gno://notes/sampling.md" not in uris(plain) and plain.meta.expanded is False
    expanded, lines = run(app, "shrink telemetry volume")
    assert expanded.meta.expanded is True
    assert "gno://notes/sampling.md" in uris(expanded)  # found by the lexical variant only
    assert lines["expansion"] == "1 lexical, 1 vector variants, hyde"  # "pasta recipes" dropped
    (chat,) = chats(server)
    assert chat.body["model"] == "fake-expand" and chat.body["max_tokens"] == 512
    assert chat.body["response_format"]["json_schema"]["schema"]["required"] == [
        "lexicalQueries",
        "vectorQueries",
        "hyde",
    ]
    assert chat.body["messages"][0]["content"].endswith("Query: shrink telemetry volume\n")


def test_cache_answers_the_second_time(app, server) -> None:
    first, _ = run(app, "shrink telemetry volume")
    second, lines = run(app, "shrink telemetry volume")
    assert len(chats(server)) == 1 and lines["expansion"].endswith("(cached)")
    assert uris(second) == uris(first) and second.meta.expanded is True
    run(app, "shrink telemetry volume", intent="ops budget")  # another key: asks again
    assert len(chats(server)) == 2
    assert "Query intent: ops budget\n" in chats(server)[-1].body["messages"][0]["content"]
    rows = app.store().conn.execute("SELECT count(*), min(model_uri) FROM expansion_cache")
    assert rows.fetchone() == (2, f"{server.url}/v1#fake-expand")


@pytest.mark.parametrize(
    ("mode", "reply", "why"),
    [
        ("garbage", None, "not JSON"),
        ("error500", None, "HTTP 500"),
        ("no_choices", None, "choices"),
        ("ok", "I would rather not.", "no JSON object"),
    ],
)
def test_bad_answers_degrade_to_no_expansion(app, server, mode, reply, why) -> None:
    server.mode = mode
    if reply is not None:
        server.chat_reply = lambda body: reply
    result, lines = run(app, "shrink telemetry volume")
    assert result.meta.expanded is False and uris(result) == ["gno://notes/volume.md"]
    assert lines["expansion"].startswith("skipped: expansion_error") and why in lines["expansion"]
    count = app.store().conn.execute("SELECT count(*) FROM expansion_cache").fetchone()[0]
    assert count == 0  # failures are not cached


def test_timeout_degrades(app, server, monkeypatch) -> None:
    monkeypatch.setenv("GNO_EXPAND_TIMEOUT_MS", "300")
    server.mode = "slow"
    result, lines = run(app, "shrink telemetry volume")
    assert result.meta.expanded is False and "timed out after 0.3 s" in lines["expansion"]


def test_depth_policy_and_query_modes(app, server) -> None:
    for kw, why in (
        ({"fast": True}, "fast mode"),
        ({"expand": False}, "expansion turned off"),
        ({"queryModes": [{"mode": "term", "text": "sampling"}]}, "query modes given"),
    ):
        result, lines = run(app, "shrink telemetry volume", **kw)
        assert lines["expansion"] == f"skipped: expansion_disabled ({why})"
        assert result.meta.expanded is False
    assert chats(server) == []
    set_models(app, {"activePreset": "balanced"})
    _, lines = run(app, "shrink telemetry volume")
    assert lines["expansion"].startswith("skipped: expansion_disabled (preset balanced")
    assert chats(server) == []
    assert run(app, "shrink telemetry volume", thorough=True)[0].meta.expanded is True
    assert len(chats(server)) == 1


def test_missing_model_is_no_error(make_app, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("GNO_EXPAND_MODEL", f"file:{tmp_path / 'absent.gguf'}")
    app, _ = make_app(NOTES)
    sync(app)
    result, lines = run(app, "shrink telemetry volume", thorough=True)
    assert result.meta.expanded is False and "not found" in lines["expansion"]
    assert lines["expansion"].startswith("skipped: expansion_disabled")
    assert app.generator("expand") is None and "absent.gguf" in app.unavailable["expand"]
    with pytest.raises(ValueError):
        app.generator("embed")


def test_locked_index_skips_the_cache_write(app, server) -> None:
    other = apsw.Connection(str(app.paths.db_path))
    other.execute("BEGIN IMMEDIATE")  # another writer holds the lock (a sync, say)
    try:
        result, _ = run(app, "shrink telemetry volume")
        assert result.meta.expanded is True
    finally:
        other.execute("ROLLBACK")
        other.close()
    assert app.store().conn.execute("SELECT count(*) FROM expansion_cache").fetchone()[0] == 0
    run(app, "shrink telemetry volume")
    assert len(chats(server)) == 2  # not cached the first time, cached now
    run(app, "shrink telemetry volume")
    assert len(chats(server)) == 2


def test_strong_bm25_hit_skips_the_model_unless_an_intent_is_given(make_app, server, monkeypatch):
    monkeypatch.setenv("GNO_EXPAND_MODEL", f"{server.url}/v1#fake-expand")
    files = {f"filler{i}.md": f"# Note {i}\n\nordinary text {i}\n" for i in range(300)}
    files["zanzibar.md"] = "# Zanzibar\n\nZanzibar, zanzibar: zanzibar archipelago.\n"
    app, _ = make_app(files)
    sync(app)
    result, lines = run(app, "zanzibar")
    assert lines["expansion"].startswith("skipped: expansion_skipped_strong (top 0.")
    assert uris(result)[0] == "gno://notes/zanzibar.md" and chats(server) == []
    _, lines = run(app, "zanzibar", intent="travel")
    assert len(chats(server)) == 1 and "skipped" not in lines["expansion"]
    _, lines = run(app, "ordinary text")  # many equal hits: no clear winner
    assert len(chats(server)) == 2


# -- local models through App --------------------------------------------------------------


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory) -> Path:
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
    pytest.importorskip("gguf", reason="gguf is needed to write the tiny test model")
    from tests.tiny_gguf import write_tiny_llama

    return write_tiny_llama(tmp_path_factory.mktemp("gen") / "tiny-llama.gguf")


def test_tiny_llama_through_app(make_app, tiny_llama, monkeypatch) -> None:
    from gno.adapters.llama.generator import LlamaGenerator

    monkeypatch.setenv("GNO_EXPAND_MODEL", f"file:{tiny_llama}")
    app, _ = make_app(NOTES)
    sync(app)
    generator = app.generator("expand")
    assert isinstance(generator, LlamaGenerator) and app.generator("expand") is generator
    assert generator.max_context == 256  # the tiny model's trained context is below 2048
    small = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    assert isinstance(json.loads(generator.generate("hi", schema=small, max_tokens=32))["ok"], bool)
    # A random model's expansion is JSON cut off or noise the guardrails drop: never an error.
    result, lines = run(app, "shrink telemetry volume", thorough=True)
    assert "gno://notes/volume.md" in uris(result)
    assert lines["expansion"].startswith(("skipped: expansion_error", "0 lexical", "1 lexical"))
    assert app.generator("gen") is None  # the preset's gen model is not on disk


def test_http_reranker_orders_by_its_scores(make_app, server, monkeypatch) -> None:
    monkeypatch.setenv("GNO_RERANK_MODEL", f"{server.url}/v1#fake-rank")
    monkeypatch.setenv("GNO_EXPAND_MODEL", f"{server.url}/v1#fake-expand")
    files = {
        "a.md": "# Alpha\n\nspans spans spans spans and more spans\n",
        "b.md": "# Beta\n\nspans spans and traces\n",
        "c.md": "# Gamma\n\nspans once, then zebra facts\n",
    }
    app, _ = make_app(files)
    sync(app)
    plain, _ = run(app, "spans", rerank=False, expand=False)
    assert uris(plain) == ["gno://notes/a.md", "gno://notes/b.md", "gno://notes/c.md"]
    server.completion_reply = lambda prompt: "9" if "zebra" in prompt else "-9"
    ranked, lines = run(app, "spans", expand=False)
    assert ranked.meta.reranked is True and lines["rerank"] == "3 candidates reranked"
    # zebra's document rises above b.md; a.md, BM25's first, stays first (guardrail)
    assert uris(ranked) == ["gno://notes/a.md", "gno://notes/c.md", "gno://notes/b.md"]
    prompts = [r.body["prompt"] for r in server.requests if r.path == "/v1/completions"]
    assert len(prompts) == 3 and all("<Query>: spans\n" in p for p in prompts)
    server.mode = "error500"
    broken, lines = run(app, "spans", expand=False)
    assert broken.meta.reranked is False and "HTTP 500" in lines["rerank"]


def test_app_reads_models_settings(make_app, monkeypatch) -> None:
    app, _ = make_app(NOTES)
    set_models(app, {"expandContextSize": 100, "inferenceTimeout": 1500})
    fresh = App(resolve_paths())
    assert models_int(fresh.config, "expandContextSize", 2048, 256) == 256  # GNO's minimum
    assert models_int(fresh.config, "inferenceTimeout", 30_000, 1) == 1500
    monkeypatch.setenv("GNO_EXPAND_TIMEOUT_MS", "250")
    assert fresh.expand_timeout() == 0.25
    monkeypatch.setenv("GNO_EXPAND_TIMEOUT_MS", "soon")
    assert fresh.expand_timeout() == 5.0
