"""Embedding through an OpenAI-compatible server: a real HTTP server on loopback."""

import pytest
from gno_contracts.models.embed_input import EmbedInput
from gno_contracts.models.search_input import SearchInput

from gno.errors import UnavailableError
from gno.services.embed import embed, vsearch
from tests.conftest import sync
from tests.fake_openai import FakeOpenAI

pytest.importorskip("sqlite_vec", reason="sqlite-vec is not installed")


def test_embed_and_vsearch_over_http(make_app, monkeypatch):
    with FakeOpenAI(mode="ok") as server:
        monkeypatch.setenv("GNO_EMBED_MODEL", f"{server.url}/v1#fake-embed")
        app, _ = make_app({"a.md": "# A\n\nalpha text\n", "b.md": "# B\n\nbeta text\n"})
        sync(app)
        result = embed(app, EmbedInput())
        assert (result.embedded, result.errors, result.model) == (
            2,
            0,
            f"{server.url}/v1#fake-embed",
        )
        bodies = [r.body for r in server.requests if r.path == "/v1/embeddings"]
        assert all(body["model"] == "fake-embed" for body in bodies)
        assert any(len(body["input"]) == 2 for body in bodies)  # a page goes in one request
        hits = vsearch(app, SearchInput(query="alpha", limit=2))
        assert len(hits.results) == 2 and hits.meta.mode.value == "vector"
        server.mode = "error500"
        (app.paths.config_file.parent.parent / "src-notes" / "c.md").write_text("# C\n\ngamma\n")
        sync(app)
        failed = embed(app, EmbedInput())
        assert (failed.embedded, failed.errors) == (0, 1)  # the chunk stays in the backlog


def test_unreachable_server_fails_fast(make_app, monkeypatch):
    monkeypatch.setenv("GNO_EMBED_MODEL", "http://127.0.0.1:9/v1#nothing-listens")
    app, _ = make_app({"a.md": "alpha\n"})
    sync(app)
    with pytest.raises(UnavailableError, match="Cannot load the embedding model"):
        embed(app, EmbedInput())
