"""`gno query` as a real process with generated expansion: the expand model is the fake
OpenAI server on loopback, named by GNO_EXPAND_MODEL like a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.fake_openai import FakeOpenAI

GNO = [sys.executable, "-m", "gno.cli.entry"]
ANSWER = {
    "lexicalQueries": ["volume sampling processor"],
    "vectorQueries": ["how to reduce telemetry volume"],
    "hyde": "Tail sampling reduces telemetry volume.",
}


def gno(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([*GNO, *args], capture_output=True, text=True, timeout=60, env=env)


@pytest.fixture
def setup(tmp_path: Path):
    root = tmp_path / "notes"
    root.mkdir()
    (root / "sampling.md").write_text("# Sampling\n\nThe tail sampling processor keeps spans.\n")
    (root / "volume.md").write_text("# Volume\n\nTelemetry volume grows with traffic.\n")
    with FakeOpenAI(mode="ok") as server:
        server.chat_reply = lambda body: json.dumps(ANSWER)
        env = os.environ.copy() | {"GNO_EXPAND_MODEL": f"{server.url}/v1#fake-expand"}
        for args in (("init", str(root), "--name", "notes"), ("update",)):
            assert gno(*args, env=env).returncode == 0
        yield server, env


def query(env: dict[str, str], *flags: str) -> tuple[dict, dict[str, str]]:
    done = gno("query", "shrink telemetry volume", "--json", "--explain", *flags, env=env)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    return result, {line["stage"]: line["message"] for line in result["meta"]["explain"]["lines"]}


def chats(server: FakeOpenAI) -> int:
    return sum(1 for r in server.requests if r.path == "/v1/chat/completions")


def test_variant_finds_what_the_words_do_not_then_the_cache_answers(setup) -> None:
    server, env = setup
    plain, _ = query(env, "--no-expand")
    assert [r["uri"] for r in plain["results"]] == ["gno://notes/volume.md"]
    assert chats(server) == 0
    first, lines = query(env)
    assert first["meta"]["expanded"] is True and chats(server) == 1
    assert "gno://notes/sampling.md" in [r["uri"] for r in first["results"]]
    assert lines["expansion"] == "1 lexical, 1 vector variants, hyde"
    second, lines = query(env)
    assert chats(server) == 1 and lines["expansion"].endswith("(cached)")
    assert second["results"] == first["results"]
    text = gno("query", "shrink telemetry volume", "--explain", env=env)  # terminal output
    assert "[explain] expansion: 1 lexical, 1 vector variants, hyde (cached)" in text.stderr


def test_garbage_reply_degrades_with_the_reason(setup) -> None:
    server, env = setup
    server.mode = "garbage"
    result, lines = query(env, "--thorough")
    assert result["meta"]["expanded"] is False
    assert [r["uri"] for r in result["results"]] == ["gno://notes/volume.md"]
    assert lines["expansion"].startswith("skipped: expansion_error (invalid response: not JSON")


def test_depth_flags_reach_the_pipeline(setup) -> None:
    server, env = setup
    _, lines = query(env, "--fast")
    assert lines["expansion"] == "skipped: expansion_disabled (fast mode)"
    _, lines = query(env, "--query-mode", "term:sampling")
    assert lines["expansion"] == "skipped: expansion_disabled (query modes given)"
    assert chats(server) == 0
    query(env, "--expand")
    assert chats(server) == 1
    both = gno("query", "x", "--expand", "--no-expand", "--json", env=env)
    assert both.returncode == 1 and "--expand or --no-expand" in both.stderr
