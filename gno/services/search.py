"""BM25 search: FTS5 MATCH + ORDER BY rank + LIMIT first, owner filters on the
small candidate set after it (over-fetching until the limit is met or the
matches run out), snippets only for the returned hits.

When requiring every term matches no document at all, the query is relaxed to "any term"
(stopwords dropped) and ``meta.relaxed`` says so: BM25 then ranks documents by
how many and which terms they match, instead of returning an empty page.
"""

from __future__ import annotations

from typing import Any

from gno_contracts.models.search_input import SearchInput
from gno_contracts.models.search_results import SearchResults

from gno.app import App
from gno.core.fts import STOPWORDS, FtsQuery, parse_query
from gno.ports import Store
from gno.rows import DocRow
from gno.services.cancel import checkpoint
from gno.services.filters import Filters, build_filters
from gno.services.results import ResultBuilder

OVERFETCH = 10
MAX_CANDIDATES = 100_000


def candidates(
    store: Store, match: str, filters: Filters, limit: int
) -> tuple[list[tuple[DocRow, float]], bool]:
    """Top ``limit`` matches that pass the filters, and whether anything matched at all."""
    where, params = filters.sql()
    fetch = limit * OVERFETCH if filters.active else limit
    while True:
        ranked = store.fts_candidates(match, fetch)
        docs = store.documents_by_ids([rowid for rowid, _ in ranked], where, params)
        kept = [(docs[rowid], rank) for rowid, rank in ranked if rowid in docs]
        if len(kept) >= limit or len(ranked) < fetch or fetch >= MAX_CANDIDATES:
            return kept[:limit], bool(ranked)
        fetch *= 4


def relaxed_match(query: FtsQuery) -> str | None:
    """The 'any term' form, or None when relaxing cannot help."""
    if len(query.positives) < 2:
        return None
    informative = tuple(p for p in query.positives if p.strip('"*') not in STOPWORDS)
    if not informative:
        return None
    return FtsQuery(informative, query.negatives, query.terms).match_any()


def normalize_scores(ranks: list[float]) -> list[float]:
    """bm25 ranks (lower is better) -> [0, 1] per query: best 1, worst 0, all equal 1."""
    if not ranks:
        return []
    best, worst = min(ranks), max(ranks)
    if worst - best < 1e-12:
        return [1.0] * len(ranks)
    return [round((worst - r) / (worst - best), 6) for r in ranks]


def _meta(inp: SearchInput, filters: Filters, total: int, relaxed: bool) -> dict[str, Any]:
    meta: dict[str, Any] = {"query": inp.query, "mode": "bm25", "totalResults": total}
    if filters.collection:
        meta["collection"] = filters.collection
    for key, value in (
        ("intent", inp.intent),
        ("lang", filters.lang),
        ("author", filters.author),
        ("since", filters.since),
        ("until", filters.until),
    ):
        if value:
            meta[key] = value
    for key, values in (
        ("categories", filters.categories),
        ("exclude", filters.exclude),
        ("tagsAll", filters.tags_all),
        ("tagsAny", filters.tags_any),
    ):
        if values:
            meta[key] = values
    if relaxed:
        meta["relaxed"] = True
    return meta


def search(app: App, inp: SearchInput) -> SearchResults:
    query = parse_query(inp.query)
    store = app.store()
    filters = build_filters(store, inp)
    hits, matched = candidates(store, query.match_all(), filters, inp.limit)
    relaxed = False
    if not matched and (any_term := relaxed_match(query)):
        (hits, _), relaxed = candidates(store, any_term, filters, inp.limit), True
    checkpoint()  # the REST client went away: no snippets for nobody
    scores = normalize_scores([rank for _, rank in hits])
    scored = [(doc, score) for (doc, _), score in zip(hits, scores, strict=True)]
    if inp.minScore is not None:
        scored = [(doc, score) for doc, score in scored if score >= inp.minScore]
    builder = ResultBuilder(store, app.paths.index_name, inp.includeAbsPath)
    results = builder.search_results(scored, query.terms, full=inp.full)
    return SearchResults.model_validate(
        {"results": results, "meta": _meta(inp, filters, len(results), relaxed)}
    )
