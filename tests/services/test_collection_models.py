"""A collection's own embedding model (index.yml ``collections[].models.embed``) is the one
its vectors come from and the one its searches embed the query with; the other collections
keep the active preset's. Models are two names on one real OpenAI-compatible loopback
server (``tests/fake_openai.py``), so every request says which model it was for."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from gno_contracts.models.collection_models_input import CollectionModelsInput
from gno_contracts.models.embed_input import EmbedInput
from gno_contracts.models.models_use_input import ModelsUseInput
from gno_contracts.models.query_input import QueryInput
from gno_contracts.models.search_input import SearchInput

from gno.app import App
from gno.services.embed import embed, vsearch
from gno.services.model_settings import collection_models
from gno.services.models import models_use
from gno.services.query import query
from tests.conftest import sync
from tests.fake_openai import FakeOpenAI

pytest.importorskip("sqlite_vec", reason="sqlite-vec is not installed")

NOTES = {"tail.md": "# Tail sampling\n\nkeep only slow traces\n"}
WORK = {"budget.md": "# Budget\n\nquarterly budget review\n", "hire.md": "# Hiring\n\nnew hires\n"}


@pytest.fixture
def served(make_app: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[App, FakeOpenAI]]:
    monkeypatch.delenv("GNO_EMBED_MODEL", raising=False)  # it would override both
    with FakeOpenAI(mode="ok") as server:
        app, _ = make_app(NOTES)
        models_use(app, ModelsUseInput(embed=f"{server.url}/v1#preset-embed"))
        make_app(WORK, name="work", embedModel=f"{server.url}/v1#work-embed")
        app.reload_config()
        sync(app)
        yield app, server


def embedded_texts(server: FakeOpenAI, model: str) -> str:
    """Every text sent to ``model`` so far, joined."""
    return "\n".join(
        text
        for r in server.requests
        if r.path == "/v1/embeddings" and r.body["model"] == model
        for text in r.body["input"]
    )


def uris(app: App) -> set[str]:
    """The models that hold vectors: each vector set is keyed by its model."""
    store = app.store()
    return {
        uri for model_id, uri in store.embed_model_uris().items() if store.vector_count(model_id)
    }


def test_each_collection_is_embedded_with_its_own_model(
    served: tuple[App, FakeOpenAI],
) -> None:
    app, server = served
    result = embed(app, EmbedInput())
    assert (result.embedded, result.errors) == (3, 0)
    preset, work = embedded_texts(server, "preset-embed"), embedded_texts(server, "work-embed")
    assert "slow traces" in preset and "budget" not in preset and "hires" not in preset
    assert "budget" in work and "hires" in work and "slow traces" not in work
    assert uris(app) == {f"{server.url}/v1#preset-embed", f"{server.url}/v1#work-embed"}
    again = embed(app, EmbedInput())  # nothing left in either backlog
    assert (again.embedded, again.errors) == (0, 0)
    one = embed(app, EmbedInput(collection="work", force=True))
    assert (one.embedded, one.model) == (2, f"{server.url}/v1#work-embed")


def test_searches_embed_the_query_with_the_searched_collections_model(
    served: tuple[App, FakeOpenAI],
) -> None:
    app, server = served
    embed(app, EmbedInput())
    server.requests.clear()
    hits = vsearch(app, SearchInput(query="budget review", collection="work", limit=5))
    assert {h.uri for h in hits.results} == {"gno://work/budget.md", "gno://work/hire.md"}
    assert "budget review" in embedded_texts(server, "work-embed")
    assert embedded_texts(server, "preset-embed") == ""  # notes was not searched
    server.requests.clear()
    every = vsearch(app, SearchInput(query="slow traces", limit=10))
    assert {h.uri for h in every.results} == {
        "gno://notes/tail.md",
        "gno://work/budget.md",
        "gno://work/hire.md",
    }
    assert "slow traces" in embedded_texts(server, "preset-embed")
    assert "slow traces" in embedded_texts(server, "work-embed")
    server.requests.clear()
    answer = query(app, QueryInput(query="budget", collection="work", fast=True))
    assert answer.meta.vectorsUsed is True
    assert answer.results and answer.results[0].uri == "gno://work/budget.md"
    assert "budget" in embedded_texts(server, "work-embed")
    assert embedded_texts(server, "preset-embed") == ""


def test_a_model_set_later_by_patch_is_used_after_embedding(
    served: tuple[App, FakeOpenAI],
) -> None:
    app, server = served
    embed(app, EmbedInput())
    collection_models(
        app,
        CollectionModelsInput.model_validate(
            {"collection": "notes", "models": {"embed": f"{server.url}/v1#notes-embed"}}
        ),
    )
    server.requests.clear()
    assert embed(app, EmbedInput()).embedded == 1  # notes again, with its new model
    assert "slow traces" in embedded_texts(server, "notes-embed")
    server.requests.clear()
    hits = vsearch(app, SearchInput(query="slow traces", collection="notes", limit=3))
    assert [h.uri for h in hits.results] == ["gno://notes/tail.md"]
    assert "slow traces" in embedded_texts(server, "notes-embed")
    assert embedded_texts(server, "preset-embed") == ""


def test_one_model_for_all_collections_is_one_search(make_app: Any) -> None:
    """Without collection models nothing changes: one backlog, one query embedding."""
    with FakeOpenAI(mode="ok") as server:
        app, _ = make_app(NOTES)
        models_use(app, ModelsUseInput(embed=f"{server.url}/v1#preset-embed"))
        make_app(WORK, name="work")
        app.reload_config()
        sync(app)
        assert embed(app, EmbedInput()).embedded == 3
        server.requests.clear()
        vsearch(app, SearchInput(query="budget", limit=5))
        calls = [r for r in server.requests if r.path == "/v1/embeddings"]
        assert len(calls) == 1 and calls[0].body["model"] == "preset-embed"


def test_clearing_stale_vectors_keeps_the_collections_own_model(
    served: tuple[App, FakeOpenAI],
) -> None:
    from gno_contracts.models.clear_embeddings_input import ClearEmbeddingsInput

    from gno.services.collections import clear_collection_embeddings

    app, _ = served
    embed(app, EmbedInput())
    cleared = clear_collection_embeddings(app, ClearEmbeddingsInput(collection="work"))
    assert cleared.deletedVectors == 0  # its vectors are of the model it embeds with
    hits = vsearch(app, SearchInput(query="budget", collection="work", limit=5))
    assert len(hits.results) == 2


def test_status_counts_each_collections_vectors_of_its_own_model(
    served: tuple[App, FakeOpenAI],
) -> None:
    from gno.services.status import embedded_counts

    app, _ = served
    assert embedded_counts(app, app.store()) == {}
    embed(app, EmbedInput())
    assert embedded_counts(app, app.store()) == {"notes": 1, "work": 2}


def test_a_process_follows_models_use_without_restarting(make_app: Any) -> None:
    """`gno serve` keeps one Models: an embedding model chosen meanwhile is loaded, not the
    one loaded first."""
    with FakeOpenAI(mode="ok") as server:
        app, _ = make_app(NOTES)
        models_use(app, ModelsUseInput(embed=f"{server.url}/v1#first-embed"))
        sync(app)
        assert embed(app, EmbedInput()).model == f"{server.url}/v1#first-embed"
        models_use(app, ModelsUseInput(embed=f"{server.url}/v1#second-embed"))
        server.requests.clear()
        assert embed(app, EmbedInput()).model == f"{server.url}/v1#second-embed"
        assert "slow traces" in embedded_texts(server, "second-embed")
        assert embedded_texts(server, "first-embed") == ""


def test_pending_documents_count_each_collection_against_its_own_model(
    served: tuple[App, FakeOpenAI],
) -> None:
    """What the daemon's embed scheduler waits on: zero once every collection is embedded
    with its model (with the preset's model alone, `work` would look pending forever)."""
    from gno.services.status_blocks import pending_documents

    app, _ = served
    assert pending_documents(app) == 3
    embed(app, EmbedInput(collection="work"))
    assert pending_documents(app) == 1
    embed(app, EmbedInput())
    assert pending_documents(app) == 0


def test_similar_uses_the_documents_own_model(served: tuple[App, FakeOpenAI]) -> None:
    from gno_contracts.models.similar_input import SimilarInput

    from gno.services.similar import similar

    app, _ = served
    embed(app, EmbedInput())
    found = similar(app, SimilarInput(ref="gno://work/budget.md", limit=5, threshold=0))
    assert [h.uri for h in found.similar] == ["gno://work/hire.md"]
    across = similar(
        app, SimilarInput(ref="gno://work/budget.md", limit=5, threshold=0, crossCollection=True)
    )
    assert [h.uri for h in across.similar] == ["gno://work/hire.md"]  # notes: another model
