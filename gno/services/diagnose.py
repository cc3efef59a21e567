"""``query diagnose``: why a document did or did not come back for a query.

The target's status first (not found, inactive, never converted, filtered out by
which filters); then one pass of the query pipeline and the target's fate at each
stage: present or not, its rank and score, whether it survived to the next stage,
and why not (``not_in_candidate_set`` if no earlier stage saw it, ``below_cutoff``
if one did, ``skipped`` for a stage that did not run).
"""

from __future__ import annotations

import math
from typing import Any

from gno_contracts.models.query_diagnose import QueryDiagnose
from gno_contracts.models.query_diagnose_input import QueryDiagnoseInput

from gno.app import App
from gno.core.content_types import NEUTRAL, parse_content_types
from gno.core.fusion import LEXICAL, SEMANTIC
from gno.core.identity import make_uri, parse_ref
from gno.rows import DocRow
from gno.services.documents import active_at, check_index
from gno.services.filters import Filters, build_filters
from gno.services.query import QueryRun, run_pipeline
from gno.services.query_modes import mode_counts
from gno.services.stage_notes import stage_notes


def _find(app: App, store: Any, ref: str) -> DocRow | None:
    """The target as ``get`` resolves it (a ref of another index refused, a path typed NFC
    finding the file named NFD), or else the inactive document at that exact path or docid
    (an active one first), which diagnose reports as ``inactive``: "why is it not found" is
    answered, not "not_found" for a document the index still holds (as ``diff`` finds it)."""
    parsed = parse_ref(ref)
    check_index(app, parsed)
    if parsed.docid:
        docs: list[DocRow] = store.documents_by_docid(parsed.docid, inactive=True)
        return docs[0] if docs else None
    assert parsed.collection and parsed.rel_path
    found = active_at(store, parsed.collection, parsed.rel_path)
    return found or store.document_by_path(parsed.collection, parsed.rel_path)


def _filter_reasons(store: Any, doc: DocRow, filters: Filters) -> list[str]:
    """Each active filter the document fails, by name."""
    reasons = []
    for name in (
        "collection",
        "tags_all",
        "tags_any",
        "since",
        "until",
        "categories",
        "author",
        "lang",
        "exclude",
        "metadata",
    ):
        value = getattr(filters, name)
        if not value:
            continue
        where, params = Filters(**{name: value}, temporal_types=filters.temporal_types).sql()
        if doc.id not in store.documents_by_ids([doc.id], where, params):
            reasons.append(name)
    return reasons


def _stage(
    stage_id: str, run: QueryRun, key: str, seen_before: bool, *, cutoff: int
) -> dict[str, Any]:
    # The bm25 stage: the query's own lexical lists (the outline leg has its stage receipt).
    kinds = {"bm25": LEXICAL - {"outline"}, "vector": SEMANTIC, "graph": {"graph"}}.get(stage_id)
    if (
        (stage_id == "graph" and run.graph is None)
        or (stage_id == "vector" and not run.vectors_used)
        or (stage_id == "rerank" and not run.reranked)
    ):
        return {"id": stage_id, "status": "skipped", "sourceCount": 0, "present": False, "rank": None, "score": None,
                "survived": seen_before, "dropReason": "skipped"}  # fmt: skip
    if kinds is not None:
        lists = [lst for lst in run.lists if lst.kind in kinds]
        ranks = [list(lst.keys).index(key) + 1 for lst in lists if key in lst.keys]
        rank = min(ranks) if ranks else None
        score = round(1 / (60 + rank), 6) if rank else None
        sources, survived = len(lists), rank is not None
        if stage_id == "graph":  # graph adds candidates, it never drops one
            survived = survived or seen_before
    elif stage_id == "fusion":
        rank = run.fusion_order.index(key) + 1 if key in run.fusion_order else None
        position = next((i for i, f in enumerate(run.fused) if f.key == key), None)
        score = (
            round(run.scores[position], 6) if position is not None and not run.reranked else None
        )
        sources, survived = len(run.lists), rank is not None and rank <= cutoff
    else:  # rerank: the final order
        position = next((i for i, f in enumerate(run.fused) if f.key == key), None)
        rank = position + 1 if position is not None else None
        score = round(run.scores[position], 6) if position is not None else None
        sources, survived = 1, rank is not None and rank <= cutoff
    present = rank is not None
    drop = (
        None if survived else ("below_cutoff" if present or seen_before else "not_in_candidate_set")
    )
    return {"id": stage_id, "status": "active", "sourceCount": sources, "present": present, "rank": rank,
            "score": score, "survived": survived, "dropReason": drop}  # fmt: skip


def diagnose(app: App, inp: QueryDiagnoseInput) -> QueryDiagnose:
    store = app.store()
    doc = _find(app, store, inp.target)
    target: dict[str, Any] = {
        "ref": inp.target, "status": "not_found", "docid": None, "uri": None, "title": None, "contentType": None,
        "contentTypeSource": None, "categories": [], "graphHints": [], "filterReasons": [],
        "contentTypeRulesFingerprint": None, "contentTypeFingerprintMatches": None, "mirrorHash": None,
        "chunkCount": 0,
    }  # fmt: skip
    empty_chunk = {"seq": None, "startLine": None, "endLine": None, "language": None}
    meta: dict[str, Any] = {
        "mode": "bm25_only",
        "vectorsUsed": False,
        "reranked": False,
        "totalResults": 0,
    }
    result: dict[str, Any] = {"schemaVersion": "1.0", "query": inp.query, "target": target, "stages": [], "chunk": empty_chunk,
              "meta": meta}  # fmt: skip
    if doc is None:
        return QueryDiagnose.model_validate(result)
    chunks = (
        store.chunk_spans([doc.mirror_hash]).get(doc.mirror_hash, []) if doc.mirror_hash else []
    )
    target |= {
        "docid": doc.docid, "uri": make_uri(doc.collection, doc.rel_path, app.paths.index_name), "title": doc.title,
        "contentType": doc.content_type, "categories": doc.categories, "mirrorHash": doc.mirror_hash,
        "chunkCount": len(chunks),
    }  # fmt: skip
    target |= content_type_target(app, store, doc)
    filters = build_filters(store, inp)
    if not doc.active:
        target["status"] = "inactive"
    elif doc.mirror_hash is None:
        target["status"] = "no_indexed_content"
    elif reasons := _filter_reasons(store, doc, filters):
        target |= {"status": "filtered_out", "filterReasons": reasons}
    else:
        target["status"] = "diagnosed"
        run = run_pipeline(app, store, inp)
        key = doc.mirror_hash
        cutoff_fusion = run.candidate_limit if run.reranked else inp.limit
        bm25 = _stage("bm25", run, key, False, cutoff=inp.limit)
        vector = _stage("vector", run, key, bm25["present"], cutoff=inp.limit)
        seen = bm25["present"] or vector["present"]
        fusion = _stage("fusion", run, key, seen, cutoff=cutoff_fusion)
        graph = _stage("graph", run, key, fusion["survived"], cutoff=inp.limit)
        rerank = _stage("rerank", run, key, seen, cutoff=inp.limit)
        result["stages"] = [bm25, vector, fusion, graph, rerank]
        seq = run.best_chunk.get(key, chunks[0][0] if chunks else None)
        chosen = next((c for c in chunks if c[0] == seq), None)
        if chosen:
            result["chunk"] = {
                "seq": chosen[0],
                "startLine": chosen[1],
                "endLine": chosen[2],
                "language": _hint(store, doc.collection) or chosen[3],
            }
        meta |= {"mode": "hybrid" if run.vectors_used else "bm25_only", "vectorsUsed": run.vectors_used,
                 "reranked": run.reranked, "totalResults": min(inp.limit, len(run.fused))}  # fmt: skip
        if run.modes:
            meta["queryModes"] = mode_counts(run.modes)
        meta["retrieval"] = retrieval_receipt(run, key) | retrieval_stages(app, store, run, key)
        if key in run.boosts:  # a content-type boost moved this document: 1.2 says how
            result["schemaVersion"] = "1.2"
            result["contentTypeBoost"] = run.boosts[key]
    return QueryDiagnose.model_validate(result)


def content_type_target(app: App, store: Any, doc: Any) -> dict[str, Any]:
    """The target's content-type fields: where its type came from, the configured graph
    hints of that type, and whether it was ingested under the rules configured now."""
    rules = parse_content_types(app.config.raw.get("contentTypes"))
    source, fm_type, stored_fp = store.doc_meta(doc.id)
    rule = rules.by_id(doc.content_type)
    out: dict[str, Any] = {"contentTypeSource": source}
    if rule is not None and source in ("frontmatter-type", "prefix"):
        out["graphHints"] = list(rule.graph_hints)
    if rules.rules:
        expected = rules.doc_fingerprint(doc.rel_path, fm_type)
        out["contentTypeRulesFingerprint"] = rules.fingerprint
        out["contentTypeFingerprintMatches"] = (stored_fp or NEUTRAL) == expected
    return out


def retrieval_receipt(run: QueryRun, key: str) -> dict[str, Any]:
    """What the model-free stages did (query-diagnose@1.2+ ``meta.retrieval``)."""
    receipt: dict[str, Any] = {
        "shape": run.shape,
        "weights": run.weights,
        "feedbackTerms": [{"term": t, "weight": w} for t, w in run.feedback_terms],
        "windows": run.windows,
    }
    if run.language is not None:
        receipt |= {
            "queryLanguage": run.language.language,
            "languageDetected": run.language.detected,
            "targetLanguageMove": run.language.moved.get(key),
        }
    return receipt


# The --explain stage whose list holds what a retrieval stage added (the target's rank there).
_STAGE_LISTS = {"outline": "outline", "feedback": "feedback", "vectorFeedback": "vector_feedback"}


def retrieval_stages(app: App, store: Any, run: QueryRun, key: str) -> dict[str, Any]:
    """query-diagnose@1.3+ (the languageWeights and outline stages since 1.4): every
    model-free stage with its status, why it was skipped, its --explain message and the
    target's place in what it did: its rank in the list the stage added (outline, feedback,
    vector feedback), the windows of its best chunk (windows)."""
    stages = []
    for note in stage_notes(run, app.retrieval):
        stage: dict[str, Any] = {"id": note.id, "status": note.status, "reason": note.reason,
                                 "message": note.message}  # fmt: skip
        if (kind := _STAGE_LISTS.get(note.id)) is not None:
            added = next((lst for lst in run.lists if lst.kind == kind), None)
            keys = list(added.keys) if added else []
            stage["targetRank"] = keys.index(key) + 1 if key in keys else None
        elif note.id == "windows" and note.status == "active":
            stage["targetWindows"] = _target_windows(store, run, key)
        elif note.id == "language" and run.language is not None:
            stage["targetMove"] = run.language.moved.get(key)
        stages.append(stage)
    searched = run.searched
    out: dict[str, Any] = {"stages": stages, "topBonusFactor": run.bonus,
                           "windowsConfigured": app.retrieval.max_windows if app.retrieval.embed_windows else 1}  # fmt: skip
    if searched is not None:
        out["queryText"] = "bare" if searched.plain_query else "prompted"
    return out


def _target_windows(store: Any, run: QueryRun, key: str) -> list[dict[str, Any]]:
    """Each window of the target's best chunk with its cosine distance to the query (the
    chunk is scored by the nearest); empty when the vector leg did not find the target."""
    from gno.rows import unpack

    seq = run.best_chunk.get(key)
    if seq is None or run.searched is None or not run.searched.vectors:
        return []
    query = run.searched.vectors[0]
    qnorm = math.sqrt(math.fsum(x * x for x in query)) or 1.0
    out = []
    for win, blob in store.window_vector_blobs(run.searched.model_id, key, seq):
        vec = unpack(blob)
        norm = math.sqrt(math.fsum(x * x for x in vec)) or 1.0
        cosine = math.fsum(a * b for a, b in zip(query, vec, strict=False)) / (qnorm * norm)
        out.append({"seq": seq, "window": win, "distance": round(1.0 - cosine, 6)})
    return out


def _hint(store: Any, collection: str) -> str | None:
    """The collection's languageHint, which stands for what detection found in its chunks
    (read where results read it: the index's copy of the configuration)."""
    return next((c["languageHint"] for c in store.collections() if c["name"] == collection), None)
