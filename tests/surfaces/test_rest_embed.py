"""POST /api/embed answers as GNO: it waits for the embedding run and answers
``{embedded, errors}`` (200), or ``{running: true, pendingCount, note}`` when an
embedding run is already going (nothing new starts)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from gno_contracts.models.embed_input import EmbedInput

from gno.rest.views import embed_now
from tests.conftest import sync
from tests.tiny_gguf import write_tiny_bert

pytest.importorskip("llama_cpp", reason="the tiny model runs on llama.cpp")


@pytest.fixture
def app(make_app, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    model = write_tiny_bert(tmp_path / "tiny-bert.gguf")
    monkeypatch.setenv("GNO_EMBED_MODEL", f"file:{model}")
    app, _ = make_app({"a.md": "# A\n\nlighthouse keeper\n", "b.md": "# B\n\nharbour pilot\n"})
    sync(app)
    return app


def test_embed_waits_and_answers_the_counts(app) -> None:
    done = embed_now(app, EmbedInput())
    assert done == {"embedded": 2, "errors": 0}
    assert embed_now(app, EmbedInput()) == {"embedded": 0, "errors": 0}  # nothing left


def test_embed_while_one_runs_says_running(app) -> None:
    release = threading.Event()

    def slow(_: object) -> dict[str, object]:
        assert release.wait(30)
        return {"kind": "embed", "value": {"embedded": 0, "errors": 0}}

    job = app.jobs.start("embed", slow)
    try:
        answer = embed_now(app, EmbedInput())
        assert answer["running"] is True and answer["pendingCount"] == 2
        assert set(answer) == {"running", "pendingCount", "note"}
    finally:
        release.set()
        job.done.wait(30)
