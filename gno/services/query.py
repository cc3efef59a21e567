"""Hybrid search (``gno query``): BM25 and vector lists fused by reciprocal rank.

Steps (engine.md §5.4): lexical list for the query (and one per ``term`` mode),
vector list for the query (one per ``intent`` mode, one for ``hyde``), RRF with
GNO's weights and bonus, min-max normalization, ``minScore``, assembly with the
owner filters. Differences from GNO, on purpose: fusion is per document (a BM25
hit and a vector hit on another chunk of the same document reinforce each other),
each document appears once with its best chunk as the snippet, and filters apply
before the candidate budgets (over-fetching until enough candidates pass).

Not yet: generated expansion and reranking (no generator/reranker adapters), graph
expansion, temporal phrases. Results say so: ``expanded``/``reranked`` are false.
Without vectors for the active model the pipeline degrades to ``bm25_only``.
"""

from __future__ import annotations

from typing import Any

from gno_contracts.models.query_input import QueryInput
from gno_contracts.models.search_results import SearchResults

from gno.app import App
from gno.core.fts import parse_query
from gno.core.fusion import RankedList, normalize, rrf
from gno.errors import GnoError, ValidationError
from gno.services.filters import Filters, build_filters
from gno.services.results import ResultBuilder
from gno.services.search import candidates, relaxed_match

STRUCTURED = ("term:", "intent:", "hyde:")


def split_structured(query: str, modes: list[tuple[str, str]]) -> tuple[str, list[tuple[str, str]]]:
    """A multi-line query document: `term:`/`intent:`/`hyde:` lines are modes, the rest the query."""
    lines, found = [], list(modes)
    for line in query.splitlines():
        stripped = line.strip()
        prefix = next((p for p in STRUCTURED if stripped.lower().startswith(p)), None)
        if prefix and stripped[len(prefix) :].strip():
            found.append((prefix[:-1], stripped[len(prefix) :].strip()))
        elif stripped:
            lines.append(stripped)
    text = " ".join(lines) or next((t for m, t in found if m == "term"), "")
    if not text:
        raise ValidationError("Query cannot be empty")
    if sum(1 for m, _ in found if m == "hyde") > 1:
        raise ValidationError("At most one hyde query mode")
    return text, found


def _lexical(store: Any, text: str, filters: Filters, limit: int) -> list[str]:
    """Mirrors ranked by BM25 for one lexical query (relaxed to any term when nothing matches)."""
    try:
        parsed = parse_query(text)
    except ValidationError:
        return []
    hits, matched = candidates(store, parsed.match_all(), filters, limit)
    if not matched and (any_term := relaxed_match(parsed)):
        hits, _ = candidates(store, any_term, filters, limit)
    return list(dict.fromkeys(doc.mirror_hash for doc, _ in hits if doc.mirror_hash))


def query(app: App, inp: QueryInput) -> SearchResults:
    from gno.services.embed import nearest_per_mirror, vector_neighbours

    store = app.store()
    filters = build_filters(store, inp)
    supplied = [(m.mode.value, m.text.strip()) for m in inp.queryModes or []]
    text, modes = split_structured(inp.query, supplied)
    candidate_limit = inp.candidateLimit or (40 if inp.thorough else 20)
    multiplier = 3 if filters.active else 1
    pool = inp.limit * 2 * multiplier
    explain: list[dict[str, str]] = []

    lists = [RankedList("bm25", _lexical(store, text, filters, pool))]
    for mode, mode_text in modes:
        if mode == "term":
            lists.append(
                RankedList(
                    "bm25_variant", _lexical(store, mode_text, filters, inp.limit * multiplier)
                )
            )
    explain.append({"stage": "bm25", "message": f"{len(lists[0].keys)} candidates"})

    best_chunk: dict[str, int] = {}
    vectors_used = False
    semantic = [("vector", text)] + [
        ("vector_variant" if mode == "intent" else "hyde", mode_text)
        for mode, mode_text in modes
        if mode != "term"
    ]
    try:
        neighbour_lists = vector_neighbours(app, store, [t for _, t in semantic], pool * 4)
        allowed = {d.mirror_hash for d in store.documents_with_mirrors(
            list({h for found in neighbour_lists for h, _, _ in found}), *filters.sql())}  # fmt: skip
        for (kind, _), found in zip(semantic, neighbour_lists, strict=True):
            nearest = {h: v for h, v in nearest_per_mirror(found).items() if h in allowed}
            lists.append(RankedList(kind, list(nearest)[:pool]))
            for mirror_hash, (_, seq) in nearest.items():
                best_chunk.setdefault(mirror_hash, seq)
        vectors_used = True
        explain.append(
            {"stage": "vector", "message": f"{len(lists[-len(semantic)].keys)} candidates"}
        )
    except GnoError as exc:  # no vectors, no model, no sqlite-vec: BM25 alone
        explain.append({"stage": "vector", "message": f"skipped: {exc.message}"})

    fused = rrf(lists)
    explain.append({"stage": "fusion", "message": f"RRF k=60, {len(fused)} unique candidates"})
    scores = normalize([f.score for f in fused])
    ranked = [
        (f, s)
        for f, s in zip(fused, scores, strict=True)
        if inp.minScore is None or s >= inp.minScore
    ]
    explain.append({"stage": "rerank", "message": "skipped: no reranker yet"})

    where, params = filters.sql()
    docs = store.documents_with_mirrors([f.key for f, _ in ranked], where, params)
    by_mirror: dict[str, list[Any]] = {}
    for doc in sorted(docs, key=lambda d: d.uri):
        by_mirror.setdefault(doc.mirror_hash or "", []).append(doc)
    scored, explained = [], []
    for fused_item, score in ranked:
        for doc in by_mirror.get(fused_item.key, []):
            if len(scored) < inp.limit:
                scored.append((doc, round(score, 6)))
                explained.append((doc, fused_item))
    builder = ResultBuilder(store, app.paths.index_name, inp.includeAbsPath)
    chunk_of = {
        doc.id: best_chunk[doc.mirror_hash] for doc, _ in scored if doc.mirror_hash in best_chunk
    }
    results = builder.search_results(scored, parse_query(text).terms if _parses(text) else (), full=inp.full,
                                     chunk_seq=chunk_of)  # fmt: skip
    meta: dict[str, Any] = {
        "query": text,
        "mode": "hybrid" if vectors_used else "bm25_only",
        "expanded": False,
        "reranked": False,
        "vectorsUsed": vectors_used,
        "totalResults": len(results),
        "candidateLimit": candidate_limit,
    }
    if filters.collection:
        meta["collection"] = filters.collection
    if inp.intent:
        meta["intent"] = inp.intent
    if modes:
        meta["queryModes"] = {
            "term": sum(1 for m, _ in modes if m == "term"),
            "intent": sum(1 for m, _ in modes if m == "intent"),
            "hyde": any(m == "hyde" for m, _ in modes),
        }
    if inp.explain:
        meta["explain"] = {
            "lines": explain,
            "results": [
                {
                    "rank": rank,
                    "docid": doc.docid,
                    "score": score,
                    "fusionScore": round(item.score, 6),
                }
                | ({"bm25Score": round(1 / (60 + item.bm25_rank), 6)} if item.bm25_rank else {})
                | ({"vecScore": round(1 / (60 + item.vector_rank), 6)} if item.vector_rank else {})
                for rank, ((doc, score), (_, item)) in enumerate(
                    zip(scored, explained, strict=True), start=1
                )
            ],
        }
    return SearchResults.model_validate({"results": results, "meta": meta})


def _parses(text: str) -> bool:
    try:
        parse_query(text)
    except ValidationError:
        return False
    return True
