"""Shared by the graph and journal handlers: document refs → projection nodes, node
shapes of the wire schemas, collection checks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from gno.app import App
from gno.core.identity import parse_ref
from gno.errors import DocumentNotFoundError, NotFoundError, ValidationError
from gno.ports import Store
from gno.rows import DocRow
from gno.services.documents import resolve

if TYPE_CHECKING:  # `gno tags` and `gno changes` check a collection and build no graph
    from gno.core.link_resolver import Doc
    from gno.core.typed_graph import Projection, TypedEdge


def edge_type_filter(edge_type: str | None, relation: str | None) -> str | None:
    """``edgeType`` and its alias ``relation``: both given must match; lower snake case."""
    from gno.core.relations import EDGE_TYPE  # `gno tags` loads this module, not relations

    if edge_type and relation and edge_type != relation:
        raise ValidationError("edgeType and relation must match when both are given")
    wanted = edge_type or relation
    if wanted is not None and not EDGE_TYPE.match(wanted):
        raise ValidationError(f"Invalid edge type (lower snake case expected): {wanted}")
    return wanted


def check_collection(app: App, name: str | None) -> str | None:
    """The collection's canonical name; an unknown one is NOT_FOUND."""
    if name is None:
        return None
    found = app.config.find(name.strip())
    if found is None:
        raise NotFoundError(f"Collection not found: {name}")
    return found.name


def node_for(app: App, store: Store, proj: Projection, ref: str) -> Doc:
    """The active document a ref names (``#docid``, ``gno://…``, ``collection/path``)."""
    return _active(proj, resolve(app, store, parse_ref(ref)), ref)


def ref_id(app: App, store: Store, ref: str) -> int | None:
    """The id of the document a ref names (None: unknown), failing as ``node_for`` does
    on a malformed ref: the graph cache's key for it."""
    found = resolve(app, store, parse_ref(ref))
    return found.id if found is not None else None


def seeded_node(app: App, store: Store, ref: str) -> tuple[Projection, Doc]:
    """``node_for`` with a projection that holds every edge and link group touching that
    document (``Store.seed_projection``): one document's links or backlinks resolve only
    the links that can reach it, not the whole index (most of a `gno links` run before)."""
    found = resolve(app, store, parse_ref(ref))
    proj = store.seed_projection([found.id] if found is not None else [])
    return proj, _active(proj, found, ref)


def _active(proj: Projection, found: DocRow | None, ref: str) -> Doc:
    if found is None or found.id not in proj.docs:
        raise DocumentNotFoundError(f"Document not found: {ref}")
    return proj.docs[found.id]


def graph_node_for(app: App, store: Store, proj: Projection, ref: str) -> Doc:
    """Graph-node refs: any document ref, or a bare relPath or an exact title."""
    text = ref.strip()
    if not text:
        raise ValidationError("Reference cannot be empty")
    try:
        return node_for(app, store, proj, text)
    except (ValidationError, DocumentNotFoundError):
        for ids in (proj.resolver.by_rel_path(text), proj.resolver.by_title(text)):
            if ids:
                return proj.docs[ids[0]]
        raise DocumentNotFoundError(f"Graph node not found: {ref}") from None


def node(doc: Doc) -> dict[str, Any]:
    """``{id, uri, title, collection, relPath}``: the node of impact/graph-query."""
    return {
        "id": doc.docid,
        "uri": doc.uri,
        "title": doc.title,
        "collection": doc.collection,
        "relPath": doc.rel_path,
    }


def endpoint(doc: Doc) -> dict[str, str]:
    return {"id": doc.docid, "uri": doc.uri}


def step(proj: Projection, edge: TypedEdge) -> dict[str, Any]:
    """One typed edge as an evidence step (impact@1.0)."""
    return {
        "source": endpoint(proj.docs[edge.source]),
        "target": endpoint(proj.docs[edge.target]),
        "edgeType": edge.edge_type,
        "relationType": edge.edge_type,
        "confidence": edge.confidence,
        "edgeSource": edge.edge_source,
    }


def edge_order(proj: Projection, edge: TypedEdge) -> tuple[str, str, str]:
    """Deterministic order of edges: type, source URI, target URI."""
    return edge.edge_type, proj.docs[edge.source].uri, proj.docs[edge.target].uri
