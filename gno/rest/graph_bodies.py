"""GNO's REST spellings of the graph routes -> operation inputs (registry ``rest.body``).

`/api/doc/{id}/…` name the document by its docid (with or without `#`, which a URL
must encode) or by a URL-encoded ref; `/api/doc/{id}/similar` defaults to a 0.5
threshold and clamps its limit to 20; `POST /api/graph/query` calls the root `doc`
or `root` and the depth `maxDepth` or `depth`.
"""

from __future__ import annotations

import re
from typing import Any

from gno_contracts.models.api_doc_backlinks_input import ApiDocBacklinksInput
from gno_contracts.models.api_doc_links_input import ApiDocLinksInput
from gno_contracts.models.api_doc_similar_input import ApiDocSimilarInput
from gno_contracts.models.api_graph_query_input import ApiGraphQueryInput
from gno_contracts.models.api_impact_input import ApiImpactInput
from gno_contracts.models.backlinks_input import BacklinksInput
from gno_contracts.models.graph_query_input import GraphQueryInput
from gno_contracts.models.impact_input import ImpactInput
from gno_contracts.models.links_input import LinksInput
from gno_contracts.models.similar_input import SimilarInput

from gno.app import App
from gno.core.identity import parse_ref
from gno.errors import DocumentNotFoundError, ValidationError
from gno.services.graph_refs import check_collection
from gno.services.graph_walks import impact_payload

DOCID = re.compile(r"#?[0-9a-f]{6,64}")
SIMILAR_LIMIT_MAX = 20


def doc_ref(value: str) -> str:
    """A path id as a ref: a bare docid gets its `#`. An id that is no reference names no
    document: 404 as GNO answers it (surfaces.md §4.2), where the operation's own ``ref``
    (CLI, MCP) is refused as invalid input."""
    ref = "#" + value.lstrip("#") if DOCID.fullmatch(value) else value
    try:
        parse_ref(ref)
    except ValidationError:
        raise DocumentNotFoundError(f"Document not found: {value}") from None
    return ref


def _value(value: Any) -> Any:
    return getattr(value, "value", value)


def doc_links(body: ApiDocLinksInput, local: bool) -> LinksInput:
    fields: dict[str, Any] = {"ref": doc_ref(body.id)}
    if body.type is not None:
        fields["type"] = _value(body.type)
    return LinksInput.model_validate(fields)


def doc_backlinks(body: ApiDocBacklinksInput, local: bool) -> BacklinksInput:
    fields: dict[str, Any] = {"ref": doc_ref(body.id)}
    if body.collection is not None:
        fields["collection"] = body.collection
    return BacklinksInput.model_validate(fields)


def doc_similar(body: ApiDocSimilarInput, local: bool) -> SimilarInput:
    return SimilarInput(
        ref=doc_ref(body.id),
        limit=min(body.limit, SIMILAR_LIMIT_MAX),
        threshold=body.threshold,
        crossCollection=body.crossCollection,
    )


def graph_query(body: ApiGraphQueryInput, local: bool) -> GraphQueryInput:
    if body.doc and body.root and body.doc != body.root:
        raise ValidationError("doc and root name the same thing: give one")
    ref = body.doc or body.root
    if not ref:
        raise ValidationError("doc is required")
    if body.maxDepth is not None and body.depth is not None and body.maxDepth != body.depth:
        raise ValidationError("maxDepth and depth must match when both are given")
    fields: dict[str, Any] = {"ref": ref}
    depth = body.maxDepth if body.maxDepth is not None else body.depth
    if depth is not None:
        fields["maxDepth"] = depth
    for name in ("direction", "edgeType", "relation", "maxNodes", "frontierLimit", "visitedLimit"):
        if name in body.model_fields_set:
            fields[name] = _value(getattr(body, name))
    return GraphQueryInput.model_validate(fields)


class ImpactScope(ImpactInput):
    """The operation's input and the collections whose dependents are listed (part of the
    input, so the result cache keeps a filtered answer apart)."""

    collections: list[str] | None = None


def impact_body(body: ApiImpactInput, local: bool) -> ImpactScope:
    fields = body.model_dump(mode="json", exclude_unset=True)
    return ImpactScope.model_validate(fields | {"collections": fields.pop("collection", None)})


def impact(app: App, inp: ImpactScope) -> dict[str, Any]:
    """``GET /api/impact`` (the route's view): impact@1.0, its dependents limited to the
    ``collection``s given (each must exist: NOT_FOUND)."""
    wanted = [check_collection(app, name) or name for name in inp.collections or []]
    return impact_payload(app, inp, wanted or None)
