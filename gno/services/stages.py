"""The model-free retrieval stages of ``gno query`` (issue 12 §3-§4): pseudo-relevance
feedback on the BM25 leg, fusion weights from a question's language and the model's, a
question's BM25 over page outlines, and the query-language preference among translations.
Each is a function of the store and a first fused order; ``services/query.py`` decides when to run
them (``retrieval:`` switches in index.yml) and records what they did for ``--explain``
and ``query diagnose``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gno.core.embedding_text import english_only_model
from gno.core.feedback import FEEDBACK_DOCS, candidate_terms, pick_terms
from gno.core.fts import parse_query
from gno.core.fusion import Fused, RankedList
from gno.core.language import detect_query_language, query_language_scores
from gno.core.query_shape import QUESTION, language_weights
from gno.core.translations import PageLanguage, page_language, prefer_language
from gno.errors import ValidationError
from gno.services.filters import Filters
from gno.services.search import OVERFETCH, candidates, relaxed_match

LANGUAGE_WINDOW = 60  # fused candidates the language preference looks at (the rest stay)


@dataclass
class Feedback:
    terms: list[tuple[str, float]] = field(default_factory=list)  # (word, tf·idf)
    keys: list[str] = field(default_factory=list)  # mirrors of the feedback BM25 list


def feedback(store: Any, fused: list[Fused], text: str, filters: Filters, limit: int) -> Feedback:
    """Terms from the top documents of the first pass, and the BM25 list of the query's own
    terms OR those terms (any may match; BM25 ranks documents with more of them first)."""
    top = [f.key for f in fused[:FEEDBACK_DOCS]]
    if len(top) < 2:
        return Feedback()
    mirrors = store.contents(top)
    found = candidate_terms([mirrors.get(key, "") for key in top], text)
    if not found:
        return Feedback()
    df = store.fts_document_frequency([word for word, _ in found])
    terms = pick_terms(found, df, store.active_document_count())
    if not terms:
        return Feedback()
    try:
        own = list(parse_query(text).positives)
    except ValidationError:
        own = []
    expr = "(" + " OR ".join(own + [f'"{word}"' for word, _ in terms]) + ")"
    hits, _ = candidates(store, expr, filters, limit)
    keys = list(dict.fromkeys(doc.mirror_hash for doc, _ in hits if doc.mirror_hash))
    return Feedback(terms, keys)


def outline_leg(
    store: Any,
    text: str,
    shape: str | None,
    filters: Filters,
    limit: int,
    vectors: bool,
    settings: Any = None,
) -> tuple[RankedList | None, str]:
    """The ``outlineLeg`` stage: for a question, BM25 over ``outline_fts`` (titles,
    descriptions, headings, paths; gno.core.outline) with any of the question's words, as a
    list of its own. A page named or sectioned by the question's words rises even when its
    body is long or its vectors are not the nearest. Returns the list (None when the stage
    does not apply) and the --explain message. ``settings``: the ``retrieval:`` block."""
    if settings is not None and not settings.outline_leg:
        return None, "skipped: disabled"
    if shape != QUESTION:
        return None, f"skipped: {shape} query"
    if not vectors:
        return None, "skipped: no vectors"
    try:
        match = relaxed_match(parse_query(text))
    except ValidationError:
        match = None
    if match is None:
        return None, "skipped: fewer than two words to match"
    ranked = store.outline_candidates(match, limit * (OVERFETCH if filters.active else 1))
    if filters.active:  # the owner filters, on an over-fetched list
        where, params = filters.sql()
        passing = store.ids_passing([doc_id for doc_id, _ in ranked], where, params)
        ranked = [hit for hit in ranked if hit[0] in passing]
    ids = [doc_id for doc_id, _ in ranked[:limit]]
    docs = store.documents_by_ids(ids)
    keys = [docs[i].mirror_hash for i in ids if i in docs and docs[i].mirror_hash]
    keys = list(dict.fromkeys(k for k in keys if k))
    return RankedList("outline", keys), f"{len(keys)} candidates (titles, descriptions, headings)"


@dataclass
class LanguageChoice:
    language: str | None  # the query's language as used (detected, or "en" for plain ASCII)
    detected: bool  # False: not detected, English assumed for plain ASCII text
    moved: dict[str, str] = field(default_factory=dict)  # mirror -> "demoted" | "promoted"


def query_language(text: str) -> tuple[str | None, bool]:
    """The detected language, else English for text in plain ASCII letters with no sign of
    another language (identifiers and keyword lists say nothing; they are compared only with
    pages in language folders). "muestreo de trazas" stays undetected: `de` is Spanish,
    Portuguese or French."""
    found = detect_query_language(text)
    if found is not None:
        return found, True
    evidence = query_language_scores(text)
    if text.isascii() and any(c.isalpha() for c in text) and set(evidence) <= {"en"}:
        return "en", False
    return None, False


def weights_for_language(
    text: str, shape: str | None, weights: dict[str, float], model_uris: set[str] | None
) -> tuple[dict[str, float], str]:
    """The ``languageWeights`` stage: a question's fusion weights when every embedding model
    searched reads English only (``model_uris``; None: no vector leg). Returns the weights
    (unchanged when the stage does not apply) and the --explain message."""
    if not weights:
        return weights, "skipped: shape weights off"
    if shape != QUESTION:
        return weights, f"skipped: {shape} query"
    if not model_uris:
        return weights, "skipped: no vectors"
    if not all(english_only_model(uri) for uri in model_uris):
        return weights, "skipped: the embedding model is not known to read English only"
    language, _ = query_language(text)
    chosen = language_weights(language)
    who = (
        "English question"
        if language == "en"
        else f"question in {language or 'an undetected language'}"
    )
    return chosen, (
        f"{who}, English-only model: bm25 weight {chosen['bm25']:g}, "
        f"vector weight {chosen['vector']:g}"
    )


def prefer_query_language(
    store: Any, fused: list[Fused], text: str, where: str, params: list[Any]
) -> tuple[list[Fused], LanguageChoice]:
    """Fused candidates reordered for the query's language (see core/translations)."""
    language, detected = query_language(text)
    choice = LanguageChoice(language, detected)
    if language is None or not fused:
        return fused, choice
    head = fused[:LANGUAGE_WINDOW]
    docs = store.documents_with_mirrors([f.key for f in head], where, params)
    pages: dict[str, PageLanguage] = {}
    for doc in sorted(docs, key=lambda d: d.id):
        if doc.mirror_hash and doc.mirror_hash not in pages:
            page = page_language(doc.rel_path)
            key = f"{doc.collection}:{page.key}" if page.key else None
            pages[doc.mirror_hash] = PageLanguage(page.language, key)
    order, scores, moved = prefer_language(
        [f.key for f in head], [f.score for f in head], pages, language
    )
    by_key = {f.key: f for f in head}
    for key, score in zip(order, scores, strict=True):
        by_key[key].score = score
    choice.moved = moved
    merged = [by_key[key] for key in order] + fused[LANGUAGE_WINDOW:]
    return sorted(merged, key=lambda f: -round(f.score, 9)), choice  # stable on ties
