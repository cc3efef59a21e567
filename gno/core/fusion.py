"""Reciprocal-rank fusion with GNO's weights and top-rank bonus (engine.md §5.4). Pure.

Each ranked list contributes ``weight / (k + rank)`` to every key it holds; a key
whose best lexical or vector rank is 1 gets +0.10, else +0.04 when that rank is
≤ 5. Ties (|Δ| ≤ 1e-9) break on the key, so the result does not depend on the
order the lists are given in.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

RRF_K = 60
WEIGHTS = {
    "bm25": 2.0,
    "bm25_variant": 0.5,
    "vector": 2.0,
    "vector_variant": 0.5,
    "hyde": 0.7,
    "graph": 0.8,
    "feedback": 1.0,  # pseudo-relevance feedback terms (gno.core.feedback)
    "vector_feedback": 1.0,  # the query vector moved toward the top chunks (Rocchio)
    "outline": 1.0,  # a question's BM25 over titles, descriptions, headings (outlineLeg)
}
LEXICAL = {"bm25", "bm25_variant", "outline"}  # feedback adds score only: no rank, no top bonus
SEMANTIC = {"vector", "vector_variant", "hyde"}
TOP_BONUS, NEAR_BONUS, NEAR_RANK = 0.10, 0.04, 5


@dataclass(frozen=True)
class RankedList:
    kind: str  # a WEIGHTS key
    keys: Sequence[str]  # best first


@dataclass
class Fused:
    key: str
    score: float = 0.0
    bm25_rank: int | None = None
    vector_rank: int | None = None
    sources: set[str] = field(default_factory=set)


def _best(current: int | None, rank: int) -> int:
    return rank if current is None else min(current, rank)


def rrf(
    lists: Sequence[RankedList],
    k: int = RRF_K,
    weights: Mapping[str, float] | None = None,
    bonus: float = 1.0,
) -> list[Fused]:
    """``weights`` overrides WEIGHTS per kind (the query-shape weights); ``bonus`` scales
    the top-rank bonuses (the ``halfTopBonus`` stage: 0.5)."""
    fused: dict[str, Fused] = {}
    for ranked in lists:
        weight = (weights or {}).get(ranked.kind, WEIGHTS[ranked.kind])
        for rank, key in enumerate(dict.fromkeys(ranked.keys), start=1):
            item = fused.setdefault(key, Fused(key))
            item.score += weight / (k + rank)
            item.sources.add(ranked.kind)
            if ranked.kind in LEXICAL:
                item.bm25_rank = _best(item.bm25_rank, rank)
            elif ranked.kind in SEMANTIC:
                item.vector_rank = _best(item.vector_rank, rank)
    for item in fused.values():
        best = min(r for r in (item.bm25_rank, item.vector_rank, 10**9) if r is not None)
        item.score += bonus * (TOP_BONUS if best == 1 else NEAR_BONUS if best <= NEAR_RANK else 0.0)
    ordered = sorted(fused.values(), key=lambda f: f.key)  # stable tie order
    return sorted(ordered, key=lambda f: -round(f.score, 9))


def normalize(values: Sequence[float]) -> list[float]:
    """Min-max to [0, 1]; a flat list (range < 1e-9) is all 1."""
    if not values:
        return []
    low, high = min(values), max(values)
    if high - low < 1e-9:
        return [1.0] * len(values)
    return [(v - low) / (high - low) for v in values]


def blend_weights(position: int) -> tuple[float, float]:
    """(fusion, rerank) weights by 1-based position in the fused order (GNO's schedule)."""
    if position <= 3:
        return 0.75, 0.25
    if position <= 10:
        return 0.60, 0.40
    return 0.40, 0.60


def blend(fusion: Sequence[float], rerank: Sequence[float | None]) -> list[float]:
    """Position-aware blend of normalized fusion and normalized rerank scores, in fused order.
    A candidate the reranker did not see (outside the pool) keeps half its fusion score."""
    out = []
    for position, (fused, reranked) in enumerate(zip(fusion, rerank, strict=True), start=1):
        if reranked is None:
            out.append(0.5 * fused)
        else:
            wf, wr = blend_weights(position)
            out.append(wf * fused + wr * reranked)
    return out
