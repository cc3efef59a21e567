"""The pure parts of the retrieval stages: embedding windows, query shape, query language,
translations and pseudo-relevance feedback (gno.core.windows, query_shape, language,
translations, feedback)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gno.core.embedding_text import english_only_model
from gno.core.feedback import FEEDBACK_TERMS, candidate_terms, pick_terms
from gno.core.fts import cjk_any
from gno.core.fusion import RankedList, rrf
from gno.core.language import detect_query_language
from gno.core.query_shape import (
    ENGLISH_QUESTION_WEIGHTS,
    IDENTIFIER,
    KEYWORD,
    QUESTION,
    language_weights,
    query_shape,
    shape_weights,
)
from gno.core.translations import OTHER_LANGUAGE, page_language, prefer_language
from gno.core.windows import MAX_WINDOWS_CAP, plan_windows

# --- windows ------------------------------------------------------------------------------


def test_a_chunk_that_fits_has_one_window() -> None:
    assert plan_windows("short text", 3, 256, 3).starts == (0,)
    assert plan_windows("x " * 2000, 2000, 256, 1).starts == (0,)  # windows off


def test_a_long_chunk_gets_spread_windows_up_to_the_limit() -> None:
    chunk = " ".join(f"word{i}" for i in range(800))  # ~6,300 characters
    plan = plan_windows(chunk, 900, 256, 3)
    assert plan.count == 3 and plan.starts[0] == 0
    assert list(plan.starts) == sorted(set(plan.starts))
    assert all(chunk[s - 1] == " " for s in plan.starts[1:])  # snapped to a word start
    # The last window is placed so that it reaches the end of the chunk.
    span = int(256 * 0.9 * len(chunk) / 900)
    assert plan.starts[-1] + span >= len(chunk) - 40


@given(
    length=st.integers(0, 5000),
    tokens=st.integers(1, 3000),
    max_tokens=st.integers(4, 512),
    limit=st.integers(-2, 20),
)
def test_window_plans_are_bounded_and_ordered(length, tokens, max_tokens, limit) -> None:
    chunk = ("ab " * length)[:length]
    plan = plan_windows(chunk, tokens, max_tokens, limit)
    assert plan.starts[0] == 0
    assert 1 <= plan.count <= max(1, min(limit, MAX_WINDOWS_CAP))
    assert all(0 < s < max(1, len(chunk)) for s in plan.starts[1:])
    assert list(plan.starts) == sorted(set(plan.starts))
    if tokens <= max_tokens:
        assert plan.count == 1


# --- query shape --------------------------------------------------------------------------


def test_query_shape_counts_fts5s_words() -> None:
    # Three Yoruba words: six to \w (it splits at each combining acute), three to FTS5.
    assert query_shape("ẹ́kọ́ ẹ́kọ́ ẹ́kọ́") == KEYWORD
    assert query_shape("a b c d e fgh") == QUESTION


def test_query_shapes() -> None:
    for text in ("OTEL_BSP_SCHEDULE_DELAY", "db.query.text", "SeverityNumber", "k8s.pod.name",
                 '"batch span processor"', "otel.javaagent.enabled", "k8sattributes processor"):  # fmt: skip
        assert query_shape(text) == IDENTIFIER, text
    for text in ("batch span processor", "target allocator", "テイルサンプリング", "上下文传播"):
        assert query_shape(text) == KEYWORD, text
    for text in ("keep only the slow or failing requests and throw away the rest",
                 "will the collector lose my data?", "バックエンドが停止してもデータを失わないようにするには"):  # fmt: skip
        assert query_shape(text) == QUESTION, text


def test_shape_weights_lean_lexical_for_identifiers_and_semantic_for_questions() -> None:
    ident, question, keyword = (shape_weights(s) for s in (IDENTIFIER, QUESTION, KEYWORD))
    assert ident["bm25"] > ident["vector"] and question["vector"] > question["bm25"]
    assert keyword["bm25"] == keyword["vector"]
    # The weights decide fusion: the same two lists, opposite winners.
    lists = [RankedList("bm25", ["lexical", "a"]), RankedList("vector", ["semantic", "b"])]
    assert rrf(lists, weights=ident)[0].key == "lexical"
    assert rrf(lists, weights=question)[0].key == "semantic"


def test_language_weights_lean_on_vectors_for_english_questions_only() -> None:
    assert language_weights("en") == ENGLISH_QUESTION_WEIGHTS
    assert ENGLISH_QUESTION_WEIGHTS["vector"] > shape_weights(QUESTION)["vector"]
    assert ENGLISH_QUESTION_WEIGHTS["bm25"] < shape_weights(QUESTION)["bm25"]
    for language in ("ja", "zh", "es", None):  # another language, or not detected
        assert language_weights(language) == shape_weights(KEYWORD), language


def test_english_only_models_are_known_by_their_name() -> None:
    for uri in ("file:../shared/models/all-MiniLM-L6-v2-f16.gguf",
                "hf:second-state/All-MiniLM-L6-v2-Embedding-GGUF/all-MiniLM-L6-v2-Q8_0.gguf",
                "file:/m/all-mpnet-base-v2.gguf", "file:/m/multi-qa-MiniLM-L6-cos-v1.gguf"):  # fmt: skip
        assert english_only_model(uri), uri
    for uri in ("file:/m/paraphrase-multilingual-MiniLM-L12-v2.gguf",
                "hf:Qwen/Qwen3-Embedding-0.6B-GGUF/Qwen3-Embedding-0.6B-Q8_0.gguf",
                "file:/m/embeddinggemma-300m.gguf", "file:/m/model.gguf"):  # fmt: skip
        assert not english_only_model(uri), uri


# --- query language -----------------------------------------------------------------------


def test_short_queries_get_their_language() -> None:
    cases = {
        "Wie installiere ich den Collector?": "de",
        "Wie funktioniert das Sampling": "de",
        "o que é bagagem no OpenTelemetry": "pt",
        "instrumentação sem alterar o código da aplicação": "pt",
        "mise à l'échelle automatique du collecteur": "fr",
        "qu'est-ce qu'OpenTelemetry": "fr",
        "¿qué es OpenTelemetry?": "es",
        "receptores disponibles en el colector": "es",
        "テイルサンプリング": "ja",
        "Kubernetesにコレクターをインストールする方法": "ja",
        "上下文传播": "zh",
        "how does the collector retry failed exports": "en",
        "what is a span": "en",
        # "as" is also Portuguese: English function words (and, as, or, …) outweigh it
        "add and remove collector replicas automatically as traffic changes": "en",
        "as receitas e os coletores": "pt",
    }
    for text, lang in cases.items():
        assert detect_query_language(text) == lang, text


def test_bare_identifiers_and_ties_are_undetected() -> None:
    for text in ("OTEL_SDK_DISABLED", "k8s.pod.name", "batch span processor", "de"):
        assert detect_query_language(text) is None, text


def test_cjk_queries_relax_to_their_bigrams() -> None:
    assert cjk_any("tail sampling") is None
    expr = cjk_any("上下文传播")
    assert expr == '("上下" OR "下文" OR "文传" OR "传播")'


# --- translations -------------------------------------------------------------------------


def test_page_language_from_a_language_folder() -> None:
    en, ja = page_language("website/en/docs/x.md"), page_language("website/ja/docs/x.md")
    assert (en.language, ja.language) == ("en", "ja") and en.key == ja.key == "website/*/docs/x.md"
    assert page_language("website/pt-br/docs/x.md").language == "pt"
    assert page_language("specification/trace/sdk.md").language is None
    assert page_language("docs/en.md").language is None  # a file name is not a folder


def test_the_query_language_page_moves_up_to_its_group_and_others_step_down() -> None:
    pages = {k: page_language(p) for k, p in {
        "ja": "w/ja/docs/a.md", "en": "w/en/docs/a.md", "fr": "w/fr/docs/b.md",
        "spec": "spec/a.md", "en_b": "w/en/docs/b.md"}.items()}  # fmt: skip
    order = ["ja", "spec", "fr", "en", "en_b"]
    scores = [1.0, 0.9, 0.8, 0.5, 0.1]
    ranked, new, why = prefer_language(order, scores, pages, "en")
    assert ranked[0] == "en" and why["en"] == "promoted"  # original over its translation
    assert ranked.index("en_b") < ranked.index("fr")  # b.md in English before its French copy
    assert why["ja"] == why["fr"] == "demoted" and "spec" not in why
    assert dict(zip(ranked, new, strict=True))["ja"] == OTHER_LANGUAGE * 1.0
    ranked_ja, _, _ = prefer_language(order, scores, pages, "ja")
    assert ranked_ja[0] == "ja"  # a Japanese query keeps the Japanese page first


# --- feedback -----------------------------------------------------------------------------


def test_feedback_terms_are_shared_rare_and_new() -> None:
    docs = [
        "The tail sampling processor decides on the whole trace. Policies: latency, errors.",
        "Tail sampling keeps traces with errors; the policies run after the decision wait.",
        "Head sampling happens early. Policies do not exist there; latency is unknown.",
    ]
    found = candidate_terms(docs, "sampling of slow requests")
    words = [w for w, _ in found]
    assert "policies" in words and "sampling" not in words  # the query's own word is out
    assert all(w not in ("the", "there") for w in words)
    df = {w: 3 for w in words} | {"policies": 2, "latency": 90}
    picked = pick_terms(found, df, total_docs=100)
    assert picked[0][0] == "policies" and "latency" not in dict(picked)  # too common: dropped
    assert len(picked) <= FEEDBACK_TERMS
    assert pick_terms(found, df, total_docs=0) == []


def test_plain_ascii_counts_as_english_only_without_signs_of_another_language() -> None:
    from gno.services.stages import query_language

    assert query_language("batch span processor") == ("en", False)
    assert query_language("how do I sample traces") == ("en", True)
    assert query_language("muestreo de trazas") == (None, False)  # `de`: es, pt or fr
    assert query_language("12345") == (None, False)
