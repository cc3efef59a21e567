"""The retrieval stages of `gno query` on real indexes: embedding windows (tiny random BERT
written by the test), query-shape weights, pseudo-relevance feedback, the query-language
preference among translations, and their receipts in --explain and `query diagnose`; each
switched off through the `retrieval:` block of index.yml."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.conftest import sync

pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed")
pytest.importorskip("gguf", reason="gguf is needed to write the tiny test model")

from gno_contracts.models.embed_input import EmbedInput
from gno_contracts.models.query_diagnose_input import QueryDiagnoseInput
from gno_contracts.models.query_input import QueryInput

from gno.errors import ConfigError
from gno.services.diagnose import diagnose
from gno.services.embed import embed
from gno.services.query import query
from tests.tiny_gguf import write_tiny_bert

LONG = "\n\n".join(
    f"Paragraph {i}: the trace sample query index document model." for i in range(40)
)


def set_retrieval(app, **switches) -> None:
    path = app.paths.config_file
    data = yaml.safe_load(path.read_text())
    data["retrieval"] = switches
    path.write_text(yaml.safe_dump(data))
    app.reload_config()


def explain_lines(result) -> dict[str, str]:
    return {line.stage: line.message for line in result.meta.explain.lines}


@pytest.fixture(scope="module")
def tiny_model(tmp_path_factory) -> Path:
    return write_tiny_bert(tmp_path_factory.mktemp("models") / "tiny-bert.gguf")


# --- windows ------------------------------------------------------------------------------


def test_long_chunks_get_windows_and_reuse_the_whole_chunk_vector(
    make_app, tiny_model, monkeypatch
):
    monkeypatch.setenv("GNO_EMBED_MODEL", f"file:{tiny_model}")
    app, _ = make_app({"long.md": f"# Long\n\n{LONG}\n", "short.md": "# Short\n\nthe trace\n"})
    sync(app)
    conn = app.store().conn
    set_retrieval(app, embedWindows=False)
    plain = embed(app, EmbedInput())
    chunks = conn.execute("SELECT count(*) FROM content_chunks").fetchone()[0]
    assert plain.embedded == chunks
    assert conn.execute("SELECT count(*), max(win) FROM chunk_vectors").fetchone() == (chunks, 0)
    set_retrieval(app, embedWindows=True, maxWindows=3, vectorFeedback=True)
    windowed = embed(app, EmbedInput())
    assert windowed.embedded == chunks and windowed.errors == 0
    rows = conn.execute(
        "SELECT cv.mirror_hash, cv.seq, count(*), max(cv.win) FROM chunk_vectors cv "
        "JOIN embed_models m ON m.id = cv.model_id WHERE m.id = (SELECT max(id) FROM embed_models) "
        "GROUP BY cv.mirror_hash, cv.seq"
    ).fetchall()
    assert len(rows) == chunks
    assert max(r[2] for r in rows) == 3 and min(r[2] for r in rows) == 1  # long: 3, short: 1
    # Window 0 is the chunk's old text: the windowed set points at the same vector bytes.
    same = conn.execute(
        "SELECT count(*) FROM chunk_vectors a JOIN chunk_vectors b ON a.mirror_hash = b.mirror_hash "
        "AND a.seq = b.seq AND a.win = 0 AND b.win = 0 AND a.model_id < b.model_id "
        "JOIN text_vectors ta ON ta.id = a.vector_id JOIN text_vectors tb ON tb.id = b.vector_id "
        "WHERE ta.text_hash = tb.text_hash AND ta.embedding = tb.embedding"
    ).fetchone()[0]
    assert same == chunks
    result = query(app, QueryInput(query="trace sample", explain=True))
    assert result.meta.vectorsUsed and explain_lines(result)["windows"].startswith(
        "up to 3 windows"
    )
    set_retrieval(app, embedWindows=False, vectorFeedback=True)  # the one-vector set answers
    result = query(app, QueryInput(query="trace sample", explain=True))
    assert explain_lines(result)["windows"].startswith("one vector per chunk") and result.results


def _minilm_app(make_app, tmp_path, monkeypatch):
    """Two notes embedded by a tiny model named like MiniLM (a model trained without query
    prompts, reading English only)."""
    minilm = write_tiny_bert(tmp_path / "tiny-MiniLM-L6.gguf")
    monkeypatch.setenv("GNO_EMBED_MODEL", f"file:{minilm}")
    app, _ = make_app({"a.md": "# Trace\n\nthe trace sample\n", "b.md": "# Index\n\nquery model\n"})
    sync(app)
    embed(app, EmbedInput())
    return app, minilm


def test_plain_query_text_for_a_model_trained_without_prompts(make_app, tmp_path, monkeypatch):
    # A MiniLM-named model gets the bare query (no "task: search result | query:" prompt);
    # switched off, or for a model outside PLAIN_QUERY_MODELS, the prompt stays.
    from gno.core.embedding_text import query_text
    from gno.services.embed import vector_search

    app, _ = _minilm_app(make_app, tmp_path, monkeypatch)
    uri = app.embed_uri or app.embedder().model_id
    store, text = app.store(), "how is the trace sampled"
    bare = app.embedder().embed_batch([text])[0]
    prompted = app.embedder().embed_batch([query_text(uri, text)])[0]
    assert bare != pytest.approx(prompted, abs=1e-3)  # the two recipes really differ
    searched = vector_search(app, store, [text], 10)[1]
    assert searched.plain_query and searched.vectors[0] == pytest.approx(bare, abs=1e-6)
    lines = explain_lines(query(app, QueryInput(query=text, explain=True)))
    assert lines["vector"].endswith("(the bare query)")
    set_retrieval(app, plainQueryText=False)
    searched = vector_search(app, store, [text], 10)[1]
    assert not searched.plain_query and searched.vectors[0] == pytest.approx(prompted, abs=1e-6)
    lines = explain_lines(query(app, QueryInput(query=text, explain=True)))
    assert lines["vector"].endswith("(the query with its prompt)")
    other = "file:/models/embeddinggemma-300m.gguf"  # trained with the prompt: keeps it
    assert query_text(other, text, plain=True) == query_text(other, text) != text
    assert query_text(uri, text, plain=True) == text


def test_language_weights_for_an_english_only_model(make_app, tmp_path, monkeypatch):
    # With a model that reads English only (a MiniLM-named one), an English question leans on
    # the vector list and a question in another language keeps the keyword weights; any other
    # model, no vectors, a keyword query or the switch off leave the shape's weights.
    from gno.core.query_shape import ENGLISH_QUESTION_WEIGHTS, KEYWORD, QUESTION, shape_weights
    from gno.services.stages import weights_for_language

    app, minilm = _minilm_app(make_app, tmp_path, monkeypatch)
    english, japanese = (
        "how is the trace sampled in this index",
        "バックエンドが停止してもデータを失わないようにするには",
    )

    def receipt(q: str):
        return diagnose(app, QueryDiagnoseInput(query=q, target="gno://notes/a.md")).meta.retrieval

    lines = explain_lines(query(app, QueryInput(query=english, explain=True)))
    assert lines["language_weights"] == (
        "English question, English-only model: bm25 weight 0.01, vector weight 3"
    )
    assert receipt(english).weights == ENGLISH_QUESTION_WEIGHTS
    stage = {s.id.value: s for s in receipt(english).stages}["languageWeights"]
    assert (stage.status.value, stage.message) == ("active", lines["language_weights"])
    lines = explain_lines(query(app, QueryInput(query=japanese, explain=True)))
    assert lines["language_weights"].startswith("question in ja, English-only model: bm25 weight 2")
    assert receipt(japanese).weights == shape_weights(KEYWORD)
    lines = explain_lines(query(app, QueryInput(query="trace sample", explain=True)))
    assert lines["language_weights"] == "skipped: keyword query"
    set_retrieval(app, languageWeights=False)
    lines = explain_lines(query(app, QueryInput(query=english, explain=True)))
    assert lines["language_weights"] == "skipped: disabled"
    assert receipt(english).weights == shape_weights(QUESTION)
    stage = {s.id.value: s for s in receipt(english).stages}["languageWeights"]
    assert (stage.status.value, stage.reason) == ("skipped", "disabled")
    # Another model (GNO's default, multilingual), or no vector leg: the shape's weights.
    question = shape_weights(QUESTION)
    qwen = {"hf:Qwen/Qwen3-Embedding-0.6B-GGUF/Qwen3-Embedding-0.6B-Q8_0.gguf"}
    assert weights_for_language(english, QUESTION, question, qwen) == (
        question,
        "skipped: the embedding model is not known to read English only",
    )
    assert weights_for_language(english, QUESTION, question, None) == (
        question,
        "skipped: no vectors",
    )
    assert weights_for_language(english, QUESTION, question, {f"file:{minilm}"})[0] == (
        ENGLISH_QUESTION_WEIGHTS
    )


# --- outline leg ------------------------------------------------------------------------------

OUTLINE = {
    # The question's words name this page (frontmatter and a heading), not its body.
    "demo/requirements.md": "---\ntitle: System Requirements\ndescription: The machine the "
    "demo shop needs\n---\n\n# Requirements\n\n" + "Docker Desktop, four cores.\n" * 30,
    # This page has the words in its body only: no outline match.
    "blog/post.md": "# A post\n\nI ran the demo shop on a small machine last week.\n",
    "other.md": "# Exporters\n\nThe exporter sends spans.\n",
}


def test_outline_leg_ranks_pages_named_by_the_question(make_app, tmp_path, monkeypatch):
    # A question gets a BM25 list over titles, descriptions, headings and paths (outline_fts),
    # fused as its own list; a keyword query, no vectors or the switch off skip it, and the
    # table follows edits and deletions.
    from gno.core.query_shape import QUESTION
    from gno.services.filters import build_filters
    from gno.services.stages import outline_leg

    minilm = write_tiny_bert(tmp_path / "tiny-MiniLM-L6.gguf")
    monkeypatch.setenv("GNO_EMBED_MODEL", f"file:{minilm}")
    app, root = make_app(OUTLINE)
    sync(app)
    embed(app, EmbedInput())
    store, question = app.store(), "what machine do I need to run the demo shop locally"

    def listed(q: str = question, vectors: bool = True, **filters) -> tuple[list[str], str]:
        found, line = outline_leg(
            store, q, QUESTION, build_filters(store, QueryInput(query=q, **filters)), 10, vectors
        )
        keys = found.keys if found else []
        docs = {d.mirror_hash: d.rel_path for d in store.documents_with_mirrors(keys, "", [])}
        return [docs[k] for k in keys], line

    assert listed() == (
        ["demo/requirements.md"],
        "1 candidates (titles, descriptions, headings)",
    )
    assert listed(vectors=False) == ([], "skipped: no vectors")
    assert listed(tagsAll=["no-such-tag"])[0] == []  # the owner filters apply
    result = query(app, QueryInput(query=question, explain=True))
    assert explain_lines(result)["outline"] == "1 candidates (titles, descriptions, headings)"
    assert "demo/requirements.md" in [r.source.relPath for r in result.results]
    target = "gno://notes/demo/requirements.md"
    receipt = diagnose(app, QueryDiagnoseInput(query=question, target=target))
    stage = {s.id.value: s for s in receipt.meta.retrieval.stages}["outline"]
    assert (stage.status.value, stage.message) == ("active", explain_lines(result)["outline"])
    assert stage.targetRank == 1
    lines = explain_lines(query(app, QueryInput(query="machine demo", explain=True)))
    assert lines["outline"] == "skipped: keyword query"
    set_retrieval(app, outlineLeg=False)
    assert explain_lines(query(app, QueryInput(query=question, explain=True)))["outline"] == (
        "skipped: disabled"
    )
    receipt = diagnose(app, QueryDiagnoseInput(query=question, target="gno://notes/other.md"))
    stage = {s.id.value: s for s in receipt.meta.retrieval.stages}["outline"]
    assert (stage.status.value, stage.reason) == ("skipped", "disabled")
    # Edits and deletions reach outline_fts with the next sync.
    (root / "other.md").write_text("# The machine room of the demo shop\n\nRacks.\n")
    (root / "demo/requirements.md").unlink()
    sync(app)
    assert listed()[0] == ["other.md"]


# --- language preference, feedback, shape: BM25 only (no vectors) ---------------------------

TRANSLATED = {
    # The Japanese page says "collector" more often, so BM25 alone puts it first.
    "site/en/docs/retry.md": "# Retry\n\nThe collector retries failed exports with backoff.\n",
    "site/ja/docs/retry.md": "# 再試行\n\ncollector collector collector は collector のエクスポートを再試行します。\n",
}


def test_an_english_query_gets_the_original_and_a_japanese_one_the_translation(make_app):
    app, _ = make_app(TRANSLATED)
    sync(app)
    first = lambda q: query(app, QueryInput(query=q, explain=True)).results[0].source.relPath  # noqa: E731
    set_retrieval(app, languagePreference=False)
    assert first("collector") == "site/ja/docs/retry.md"  # BM25 alone
    set_retrieval(app, languagePreference=True)
    result = query(app, QueryInput(query="collector", explain=True))
    assert result.results[0].source.relPath == "site/en/docs/retry.md"
    assert explain_lines(result)["language"].startswith("en assumed")
    assert first("how does the collector retry") == "site/en/docs/retry.md"
    assert first("collector の再試行") == "site/ja/docs/retry.md"
    target = diagnose(
        app, QueryDiagnoseInput(query="collector", target="gno://notes/site/en/docs/retry.md")
    )
    receipt = target.meta.retrieval
    assert (receipt.queryLanguage, receipt.targetLanguageMove.value) == ("en", "promoted")


FILLER = {
    f"filler/{i}.md": f"# Note {i}\n\nUnrelated text about cooking pasta number {i}.\n"
    for i in range(30)
}
FEEDBACK = {
    "sampling/a.md": "# Sampling\n\nTail sampling decisions follow policies. Policies decide; policies rule.\n",
    "sampling/b.md": "# More sampling\n\nSampling decisions come from policies and policies only.\n",
    "sampling/c.md": "# Sampling again\n\nThe sampling decisions: policies, policies everywhere.\n",
    "target.md": "# Rules for keeping traces\n\nWrite policies: each of the policies keeps some traces.\n",
} | FILLER


def test_feedback_terms_bring_in_a_page_without_the_query_words(make_app):
    app, _ = make_app(FEEDBACK)
    sync(app)
    set_retrieval(app, feedback=False)
    paths = lambda r: [x.source.relPath for x in r.results]  # noqa: E731
    off = query(app, QueryInput(query="sampling decisions", explain=True))
    assert "target.md" not in paths(off) and explain_lines(off)["feedback"] == "skipped: disabled"
    set_retrieval(app, feedback=True)
    on = query(app, QueryInput(query="sampling decisions", explain=True))
    assert "target.md" in paths(on)
    assert explain_lines(on)["feedback"].startswith("terms: policies")
    ident = query(app, QueryInput(query="OTEL_TRACES_SAMPLER", explain=True))
    assert explain_lines(ident)["feedback"] == "skipped: identifier query"
    assert explain_lines(ident)["shape"] == "identifier: bm25 weight 3.0, vector weight 1.0"
    receipt = diagnose(
        app, QueryDiagnoseInput(query="sampling decisions", target="gno://notes/target.md")
    ).meta.retrieval
    assert receipt.shape.value == "keyword" and receipt.feedbackTerms[0].term == "policies"


def test_every_stage_can_be_switched_off_and_bad_switches_are_refused(make_app):
    app, _ = make_app(TRANSLATED)
    sync(app)
    set_retrieval(
        app,
        embedWindows=False,
        feedback=False,
        shapeWeights=False,
        languagePreference=False,
        halfTopBonus=False,
    )
    lines = explain_lines(query(app, QueryInput(query="collector", explain=True)))
    assert [lines[s] for s in ("shape", "feedback", "language")] == ["skipped: disabled"] * 3
    assert "top-rank bonus ×1," in lines["fusion"]
    set_retrieval(app, halfTopBonus=True)
    lines = explain_lines(query(app, QueryInput(query="collector", explain=True)))
    assert "top-rank bonus ×0.5," in lines["fusion"]
    set_retrieval(app, feedback="yes")
    with pytest.raises(ConfigError, match=r"retrieval\.feedback"):
        query(app, QueryInput(query="collector"))
    set_retrieval(app, maxWindows=99)
    with pytest.raises(ConfigError, match="maxWindows"):
        query(app, QueryInput(query="collector"))
