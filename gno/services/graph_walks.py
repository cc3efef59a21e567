"""Bounded walks over the typed edge layer: ``impact`` (who depends on a document) and
``graph query`` (typed traversal)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from gno.app import App
from gno.errors import ValidationError
from gno.ports import Store
from gno.services.graph_cache import cached, input_fields
from gno.services.graph_refs import (
    edge_order,
    edge_type_filter,
    node,
    node_for,
    ref_id,
    step,
)

if TYPE_CHECKING:  # each handler imports its own models; the CLI none (services/wire.py)
    from gno_contracts.models.graph_query import GraphQuery
    from gno_contracts.models.graph_query_input import GraphQueryInput
    from gno_contracts.models.impact import Impact
    from gno_contracts.models.impact_input import ImpactInput

    # the graph modules load when an answer is computed: a cached one needs none of them
    from gno.core.traversal import Step
    from gno.core.typed_graph import Projection, TypedEdge


def _stepper(
    proj: Projection, direction: str, edge_type: str | None = None
) -> Callable[[int], Sequence[Step]]:
    """Neighbour steps of a node, sorted by edge type, source URI, target URI (cached per walk)."""

    @cache
    def steps(doc_id: int) -> Sequence[Step]:
        found: list[tuple[tuple[str, str, str], Step]] = []
        if direction in ("out", "both"):
            for edge in proj.out.get(doc_id, ()):
                if edge_type is None or edge.edge_type == edge_type:
                    found.append((edge_order(proj, edge), (edge.id, edge.target)))
        if direction in ("in", "both"):
            for edge in proj.inbound.get(doc_id, ()):
                if edge_type is None or edge.edge_type == edge_type:
                    found.append((edge_order(proj, edge), (edge.id, edge.source)))
        found.sort()
        return tuple(s for _, s in found)

    return steps


def impact(app: App, inp: ImpactInput) -> Impact:
    from gno_contracts.models.impact import Impact

    return Impact.model_validate(impact_payload(app, inp))


def impact_payload(
    app: App, inp: ImpactInput, collections: Sequence[str] | None = None
) -> dict[str, Any]:
    """impact@1.0 in its wire form. ``collections`` (REST ``?collection=``, canonical names)
    limits the dependents listed; the walk, its caps and ``truncated`` are the same."""
    store = app.store()
    wanted = sorted(set(collections)) if collections else None
    return cached(
        app,
        store,
        "impact",
        lambda: input_fields(inp) | {"ref": ref_id(app, store, inp.ref), "collections": wanted},
        lambda: _impact(app, store, inp, wanted),
    )


def _impact(
    app: App, store: Store, inp: ImpactInput, collections: list[str] | None = None
) -> dict[str, Any]:
    proj = store.projection()
    root = node_for(app, store, proj, inp.ref)
    from gno.core.traversal import Caps, walk

    caps = Caps(inp.maxDepth, inp.maxNodes, inp.maxEdges, inp.frontierLimit, inp.visitedLimit)
    result = walk(root.id, _stepper(proj, "in"), caps)
    impacted = []
    for doc_id in result.order[1:]:
        if collections is not None and proj.docs[doc_id].collection not in collections:
            continue
        edges = [proj.edges[e] for e in result.path(doc_id)]
        first = edges[0]
        impacted.append(
            (
                (result.depth[doc_id], *edge_order(proj, first)),
                {
                    "document": node(proj.docs[doc_id]),
                    "depth": result.depth[doc_id],
                    "evidencePath": [step(proj, e) for e in edges],
                },
            )
        )
    impacted.sort(key=lambda item: item[0])
    return {
        "schemaVersion": "1.0",
        "root": node(root),
        "impacted": [item for _, item in impacted],
        "meta": {
            "maxDepth": caps.max_depth,
            "maxNodes": caps.max_nodes,
            "maxEdges": caps.max_edges,
            "frontierLimit": caps.frontier_limit,
            "visitedLimit": caps.visited_limit,
            # the root and the dependents listed (all that were reached, unfiltered)
            "returnedNodes": 1 + len(impacted),
            "returnedEdges": len(result.edges),
            "truncated": result.truncated,
            "warnings": result.reasons,
        },
    }


def graph_query(app: App, inp: GraphQueryInput) -> GraphQuery:
    from gno_contracts.models.graph_query import GraphQuery

    return GraphQuery.model_validate(graph_query_payload(app, inp))


def _max_depth(inp: GraphQueryInput) -> int:
    """``maxDepth`` or GNO's alias ``depth`` (``gno_graph_query`` takes either; an agent
    sending only ``depth`` must not get the default 2); both given must match."""
    given = input_fields(inp)  # the model's set fields, or the lean path's wire fields
    depth = given.get("depth")
    if depth is None:
        return inp.maxDepth
    if "maxDepth" in given and given["maxDepth"] != depth:
        raise ValidationError("maxDepth and depth must match when both are given")
    return int(depth)


def graph_query_payload(app: App, inp: GraphQueryInput) -> dict[str, Any]:
    """graph-query@1.0 in its wire form."""
    wanted = edge_type_filter(inp.edgeType, inp.relation)
    _max_depth(inp)  # a mismatch is refused before the cache is asked
    store = app.store()
    return cached(
        app,
        store,
        "graph_query",
        lambda: input_fields(inp) | {"ref": ref_id(app, store, inp.ref)},
        lambda: _graph_query(app, store, inp, wanted),
    )


def _graph_query(
    app: App, store: Store, inp: GraphQueryInput, wanted: str | None
) -> dict[str, Any]:
    proj = store.projection()
    root = node_for(app, store, proj, inp.ref)
    direction = str(getattr(inp.direction, "value", inp.direction or "both"))
    from gno.core.traversal import Caps, walk

    depth = _max_depth(inp)
    caps = Caps(depth, inp.maxNodes, inp.maxNodes * 50, inp.frontierLimit, inp.visitedLimit)
    result = walk(root.id, _stepper(proj, direction, wanted), caps, cross_edges=True)
    nodes = [
        node(proj.docs[doc_id])
        | {"depth": result.depth[doc_id], "graphHints": list(proj.graph_hints.get(doc_id, ()))}
        for doc_id in result.order
    ]
    edges = sorted(
        ((proj.edges[e], depth) for e, depth in result.edges),
        key=lambda item: (item[1], *edge_order(proj, item[0])),
    )
    return {
        "schemaVersion": "1.0",
        "root": nodes[0],
        "nodes": nodes,
        "edges": [_query_edge(proj, e, depth) for e, depth in edges],
        "meta": {
            "direction": direction,
            "edgeType": wanted,
            "maxDepth": caps.max_depth,
            "maxNodes": caps.max_nodes,
            "frontierLimit": caps.frontier_limit,
            "visitedLimit": caps.visited_limit,
            "returnedNodes": len(nodes),
            "returnedEdges": len(edges),
            "truncated": result.truncated,
            "warnings": result.reasons,
        },
    }


def _query_edge(proj: Projection, edge: TypedEdge, depth: int) -> dict[str, Any]:
    return {
        "source": proj.docs[edge.source].docid,
        "target": proj.docs[edge.target].docid,
        "edgeType": edge.edge_type,
        "relationType": edge.edge_type,
        "confidence": edge.confidence,
        "edgeSource": edge.edge_source,
        "depth": depth,
    }
