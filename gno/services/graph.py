"""Graph expansion for `gno query` (engine.md §7.4): documents one edge away from the best hits.

The edges are the typed edge layer of the graph tools (``store.seed_projection``: wiki and
Markdown links resolved with GNO's ranks, frontmatter relations), so `gno query`, `links`,
`backlinks`, `graph` and `impact` never disagree on what links to what. The top fused
documents are seeds (rank = first position of their mirror). Every edge between a seed
and another document, in either direction, counts: per pair, ``confidence weight ×
max(1, links between the pair) / seed rank`` is added to that neighbour, the confidence
being the best of the pair's edges (explicit 1.0, inferred 0.65, ambiguous 0.35). Seeds
themselves are dropped; owner filters apply before the budget. The result is one more
ranked list for RRF (weight 0.8), which never sets a document's BM25 or vector rank.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from gno.ports import Store
from gno.services.filters import Filters

SEEDS = 5
CONFIDENCE = {"explicit": 1.0, "inferred": 0.65, "ambiguous": 0.35}
MAX_NEIGHBOURS = 20


@dataclass
class Expansion:
    """What one expansion did: the ranked neighbours (mirror hashes) and GNO's summary counts."""

    mirrors: list[str]
    seeds: int
    max_candidates: int
    edges: Counter[str] = field(default_factory=Counter)  # edges used, by confidence

    def summary(self) -> dict[str, Any]:
        """``meta.graphExpansion`` of search-results@1.0."""
        return {
            "enabled": True,
            "seedCount": self.seeds,
            "candidateCount": len(self.mirrors),
            "maxCandidates": self.max_candidates,
            "edgeConfidence": {k: self.edges[k] for k in (*CONFIDENCE, "similarity")},
            "fallbackReasons": [] if self.mirrors else ["graph_no_candidates"],
        }


def graph_neighbours(
    store: Store, fused_keys: list[str], filters: Filters, budget: int
) -> Expansion:
    """The best linked neighbours of the top ``SEEDS`` fused documents."""
    seed_rank: dict[int, int] = {}
    seed_mirrors = fused_keys[:SEEDS]
    position = {mirror: rank for rank, mirror in enumerate(seed_mirrors, start=1)}
    for doc in sorted(store.documents_with_mirrors(seed_mirrors), key=lambda d: d.id):
        if len(seed_rank) < SEEDS and doc.mirror_hash:
            seed_rank.setdefault(doc.id, position[doc.mirror_hash])
    proj = store.seed_projection(list(seed_rank))
    pairs: Counter[tuple[int, int]] = Counter()
    confidence: dict[tuple[int, int], float] = {}
    used: Counter[str] = Counter()
    for seed in seed_rank:
        touching = [(e, e.target) for e in proj.out.get(seed, ())]
        touching += [(e, e.source) for e in proj.inbound.get(seed, ())]
        for edge, other in touching:
            if other in seed_rank:
                continue
            links = max(1, int(edge.weight))
            pairs[seed, other] += links
            used[edge.graph_confidence] += links
            weight = CONFIDENCE.get(edge.graph_confidence, 0.0)
            confidence[seed, other] = max(confidence.get((seed, other), 0.0), weight)
    score: defaultdict[int, float] = defaultdict(float)
    for (seed, other), count in pairs.items():
        score[other] += confidence[seed, other] * max(1, count) / seed_rank[seed]
    where, params = filters.sql()
    allowed = store.documents_by_ids(list(score), where, params)
    ranked = sorted(
        (doc_id for doc_id in score if doc_id in allowed and allowed[doc_id].mirror_hash),
        key=lambda doc_id: (-score[doc_id], doc_id),
    )
    mirrors = [allowed[doc_id].mirror_hash or "" for doc_id in ranked]
    seeds = set(seed_mirrors)
    limit = min(MAX_NEIGHBOURS, budget)
    kept = [m for m in dict.fromkeys(mirrors) if m not in seeds][:limit]
    return Expansion(kept, len(seed_rank), limit, used)
