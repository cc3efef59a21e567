"""Retrieval and materialization for a Context Capsule (engine.md §6.1 steps 3-5).

Retrieval is deterministic: expansion is always off; ``fast`` is BM25 alone (ties broken
by URI, so the order never depends on the order documents were indexed), ``balanced`` and
``thorough`` run the hybrid pipeline (vectors, rerank, graph when available). The result
and candidate limits are split across the requested collections (floor, remainder to the
first ones, collections sorted) and the lists merged by rank. Each retrieved document then
yields its evidence candidates: whole chunks as full mirror lines, checked against the
stored coordinates (a chunk whose offsets or lines drifted is a hard error).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gno_contracts.models.query_input import QueryInput

from gno.app import App
from gno.core.capsule import passage_id, sha256_text, utf8_len
from gno.core.capsule_facets import covered, haystack
from gno.core.capsule_select import Candidate
from gno.core.fts import parse_query
from gno.errors import ChunkCoordinateMismatchError, ValidationError
from gno.rows import DocRow
from gno.services.filters import Filters
from gno.services.search import candidates, relaxed_match

MAX_CANDIDATES_PER_DOC = 3  # chunks of one document offered to selection


@dataclass
class Retrieved:
    doc: DocRow
    rank: int
    sources: list[str]
    score: float


@dataclass
class RetrievalRun:
    results: list[Retrieved]
    vectors_used: bool = False
    reranked: bool = False
    graph_used: bool = False
    variants: list[str] = field(default_factory=list)


def split(total: int, parts: int) -> list[int]:
    """``total`` over ``parts``: the floor each, the remainder to the first ones."""
    return [total // parts + (1 if i < total % parts else 0) for i in range(parts)]


def _bm25(store: Any, text: str, filters: Filters, limit: int) -> list[Retrieved]:
    try:
        parsed = parse_query(text)
    except ValidationError:
        return []
    hits, _ = candidates(store, parsed.match_all(), filters, limit)
    hits.sort(key=lambda h: (round(h[1], 9), h[0].uri))  # lower bm25 is better; ties by URI
    if len(hits) < limit and (any_term := relaxed_match(parsed)):
        # Documents with only some of the words come after those with all of them: a
        # Capsule wants coverage of every facet, not only the documents that have them all.
        seen = {doc.id for doc, _ in hits}
        more, _ = candidates(store, any_term, filters, limit)
        more.sort(key=lambda h: (round(h[1], 9), h[0].uri))
        hits += [h for h in more if h[0].id not in seen][: limit - len(hits)]
    return [Retrieved(doc, i, ["bm25"], -score) for i, (doc, score) in enumerate(hits, 1)]


def _hybrid(app: App, store: Any, inp: QueryInput, limit: int) -> tuple[list[Retrieved], Any]:
    from gno.services.query import run_pipeline

    run = run_pipeline(app, store, inp)
    where, params = run.filters.sql()
    keys = [f.key for f in run.fused]
    docs = store.documents_with_mirrors(keys, where, params)
    by_mirror: dict[str, list[DocRow]] = {}
    for doc in sorted(docs, key=lambda d: d.uri):
        by_mirror.setdefault(doc.mirror_hash or "", []).append(doc)
    out: list[Retrieved] = []
    for fused, score in zip(run.fused, run.scores, strict=True):
        if inp.minScore is not None and score < inp.minScore:
            continue
        for doc in by_mirror.get(fused.key, []):
            if len(out) < limit:
                sources = sorted(s for s in fused.sources if s in SOURCES)
                out.append(Retrieved(doc, len(out) + 1, sources or ["bm25"], score))
    return out, run


SOURCES = ("bm25", "vector", "bm25_variant", "vector_variant", "hyde", "graph")


def retrieve(
    app: App,
    store: Any,
    query: str,
    targets: list[str | None],
    base: dict[str, Any],
    depth: str,
    limit: int,
    candidate_limit: int,
) -> RetrievalRun:
    """One retrieval per target collection (None = all), merged by rank, capped at ``limit``."""
    from gno.services.filters import build_filters

    run = RetrievalRun([])
    lists: list[list[Retrieved]] = []
    for target, share, pool in zip(
        targets, split(limit, len(targets)), split(candidate_limit, len(targets)), strict=True
    ):
        if share == 0:
            continue
        fields = dict(base) | {"query": query, "limit": min(share, 100)}
        if target:
            fields["collection"] = target
        inp = QueryInput.model_validate(
            fields
            | {
                "candidateLimit": max(1, min(pool, 100)),
                "fast": depth == "fast",
                "thorough": depth == "thorough",
                "expand": False,
            }
        )
        if depth == "fast":
            found = _bm25(store, query, build_filters(store, inp), share)
            if inp.minScore is not None:
                found = [r for r in found if r.score >= 0]  # raw bm25: no normalized cut
        else:
            found, pipeline = _hybrid(app, store, inp, share)
            run.vectors_used |= pipeline.vectors_used
            run.reranked |= pipeline.reranked
            run.graph_used |= pipeline.graph is not None
        lists.append(found)
    merged = sorted(
        (r for found in lists for r in found), key=lambda r: (r.rank, lists_index(lists, r))
    )
    seen: set[int] = set()
    for r in merged:
        if r.doc.id not in seen and len(run.results) < limit:
            seen.add(r.doc.id)
            run.results.append(Retrieved(r.doc, len(run.results) + 1, r.sources, r.score))
    return run


def lists_index(lists: list[list[Retrieved]], item: Retrieved) -> int:
    return next(i for i, found in enumerate(lists) if any(r is item for r in found))


def _heading(lines: list[str], start: int) -> str | None:
    for line in reversed(lines[:start]):  # the section the span starts in (its own heading too)
        stripped = line.lstrip()
        if stripped.startswith("#") and stripped.lstrip("#").startswith(" "):
            return stripped.lstrip("#").strip()[:2048] or None
    return None


def materialize(
    store: Any, results: list[Retrieved], facet_list: list[str]
) -> tuple[list[Candidate], list[Retrieved]]:
    """Evidence candidates of the retrieved documents, and the results whose stored
    coordinates could not be materialized (omitted as ``invalid_coordinates``)."""
    mirrors = store.contents(sorted({r.doc.mirror_hash for r in results if r.doc.mirror_hash}))
    out: list[Candidate] = []
    invalid: list[Retrieved] = []
    for r in results:
        doc = r.doc
        mirror = mirrors.get(doc.mirror_hash or "")
        if mirror is None or not doc.source_hash:
            invalid.append(r)
            continue
        if sha256_text(mirror) != doc.mirror_hash:
            raise ChunkCoordinateMismatchError(CATALOG["chunk_coordinate_mismatch"])
        lines = mirror.split("\n")
        dated = bool(doc.frontmatter_date or doc.mtime_ns)
        offered: list[tuple[int, int, Candidate]] = []
        for seq, pos, end, start_line, end_line, _ in store.chunks(doc.mirror_hash):
            if mirror.count("\n", 0, pos) + 1 != start_line or end_line < start_line:
                raise ChunkCoordinateMismatchError(CATALOG["chunk_coordinate_mismatch"])
            if end > len(mirror) or end_line > len(lines):
                raise ChunkCoordinateMismatchError(CATALOG["chunk_coordinate_mismatch"])
            text = "\n".join(lines[start_line - 1 : end_line])
            if not text.strip():
                continue
            hay = haystack(doc.title, text)
            hit = [f for f in facet_list if covered(f, hay, dated)]
            passage = sha256_text(text)
            cid = passage_id(
                doc.docid, doc.uri, start_line, end_line, doc.source_hash, doc.mirror_hash or "",
                passage,
            )  # fmt: skip
            cand = Candidate(
                cid, doc.uri, doc.docid, start_line, end_line, text, passage, doc.source_hash,
                doc.mirror_hash or "", r.rank, utf8_len(text), hit,
                {"doc": doc, "heading": _heading(lines, start_line), "sources": r.sources},
            )  # fmt: skip
            offered.append((-len(hit), seq, cand))
        if not offered:
            invalid.append(r)
            continue
        offered.sort(key=lambda o: (o[0], o[1]))
        matching = [c for n, _, c in offered if n < 0][:MAX_CANDIDATES_PER_DOC]
        out += matching or [offered[0][2]]
    return out, invalid


CATALOG = {
    "invalid_input": "Context input is invalid.",
    "invalid_goal": "Context goal must contain non-whitespace text.",
    "invalid_budget": "Context budget is invalid or too small for any evidence.",
    "invalid_filter": "Context filter is invalid.",
    "invalid_uri": "Context URI prefix is invalid.",
    "identity_mismatch": "Capsule identity does not match its content or this index.",
    "no_evidence": "No indexed evidence matched the context goal.",
    "chunk_coordinate_mismatch": "Stored chunk coordinates do not match the canonical mirror.",
    "index_changed_during_compile": "The index changed while the Capsule was compiled; retry.",
    "index_changed_during_verify": "The index changed while the Capsule was verified; retry.",
    "runtime_error": "Context operation failed.",
}
