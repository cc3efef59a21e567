"""``similar``: documents nearest to one document's mean chunk vector (engine.md §7.5).

The mean of all the document's stored chunk vectors for the active embedding
model, L2-normalised, searched with ``k = min(limit × 20, 200)`` chunks; the
document's own mirror is dropped; each other mirror keeps its best
``1 − cosine distance``; same collection unless ``crossCollection``. No model is
loaded: the stored vectors are the query.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING, Any

from gno.app import App
from gno.errors import NotFoundError, UnavailableError
from gno.rows import pack, unpack
from gno.services.embed_models import collection_embed_uris
from gno.services.graph_refs import node_for

if TYPE_CHECKING:  # the CLI's lean path reads the wire form: no model on `gno similar`
    from gno_contracts.models.similar import Similar
    from gno_contracts.models.similar_input import SimilarInput

MAX_K = 200


def mean_vector(vectors: list[list[float]]) -> list[float]:
    """Component-wise mean, L2-normalised (a zero vector stays zero)."""
    dims = len(vectors[0])
    total = [0.0] * dims
    for vector in vectors:
        for i, value in enumerate(vector):
            total[i] += value
    norm = math.sqrt(sum(v * v for v in total))
    return [v / norm for v in total] if norm else total


def similar(app: App, inp: SimilarInput) -> Similar:
    from gno_contracts.models.similar import Similar

    return Similar.model_validate(similar_payload(app, inp))


def similar_payload(app: App, inp: SimilarInput) -> dict[str, Any]:
    """similar@1.0 in its wire form."""
    store = app.store()
    proj = store.projection()
    doc = node_for(app, store, proj, inp.ref)
    row = store.document_by_path(doc.collection, doc.rel_path)
    if row is None or not row.mirror_hash:
        raise NotFoundError("Document has no indexed content")
    if not store.load_vec():
        raise UnavailableError("Vector search needs sqlite-vec: pip install 'gno[models]'")
    # The document's vectors are of its collection's model; only collections embedded with
    # the same model share that vector space.
    uris = collection_embed_uris(app)
    uri = uris.get(doc.collection) or app.embed_model_uri()
    model_id = store.latest_embed_model(uri)
    blobs = store.chunk_embeddings(model_id, row.mirror_hash) if model_id is not None else []
    if model_id is None or not blobs:  # no vectors: unavailable until `gno embed` ran
        raise UnavailableError("Document has no embeddings. Run: gno embed")
    query = mean_vector([unpack(blob) for blob in blobs])
    limit, threshold = inp.limit, inp.threshold
    where, params = ("", []) if inp.crossCollection else ("AND collection = ?", [doc.collection])
    if inp.crossCollection and len(set(uris.values())) > 1:
        same = sorted(name for name, other in uris.items() if other == uri)
        where, params = "AND collection IN (SELECT value FROM json_each(?))", [json.dumps(same)]
    neighbours = store.knn(model_id, [pack(query)], min(limit * 20, MAX_K), where, params)[0]
    best: dict[str, float] = {}
    for mirror_hash, _, distance in neighbours:
        if mirror_hash != row.mirror_hash:
            best[mirror_hash] = max(best.get(mirror_hash, 0.0), 1 - distance)
    docs = store.documents_with_mirrors(list(best), where, params)
    hits = sorted(
        (
            (round(max(0.0, min(1.0, best[d.mirror_hash])), 6), d)
            for d in docs
            if d.mirror_hash and d.id != row.id
        ),
        key=lambda pair: (-pair[0], pair[1].uri),
    )
    items: list[dict[str, Any]] = []
    for score, hit in hits:
        if score < threshold or len(items) >= limit:
            continue
        item: dict[str, Any] = {"docid": hit.docid, "uri": hit.uri}
        if hit.title:
            item["title"] = hit.title
        items.append(item | {"score": score, "collection": hit.collection, "relPath": hit.rel_path})
    meta: dict[str, Any] = {"docid": doc.docid, "uri": doc.uri}
    if doc.title:
        meta["title"] = doc.title
    meta |= {
        "totalResults": len(items),
        "limit": limit,
        "threshold": threshold,
        "crossCollection": inp.crossCollection,
    }
    return {"similar": items, "meta": meta}
