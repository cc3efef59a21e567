"""Embedding and vector search on real llama.cpp: a tiny random BERT written by the
test (always), and the real MiniLM model when ../shared/models has it."""

import os
import struct
from pathlib import Path

import pytest

from gno.errors import UnavailableError
from tests.conftest import sync

pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
pytest.importorskip("gguf", reason="gguf is needed to write the tiny test model")

from gno_contracts.models.embed_input import EmbedInput
from gno_contracts.models.search_input import SearchInput

from gno.services.embed import embed, vsearch
from tests.tiny_gguf import write_tiny_bert

MINILM = Path(__file__).resolve().parents[3] / "shared" / "models" / "all-MiniLM-L6-v2-f16.gguf"
SHARED = "\n\n".join(
    f"Paragraph {i}: the trace sample query index document model." * 3 for i in range(25)
)
NOTES = {
    "a.md": "# Tracing\n\nsample the trace before export\n",
    "b.md": "# Index\n\nthe search index holds document vectors\n",
    "copy/a.md": "# Tracing\n\nsample the trace before export\n",  # same mirror as a.md: one set of chunks
    "long1.md": f"# Shared\n\n{SHARED}\n\nThe first ending.\n",  # first chunk identical to long2's
    "long2.md": f"# Shared\n\n{SHARED}\n\nA different second ending.\n",
}


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    return write_tiny_bert(tmp_path_factory.mktemp("models") / "tiny-bert.gguf")


@pytest.fixture
def app(make_app, tiny_model, monkeypatch):
    monkeypatch.setenv("GNO_EMBED_MODEL", f"file:{tiny_model}")
    app, _ = make_app(NOTES)
    sync(app)
    return app


def vectors(app) -> tuple[int, int]:
    """(distinct vectors, chunks mapped) of the whole-chunk window 0; long chunks of the
    tiny model have more windows (tests/services/test_embed_windows.py)."""
    conn = app.store().conn
    return (
        conn.execute(
            "SELECT count(DISTINCT vector_id) FROM chunk_vectors WHERE win = 0"
        ).fetchone()[0],
        conn.execute("SELECT count(*) FROM chunk_vectors WHERE win = 0").fetchone()[0],
    )


def test_embed_then_vsearch(app):
    with pytest.raises(UnavailableError, match="gno embed"):
        vsearch(app, SearchInput(query="trace"))
    result = embed(app, EmbedInput())
    chunks = app.store().conn.execute("SELECT count(*) FROM content_chunks").fetchone()[0]
    assert (result.embedded, result.errors, result.searchAvailable) == (chunks, 0, True)
    texts, mapped = vectors(app)
    assert mapped == chunks and texts < chunks  # identical chunk text is embedded once
    again = embed(app, EmbedInput())
    assert again.embedded == 0  # nothing left in the backlog
    hits = vsearch(app, SearchInput(query="sample the trace before export", limit=10))
    assert hits.meta.mode.value == "vector" and hits.meta.vectorsUsed is True
    assert all(0 <= r.score <= 1 for r in hits.results) and len(hits.results) == len(NOTES)
    assert len({r.uri for r in hits.results}) == len(NOTES)  # one hit per document
    scores = [r.score for r in hits.results]
    assert scores == sorted(scores, reverse=True)
    blob = app.store().conn.execute("SELECT embedding FROM text_vectors LIMIT 1").fetchone()[0]
    vector = struct.unpack(f"{len(blob) // 4}f", blob)
    assert len(vector) == 32 and abs(sum(v * v for v in vector) - 1) < 1e-4


def test_filters_apply_to_vector_hits(app):
    embed(app, EmbedInput())
    hits = vsearch(app, SearchInput(query="search index", limit=5, exclude=["vectors"]))
    assert "gno://notes/b.md" not in [r.uri for r in hits.results]


def test_force_reuses_text_vectors_and_changed_files_embed_only_new_text(app):
    first = embed(app, EmbedInput())
    before = vectors(app)
    forced = embed(app, EmbedInput(force=True))
    assert forced.embedded == first.embedded and vectors(app) == before  # vectors reused, none new
    root = Path(app.config.find("notes").path)
    (root / "b.md").write_text(
        "# Index\n\nthe search index holds document vectors\n\nnew model text\n"
    )
    sync(app)
    assert embed(app, EmbedInput()).embedded == 1 and vectors(app)[0] == before[0] + 1


def test_missing_model_fails_fast(make_app, monkeypatch):
    monkeypatch.setenv("GNO_EMBED_MODEL", "file:/nowhere/model.gguf")
    app, _ = make_app(NOTES)
    sync(app)
    with pytest.raises(UnavailableError, match="not found"):
        embed(app, EmbedInput())
    monkeypatch.delenv("GNO_EMBED_MODEL")
    monkeypatch.setenv("GNO_OFFLINE", "1")
    with pytest.raises(UnavailableError, match="gno models pull --embed"):
        embed(app, EmbedInput())


@pytest.mark.skipif(not MINILM.exists(), reason=f"real model not present at {MINILM}")
def test_real_model_finds_a_paraphrase_bm25_misses(make_app, monkeypatch):
    from tests.conftest import search

    monkeypatch.setenv("GNO_EMBED_MODEL", f"file:{MINILM}")
    app, _ = make_app(
        {
            "sampling.md": "# Keeping the interesting traces\n\nThe collector decides after a trace completes "
            "whether to keep it, so slow or failing requests are retained while routine ones are dropped.\n",
            "bread.md": "# Sourdough\n\nMix flour and water, let the dough rest overnight, then bake it hot.\n",
            "metrics.md": "# Counters\n\nA counter only goes up; use it for requests served or bytes sent.\n",
        }
    )
    sync(app)
    embed(app, EmbedInput())
    question = "which spans survive when errors happen"
    assert search(app, question).results == []  # no shared words: BM25 finds nothing
    assert (
        vsearch(app, SearchInput(query=question, limit=1)).results[0].uri
        == "gno://notes/sampling.md"
    )
    assert os.environ["GNO_EMBED_MODEL"].endswith(".gguf")


def test_interrupted_embed_keeps_finished_pages(app):
    calls = {"n": 0}

    def stop_after_two_pages(done: int, total: int) -> None:
        calls["n"] += 1
        if calls["n"] == 2:
            raise KeyboardInterrupt

    result = embed(app, EmbedInput(batchSize=1), progress=stop_after_two_pages)
    assert result.interrupted is True and result.embedded == 2
    assert vectors(app)[1] == 2  # both finished pages are stored
    rest = embed(app, EmbedInput())
    total = app.store().conn.execute("SELECT count(*) FROM content_chunks").fetchone()[0]
    assert rest.embedded == total - 2 and vectors(app)[1] == total


def test_index_syncs_then_embeds(make_app, tiny_model, monkeypatch):
    from gno_contracts.models.index_input import IndexInput

    from gno.services.embed import index

    monkeypatch.setenv("GNO_EMBED_MODEL", f"file:{tiny_model}")
    app, root = make_app({"a.md": "# A\n\nalpha text\n"})
    result = index(app, IndexInput())
    assert result.syncResult.totalFilesAdded == 1 and result.embedSkipped is False
    assert result.embedResult.embedded == 1
    (root / "b.md").write_text("# B\n\nbeta text\n")
    only_sync = index(app, IndexInput(noEmbed=True))
    assert only_sync.embedSkipped is True and only_sync.embedResult is None
    assert index(app, IndexInput()).embedResult.embedded == 1  # only b.md's chunk was waiting


def test_query_degrades_then_fuses(app):
    from gno_contracts.models.query_input import QueryInput

    from gno.errors import ValidationError
    from gno.services.query import query

    before = query(app, QueryInput(query="sample trace", limit=5, explain=True))
    assert before.meta.mode.value == "bm25_only" and before.meta.vectorsUsed is False
    assert before.meta.expanded is False and before.meta.reranked is False
    embed(app, EmbedInput())
    after = query(app, QueryInput(query="sample trace", limit=5, explain=True))
    assert after.meta.mode.value == "hybrid" and after.meta.vectorsUsed is True
    uris = [r.uri for r in after.results]
    assert len(uris) == len(set(uris)) and "gno://notes/a.md" in uris  # one hit per document
    assert [r.rank for r in after.meta.explain.results] == list(range(1, len(uris) + 1))
    filtered = query(app, QueryInput(query="sample trace", limit=5, exclude=["export"]))
    assert "gno://notes/a.md" not in [r.uri for r in filtered.results]
    modes = query(
        app, QueryInput(query="zzzz", queryModes=[{"mode": "term", "text": "index vectors"}])
    )
    assert modes.meta.queryModes.term == 1 and "gno://notes/b.md" in [r.uri for r in modes.results]
    with pytest.raises(ValidationError):
        query(
            app,
            QueryInput(
                query="x", queryModes=[{"mode": "hyde", "text": "a"}, {"mode": "hyde", "text": "b"}]
            ),
        )
    doc = query(app, QueryInput(query="term: index vectors\nintent: what the index holds"))
    assert doc.meta.queryModes.intent == 1 and doc.meta.query == "index vectors"


def test_query_reranks_when_a_reranker_is_on_disk(app, tmp_path, monkeypatch):
    from gno_contracts.models.query_input import QueryInput

    from gno.services.query import query

    embed(app, EmbedInput())
    plain = query(app, QueryInput(query="sample trace", limit=5))
    assert plain.meta.reranked is False  # the preset's reranker is not on disk: no error
    monkeypatch.setenv(
        "GNO_RERANK_MODEL", f"file:{write_tiny_bert(tmp_path / 'rank.gguf', rank=True)}"
    )
    app.models.forget_missing()  # as after a pull: look again for the roles without a model
    ranked = query(app, QueryInput(query="sample trace", limit=5, explain=True))
    assert ranked.meta.reranked is True and ranked.meta.mode.value == "hybrid"
    assert sorted(r.uri for r in ranked.results) == sorted(r.uri for r in plain.results)
    stages = {line.stage: line.message for line in ranked.meta.explain.lines}
    assert stages["rerank"].endswith("candidates reranked")
    scores = [r.score for r in ranked.results]
    assert scores[1:] == sorted(scores[1:], reverse=True)  # the first may be the pinned BM25 #1
    assert query(app, QueryInput(query="sample trace", limit=5, fast=True)).meta.reranked is False


def test_query_diagnose_statuses_and_stages(app):
    from gno_contracts.models.query_diagnose_input import QueryDiagnoseInput

    from gno.services.diagnose import diagnose

    def run(target: str, **kw):
        return diagnose(app, QueryDiagnoseInput(query="sample trace", target=target, **kw))

    lexical = run("gno://notes/a.md")
    assert lexical.target.status.value == "diagnosed" and lexical.meta.mode.value == "bm25_only"
    stages = {s.id.value: s for s in lexical.stages}
    assert (
        stages["bm25"].present
        and stages["bm25"].rank >= 1
        and stages["vector"].status.value == "skipped"
    )
    embed(app, EmbedInput())
    hybrid = run("notes/a.md")
    stages = {s.id.value: s for s in hybrid.stages}
    assert (
        hybrid.meta.vectorsUsed is True and stages["vector"].present and stages["fusion"].survived
    )
    assert hybrid.chunk.startLine >= 1 and hybrid.target.chunkCount >= 1
    assert run("notes/nope.md").target.status.value == "not_found"
    filtered = run("notes/a.md", exclude=["export"], tagsAny=["nothing"])
    assert filtered.target.status.value == "filtered_out"
    assert filtered.target.filterReasons == ["tags_any", "exclude"] and filtered.stages == []
    absent = run("notes/b.md")  # shares no query term; vectors may still see it
    assert absent.target.status.value == "diagnosed"
    assert {s.id.value for s in absent.stages} == {"bm25", "vector", "fusion", "graph", "rerank"}
    assert not {s.id.value: s for s in absent.stages}["bm25"].present


def test_invisible_characters_do_not_change_a_vector_or_hybrid_query(app):
    """A control or format character inside a word (gno.core.invisible) is dropped before the
    query is embedded or split into lines, as search drops it: the same hits and scores as the
    plain query (this BERT's tokenizer ignores controls itself; a byte-level one would not)."""
    from gno_contracts.models.query_input import QueryInput

    from gno.errors import ValidationError
    from gno.services.query import query

    embed(app, EmbedInput())

    def answer(run, text):
        return [(r.uri, r.score) for r in run(app, text).results]

    plain = answer(lambda a, t: vsearch(a, SearchInput(query=t, limit=10)), "sample the trace")
    for typed in ["sam\x00ple the trace", "sample the tr\u200dace", "sam\x1cple th\xade trace"]:
        found = answer(lambda a, t: vsearch(a, SearchInput(query=t, limit=10)), typed)
        assert found == plain, repr(typed)
    hybrid = answer(lambda a, t: query(a, QueryInput(query=t, limit=5)), "sample trace")
    for typed in ["sam\x1cple trace", "sample tr\u2060ace"]:  # U+001C ended a line before
        assert answer(lambda a, t: query(a, QueryInput(query=t, limit=5)), typed) == hybrid
        assert query(app, QueryInput(query=typed)).meta.query == "sample trace"
    with pytest.raises(ValidationError, match="empty"):
        vsearch(app, SearchInput(query="\u200d\x00"))
