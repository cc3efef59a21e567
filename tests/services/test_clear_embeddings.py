"""gno_clear_collection_embeddings: a collection's vectors go, shared text stays searchable."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import sync

pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
pytest.importorskip("gguf", reason="gguf is needed to write the tiny test model")

from gno_contracts.models.clear_embeddings_input import ClearEmbeddingsInput
from gno_contracts.models.collection_add_input import CollectionAddInput
from gno_contracts.models.embed_input import EmbedInput
from gno_contracts.models.search_input import SearchInput

from gno.errors import NotFoundError
from gno.services.collections import clear_collection_embeddings, collection_add
from gno.services.embed import embed, vsearch
from tests.conftest import write_tree
from tests.tiny_gguf import write_tiny_bert

SHARED = "# Shared\n\nthe same words in both collections\n"


@pytest.fixture
def app(make_app, tmp_path: Path, monkeypatch):
    model = write_tiny_bert(tmp_path / "tiny-bert.gguf")
    monkeypatch.setenv("GNO_EMBED_MODEL", f"file:{model}")
    app, _ = make_app({"own.md": "# Own\n\nonly in notes\n", "shared.md": SHARED})
    work = write_tree(tmp_path / "work", {"copy.md": SHARED, "mine.md": "# Mine\n\nwork only\n"})
    collection_add(app, CollectionAddInput(path=str(work), name="work"))
    sync(app)
    assert embed(app, EmbedInput()).embedded > 0
    return app


def _chunk_vectors(app) -> int:
    return app.store().conn.execute("SELECT count(*) FROM chunk_vectors").fetchone()[0]


def test_stale_mode_keeps_the_active_model(app) -> None:
    before = _chunk_vectors(app)
    result = clear_collection_embeddings(app, ClearEmbeddingsInput(collection="notes"))
    assert (result.mode.value, result.deletedVectors, result.deletedModels) == ("stale", 0, [])
    assert _chunk_vectors(app) == before


def test_all_mode_keeps_text_another_collection_uses(app) -> None:
    before = _chunk_vectors(app)
    result = clear_collection_embeddings(app, ClearEmbeddingsInput(collection="NOTES", mode="all"))
    assert result.collection == "notes"
    assert result.deletedVectors >= 1 and result.protectedSharedVectors >= 1
    assert len(result.deletedModels) == 1 and result.deletedModels[0].startswith("file:")
    assert _chunk_vectors(app) == before - result.deletedVectors
    hits = vsearch(app, SearchInput(query="the same words in both collections", limit=10))
    assert {r.uri for r in hits.results} >= {"gno://work/copy.md", "gno://notes/shared.md"}
    assert "gno://notes/own.md" not in {r.uri for r in hits.results}
    again = embed(app, EmbedInput())  # text vectors were kept: restored without new work
    assert again.embedded == result.deletedVectors
    assert _chunk_vectors(app) == before


def test_unknown_collection(app) -> None:
    with pytest.raises(NotFoundError, match="Collection not found: nope"):
        clear_collection_embeddings(app, ClearEmbeddingsInput(collection="nope"))
