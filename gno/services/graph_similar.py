"""Similarity edges of the graph report (engine.md §7.6, ``includeSimilar``).

Each kept node's first-chunk (seq 0) vector for the active embedding model is the
query; its nearest seq-0 chunks of other kept nodes with ``1 − cosine distance ≥
threshold`` become ``similar`` edges (confidence ``similarity``, weight = score), at
most ``top_k`` per node, one edge per pair. Bounded work: at most SIMILAR_NODE_BUDGET
nodes are queried (highest degree first); beyond it the report says
``similarTruncatedByComputeBudget``. No model is loaded.
"""

from __future__ import annotations

from gno.app import App
from gno.core.typed_graph import Projection, TypedEdge
from gno.ports import Store

SIMILAR_NODE_BUDGET = 300
OVERFETCH = 4  # chunks asked per wanted neighbour (most chunks are not seq 0)


def similarity_edges(
    app: App,
    store: Store,
    proj: Projection,
    ids: list[int],
    threshold: float,
    top_k: int,
) -> tuple[list[TypedEdge], bool, bool]:
    """(edges, vectors available, cut by the budget) among the documents ``ids``."""
    if not ids or not store.load_vec():
        return [], False, False
    model_id = store.latest_embed_model(app.embed_model_uri())
    if model_id is None or not store.vector_count(model_id):
        return [], False, False
    rows = store.documents_by_ids(ids)
    by_mirror: dict[str, list[int]] = {}
    for doc_id in ids:
        row = rows.get(doc_id)
        if row is not None and row.mirror_hash:
            by_mirror.setdefault(row.mirror_hash, []).append(doc_id)
    scores: dict[tuple[int, int], float] = {}
    queried = ids[:SIMILAR_NODE_BUDGET]
    for doc_id in queried:
        row = rows.get(doc_id)
        own = row.mirror_hash if row else None
        first = store.chunk_embeddings(model_id, own, first_only=True) if own else []
        if not first:
            continue
        k = (top_k + 1) * OVERFETCH
        found = 0
        for mirror, seq, distance in store.knn(model_id, [first[0]], k)[0]:
            score = 1 - distance
            if seq != 0 or mirror == own or score < threshold:
                continue
            for other in by_mirror.get(mirror, []):
                pair = (min(doc_id, other), max(doc_id, other))
                scores[pair] = max(scores.get(pair, 0.0), round(min(1.0, score), 6))
            found += 1
            if found >= top_k:
                break
    edges = [
        TypedEdge(
            -1 - n,
            a,
            b,
            "similar",
            "inferred",
            "similarity",
            "similar",
            "similarity",
            "similarity",
            1,
            score,
        )
        for n, ((a, b), score) in enumerate(sorted(scores.items()))
    ]
    return edges, True, len(ids) > len(queried)
