"""BM25 search: FTS5 MATCH + ORDER BY rank + LIMIT first, owner filters on the
small candidate set after it (over-fetching until the limit is met or the
matches run out), snippets only for the returned hits.

When requiring every term leaves no document (none matches, or none that matches passes
the owner filters), the query is relaxed to "any term" (stopwords dropped) and
``meta.relaxed`` says so: BM25 then ranks documents by how many and which terms they
match, instead of returning an empty page.

Scores are min-max normalised over a window of the best ``SCORE_WINDOW`` matches that
pass the filters (surfaces.md §1.2), not over the page: the window is as large as the
largest page, so a document's score, and what ``minScore`` keeps, never depend on
``limit``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gno.app import App
from gno.core.fts import STOPWORDS, FtsQuery, parse_query
from gno.ports import Store
from gno.rows import DocRow
from gno.services.cancel import checkpoint
from gno.services.filters import Filters, build_filters
from gno.services.results import ResultBuilder

if TYPE_CHECKING:  # the CLI's lean path reads the wire form: no pydantic on `gno search`
    from gno_contracts.models.search_input import SearchInput
    from gno_contracts.models.search_results import SearchResults

OVERFETCH = 10
MAX_CANDIDATES = 100_000


# The normaliser's window: the largest page any surface asks for (search limit ≤ 100).
SCORE_WINDOW = 100


def ranked_window(
    store: Store, match: str, filters: Filters, window: int = SCORE_WINDOW
) -> tuple[list[tuple[int, float]], bool]:
    """(rowid, bm25 rank) of the best ``window`` matches that pass the filters, best first,
    and whether anything matched at all (filters aside)."""
    if not filters.active:
        ranked = store.fts_candidates(match, window)
        return ranked, bool(ranked)
    where, params = filters.sql()
    fetch = window * OVERFETCH
    while True:
        ranked = store.fts_candidates(match, fetch)
        passing = store.ids_passing([rowid for rowid, _ in ranked], where, params)
        kept = [(rowid, rank) for rowid, rank in ranked if rowid in passing]
        if len(kept) >= window or len(ranked) < fetch or fetch >= MAX_CANDIDATES:
            return kept[:window], bool(ranked)
        fetch *= 4


def candidates(
    store: Store, match: str, filters: Filters, limit: int
) -> tuple[list[tuple[DocRow, float]], bool]:
    """Top ``limit`` matches that pass the filters, and whether anything matched at all."""
    ranked, matched = ranked_window(store, match, filters, max(limit, 1))
    docs = store.documents_by_ids([rowid for rowid, _ in ranked])
    return [(docs[rowid], rank) for rowid, rank in ranked if rowid in docs], matched


def relaxed_match(query: FtsQuery) -> str | None:
    """The 'any term' form, or None when relaxing cannot help."""
    if len(query.positives) < 2:
        return None
    informative = tuple(p for p in query.positives if p.strip('"*') not in STOPWORDS)
    if not informative:
        return None
    return FtsQuery(informative, query.negatives, query.terms).match_any()


def normalize_scores(ranks: list[float], window: list[float] | None = None) -> list[float]:
    """bm25 ranks (lower is better) -> [0, 1]: min-max over ``window`` (the ranks of the
    normalising window, default ``ranks`` itself): its best 1, its worst 0, all equal 1."""
    if not ranks:
        return []
    span = window or ranks
    best, worst = min(span), max(span)
    if worst - best < 1e-12:
        return [1.0] * len(ranks)
    return [round(min(1.0, max(0.0, (worst - r) / (worst - best))), 6) for r in ranks]


def _meta(inp: SearchInput, filters: Filters, total: int, relaxed: bool) -> dict[str, Any]:
    meta: dict[str, Any] = {"query": inp.query, "mode": "bm25", "totalResults": total}
    if filters.collection:
        meta["collection"] = filters.collection
    if filters.collections:
        meta["collections"] = filters.collections
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
    from gno_contracts.models.search_results import SearchResults

    return SearchResults.model_validate(search_payload(app, inp))


def search_payload(app: App, inp: SearchInput) -> dict[str, Any]:
    """search-results@1.0 in its wire form."""
    query = parse_query(inp.query)
    store = app.store()
    filters = build_filters(store, inp)
    window, _ = ranked_window(store, query.match_all(), filters)
    relaxed = False
    # Relax when no document both matches every term and passes the filters, whether
    # nothing matched at all or the filters removed every match.
    if not window and (any_term := relaxed_match(query)):
        window, _ = ranked_window(store, any_term, filters)
        relaxed = True
    page = window[: inp.limit]
    docs = store.documents_by_ids([rowid for rowid, _ in page])
    hits = [(docs[rowid], rank) for rowid, rank in page if rowid in docs]
    checkpoint()  # the REST client went away: no snippets for nobody
    scores = normalize_scores([rank for _, rank in hits], [rank for _, rank in window])
    scored = [(doc, score) for (doc, _), score in zip(hits, scores, strict=True)]
    if inp.minScore is not None:
        scored = [(doc, score) for doc, score in scored if score >= inp.minScore]
    builder = ResultBuilder(store, app.paths.index_name, inp.includeAbsPath)
    results = builder.search_results(scored, query.terms, full=inp.full)
    return {"results": results, "meta": _meta(inp, filters, len(results), relaxed)}
