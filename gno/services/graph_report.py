"""``graph``: the link graph with its report (engine.md §7.6, graph@1.0).

Nodes are active documents (of one collection when asked), edges the resolved wiki
and Markdown links between them (one per pair and link type, weight = number of
links). Degree counts distinct in and out neighbours over every resolved link.
Kept nodes: highest degree first (ties by document id), at most ``limit``; kept
edges: among kept nodes, heaviest first, at most ``edgeLimit``. Confidence and
type counts are taken before the limits. Communities: deterministic label
propagation over the kept graph (skipped above COMMUNITY_NODE_CAP nodes).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

from gno.app import App
from gno.errors import NotFoundError
from gno.ports import Store
from gno.services.graph_cache import cached, input_fields
from gno.services.graph_refs import check_collection

if TYPE_CHECKING:  # the CLI's lean path reads the wire form: no model on `gno graph`
    from gno_contracts.models.graph import Graph
    from gno_contracts.models.graph_input import GraphInput

    # the graph modules load when an answer is computed: a cached one needs none of them
    from gno.core.link_resolver import Doc
    from gno.core.typed_graph import Projection, TypedEdge

REPORT_TOP = 10
ISOLATED_EXAMPLES = 10
COMMUNITY_NODE_CAP = 2000
COMMUNITY_TOP = 10
COMMUNITY_TOP_NODES = 5
STRENGTH = {"explicit": 1.0, "inferred": 0.75, "ambiguous": 0.5, "similarity": 0.35}
CONFIDENCES = ("explicit", "inferred", "ambiguous", "similarity")


def report_node(doc: Doc, degree: int) -> dict[str, Any]:
    return {
        "id": doc.docid,
        "uri": doc.uri,
        "title": doc.title,
        "collection": doc.collection,
        "relPath": doc.rel_path,
        "degree": degree,
    }


def graph_link(doc_of: dict[int, Doc], edge: TypedEdge) -> dict[str, Any]:
    audit: dict[str, Any] = {"resolution": edge.resolution, "matchCount": edge.match_count}
    if edge.link_type == "similar":
        audit = {"resolution": "similarity", "score": edge.weight}
    return {
        "source": doc_of[edge.source].docid,
        "target": doc_of[edge.target].docid,
        "type": edge.link_type,
        "weight": edge.weight,
        "confidence": edge.graph_confidence,
        "audit": audit,
    }


def link_layer(
    proj: Projection,
) -> tuple[list[TypedEdge], dict[int, set[int]], dict[int, set[int]], dict[int, int]]:
    """The wiki and Markdown edges, out and in neighbours, and each document's degree."""
    links = [e for e in proj.edges if e.link_type != "relation"]
    outs: defaultdict[int, set[int]] = defaultdict(set)
    ins: defaultdict[int, set[int]] = defaultdict(set)
    for e in links:
        outs[e.source].add(e.target)
        ins[e.target].add(e.source)
    degree = {i: len(outs.get(i, set()) | ins.get(i, set())) for i in proj.docs}
    return links, outs, ins, degree


def base_meta(
    proj: Projection, collection: str | None, node_limit: int, edge_limit: int, top_k: int
) -> dict[str, Any]:
    """graph@1.0 ``meta`` before anything is returned (the neighbour and path answers add to it)."""
    links = [e for e in proj.edges if e.link_type != "relation"]
    scope = {i for i, d in proj.docs.items() if collection is None or d.collection == collection}
    unresolved = (
        proj.unresolved
        if collection is None
        else proj.unresolved_by_collection.get(collection, {"wiki": 0, "markdown": 0})
    )
    return {
        "collection": collection,
        "nodeLimit": node_limit,
        "edgeLimit": edge_limit,
        "totalNodes": len(scope),
        "totalEdges": sum(1 for e in links if e.source in scope and e.target in scope),
        "totalEdgesUnresolved": sum(unresolved.values()),
        "returnedNodes": 0,
        "returnedEdges": 0,
        "truncated": False,
        "linkedOnly": True,
        "includedSimilar": False,
        "similarAvailable": False,
        "similarTopK": top_k,
        "similarTruncatedByComputeBudget": False,
        "warnings": [],
    }


def graph(app: App, inp: GraphInput) -> Graph:
    from gno_contracts.models.graph import Graph

    return Graph.model_validate(graph_payload(app, inp))


def graph_payload(app: App, inp: GraphInput) -> dict[str, Any]:
    """graph@1.0 in its wire form."""
    collection = check_collection(app, inp.collection)
    store = app.store()
    if inp.includeSimilar:  # reads the embeddings too: not an answer of the link graph alone
        return _graph(app, store, inp, collection)
    key = input_fields(inp) | {"collection": collection}
    return cached(
        app,
        store,
        "graph",
        lambda: key,
        lambda: _graph(app, store, inp, collection),
        cheap_in_memory=False,  # the report costs ~20 ms over a kept projection too
    )


def _graph(app: App, store: Store, inp: GraphInput, collection: str | None) -> dict[str, Any]:
    from gno.services.graph_similar import SIMILAR_NODE_BUDGET, similarity_edges

    proj = store.projection()
    docs = proj.docs
    if not docs:
        raise NotFoundError("No documents indexed. Run: gno update")
    links, outs, ins, degree = link_layer(proj)
    scope = [i for i, d in docs.items() if collection is None or d.collection == collection]
    in_scope = set(scope)
    scoped = [e for e in links if e.source in in_scope and e.target in in_scope]
    candidates = [i for i in scope if degree[i] > 0 or not inp.linkedOnly]
    candidates.sort(key=lambda i: (-degree[i], i))
    kept_ids = candidates[: inp.limit]
    kept = set(kept_ids)
    edge_pool = [e for e in scoped if e.source in kept and e.target in kept]
    similar: list[TypedEdge] = []
    similar_available = similar_cut = False
    if inp.includeSimilar:
        similar, similar_available, similar_cut = similarity_edges(
            app, store, proj, kept_ids, inp.threshold, inp.similarTopK
        )
        edge_pool += similar
    edge_pool.sort(key=lambda e: (-e.weight, docs[e.source].uri, docs[e.target].uri, e.link_type))
    kept_edges = edge_pool[: inp.edgeLimit]
    truncated = len(candidates) > len(kept_ids) or len(edge_pool) > len(kept_edges)

    by_degree = sorted(scope, key=lambda i: (-degree[i], i))
    hubs = [report_node(docs[i], degree[i]) for i in by_degree if degree[i] > 0][:REPORT_TOP]
    bridges = [report_node(docs[i], degree[i]) for i in by_degree if outs[i] and ins[i]][
        :REPORT_TOP
    ]
    isolated = sorted(i for i in scope if degree[i] == 0)
    unresolved = (
        proj.unresolved
        if collection is None
        else proj.unresolved_by_collection.get(collection, {"wiki": 0, "markdown": 0})
    )
    confidence = dict.fromkeys(CONFIDENCES, 0)
    types = {"wiki": 0, "markdown": 0, "similar": 0}
    for e in scoped + similar:
        confidence[e.graph_confidence] += 1
        types[e.link_type] += 1
    communities, assignment = _communities(docs, kept_ids, kept_edges, degree)
    nodes = []
    for i in kept_ids:
        item = report_node(docs[i], degree[i])
        if i in assignment:
            item["communityId"] = assignment[i]
        nodes.append(item)
    report = {
        "hubs": hubs,
        "bridgeCandidates": bridges,
        "isolated": {
            "total": len(isolated),
            "examples": [report_node(docs[i], 0) for i in isolated[:ISOLATED_EXAMPLES]],
        },
        "unresolvedLinks": {"total": sum(unresolved.values()), "byType": dict(unresolved)},
        "edgeTypes": types,
        "edgeConfidence": confidence,
        "audit": {
            "inferredEdges": confidence["inferred"],
            "ambiguousEdges": confidence["ambiguous"],
            "similarityEdges": confidence["similarity"],
        },
        "communities": communities,
    }
    warnings = []
    if inp.includeSimilar and not similar_available:
        warnings.append(
            "no embeddings for the active model: similarity edges left out (run: gno embed)"
        )
    if similar_cut:
        warnings.append(f"similarity edges computed for the first {SIMILAR_NODE_BUDGET} nodes only")
    meta = {
        "collection": collection,
        "nodeLimit": inp.limit,
        "edgeLimit": inp.edgeLimit,
        "totalNodes": len(scope),
        "totalEdges": len(scoped) + len(similar),
        "totalEdgesUnresolved": sum(unresolved.values()),
        "returnedNodes": len(nodes),
        "returnedEdges": len(kept_edges),
        "truncated": truncated,
        "linkedOnly": inp.linkedOnly,
        "includedSimilar": bool(inp.includeSimilar and similar_available),
        "similarAvailable": similar_available,
        "similarTopK": inp.similarTopK,
        "similarTruncatedByComputeBudget": similar_cut,
        "warnings": warnings,
    }
    return {
        "nodes": nodes,
        "links": [graph_link(docs, e) for e in kept_edges],
        "report": report,
        "meta": meta,
    }


def _communities(
    docs: dict[int, Doc], ids: list[int], edges: list[TypedEdge], degree: dict[int, int]
) -> tuple[dict[str, Any], dict[int, str]]:
    from gno.core.traversal import group, label_propagation

    base: dict[str, Any] = {"algorithm": "deterministic-label-propagation"}
    if len(ids) > COMMUNITY_NODE_CAP:
        return base | {"total": 0, "skipped": True, "assignments": {}, "top": []}, {}
    uri_of = {i: docs[i].uri for i in ids}
    id_of = {uri: i for i, uri in uri_of.items()}
    weighted = [
        (uri_of[e.source], uri_of[e.target], max(0.01, e.weight) * STRENGTH[e.graph_confidence])
        for e in edges
    ]
    groups = group(label_propagation(uri_of.values(), weighted))
    groups.sort(key=lambda members: (-len(members), members[0]))
    assignment: dict[int, str] = {}
    top: list[dict[str, Any]] = []
    for n, members in enumerate(groups, start=1):
        cid = f"c{n}"
        member_ids = [id_of[uri] for uri in members]
        for i in member_ids:
            assignment[i] = cid
        if len(top) < COMMUNITY_TOP:
            inside = set(member_ids)
            internal = sum(1 for e in edges if e.source in inside and e.target in inside)
            size = len(members)
            pairs = size * (size - 1) / 2
            leaders = sorted(member_ids, key=lambda i: (-degree[i], i))
            lead = docs[leaders[0]]
            top.append(
                {
                    "id": cid,
                    "label": lead.title or lead.rel_path,
                    "size": size,
                    "edgeCount": internal,
                    "density": round(internal / pairs, 6) if pairs else 0.0,
                    "topNodes": [
                        report_node(docs[i], degree[i]) for i in leaders[:COMMUNITY_TOP_NODES]
                    ],
                }
            )
    assignments = {docs[i].docid: cid for i, cid in sorted(assignment.items())}
    return base | {
        "total": len(groups),
        "skipped": False,
        "assignments": assignments,
        "top": top,
    }, assignment
