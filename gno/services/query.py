"""Hybrid search (``gno query``): BM25 and vector lists fused by reciprocal rank.

Steps (engine.md §5.4): lexical list for the query (and one per ``term`` mode),
vector list for the query (one per ``intent`` mode, one for ``hyde``), RRF with
GNO's weights and bonus, graph expansion (documents linked to the best hits, one
more list for RRF), min-max normalization (over every candidate of lists as deep as the
largest page, so scores do not depend on ``limit``), ``minScore``, assembly with the
owner filters. Differences from GNO, on purpose: fusion is per document (a BM25
hit and a vector hit on another chunk of the same document reinforce each other),
each document appears once with its best chunk as the snippet, and filters apply
before the candidate budgets (over-fetching until enough candidates pass).

Reranking (when a reranker is on disk) scores one chunk per document for the top
``candidateLimit`` and blends by position; the document BM25 ranked first stays
first. Generated expansion (``services/expansion.py``) adds lexical variants as
``bm25_variant`` lists, rephrasings as ``vector_variant`` and a HyDE passage as
``hyde`` (``expanded`` says whether any took part). Periods named in the query
("last week") become a date filter unless since/until are given; recency words
("latest") sort the answer newest first. Without vectors the pipeline degrades to ``bm25_only``, without
a reranker ``reranked`` is false, without an expand model ``expanded`` is false:
never an error.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gno_contracts.models.query_input import QueryInput
from gno_contracts.models.search_results import SearchResults

from gno.app import App
from gno.core.content_types import parse_content_types
from gno.core.dates import implicit_range, wants_recency
from gno.core.feedback import FEEDBACK_DOCS, VECTOR_BETA
from gno.core.fts import cjk_any, parse_query
from gno.core.fusion import Fused, RankedList, blend, normalize, rrf
from gno.core.query_shape import IDENTIFIER, query_shape, shape_weights
from gno.errors import GnoError, ValidationError
from gno.ports import RerankError
from gno.rows import iso_from_ns
from gno.services.cancel import checkpoint
from gno.services.content_boost import apply_boosts
from gno.services.filters import Filters, build_filters, temporal_types
from gno.services.graph import Expansion, graph_neighbours
from gno.services.query_modes import mode_counts, split_structured
from gno.services.results import ResultBuilder, ranked_documents
from gno.services.search import SCORE_WINDOW, candidates, relaxed_match
from gno.services.stages import outline_leg


def _lexical(store: Any, text: str, filters: Filters, limit: int) -> list[str]:
    """Mirrors ranked by BM25 for one lexical query (relaxed to any term when nothing matches)."""
    return _lexical_scored(store, text, filters, limit)[0]


def _lexical_scored(
    store: Any, text: str, filters: Filters, limit: int, cjk: bool = False
) -> tuple[list[str], list[float]]:
    """``_lexical`` and the raw BM25 scores of its hits when every term matched (best
    first; empty for a relaxed or failed query): the strong-signal check reads them. With
    ``cjk`` (the language stage), a CJK query nothing matched falls back to its bigrams."""
    try:
        parsed = parse_query(text)
    except ValidationError:
        return [], []
    hits, _ = candidates(store, parsed.match_all(), filters, limit)
    raw = [score for _, score in hits]
    # Relaxed also when the filters removed every full match (an empty list helps nobody).
    if not hits and (any_term := relaxed_match(parsed)):
        (hits, _), raw = candidates(store, any_term, filters, limit), []
    if cjk and not hits and (bigrams := cjk_any(text)):  # a CJK question: any bigram
        (hits, _), raw = candidates(store, bigrams, filters, limit), []
    return list(dict.fromkeys(doc.mirror_hash for doc, _ in hits if doc.mirror_hash)), raw


@dataclass
class QueryRun:
    """Everything one pass of the pipeline decided; ``query`` renders it, ``diagnose`` inspects it."""

    text: str
    modes: list[tuple[str, str]]
    filters: Filters
    candidate_limit: int
    lists: list[RankedList]
    fusion_order: list[str]  # mirror keys in RRF order, before reranking
    fused: list[Fused]  # final order
    scores: list[float]  # final scores, aligned with ``fused``
    best_chunk: dict[str, int]
    vectors_used: bool
    reranked: bool
    explain: list[dict[str, str]] = field(default_factory=list)
    graph: Expansion | None = None
    recency: bool = False  # the query asked for the newest documents first
    expanded: bool = False  # generated variants took part (never with caller-given modes)
    shape: str | None = None  # identifier | keyword | question, when shape weights were on
    weights: dict[str, float] = field(default_factory=dict)  # fusion weights that differed
    feedback_terms: list[tuple[str, float]] = field(default_factory=list)
    language: Any = None  # stages.LanguageChoice when the language preference ran
    windows: int = 1  # windows per chunk of the vector set searched
    boosts: dict[str, dict[str, Any]] = field(default_factory=dict)  # content_boost receipts
    searched: Any = None  # embed.VectorSearch of the vector leg (query vectors, vector set)
    bonus: float = 1.0  # factor on RRF's top-rank bonuses (0.5 with halfTopBonus)


def run_pipeline(app: App, store: Any, inp: Any) -> QueryRun:
    from gno.services.embed import (
        feedback_neighbours,
        nearest_per_mirror,
        vector_search,
    )
    from gno.services.embed_models import search_groups
    from gno.services.expansion import expand
    from gno.services.stage_notes import windows_note
    from gno.services.stages import feedback, prefer_query_language, weights_for_language

    supplied = [(m.mode.value, m.text.strip()) for m in inp.queryModes or []]
    text, modes = split_structured(inp.query, supplied)
    filters = build_filters(store, inp)
    explain: list[dict[str, str]] = []
    if not (inp.since or inp.until) and (period := implicit_range(text)):
        filters.since, filters.until = period  # "notes from last week" filters by date
        filters.temporal_types = temporal_types(store)
        explain.append({"stage": "temporal", "message": f"{period[0]} .. {period[1]}"})
    recency = wants_recency(text)
    candidate_limit = inp.candidateLimit or (40 if inp.thorough else 20)
    multiplier = 3 if filters.active or recency else 1
    # Every list is as deep as the largest page (not this page): fusion and the min-max
    # normalisation see the same candidates whatever ``limit`` is, so a document's score,
    # and what ``minScore`` keeps, never depend on the page size (surfaces.md §1.2).
    pool = SCORE_WINDOW * multiplier
    graph = None

    settings = app.retrieval
    shape = query_shape(text)
    weights = shape_weights(shape) if settings.shape_weights else {}
    bonus = 0.5 if settings.half_top_bonus else 1.0  # top-rank bonuses, scaled
    explain.append(
        {
            "stage": "shape",
            "message": f"{shape}: bm25 weight {weights.get('bm25', 2.0)}, vector weight "
            f"{weights.get('vector', 2.0)}"
            if weights
            else "skipped: disabled",
        }
    )
    bm25_keys, bm25_raw = _lexical_scored(store, text, filters, pool, settings.language_preference)
    lists = [RankedList("bm25", bm25_keys)]
    explain.append({"stage": "bm25", "message": f"{len(lists[0].keys)} candidates"})
    checkpoint()  # a REST client that went away stops the pipeline between stages
    expansion = expand(app, store, inp, text, bm25_raw, has_modes=bool(modes))
    explain.append({"stage": "expansion", "message": expansion.message})
    variants = modes + expansion.variants  # never both: given modes turn expansion off
    for mode, mode_text in variants:
        if mode == "term":
            lists.append(RankedList("bm25_variant", _lexical(store, mode_text, filters, pool)))

    checkpoint()
    best_chunk: dict[str, int] = {}
    vectors_used = False
    windows = 1
    semantic = [("vector", text)] + [
        ("vector_variant" if mode == "intent" else "hyde", mode_text)
        for mode, mode_text in variants
        if mode != "term"
    ]
    searched = None
    try:
        neighbour_lists, searched = vector_search(
            app, store, [t for _, t in semantic], pool * 4, filters
        )  # filtered inside the search: every neighbour passes the owner filters
        for (kind, _), found in zip(semantic, neighbour_lists, strict=True):
            nearest = nearest_per_mirror(found)
            lists.append(RankedList(kind, list(nearest)[:pool]))
            for mirror_hash, (_, seq) in nearest.items():
                best_chunk.setdefault(mirror_hash, seq)
        vectors_used = True
        windows = searched.windows
        recipe = "the bare query" if searched.plain_query else "the query with its prompt"
        found_n = len(lists[-len(semantic)].keys)
        explain.append({"stage": "vector", "message": f"{found_n} candidates ({recipe})"})
        note = windows_note(settings.embed_windows, searched)
        explain.append({"stage": "windows", "message": note.message})
    except GnoError as exc:  # no vectors, no model, no sqlite-vec: BM25 alone
        explain.append({"stage": "vector", "message": f"skipped: {exc.message}"})
    line = "skipped: disabled"
    if settings.language_weights:  # weights for an English or other-language question
        uris = {g.uri for g in search_groups(app, filters)} if vectors_used else None
        weights, line = weights_for_language(text, shape, weights, uris)
    explain.append({"stage": "language_weights", "message": line})
    outline, line = outline_leg(store, text, shape, filters, pool, vectors_used, settings)
    lists += [outline] if outline else []  # a question's BM25 over page outlines (own list)
    explain.append({"stage": "outline", "message": line})
    checkpoint()
    fused = rrf(lists, weights=weights, bonus=bonus)
    feedback_terms: list[tuple[str, float]] = []
    if not settings.feedback:
        explain.append({"stage": "feedback", "message": "skipped: disabled"})
    elif shape == IDENTIFIER:
        explain.append({"stage": "feedback", "message": "skipped: identifier query"})
    elif fused:
        fed = feedback(store, fused, text, filters, pool)
        feedback_terms = fed.terms
        if fed.keys:
            lists.append(RankedList("feedback", fed.keys))
            fused = rrf(lists, weights=weights, bonus=bonus)
        words = ", ".join(f"{w} ({score:g})" for w, score in fed.terms) or "none"
        explain.append(
            {"stage": "feedback", "message": f"terms: {words}; {len(fed.keys)} candidates"}
        )
    if not settings.vector_feedback:
        explain.append({"stage": "vector_feedback", "message": "skipped: disabled"})
    elif shape == IDENTIFIER or searched is None or not fused:
        why = "identifier query" if shape == IDENTIFIER else "no vectors"
        explain.append({"stage": "vector_feedback", "message": f"skipped: {why}"})
    else:
        top = [(f.key, best_chunk.get(f.key, 0)) for f in fused[:FEEDBACK_DOCS]]
        found = feedback_neighbours(store, searched, top, pool * 4, filters, VECTOR_BETA)
        nearest = nearest_per_mirror(found)
        if nearest:
            lists.append(RankedList("vector_feedback", list(nearest)[:pool]))
            fused = rrf(lists, weights=weights, bonus=bonus)
        said = f"query vector moved {VECTOR_BETA} toward the top {len(top)} chunks; {len(nearest)} candidates"
        explain.append({"stage": "vector_feedback", "message": said})
    if inp.fast or inp.graph is False or inp.noGraph:
        explain.append({"stage": "graph", "message": "skipped: disabled"})
    elif fused:
        graph = graph_neighbours(store, [f.key for f in fused], filters, candidate_limit)
        if graph.mirrors:  # one more list; RRF is recomputed over all of them
            lists.append(RankedList("graph", graph.mirrors))
            fused = rrf(lists, weights=weights, bonus=bonus)
        explain.append({"stage": "graph", "message": f"{len(graph.mirrors)} linked candidates"})
    language = None
    if settings.language_preference:
        where, params = filters.sql()
        fused, language = prefer_query_language(store, fused, text, where, list(params))
        how = "detected" if language.detected else "assumed (plain ASCII)"
        moved = list(language.moved.values())
        explain.append(
            {
                "stage": "language",
                "message": f"{language.language} {how}: {moved.count('promoted')} promoted, "
                f"{moved.count('demoted')} demoted"
                if language.language
                else "not detected: no preference",
            }
        )
    else:
        explain.append({"stage": "language", "message": "skipped: disabled"})
    fusion_order = [f.key for f in fused]
    explain.append(
        {
            "stage": "fusion",
            "message": f"RRF k=60, top-rank bonus ×{bonus:g}, {len(fused)} unique candidates",
        }
    )
    scores = normalize([f.score for f in fused])
    rules = parse_content_types(app.config.raw.get("contentTypes"))
    fused, scores, boosts = apply_boosts(rules, store, fused, scores)
    if boosts:
        explain.append(
            {"stage": "contentTypeBoost", "message": f"{len(boosts)} candidates boosted"}
        )
    reranked = False
    checkpoint()
    reranker = None if inp.fast or inp.rerank is False else app.reranker()
    held = _rerank_held(app, store, filters, fused[:candidate_limit]) if reranker else None
    if held:  # an endpoint off this machine may not read these collections' passages
        reranker = None
        explain.append({"stage": "rerank", "message": f"skipped: {held}"})
    if reranker is not None and fused:
        try:
            scores, fused = _rerank(
                store, reranker, fused, scores, text, inp.intent, candidate_limit, best_chunk
            )
            reranked = True
            explain.append(
                {
                    "stage": "rerank",
                    "message": f"{min(candidate_limit, len(fused))} candidates reranked",
                }
            )
        except RerankError as exc:  # a broken reranker costs the rerank, not the answer
            explain.append({"stage": "rerank", "message": f"skipped: {exc.message}"})
    elif not held:
        why = "disabled" if inp.fast or inp.rerank is False else "no reranker available"
        explain.append({"stage": "rerank", "message": f"skipped: {why}"})
    return QueryRun(text, modes, filters, candidate_limit, lists, fusion_order, fused, scores, best_chunk,
                    vectors_used, reranked, explain, graph, recency, expansion.expanded,
                    shape if weights else None, weights, feedback_terms, language, windows,
                    boosts, searched if vectors_used else None, bonus)  # fmt: skip


def query(app: App, inp: QueryInput) -> SearchResults:
    store = app.store()
    run = run_pipeline(app, store, inp)
    ranked = [
        (f, s)
        for f, s in zip(run.fused, run.scores, strict=True)
        if inp.minScore is None or s >= inp.minScore
    ]
    where, params = run.filters.sql()
    wanted = inp.limit * 3 if run.recency else inp.limit
    found = ranked_documents(store, ranked, wanted, where, params)
    scored = [(doc, round(score, 6)) for doc, _, score in found]
    explained = [item for _, item, _ in found]
    if run.recency:  # newest first (frontmatter date, else file time), then score
        undated = temporal_types(store)  # these have no file-time fallback: oldest
        order = sorted(
            range(len(scored)),
            key=lambda i: (_doc_date(scored[i][0], undated), scored[i][1]),
            reverse=True,
        )[: inp.limit]
        scored, explained = [scored[i] for i in order], [explained[i] for i in order]
    builder = ResultBuilder(store, app.paths.index_name, inp.includeAbsPath)
    chunk_of = {
        doc.id: run.best_chunk[doc.mirror_hash]
        for doc, _ in scored
        if doc.mirror_hash in run.best_chunk
    }
    terms = parse_query(run.text).terms if _parses(run.text) else ()
    results = builder.search_results(scored, terms, full=inp.full, chunk_seq=chunk_of)
    meta: dict[str, Any] = {
        "query": run.text,
        "mode": "hybrid" if run.vectors_used else "bm25_only",
        "expanded": run.expanded,
        "reranked": run.reranked,
        "vectorsUsed": run.vectors_used,
        "totalResults": len(results),
        "candidateLimit": run.candidate_limit,
    }
    if run.filters.collection:
        meta["collection"] = run.filters.collection
    if run.filters.collections:
        meta["collections"] = run.filters.collections
    if inp.intent:
        meta["intent"] = inp.intent
    if run.modes:
        meta["queryModes"] = mode_counts(run.modes)
    if run.graph is not None:
        meta["graphExpansion"] = run.graph.summary()
    if inp.explain:
        meta["explain"] = {
            "lines": run.explain,
            "results": [
                {
                    "rank": rank,
                    "docid": doc.docid,
                    "score": score,
                    "fusionScore": round(item.score, 6),
                }
                | ({"bm25Score": round(1 / (60 + item.bm25_rank), 6)} if item.bm25_rank else {})
                | ({"vecScore": round(1 / (60 + item.vector_rank), 6)} if item.vector_rank else {})
                | ({"contentTypeBoost": run.boosts[item.key]} if item.key in run.boosts else {})
                for rank, ((doc, score), item) in enumerate(
                    zip(scored, explained, strict=True), start=1
                )
            ],
        }
    return SearchResults.model_validate({"results": results, "meta": meta})


def _doc_date(doc: Any, temporal: frozenset[str] = frozenset()) -> str:
    """Sortable date of a document: its frontmatter date, else its file time (both ISO);
    a document of a temporal content type has no file-time fallback (sorts oldest)."""
    if doc.frontmatter_date or doc.content_type not in temporal:
        return str(doc.frontmatter_date or iso_from_ns(doc.mtime_ns))
    return ""


RERANK_CHARS = 4000


def _rerank(
    store: Any,
    reranker: Any,
    fused: list[Fused],
    scores: list[float],
    text: str,
    intent: str | None,
    pool: int,
    best_chunk: dict[str, int],
) -> tuple[list[float], list[Fused]]:
    """Rerank the top ``pool`` candidates (one chunk per document) and blend by position.
    The document BM25 ranked first for the original query stays first (GNO's guardrail)."""
    head = fused[:pool]
    mirrors = store.contents([f.key for f in head])
    spans = store.chunk_spans([f.key for f in head])
    terms = parse_query(text).terms if _parses(text) else ()
    passages = []
    for item in head:
        mirror = mirrors.get(item.key, "")
        chunks = spans.get(item.key, [])
        seq = best_chunk.get(item.key)
        if seq is None and chunks:  # the chunk with the most query terms
            seq = max(chunks, key=lambda c: sum(t in _lines(mirror, c).lower() for t in terms))[0]
        chunk = next((c for c in chunks if c[0] == seq), None)
        body = _lines(mirror, chunk) if chunk else mirror
        passages.append(body[:RERANK_CHARS] + ("..." if len(body) > RERANK_CHARS else ""))
    query_text = f"Intent: {intent}\nQuery: {text}" if intent else text
    rerank_scores = normalize(reranker.rerank(query_text, passages))
    blended = blend(scores, [*rerank_scores, *([None] * (len(fused) - len(head)))])
    order = sorted(range(len(fused)), key=lambda i: (-round(blended[i], 9), fused[i].key))
    anchor = next(
        (i for i in order if fused[i].bm25_rank == 1 and "bm25" in fused[i].sources), None
    )
    if anchor is not None:
        order.remove(anchor)
        order.insert(0, anchor)
    return [blended[i] for i in order], [fused[i] for i in order]


def _rerank_held(app: App, store: Any, filters: Any, head: list[Fused]) -> str | None:
    """Why the reranker may not see these candidates (spec/egress.md, remote inference),
    or None. Only an endpoint off this machine is judged; a GGUF reranker reads here."""
    uri = app.model_uri("rerank")
    from gno.models.catalog import is_endpoint

    if not head or not is_endpoint(uri):
        return None
    from gno.services import inference_egress

    where, params = filters.sql()
    docs = store.documents_with_mirrors([f.key for f in head], where, params)
    names = inference_egress.denied(app, uri, (d.collection for d in docs), "snippet")
    if not names:
        return None
    return f"the rerank endpoint is off this machine and the egress policy of {', '.join(names[:8])} keeps its content here"


def _lines(mirror: str, chunk: tuple[int, int, int, str | None]) -> str:
    _, start, end, _ = chunk
    return "\n".join(mirror.split("\n")[start - 1 : end])


def _parses(text: str) -> bool:
    try:
        parse_query(text)
    except ValidationError:
        return False
    return True
