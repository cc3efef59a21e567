"""A graph node's neighbours and the shortest path between two (GNO's
``gno_graph_neighbors`` / ``gno_graph_path`` payloads), over the same wiki and Markdown
link layer as the graph report, with its node and link shapes.

A graph node ref is a document ref, a bare relPath or an exact title (an unknown one is
NOT_FOUND). GNO publishes no schema for these payloads; ``graph-neighbors@1.0`` and
``graph-path@1.0`` are gno's, field for field GNO's.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

from gno_contracts.models.graph_neighbors import GraphNeighbors
from gno_contracts.models.graph_neighbors_input import GraphNeighborsInput
from gno_contracts.models.graph_path import GraphPath
from gno_contracts.models.graph_path_input import GraphPathInput

from gno.app import App
from gno.core.traversal import Step, shortest_path
from gno.core.typed_graph import Projection, TypedEdge
from gno.errors import ValidationError
from gno.services.graph_refs import check_collection, graph_node_for
from gno.services.graph_report import base_meta, graph_link, link_layer, report_node

PATH_MAX_DEPTH = 12
DIRECTIONS = ("both", "out", "in")


def _adjacency(
    proj: Projection, collection: str | None
) -> tuple[dict[int, list[TypedEdge]], dict[int, list[TypedEdge]], dict[int, int]]:
    links, _, _, degree = link_layer(proj)
    outs: defaultdict[int, list[TypedEdge]] = defaultdict(list)
    ins: defaultdict[int, list[TypedEdge]] = defaultdict(list)
    for e in links:
        docs = proj.docs
        if (
            collection is None
            or collection == docs[e.source].collection == docs[e.target].collection
        ):
            outs[e.source].append(e)
            ins[e.target].append(e)
    return outs, ins, degree


def _ordered(
    proj: Projection, edges: list[TypedEdge], other: Callable[[TypedEdge], int]
) -> list[TypedEdge]:
    return sorted(edges, key=lambda e: (proj.docs[other(e)].uri, e.link_type))


def neighbors(app: App, inp: GraphNeighborsInput) -> GraphNeighbors:
    direction = str(getattr(inp.direction, "value", inp.direction or "both"))
    if direction not in DIRECTIONS:
        raise ValidationError("direction must be both, out or in")
    wanted = check_collection(app, inp.collection)
    store = app.store()
    proj = store.projection()
    source = graph_node_for(app, store, proj, inp.ref)
    outs, ins, degree = _adjacency(proj, wanted)
    found: list[dict[str, Any]] = []
    if direction in ("both", "out"):
        for e in _ordered(proj, outs.get(source.id, []), lambda e: e.target):
            found.append({"node": report_node(proj.docs[e.target], degree[e.target]),
                          "direction": "out", "edge": graph_link(proj.docs, e)})  # fmt: skip
    if direction in ("both", "in"):
        for e in _ordered(proj, ins.get(source.id, []), lambda e: e.source):
            found.append({"node": report_node(proj.docs[e.source], degree[e.source]),
                          "direction": "in", "edge": graph_link(proj.docs, e)})  # fmt: skip
    meta = base_meta(proj, wanted, inp.limit, inp.edgeLimit, inp.similarTopK)
    meta |= {
        "returnedNodes": len({n["node"]["id"] for n in found}) + 1,
        "returnedEdges": len(found),
        "direction": direction,
        "totalNeighbors": len(found),
    }
    return GraphNeighbors.model_validate(
        {"source": report_node(source, degree[source.id]), "neighbors": found, "meta": meta}
    )


def path(app: App, inp: GraphPathInput) -> GraphPath:
    """Shortest path over links in either direction, at most ``maxDepth`` hops (1–12)."""
    max_depth = inp.maxDepth
    if not 1 <= max_depth <= PATH_MAX_DEPTH:
        raise ValidationError(f"maxDepth must be 1 to {PATH_MAX_DEPTH}")
    wanted = check_collection(app, inp.collection)
    store = app.store()
    proj = store.projection()
    a = graph_node_for(app, store, proj, inp.from_)
    b = graph_node_for(app, store, proj, inp.to)
    outs, ins, degree = _adjacency(proj, wanted)

    def steps(doc_id: int) -> Sequence[Step]:
        out = [(e.id, e.target) for e in _ordered(proj, outs.get(doc_id, []), lambda e: e.target)]
        back = [(e.id, e.source) for e in _ordered(proj, ins.get(doc_id, []), lambda e: e.source)]
        return out + back

    hops = shortest_path(a.id, b.id, steps, max_depth)
    found = None
    if hops is not None:
        ids = [a.id] + [n for _, n in hops]
        found = {
            "nodes": [report_node(proj.docs[i], degree[i]) for i in ids],
            "edges": [graph_link(proj.docs, proj.edges[e]) for e, _ in hops],
        }
    meta = base_meta(proj, wanted, inp.limit, inp.edgeLimit, inp.similarTopK)
    meta |= {
        "returnedNodes": len(found["nodes"]) if found else 0,
        "returnedEdges": len(found["edges"]) if found else 0,
        "maxDepth": max_depth,
        "found": found is not None,
        "hops": len(hops) if hops is not None else None,
    }
    return GraphPath.model_validate(
        {
            "from": report_node(a, degree[a.id]),
            "to": report_node(b, degree[b.id]),
            "path": found,
            "meta": meta,
        }
    )
